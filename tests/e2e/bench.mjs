// Browser benchmark of a release build in headless Chromium, for
// scripts/bench-report. Not a test: it measures and prints one JSON object,
// and judges nothing.
//
// - drag: per panel at its default parameters, the time from a slider
//   input to the last chart drawn (the figure's `data-update-ms`, as the
//   e2e drag check reads it) over MOVES mouse moves of a drag; p50, p95.
//   With BENCH_DRAG_RUNS=3, three drags on fresh pages, keeping the one
//   with the worst p95 (each run's p95 is listed beside it).
// - first chart: per panel, from navigation (performance.now() counts
//   from it) to the first frame in which a chart of #figure is not blank;
//   the median of LOADS fresh loads (9), one of each panel in turn. The
//   server sends no-store, so every load downloads and compiles the wasm
//   again. The page itself reports
//   the frame (helpers.mjs, firstPaintTimes), so no script of Playwright's
//   runs in it while it loads.
// - first paint: the first contentful paint (index.html's skeleton) over
//   all those loads, median; and the first chart of Jitter on a slow device
//   (SLOW_DEVICE: 4× CPU slowdown, 1.6 Mbit/s), median of SLOW_LOADS.
// - week run: the Queue panel's week-long run in the worker (the e2e's
//   WEEK_RUN). The page opens on the same URL with a one-hour horizon; the
//   horizon's field is then set to 168 h, so the time runs from that
//   change to `data-run-status="done"` and leaves the page load out.
//
// - replicate: the Queue panel's "Replicate ×20" at its defaults (herd
//   and slots for a day, 96,000 jobs a seed, 1.9M in all) in the worker,
//   from the click to `data-replication-status="done"`, the workers'
//   start included; the median of REPLICATE_RUNS, on as many workers as
//   the browser's cores give (`workers` in the result). Then the scaling:
//   the same with navigator.hardwareConcurrency set to give 1, 2 and 4
//   workers, those the machine has cores for (BENCH_REPLICATE_WORKERS=1,2
//   chooses; empty skips). BENCH_REPLICATE_QUERY opens another state, such
//   as a week's horizon (`?v=1&p=queue&s=1&hz=168`), where the workers'
//   start weighs less.
//
// - fleet paste: a 10,000-line crontab pasted into the Fleet panel, from
//   the paste to the figure drawn with it (read and expanded over the week
//   in the fleet worker, then drawn); the median of FLEET_PASTES pastes,
//   each of a different text so the worker's cache cannot answer.
//
// - fleet busy: a sample picked while the Fleet's worker is held on the
//   reader's own fleet (`debug=stall`), from the click to the sample's
//   figures (a fresh worker answers); the median of FLEET_PASTES. And a
//   paste of 100,000 garbage lines: the longest gap between frames from
//   the paste until its skipped lines are listed, the time the page then
//   takes to answer a script, and the longest gap while the next page of
//   skipped lines is shown; the worst of FLEET_PASTES.
//
// - arrivals read: a million arrivals chosen as a file in the Queue panel,
//   read in the Queue's worker (tests/e2e/arrivals.mjs); the median of
//   ARRIVAL_READS reads. Then "Replicate ×20" of a bursty day of about
//   30,000 arrivals, from choosing the file to the imported lanes'
//   intervals shown; the median of ARRIVAL_READS.
//
// Usage: node tests/e2e/bench.mjs [DIST]   (default dist/; BENCH_MOVES,
// BENCH_LOADS and BENCH_WEEK_RUNS change how many samples it takes;
// BENCH_PANELS=backoff,hash measures those panels only)

import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ARRIVAL_ROWS, arrivalsParseMs, burstyDay, importedReplicateMs } from './arrivals.mjs';
import {
  CHROMIUM,
  DRAGGED as E2E_DRAGGED,
  PREFIX,
  SLOW_DEVICE,
  countFleetMessages,
  dragSlider,
  firstPaintTimes,
  fleetSettled,
  fragmentOf,
  median,
  pasteInto,
  percentile,
  serviceWorkerReady,
  startServer,
  watchFrames,
} from './helpers.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.resolve(process.argv[2] ?? path.join(REPO, 'dist'));
const MOVES = Number(process.env.BENCH_MOVES ?? 50);
const DRAG_RUNS = Math.max(1, Number(process.env.BENCH_DRAG_RUNS ?? 1));
const LOADS = Number(process.env.BENCH_LOADS ?? 9);
const WEEK_RUNS = Number(process.env.BENCH_WEEK_RUNS ?? 3);
const SLOW_LOADS = Number(process.env.BENCH_SLOW_LOADS ?? 3);
const FLEET_PASTES = Number(process.env.BENCH_FLEET_PASTES ?? 3);
const REPLICATE_RUNS = Number(process.env.BENCH_REPLICATE_RUNS ?? 3);
const REPLICATE_QUERY = process.env.BENCH_REPLICATE_QUERY ?? '?v=1&p=queue&s=1';
// Replications scale with workers only while each has a core of its own.
const REPLICATE_WORKERS = (process.env.BENCH_REPLICATE_WORKERS ?? '1,2,4')
  .split(',')
  .filter(Boolean)
  .map(Number)
  .filter((workers) => process.env.BENCH_REPLICATE_WORKERS || workers <= os.availableParallelism());
const FLEET_LINES = 10_000;
const ARRIVAL_READS = Number(process.env.BENCH_ARRIVAL_READS ?? 3);

/** A crontab of FLEET_LINES jobs, half hourly and half daily, shifted by `variant` minutes. */
const bigCrontab = (variant) =>
  Array.from({ length: FLEET_LINES }, (_, i) => {
    const minute = (i * 7 + variant) % 60;
    const when = i % 2 ? `${minute} * * * *` : `${minute} ${i % 24} * * *`;
    return `${when} /opt/jobs/job-${String(i).padStart(5, '0')}.sh`;
  }).join('\n');

/**
 * A paste of FLEET_LINES lines mixing formats, as a reader with several
 * schedulers pastes them: a crontab, Jenkinsfiles, timers and CronJobs, a
 * quarter of the lines each, shifted by `variant` minutes. Returns the text
 * and how many jobs it holds.
 */
function bigMixed(variant) {
  const quarter = FLEET_LINES / 4;
  const lines = [];
  let jobs = 0;
  for (let i = 0; lines.length < quarter; i++, jobs++) {
    lines.push(`${(i * 7 + variant) % 60} ${i % 24} * * * /opt/jobs/cron-${String(i).padStart(5, '0')}.sh`);
  }
  for (let i = 0; lines.length < 2 * quarter; i++, jobs++) {
    lines.push(`// job: team/build-${i}`, 'pipeline {', "  triggers { cron('H H * * *') }", '}');
  }
  for (let i = 0; lines.length < 3 * quarter; i++, jobs++) {
    lines.push(`# file: sync-${i}.timer`, '[Timer]', `OnCalendar=*-*-* ${i % 24}:${String((i + variant) % 60).padStart(2, '0')}:00`, 'RandomizedDelaySec=5m', '');
  }
  for (let i = 0; lines.length < FLEET_LINES; i++, jobs++) {
    lines.push('---', 'apiVersion: batch/v1', 'kind: CronJob', `metadata: {name: report-${i}}`, `spec: {schedule: "${(i + variant) % 60} * * * *"}`);
  }
  return { text: lines.join('\n'), jobs };
}

// The panels and the slider the e2e drags on each.
const DRAGGED = E2E_DRAGGED.filter(
  ([slug]) => !process.env.BENCH_PANELS || process.env.BENCH_PANELS.split(',').includes(slug),
);
const WEEK_RUN = '?v=1&p=queue&s=1&n=100000&w=15&cyc=780&hz=168&dm=5.6&d90=11&vs=';
const WEEK_HOURS = '168';
const WEEK_RUN_SHORT = WEEK_RUN.replace(`hz=${WEEK_HOURS}`, 'hz=1');


async function main() {
  const server = await startServer(DIST, PREFIX);
  const BASE = `http://127.0.0.1:${server.address().port}${PREFIX}`;
  const browser = await chromium.launch(CHROMIUM);
  const errors = [];
  const newPage = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => errors.push(e.message));
    return page;
  };
  const open = async (page, query) => {
    await page.goto(BASE + query);
    await page.waitForSelector('#panel', { timeout: 30_000 });
    await page.waitForLoadState('networkidle').catch(() => {});
    await page.waitForTimeout(400);
  };
  const queueDone = (page) => page.waitForSelector('[data-run-status="done"]', { state: 'attached' });

  const result = { moves: MOVES, loads: LOADS, drag: {}, first_chart_ms: {}, week_run: null, errors };

  // The loads come first, in the browser as launched: after the drags it
  // still winds down their pages and workers. Round by round, one load of
  // each panel, so a slow spell of the machine weighs on every panel alike
  // rather than on whichever loaded then.
  const firstPaints = [];
  const firstCharts = new Map(DRAGGED.map(([slug]) => [slug, []]));
  for (let i = 0; i < LOADS; i++) {
    for (const [slug, samples] of firstCharts) {
      const times = await firstPaintTimes(browser, `${BASE}?v=1&p=${slug}&s=1`);
      samples.push(times.firstChart);
      firstPaints.push(times.firstPaint);
    }
  }
  for (const [slug, samples] of firstCharts) {
    if (!samples.length) continue;
    result.first_chart_ms[slug] = { median: median(samples), samples };
    console.error(`bench: ${slug} first chart: ${JSON.stringify(result.first_chart_ms[slug])}`);
  }
  if (firstPaints.length) {
    result.first_paint_ms = { median: median(firstPaints), samples: firstPaints };
    console.error(`bench: first paint: ${JSON.stringify(result.first_paint_ms)}`);
  }

  for (const [slug, key] of DRAGGED) {
    // DRAG_RUNS drags, each on a fresh page; the one with the worst p95 is kept.
    const runs = [];
    for (let run = 0; run < DRAG_RUNS; run++) {
      const page = await newPage();
      await open(page, `?v=1&p=${slug}&s=1`);
      if (slug === 'queue') await queueDone(page);
      // As the e2e drags, here MOVES moves over 60 % of the track.
      const sorted = await dragSlider(page, key, { moves: MOVES, span: 0.6 });
      runs.push({
        slider: key,
        updates: sorted.length,
        p50_ms: sorted.length ? percentile(sorted, 0.5) : null,
        p95_ms: sorted.length ? percentile(sorted, 0.95) : null,
        max_ms: sorted.length ? sorted[sorted.length - 1] : null,
      });
      await page.context().close();
    }
    const worst = runs.reduce((a, b) => ((b.p95_ms ?? Infinity) > (a.p95_ms ?? Infinity) ? b : a));
    result.drag[slug] = { ...worst, runs: runs.length, p95_of_runs_ms: runs.map((run) => run.p95_ms) };
    console.error(`bench: ${slug} drag: ${JSON.stringify(result.drag[slug])}`);
  }


  const slowSamples = [];
  for (let i = 0; i < SLOW_LOADS; i++) {
    slowSamples.push((await firstPaintTimes(browser, `${BASE}?v=1&p=jitter&s=1`, { slow: true })).firstChart);
  }
  if (slowSamples.length) {
    result.slow_first_chart_ms = { median: median(slowSamples), samples: slowSamples, device: SLOW_DEVICE };
    console.error(`bench: first chart on a slow device: ${JSON.stringify(result.slow_first_chart_ms)}`);
  }


  const weekSamples = [];
  for (let i = 0; i < WEEK_RUNS; i++) {
    const page = await newPage();
    await open(page, WEEK_RUN_SHORT);
    await queueDone(page);
    // Set in the page and timed there: the change handler runs the run's
    // start synchronously, and the observer sees the status turn to done.
    const ms = await page.evaluate(
      (hours) =>
        new Promise((resolve, reject) => {
          const field = document.getElementById('f-hz');
          if (!field) return reject(new Error('no #f-hz field'));
          let started;
          let ran = false;
          const status = () => document.querySelector('[data-run-status]')?.dataset.runStatus;
          new MutationObserver(() => {
            const now = status();
            if (now === 'running') ran = true;
            if (now === 'done' && ran) resolve(performance.now() - started);
            if (now === 'failed' || now === 'worker-failed') reject(new Error(`the run ended ${now}`));
          }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-run-status'] });
          field.value = hours;
          started = performance.now();
          field.dispatchEvent(new Event('change', { bubbles: true }));
        }),
      WEEK_HOURS,
    );
    // The address bar follows after a debounce, with every parameter in it;
    // those of the week run must hold its values.
    await page.waitForTimeout(600);
    const shown = new URL(page.url()).search;
    const shownParams = new URLSearchParams(shown);
    if ([...new URLSearchParams(WEEK_RUN)].some(([k, v]) => shownParams.get(k) !== v)) {
      throw new Error(`after the change the URL is ${shown}, not the week run ${WEEK_RUN}`);
    }
    weekSamples.push(ms);
    console.error(`bench: week run in the worker: ${ms.toFixed(0)} ms`);
    await page.context().close();
  }
  if (weekSamples.length) {
    result.week_run = { query: WEEK_RUN, median_ms: median(weekSamples), samples_ms: weekSamples };
  }

  // Replicate ×20 to done, REPLICATE_RUNS times on fresh pages: on the
  // browser's own cores, or on `workers` (the page runs one worker per
  // core less its own).
  const replicateTimes = async (workers) => {
    const samples = [];
    let ran = 0;
    for (let i = 0; i < REPLICATE_RUNS; i++) {
      const page = await newPage();
      if (workers) {
        await page.addInitScript((cores) => {
          Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => cores });
        }, workers + 1);
      }
      await open(page, REPLICATE_QUERY);
      await queueDone(page);
      let workersStarted = 0;
      page.on('worker', () => workersStarted++);
      // Clicked and timed in the page, as the week run is.
      const ms = await page.evaluate(
        () =>
          new Promise((resolve, reject) => {
            const status = () => document.querySelector('[data-replication-status]')?.dataset.replicationStatus;
            let started;
            let ran = false;
            new MutationObserver(() => {
              const now = status();
              if (now === 'running') ran = true;
              if (now === 'done' && ran) resolve(performance.now() - started);
              if (now === 'failed') reject(new Error('the replications failed'));
            }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-replication-status'] });
            started = performance.now();
            document.getElementById('queue-replicate').click();
          }),
      );
      await page.context().close();
      if (workers && workersStarted !== workers) {
        throw new Error(`replicate ran on ${workersStarted} workers, not ${workers}`);
      }
      samples.push(ms);
      ran = workersStarted;
      console.error(`bench: replicate ×20 on ${ran} workers: ${ms.toFixed(0)} ms`);
    }
    return samples.length ? { workers: ran, median_ms: median(samples), samples_ms: samples } : null;
  };
  const replicate = await replicateTimes(null);
  if (replicate) result.replicate = { runs: 20, query: REPLICATE_QUERY, ...replicate };
  const scaling = [];
  for (const workers of REPLICATE_WORKERS) {
    const times = await replicateTimes(workers);
    if (times) scaling.push(times);
  }
  if (scaling.length) result.replicate_scaling = { runs: 20, query: REPLICATE_QUERY, by_workers: scaling };

  // Timed in the page: from the paste event to the frame after the page
  // shows the pasted fleet (its summary and figures update together).
  const pasteMs = async (text, jobs) => {
    const page = await newPage();
    await open(page, '?v=1&p=fleet&s=1');
    await page.waitForSelector('#fleet-status[data-status="idle"]', { state: 'attached' });
    const ms = await page.evaluate(
      ({ text, jobs }) =>
        new Promise((resolve) => {
          const summary = `${jobs.toLocaleString('en-US')} jobs`;
          let pasted;
          const observer = new MutationObserver(() => {
            if (document.getElementById('fleet-summary')?.textContent.startsWith(summary)) {
              observer.disconnect();
              requestAnimationFrame(() => resolve(performance.now() - pasted));
            }
          });
          observer.observe(document.getElementById('figure'), { childList: true, characterData: true, subtree: true });
          const area = document.getElementById('fleet-text');
          area.focus();
          area.select();
          const clipboardData = new DataTransfer();
          clipboardData.setData('text/plain', text);
          pasted = performance.now();
          area.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
        }),
      { text, jobs },
    );
    await page.context().close();
    return ms;
  };
  const pasteSamples = [];
  const mixedSamples = [];
  for (let i = 0; i < FLEET_PASTES; i++) {
    const ms = await pasteMs(bigCrontab(i), FLEET_LINES);
    pasteSamples.push(ms);
    console.error(`bench: fleet paste of ${FLEET_LINES} lines drawn in ${ms.toFixed(0)} ms`);
    const mixed = bigMixed(i);
    const mixedMs = await pasteMs(mixed.text, mixed.jobs);
    mixedSamples.push(mixedMs);
    console.error(`bench: mixed fleet paste of ${FLEET_LINES} lines (${mixed.jobs} jobs) drawn in ${mixedMs.toFixed(0)} ms`);
  }
  if (pasteSamples.length) {
    result.fleet_paste = { lines: FLEET_LINES, median_ms: median(pasteSamples), samples_ms: pasteSamples };
    const mixedLines = bigMixed(0).text.split('\n').length;
    result.fleet_mixed_paste = { lines: mixedLines, median_ms: median(mixedSamples), samples_ms: mixedSamples };
  }

  const busySamples = [];
  const garbage = [];
  for (let i = 0; i < FLEET_PASTES; i++) {
    busySamples.push(await busySampleMs(newPage, BASE));
    console.error(`bench: a sample picked while the fleet worker is busy answered in ${busySamples.at(-1).toFixed(0)} ms`);
    garbage.push(await garbagePaste(newPage, BASE));
    console.error(`bench: 100,000 garbage lines pasted: ${JSON.stringify(garbage.at(-1))}`);
  }
  if (busySamples.length) {
    result.fleet_busy_sample = { median_ms: median(busySamples), samples_ms: busySamples };
    const worst = (key) => Math.max(...garbage.map((run) => run[key]));
    result.fleet_garbage_paste = {
      lines: GARBAGE_LINES,
      longest_frame_ms: worst('longestFrame'),
      answer_ms: worst('answer'),
      paging_longest_frame_ms: worst('pagingLongestFrame'),
      runs: garbage,
    };
  }

  const arrivalSamples = await arrivalsParseMs(browser, BASE, ARRIVAL_READS);
  if (arrivalSamples.length) {
    result.arrivals_read = { rows: ARRIVAL_ROWS, median_ms: median(arrivalSamples), samples_ms: arrivalSamples };
    console.error(`bench: ${ARRIVAL_ROWS} arrivals read in the worker: ${JSON.stringify(arrivalSamples)} ms`);
  }
  const importedSamples = await importedReplicateMs(browser, BASE, ARRIVAL_READS);
  if (importedSamples.length) {
    const rows = burstyDay().rows;
    result.imported_replicate = { rows, runs: 20, median_ms: median(importedSamples), samples_ms: importedSamples };
    console.error(`bench: ${rows} imported arrivals replicated ×20: ${JSON.stringify(importedSamples)} ms`);
  }

  await browser.close();
  server.close();
  console.log(JSON.stringify(result));
}

/**
 * From the click on a sample, while the Fleet's worker is held on the
 * reader's own fleet, to the frame after the sample's summary: the page
 * starts a fresh worker rather than wait.
 */
async function busySampleMs(newPage, base) {
  const page = await newPage();
  await countFleetMessages(page);
  const fragment = fragmentOf('cron\tnightly\t0 2 * * *\n');
  await page.goto(`${base}?v=1&p=fleet&smp=own&debug=stall#${fragment}`);
  await page.waitForFunction(() => window.__fleet.taken > 0);
  await page.waitForSelector('#fleet-status[data-status="working"]', { state: 'attached' });
  const ms = await page.evaluate(
    () =>
      new Promise((resolve) => {
        let clicked;
        const observer = new MutationObserver(() => {
          if (document.getElementById('fleet-status')?.dataset.status === 'idle') {
            observer.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - clicked));
          }
        });
        observer.observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-status'] });
        clicked = performance.now();
        document.querySelector('button[data-sample="jenkins-h"]').click();
      }),
  );
  await page.context().close();
  return ms;
}

const GARBAGE_LINES = 100_000;

/**
 * A paste of GARBAGE_LINES short lines none of which is a schedule: the
 * longest frame until the skipped lines are listed, how long the page then
 * takes to answer, and the longest frame while it shows the next page of them.
 */
async function garbagePaste(newPage, base) {
  const page = await newPage();
  await page.goto(`${base}?v=1&p=fleet`);
  await fleetSettled(page);
  // The service worker's download of the build ends first, so the frames are the paste's.
  await serviceWorkerReady(page);
  const text = Array.from({ length: GARBAGE_LINES }, (_, i) => `x ${i}`).join('\n');
  const stop = await watchFrames(page);
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page, 30_000);
  await page.waitForSelector('#skipped-lines li');
  const asked = Date.now();
  await page.evaluate(() => 1);
  const answer = Date.now() - asked;
  const { longest: longestFrame } = await stop();
  const stopPaging = await watchFrames(page);
  await page.click('#show-skipped');
  await page.waitForFunction(() => document.querySelectorAll('#skipped-lines li').length > 20);
  const { longest: pagingLongestFrame } = await stopPaging();
  await page.context().close();
  return { longestFrame, answer, pagingLongestFrame };
}

await main();
