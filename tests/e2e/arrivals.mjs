// How long the Queue's worker takes to read a million arrivals: a CSV of
// 1,000,000 rows (epoch milliseconds, a duration, an account and a kind,
// as the core's criterion bench reads them) chosen as a file, from the
// page's handing it over to the worker's `{parsed: ms}` (the worker's own
// clock around the parse). The replay that follows is not timed.
//
// bench.mjs calls arrivalsParseMs; `node tests/e2e/arrivals.mjs [DIST]`
// prints the figure alone.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, PREFIX, startServer } from './e2e.mjs';

export const ARRIVAL_ROWS = 1_000_000;

/** The CSV of ARRIVAL_ROWS arrivals spread over a day. */
export function millionArrivals() {
  const start = 1_767_225_600_000;
  const rows = ['timestamp,duration,account,kind'];
  for (let row = 0; row < ARRIVAL_ROWS; row++) {
    const ms = start + Math.floor((row * 86_400_000) / ARRIVAL_ROWS);
    rows.push(`${ms},${row % 7}.5,acct-${row % 5000},sync`);
  }
  return Buffer.from(rows.join('\n') + '\n');
}

/** Reads the million rows `samples` times on `base` (the app's URL); each sample in ms. */
export async function arrivalsParseMs(browser, base, samples) {
  const buffer = millionArrivals();
  const times = [];
  for (let i = 0; i < samples; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}?v=1&p=queue&s=1`);
    await page.waitForSelector('[data-run-status="done"]', { state: 'attached', timeout: 30_000 });
    await page.setInputFiles('#arrivals-file', { name: 'million.csv', mimeType: 'text/csv', buffer });
    const parsed = await page.waitForSelector('#arrivals-status[data-parse-ms]', { state: 'attached', timeout: 60_000 });
    times.push(Number(await parsed.getAttribute('data-parse-ms')));
    await context.close();
  }
  return times;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const dist = path.resolve(process.argv[2] ?? path.join(REPO, 'dist'));
  const server = await startServer(dist, PREFIX);
  const browser = await chromium.launch(CHROMIUM);
  const base = `http://127.0.0.1:${server.address().port}${PREFIX}`;
  const samples = await arrivalsParseMs(browser, base, Number(process.env.BENCH_ARRIVAL_READS ?? 3));
  console.log(JSON.stringify({ rows: ARRIVAL_ROWS, samples_ms: samples }));
  await browser.close();
  server.close();
}
