// The quick tier's browser check (scripts/test --quick): a build opens,
// the first panel draws its figure, a slider moved changes the URL and
// redraws the figure. It takes any build, so the quick tier gives it a
// debug one (E2E_DIST).

import { expect, test } from '../fixtures.mjs';
import { blankCanvases, chartsCaughtUp, queryParam } from '../helpers.mjs';

test('a build opens, draws its first chart, and a moved slider changes the URL and the chart', { tag: '@smoke' }, async ({ app }) => {
  const page = await app.newPage();
  await page.goto(`${app.base}?v=1&p=poisson&s=1`);
  // A debug build's wasm is large and slow to compile.
  await page.locator('#figure canvas').first().waitFor({ timeout: 60_000 });
  await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
  const drawn = await page.getAttribute('#figure', 'data-updates');

  // The slider moves a position on its (log) track; the field beside it
  // and the URL carry the value.
  const field = page.locator('#f-n');
  const before = await field.inputValue();
  await page.locator('#f-n-range').focus();
  await page.keyboard.press('ArrowRight');
  await expect(field).not.toHaveValue(before);
  const after = await field.inputValue();
  await expect.poll(() => queryParam(page, 'n'), { message: 'n in the URL' }).toBe(after);
  await expect.poll(() => page.getAttribute('#figure', 'data-updates'), { message: 'the figure redrawn' }).not.toBe(drawn);
  await chartsCaughtUp(page);
  expect(await blankCanvases(page), 'blank charts after the move').toEqual([]);
});
