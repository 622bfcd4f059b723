// The charts: a dragged slider redraws them and reaches the URL (with the
// drag's update times as figures), a focused or hovered chart reads its
// values, a chart saves as PNG, and they draw at the pixel ratio and
// follow a resized window.

import fs from 'node:fs';
import path from 'node:path';
import { expect, test, until } from '../fixtures.mjs';
import { DRAGGED, SHOTS, blankCanvases, canvasPixels, dragSlider, nextFrame, percentile, queryParam, queueDone } from '../helpers.mjs';

for (const [slug, key] of DRAGGED) {
  test(`panel ${slug}: dragging the ${key} slider redraws the charts and updates the URL`, async ({ app }) => {
    const page = await app.newPage();
    await app.open(page, `?v=1&p=${slug}&s=1`);
    await expect.poll(() => blankCanvases(page), { message: 'blank charts before dragging' }).toEqual([]);
    const before = await canvasPixels(page);
    const startValue = queryParam(page, key);
    const sorted = await dragSlider(page, key, { moves: 40, span: 0.4 });
    expect(queryParam(page, key), `${key} in the URL`).not.toBe(startValue);
    expect(await canvasPixels(page), 'the charts after the drag').not.toBe(before);
    expect(sorted.length, 'updates recorded while dragging').toBeGreaterThanOrEqual(5);
    const [p50, p95] = [percentile(sorted, 0.5), percentile(sorted, 0.95)];
    console.log(`# figure: ${slug} drag, ${sorted.length} updates, recompute and redraw p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`);
    await app.shot(page, `dragged-${slug}`);
  });
}

test('charts: a focused chart reads its values, and the arrow keys move the reading', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=jitter&s=1');
  const readout = page.locator('#jitter-arrivals-readout');
  const text = async () => (await readout.textContent()).trim();
  expect(await text(), 'the readout before focus').toBe('');
  await expect(readout, 'the readout aria-live').toHaveAttribute('aria-live', 'polite');
  await page.focus('#jitter-arrivals');
  const first = await until(text, 'a reading on focus');
  expect(first, 'the reading on focus names a value').toMatch(/jobs per.*\d|\d.*jobs per/s);
  await page.keyboard.press('ArrowRight');
  const second = await until(async () => (await text()) !== first && (await text()), 'ArrowRight to move the reading');
  await page.keyboard.press('End');
  await expect.poll(async () => [first, second].includes(await text()), { message: 'End to move the reading' }).toBe(false);
  // The pointer reads where it is: the middle of the lower plot.
  const box = await page.locator('#jitter-arrivals').boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.75);
  const hovered = await until(text, 'a reading under the pointer');
  expect(hovered, 'the hovered reading').toContain('jobs per');
  await expect(page.locator('.readout-line'), 'crosshair lines').toHaveCount(1);
});

test('charts: hovered readouts on Jitter, Queue and the Slots ring, light and dark', async ({ app }) => {
  for (const colorScheme of ['light', 'dark']) {
    const page = await app.newPage({ colorScheme });
    for (const [query, id, x, y] of [
      ['?v=1&p=jitter&s=1', 'jitter-arrivals', 0.2, 0.8],
      ['?v=1&p=queue&s=1', 'queue-depth', 0.45, 0.5],
      ['?v=1&p=slots&s=1', 'slots-ring', 0.5, 0.15],
    ]) {
      await app.open(page, query);
      if (query.includes('queue')) await queueDone(page);
      const canvas = page.locator(`#${id}`);
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      await page.mouse.move(box.x + box.width * x, box.y + box.height * y);
      const reading = page.locator(id === 'slots-ring' ? '#slots-note' : `#${id}-readout`);
      await expect(reading, `a reading on ${id}`).toHaveText(/\d/);
      if (id === 'slots-ring') await expect(reading, "the ring's reading").toHaveText(/^\s*Slot \d+ of 15 .*cost/);
      // The crosshair or the ring's highlight is drawn in the frame after the reading.
      await nextFrame(page);
      await page.locator('.chart-block', { has: canvas }).screenshot({ path: path.join(SHOTS, `readout-${id}-${colorScheme}.png`) });
    }
  }
});

test("queue: a chart's PNG button saves it at twice its size, titled, with the parameters", async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=queue&s=1');
  await queueDone(page);
  const button = page.locator('#fig-depth button.png');
  await expect(button, "the button's name").toHaveAttribute('aria-label', 'Save Jobs waiting as PNG');
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  expect(download.suggestedFilename(), 'the file name').toBe('stampede-fig-depth.png');
  const png = fs.readFileSync(await download.path());
  expect(png.subarray(1, 4).toString(), 'the file type').toBe('PNG');
  const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  const css = await page.$eval('#queue-depth', (c) => [c.clientWidth, c.clientHeight]);
  expect(width, "the PNG width (twice the chart's CSS width)").toBe(css[0] * 2);
  expect(height, `the PNG height, for a chart of ${css[1]} CSS px, with room for title and parameters`).toBeGreaterThan(css[1] * 2 + 60);
  fs.writeFileSync(path.join(SHOTS, 'export-queue-depth.png'), png);
  // Back at the screen's ratio afterwards.
  await expect.poll(() => page.$eval('#queue-depth', (c) => c.width), { message: "the chart to draw at the screen's ratio again" }).toBe(css[0]);
});

test('charts draw at the pixel ratio and follow a resized window', async ({ app }) => {
  const page = await app.newPage({ deviceScaleFactor: 2 });
  await app.open(page, '?v=1&p=poisson&s=1');
  const sizes = () =>
    page.$$eval('#figure canvas', (canvases) =>
      canvases.map((c) => ({ id: c.id, width: c.width, css: c.clientWidth, height: c.height, cssHeight: c.clientHeight })),
    );
  // The canvases that are not drawn at twice their CSS size.
  const blurred = (list) =>
    list.filter((c) => Math.abs(c.width - c.css * 2) > 2 || Math.abs(c.height - c.cssHeight * 2) > 2).map((c) => `${c.id} ${c.width}×${c.height} for ${c.css}×${c.cssHeight}`);
  const wide = await sizes();
  expect(wide.length, 'canvases at 1280 px').toBeGreaterThanOrEqual(3);
  expect(blurred(wide), 'canvases not at ratio 2 at 1280 px').toEqual([]);
  await page.setViewportSize({ width: 700, height: 900 });
  await expect.poll(async () => (await sizes())[0].css, { message: 'the charts to get narrower' }).not.toBe(wide[0].css);
  await expect.poll(async () => blurred(await sizes()), { message: 'canvases not at ratio 2 at 700 px' }).toEqual([]);
  expect((await sizes()).length, 'canvases at 700 px').toBeGreaterThanOrEqual(3);
  expect(await blankCanvases(page), 'blank charts after the resize').toEqual([]);
  await app.shot(page, 'resized-poisson');
});
