// End-to-end test of the release build (dist/) in headless Chromium.
//
// dist/ is served under /docs/stampede/, as on the docs site, so a build that
// refers to its assets by absolute path fails here. Every check runs even when
// an earlier one fails; each prints `ok - name` or `not ok - name: reason`, and
// the exit code is 1 if any failed. Screenshots go to target/screenshots/.
//
// The docs module's test page (js-module.html) is served next to the module,
// at js/js-module.html of the build, as a docs author would place it.
//
// Usage: node tests/e2e/e2e.mjs   (after `trunk build --release`);
// E2E_ONLY=REGEX runs only the checks whose names match, while working on them.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { fleetChecks, fleetSettled } from './fleet.mjs';
import { keyboardChecks } from './keyboard.mjs';
import { learnChecks } from './learn.mjs';
import { startStaticServer } from '../../scripts/static-server.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// E2E_DIST lets the test run against another build, e.g. a copy kept aside.
const DIST = path.resolve(process.env.E2E_DIST ?? path.join(REPO, 'dist'));
const SHOTS = path.join(REPO, 'target', 'screenshots');
export const PREFIX = '/docs/stampede/';

const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
const SLUGS = ['poisson', 'jitter', 'backoff', 'hash', 'slots', 'queue', 'fleet'];
// Every preset with the key numbers core computes for it, written by
// `stampede presets` (scripts/test does this before running the e2e).
const PRESETS = path.resolve(process.env.E2E_PRESETS ?? path.join(REPO, 'target', 'presets.json'));
// The command line, to compare the Queue panel's summaries with `stampede run`
// (scripts/test builds it before the e2e).
const STAMPEDE = path.resolve(process.env.E2E_STAMPEDE ?? path.join(REPO, 'target', 'debug', 'stampede'));
// The panels whose charts follow a dragged slider, and the slider to drag.
export const DRAGGED = [
  ['poisson', 'n'],
  ['jitter', 'hi'],
  ['backoff', 'm'],
  ['hash', 'n'],
  ['slots', 'cyc'],
  ['queue', 'w'],
  ['fleet', 'cap'],
];
// The benchmark's run: a week of 100,000 accounts synced every 13 h on 15
// workers, about 1.3M jobs at ρ ≈ 0.8, run in the worker.
const WEEK_RUN = '?v=1&p=queue&s=1&n=100000&w=15&cyc=780&hz=168&dm=5.6&d90=11&vs=';

/** How the tests launch Chromium. */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  // Without the networking flags Chromium keeps dialing Google on a closed network.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

// --- Static file server -------------------------------------------------------

/**
 * Serves `root` under `prefix` on 127.0.0.1 at an ephemeral port, as a plain
 * static host would (scripts/static-server.mjs), but never cached.
 * `extras` maps paths under `prefix` to files outside `root` that are served there too.
 */
export const startServer = (root, prefix = PREFIX, extras = {}) =>
  startStaticServer({ root, prefix, extras, caching: 'none' });

// --- Small assertion helpers --------------------------------------------------

/** Each lane's summary as `stampede run` prints it for `query`. */
function coreSummaries(query) {
  const out = execFileSync(STAMPEDE, ['run', query], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return Object.fromEntries(JSON.parse(out).lanes.map((lane) => [lane.slug, lane.run.summary]));
}

/** The summary table's cells: lane slug → key → the number the cell holds. */
const pageSummaries = (page) =>
  page.$$eval('td[data-summary]', (cells) => {
    const lanes = {};
    for (const cell of cells) {
      (lanes[cell.dataset.lane] ??= {})[cell.dataset.summary] = Number(cell.dataset.value);
    }
    return lanes;
  });

/** Compares every summary cell on the page with `stampede run` on the same query. */
async function expectCoreSummaries(page, query, what) {
  const expected = coreSummaries(query);
  const shown = await pageSummaries(page);
  equal(Object.keys(shown).join(','), Object.keys(expected).join(','), `${what}: lanes`);
  for (const [lane, cells] of Object.entries(shown)) {
    for (const [key, value] of Object.entries(cells)) {
      if (!(key in expected[lane])) continue; // figures of the table only, such as peak workers
      const want = expected[lane][key];
      if (Math.abs(value - want) > 1e-9 * Math.max(1, Math.abs(want))) {
        throw new Error(`${what}: ${lane} ${key} shows ${value}, stampede run gives ${want}`);
      }
    }
  }
  return Object.keys(shown).length;
}

/** Waits for the Queue panel's run to finish. */
const queueDone = (page, timeout = 30_000) =>
  page.waitForSelector('[data-run-status="done"]', { timeout, state: 'attached' });

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function equal(actual, expected, what) {
  if (actual !== expected) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** Calls `fn` until it returns something truthy; throws `what` after `timeout` ms. */
export async function poll(fn, what, timeout = 5000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function expectNumber(page, selector, expected, when = '') {
  const raw = await page.inputValue(selector);
  if (Number(raw) !== expected) {
    throw new Error(`${selector}${when ? ` ${when}` : ''} is ${JSON.stringify(raw)}, expected ${expected}`);
  }
}

const queryParam = (page, key) => new URL(page.url()).searchParams.get(key);

/**
 * Pastes `text` over all the text area `selector` holds: the paste event
 * Ctrl+V sends, carrying the text, without going through the clipboard.
 */
export const pasteInto = (page, selector, text) =>
  page.$eval(
    selector,
    (area, value) => {
      area.focus();
      area.select();
      const clipboardData = new DataTransfer();
      clipboardData.setData('text/plain', value);
      area.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
    },
    text,
  );

/** Throttling of a slow laptop on a poor link: 4× slower CPU, 1.6 Mbit/s down. */
export const SLOW_DEVICE = { cpuRate: 4, downloadBitsPerSecond: 1.6e6, uploadBitsPerSecond: 750e3, latencyMs: 40 };

/**
 * Loads `url` in a fresh context (throttled as SLOW_DEVICE when `slow`) and
 * returns, in ms from navigation: `firstPaint`, the first contentful paint
 * (the skeleton of index.html), and `firstChart`, the first frame in which a
 * chart of #figure is not blank.
 */
export async function firstPaintTimes(browser, url, { slow = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    if (slow) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: SLOW_DEVICE.latencyMs,
        downloadThroughput: SLOW_DEVICE.downloadBitsPerSecond / 8,
        uploadThroughput: SLOW_DEVICE.uploadBitsPerSecond / 8,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: SLOW_DEVICE.cpuRate });
    }
    await page.addInitScript(() => {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.name === 'first-contentful-paint') window.__firstPaint = entry.startTime;
        }
      }).observe({ type: 'paint', buffered: true });
      const notBlank = (c) => {
        if (c.width === 0 || c.height === 0) return false;
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 4; i < data.length; i += 4) {
          if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) return true;
        }
        return false;
      };
      const look = () => {
        if ([...document.querySelectorAll('#figure canvas')].some(notBlank)) {
          window.__firstChart = performance.now();
        } else {
          requestAnimationFrame(look);
        }
      };
      requestAnimationFrame(look);
    });
    await page.goto(url);
    await page.waitForFunction(() => window.__firstChart !== undefined && window.__firstPaint !== undefined, null, {
      timeout: 60_000,
    });
    return await page.evaluate(() => ({ firstPaint: window.__firstPaint, firstChart: window.__firstChart }));
  } finally {
    await context.close();
  }
}

/** The key numbers as one string, to notice when any of them changes. */
const keyNumbers = (page) =>
  page.$$eval('dd[data-key]', (dds) =>
    dds.map((dd) => `${dd.dataset.key}=${dd.textContent.trim()}`).join('; '),
  );

/** The key numbers as {key: text}. */
const keyNumberMap = (page) =>
  page.$$eval('dd[data-key]', (dds) => Object.fromEntries(dds.map((dd) => [dd.dataset.key, dd.textContent.trim()])));

/** Compares the page's key numbers with core's, naming the first that differs. */
async function expectKeyNumbers(page, expected, what) {
  const shown = await keyNumberMap(page);
  for (const number of expected) {
    const value = shown[number.key];
    if (value !== number.value) {
      throw new Error(`${what}: ${number.key} shows ${JSON.stringify(value)}, core computes ${JSON.stringify(number.value)}`);
    }
  }
}

/**
 * Drags the `key` slider as a reader does: press at 30 % of its track, then
 * sweep `span` of the track in `moves` steps a frame apart. Returns every
 * update the figure recorded meanwhile (from the change to the last chart
 * drawn, its `data-update-ms`), sorted.
 */
export async function dragSlider(page, key, { moves, span }) {
  await page.evaluate(() => {
    window.__updates = [];
    const figure = document.getElementById('figure');
    new MutationObserver(() => window.__updates.push(Number(figure.dataset.updateMs))).observe(figure, {
      attributes: true,
      attributeFilter: ['data-updates'],
    });
  });
  const slider = page.locator(`#f-${key}-range`);
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.3, y);
  await page.mouse.down();
  for (let i = 0; i <= moves; i++) {
    await page.mouse.move(box.x + box.width * (0.3 + (span * i) / moves), y);
    await page.waitForTimeout(16);
  }
  await page.mouse.up();
  await page.waitForTimeout(800);
  const updates = await page.evaluate(() => window.__updates.filter(Number.isFinite));
  return updates.sort((a, b) => a - b);
}

/**
 * Waits until no chart waits to be drawn: a chart out of view is redrawn
 * only once it comes into view or the changes stop (`data-stale` meanwhile).
 */
export const chartsCaughtUp = (page) =>
  page.waitForFunction(() => !document.querySelector('canvas[data-stale]'), null, { timeout: 10_000 });

/** A short fingerprint of every canvas's pixels, to notice a redraw. */
const canvasPixels = async (page) => {
  await chartsCaughtUp(page);
  return page.$$eval('#figure canvas', (canvases) => canvases.map((c) => c.toDataURL()).join('|'));
};

/** Canvases that are blank: every pixel the same colour. */
export const blankCanvases = async (page) => {
  await chartsCaughtUp(page);
  return page.$$eval('#figure canvas', (canvases) =>
    canvases
      .filter((c) => {
        if (c.width === 0 || c.height === 0) return true;
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 4; i < data.length; i += 4) {
          if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) return false;
        }
        return true;
      })
      .map((c) => c.id),
  );
};

export function percentile(sorted, p) {
  const at = (sorted.length - 1) * p;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

// --- Main ---------------------------------------------------------------------

async function main() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.error(`e2e: ${DIST}/index.html is missing; run \`trunk build --release\` first`);
    process.exit(1);
  }
  // A hung browser must not hang CI.
  setTimeout(() => {
    console.error('e2e: gave up after 10 minutes');
    process.exit(1);
  }, 10 * 60 * 1000).unref();

  fs.mkdirSync(SHOTS, { recursive: true });
  const server = await startServer(DIST, PREFIX, {
    'js/js-module.html': path.join(REPO, 'tests', 'e2e', 'js-module.html'),
  });
  const ORIGIN = `http://127.0.0.1:${server.address().port}`;
  const BASE = ORIGIN + PREFIX;
  console.log(`# serving ${path.relative(REPO, DIST) || DIST} at ${BASE}`);

  const browser = await chromium.launch(CHROMIUM);

  const errors = []; // uncaught page errors and console.error, from every check
  const failed = [];
  let passed = 0;

  /** Per-check helpers; every context it opens is closed when the check ends. */
  function checkContext(name) {
    const contexts = [];
    const expected = []; // console errors this check provokes on purpose
    let lastPage = null;
    return {
      allowErrors(pattern) {
        expected.push(pattern);
      },
      async newPage({ viewport = { width: 1280, height: 900 }, ...options } = {}) {
        const context = await browser.newContext({ viewport, ...options });
        contexts.push(context);
        const page = await context.newPage();
        page.setDefaultTimeout(10_000);
        page.on('pageerror', (e) => errors.push(`${name}: page error: ${e.message}`));
        page.on('console', (msg) => {
          // Chromium asks for /favicon.ico at the origin root, outside the app.
          const where = msg.location().url ?? '';
          const wanted = expected.some((pattern) => pattern.test(msg.text()));
          if (msg.type() === 'error' && !where.endsWith('/favicon.ico') && !wanted) {
            errors.push(`${name}: console.error: ${msg.text()}${where ? ` (${where})` : ''}`);
          }
        });
        lastPage = page;
        return page;
      },
      async shot(page, file, { fullPage = true } = {}) {
        // A broken page is still worth its picture.
        if (fullPage) await chartsCaughtUp(page).catch(() => {});
        await page.screenshot({ path: path.join(SHOTS, `${file}.png`), fullPage });
      },
      async failureShot() {
        if (!lastPage || lastPage.isClosed()) return;
        const file = `failed-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
        await this.shot(lastPage, file).catch(() => {});
      },
      async close() {
        for (const context of contexts) await context.close().catch(() => {});
      },
    };
  }

  async function check(name, fn) {
    if (ONLY && !ONLY.test(name)) return true;
    const t = checkContext(name);
    try {
      await fn(t);
      passed++;
      console.log(`ok - ${name}`);
      return true;
    } catch (e) {
      failed.push(name);
      console.log(`not ok - ${name}: ${String(e?.message ?? e).split('\n')[0]}`);
      await t.failureShot();
      return false;
    } finally {
      await t.close();
    }
  }

  /** Opens the app with `query` and waits until the wasm has rendered `ready`. */
  async function openApp(page, query, ready = '#panel') {
    await page.goto(BASE + query);
    await waitReady(page, ready);
  }
  async function waitReady(page, ready = '#panel') {
    // Generous: the first load compiles the whole wasm module.
    await page.waitForSelector(ready, { timeout: 30_000 });
    // Let charts draw and the debounced address-bar update land before looking.
    await page.waitForLoadState('networkidle').catch(() => {});
    await page.waitForTimeout(400);
  }

  // If the app does not load at all, every check below would wait 30 s for
  // nothing; one clear failure is more useful.
  const loads = await check('the app loads under /docs/stampede/', async (t) => {
    const page = await t.newPage();
    await openApp(page, '');
    equal((await page.textContent('header h1'))?.trim(), 'Stampede', 'header h1');
    // A figure, not a limit: an upper bound on the time to the first drawn panel.
    const since_start = await page.evaluate(() => performance.now());
    console.log(`# figure: panel drawn within ${Math.round(since_start)} ms of navigation start`);
  });

  if (!loads) {
    console.log('# skipped the other checks: the app did not render #panel');
  } else {
    await check("each panel's code arrives when the panel first opens", async (t) => {
      const page = await t.newPage();
      const fetched = [];
      page.on('request', (request) => {
        const name = new URL(request.url()).pathname.split('/').pop();
        if (name.endsWith('.wasm')) fetched.push(name);
      });
      // The panels are split off in groups (src/panels/mod.rs).
      const own = (group) => fetched.filter((name) => name.startsWith(`stampede-app-split_${group}-`)).length;
      await openApp(page, '?v=1&p=poisson');
      equal(fetched.filter((name) => /^stampede-app-[0-9a-f]+_bg\.wasm$/.test(name)).length, 1, 'main modules fetched');
      equal(own('arrivals'), 1, "the arrival panels' own modules fetched");
      equal(own('queues') + own('fleet'), 0, "the other panels' own modules fetched on the Poisson panel");
      await page.click('nav a[data-panel="queue"]');
      await page.waitForSelector('#panel[data-panel="queue"] .figure canvas');
      equal(own('queues'), 1, "the queue panels' own modules fetched after opening the Queue");
      await poll(async () => (await blankCanvases(page)).length === 0, 'the Queue panel drawing its charts once its code arrived');
    });

    await check("a panel whose code cannot be downloaded says so, and the others keep working", async (t) => {
      // Without the service worker, which would fetch the module itself.
      const page = await t.newPage({ serviceWorkers: 'block' });
      await page.route('**/stampede-app-split_queues-*.wasm', (route) => route.abort());
      t.allowErrors(/Failed to fetch|ERR_FAILED|failed to load split module/);
      await openApp(page, '?v=1&p=poisson');
      await page.click('nav a[data-panel="slots"]');
      const message = await page.waitForSelector('#panel[data-panel="slots"] .not-loaded');
      assert(/Slots panel's code could not be downloaded/.test(await message.textContent()), 'the message names the panel');
      equal(await page.locator('#error-banner').count(), 0, 'error banners');
      equal(await page.locator('#panel .how-it-works').count(), 0, '"How it works" without its text');
      await t.shot(page, 'panel-not-loaded', { fullPage: false });
      await page.click('nav a[data-panel="jitter"]');
      await page.waitForSelector('#panel[data-panel="jitter"] .figure canvas');
      await poll(async () => (await blankCanvases(page)).length === 0, 'the Jitter panel drawing its charts');
    });

    // 1 -------------------------------------------------------------------------
    await check('shared URL restores state', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=jitter&s=12345&n=5000&lo=5&hi=20');
      const expectState = async (when) => {
        equal(await page.getAttribute('section#panel', 'data-panel'), 'jitter', `active panel ${when}`);
        await expectNumber(page, '#f-n', 5000, when);
        await expectNumber(page, '#f-lo', 5, when);
        await expectNumber(page, '#f-hi', 20, when);
        equal(await page.inputValue('#f-s'), '12345', `#f-s ${when}`);
        equal(
          await page.getAttribute('nav a[data-panel="jitter"]', 'aria-current'),
          'page',
          `aria-current of the jitter link ${when}`,
        );
        equal(await page.locator('#notices li.notice').count(), 0, `notices ${when}`);
      };
      await expectState('after opening');
      await page.reload();
      await waitReady(page);
      await expectState('after reload');
      await t.shot(page, 'shared-url');
    });

    // 2 -------------------------------------------------------------------------
    await check('editing a control updates the URL and the numbers', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=jitter&s=12345&n=5000&lo=5&hi=20');
      const before = await keyNumbers(page);
      assert(before !== '', 'no dd[data-key] key numbers on the page');
      await page.fill('#f-n', '7000'); // fires input
      await page.dispatchEvent('#f-n', 'input');
      await page.dispatchEvent('#f-n', 'change');
      await page.waitForTimeout(800); // the address bar is updated ~300 ms after the last change
      await poll(() => queryParam(page, 'n') === '7000', `n=7000 in the URL (URL is ${page.url()})`, 2000);
      await expectNumber(page, '#f-n', 7000);
      await poll(async () => (await keyNumbers(page)) !== before, `key numbers to change from "${before}"`);
    });

    // The operator's question, answered and applied: 5,000 jobs, 50 a second.
    await check('jitter: "use this window" sets the window that holds on 95 % of nights', async (t) => {
      const page = await t.newPage({ viewport: { width: 1280, height: 900 } });
      await openApp(page, '?v=1&p=jitter&s=1&n=5000&rps=50&hi=2');
      const over = () => page.textContent('dd[data-key="seconds-over"]');
      assert(!(await over()).startsWith('0 of'), `seconds over the limit at 2 min: ${await over()}`);
      const answer = () => page.textContent('#window-answer');
      assert((await answer()).includes('2 min 48 s to keep every second at or under 50 on 95 % of nights'), await answer());
      equal(await page.getAttribute('#window-answer', 'aria-live'), 'polite', 'the answer is a live region');
      await page.focus('#use-window');
      await page.keyboard.press('Enter');
      await poll(() => queryParam(page, 'hi') === '2.8', `hi to become 2.8 (URL is ${page.url()})`, 2000);
      await poll(async () => (await answer()).includes('In use: max 2.8 min'), 'the button to say the window is in use');
      const focused = await page.evaluate(() => document.activeElement?.id);
      equal(focused, 'f-hi-range', 'focus after "Use this window"');
      const window = 2.8;
      // Its snippets carry the same whole seconds.
      const seconds = Math.round(window * 60);
      await page.click('.use-it button[data-snippet="systemd"]');
      const systemd = await page.textContent('.snippet[data-snippet="systemd"] code');
      assert(systemd.includes(`RandomizedDelaySec=${seconds}`), `systemd snippet: ${systemd}`);
      await page.click('.use-it button[data-snippet="crontab"]');
      const crontab = await page.textContent('.snippet[data-snippet="crontab"] code');
      assert(crontab.includes(`shuf -i 0-${seconds - 1} -n 1`), `crontab snippet: ${crontab}`);
      await t.shot(page, 'jitter-window-applied');
    });

    // 3 -------------------------------------------------------------------------
    for (const [i, slug] of SLUGS.entries()) {
      await check(`panel ${slug}: nav link opens it`, async (t) => {
        const page = await t.newPage({ viewport: { width: 1280, height: 900 } });
        // Start on another panel so the click is a real switch.
        await openApp(page, `?v=1&p=${SLUGS[(i + SLUGS.length - 1) % SLUGS.length]}`);
        await page.click(`nav a[data-panel="${slug}"]`);
        await waitReady(page, `section#panel[data-panel="${slug}"]`);
        const explain = (await page.textContent('section#panel p.explain'))?.trim() ?? '';
        assert(explain !== '', 'p.explain is empty');
        await poll(() => queryParam(page, 'p') === slug, `p=${slug} in the URL (URL is ${page.url()})`, 3000);
        equal(
          await page.getAttribute(`nav a[data-panel="${slug}"]`, 'aria-current'),
          'page',
          `aria-current of the ${slug} link`,
        );
        await t.shot(page, `panel-${slug}`);
      });
    }
    for (const slug of SLUGS) {
      await check(`panel ${slug} on a 360 px phone: no horizontal overflow`, async (t) => {
        // isMobile honours <meta name="viewport">, as a phone does; DPR 2 exercises canvas scaling.
        const page = await t.newPage({
          viewport: { width: 360, height: 740 },
          isMobile: true,
          hasTouch: true,
          deviceScaleFactor: 2,
        });
        await openApp(page, `?v=1&p=${slug}`);
        await t.shot(page, `mobile-${slug}`);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert(width <= 360, `page is ${width} px wide, more than the 360 px screen`);
      });
    }

    // 3b ------------------------------------------------------------------------
    const presets = JSON.parse(fs.readFileSync(PRESETS, 'utf8'));
    for (const preset of presets) {
      await check(`preset ${preset.panel}/${preset.slug}: the page shows core's numbers`, async (t) => {
        const page = await t.newPage();
        await openApp(page, `?${preset.query}`);
        if (preset.panel === 'queue') {
          await queueDone(page);
          await expectCoreSummaries(page, preset.query, 'opened by URL');
        }
        if (preset.panel === 'fleet') await fleetSettled(page);
        await expectKeyNumbers(page, preset.key_numbers, 'opened by URL');
        const blank = await blankCanvases(page);
        assert(blank.length === 0, `blank charts: ${blank.join(', ')}`);
        await t.shot(page, `preset-${preset.panel}-${preset.slug}`);
      });
    }
    for (const slug of new Set(presets.map((p) => p.panel))) {
      await check(`panel ${slug}: each "try this" button sets its preset`, async (t) => {
        const page = await t.newPage();
        await openApp(page, `?v=1&p=${slug}&s=1`);
        for (const preset of presets.filter((p) => p.panel === slug)) {
          await page.click(`button[data-preset="${preset.slug}"]`);
          await poll(
            async () => {
              try {
                await expectKeyNumbers(page, preset.key_numbers, preset.slug);
                return true;
              } catch {
                return false;
              }
            },
            `the numbers of ${preset.slug}`,
          ).catch(async () => expectKeyNumbers(page, preset.key_numbers, `after clicking ${preset.slug}`));
          await poll(() => page.url().endsWith(`?${preset.query}`), `the URL of ${preset.slug} (URL is ${page.url()})`, 3000);
        }
      });
    }

    // 3c ------------------------------------------------------------------------
    const timings = {};
    for (const [slug, key] of DRAGGED) {
      await check(`panel ${slug}: dragging the ${key} slider redraws the charts and updates the URL`, async (t) => {
        const page = await t.newPage();
        await openApp(page, `?v=1&p=${slug}&s=1`);
        const blank = await blankCanvases(page);
        assert(blank.length === 0, `blank charts before dragging: ${blank.join(', ')}`);
        const before = await canvasPixels(page);
        const startValue = queryParam(page, key);
        const sorted = await dragSlider(page, key, { moves: 40, span: 0.4 });
        assert(queryParam(page, key) !== startValue, `${key} in the URL is still ${startValue}`);
        assert((await canvasPixels(page)) !== before, 'the charts look the same after the drag');
        assert(sorted.length >= 5, `only ${sorted.length} updates recorded while dragging`);
        timings[slug] = { n: sorted.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
        const { n, p50, p95 } = timings[slug];
        console.log(`# figure: ${slug} drag, ${n} updates, recompute and redraw p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`);
        await t.shot(page, `dragged-${slug}`);
      });
    }

    await check('queue: a week-long run goes to the worker, shows progress and matches stampede run', async (t) => {
      const page = await t.newPage();
      const started = Date.now();
      await page.goto(BASE + WEEK_RUN);
      await page.waitForSelector('#queue-progress', { timeout: 30_000 });
      await queueDone(page, 60_000);
      const ms = await page.evaluate(() => performance.now());
      console.log(`# figure: queue week-long run (100,000 accounts, 15 workers) done ${Math.round(ms)} ms after navigation (${Date.now() - started} ms wall)`);
      await expectCoreSummaries(page, WEEK_RUN.slice(1), 'the week-long run');
      const blank = await blankCanvases(page);
      assert(blank.length === 0, `blank charts: ${blank.join(', ')}`);
      await t.shot(page, 'queue-week');
    });

    await check('queue: a week-long run reading durations drawn ahead by the standby worker matches stampede run', async (t) => {
      const page = await t.newPage();
      // An hour first, on the page; once it is drawn and the page idle, the
      // standby worker draws its sync durations, which the week then reads.
      await openApp(page, WEEK_RUN.replace('hz=168', 'hz=1'));
      await queueDone(page);
      await page.waitForTimeout(1_500);
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
      equal(ended, 'done', 'the week-long run after an hour');
      await expectCoreSummaries(page, WEEK_RUN.slice(1), 'the week-long run after an hour');
    });

    await check('queue: replicate on a preset shows the intervals stampede run --replicate gives', async (t) => {
      const page = await t.newPage();
      // The least-recently-synced preset against slots.
      await openApp(page, '?v=1&p=queue&s=1&st=lrs&vs=slots');
      await queueDone(page);
      const started = Date.now();
      await page.click('#queue-replicate');
      await page.waitForSelector('[data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
      console.log(`# figure: queue replicate ×20 of the least-recent-vs-slots preset done ${Date.now() - started} ms after the click`);
      await poll(async () => queryParam(page, 'repl') === '20', 'repl=20 in the URL');
      const query = new URL(page.url()).search.slice(1);
      const core = JSON.parse(execFileSync(STAMPEDE, ['run', query], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      const meanWait = core.rows.find((row) => row.key === 'mean_wait_s');
      const shown = await page.$$eval('td[data-replicated="mean_wait_s"]', (cells) => cells.map((c) => c.firstChild.textContent));
      equal(JSON.stringify(shown), JSON.stringify(meanWait.values.map((v) => v.text)), 'the mean wait intervals');
      const badDays = await page.$$eval('td[data-replicated="mean_wait_s"] small[data-bad-day]', (notes) => notes.map((n) => Number(n.dataset.badDay)));
      equal(JSON.stringify(badDays), JSON.stringify(meanWait.values.map((v) => v.bad_day.value)), 'the mean wait\'s bad days');
      assert(/^\S.* ± .* \(95 %, 20 runs\)$/.test(shown[0]), `the interval text reads ${shown[0]}`);
      const p99 = await page.$eval('td[data-replicated="p99_wait_s"] small:not([data-bad-day])', (note) => note.textContent);
      assert(/^99 in 100 of at least [\d,]+ jobs a run waited no longer/.test(p99), `the p99's note reads ${p99}`);
      const differences = await page.$$eval('li[data-difference]', (items) => items.map((i) => i.textContent));
      equal(JSON.stringify(differences), JSON.stringify(core.differences.map((d) => d.text)), 'the differences in words');
      const blank = await blankCanvases(page);
      assert(blank.length === 0, `blank charts: ${blank.join(', ')}`);
      const band = await page.$('#fig-depth-band');
      await band.scrollIntoViewIfNeeded();
      await band.screenshot({ path: path.join(SHOTS, 'queue-depth-band.png') });
      await t.shot(page, 'queue-replicated');
    });

    await check('queue: replications over 1 and over 3 workers give identical figures', async (t) => {
      // The page runs one worker per core less its own: 2 cores give 1
      // worker, 4 give 3.
      const replicated = async (cores) => {
        const page = await t.newPage();
        await page.addInitScript((cores) => {
          Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => cores });
        }, cores);
        await openApp(page, '?v=1&p=queue&s=1&st=lrs&vs=slots&hz=6');
        await queueDone(page);
        let workers = 0;
        page.on('worker', () => workers++);
        await page.click('#queue-replicate');
        await page.waitForSelector('[data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
        const cells = await page.$$eval('td[data-replicated]', (cells) => cells.map((c) => c.textContent));
        const differences = await page.$$eval('li[data-difference]', (items) => items.map((i) => i.textContent));
        return { workers, figures: JSON.stringify({ cells, differences }) };
      };
      const one = await replicated(2);
      const three = await replicated(4);
      equal(one.workers, 1, 'workers with 2 cores');
      equal(three.workers, 3, 'workers with 4 cores');
      assert(JSON.parse(one.figures).cells.length > 0, 'no replicated figures shown');
      equal(three.figures, one.figures, 'the figures over 3 workers against 1');
    });

    await check('queue: replications from a link show progress and cancel', async (t) => {
      const page = await t.newPage();
      // 100 seeds of a week of herd and slots: about 67M jobs, seconds of work.
      await openApp(page, '?v=1&p=queue&s=1&hz=168&repl=100');
      await page.waitForSelector('#queue-replication-progress', { timeout: 30_000 });
      await page.click('#queue-replication-cancel');
      await page.waitForSelector('[data-replication-status="cancelled"]', { state: 'attached' });
      equal(await page.$$eval('td[data-replicated]', (cells) => cells.length), 0, 'replicated cells after cancelling');
      await page.click('#queue-replication-restart');
      await page.waitForSelector('#queue-replication-progress', { timeout: 10_000 });
    });

    await check('queue: cancel stops a run mid-way and keeps the last finished one on screen', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=queue&s=1');
      await queueDone(page);
      const before = await pageSummaries(page);
      // Ten times the accounts: a run the worker takes seconds over.
      await page.fill('#f-n', '200000');
      await page.press('#f-n', 'Enter');
      await page.waitForSelector('#queue-cancel', { timeout: 10_000 });
      await page.click('#queue-cancel');
      await page.waitForSelector('[data-run-status="cancelled"]', { state: 'attached' });
      equal(JSON.stringify(await pageSummaries(page)), JSON.stringify(before), 'the summary after cancelling');
      await t.shot(page, 'queue-cancelled');
      await page.click('#queue-restart');
      await queueDone(page, 60_000);
      assert(JSON.stringify(await pageSummaries(page)) !== JSON.stringify(before), 'the summary did not change after running again');
    });

    await check('queue: playing grows the charts from the start, step and scrub move the clock', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=queue&s=1');
      await queueDone(page);
      const depth = () => page.$eval('#queue-depth', (c) => c.toDataURL());
      const whole = await depth();
      await page.fill('#queue-scrub', '250');
      await poll(async () => /^6 h of 1 day/.test((await page.textContent('.queue-time')) ?? ''), 'the clock to read 6 h');
      const quarter = await depth();
      assert(quarter !== whole, 'the depth chart did not change when scrubbed to 6 h');
      await page.click('#queue-step');
      await poll(async () => /^7 h of 1 day/.test((await page.textContent('.queue-time')) ?? ''), 'a step to move the clock to 7 h');
      await page.click('#queue-play');
      equal(await page.getAttribute('#queue-play', 'aria-pressed'), 'true', 'aria-pressed while playing');
      await poll(async () => (await depth()) !== quarter, 'the chart to grow while playing', 3000);
      await page.click('#queue-play');
      await t.shot(page, 'queue-playing');
    });

    await check('queue: a chart out of view waits while the run plays, draws as it comes into view, and catches up once it stops', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=queue&s=1');
      await queueDone(page);
      const stale = (id) => page.$eval(`#${id}`, (c) => c.hasAttribute('data-stale'));
      await page.selectOption('#queue-speed', '40');
      await page.click('#queue-play');
      await poll(() => stale('queue-busy'), 'the busy chart, below the fold, to wait while the run plays');
      await page.locator('#queue-busy').scrollIntoViewIfNeeded();
      await poll(async () => !(await stale('queue-busy')), 'the busy chart to draw once in view');
      equal(await page.getAttribute('#queue-play', 'aria-pressed'), 'true', 'still playing');
      assert(await stale('queue-gaps'), 'the gaps chart, still out of view, drew while the run played');
      await page.click('#queue-play');
      await page.fill('#queue-scrub', String(await page.getAttribute('#queue-scrub', 'max')));
      const caughtUp = await canvasPixels(page);
      const fresh = await t.newPage();
      await openApp(fresh, '?v=1&p=queue&s=1');
      await queueDone(fresh);
      equal(caughtUp === (await canvasPixels(fresh)), true, 'the charts, caught up, equal a fresh page\'s');
    });

    await check('queue: imported arrivals are read in the worker and show the numbers of stampede run --arrivals', async (t) => {
      const page = await t.newPage();
      const query = 'v=1&p=queue&s=1&w=4';
      const fixture = path.join(REPO, 'tests', 'fixtures', 'arrivals.csv');
      await openApp(page, '?' + query);
      await queueDone(page);
      await page.setInputFiles('#arrivals-file', fixture);
      await page.waitForSelector('#arrivals-status[data-status="done"]', { timeout: 30_000, state: 'attached' });
      const cli = JSON.parse(execFileSync(STAMPEDE, ['run', query, '--arrivals', fixture], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      const cell = (key) => page.getAttribute(`[data-arrivals="${key}"]`, 'data-value');
      equal(Number(await cell('arrivals')), cli.arrivals.description.arrivals, 'arrivals');
      equal(Number(await cell('busiest-minute')), cli.arrivals.description.busiest_minute.arrivals, 'busiest minute');
      equal(Number(await cell('fano-minute')), cli.arrivals.description.fano_per_minute, 'Fano per minute');
      equal(await page.getAttribute('[data-refused]', 'data-refused'), String(cli.arrivals.refused.length), 'refused rows');
      equal((await page.textContent('[data-arrivals="poisson"]')).trim(), cli.arrivals.diagnosis.sentences[0], 'the Poisson check');
      equal((await page.textContent('[data-arrivals="findings"]')).trim(), cli.arrivals.diagnosis.sentences.slice(1).join(' '), 'the findings');
      const shown = await page.$$eval('tr[data-replay-lane]', (rows) => rows.map((row) => [
        row.dataset.replayLane,
        Object.fromEntries([...row.querySelectorAll('td[data-replay]')].map((c) => [c.dataset.replay, Number(c.dataset.value)])),
      ]));
      equal(shown.map(([slug]) => slug).join(','), cli.run.lanes.map((lane) => lane.slug).join(','), 'lanes');
      for (const [[slug, cells], lane] of shown.map((row, i) => [row, cli.run.lanes[i]])) {
        for (const [key, value] of Object.entries(cells)) {
          equal(value, lane.run.summary[key], `${slug} ${key}`);
        }
      }
      // The arrivals never reach the link.
      assert(!page.url().includes('arrivals') && !page.url().includes('acct'), `the link carries the arrivals: ${page.url()}`);
      const blank = await blankCanvases(page);
      assert(blank.length === 0, `blank charts: ${blank.join(', ')}`);
      await page.locator('#fig-imported').screenshot({ path: path.join(SHOTS, 'queue-imported.png') });
    });

    await check('queue: imported results follow the parameters, Replay replays the file, and replications give the imported lanes intervals', async (t) => {
      const page = await t.newPage();
      const fixture = path.join(REPO, 'tests', 'fixtures', 'arrivals.csv');
      await openApp(page, '?v=1&p=queue&s=1&w=4');
      await queueDone(page);
      await page.setInputFiles('#arrivals-file', fixture);
      await page.waitForSelector('#arrivals-status[data-status="done"]', { timeout: 30_000, state: 'attached' });
      const importedP95 = () => page.getAttribute('tr[data-replay-lane="imported"] td[data-replay="p95_wait_s"]', 'data-value');
      const cliRun = (query, ...more) => JSON.parse(execFileSync(STAMPEDE, ['run', query, '--arrivals', fixture, ...more], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }));
      const atFour = cliRun('v=1&p=queue&s=1&w=4');
      equal(Number(await importedP95()), atFour.run.lanes[0].run.summary.p95_wait_s, 'the imported p95 at 4 workers');

      // A change of workers replays the file: the shown figures become
      // the new parameters', and until then are marked as not current.
      await page.fill('#f-w', '1');
      await page.press('#f-w', 'Enter');
      await poll(async () => queryParam(page, 'w') === '1', 'w=1 in the URL');
      await page.waitForSelector('.imported-results[data-current="true"]', { timeout: 30_000, state: 'attached' });
      const atOne = cliRun('v=1&p=queue&s=1&w=1');
      equal(Number(await importedP95()), atOne.run.lanes[0].run.summary.p95_wait_s, 'the imported p95 at 1 worker');
      assert(atOne.run.lanes[0].run.summary.p95_wait_s !== atFour.run.lanes[0].run.summary.p95_wait_s, 'one worker and four differ');

      // The box is empty (the arrivals came as a file): Replay replays the file.
      const label = (await page.textContent('#arrivals-replay')).trim();
      equal(label, 'Replay arrivals.csv again', 'the Replay button names what it replays');
      await page.click('#arrivals-replay');
      await page.waitForSelector('#arrivals-status[data-status="done"]', { timeout: 30_000, state: 'attached' });
      equal(Number(await importedP95()), atOne.run.lanes[0].run.summary.p95_wait_s, 'the file replayed again');

      // Replications: the imported lanes get their own intervals, the same as the command line's.
      const started = Date.now();
      await page.click('#arrivals-replicate');
      await page.waitForSelector('.imported-replication [data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
      console.log(`# figure: imported arrivals (995 rows) replicated ×20 ${Date.now() - started} ms after the click`);
      const replicated = cliRun('v=1&p=queue&s=1&w=1', '--replicate', '20').replicated;
      const shown = await page.$$eval('.imported-replication td[data-replicated="p95_wait_s"]', (cells) => cells.map((c) => c.firstChild.textContent));
      const p95 = replicated.rows.find((row) => row.key === 'p95_wait_s');
      equal(JSON.stringify(shown), JSON.stringify(p95.values.map((v) => v.text)), 'the imported lanes\' p95 intervals');
      const explained = (await page.textContent('.imported-replication .replication-explained')).trim();
      equal(explained, replicated.explained, 'what ± means, in the command line\'s words');
      assert(explained.startsWith('What does ± mean?'), `the explanation reads ${explained}`);

      // Resampling by the hour changes what varies, and says so.
      await page.check('#arrivals-resample');
      await page.waitForSelector('.imported-replication [data-replication-status="done"]', { timeout: 60_000, state: 'attached' });
      await poll(async () => /block bootstrap|resampling by the hour needs/.test((await page.textContent('.imported-replication .replication-explained')) ?? ''), 'the resampled explanation');
      const resampled = cliRun('v=1&p=queue&s=1&w=1', '--replicate', '20', '--resample-hours').replicated;
      equal((await page.textContent('.imported-replication .replication-explained')).trim(), resampled.explained, 'the resampled explanation, as the command line gives it');
      const section = page.locator('.imported-replication');
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: path.join(SHOTS, 'queue-imported-replicated.png') });
    });

    await check('queue: every refused arrival row is listed by its line, behind Show all past 20, and downloadable', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=queue&s=1');
      await queueDone(page);
      const good = Array.from({ length: 40 }, (_, k) => `2026-01-01T00:${String(k).padStart(2, '0')}:00Z`);
      const bad = Array.from({ length: 24 }, (_, k) => `2026-01-01T01:00:${String(k).padStart(2, '0')}+25:00`);
      bad.push('2026-02-30T00:00:00Z');
      await page.fill('#arrivals-text', [...good, ...bad].join('\n'));
      await page.click('#arrivals-replay');
      await page.waitForSelector('#arrivals-status[data-status="done"]', { timeout: 30_000, state: 'attached' });
      equal(await page.getAttribute('[data-refused]', 'data-refused'), '25', 'refused rows');
      const first = await page.$$eval('.imported-refusals li', (items) => items.map((i) => i.textContent));
      equal(first.length, 20, 'the first 20 listed');
      assert(/^Line 41: .*\+25:00.*±14:00/.test(first[0]), `the first refusal reads ${first[0]}`);
      await page.click('.imported-refusals-all summary');
      // The rest are built once the list opens.
      await page.waitForSelector('.imported-refusals-rest li', { timeout: 10_000, state: 'attached' });
      const rest = await page.$$eval('.imported-refusals-rest li', (items) => items.map((i) => i.textContent));
      equal(rest.length, 5, 'the other 5 behind Show all');
      assert(/^Line 65: .*day 30/.test(rest[4]), `the last refusal reads ${rest[4]}`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#arrivals-refused-download')]);
      const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
      equal(csv.length, 26, 'a header and every refused row in the CSV');
      const block = page.locator('#fig-imported');
      await block.screenshot({ path: path.join(SHOTS, 'queue-imported-refused.png') });
    });

    await check('fleet: "Simulate these starts" opens the Queue with the shown day\'s starts as arrivals, durations and workers', async (t) => {
      // The default fleet gives no durations; the systemd sample's timers run 20 minutes.
      for (const [sample, durations] of [['', false], ['&smp=systemd-50', true]]) {
        const page = await t.newPage();
        await openApp(page, `?v=1&p=fleet${sample}`);
        await fleetSettled(page);
        const starts = Number(await page.getAttribute('#fleet-simulate', 'data-starts'));
        assert(starts > 0, `the shown day has ${starts} starts`);
        const capacity = await page.inputValue('#f-cap');
        await page.click('#fleet-simulate');
        await page.waitForSelector('#arrivals-status[data-status="done"]', { timeout: 30_000, state: 'attached' });
        equal(Number(await page.getAttribute('[data-arrivals="arrivals"]', 'data-value')), starts, `arrivals in the Queue${sample}`);
        equal(await page.inputValue('#f-w'), capacity, 'the Queue\'s workers, as many as the capacity');
        const reading = (await page.textContent('.imported-reading')) ?? '';
        equal(/duration from/.test(reading), durations, `the jobs' durations carried over${sample} (${reading})`);
        if (durations) await page.locator('#fig-imported').screenshot({ path: path.join(SHOTS, 'queue-fleet-starts.png') });
      }
    });

    await check('slots: the clock hand moves while playing and stops when paused', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=slots&s=1');
      const ring = () => page.$eval('#slots-ring', (c) => c.toDataURL());
      equal(await page.getAttribute('#slots-play', 'aria-pressed'), 'false', 'aria-pressed before playing');
      const still = await ring();
      await page.click('#slots-play');
      equal(await page.getAttribute('#slots-play', 'aria-pressed'), 'true', 'aria-pressed while playing');
      await poll(async () => (await ring()) !== still, 'the ring to change while playing', 3000);
      await page.click('#slots-play');
      equal(await page.getAttribute('#slots-play', 'aria-pressed'), 'false', 'aria-pressed after pausing');
      await page.waitForTimeout(200);
      const paused = await ring();
      await page.waitForTimeout(600);
      assert((await ring()) === paused, 'the ring still changes after pausing');
      // Scrubbing moves the hand to a chosen moment of the cycle.
      await page.fill('#slots-scrub', '500');
      await poll(
        async () => /slot 8 of 15/.test((await page.textContent('.slots-time')) ?? ''),
        `the clock to read slot 8 of 15 at half the cycle (it reads ${await page.textContent('.slots-time')})`,
      );
      await t.shot(page, 'slots-scrubbed');
    });

    await check('slots: a slot can be reached and read with the keyboard', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=slots&s=1');
      let reached = null;
      for (let i = 0; i < 80 && reached === null; i++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(() => document.activeElement?.dataset?.slot ?? null);
      }
      assert(reached !== null, 'Tab never reached a slot button');
      const note = await poll(async () => {
        const text = (await page.textContent('#slots-note'))?.trim() ?? '';
        return text.startsWith(`Slot ${Number(reached) + 1} of 15`) ? text : null;
      }, `#slots-note to describe slot ${Number(reached) + 1}`);
      assert(/accounts/.test(note), `the note does not say how many accounts: ${note}`);
      equal(await page.getAttribute('#slots-note', 'aria-live'), 'polite', '#slots-note aria-live');
    });

    // 4b ------------------------------------------------------------------------
    await check('charts: a focused chart reads its values, and the arrow keys move the reading', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=jitter&s=1');
      const readout = () => page.textContent('#jitter-arrivals-readout');
      equal((await readout()).trim(), '', 'the readout before focus');
      equal(await page.getAttribute('#jitter-arrivals-readout', 'aria-live'), 'polite', 'the readout aria-live');
      await page.focus('#jitter-arrivals');
      const first = await poll(async () => (await readout()).trim(), 'a reading on focus');
      assert(/jobs per/.test(first) && /\d/.test(first), `the reading on focus names no value: ${first}`);
      await page.keyboard.press('ArrowRight');
      const second = await poll(async () => {
        const text = (await readout()).trim();
        return text !== first && text;
      }, 'ArrowRight to move the reading');
      await page.keyboard.press('End');
      await poll(async () => ![first, second].includes((await readout()).trim()), 'End to move the reading');
      // The pointer reads where it is: the middle of the lower plot.
      const box = await page.locator('#jitter-arrivals').boundingBox();
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.75);
      const hovered = await poll(async () => (await readout()).trim(), 'a reading under the pointer');
      assert(hovered.includes('jobs per'), `the hovered reading: ${hovered}`);
      equal(await page.locator('.readout-line').count(), 1, 'crosshair lines');
    });

    await check('charts: hovered readouts on Jitter, Queue and the Slots ring, light and dark', async (t) => {
      for (const colorScheme of ['light', 'dark']) {
        const page = await t.newPage({ colorScheme });
        for (const [query, id, x, y] of [
          ['?v=1&p=jitter&s=1', 'jitter-arrivals', 0.2, 0.8],
          ['?v=1&p=queue&s=1', 'queue-depth', 0.45, 0.5],
          ['?v=1&p=slots&s=1', 'slots-ring', 0.5, 0.15],
        ]) {
          await openApp(page, query);
          if (query.includes('queue')) await queueDone(page);
          const canvas = page.locator(`#${id}`);
          await canvas.scrollIntoViewIfNeeded();
          const box = await canvas.boundingBox();
          await page.mouse.move(box.x + box.width * x, box.y + box.height * y);
          const text = id === 'slots-ring' ? '#slots-note' : `#${id}-readout`;
          const read = await poll(
            async () => /\d/.test((await page.textContent(text)) ?? '') && (await page.textContent(text)),
            `a reading on ${id}`,
          );
          if (id === 'slots-ring') assert(/^Slot \d+ of 15 .*cost/.test(read.trim()), `the ring's reading: ${read}`);
          await page.waitForTimeout(150);
          await page.locator('.chart-block', { has: canvas }).screenshot({ path: path.join(SHOTS, `readout-${id}-${colorScheme}.png`) });
        }
      }
    });

    await check('slots: the ring steps with the arrow keys and presents fullscreen', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=slots&s=1');
      const note = () => page.textContent('#slots-note');
      await page.focus('#slots-ring');
      await poll(async () => /^Slot 1 of 15/.test(await note()), 'the clock\'s slot 1 on focus');
      await page.keyboard.press('ArrowRight');
      await poll(async () => /^Slot 2 of 15 \(32 min–1 h 4 min/.test(await note()), `ArrowRight to read slot 2 (${await note()})`);
      await page.keyboard.press('End');
      await poll(async () => /^Slot 15 of 15/.test(await note()), 'End to read slot 15');
      await page.click('#slots-present');
      await poll(() => page.evaluate(() => document.fullscreenElement?.classList.contains('chart-block')), 'the ring\'s block to go fullscreen');
      // The button follows the fullscreenchange event, which comes after the element is shown.
      await poll(async () => (await page.getAttribute('#slots-present', 'aria-pressed')) === 'true', 'aria-pressed while presenting');
      await poll(async () => (await page.$eval('#slots-ring', (c) => c.clientHeight)) > 400, 'the ring to grow');
      await page.waitForTimeout(300);
      await t.shot(page, 'slots-presenting', { fullPage: false });
      await page.click('#slots-present');
      await poll(() => page.evaluate(() => document.fullscreenElement === null), 'the presenter view to close');
    });

    await check('queue: a chart\'s PNG button saves it at twice its size, titled, with the parameters', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=queue&s=1');
      await queueDone(page);
      const button = page.locator('#fig-depth button.png');
      equal(await button.getAttribute('aria-label'), 'Save Jobs waiting as PNG', 'the button\'s name');
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      equal(download.suggestedFilename(), 'stampede-fig-depth.png', 'the file name');
      const png = fs.readFileSync(await download.path());
      equal(png.subarray(1, 4).toString(), 'PNG', 'the file type');
      const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
      const css = await page.$eval('#queue-depth', (c) => [c.clientWidth, c.clientHeight]);
      equal(width, css[0] * 2, 'the PNG width (twice the chart\'s CSS width)');
      assert(height > css[1] * 2 + 60, `the PNG is ${height} px high, the chart ${css[1]} CSS px: no room for title and parameters`);
      fs.writeFileSync(path.join(SHOTS, 'export-queue-depth.png'), png);
      // Back at the screen's ratio afterwards.
      await poll(async () => (await page.$eval('#queue-depth', (c) => c.width)) === css[0], 'the chart to draw at the screen\'s ratio again');
    });

    await check('charts draw at the pixel ratio and follow a resized window', async (t) => {
      const page = await t.newPage({ deviceScaleFactor: 2 });
      await openApp(page, '?v=1&p=poisson&s=1');
      const sizes = () =>
        page.$$eval('#figure canvas', (canvases) =>
          canvases.map((c) => ({ id: c.id, width: c.width, css: c.clientWidth, height: c.height, cssHeight: c.clientHeight })),
        );
      const expectCrisp = (list, when) => {
        assert(list.length >= 3, `${list.length} canvases ${when}`);
        for (const c of list) {
          assert(
            Math.abs(c.width - c.css * 2) <= 2 && Math.abs(c.height - c.cssHeight * 2) <= 2,
            `${c.id} is ${c.width}×${c.height} for ${c.css}×${c.cssHeight} CSS px at ratio 2 ${when}`,
          );
        }
      };
      const wide = await sizes();
      expectCrisp(wide, 'at 1280 px');
      await page.setViewportSize({ width: 700, height: 900 });
      await poll(async () => (await sizes())[0].css !== wide[0].css, 'the charts to get narrower');
      await page.waitForTimeout(300);
      expectCrisp(await sizes(), 'at 700 px');
      const blank = await blankCanvases(page);
      assert(blank.length === 0, `blank charts after the resize: ${blank.join(', ')}`);
      await t.shot(page, 'resized-poisson');
    });

    // 4 -------------------------------------------------------------------------
    await check('bad input is adjusted with notices, never breaks the page', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=poisson&n=abc&ws=99&wp=sideways&zzz=1&s=-5');
      const notices = await page.$$eval('#notices li.notice', (lis) => lis.map((li) => li.textContent.trim()));
      assert(notices.length > 0, 'no #notices li.notice');
      for (const key of ['n', 'ws', 'wp']) {
        assert(
          notices.some((text) => new RegExp(`\\b${key}\\b`).test(text)),
          `no notice names "${key}"; notices: ${JSON.stringify(notices)}`,
        );
      }
      await expectNumber(page, '#f-n', 300, '(default for n=abc)');
      await expectNumber(page, '#f-ws', 24, '(clamped from ws=99)');
      await t.shot(page, 'bad-input');
      await page.locator('#notices li.notice button.dismiss').first().click();
      await poll(
        async () => (await page.locator('#notices li.notice').count()) === notices.length - 1,
        `${notices.length - 1} notices after dismissing one`,
      );
      equal(await page.locator('#panel').count(), 1, '#panel count after dismissing');
    });

    // 5 -------------------------------------------------------------------------
    const embedQuery = '?embed=1&v=1&p=slots&cyc=3600&bk=256';
    await check('embed mode shows only the figure and key numbers', async (t) => {
      const page = await t.newPage({ viewport: { width: 640, height: 480 } });
      await openApp(page, embedQuery, 'dl.key-numbers');
      equal(await page.locator('header').count(), 0, 'header elements');
      equal(await page.locator('nav').count(), 0, 'nav elements');
      assert(await page.locator('dl.key-numbers').isVisible(), 'dl.key-numbers is not visible');
      equal(await page.locator('form.controls').count(), 0, 'form.controls elements');
      await t.shot(page, 'embed-slots', { fullPage: false });
    });
    await check('embed mode with controls=1 shows the controls', async (t) => {
      const page = await t.newPage({ viewport: { width: 640, height: 480 } });
      await openApp(page, `${embedQuery}&controls=1`, 'dl.key-numbers');
      equal(await page.locator('header').count(), 0, 'header elements');
      equal(await page.locator('nav').count(), 0, 'nav elements');
      assert(await page.locator('form.controls').first().isVisible(), 'form.controls is not visible');
      await t.shot(page, 'embed-slots-controls', { fullPage: false });
    });

    // 6 -------------------------------------------------------------------------
    await check('docs embed example sizes its iframes from the height messages', async (t) => {
      const page = await t.newPage();
      // Records which iframe sent each stampede:height, to prove heights come from messages.
      await page.addInitScript(() => {
        if (window !== window.top) return;
        window.__stampedeHeights = [];
        window.addEventListener('message', (e) => {
          if (e.data?.type !== 'stampede:height') return;
          const frames = [...document.querySelectorAll('iframe.stampede')];
          window.__stampedeHeights.push({
            frame: frames.findIndex((f) => f.contentWindow === e.source),
            height: e.data.height,
          });
        });
      });
      await page.goto(`${BASE}embed-example.html`);
      const srcs = await page.$$eval('iframe.stampede', (fs) => fs.map((f) => f.getAttribute('src') ?? ''));
      assert(srcs.length >= 2, `expected two iframe.stampede, found ${srcs.length}`);
      for (const src of srcs) {
        assert(!/^(\/|[a-z]+:)/i.test(src), `iframe src ${JSON.stringify(src)} is not relative`);
      }
      // The example's frames are loading="lazy": visit each, as a reader scrolling would.
      for (let i = 0; i < srcs.length; i++) {
        await page.locator('iframe.stampede').nth(i).scrollIntoViewIfNeeded();
      }
      const state = () =>
        page.evaluate(() => {
          const frames = [...document.querySelectorAll('iframe.stampede')];
          const heard = new Set((window.__stampedeHeights ?? []).map((m) => m.frame));
          const heights = frames.map((f) => parseFloat(f.style.height || f.getAttribute('height') || '0'));
          return { heights, heard: [...heard], ok: frames.every((_, i) => heard.has(i) && heights[i] > 100) };
        });
      try {
        await poll(async () => (await state()).ok, 'both iframes to get a height over 100 px', 20_000);
      } catch (e) {
        const s = await state();
        throw new Error(`${e.message}; heights ${JSON.stringify(s.heights)}, messages from iframes ${JSON.stringify(s.heard)}`);
      }
      await page.waitForLoadState('networkidle').catch(() => {});
      await page.waitForTimeout(400);
      await t.shot(page, 'embed-example');
    });

    // 7 -------------------------------------------------------------------------
    await check('dark colour scheme gives a dark page', async (t) => {
      const page = await t.newPage({ colorScheme: 'dark' });
      await openApp(page, '?v=1&p=poisson');
      const bg = await page.evaluate(() => {
        // Painting the colour on a canvas turns any CSS colour syntax (oklch, color-mix...) into sRGB.
        const ctx = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d');
        for (const el of [document.body, document.documentElement]) {
          const css = getComputedStyle(el).backgroundColor;
          ctx.clearRect(0, 0, 1, 1);
          ctx.fillStyle = css;
          ctx.fillRect(0, 0, 1, 1);
          const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
          if (a > 0) return { element: el.tagName.toLowerCase(), css, rgb: [r, g, b] };
        }
        return null;
      });
      assert(bg, 'neither body nor html has a background colour');
      const sum = bg.rgb.reduce((a, b) => a + b, 0);
      assert(sum < 200, `${bg.element} background ${bg.css} is not dark (r+g+b = ${sum})`);
      await t.shot(page, 'dark-poisson');
    });

    // 8 -------------------------------------------------------------------------
    await check('keyboard: Tab reaches the n field and the copy-link button', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=poisson');
      const visited = [];
      const want = ['f-n', 'copy-link'];
      for (let i = 0; i < 40 && !want.every((id) => visited.includes(id)); i++) {
        await page.keyboard.press('Tab');
        visited.push(
          await page.evaluate(() => {
            const el = document.activeElement;
            return el?.id || el?.tagName.toLowerCase() || 'none';
          }),
        );
      }
      for (const id of want) {
        assert(visited.includes(id), `#${id} never got focus; focus went ${visited.join(' > ')}`);
      }
    });

    // 9 -------------------------------------------------------------------------
    await check('copy link puts the page URL on the clipboard', async (t) => {
      const page = await t.newPage();
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
      await openApp(page, '?v=1&p=poisson&s=42');
      await page.waitForTimeout(800); // let the debounced address-bar update settle first
      await page.click('#copy-link');
      const readClipboard = () =>
        page.evaluate(async () => {
          try {
            return { text: await navigator.clipboard.readText() };
          } catch (e) {
            return { error: String(e) };
          }
        });
      const first = await readClipboard();
      if ('text' in first) {
        let last = first.text;
        try {
          await poll(async () => {
            last = (await readClipboard()).text;
            return last === page.url();
          }, 'the clipboard to hold the page URL', 3000);
        } catch {
          throw new Error(`clipboard holds ${JSON.stringify(last)}, page URL is ${JSON.stringify(page.url())}`);
        }
      } else {
        // Some headless setups cannot read the clipboard; the button's feedback is the next best proof.
        console.log(`# clipboard not readable (${first.error}); checking the button text instead`);
        await poll(
          async () => /copied/i.test((await page.textContent('#copy-link')) ?? ''),
          '#copy-link to say "Copied"',
          3000,
        );
      }
    });

    // 10 ------------------------------------------------------------------------
    // The workbench: a control and its chart in one view, notices at the field,
    // Back between panels, and an embed of one figure that another site pastes.
    const top = (page, selector) =>
      page.$eval(selector, (el) => {
        const box = el.getBoundingClientRect();
        return { top: box.top, bottom: box.bottom, left: box.left, visible: box.width > 0 && box.height > 0 };
      });
    for (const slug of SLUGS) {
      await check(`workbench ${slug} at 1280×900: a control and the first chart share the first screen`, async (t) => {
        const page = await t.newPage({ viewport: { width: 1280, height: 900 } });
        await openApp(page, `?v=1&p=${slug}`);
        const chart = await top(page, '#figure canvas');
        const control = await top(page, '.controls-column .control-slot:not([hidden]) :is(input, select)');
        const toolbar = await top(page, '#copy-link');
        assert(chart.visible && chart.top < 900 - 80, `the first chart starts at ${Math.round(chart.top)} px`);
        assert(control.visible && control.bottom < 900, `the first control ends at ${Math.round(control.bottom)} px`);
        assert(control.left < chart.left, 'the controls are not beside the figures');
        assert(toolbar.bottom < 300, `Copy link is at ${Math.round(toolbar.top)} px`);
        // The controls stay in view while the figures scroll, down to the last chart.
        await page.$$eval('#figure .chart-block', (blocks) => blocks.at(-1).scrollIntoView({ block: 'end' }));
        await page.waitForTimeout(300);
        const scrolled = await top(page, '.controls-column .control-slot:not([hidden]) :is(input, select)');
        assert(scrolled.top >= 0 && scrolled.bottom < 900, `at the last chart, the first control is at ${Math.round(scrolled.top)} px`);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(300);
        await t.shot(page, `bench-${slug}`, { fullPage: false });
      });
      await check(`workbench ${slug} at 390×844: the first chart on the first screen, the controls in a sheet`, async (t) => {
        const page = await t.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
        await openApp(page, `?v=1&p=${slug}`);
        const chart = await top(page, '#figure canvas');
        assert(chart.visible && chart.top < 844 - 60, `the first chart starts at ${Math.round(chart.top)} px`);
        assert(!(await page.locator('#controls-sheet').isVisible()), 'the controls show before the button is pressed');
        await t.shot(page, `phone-${slug}`, { fullPage: false });
        await page.click('.sheet-toggle');
        await poll(() => page.locator('#controls-sheet .controls').isVisible(), 'the controls sheet to open');
        const sheet = await top(page, '#controls-sheet');
        assert(sheet.top > 100 && sheet.top < 844, `the sheet starts at ${Math.round(sheet.top)} px`);
        await t.shot(page, `phone-${slug}-controls`, { fullPage: false });
      });
    }

    await check('a notice appears beside the field that caused it, and clears when the field changes', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=queue');
      await queueDone(page);
      // A million accounts would start too many jobs: the simulated time is cut, and
      // the reader hears it at the field they typed in, and at the one adjusted.
      await page.fill('#f-n', '1000000');
      await page.locator('#f-n').dispatchEvent('change');
      await poll(() => page.locator('.control-slot:has(#f-n) .field-notice').isVisible(), 'a notice at the accounts field');
      const field = await top(page, '#f-n');
      const notice = await top(page, '.control-slot:has(#f-n) .field-notice');
      const distance = Math.max(0, notice.top - field.bottom, field.top - notice.bottom);
      assert(distance <= 200, `the notice is ${Math.round(distance)} px from its field`);
      const text = await page.textContent('.control-slot:has(#f-n) .field-notice');
      assert(/\(hz\)/.test(text), `the notice does not name the simulated time: ${text}`);
      assert((await page.locator('#notices li.notice').count()) >= 1, 'no notice in the summary');
      await t.shot(page, 'notice-at-field', { fullPage: false });
      await page.fill('#f-n', '2000');
      await page.locator('#f-n').dispatchEvent('change');
      await poll(async () => (await page.locator('.field-notice').count()) === 0, 'the notice to clear');
      equal(await page.locator('#notices li.notice').count(), 0, 'notices in the summary after the change');
    });

    await check('embed picker: one figure as <stampede-figure>, pasted on a page from another port, loads when near and fits its height', async (t) => {
      const page = await t.newPage();
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
      await openApp(page, '?v=1&p=queue&s=1');
      await page.click('#embed-button');
      await poll(() => page.locator('#embed-dialog').isVisible(), 'the embed dialog to open');
      await page.selectOption('#embed-figure', 'depth');
      await page.check('#embed-controls');
      await page.uncheck('#embed-controls');
      await page.selectOption('#embed-theme', 'dark');
      await page.selectOption('#embed-form', 'iframe');
      const iframeSnippet = await page.inputValue('#embed-snippet');
      assert(/^<iframe class="stampede"/.test(iframeSnippet), `iframe snippet: ${iframeSnippet}`);
      await page.selectOption('#embed-form', 'element');
      const snippet = await page.inputValue('#embed-snippet');
      assert(
        /^<script type="module" src="http:[^"]+\/stampede-figure\.js"><\/script>\n<stampede-figure src="[^"]*fig=depth[^"]*theme=dark/.test(snippet),
        `snippet: ${snippet}`,
      );
      const preview = page.frameLocator('#embed-dialog iframe');
      await preview.locator('#fig-depth canvas').waitFor({ timeout: 20_000 });
      await page.click('#copy-embed');
      await poll(async () => /copied/i.test((await page.textContent('#copy-embed')) ?? ''), '"Copied ✓"', 3000);
      await page.waitForTimeout(800);
      await t.shot(page, 'embed-picker', { fullPage: false });

      // Another site: a page on its own port with nothing but the snippet,
      // the figure far below the first screen.
      const other = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><title>Docs</title><h1>Our runbook</h1><div style="height:3000px">Scroll down.</div>${snippet}<p>After the figure.</p>`,
        );
      });
      await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
      try {
        const docs = await t.newPage();
        await docs.goto(`http://127.0.0.1:${other.address().port}/`);
        const element = docs.locator('stampede-figure');
        await poll(() => element.evaluate((e) => !!e.shadowRoot?.querySelector('.placeholder')), 'the placeholder');
        equal(await element.evaluate((e) => e.shadowRoot.querySelector('iframe')), null, 'an iframe before the figure is near');
        equal(await element.evaluate((e) => e.getBoundingClientRect().height), 360, 'the placeholder height');
        await element.scrollIntoViewIfNeeded();
        const frame = docs.frameLocator('stampede-figure iframe');
        await frame.locator('#fig-depth canvas').waitFor({ timeout: 30_000 });
        equal(await frame.locator('canvas').count(), 1, 'charts in the embed');
        equal(await frame.locator('html').getAttribute('data-theme'), 'dark', 'the embed theme');
        const heights = () =>
          Promise.all([
            element.evaluate((e) => parseFloat(e.shadowRoot.querySelector('iframe').style.height)),
            frame.locator('body').evaluate((body) => body.offsetHeight),
          ]);
        await poll(async () => {
          const [frameHeight, reported] = await heights();
          return reported > 100 && Math.abs(frameHeight - reported) <= 1;
        }, 'the iframe to take the height the embed reports', 20_000);
        const [frameHeight] = await heights();
        assert(frameHeight < 900, `the one-figure embed is ${frameHeight} px tall`);
        await docs.waitForTimeout(500);
        await t.shot(docs, 'embed-one-figure', { fullPage: false });
      } finally {
        other.close();
      }
    });

    await check('<stampede-figure> without a theme follows the colour scheme of the page it is on', async (t) => {
      const src = `${BASE}?v=1&p=jitter&s=1&fig=arrivals`;
      const other = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><meta name="color-scheme" content="light"><title>Docs</title>` +
            `<script type="module" src="${BASE}stampede-figure.js"></script>` +
            `<stampede-figure src="${src.replace(/&/g, '&amp;')}"></stampede-figure>`,
        );
      });
      await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
      try {
        // The reader's system is dark; the page says light.
        const docs = await t.newPage({ colorScheme: 'dark' });
        await docs.goto(`http://127.0.0.1:${other.address().port}/`);
        const frame = docs.frameLocator('stampede-figure iframe');
        await frame.locator('#fig-arrivals canvas').waitFor({ timeout: 30_000 });
        equal(await frame.locator('html').getAttribute('data-theme'), 'light', 'the embed theme');
      } finally {
        other.close();
      }
    });

    await check('the footer links the embed example at the build root', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=poisson');
      await page.click('footer a[href="embed-example.html"]');
      await page.waitForURL(/embed-example\.html$/);
      assert(page.url() === `${BASE}embed-example.html`, `the link went to ${page.url()}`);
      assert((await page.locator('iframe.stampede[src*="fig=depth"]').count()) === 1, 'no single Queue chart on the example');
    });

    await check('hash: a 2,000-line paste reads 2,000 ids, the link carries the first, drops are named', async (t) => {
      const page = await t.newPage({ viewport: { width: 1280, height: 1100 } });
      await openApp(page, '?v=1&p=hash&s=1');
      // A spreadsheet column, one id a line.
      const column = Array.from({ length: 2000 }, (_, i) => `account-${1000 + i}`);
      await pasteInto(page, '#f-ids', column.join('\r\n'));
      const status = () => page.textContent('#f-ids-status');
      const said = await poll(async () => (await status()).match(/^2,000 ids read; a link carries the first (\d+) of them/), 'the status to say 2,000 ids read');
      const carried = Number(said[1]);
      assert(carried > 100 && carried < 2000, `the link carries ${carried} ids`);
      await poll(async () => (await keyNumberMap(page)).keys === '2,000 pasted ids', 'the key number to say 2,000 pasted ids');
      equal((await page.inputValue('#f-ids')).split('\n').length, 2000, 'lines in the text area');
      await poll(() => queryParam(page, 'ids') === column.slice(0, carried).join(','), `the first ${carried} ids in the URL`, 3000);
      // Repeats and an over-long id are dropped, and the page says why.
      await pasteInto(page, '#f-ids', `${column.join('\n')}\naccount-1000, account-1001\t${'x'.repeat(300)}`);
      const notice = await poll(
        () => page.$$eval('#notices li.notice', (lis) => lis.map((li) => li.textContent).find((s) => s.includes('(ids): '))),
        'a notice about the ids',
      );
      assert(
        notice.includes('2,000 ids read, 3 dropped: 2 repeated (first "account-1000"), 1 longer than 256 characters'),
        `the notice reads ${JSON.stringify(notice)}`,
      );
      await page.locator('#f-ids').scrollIntoViewIfNeeded();
      await t.shot(page, 'hash-ids-pasted');
    });

    // 10b -----------------------------------------------------------------------
    await fleetChecks({ check, openApp, BASE, ORIGIN, STAMPEDE });
    await learnChecks({ check, openApp, BASE });
    await keyboardChecks({ check, openApp, ORIGIN });

    // 11 ------------------------------------------------------------------------
    await check('history: Back after a panel switch returns to that panel and its parameters', async (t) => {
      const page = await t.newPage();
      await openApp(page, '?v=1&p=jitter&s=12345&n=5000');
      const entries = () => page.evaluate(() => history.length);
      const before = await entries();
      // A change whose address-bar update is still waiting when the switch comes.
      await page.fill('#f-n', '7000');
      await page.dispatchEvent('#f-n', 'change');
      await page.click('nav a[data-panel="hash"]');
      await waitReady(page, 'section#panel[data-panel="hash"]');
      equal(await entries(), before + 1, 'history entries after a change and a switch');
      equal(queryParam(page, 'p'), 'hash', 'p after the switch');
      await page.goBack();
      await waitReady(page, 'section#panel[data-panel="jitter"]');
      await expectNumber(page, '#f-n', 7000, 'after Back');
      equal(queryParam(page, 'n'), '7000', 'n in the URL after Back');
      equal(await page.getAttribute('nav a[data-panel="jitter"]', 'aria-current'), 'page', 'aria-current after Back');
      await page.goForward();
      await waitReady(page, 'section#panel[data-panel="hash"]');
      equal(queryParam(page, 'p'), 'hash', 'p after Forward');
    });
  }

  // 12 ------------------------------------------------------------------------
  await check('skeleton: index.html paints the header, the panel links and a loading line; the app replaces it', async (t) => {
    const html = await (await fetch(BASE)).text();
    for (const slug of SLUGS) assert(html.includes(`href="?p=${slug}"`), `index.html has no link to ?p=${slug}`);
    assert(html.includes('Loading the playground…'), 'index.html has no loading line');
    assert(html.includes('<noscript>'), 'index.html has no <noscript>');
    const header = (page) =>
      page.evaluate(() => ({
        h1: document.querySelector('header h1')?.textContent.trim(),
        purpose: document.querySelector('header .purpose')?.textContent.trim(),
        links: [...document.querySelectorAll('header nav a')].map((a) => `${a.textContent.trim()} ${new URL(a.href).searchParams.get('p')}`),
      }));
    // Before the wasm arrives: it never does here.
    let skeleton;
    for (const colorScheme of ['light', 'dark']) {
      const page = await t.newPage({ colorScheme });
      await page.route('**/*.wasm', () => {});
      await page.goto(`${BASE}?v=1&p=hash`);
      await page.waitForSelector('#skeleton .skeleton-loading', { state: 'visible' });
      skeleton = await header(page);
      await t.shot(page, `skeleton-${colorScheme}`, { fullPage: false });
    }
    equal(skeleton.links.length, SLUGS.length + 1, 'links in the skeleton (the panels and Learn)');
    // Without JavaScript: the message, and no loading line.
    const off = await t.newPage({ javaScriptEnabled: false });
    await off.goto(BASE);
    assert(/needs JavaScript/.test((await off.textContent('#skeleton main')) ?? ''), 'no <noscript> message without JavaScript');
    assert(!(await off.isVisible('.skeleton-loading')), 'the loading line shows without JavaScript');
    await t.shot(off, 'skeleton-noscript', { fullPage: false });
    // Once mounted: the app's own header, equal to the skeleton's, once.
    const page = await t.newPage();
    await openApp(page, '?v=1&p=hash');
    for (const selector of ['#skeleton', '.skeleton-loading']) equal(await page.locator(selector).count(), 0, `${selector} after mount`);
    for (const selector of ['h1', 'header', 'nav', 'main']) equal(await page.locator(selector).count(), 1, `${selector} elements after mount`);
    const app = await header(page);
    equal(JSON.stringify(app), JSON.stringify(skeleton), 'the app header against the skeleton');
  });

  // 13 ------------------------------------------------------------------------
  await check('first paint: the skeleton, and the first figure on a slow device (figures)', async () => {
    const plain = await firstPaintTimes(browser, `${BASE}?v=1&p=jitter&s=1`);
    const slow = await firstPaintTimes(browser, `${BASE}?v=1&p=jitter&s=1`, { slow: true });
    const ms = (value) => `${Math.round(value)} ms`;
    console.log(`# figure: first paint ${ms(plain.firstPaint)}, first figure ${ms(plain.firstChart)} after navigation`);
    console.log(
      `# figure: with ${SLOW_DEVICE.cpuRate}× CPU slowdown and ${SLOW_DEVICE.downloadBitsPerSecond / 1e6} Mbit/s: ` +
        `first paint ${ms(slow.firstPaint)}, first figure ${ms(slow.firstChart)}`,
    );
  });

  await check('offline: after one visit the app opens and works with the network off', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=jitter&s=1');
    // The service worker takes over once it has kept the build's files.
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          if (navigator.serviceWorker.controller) return resolve();
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true });
        }),
    );
    await page.context().setOffline(true);
    try {
      for (const [query, ready] of [
        ['?v=1&p=jitter&s=1', '#panel'],
        // Both workers load from the kept files too.
        ['?v=1&p=queue&s=1&n=20000', '[data-run-status="done"]'],
        ['?v=1&p=fleet&s=1', '#fleet-status[data-status="idle"]'],
      ]) {
        await page.goto(BASE + query);
        await page.waitForSelector(ready, { timeout: 30_000, state: 'attached' });
        await page.waitForTimeout(400);
        equal((await blankCanvases(page)).join(', '), '', `blank charts offline at ${query}`);
      }
      await t.shot(page, 'offline-fleet');
    } finally {
      await page.context().setOffline(false);
    }
  });

  await check('docs module: a plain page imports it and gets the numbers', async (t) => {
    assert(
      fs.existsSync(path.join(DIST, 'js', 'stampede.js')),
      `${path.relative(REPO, DIST)}/js/stampede.js is missing: trunk build runs scripts/build-js as a post_build hook`,
    );
    const page = await t.newPage();
    await page.goto(`${BASE}js/js-module.html`);
    const results = await poll(() => page.evaluate(() => window.__results), 'window.__results', 20_000);
    const value = (name) => {
      const entry = results[name] ?? results.init;
      if (!entry) throw new Error(`no result for ${name}`);
      if (entry.error) throw new Error(`${name} threw: ${entry.error.message}`);
      return entry.value;
    };
    const thrown = (name) => {
      const entry = results[name];
      if (!entry?.error) throw new Error(`${name} did not throw; it returned ${JSON.stringify(entry?.value)}`);
      assert(entry.error.isError, `${name} threw something that is not an Error: ${entry.error.message}`);
      return entry.error.message;
    };

    const poisson = value('poisson');
    equal(poisson.panel, 'poisson', 'poisson().panel');
    // defer keeps the daily rate: 300 a day.
    equal(poisson.rate, 300 / 86400, 'poisson({n: 300, wp: "defer"}).rate_per_second');
    assert(poisson.events > 0 && poisson.deferred > 0, `poisson ran ${poisson.events} events, deferred ${poisson.deferred}`);

    const jitter = value('jitter');
    equal(jitter.panel, 'jitter', 'jitter().panel');
    equal(jitter.flatRate.toFixed(3), '5.556', 'jitter({n: 10000, lo: 0, hi: 30}).flat_rate_per_second');
    equal(jitter.jobs, 10000, 'jobs counted in jitter().per_second');

    const backoff = value('backoff');
    equal(backoff.panel, 'backoff', 'backoff().panel');
    equal(backoff.bands, 8, 'backoff().fleets[0].bands.length (8 retries by default)');
    equal(backoff.timelineCalls, backoff.calls, 'calls in backoff().fleet.timeline');

    // MurmurHash3 of "a", "" and "abc" (core/tests/data/hash_vectors.tsv), mod 3600.
    equal(
      JSON.stringify(value('spread')),
      JSON.stringify([
        { key: 'a', hash: 1009084850, offset: 1250 },
        { key: '', hash: 0, offset: 0 },
        { key: 'abc', hash: 3017643002, offset: 602 },
      ]),
      'spread({fn: "murmur", window: 3600})',
    );
    // Ruby's Random.new(1).rand(3600) (core/tests/data/spread_ruby.tsv); no hash.
    equal(JSON.stringify(value('spreadRuby')), '[{"key":"1","hash":null,"offset":1061}]', 'spread({fn: "ruby"})');

    const slots = value('slots');
    equal(slots.panel, 'slots', 'slots().panel');
    // gcd(28,800, 65,535) = 15 slots of 1,920 s; the plan enqueues the 15 per-slot jobs and every account.
    equal(`${slots.slots} x ${slots.slotSeconds}`, '15 x 1920', 'slots() slots x slot_seconds');
    equal(slots.ingress, 1015, 'jobs entering the queue in slots().plan.ingress_slotted');

    // The URL's lenient rules: n=abc keeps the default 10,000 and says so.
    const fromUrl = value('run');
    equal(fromUrl.panel, 'jitter', 'run(url).result.panel');
    equal(fromUrl.jobs, 10000, 'run(url).result.run_at.length');
    equal(JSON.stringify(fromUrl.notices), '["n"]', 'keys of run(url).notices');
    // The same seed and parameters draw the same jobs, by URL or by object.
    equal(fromUrl.first, jitter.first, 'first job of run(url) and of jitter({...})');

    equal(thrown('badValue'), 'n: 5000000 is above the maximum 1000000', 'poisson({n: 5000000}) error');
    const unknown = thrown('unknownKey');
    assert(unknown.startsWith('zzz: '), `jitter({zzz: 1}) error does not name zzz: ${unknown}`);
    const badHash = thrown('badHash');
    assert(badHash.startsWith('fn: "md5" is not one of'), `spread({fn: "md5"}) error: ${badHash}`);
    const badWindow = thrown('badWindow');
    assert(badWindow.startsWith('window: '), `spread({window: 0}) error does not name the window: ${badWindow}`);
    const badQuery = thrown('badQuery');
    assert(badQuery.startsWith('query: '), `run(42) error does not name the query: ${badQuery}`);

    // The fleet module places the same starts in Chromium as the command
    // line does natively, to the microsecond.
    const fleetText = await page.evaluate(() => window.FLEET_TEXT);
    const cli = execFileSync(STAMPEDE, ['fleet', '--from', '2025-03-29T00:00:00Z', '--hours', '48', '--starts'], {
      input: fleetText,
      stdio: ['pipe', 'pipe', 'ignore'],
    }).toString();
    const fleet = value('fleet');
    // RFC 3339 to the microsecond, as the command line writes it: the
    // fraction's trailing zeros dropped, none for a whole second.
    const rfc3339 = (atMicros) => {
      const micros = ((atMicros % 1e6) + 1e6) % 1e6;
      const whole = new Date((atMicros - micros) / 1000).toISOString().replace('.000Z', '');
      const fraction = micros ? `.${String(micros).padStart(6, '0').replace(/0+$/, '')}` : '';
      return `${whole}${fraction}Z`;
    };
    const browserStarts = fleet.starts.map(([line, id, atMicros]) => `${line}\t${id}\t${rfc3339(atMicros)}`).join('\n');
    equal(browserStarts, cli.trimEnd(), 'fleet() starts against stampede fleet --starts');
    equal(JSON.stringify(fleet.skipped), '[[4,"spec"]]', 'fleet().skipped');
    assert(fleet.starts.length > 11_000, `fleet() placed only ${fleet.starts.length} starts`);
    const systems = new Set(fleet.starts.map(([line]) => line));
    equal(JSON.stringify([...systems].sort((a, b) => a - b)), '[1,2,3,5,6,7,8]', 'lines with starts in fleet()');
    const badFleet = thrown('badFleetOption');
    assert(badFleet.startsWith('hours: '), `fleet({hours: 0}) error does not name hours: ${badFleet}`);
    const badFormat = thrown('badFleetFormat');
    assert(badFormat.startsWith('format: "xml" is not one of'), `fleet({format: "xml"}) error: ${badFormat}`);
  });

  // ---------------------------------------------------------------------------
  await check('no page errors or console errors', async () => {
    assert(errors.length === 0, `${errors.length} error(s):\n${errors.join('\n')}`);
  });
  if (errors.length) for (const e of errors) console.log(`#   ${e}`);

  await browser.close();
  server.close();
  console.log(`# ${passed} passed, ${failed.length} failed`);
  if (failed.length) console.log(`# failed: ${failed.join('; ')}`);
  process.exitCode = failed.length ? 1 : 0;
}

// Importable without side effects, e.g. to try the server on its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
