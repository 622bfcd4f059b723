// The Fleet panel: each sample's key numbers against `stampede fleet` on
// the same text, a 300-line fleet through a shared link, a hostile link
// named and a sample answered by a fresh worker while the old one is busy,
// a 100,000-line garbage paste listed in pages, a too-long fleet
// kept on the page, bad lines named, CR-only and BOM'd files, a paste that
// mixes formats and files uploaded together read whole, the fix's copied
// text read back in, Quartz lines, Spring's @Scheduled methods and
// EventBridge schedules placed, refused and fixed in their own syntax (the
// windows EventBridge draws in shown across draws), and what redraws
// without the worker.

import fs from 'node:fs';
import { expect, test, until } from '../fixtures.mjs';
import {
  blankCanvases,
  canvasPixels,
  countFleetMessages,
  fleetSettled,
  fragmentOf,
  keyNumberMap,
  pasteInto,
  stampedeJson,
} from '../helpers.mjs';

// The week the panel shows by default, as `stampede fleet` takes it.
const WEEK = ['--from', '2026-01-05T00:00:00Z', '--hours', '168', '--seed', '1'];
const SAMPLES = ['cron-minute-0', 'jenkins-h', 'systemd-50', 'prometheus-500', 'k8s', 'gha', 'quartz', 'spring', 'apscheduler', 'sidekiq', 'eventbridge', 'anacron-rhel', 'anacron-debian'];
// The samples of systems that draw their starts at run time.
const DRAWN_SAMPLES = ['apscheduler', 'sidekiq', 'eventbridge', 'anacron-rhel', 'anacron-debian'];

/** `stampede fleet` on `text`: its expansion over the panel's default week. */
const coreFleet = (text) => stampedeJson(['fleet', ...WEEK], text);

/** The leading whole number of a key number's text: "1,234 starts at…" → 1234. */
const leading = (text) => Number((text ?? '').replace(/,/g, '').match(/^\d+/)?.[0] ?? NaN);

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
  const { starts, peak, sharedStarts, sharedMinutes } = shown;
  expect({ starts, peak, sharedStarts, sharedMinutes }, `${what}: the page against stampede fleet`).toEqual({
    starts: core.starts.length,
    peak: core.peak?.starts ?? 0,
    sharedStarts: core.shared.starts,
    sharedMinutes: core.shared.minutes,
  });
}

/** A crontab of `n` distinct lines, most of them on the hour. */
const crontab = (n) =>
  Array.from({ length: n }, (_, i) => `${i % 7 === 0 ? 30 : 0} ${i % 24} * * * /opt/jobs/report-${String(i).padStart(4, '0')}.sh`).join('\n');

const skippedItems = (page) => page.$$eval('.skipped li', (lis) => lis.map((li) => li.textContent.trim()));

for (const sample of SAMPLES) {
  test(`fleet: sample ${sample} loads and shows the numbers stampede fleet gives for its text`, async ({ app }) => {
    const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
    await app.open(page, '?v=1&p=fleet');
    await page.click(`button[data-sample="${sample}"]`);
    await expect(page.locator('#fleet-text'), 'the sample text in the box').not.toHaveValue(/^\s*$/);
    await fleetSettled(page);
    const text = await page.inputValue('#fleet-text');
    expectFigures(await pageFigures(page), coreFleet(text), sample);
    await expect(page.locator('#fleet-summary'), 'the summary says what was read').toHaveText(/^\d[\d,]* jobs? from /);
    await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
    await app.shot(page, `fleet-${sample}`);
  });
}

test('fleet: a 300-line fleet round-trips through a shared link', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=fleet');
  const text = crontab(300);
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  const link = await until(() => (new URL(page.url()).hash.length > 1 ? page.url() : null), 'the fleet in the URL fragment');
  expect(new URL(link).searchParams.get('smp'), `the sample the link ${link} names`).toBe('own');
  const before = await keyNumberMap(page);
  const other = await app.newPage();
  await app.open(other, link.slice(app.base.length));
  await fleetSettled(other);
  expect(await other.inputValue('#fleet-text'), 'the text the link carries').toBe(text);
  expect(await keyNumberMap(other), 'the key numbers through the link').toEqual(before);
});

test('fleet: a link holding a megabyte of digits is named, not read, until the reader asks', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  // A Temporal schedule every 10^1048477 seconds, the most a link may
  // hold: 1,411 characters.
  const fragment = fragmentOf(`temporal\tt\tevery ${'9'.repeat((1 << 20) - 100)}s\n`);
  await app.open(page, `?v=1&p=fleet&smp=own#${fragment}`);
  await page.waitForSelector('#fleet-status[data-status="over-budget"]', { timeout: 10_000, state: 'attached' });
  await expect(page.locator('#fleet-status')).toContainText(/1,024 KB in 1 line, the longest of 1,048,494 bytes/);
  await app.shot(page, 'fleet-link-over-budget');
  const clicked = Date.now();
  await page.click('#fleet-read-anyway');
  await fleetSettled(page, 5000);
  console.log(`# figure: the megabyte link, read anyway, answers in ${Date.now() - clicked} ms`);
  await expect(page.locator('#fleet-summary')).toContainText('1 line skipped');
});

test('fleet: a sample picked while the worker is busy is answered by a fresh worker', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await countFleetMessages(page);
  // `debug=stall` holds the reader's own fleet for a minute in the worker,
  // three times as long as fleetSettled waits: only a fresh worker answers
  // in time. (How soon it answers is a figure of scripts/bench-report.)
  const fragment = fragmentOf('cron\tnightly\t0 2 * * *\n');
  await app.open(page, `?v=1&p=fleet&smp=own&debug=stall#${fragment}`);
  await expect.poll(() => page.evaluate(() => window.__fleet.taken), { message: 'the worker to take the request' }).toBeGreaterThan(0);
  await page.waitForSelector('#fleet-status[data-status="working"]', { state: 'attached' });
  await page.click('button[data-sample="jenkins-h"]');
  await fleetSettled(page);
  await expect(page.locator('#fleet-text'), 'the box shows the sample').toHaveValue(/\tH H \* \* \*/);
  await expect(page.locator('#fleet-summary'), 'the summary says what was read').toHaveText(/^\d[\d,]* jobs? from /);
  await expect(page.locator('#fleet-status.failed'), 'the replaced worker reported as failed').toHaveCount(0);
});

test('fleet: a paste of 100,000 garbage lines is named, and its skipped lines listed in pages', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet');
  // Short lines, so the paste stays within what the page reads without asking (1 MiB).
  const text = Array.from({ length: 100_000 }, (_, i) => `x ${i}`).join('\n');
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page, 30_000);
  await expect(page.locator('#fleet-summary')).toContainText('100,000 lines skipped');
  await expect(page.locator('#skipped-lines li'), 'skipped lines at first').toHaveCount(20);
  // The next page of skipped lines, never all of them at once.
  await page.click('#show-skipped');
  await expect.poll(() => page.locator('#skipped-lines li').count(), { message: 'more skipped lines' }).toBeGreaterThan(20);
  expect(await page.locator('#skipped-lines li').count(), 'skipped lines rendered at once').toBeLessThanOrEqual(500);
  await app.shot(page, 'fleet-100k-garbage');
});

test("fleet: a notice about the sample or the change links to the panel's own buttons for them", async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet&smp=nope&chg=nope');
  await fleetSettled(page);
  for (const [key, group] of [
    ['smp', 'Sample fleets'],
    ['chg', 'Change the fleet a little'],
  ]) {
    const link = page.locator(`#notices li.notice a[href="#f-${key}"]`);
    await expect(link, `the summary's link for ${key}`).toHaveCount(1);
    await link.click();
    await expect(page.locator(`#f-${key}`), `what the ${key} link focuses`).toBeFocused();
    await expect(page.locator(`#f-${key}`)).toHaveAttribute('aria-label', group);
  }
});

test("fleet: a sample's text pasted back as the reader's own gets a link", async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=fleet&smp=cron-minute-0');
  await fleetSettled(page);
  await pasteInto(page, '#fleet-text', await page.inputValue('#fleet-text'));
  await expect.poll(() => new URL(page.url()).searchParams.get('smp'), { message: 'smp after the paste' }).toBe('own');
  await fleetSettled(page);
  await expect.poll(() => new URL(page.url()).hash.length, { message: 'the fleet in the URL fragment' }).toBeGreaterThan(1);
});

test('fleet: a fleet too long for a link stays on the page with a notice and a download', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=fleet');
  // Names that do not compress: a seeded jumble of letters per line.
  let state = 7;
  const letter = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return String.fromCharCode(97 + ((state >> 16) % 26));
  };
  const lines = Array.from({ length: 4000 }, (_, i) => `${i % 60} * * * * /opt/${Array.from({ length: 24 }, letter).join('')}`);
  await pasteInto(page, '#fleet-text', lines.join('\n'));
  await fleetSettled(page);
  await page.waitForSelector('#download-fleet', { timeout: 10_000 });
  await expect(page.locator('#fleet-summary')).toContainText('4,000 jobs');
  expect(new URL(page.url()).hash, 'the fragment of the URL').toBe('');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-fleet')]);
  expect(await download.path(), 'the downloaded file').toBeTruthy();
  expect((await page.inputValue('#fleet-text')).split('\n').length, 'lines in the box').toBe(4000);
});

test('fleet: a pasted file with bad lines names each line and why', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet');
  const text = ['0 3 * * * /opt/backup.sh', '61 * * * * /opt/bad-minute.sh', '*/15 * * * * /opt/poll.sh', 'every day at noon', '0 0 * * 9 /opt/ninth-day.sh'].join('\n');
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  const items = await skippedItems(page);
  const why = { 2: 'minute: "61" has 61, outside 0-59', 4: 'has 4 of the 5 time fields', 5: 'day of week: "9" has 9, outside 0-7' };
  for (const [line, reason] of Object.entries(why)) {
    expect(items.some((item) => item.startsWith(`line ${line} `) && item.includes(reason)), `line ${line} named with its reason in ${JSON.stringify(items)}`).toBe(true);
  }
  await expect(page.locator('#fleet-summary')).toHaveText(/^2 jobs from a crontab; 3 lines skipped/);
  await app.shot(page, 'fleet-bad-lines');
});

test('fleet: a paste mixing a crontab, Jenkinsfiles, timers and a CronJob reads every job and names the stray line', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet');
  const text = [
    crontab(20),
    ...[1, 2, 3].map((i) => `// job: shop/build-${i}\npipeline {\n  agent any\n  triggers { cron('H H * * *') }\n}`),
    ...[1, 2].map((i) => `# file: sync-${i}.timer\n[Unit]\nDescription=sync ${i}\n\n[Timer]\nOnCalendar=hourly\nRandomizedDelaySec=10m`),
    '---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: report\nspec:\n  schedule: "15 4 * * *"',
    'this line is no schedule',
  ].join('\n');
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  expect((await page.textContent('#fleet-summary')).trim(), 'the summary').toBe(
    '26 jobs from a crontab, Jenkinsfiles, systemd timers and Kubernetes CronJobs; 1 line skipped',
  );
  const lines = text.split('\n').length;
  const account = (await page.textContent('#fleet-account')).replace(/^\(|\)$/g, '');
  expect(account.startsWith(`${lines} lines in: 26 read into 26 jobs, `) && account.endsWith(', 1 skipped'), `the account reads ${JSON.stringify(account)}`).toBe(true);
  const parts = await page.$$eval('.fleet-sources li', (lis) => lis.map((li) => li.textContent.trim()));
  expect(parts.length, `parts listed: ${JSON.stringify(parts)}`).toBe(5);
  const items = await skippedItems(page);
  expect(items.length === 1 && items[0].startsWith(`line ${lines} `), `skipped: ${JSON.stringify(items)}`).toBe(true);
  expectFigures(await pageFigures(page), coreFleet(text), 'the mixed paste');
  await app.shot(page, 'fleet-mixed');
});

test('fleet: three files uploaded together are each read and listed with their counts', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet');
  const files = [
    { name: 'crontab', mimeType: 'text/plain', buffer: Buffer.from(`${crontab(12)}\n`) },
    { name: 'backup.timer', mimeType: 'text/plain', buffer: Buffer.from('[Timer]\nOnCalendar=*-*-* 02:00:00\nRandomizedDelaySec=30m\n') },
    {
      name: 'config.xml',
      mimeType: 'text/xml',
      buffer: Buffer.from(
        "<?xml version='1.1'?>\n<project>\n  <triggers>\n    <hudson.triggers.TimerTrigger>\n      <spec>H 3 * * *</spec>\n    </hudson.triggers.TimerTrigger>\n  </triggers>\n</project>\n",
      ),
    },
  ];
  await page.setInputFiles('#fleet-file', files);
  await fleetSettled(page);
  const listed = page.locator('.fleet-sources li');
  await expect(listed, 'files listed').toHaveCount(3);
  await expect(listed.nth(0)).toHaveText(/^\s*crontab: 12 jobs from a crontab/);
  await expect(listed.nth(1)).toHaveText(/^\s*backup\.timer: 1 job from systemd timers/);
  await expect(listed.nth(2)).toHaveText(/^\s*config\.xml: 1 job from Jenkins job configs/);
  await expect(page.locator('#fleet-summary')).toHaveText(/^14 jobs from /);
  const text = await page.inputValue('#fleet-text');
  expect(text.startsWith('# file: crontab\n') && text.includes('# file: backup.timer\n'), 'the files named in the box').toBe(true);
  await app.shot(page, 'fleet-three-files');
});

test('fleet: a crontab with CR-only line ends and a file starting with a BOM are read whole', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet');
  const files = [
    { name: 'crontab-cr', mimeType: 'text/plain', buffer: Buffer.from('0 1 * * * /opt/a.sh\r15 2 * * * /opt/b.sh\r30 3 * * * /opt/c.sh\r') },
    { name: 'crontab-bom', mimeType: 'text/plain', buffer: Buffer.from('\ufeff0 4 * * * /opt/d.sh\n45 5 * * * /opt/e.sh\n') },
  ];
  await page.setInputFiles('#fleet-file', files);
  await fleetSettled(page);
  const listed = page.locator('.fleet-sources li');
  await expect(listed, 'files listed').toHaveCount(2);
  await expect(listed.nth(0), 'the CR-only file').toHaveText(/^\s*crontab-cr: 3 jobs from a crontab/);
  await expect(listed.nth(1), "the BOM'd file").toHaveText(/^\s*crontab-bom: 2 jobs from a crontab/);
  const summary = await page.textContent('#fleet-summary');
  expect(summary.startsWith('5 jobs from a crontab') && !/skipped/.test(summary), `the summary reads ${JSON.stringify(summary)}`).toBe(true);
});

test('fleet: every skipped line is listed, the first 20 at once, all on request and as a download', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1000 } });
  await app.open(page, '?v=1&p=fleet');
  const text = ['0 2 * * * /opt/ok', ...Array.from({ length: 45 }, (_, i) => `garbage line ${i}`)].join('\n');
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  const skipped = page.locator('.skipped li');
  await expect(skipped, 'skipped lines shown at first').toHaveCount(20);
  await page.click('#show-skipped');
  await expect(skipped, 'all 45 skipped lines shown').toHaveCount(45);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-skipped')]);
  const rows = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  expect(rows.length, 'rows in the download').toBe(45);
  expect(rows[44], 'the last row of the download').toMatch(/^line 46 /);
  await app.shot(page, 'fleet-skipped-all');
});

test("fleet: the fix's copied text, read back in, gives the after peak", async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1400 } });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await app.open(page, '?v=1&p=fleet&smp=cron-minute-0');
  await fleetSettled(page);
  const before = await pageFigures(page);
  expect(before.peakAfter, `the peak after the fix (before it: ${before.peak})`).toBeLessThan(before.peak);
  await page.locator('#copy-fixed').scrollIntoViewIfNeeded();
  await app.shot(page, 'fleet-fix');
  await page.click('#copy-fixed');
  await expect(page.locator('#copy-fixed')).toContainText(/copied/i);
  const fixed = await page.evaluate(() => navigator.clipboard.readText());
  await pasteInto(page, '#fleet-text', fixed);
  await expect.poll(() => new URL(page.url()).searchParams.get('smp'), { message: 'smp after the paste' }).toBe('own');
  await fleetSettled(page);
  expect((await pageFigures(page)).peak, 'the peak of the fixed text read back').toBe(before.peakAfter);
});

test('fleet: Quartz lines are placed as Quartz places them, a refused one named in its words, and fixed in its syntax', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1400 } });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await app.open(page, '?v=1&p=fleet');
  const jobs = Array.from({ length: 30 }, (_, i) => `quartz\tcom.example.jobs.Report${i}\t0 0 ${i % 3 ? 2 : '*'} ? * ${i % 2 ? 'MON-FRI' : '*'}`);
  const text = [...jobs, 'quartz\tcom.example.jobs.Broken\t0 0 0 1 * MON', 'quartz\tcom.example.jobs.MonthEnd\t0 30 23 LW * ?'].join('\n');
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  const shown = await pageFigures(page);
  expectFigures(shown, coreFleet(text), 'quartz lines');
  const items = await skippedItems(page);
  expect(
    items.some((item) => item.startsWith('line 31 ') && item.includes('Quartz: Support for specifying both a day-of-week AND a day-of-month')),
    `line 31 named with Quartz's message in ${JSON.stringify(items)}`,
  ).toBe(true);
  await page.locator('#copy-fixed').scrollIntoViewIfNeeded();
  await app.shot(page, 'fleet-quartz-paste');
  await page.click('#copy-fixed');
  await expect(page.locator('#copy-fixed')).toContainText(/copied/i);
  const fixed = await page.evaluate(() => navigator.clipboard.readText());
  const moved = fixed.split('\n').filter((line) => line.startsWith('quartz') && !/\t0 0 /.test(line));
  expect(moved.length, `Quartz lines the fix moved, in ${JSON.stringify(fixed)}`).toBeGreaterThan(10);
  for (const line of moved.filter((line) => line.includes('Report'))) {
    expect(line, 'a moved line keeps its second, hour and days').toMatch(/\t0 \d{1,2} (\*|2) \? \* (MON-FRI|\*)$/);
  }
  await pasteInto(page, '#fleet-text', fixed);
  await fleetSettled(page);
  expect((await pageFigures(page)).peak, 'the peak of the fixed text read back').toBe(shown.peakAfter);
});

test('fleet: Spring @Scheduled methods are placed as Spring places them, the rest named, and fixed in their source', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1400 } });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await app.open(page, '?v=1&p=fleet');
  const methods = Array.from(
    { length: 30 },
    (_, i) => `    @Scheduled(cron = "0 0 ${i % 3 ? 1 : '*'} * * ${i % 2 ? 'MON-FRI' : '*'}", zone = "UTC")\n    public void report${i}() {}\n`,
  );
  const text = [
    'package com.example.jobs;',
    '',
    '@Component',
    'public class Reports {',
    ...methods,
    '    @Scheduled(cron = "0 0 * * *", zone = "UTC")',
    '    public void broken() {}',
    '',
    '    @Scheduled(fixedRate = 60000)',
    '    public void poll() {}',
    '}',
  ].join('\n');
  const lineOf = (needle) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  const shown = await pageFigures(page);
  expectFigures(shown, coreFleet(text), 'spring methods');
  const items = await skippedItems(page);
  for (const [needle, words] of [
    ['"0 0 * * *"', 'Spring: Cron expression must consist of 6 fields'],
    ['fixedRate', 'fixedRate counts from when the application started'],
  ]) {
    expect(
      items.some((item) => item.startsWith(`line ${lineOf(needle)} `) && item.includes(words)),
      `line ${lineOf(needle)} named with "${words}" in ${JSON.stringify(items)}`,
    ).toBe(true);
  }
  await page.locator('#copy-fixed').scrollIntoViewIfNeeded();
  await app.shot(page, 'fleet-spring-paste');
  await page.click('#copy-fixed');
  await expect(page.locator('#copy-fixed')).toContainText(/copied/i);
  const fixed = await page.evaluate(() => navigator.clipboard.readText());
  const moved = fixed.split('\n').filter((line) => line.includes('@Scheduled(cron = "0 ') && !line.includes('cron = "0 0 '));
  expect(moved.length, `expressions the fix moved, in ${JSON.stringify(fixed)}`).toBeGreaterThan(10);
  for (const line of moved) {
    expect(line, 'a moved expression keeps its second, hour and days').toMatch(/cron = "0 \d{1,2} (\*|1) \* \* (MON-FRI|\*)", zone = "UTC"\)$/);
  }
  await pasteInto(page, '#fleet-text', fixed);
  await fleetSettled(page);
  expect((await pageFigures(page)).peak, 'the peak of the fixed source read back').toBe(shown.peakAfter);
});

for (const sample of DRAWN_SAMPLES) {
  test(`fleet: sample ${sample} pasted is shown across draws, and its fix copied back reads as the fix said`, async ({ app }) => {
    const page = await app.newPage({ viewport: { width: 1280, height: 1400 } });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
    await app.open(page, '?v=1&p=fleet');
    await page.click(`button[data-sample="${sample}"]`);
    await fleetSettled(page);
    const text = await page.inputValue('#fleet-text');
    await pasteInto(page, '#fleet-text', `${text}\n`);
    await fleetSettled(page);
    const shown = await pageFigures(page);
    expectFigures(shown, coreFleet(`${text}\n`), `${sample} pasted`);
    await expect(page.locator('#fleet-drawn'), 'the note on the draws').toContainText('any of 20 more draws');
    const keys = await keyNumberMap(page);
    expect(keys['peak-drawn'], 'the busiest minute across draws').toMatch(/starts; .* or fewer on 9 nights in 10$/);
    await page.locator('#copy-fixed').scrollIntoViewIfNeeded();
    await page.click('#copy-fixed');
    await expect(page.locator('#copy-fixed')).toContainText(/copied/i);
    const fixed = await page.evaluate(() => navigator.clipboard.readText());
    expect(fixed, 'the fix changed the text').not.toBe(`${text}\n`);
    await pasteInto(page, '#fleet-text', fixed);
    await fleetSettled(page);
    expect((await pageFigures(page)).peak, 'the peak of the fixed text read back').toBe(shown.peakAfter);
  });
}

/** The type-7 quantile `p` of `sorted` numbers. */
function quantile(sorted, p) {
  const at = p * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (at - low) * (sorted[high] - sorted[low]);
}

test('fleet: EventBridge schedules are invoked within their windows, shown across draws, and fixed with a flexible window', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1400 } });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await app.open(page, '?v=1&p=fleet');
  const schedule = (i) => {
    const window = i < 10 ? '        Mode: FLEXIBLE\n        MaximumWindowInMinutes: 30' : '        Mode: "OFF"';
    return `  Report${i}:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      Name: report-${i}\n      ScheduleExpression: "cron(0 2 * * ? *)"\n      FlexibleTimeWindow:\n${window}\n`;
  };
  const text = [
    'Resources:',
    ...Array.from({ length: 40 }, (_, i) => schedule(i).trimEnd()),
    '  Computed:',
    '    Type: AWS::Scheduler::Schedule',
    '    Properties:',
    '      ScheduleExpression: !Ref NightlyExpression',
    '      FlexibleTimeWindow:',
    '        Mode: "OFF"',
  ].join('\n');
  await pasteInto(page, '#fleet-text', text);
  await fleetSettled(page);
  const core = coreFleet(text);
  const shown = await pageFigures(page);
  expectFigures(shown, core, 'eventbridge schedules');
  // The spread across draws, as `stampede fleet` gives it.
  const keys = await keyNumberMap(page);
  const busiest = core.drawn.busiest;
  expect(keys['peak-drawn'], 'the busiest minute across draws').toBe(
    `${quantile(busiest, 0.5)} starts; ${quantile(busiest, 0.9)} or fewer on 9 nights in 10`,
  );
  expect(keys['over-capacity-drawn'], 'minutes over capacity on 1 night in 10').toMatch(/^\d[\d,]* of 10,080$/);
  await expect(page.locator('#over-capacity')).toContainText('on at least 1 night in 10');
  await expect(page.locator('#fleet-drawn')).toContainText('any of 20 more draws');
  const items = await skippedItems(page);
  const refLine = text.split('\n').findIndex((line) => line.includes('!Ref')) + 1;
  expect(
    items.some((item) => item.startsWith(`line ${refLine} `) && item.includes('known only at deploy time')),
    `line ${refLine} named in ${JSON.stringify(items)}`,
  ).toBe(true);
  await page.locator('#fleet-concurrency').scrollIntoViewIfNeeded();
  await app.shot(page, 'fleet-eventbridge-paste');
  await page.locator('#copy-fixed').scrollIntoViewIfNeeded();
  await page.click('#copy-fixed');
  await expect(page.locator('#copy-fixed')).toContainText(/copied/i);
  const fixed = await page.evaluate(() => navigator.clipboard.readText());
  expect(fixed.match(/Mode: "?FLEXIBLE"?\n/g)?.length, 'flexible windows in the fixed template').toBe(40);
  expect(fixed.match(/MaximumWindowInMinutes: 60/g)?.length, 'the windows the fix set').toBe(30);
  await pasteInto(page, '#fleet-text', fixed);
  await fleetSettled(page);
  expect((await pageFigures(page)).peak, 'the peak of the fixed template read back').toBe(shown.peakAfter);
});

test('fleet: a page that opens on the panel starts its worker with the page, and the app takes that one over', async ({ app }) => {
  const page = await app.newPage();
  await countFleetMessages(page);
  await app.open(page, '?v=1&p=fleet&s=1');
  await fleetSettled(page);
  await expect(page.locator('#fleet-summary')).toHaveText(/^\d[\d,]* jobs? from /);
  expect(await page.evaluate(() => window.__fleet.started), 'fleet workers started').toBe(1);
  // The worker took up the app's first request before it was made, and
  // carried on with it when it came rather than start it again.
  expect(await page.evaluate(() => window.__fleet.texts), "the sample's text sent to the page").toBe(1);
  expect(await page.evaluate(() => 'stampedeEarlyFleetWorker' in window), 'the early worker left for the taking').toBe(false);
});

test("fleet: when the worker's code cannot load, the panel says so", async ({ app }) => {
  const page = await app.newPage({ serviceWorkers: 'block' });
  await page.route('**/stampede-fleet-worker-*', (route) => route.abort());
  app.allowErrors(/Failed to fetch|ERR_FAILED|fleet-worker/);
  await app.open(page, '?v=1&p=fleet&s=1');
  const status = page.locator('#fleet-status[data-status="failed"]');
  // Whether the app took over the failed worker index.html started or
  // started its own, the reader hears the same.
  await expect(status, "the fleet's worker failing, reported").toContainText("the fleet's worker could not be loaded");
});

test('fleet: capacity, view and day redraw from the page without the worker', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=fleet&smp=jenkins-h');
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
  await expect.poll(async () => (await keyNumberMap(page))['over-capacity'], { message: 'minutes over capacity' }).not.toBe(before['over-capacity']);
  const dayView = await canvasPixels(page);
  await page.selectOption('#f-vw', 'week');
  await expect.poll(() => canvasPixels(page), { message: 'the charts to show the week' }).not.toBe(dayView);
  await fleetSettled(page);
  expect(await page.evaluate(() => window.__fleetRequests), 'requests to the worker for a capacity and a view change').toBe(0);
  await expect.poll(() => blankCanvases(page), { message: 'blank charts' }).toEqual([]);
  await app.shot(page, 'fleet-week-capacity');
});
