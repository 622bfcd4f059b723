// Arrivals imported into the Queue panel: read in the worker with the
// numbers `stampede run --arrivals` gives, replayed as the parameters
// change, replicated with intervals, refused rows listed by line; and the
// Fleet panel's "Simulate these starts" handing its day to the Queue.

import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '../fixtures.mjs';
import { REPO, SHOTS, blankCanvases, fleetSettled, queryParam, queueDone, stampedeJson } from '../helpers.mjs';

const FIXTURE = path.join(REPO, 'tests', 'fixtures', 'arrivals.csv');

/** `stampede run QUERY --arrivals FIXTURE MORE…`. */
const cliRun = (query, ...more) => stampedeJson(['run', query, '--arrivals', FIXTURE, ...more]);

const importDone = (page) => page.waitForSelector('#arrivals-status[data-status="done"]', { timeout: 30_000, state: 'attached' });

test('queue: imported arrivals are read in the worker and show the numbers of stampede run --arrivals', async ({ app }) => {
  const page = await app.newPage();
  const query = 'v=1&p=queue&s=1&w=4';
  await app.open(page, `?${query}`);
  await queueDone(page);
  await page.setInputFiles('#arrivals-file', FIXTURE);
  await importDone(page);
  const cli = cliRun(query);
  const cell = async (key) => Number(await page.getAttribute(`[data-arrivals="${key}"]`, 'data-value'));
  expect(await cell('arrivals'), 'arrivals').toBe(cli.arrivals.description.arrivals);
  expect(await cell('busiest-minute'), 'busiest minute').toBe(cli.arrivals.description.busiest_minute.arrivals);
  expect(await cell('fano-minute'), 'Fano per minute').toBe(cli.arrivals.description.fano_per_minute);
  await expect(page.locator('[data-refused]'), 'refused rows').toHaveAttribute('data-refused', String(cli.arrivals.refused.length));
  expect((await page.textContent('[data-arrivals="poisson"]')).trim(), 'the Poisson check').toBe(cli.arrivals.diagnosis.sentences[0]);
  expect((await page.textContent('[data-arrivals="findings"]')).trim(), 'the findings').toBe(cli.arrivals.diagnosis.sentences.slice(1).join(' '));
  const shown = await page.$$eval('tr[data-replay-lane]', (rows) =>
    rows.map((row) => [
      row.dataset.replayLane,
      Object.fromEntries([...row.querySelectorAll('td[data-replay]')].map((c) => [c.dataset.replay, Number(c.dataset.value)])),
    ]),
  );
  expect(shown.map(([slug]) => slug), 'lanes').toEqual(cli.run.lanes.map((lane) => lane.slug));
  for (const [[slug, cells], lane] of shown.map((row, i) => [row, cli.run.lanes[i]])) {
    for (const [key, value] of Object.entries(cells)) expect(value, `${slug} ${key}`).toBe(lane.run.summary[key]);
  }
  // The arrivals never reach the link.
  expect(page.url(), 'the link').not.toMatch(/arrivals|acct/);
  await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
  await page.locator('#fig-imported').screenshot({ path: path.join(SHOTS, 'queue-imported.png') });
});

test('queue: imported results follow the parameters, Replay replays the file, and replications give the imported lanes intervals', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=queue&s=1&w=4');
  await queueDone(page);
  await page.setInputFiles('#arrivals-file', FIXTURE);
  await importDone(page);
  const importedP95 = async () => Number(await page.getAttribute('tr[data-replay-lane="imported"] td[data-replay="p95_wait_s"]', 'data-value'));
  const atFour = cliRun('v=1&p=queue&s=1&w=4').run.lanes[0].run.summary.p95_wait_s;
  expect(await importedP95(), 'the imported p95 at 4 workers').toBe(atFour);

  // A change of workers replays the file: the shown figures become
  // the new parameters', and until then are marked as not current.
  await page.fill('#f-w', '1');
  await page.press('#f-w', 'Enter');
  await expect.poll(() => queryParam(page, 'w'), { message: 'w in the URL' }).toBe('1');
  await page.waitForSelector('.imported-results[data-current="true"]', { timeout: 30_000, state: 'attached' });
  const atOne = cliRun('v=1&p=queue&s=1&w=1').run.lanes[0].run.summary.p95_wait_s;
  expect(await importedP95(), 'the imported p95 at 1 worker').toBe(atOne);
  expect(atOne, 'the p95 at one worker against four').not.toBe(atFour);

  // The box is empty (the arrivals came as a file): Replay replays the file.
  await expect(page.locator('#arrivals-replay'), 'the Replay button names what it replays').toHaveText(/^\s*Replay arrivals\.csv again\s*$/);
  await page.click('#arrivals-replay');
  await importDone(page);
  expect(await importedP95(), 'the file replayed again').toBe(atOne);

  // Replications: the imported lanes get their own intervals, the same as the command line's.
  const started = Date.now();
  await page.click('#arrivals-replicate');
  await page.waitForSelector('.imported-replication [data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
  console.log(`# figure: imported arrivals (995 rows) replicated ×20 ${Date.now() - started} ms after the click`);
  const replicated = cliRun('v=1&p=queue&s=1&w=1', '--replicate', '20').replicated;
  const shown = await page.$$eval('.imported-replication td[data-replicated="p95_wait_s"]', (cells) => cells.map((c) => c.firstChild.textContent));
  const p95 = replicated.rows.find((row) => row.key === 'p95_wait_s');
  expect(shown, "the imported lanes' p95 intervals").toEqual(p95.values.map((v) => v.text));
  const explained = page.locator('.imported-replication .replication-explained');
  await expect(explained, "what ± means, in the command line's words").toHaveText(replicated.explained);
  expect((await explained.textContent()).trim(), 'the explanation').toMatch(/^What does ± mean\?/);

  // Resampling by the hour changes what varies, and says so.
  await page.check('#arrivals-resample');
  await page.waitForSelector('.imported-replication [data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
  await expect(explained, 'the resampled explanation').toHaveText(/block bootstrap|resampling by the hour needs/);
  const resampled = cliRun('v=1&p=queue&s=1&w=1', '--replicate', '20', '--resample-hours').replicated;
  await expect(explained, 'the resampled explanation, as the command line gives it').toHaveText(resampled.explained);
  const section = page.locator('.imported-replication');
  await section.scrollIntoViewIfNeeded();
  await section.screenshot({ path: path.join(SHOTS, 'queue-imported-replicated.png') });
});

test('queue: every refused arrival row is listed by its line, behind Show all past 20, and downloadable', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=queue&s=1');
  await queueDone(page);
  const good = Array.from({ length: 40 }, (_, k) => `2026-01-01T00:${String(k).padStart(2, '0')}:00Z`);
  const bad = Array.from({ length: 24 }, (_, k) => `2026-01-01T01:00:${String(k).padStart(2, '0')}+25:00`);
  bad.push('2026-02-30T00:00:00Z');
  await page.fill('#arrivals-text', [...good, ...bad].join('\n'));
  await page.click('#arrivals-replay');
  await importDone(page);
  await expect(page.locator('[data-refused]'), 'refused rows').toHaveAttribute('data-refused', '25');
  const first = await page.$$eval('.imported-refusals li', (items) => items.map((i) => i.textContent));
  expect(first.length, 'the first 20 listed').toBe(20);
  expect(first[0], 'the first refusal').toMatch(/^Line 41: .*\+25:00.*±14:00/);
  await page.click('.imported-refusals-all summary');
  // The rest are built once the list opens.
  await page.waitForSelector('.imported-refusals-rest li', { timeout: 10_000, state: 'attached' });
  const rest = await page.$$eval('.imported-refusals-rest li', (items) => items.map((i) => i.textContent));
  expect(rest.length, 'the other 5 behind Show all').toBe(5);
  expect(rest[4], 'the last refusal').toMatch(/^Line 65: .*day 30/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#arrivals-refused-download')]);
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  expect(csv.length, 'a header and every refused row in the CSV').toBe(26);
  await page.locator('#fig-imported').screenshot({ path: path.join(SHOTS, 'queue-imported-refused.png') });
});

test('fleet: "Simulate these starts" opens the Queue with the shown day\'s starts as arrivals, durations and workers', async ({ app }) => {
  // The default fleet gives no durations; the systemd sample's timers run 20 minutes.
  for (const [sample, durations] of [['', false], ['&smp=systemd-50', true]]) {
    const page = await app.newPage();
    await app.open(page, `?v=1&p=fleet${sample}`);
    await fleetSettled(page);
    const starts = Number(await page.getAttribute('#fleet-simulate', 'data-starts'));
    expect(starts, 'starts on the shown day').toBeGreaterThan(0);
    const capacity = await page.inputValue('#f-cap');
    await page.click('#fleet-simulate');
    await importDone(page);
    await expect(page.locator('[data-arrivals="arrivals"]'), `arrivals in the Queue${sample}`).toHaveAttribute('data-value', String(starts));
    await expect(page.locator('#f-w'), "the Queue's workers, as many as the capacity").toHaveValue(capacity);
    const reading = (await page.textContent('.imported-reading')) ?? '';
    expect(/duration from/.test(reading), `the jobs' durations carried over${sample} (${reading})`).toBe(durations);
    if (durations) await page.locator('#fig-imported').screenshot({ path: path.join(SHOTS, 'queue-fleet-starts.png') });
  }
});
