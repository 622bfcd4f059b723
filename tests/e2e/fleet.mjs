// The Fleet panel's end-to-end checks, run by e2e.mjs with its harness:
// each sample's key numbers against `stampede fleet` on the same text, a
// 300-line fleet through a shared link, a hostile link named and a sample
// answered within 1 s while it is read anyway, a 100,000-line garbage
// paste within the frame budget, a too-long fleet kept on the page, bad
// lines named, CR-only and BOM'd files, a paste that mixes formats and
// files uploaded together read whole, and the fix's copied text read back
// in.

import { execFileSync } from 'node:child_process';
import { deflateRawSync } from 'node:zlib';
import { assert, blankCanvases, pasteInto, poll } from './e2e.mjs';

// The week the panel shows by default, as `stampede fleet` takes it.
const WEEK = ['--from', '2026-01-05T00:00:00Z', '--hours', '168', '--seed', '1'];
const SAMPLES = ['cron-minute-0', 'jenkins-h', 'systemd-50', 'prometheus-500', 'k8s', 'gha'];

/** `stampede fleet` on `text`: its expansion over the panel's default week. */
function coreFleet(stampede, text) {
  // Its notices go to stderr, which the page shows in its own way.
  const out = execFileSync(stampede, ['fleet', ...WEEK], {
    input: text,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  return JSON.parse(out);
}

/** The leading whole number of a key number's text: "1,234 starts at…" → 1234. */
const leading = (text) => Number((text ?? '').replace(/,/g, '').match(/^\d+/)?.[0] ?? NaN);

const keyNumberMap = (page) =>
  page.$$eval('dd[data-key]', (dds) => Object.fromEntries(dds.map((dd) => [dd.dataset.key, dd.textContent.trim()])));

/** Waits until the worker has answered the newest request, every stage. */
export const fleetSettled = (page, timeout = 20_000) =>
  page.waitForSelector('#fleet-status[data-status="idle"]', { timeout, state: 'attached' });

/** The week's starts, busiest minute and shared minutes the page states, as numbers. */
async function pageFigures(page) {
  const keys = await keyNumberMap(page);
  const shared = (keys.shared ?? '').replace(/,/g, '').match(/^(\d+) starts? in (\d+) minutes?/);
  return {
    starts: leading(keys.starts),
    peak: leading(keys['peak-minute']),
    sharedStarts: shared ? Number(shared[1]) : NaN,
    sharedMinutes: shared ? Number(shared[2]) : NaN,
    peakAfter: leading(keys['peak-after']),
  };
}

function expectFigures(shown, core, what) {
  const want = {
    starts: core.starts.length,
    peak: core.peak?.starts ?? 0,
    sharedStarts: core.shared.starts,
    sharedMinutes: core.shared.minutes,
  };
  for (const [key, value] of Object.entries(want)) {
    if (shown[key] !== value) throw new Error(`${what}: ${key} shows ${shown[key]}, stampede fleet gives ${value}`);
  }
}

/** The link fragment (without `#`) that carries `text`, as core's `link::encode` writes it. */
const fragmentOf = (text) => `1${deflateRawSync(text, { level: 9 }).toString('base64url')}`;

/**
 * Counts, in `window.__fleetTaken`, the requests the page's fleet workers
 * say they took: once a request is taken, the worker is on it.
 */
const countTakenRequests = (page) =>
  page.addInitScript(() => {
    window.__fleetTaken = 0;
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(...args) {
        super(...args);
        // The worker's `Message::Taken` (src/messages/fleet.rs), whose
        // postcard bytes start with its variant's index, 1.
        this.addEventListener('message', (event) => {
          if (event.data instanceof Uint8Array && event.data[0] === 1) window.__fleetTaken++;
        });
      }
    };
  });

/**
 * Starts recording the gaps between animation frames in the page; the
 * returned function stops and gives the longest gap in ms and how many
 * frames were drawn.
 */
async function watchFrames(page) {
  await page.evaluate(() => {
    window.__frames = { longest: 0, count: 0, last: performance.now(), on: true };
    const tick = (now) => {
      const frames = window.__frames;
      frames.longest = Math.max(frames.longest, now - frames.last);
      frames.last = now;
      frames.count++;
      if (frames.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return () =>
    page.evaluate(() => {
      window.__frames.on = false;
      const { longest, count } = window.__frames;
      return { longest, count };
    });
}

/** A crontab of `n` distinct lines, most of them on the hour. */
const crontab = (n) =>
  Array.from({ length: n }, (_, i) => `${i % 7 === 0 ? 30 : 0} ${i % 24} * * * /opt/jobs/report-${String(i).padStart(4, '0')}.sh`).join('\n');

export async function fleetChecks({ check, openApp, BASE, ORIGIN, STAMPEDE }) {
  for (const sample of SAMPLES) {
    await check(`fleet: sample ${sample} loads and shows the numbers stampede fleet gives for its text`, async (t) => {
      const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
      await openApp(page, '?v=1&p=fleet');
      await page.click(`button[data-sample="${sample}"]`);
      await poll(async () => (await page.inputValue('#fleet-text')).trim() !== '', 'the sample text in the box');
      await fleetSettled(page);
      const text = await page.inputValue('#fleet-text');
      expectFigures(await pageFigures(page), coreFleet(STAMPEDE, text), sample);
      assert(/^\d[\d,]* jobs? from /.test(await page.textContent('#fleet-summary')), 'the summary says what was read');
      const blank = await blankCanvases(page);
      assert(blank.length === 0, `blank charts: ${blank.join(', ')}`);
      await t.shot(page, `fleet-${sample}`);
    });
  }

  await check('fleet: a 300-line fleet round-trips through a shared link', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=fleet');
    const text = crontab(300);
    await pasteInto(page, '#fleet-text', text);
    await fleetSettled(page);
    const link = await poll(() => (new URL(page.url()).hash.length > 1 ? page.url() : null), 'the fleet in the URL fragment');
    assert(new URL(link).searchParams.get('smp') === 'own', `the link names no own fleet: ${link}`);
    const before = await keyNumberMap(page);
    const other = await t.newPage();
    await openApp(other, link.slice(BASE.length));
    await fleetSettled(other);
    assert((await other.inputValue('#fleet-text')) === text, 'the text the link carries differs from the pasted one');
    const after = await keyNumberMap(other);
    assert(JSON.stringify(after) === JSON.stringify(before), `key numbers differ: ${JSON.stringify(after)} against ${JSON.stringify(before)}`);
  });

  await check('fleet: a link holding a megabyte of digits is named, not read, until the reader asks', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    // A Temporal schedule every 10^1048477 seconds, the most a link may
    // hold: 1,411 characters.
    const fragment = fragmentOf(`temporal\tt\tevery ${'9'.repeat((1 << 20) - 100)}s\n`);
    await openApp(page, `?v=1&p=fleet&smp=own#${fragment}`);
    await page.waitForSelector('#fleet-status[data-status="over-budget"]', { timeout: 10_000, state: 'attached' });
    const said = await page.textContent('#fleet-status');
    assert(/1,024 KB in 1 line, the longest of 1,048,494 bytes/.test(said), `the status reads ${JSON.stringify(said)}`);
    await t.shot(page, 'fleet-link-over-budget');
    const clicked = Date.now();
    await page.click('#fleet-read-anyway');
    await fleetSettled(page, 5000);
    console.log(`# figure: the megabyte link, read anyway, answers in ${Date.now() - clicked} ms`);
    const summary = await page.textContent('#fleet-summary');
    assert(/1 line skipped/.test(summary), `the summary reads ${JSON.stringify(summary)}`);
  });

  await check('fleet: a sample picked while the worker is busy answers within 1 s, from a fresh worker', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await countTakenRequests(page);
    // `debug=stall` holds the reader's own fleet for a minute in the worker.
    const fragment = fragmentOf('cron\tnightly\t0 2 * * *\n');
    await openApp(page, `?v=1&p=fleet&smp=own&debug=stall#${fragment}`);
    await poll(async () => (await page.evaluate(() => window.__fleetTaken)) > 0, 'the worker to take the request');
    await page.waitForSelector('#fleet-status[data-status="working"]', { state: 'attached' });
    const clicked = Date.now();
    await page.click('button[data-sample="jenkins-h"]');
    await fleetSettled(page, 5000);
    const took = Date.now() - clicked;
    console.log(`# figure: a sample picked while the worker is busy answers in ${took} ms`);
    assert(took <= 1000, `the sample took ${took} ms to answer`);
    assert((await page.inputValue('#fleet-text')).includes('\tH H * * *'), 'the box does not show the sample');
    assert(/^\d[\d,]* jobs? from /.test(await page.textContent('#fleet-summary')), 'the summary does not say what was read');
    const failed = await page.$('#fleet-status.failed');
    assert(!failed, 'the replaced worker is reported as failed');
  });

  await check('fleet: a paste of 100,000 garbage lines keeps the frame rate and lists the skipped lines in pages', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await openApp(page, '?v=1&p=fleet');
    // The service worker downloads the whole build once the first figure is
    // in; the frame budget is the paste's, so that download ends first.
    await page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true), null, { timeout: 30_000 });
    // Short lines, so the paste stays within what the page reads without asking (1 MiB).
    const text = Array.from({ length: 100_000 }, (_, i) => `x ${i}`).join('\n');
    const stop = await watchFrames(page);
    const pasted = Date.now();
    await pasteInto(page, '#fleet-text', text);
    await fleetSettled(page, 30_000);
    await page.waitForSelector('#skipped-lines li');
    const settled = Date.now() - pasted;
    const answered = Date.now();
    await page.evaluate(() => 1);
    const answer = Date.now() - answered;
    const frames = await stop();
    console.log(
      `# figure: 100,000 garbage lines pasted, read and listed in ${settled} ms; longest frame ${Math.round(frames.longest)} ms of ${frames.count}`,
    );
    assert(frames.longest <= 250, `a frame took ${Math.round(frames.longest)} ms`);
    assert(answer <= 100, `the page took ${answer} ms to answer after the paste`);
    const summary = await page.textContent('#fleet-summary');
    assert(/100,000 lines skipped/.test(summary), `the summary reads ${JSON.stringify(summary)}`);
    assert((await page.$$('#skipped-lines li')).length === 20, 'not 20 skipped lines at first');
    // The next page of skipped lines, never all of them at once.
    const stopPaging = await watchFrames(page);
    await page.click('#show-skipped');
    await poll(async () => (await page.$$('#skipped-lines li')).length > 20, 'more skipped lines');
    const shown = await page.$$eval('#skipped-lines li', (lis) => lis.length);
    const paging = await stopPaging();
    assert(shown <= 500, `${shown} skipped lines rendered at once`);
    assert(paging.longest <= 250, `a frame took ${Math.round(paging.longest)} ms showing more skipped lines`);
    await t.shot(page, 'fleet-100k-garbage');
  });

  await check("fleet: a sample's text pasted back as the reader's own gets a link", async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=fleet&smp=cron-minute-0');
    await fleetSettled(page);
    await pasteInto(page, '#fleet-text', await page.inputValue('#fleet-text'));
    await poll(() => new URL(page.url()).searchParams.get('smp') === 'own', 'smp=own after the paste', 3000);
    await fleetSettled(page);
    await poll(() => new URL(page.url()).hash.length > 1, `the fleet in the URL fragment (URL is ${page.url()})`);
  });

  await check('fleet: a fleet too long for a link stays on the page with a notice and a download', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=fleet');
    // Names that do not compress: a seeded jumble of letters per line.
    let state = 7;
    const letter = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return String.fromCharCode(97 + (state >> 16) % 26);
    };
    const lines = Array.from({ length: 4000 }, (_, i) => `${i % 60} * * * * /opt/${Array.from({ length: 24 }, letter).join('')}`);
    await pasteInto(page, '#fleet-text', lines.join('\n'));
    await fleetSettled(page);
    await page.waitForSelector('#download-fleet', { timeout: 10_000 });
    assert(/4,000 jobs/.test(await page.textContent('#fleet-summary')), 'the summary does not count 4,000 jobs');
    assert(new URL(page.url()).hash === '', `the URL carries a fragment: ${page.url().slice(0, 120)}…`);
    const download = page.waitForEvent('download');
    await page.click('#download-fleet');
    const saved = await (await download).path();
    assert(saved, 'no file was downloaded');
    assert((await page.inputValue('#fleet-text')).split('\n').length === 4000, 'the text left the page');
  });

  await check('fleet: a pasted file with bad lines names each line and why', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await openApp(page, '?v=1&p=fleet');
    const text = ['0 3 * * * /opt/backup.sh', '61 * * * * /opt/bad-minute.sh', '*/15 * * * * /opt/poll.sh', 'every day at noon', '0 0 * * 9 /opt/ninth-day.sh'].join('\n');
    await pasteInto(page, '#fleet-text', text);
    await fleetSettled(page);
    const items = await page.$$eval('.skipped li', (lis) => lis.map((li) => li.textContent.trim()));
    const why = { 2: 'minute: "61" has 61, outside 0-59', 4: 'has 4 of the 5 time fields', 5: 'day of week: "9" has 9, outside 0-7' };
    for (const [line, reason] of Object.entries(why)) {
      assert(items.some((item) => item.startsWith(`line ${line} `) && item.includes(reason)), `line ${line} is not named with its reason: ${JSON.stringify(items)}`);
    }
    const summary = await page.textContent('#fleet-summary');
    assert(summary.startsWith('2 jobs from a crontab; 3 lines skipped'), `the summary reads ${JSON.stringify(summary)}`);
    await t.shot(page, 'fleet-bad-lines');
  });

  await check('fleet: a paste mixing a crontab, Jenkinsfiles, timers and a CronJob reads every job and names the stray line', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await openApp(page, '?v=1&p=fleet');
    const text = [
      crontab(20),
      ...[1, 2, 3].map((i) => `// job: shop/build-${i}\npipeline {\n  agent any\n  triggers { cron('H H * * *') }\n}`),
      ...[1, 2].map((i) => `# file: sync-${i}.timer\n[Unit]\nDescription=sync ${i}\n\n[Timer]\nOnCalendar=hourly\nRandomizedDelaySec=10m`),
      '---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: report\nspec:\n  schedule: "15 4 * * *"',
      'this line is no schedule',
    ].join('\n');
    await pasteInto(page, '#fleet-text', text);
    await fleetSettled(page);
    const summary = await page.textContent('#fleet-summary');
    const want = '26 jobs from a crontab, Jenkinsfiles, systemd timers and Kubernetes CronJobs; 1 line skipped';
    assert(summary.trim() === want, `the summary reads ${JSON.stringify(summary)}`);
    const lines = text.split('\n').length;
    const account = (await page.textContent('#fleet-account')).replace(/^\(|\)$/g, '');
    assert(account.startsWith(`${lines} lines in: 26 read into 26 jobs, `) && account.endsWith(', 1 skipped'), `the account reads ${JSON.stringify(account)}`);
    const parts = await page.$$eval('.fleet-sources li', (lis) => lis.map((li) => li.textContent.trim()));
    assert(parts.length === 5, `parts listed: ${JSON.stringify(parts)}`);
    const items = await page.$$eval('.skipped li', (lis) => lis.map((li) => li.textContent.trim()));
    assert(items.length === 1 && items[0].startsWith(`line ${lines} `), `skipped: ${JSON.stringify(items)}`);
    expectFigures(await pageFigures(page), coreFleet(STAMPEDE, text), 'the mixed paste');
    await t.shot(page, 'fleet-mixed');
  });

  await check('fleet: three files uploaded together are each read and listed with their counts', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await openApp(page, '?v=1&p=fleet');
    const files = [
      { name: 'crontab', mimeType: 'text/plain', buffer: Buffer.from(`${crontab(12)}\n`) },
      { name: 'backup.timer', mimeType: 'text/plain', buffer: Buffer.from('[Timer]\nOnCalendar=*-*-* 02:00:00\nRandomizedDelaySec=30m\n') },
      { name: 'config.xml', mimeType: 'text/xml', buffer: Buffer.from("<?xml version='1.1'?>\n<project>\n  <triggers>\n    <hudson.triggers.TimerTrigger>\n      <spec>H 3 * * *</spec>\n    </hudson.triggers.TimerTrigger>\n  </triggers>\n</project>\n") },
    ];
    await page.setInputFiles('#fleet-file', files);
    await fleetSettled(page);
    await poll(async () => (await page.$$('.fleet-sources li')).length === 3, 'three files listed');
    const listed = await page.$$eval('.fleet-sources li', (lis) => lis.map((li) => li.textContent.trim()));
    const want = [/^crontab: 12 jobs from a crontab/, /^backup\.timer: 1 job from systemd timers/, /^config\.xml: 1 job from Jenkins job configs/];
    want.forEach((pattern, i) => assert(pattern.test(listed[i] ?? ''), `file ${i + 1} reads ${JSON.stringify(listed[i])}`));
    const summary = await page.textContent('#fleet-summary');
    assert(summary.startsWith('14 jobs from '), `the summary reads ${JSON.stringify(summary)}`);
    const text = await page.inputValue('#fleet-text');
    assert(text.startsWith('# file: crontab\n') && text.includes('# file: backup.timer\n'), 'the files are not named in the box');
    await t.shot(page, 'fleet-three-files');
  });

  await check('fleet: a crontab with CR-only line ends and a file starting with a BOM are read whole', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await openApp(page, '?v=1&p=fleet');
    const files = [
      { name: 'crontab-cr', mimeType: 'text/plain', buffer: Buffer.from('0 1 * * * /opt/a.sh\r15 2 * * * /opt/b.sh\r30 3 * * * /opt/c.sh\r') },
      { name: 'crontab-bom', mimeType: 'text/plain', buffer: Buffer.from('\ufeff0 4 * * * /opt/d.sh\n45 5 * * * /opt/e.sh\n') },
    ];
    await page.setInputFiles('#fleet-file', files);
    await fleetSettled(page);
    await poll(async () => (await page.$$('.fleet-sources li')).length === 2, 'two files listed');
    const listed = await page.$$eval('.fleet-sources li', (lis) => lis.map((li) => li.textContent.trim()));
    assert(/^crontab-cr: 3 jobs from a crontab/.test(listed[0]), `the CR-only file reads ${JSON.stringify(listed[0])}`);
    assert(/^crontab-bom: 2 jobs from a crontab/.test(listed[1]), `the BOM'd file reads ${JSON.stringify(listed[1])}`);
    const summary = await page.textContent('#fleet-summary');
    assert(summary.startsWith('5 jobs from a crontab') && !/skipped/.test(summary), `the summary reads ${JSON.stringify(summary)}`);
  });

  await check('fleet: every skipped line is listed, the first 20 at once, all on request and as a download', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1000 } });
    await openApp(page, '?v=1&p=fleet');
    const text = ['0 2 * * * /opt/ok', ...Array.from({ length: 45 }, (_, i) => `garbage line ${i}`)].join('\n');
    await pasteInto(page, '#fleet-text', text);
    await fleetSettled(page);
    const count = () => page.$$eval('.skipped li', (lis) => lis.length);
    assert((await count()) === 20, `${await count()} skipped lines shown at first`);
    await page.click('#show-skipped');
    await poll(async () => (await count()) === 45, 'all 45 skipped lines shown');
    const download = page.waitForEvent('download');
    await page.click('#download-skipped');
    const saved = await (await download).path();
    const { readFileSync } = await import('node:fs');
    const rows = readFileSync(saved, 'utf8').trim().split('\n');
    assert(rows.length === 45 && rows[44].startsWith('line 46 '), `the download holds ${rows.length} rows, last ${rows.at(-1)}`);
    await t.shot(page, 'fleet-skipped-all');
  });

  await check("fleet: the fix's copied text, read back in, gives the after peak", async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 1400 } });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
    await openApp(page, '?v=1&p=fleet&smp=cron-minute-0');
    await fleetSettled(page);
    const before = await pageFigures(page);
    assert(before.peakAfter < before.peak, `the fix leaves the peak at ${before.peakAfter} (was ${before.peak})`);
    await page.locator('#copy-fixed').scrollIntoViewIfNeeded();
    await t.shot(page, 'fleet-fix');
    await page.click('#copy-fixed');
    await poll(async () => /copied/i.test((await page.textContent('#copy-fixed')) ?? ''), '"Copied ✓"', 3000);
    const fixed = await page.evaluate(() => navigator.clipboard.readText());
    await pasteInto(page, '#fleet-text', fixed);
    await poll(() => new URL(page.url()).searchParams.get('smp') === 'own', 'smp=own after the paste', 3000);
    await fleetSettled(page);
    const after = await pageFigures(page);
    assert(after.peak === before.peakAfter, `the fixed text read back peaks at ${after.peak}, the fix said ${before.peakAfter}`);
  });

  await check('fleet: capacity, view and day redraw from the page without the worker', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=fleet&smp=jenkins-h');
    await fleetSettled(page);
    await page.evaluate(() => {
      window.__fleetRequests = 0;
      const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function (...args) {
        window.__fleetRequests++;
        return post.apply(this, args);
      };
    });
    const before = await keyNumberMap(page);
    await page.fill('#f-cap', '3');
    await page.dispatchEvent('#f-cap', 'change');
    await poll(async () => (await keyNumberMap(page))['over-capacity'] !== before['over-capacity'], 'minutes over capacity to change');
    await page.selectOption('#f-vw', 'week');
    await page.waitForTimeout(500);
    assert((await page.evaluate(() => window.__fleetRequests)) === 0, 'a view change went to the worker');
    const blank = await blankCanvases(page);
    assert(blank.length === 0, `blank charts: ${blank.join(', ')}`);
    await t.shot(page, 'fleet-week-capacity');
  });
}
