// Every preset core defines (target/presets.json, `stampede presets`):
// opened by its URL, the page shows the key numbers core computes for it,
// and on the Queue panel the summaries `stampede run` gives; each panel's
// "try this" buttons set their preset's numbers and URL.

import { expect, test } from '../fixtures.mjs';
import { expectCoreSummaries } from '../checks.mjs';
import { blankCanvases, fleetSettled, keyNumberMap, queueDone, readPresets } from '../helpers.mjs';

const presets = readPresets();

/** The page's key numbers of `expected` (a preset's), as {key: text}, to compare with core's. */
const shownKeyNumbers = async (page, expected) => {
  const shown = await keyNumberMap(page);
  return Object.fromEntries(expected.map((number) => [number.key, shown[number.key]]));
};
const coreKeyNumbers = (expected) => Object.fromEntries(expected.map((number) => [number.key, number.value]));

for (const preset of presets) {
  test(`preset ${preset.panel}/${preset.slug}: the page shows core's numbers`, async ({ app }) => {
    const page = await app.newPage();
    await app.open(page, `?${preset.query}`);
    if (preset.panel === 'queue') {
      await queueDone(page);
      await expectCoreSummaries(page, preset.query, 'opened by URL');
    }
    if (preset.panel === 'fleet') await fleetSettled(page);
    await expect
      .poll(() => shownKeyNumbers(page, preset.key_numbers), { message: 'key numbers opened by URL' })
      .toEqual(coreKeyNumbers(preset.key_numbers));
    await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
    await app.shot(page, `preset-${preset.panel}-${preset.slug}`);
  });
}

for (const slug of new Set(presets.map((p) => p.panel))) {
  test(`panel ${slug}: each "try this" button sets its preset`, async ({ app }) => {
    const page = await app.newPage();
    await app.open(page, `?v=1&p=${slug}&s=1`);
    for (const preset of presets.filter((p) => p.panel === slug)) {
      await page.click(`button[data-preset="${preset.slug}"]`);
      await expect
        .poll(() => shownKeyNumbers(page, preset.key_numbers), { message: `the numbers after clicking ${preset.slug}` })
        .toEqual(coreKeyNumbers(preset.key_numbers));
      await expect.poll(() => page.url().endsWith(`?${preset.query}`), { message: `the URL of ${preset.slug}` }).toBe(true);
    }
  });
}
