// The Queue panel: a week-long run in the worker, with the durations the
// standby worker draws ahead; replications and their intervals as
// `stampede run` gives them, over one worker or three, cancelled from a
// link; a run cancelled mid-way, its late replies ignored; playing,
// stepping and scrubbing the clock; charts out of view waiting while the run plays.

import path from 'node:path';
import { expectCoreSummaries, pageSummaries } from '../checks.mjs';
import { expect, test } from '../fixtures.mjs';
import { SHOTS, WEEK_RUN, blankCanvases, canvasPixels, queryParam, queueDone, stampedeJson } from '../helpers.mjs';

test('queue: a week-long run goes to the worker, shows progress and matches stampede run', async ({ app }) => {
  const page = await app.newPage();
  const started = Date.now();
  await page.goto(app.base + WEEK_RUN);
  await page.waitForSelector('#queue-progress', { timeout: 30_000 });
  await queueDone(page, 60_000);
  const ms = await page.evaluate(() => performance.now());
  console.log(`# figure: queue week-long run (100,000 accounts, 15 workers) done ${Math.round(ms)} ms after navigation (${Date.now() - started} ms wall)`);
  await expectCoreSummaries(page, WEEK_RUN.slice(1), 'the week-long run');
  await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
  await app.shot(page, 'queue-week');
});

test('queue: a week-long run reading durations drawn ahead by the standby worker matches stampede run', async ({ app }) => {
  const page = await app.newPage();
  // Records what the page asks its workers to draw ahead: `Request::Ahead`
  // (src/messages/queue.rs), which crosses as `{ Ahead: query }`.
  await page.addInitScript(() => {
    window.__drawAhead = 0;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      if (message?.Ahead !== undefined) window.__drawAhead++;
      return post.call(this, message, ...rest);
    };
  });
  // An hour first, on the page; once it is drawn and the page idle, the
  // standby worker is asked to draw its sync durations, which the week then reads.
  await app.open(page, WEEK_RUN.replace('hz=168', 'hz=1'));
  await queueDone(page);
  await expect.poll(() => page.evaluate(() => window.__drawAhead), { message: 'the standby worker asked to draw ahead' }).toBeGreaterThan(0);
  const ended = await page.evaluate(
    () =>
      new Promise((resolve) => {
        let ran = false;
        new MutationObserver(() => {
          const status = document.querySelector('[data-run-status]')?.dataset.runStatus;
          if (status === 'running') ran = true;
          else if (ran) resolve(status);
        }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-run-status'] });
        const field = document.getElementById('f-hz');
        field.value = '168';
        field.dispatchEvent(new Event('change', { bubbles: true }));
      }),
  );
  expect(ended, 'the week-long run after an hour').toBe('done');
  await expectCoreSummaries(page, WEEK_RUN.slice(1), 'the week-long run after an hour');
});

test('queue: replicate on a preset shows the intervals stampede run --replicate gives', async ({ app }) => {
  const page = await app.newPage();
  // The least-recently-synced preset against slots.
  await app.open(page, '?v=1&p=queue&s=1&st=lrs&vs=slots');
  await queueDone(page);
  const started = Date.now();
  await page.click('#queue-replicate');
  await page.waitForSelector('[data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
  console.log(`# figure: queue replicate ×20 of the least-recent-vs-slots preset done ${Date.now() - started} ms after the click`);
  await expect.poll(() => queryParam(page, 'repl'), { message: 'repl in the URL' }).toBe('20');
  const core = stampedeJson(['run', new URL(page.url()).search.slice(1)]);
  const meanWait = core.rows.find((row) => row.key === 'mean_wait_s');
  const shown = await page.$$eval('td[data-replicated="mean_wait_s"]', (cells) => cells.map((c) => c.firstChild.textContent));
  expect(shown, 'the mean wait intervals').toEqual(meanWait.values.map((v) => v.text));
  const badDays = await page.$$eval('td[data-replicated="mean_wait_s"] small[data-bad-day]', (notes) => notes.map((n) => Number(n.dataset.badDay)));
  expect(badDays, "the mean wait's bad days").toEqual(meanWait.values.map((v) => v.bad_day.value));
  expect(shown[0], 'the interval text').toMatch(/^\S.* ± .* \(95 %, 20 runs\)$/);
  const p99 = await page.$eval('td[data-replicated="p99_wait_s"] small:not([data-bad-day])', (note) => note.textContent);
  expect(p99, "the p99's note").toMatch(/^99 in 100 of at least [\d,]+ jobs a run waited no longer/);
  const differences = await page.$$eval('li[data-difference]', (items) => items.map((i) => i.textContent));
  expect(differences, 'the differences in words').toEqual(core.differences.map((d) => d.text));
  await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
  const band = page.locator('#fig-depth-band');
  await band.scrollIntoViewIfNeeded();
  await band.screenshot({ path: path.join(SHOTS, 'queue-depth-band.png') });
  await app.shot(page, 'queue-replicated');
});

test('queue: replications over 1 and over 3 workers give identical figures', async ({ app }) => {
  // The page runs one worker per core less its own: 2 cores give 1
  // worker, 4 give 3.
  const replicated = async (cores) => {
    const page = await app.newPage();
    await page.addInitScript((cores) => {
      Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => cores });
    }, cores);
    await app.open(page, '?v=1&p=queue&s=1&st=lrs&vs=slots&hz=6');
    await queueDone(page);
    await page.click('#queue-replicate');
    await page.waitForSelector('[data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
    // The page's own count: counting the workers that start would also
    // count the standby the next run takes, loaded before or after the
    // click as the page is idle.
    const workers = Number(await page.getAttribute('[data-replication-status]', 'data-replication-workers'));
    const cells = await page.$$eval('td[data-replicated]', (cells) => cells.map((c) => c.textContent));
    const differences = await page.$$eval('li[data-difference]', (items) => items.map((i) => i.textContent));
    return { workers, figures: { cells, differences } };
  };
  const one = await replicated(2);
  const three = await replicated(4);
  expect(one.workers, 'workers with 2 cores').toBe(1);
  expect(three.workers, 'workers with 4 cores').toBe(3);
  expect(one.figures.cells.length, 'replicated figures shown').toBeGreaterThan(0);
  expect(three.figures, 'the figures over 3 workers against 1').toEqual(one.figures);
});

test('queue: replications from a link show progress and cancel', async ({ app }) => {
  const page = await app.newPage();
  // 100 seeds of a week of herd and slots: about 67M jobs, seconds of work.
  await app.open(page, '?v=1&p=queue&s=1&hz=168&repl=100');
  await page.waitForSelector('#queue-replication-progress', { timeout: 30_000 });
  await page.click('#queue-replication-cancel');
  await page.waitForSelector('[data-replication-status="cancelled"]', { state: 'attached' });
  await expect(page.locator('td[data-replicated]'), 'replicated cells after cancelling').toHaveCount(0);
  await page.click('#queue-replication-restart');
  await page.waitForSelector('#queue-replication-progress', { timeout: 10_000 });
});

test('queue: cancel stops a run mid-way and keeps the last finished one on screen', async ({ app }) => {
  const page = await app.newPage();
  await holdWorkerReplies(page);
  await app.open(page, '?v=1&p=queue&s=1');
  await queueDone(page);
  const before = await pageSummaries(page);
  // A run for the worker, whose replies wait until the cancel button is
  // clicked: however fast the worker is, the run is still under way.
  await page.evaluate(() => window.holdReplies(true));
  await page.fill('#f-n', '1000000');
  await page.press('#f-n', 'Enter');
  // The worker has said something (it is ready, or how far it is) before
  // the cancel, however slowly it started on a busy machine.
  await page.waitForFunction(() => window.heldReplies() > 0);
  await page.click('#queue-cancel');
  await page.waitForSelector('[data-run-status="cancelled"]', { state: 'attached' });
  expect(await page.evaluate(() => window.holdReplies(false)), 'replies held while running').toBeGreaterThan(0);
  await page.evaluate(() => new Promise((done) => setTimeout(done, 500)));
  await expect(page.locator('[data-run-status]'), 'the status after the late replies').toHaveAttribute('data-run-status', 'cancelled');
  expect(await pageSummaries(page), 'the summary after cancelling').toEqual(before);
  await app.shot(page, 'queue-cancelled');
  await page.click('#queue-restart');
  await queueDone(page, 60_000);
  expect(await pageSummaries(page), 'the summary after running again').not.toEqual(before);
});

/**
 * Lets the page hold what its workers send: `holdReplies(true)` keeps each
 * reply; `heldReplies()` says how many are kept; `holdReplies(false)` hands
 * the kept ones to the handlers still listening and says how many were kept.
 */
async function holdWorkerReplies(page) {
  await page.addInitScript(() => {
    const onmessage = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
    let held = null;
    Object.defineProperty(Worker.prototype, 'onmessage', {
      get() {
        return onmessage.get.call(this);
      },
      set(handler) {
        const worker = this;
        const wrapped =
          handler &&
          function (event) {
            if (held) held.push([worker, wrapped, event]);
            else handler.call(worker, event);
          };
        if (wrapped) wrapped.handler = handler;
        onmessage.set.call(this, wrapped);
      },
    });
    window.heldReplies = () => held?.length ?? 0;
    window.holdReplies = (hold) => {
      const kept = held ?? [];
      held = hold ? [] : null;
      for (const [worker, wrapped, event] of kept) {
        if (onmessage.get.call(worker) === wrapped) wrapped.handler.call(worker, event);
      }
      return kept.length;
    };
  });
}

test('queue: playing grows the charts from the start, step and scrub move the clock', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=queue&s=1');
  await queueDone(page);
  const depth = () => page.$eval('#queue-depth', (c) => c.toDataURL());
  const whole = await depth();
  await page.fill('#queue-scrub', '250');
  await expect(page.locator('.queue-time'), 'the clock at 6 h').toHaveText(/^6 h of 1 day/);
  const quarter = await depth();
  expect(quarter, 'the depth chart scrubbed to 6 h').not.toBe(whole);
  await page.click('#queue-step');
  await expect(page.locator('.queue-time'), 'a step to move the clock to 7 h').toHaveText(/^7 h of 1 day/);
  await page.click('#queue-play');
  await expect(page.locator('#queue-play'), 'aria-pressed while playing').toHaveAttribute('aria-pressed', 'true');
  await expect.poll(depth, { message: 'the chart to grow while playing' }).not.toBe(quarter);
  await page.click('#queue-play');
  await app.shot(page, 'queue-playing');
});

test('queue: a chart out of view waits while the run plays, draws as it comes into view, and catches up once it stops', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=queue&s=1');
  await queueDone(page);
  const stale = (id) => page.$eval(`#${id}`, (c) => c.hasAttribute('data-stale'));
  await page.selectOption('#queue-speed', '40');
  await page.click('#queue-play');
  await expect.poll(() => stale('queue-busy'), { message: 'the busy chart, below the fold, to wait while the run plays' }).toBe(true);
  await page.locator('#queue-busy').scrollIntoViewIfNeeded();
  await expect.poll(() => stale('queue-busy'), { message: 'the busy chart to draw once in view' }).toBe(false);
  await expect(page.locator('#queue-play'), 'still playing').toHaveAttribute('aria-pressed', 'true');
  // Polled: on a loaded machine a frame can outlast the catch-up's quarter
  // second, which draws every chart once; the next step skips it again.
  await expect.poll(() => stale('queue-gaps'), { message: 'the gaps chart, still out of view, waits while the run plays' }).toBe(true);
  await page.click('#queue-play');
  await page.fill('#queue-scrub', String(await page.getAttribute('#queue-scrub', 'max')));
  const caughtUp = await canvasPixels(page);
  const fresh = await app.newPage();
  await app.open(fresh, '?v=1&p=queue&s=1');
  await queueDone(fresh);
  expect(caughtUp === (await canvasPixels(fresh)), "the charts, caught up, equal a fresh page's").toBe(true);
});
