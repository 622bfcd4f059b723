// The quick tier's browser check (scripts/test --quick): a build opens in
// headless Chromium, the first panel draws its figure, a dragged slider
// changes the URL and redraws the figure, and the console stays free of
// errors. It takes any build, so the quick tier can use a debug one.
//
// Usage: node tests/e2e/smoke.mjs DIST

import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, PREFIX, assert, blankCanvases, chartsCaughtUp, startServer } from './e2e.mjs';

const dist = path.resolve(process.argv[2] ?? 'dist');
const server = await startServer(dist);
const browser = await chromium.launch(CHROMIUM);
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  const base = `http://127.0.0.1:${server.address().port}${PREFIX}`;
  await page.goto(`${base}?v=1&p=poisson&s=1`);
  // A debug build's wasm is large and slow to compile.
  await page.waitForSelector('#figure canvas', { timeout: 60_000 });
  assert((await blankCanvases(page)).length === 0, 'the Poisson figure is blank');
  const drawn = await page.$eval('#figure', (figure) => figure.dataset.updates);

  // The slider moves a position on its (log) track; the field beside it
  // and the URL carry the value.
  const field = page.locator('#f-n');
  const before = await field.inputValue();
  await page.locator('#f-n-range').focus();
  await page.keyboard.press('ArrowRight');
  const after = await field.inputValue();
  assert(after !== before, `n stayed at ${before}`);
  await page.waitForFunction((n) => new URL(location.href).searchParams.get('n') === n, after, {
    timeout: 10_000,
  });
  await page.waitForFunction((before) => document.getElementById('figure').dataset.updates !== before, drawn, {
    timeout: 10_000,
  });
  await chartsCaughtUp(page);
  assert((await blankCanvases(page)).length === 0, 'the figure is blank after the drag');
  assert(errors.length === 0, `console errors:\n${errors.join('\n')}`);
  console.log(`smoke: ok - drawn, dragged to n=${new URL(page.url()).searchParams.get('n')}, redrawn`);
} finally {
  await browser.close();
  server.close();
}
