// What the browser tests (specs/, under Playwright Test) and the browser
// benchmarks (bench.mjs, profile-drag.mjs, arrivals.mjs) share: where the
// build, the command line and the screenshots are, how Chromium starts,
// the static server, and the page helpers that wait on what the app marks
// when it has settled (charts no longer `data-stale`, the address bar
// caught up with the state). Nothing here depends on Playwright Test, so
// the benchmarks run as plain Node scripts.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { startStaticServer } from '../../scripts/static-server.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// E2E_DIST runs the tests against another build, e.g. the quick tier's debug one.
export const DIST = path.resolve(process.env.E2E_DIST ?? path.join(REPO, 'dist'));
export const SHOTS = path.join(REPO, 'target', 'screenshots');
// The command line, whose numbers the pages must show (built by the cargo
// run that writes the presets).
export const STAMPEDE = path.resolve(process.env.E2E_STAMPEDE ?? path.join(REPO, 'target', 'debug', 'stampede'));
const PRESETS = path.resolve(process.env.E2E_PRESETS ?? path.join(REPO, 'target', 'presets.json'));
// The build is served under this path, as on the docs site, so a build that
// refers to its assets by absolute path fails.
export const PREFIX = '/docs/stampede/';

export const SLUGS = ['poisson', 'jitter', 'backoff', 'hash', 'slots', 'queue', 'fleet'];
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
// A week of 100,000 accounts synced every 13 h on 15 workers, about 1.3M
// jobs at ρ ≈ 0.8, run in the worker.
export const WEEK_RUN = '?v=1&p=queue&s=1&n=100000&w=15&cyc=780&hz=168&dm=5.6&d90=11&vs=';

/** How the tests and benchmarks launch Chromium: Debian's, never a download. */
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

/**
 * Serves `root` under `prefix` on 127.0.0.1 at an ephemeral port, as a plain
 * static host would (scripts/static-server.mjs), but never cached.
 * `extras` maps paths under `prefix` to files outside `root` served there too.
 */
export const startServer = (root, prefix = PREFIX, extras = {}) =>
  startStaticServer({ root, prefix, extras, caching: 'none' });

/**
 * Every preset with the key numbers core computes for it, as `stampede
 * presets` writes them (scripts/test writes the file before the tests;
 * when it is missing, this writes it, building the command line).
 */
export function readPresets() {
  if (!fs.existsSync(PRESETS)) {
    const json = execFileSync('cargo', ['run', '-q', '-p', 'stampede-cli', '--', 'presets'], {
      cwd: REPO,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    fs.mkdirSync(path.dirname(PRESETS), { recursive: true });
    fs.writeFileSync(PRESETS, json);
  }
  return JSON.parse(fs.readFileSync(PRESETS, 'utf8'));
}

/** `stampede ARGS` as JSON; `input` goes to its stdin, its notices (stderr) are dropped. */
export const stampedeJson = (args, input) =>
  JSON.parse(
    execFileSync(STAMPEDE, args, {
      input,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'],
    }),
  );

// --- Waiting for the page to settle -------------------------------------------

/** Resolves at the page's next animation frame: the one after what was just done. */
export const nextFrame = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));

/**
 * Waits until no chart waits to be drawn: a chart out of view is redrawn
 * only once it comes into view or the changes stop (`data-stale` meanwhile).
 */
export const chartsCaughtUp = (page, timeout = 10_000) =>
  page.waitForFunction(() => !document.querySelector('canvas[data-stale]'), null, { timeout });

/**
 * Waits until the address bar holds the state the page shows: the app
 * rewrites it 300 ms after the last change, and the link that holds the
 * state (the open panel's, or an embed's "Open in Stampede") follows the
 * state at once. The view's own keys (embed, controls, fig, theme) are
 * left out, as the embed's link leaves them out. A page with neither link
 * (a Learn step) has nothing to wait for.
 */
export const addressSettled = (page, timeout = 10_000) =>
  page.waitForFunction(
    () => {
      const link = document.querySelector('nav a[aria-current="page"][data-panel]:not(.learn-link), .open-full a');
      if (!link) return true;
      const params = (search) => {
        const all = new URLSearchParams(search);
        for (const key of ['embed', 'controls', 'fig', 'theme']) all.delete(key);
        return [...all].map(([key, value]) => `${key}=${value}`).sort().join('&');
      };
      return params(location.search) === params(new URL(link.href).search);
    },
    null,
    { timeout },
  );

/**
 * Opens `url` and waits until the wasm has rendered `ready`, the charts are
 * drawn and the address bar has caught up with the state.
 */
export async function openApp(page, url, ready = '#panel') {
  await page.goto(url);
  await appSettled(page, ready);
}

/** Waits until `ready` is there (the first load compiles the wasm: generous), then as openApp. */
export async function appSettled(page, ready = '#panel') {
  await page.waitForSelector(ready, { timeout: 30_000, state: 'attached' });
  await chartsCaughtUp(page);
  await addressSettled(page);
}

/** Waits for the Queue panel's run to finish. */
export const queueDone = (page, timeout = 30_000) =>
  page.waitForSelector('[data-run-status="done"]', { timeout, state: 'attached' });

/** Waits until the Fleet worker has answered the newest request, every stage. */
export const fleetSettled = (page, timeout = 20_000) =>
  page.waitForSelector('#fleet-status[data-status="idle"]', { timeout, state: 'attached' });

/**
 * Waits until the service worker has kept the build's files: it downloads
 * them once the first figure is in, which a measurement must not share
 * the page with.
 */
export const serviceWorkerReady = (page, timeout = 30_000) =>
  page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true), null, { timeout });

// --- Reading the page -----------------------------------------------------------

/** Canvases of #figure (of `page`, a page or a frame) that are blank: every pixel the same colour. */
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

/** A short fingerprint of every chart's pixels, to notice a redraw. */
export const canvasPixels = async (page) => {
  await chartsCaughtUp(page);
  return page.$$eval('#figure canvas', (canvases) => canvases.map((c) => c.toDataURL()).join('|'));
};

/** The key numbers as {key: text}. */
export const keyNumberMap = (page) =>
  page.$$eval('dd[data-key]', (dds) => Object.fromEntries(dds.map((dd) => [dd.dataset.key, dd.textContent.trim()])));

export const queryParam = (page, key) => new URL(page.url()).searchParams.get(key);

// --- Acting on the page ---------------------------------------------------------

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

/**
 * Drags the `key` slider as a reader does: press at 30 % of its track, then
 * sweep `span` of the track in `moves` steps a frame apart. Returns every
 * update the figure recorded meanwhile (from the change to the last chart
 * drawn, its `data-update-ms`), sorted, once the address bar holds where
 * the slider stopped and every chart is drawn.
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
    await nextFrame(page);
  }
  await page.mouse.up();
  await addressSettled(page);
  await chartsCaughtUp(page);
  const updates = await page.evaluate(() => window.__updates.filter(Number.isFinite));
  return updates.sort((a, b) => a - b);
}

// --- The Fleet's worker ----------------------------------------------------------

/** The link fragment (without `#`) that carries `text`, as core's `link::encode` writes it. */
export const fragmentOf = (text) => `1${deflateRawSync(text, { level: 9 }).toString('base64url')}`;

/**
 * Counts what the page's fleet workers do, in `window.__fleet`: `started`,
 * the workers started; `taken`, the requests they say they took (once a
 * request is taken, the worker is on it); `texts`, the texts they reply
 * with. Each message is postcard bytes starting with its variants'
 * indexes (src/messages/fleet.rs): `Message::Taken` is 1;
 * `Message::Reply(id, Reply::Text(…))` is 2, the id, then 0.
 */
export const countFleetMessages = (page) =>
  page.addInitScript(() => {
    const counts = (window.__fleet = { started: 0, taken: 0, texts: 0 });
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(url, ...rest) {
        super(url, ...rest);
        if (!String(url).includes('fleet-worker')) return;
        counts.started++;
        this.addEventListener('message', ({ data }) => {
          if (!(data instanceof Uint8Array)) return;
          if (data[0] === 1) counts.taken++;
          if (data[0] === 2 && data[1] < 0x80 && data[2] === 0) counts.texts++;
        });
      }
    };
  });

/**
 * Starts recording the gaps between animation frames in the page; the
 * returned function stops and gives the longest gap in ms and how many
 * frames were drawn.
 */
export async function watchFrames(page) {
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

// --- Figures ----------------------------------------------------------------------

/** Throttling of a slow laptop on a poor link: 4× slower CPU, 1.6 Mbit/s down. */
export const SLOW_DEVICE = { cpuRate: 4, downloadBitsPerSecond: 1.6e6, uploadBitsPerSecond: 750e3, latencyMs: 40 };

/**
 * Loads `url` in a fresh context of `browser` (throttled as SLOW_DEVICE
 * when `slow`) and returns, in ms from navigation: `firstPaint`, the first
 * contentful paint (the skeleton of index.html), and `firstChart`, the
 * first frame in which a chart of #figure is not blank. With `trace`
 * ({ path, categories }), Chromium traces the load into `path`.
 */
export async function firstPaintTimes(browser, url, { slow = false, trace } = {}) {
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
    // The page reports both times in one console message: waiting with
    // page.waitForFunction would inject Playwright's scripts into the page
    // while it loads, which costs its main thread 20-60 ms here.
    await page.addInitScript(() => {
      let firstPaint;
      let firstChart;
      const report = () => {
        if (firstPaint !== undefined && firstChart !== undefined) {
          console.log(`stampede-first-chart ${JSON.stringify({ firstPaint, firstChart })}`);
        }
      };
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.name === 'first-contentful-paint') {
            firstPaint = entry.startTime;
            report();
          }
        }
      }).observe({ type: 'paint', buffered: true });
      // Only canvases the app has drawn on are read: reading a blank one
      // costs the frame several ms, and opening its context first would
      // take the app's choice of context attributes.
      const drawn = new WeakSet();
      const proto = CanvasRenderingContext2D.prototype;
      for (const name of ['fill', 'fillRect', 'fillText', 'stroke', 'strokeRect', 'strokeText', 'drawImage', 'putImageData']) {
        const draw = proto[name];
        proto[name] = function (...args) {
          drawn.add(this.canvas);
          return draw.apply(this, args);
        };
      }
      const notBlank = (c) => {
        if (!drawn.has(c) || c.width === 0 || c.height === 0) return false;
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 4; i < data.length; i += 4) {
          if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) return true;
        }
        return false;
      };
      const look = () => {
        const now = performance.now();
        if ([...document.querySelectorAll('#figure canvas')].some(notBlank)) {
          firstChart = now;
          report();
        } else {
          requestAnimationFrame(look);
        }
      };
      requestAnimationFrame(look);
    });
    const reported = page.waitForEvent('console', {
      predicate: (message) => message.text().startsWith('stampede-first-chart '),
      timeout: 60_000,
    });
    if (trace) await browser.startTracing(page, trace);
    await page.goto(url, { waitUntil: 'commit' });
    const text = (await reported).text();
    if (trace) await browser.stopTracing();
    return JSON.parse(text.slice(text.indexOf(' ') + 1));
  } finally {
    await context.close();
  }
}

export function percentile(sorted, p) {
  const at = (sorted.length - 1) * p;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

/** The median of `values`, in any order. */
export const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5);
