// How long the Queue's worker takes to import a million arrivals: a CSV of
// 1,000,000 rows (epoch milliseconds, a duration, an account and a kind,
// as the core's criterion bench reads them) chosen as a file, from the
// page's handing it over to the worker's `{parsed: ms}` (the worker's own
// clock around reading, describing and diagnosing them: the import). The
// replay that follows is not timed.
//
// And how long "Replicate ×20" of a day of about 30,000 arrivals takes: a
// Poisson day whose rate follows the hour, plus 400 extra in the first 5 s
// of every hour, no durations (so each run draws them), from choosing the
// file on a page whose link asks for 20 replications to the imported
// lanes' intervals shown.
//
// bench.mjs calls arrivalsParseMs and importedReplicateMs; `node
// tests/e2e/arrivals.mjs [DIST]` prints the figures alone.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, PREFIX, startServer } from './helpers.mjs';

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

/** A day of arrivals with hourly bursts, in epoch milliseconds, from a fixed seed. */
export function burstyDay() {
  let state = 42;
  // mulberry32: a small seeded generator, so every run reads the same day.
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const start = 1_767_225_600_000;
  const times = [];
  for (let hour = 0; hour < 24; hour++) {
    const perSecond = 0.236 + 0.12 * Math.sin(((hour - 6) / 24) * 2 * Math.PI);
    for (let t = -Math.log(1 - random()) / perSecond; t < 3600; t += -Math.log(1 - random()) / perSecond) {
      times.push(start + Math.floor((hour * 3600 + t) * 1000));
    }
    for (let k = 0; k < 400; k++) times.push(start + hour * 3_600_000 + Math.floor(random() * 5000));
  }
  times.sort((a, b) => a - b);
  return { rows: times.length, buffer: Buffer.from(['timestamp', ...times].join('\n') + '\n') };
}

/** "Replicate ×20" of burstyDay() on `base`, `samples` times; each sample in ms. */
export async function importedReplicateMs(browser, base, samples) {
  const { buffer } = burstyDay();
  const times = [];
  for (let i = 0; i < samples; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}?v=1&p=queue&s=1&w=12&repl=20`);
    await page.waitForSelector('[data-run-status="done"]', { state: 'attached', timeout: 60_000 });
    await page.waitForSelector('.queue-replication [data-replication-status="done"]', { state: 'attached', timeout: 120_000 });
    const started = Date.now();
    await page.setInputFiles('#arrivals-file', { name: 'day.csv', mimeType: 'text/csv', buffer });
    await page.waitForSelector('.imported-replication [data-replication-status="done"]', { state: 'attached', timeout: 120_000 });
    times.push(Date.now() - started);
    await context.close();
  }
  return times;
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
  const replicated = await importedReplicateMs(browser, base, Number(process.env.BENCH_ARRIVAL_READS ?? 3));
  console.log(JSON.stringify({ imported_replicate: { rows: burstyDay().rows, runs: 20, samples_ms: replicated } }));
  await browser.close();
  server.close();
}
