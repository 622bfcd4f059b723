// Hostile input against the build: 200 malformed or extreme URLs, huge
// or binary pastes into the Hash panel's ids, a panic, a network that must
// never be used, and an embedding page that posts messages to the iframe.
// A dialog (alert, confirm) fails the test it opens in, as any page error does.

import { expect, test, until } from '../fixtures.mjs';
import { PREFIX, SLUGS, addressSettled, blankCanvases, chartsCaughtUp, nextFrame, pasteInto, readPresets } from '../helpers.mjs';

const URL_COUNT = 200;
// The URLs are spread over this many pages of one context, so a page's
// leftovers (a worker, a long history) cannot pile up.
const URLS_PER_PAGE = 50;
// How long one URL may take, from navigation to the last look; more is a hang.
const URL_TIMEOUT_MS = 20_000;
// How long a panel gets to draw its charts or say why it cannot.
const DRAW_TIMEOUT_MS = 6_000;
// A queue run still going after this is a worker run; the page must answer meanwhile.
const QUEUE_SETTLE_MS = 4_000;
// The page must answer a trivial evaluate within this.
const RESPONSIVE_MS = 1_000;

// Elements or attributes that only an injection could create. The app draws
// no images, frames or SVG, and sets no inline event handlers.
const INJECTED =
  'img, iframe, object, embed, svg, math, marquee, .pwned, [onerror], [onload], [onclick], [onmouseover], [onfocus], a[href^="javascript:" i]';

/** `text` cut to `length` characters, so a 100 KB URL in an error stays readable. */
const clip = (text, length) => (text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text);

/** Rejects with `what` unless `promise` settles within `ms`. */
function within(ms, promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Fails unless the page's main thread answers within RESPONSIVE_MS. */
const expectResponsive = (page, when) =>
  within(RESPONSIVE_MS, page.evaluate(() => 1), `the page answering evaluate ${when}`);

/** Elements an injection created, as short HTML, plus a payload's global flag. */
const injected = (page) =>
  page.evaluate(
    (selector) => [
      ...[...document.querySelectorAll(selector)].map((el) => el.outerHTML.slice(0, 80)),
      ...(window.__pwned ? ['window.__pwned was set'] : []),
    ],
    INJECTED,
  );

// --- The hostile URLs ---------------------------------------------------------

/** mulberry32: a small seeded generator, so the URL list is the same on every run. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const enc = encodeURIComponent;
const IMG = '"><img src=x onerror="window.__pwned=1;alert(1)">';
const SCRIPT = '<script>window.__pwned=1;alert(1)</script>';
const MARKUP = '<i class="pwned">injected</i>';
const KB100 = 100 * 1024;

/** Every panel's keys, from the presets' queries (each preset writes every key). */
function panelKeys(presets) {
  const keys = Object.fromEntries(SLUGS.map((slug) => [slug, new Set()]));
  for (const preset of presets) {
    for (const key of new URLSearchParams(preset.query).keys()) {
      if (!['v', 'p', 's'].includes(key)) keys[preset.panel].add(key);
    }
  }
  return Object.fromEntries(Object.entries(keys).map(([slug, set]) => [slug, [...set]]));
}

/** Hand-picked cases: each kind of malformed or extreme value at least once. */
function fixedUrls(keys) {
  const list = [
    '',
    '?',
    '&&&',
    '=&==&&=1&p',
    '%',
    '%zz=%zz',
    'p=%zz&n=%',
    'p=jitter%00&n=1%00',
    'p=poisson&n=1e308&d=1e308',
    'p=poisson&n=-1e308&d=-1',
    'p=poisson&n=9999999999999999999&ws=9999999999999999999',
    'p=poisson&n=NaN&ws=Infinity&we=-Infinity&wp=NaN',
    'p=jitter&n=-5&lo=-1e9&hi=-1',
    'p=jitter&lo=30&hi=0',
    'p=jitter&n=10&n=20&n=abc',
    'p=jitter&p=hash&p=nope',
    'p=backoff&m=-1&b=-5&c=-0&k=1e999',
    'p=backoff&st=full&st=&st=%00',
    'p=hash&n=-1000000&w=-1&bw=-1',
    'p=hash&n=1000000&fn=farm&fn2=murmur',
    'p=hash&fn=ruby&n=1000000',
    'p=hash&bw=604800&w=60&w2=-5',
    'p=hash&ids=%C0%AF%E0%80%AF%F8%88%80%80%80',
    'p=hash&q=%ED%A0%80%ED%B0%80',
    'p=hash&ids=%FF%FE%00%01,%00,%7F',
    'p=hash&ids=a,,,,b,,%0A,%0D,a,a',
    `p=hash&ids=${'a'.repeat(KB100)}`,
    `p=hash&q=${'q'.repeat(KB100)}`,
    `p=hash&ids=${enc(Array.from({ length: 400 }, (_, i) => `id${i}`).join(','))}`,
    'p=slots&cyc=0&bk=0',
    'p=slots&cyc=1e308&bk=1e308',
    'p=slots&cyc=NaN&bk=Infinity&a=-1&lb=-1',
    'p=queue&n=1e308',
    'p=queue&n=-1&w=0&hz=-5&cyc=0',
    'p=queue&n=1000000&w=1000&cyc=1&hz=8760',
    'p=queue&n=1000000&w=1&hz=8760&vs=hash,slots,jitter',
    'p=queue&vs=hash,slots,jitter,poisson,lrs,herd,self',
    'p=queue&vs=hash,hash,hash',
    'p=queue&by=retries&os=1e308&od=1e308&rb=-1&rc=NaN&rk=1e9',
    'p=queue&sc=auto&wmax=1e9&up=0&down=0&tq=0',
    'embed=1&controls=1&p=queue&n=1000000&w=1&hz=8760',
    `p=${'x'.repeat(KB100)}`,
    `v=${'9'.repeat(KB100)}&p=jitter`,
    `p=poisson&n=${'9'.repeat(KB100)}`,
    `p=poisson&n=-${'0'.repeat(KB100)}1`,
    `p=jitter&s=${'7'.repeat(KB100)}`,
    `embed=${'1'.repeat(KB100)}`,
    `controls=${'y'.repeat(KB100)}&embed=1`,
    `p=queue&st=${'z'.repeat(KB100)}`,
    `p=poisson&t=${'t'.repeat(KB100)}`,
    `${'k'.repeat(KB100)}=1&p=slots`,
    `p=jitter&${'n='.repeat(5000)}`,
    'p=nosuchpanel',
    'p=',
    'p=POISSON',
    'p=%20hash%20',
    's=-1',
    's=18446744073709551615',
    's=18446744073709551616',
    's=1e3',
    's=0x10',
    's=',
    'v=2',
    'v=',
    'v=1&v=0',
    'embed=yes',
    'controls=maybe',
    'embed=1',
    'embed=1&controls=1&p=hash&q=<img src=x onerror=alert(1)>',
    `p=${enc(IMG)}`,
    `p=hash&q=${enc(IMG)}`,
    `p=hash&ids=${enc(SCRIPT)}`,
    `p=hash&ids=${enc(MARKUP)},${enc(IMG)}`,
    'p=hash&q="><img src=x onerror=alert(1)>',
    'p=<script>alert(1)</script>',
    `p=jitter&n=${enc('javascript:alert(1)')}`,
    `p=queue&st=${enc(IMG)}&vs=${enc(SCRIPT)}`,
    `p=backoff&st=${enc(MARKUP)}`,
    `v=${enc(IMG)}&embed=${enc(SCRIPT)}&controls=${enc(MARKUP)}`,
    `s=${enc(IMG)}`,
    `p=javascript:alert(1)`,
  ];
  // Every key of every panel once with a value no field takes.
  for (const slug of SLUGS) {
    list.push(`p=${slug}&${keys[slug].map((key) => `${key}=${enc(IMG)}`).join('&')}`);
  }
  return list;
}

/** The fixed cases, then seeded random ones up to `count`. */
function hostileUrls(presets, count) {
  const keys = panelKeys(presets);
  const urls = fixedUrls(keys);
  const random = seededRandom(20_260_101);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const allKeys = [...new Set(Object.values(keys).flat())];
  const junkText = (length) =>
    Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x3000))).join('');
  const values = [
    () => '',
    () => ' ',
    () => pick(['NaN', 'nan', 'Infinity', '-Infinity', 'inf', '-inf', 'infinity']),
    () => pick(['1e308', '-1e308', '1e-308', '5e-324', '1e309', '9999999999999999999', '18446744073709551616']),
    () => pick(['-1', '0', '-0', '0.5', '1.5e3', '0x1F', '+7', ' 12 ', '1,2', '1 2', '00001', '1_000']),
    () => pick(['null', 'undefined', '[]', '{}', 'true', 'false', '__proto__', 'constructor']),
    () => pick(['%', '%zz', '%00', '%C0%80', '%E2%82', '%ED%A0%80', '%F4%90%80%80', '%25', '%2', '+']),
    () => enc(pick([IMG, SCRIPT, MARKUP, 'javascript:alert(1)', "'-alert(1)-'", '${alert(1)}'])),
    () => pick([IMG, SCRIPT, MARKUP]), // unencoded: the browser escapes what it must
    () => enc(junkText(1 + Math.floor(random() * 40))),
    () => String(Math.floor(random() * 10 ** Math.floor(random() * 25))),
    () => String(-random() * 10 ** Math.floor(random() * 12)),
  ];
  while (urls.length < count) {
    const panel = random() < 0.05 ? enc(junkText(6)) : pick(SLUGS);
    const own = keys[panel] ?? [];
    const pairs = [`p=${panel}`];
    if (random() < 0.1) pairs.unshift(`v=${pick(values)()}`);
    if (random() < 0.1) pairs.push(`s=${pick(values)()}`);
    for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
      const key = random() < 0.8 && own.length ? pick(own) : random() < 0.5 ? pick(allKeys) : '';
      pairs.push(`${key}=${pick(values)()}`);
      if (random() < 0.1) pairs.push(`${key}=${pick(values)()}`); // repeated: the last wins
    }
    if (random() < 0.05) pairs.push(`embed=1${random() < 0.5 ? '&controls=1' : ''}`);
    urls.push(pairs.join('&'));
  }
  return urls.slice(0, count);
}

// --- What a page should show for a URL ----------------------------------------

/** The last value of each key, as the app's codec reads a query (later duplicates win). */
const lastValues = (search) => new Map(new URLSearchParams(search));

/** Whether `raw` from a URL and `kept`, the app's own encoding, mean the same value. */
function sameValue(raw, kept) {
  const text = raw.trim();
  if (text === kept) return true;
  if (/^[+-]?\d+$/.test(text) && /^[+-]?\d+$/.test(kept)) return BigInt(text) === BigInt(kept);
  const number = Number(text);
  if (text !== '' && Number.isFinite(number) && number === Number(kept)) return true;
  // Lists (ids, several choices) read without separators, empty pieces or
  // repeats; ids also split on whitespace, as Rust's char::is_whitespace has it.
  const list = (s) =>
    [...new Set(s.split(/[,\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/).filter(Boolean))].join(',');
  return list(text) === list(kept);
}

/**
 * The keys whose value the page did not take as written but shows no notice
 * about, judged from the query the browser sent and the state the page
 * links to (the nav link of the open panel, or "Open in Stampede" in an embed).
 */
async function silentAdjustments(page, sent) {
  const notices = await page.$$eval('#notices li.notice', (lis) => lis.map((li) => li.textContent));
  const named = (key) => notices.some((text) => text.includes(`(${key}): `));
  const panel = await page.getAttribute('section#panel', 'data-panel');
  const link = (await page.$(`nav a[data-panel="${panel}"]`)) ?? (await page.$('.open-full a'));
  const href = link ? await link.getAttribute('href') : null;
  if (!href) return ['no link that holds the state'];
  const kept = new URLSearchParams(href.slice(href.indexOf('?') + 1));
  const silent = [];
  for (const [key, raw] of lastValues(sent)) {
    let adjusted;
    if (key === 'embed' || key === 'controls') adjusted = !['', '0', '1', 'true', 'false'].includes(raw);
    else if (key === 'p') adjusted = raw !== panel;
    else if (kept.has(key)) adjusted = !sameValue(raw, kept.get(key));
    else continue; // a key no field of the panel has is ignored
    if (adjusted && !named(key)) silent.push(`${key}=${JSON.stringify(raw.slice(0, 40))} became ${JSON.stringify(kept.get(key) ?? panel)}`);
  }
  return silent;
}

/** Waits until the open panel is usable; returns what it settled on, e.g. "drawn". */
async function settledPanel(page) {
  await page.waitForSelector('section#panel', { timeout: 15_000 });
  const panel = await page.getAttribute('section#panel', 'data-panel');
  if (panel === 'queue') {
    const run = await page.waitForFunction(
      (settleAt) => {
        const status = document.querySelector('[data-run-status]')?.dataset.runStatus;
        if (['done', 'failed', 'worker-failed'].includes(status)) return status;
        // A big run in the worker: the page must stay live while it runs.
        return status === 'running' && Date.now() > settleAt && status;
      },
      Date.now() + QUEUE_SETTLE_MS,
      { timeout: DRAW_TIMEOUT_MS * 3 },
    );
    const status = await run.jsonValue();
    if (status === 'failed' || status === 'worker-failed') {
      const why = (await page.textContent('.queue-status'))?.trim() ?? '';
      expect(why, `the message of the queue run that ${status}`).not.toBe('');
      return `queue ${status}`;
    }
    if (status === 'running') {
      await expect(page.locator('#queue-progress'), 'the progress bar of a long queue run').toHaveCount(1);
      return 'queue running in the worker';
    }
  }
  // Drawn charts, or a message in place of the numbers saying why not.
  let blank = [];
  try {
    return await until(
      async () => {
        const alert = (await page.$$eval('#panel [role="alert"]', (els) => els.map((el) => el.textContent.trim()))).find(Boolean);
        if (alert) return `message: ${alert.slice(0, 60)}`;
        blank = await blankCanvases(page);
        const canvases = await page.locator('#figure canvas').count();
        return canvases > 0 && blank.length === 0 ? 'drawn' : null;
      },
      'the charts to draw',
      DRAW_TIMEOUT_MS,
    );
  } catch {
    throw new Error(`blank charts and no message: ${blank.join(', ') || 'no canvas'}`);
  }
}
// --- The tests ----------------------------------------------------------------------

const urls = hostileUrls(readPresets(), URL_COUNT);

test(`${urls.length} malformed or extreme URLs each load a working panel`, async ({ app }) => {
  test.setTimeout(300_000);
  const context = await app.newContext();
  const problems = [];
  const settled = {};
  const took = [];
  let page = null;
  for (const [i, query] of urls.entries()) {
    if (i % URLS_PER_PAGE === 0 || !page) {
      await page?.close().catch(() => {});
      page = await app.newPage({}, context);
    }
    const shown = clip(query, 100);
    app.errors.length = 0;
    const start = Date.now();
    try {
      await within(
        URL_TIMEOUT_MS,
        (async () => {
          const response = await page.goto(`${app.base}?${query}`, { waitUntil: 'domcontentloaded' });
          // The query as the browser sent it, after escaping what it must.
          const sent = new URL(response.request().url()).search;
          const what = await settledPanel(page);
          settled[what.replace(/:.*/, '')] = (settled[what.replace(/:.*/, '')] ?? 0) + 1;
          await expectResponsive(page, 'after the panel settled');
          // A notice quotes a bad value's start, never all 100 KB of it.
          const long = await page.$$eval('#notices li.notice', (lis) => lis.map((li) => li.textContent).filter((text) => text.length > 300));
          expect(long.map((text) => clip(text, 80)), 'notices of more than 300 characters').toEqual([]);
          expect(await silentAdjustments(page, sent), 'values adjusted without a notice').toEqual([]);
          expect(await injected(page), 'injected elements').toEqual([]);
          expect(app.errors, 'errors').toEqual([]);
        })(),
        'loading and checking the URL',
      );
    } catch (e) {
      problems.push(`#${i} ?${shown}: ${clip(String(e?.message ?? e).replace(/\s+/g, ' '), 300)}`);
      // A page that hung or broke is not reused.
      await page.close().catch(() => {});
      page = null;
    }
    took.push(Date.now() - start);
  }
  app.errors.length = 0;
  took.sort((a, b) => a - b);
  console.log(
    `# hostile URLs: ${urls.length} in ${(took.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s, ` +
      `per URL p50 ${took[took.length >> 1]} ms, max ${took.at(-1)} ms; settled: ${JSON.stringify(settled)}`,
  );
  expect(problems, `URLs that failed, of ${urls.length}`).toEqual([]);
});

test('hash panel: huge, empty and binary pastes into the ids give a message or a result', async ({ app }) => {
  test.setTimeout(300_000);
  const page = await app.newPage();
  await page.goto(`${app.base}?v=1&p=hash&s=1`);
  await page.waitForSelector('#f-ids');
  const random = seededRandom(7);
  const binary = (length) => Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x10000))).join('');
  const pastes = [
    ['a million lines', Array.from({ length: 1_000_000 }, (_, i) => `id-${i}`).join('\n')],
    ['empty lines', '\n\n \n\r\n\t\n,,,\n'],
    ['binary junk', binary(4000)],
    ['short binary junk', binary(1000)],
    ['one 1 MB line', 'x'.repeat(1 << 20)],
    ['markup', `${IMG},${SCRIPT},${MARKUP}`],
  ];
  // A paste, read as it arrives, and text a script sets, read on its
  // change event as typed text is. (Typing megabytes through the
  // browser's editing would time the browser: it takes most of a minute
  // to insert a million lines into any text area.)
  const ways = {
    pasted: (text) => pasteInto(page, '#f-ids', text),
    'set by a script': (text) =>
      page.$eval(
        '#f-ids',
        (area, value) => {
          area.value = value;
          area.dispatchEvent(new Event('change', { bubbles: true }));
        },
        text,
      ),
  };
  const outcomes = [];
  for (const [what, text] of pastes) {
    for (const [way, paste] of Object.entries(ways)) {
      const when = `after ${what} ${way}`;
      const start = Date.now();
      await within(15_000, paste(text), `${what} ${way}`);
      // A result: charts drawn for pasted or generated ids; or a notice naming the ids.
      const outcome = await until(
        async () => {
          const notice = await page.$$eval('#notices li.notice', (lis) => lis.map((li) => li.textContent).find((s) => s.includes('(ids): ')));
          if (notice) return `notice "${notice.slice(0, 90)}"`;
          const blank = await blankCanvases(page);
          const alert = await page.$('#panel [role="alert"]');
          if (alert) return `message "${(await alert.textContent()).slice(0, 90)}"`;
          const status = (await page.textContent('#f-ids-status')) || 'generated ids';
          return blank.length === 0 ? `result: ${status.slice(0, 90)}` : null;
        },
        `a message or a result ${when}`,
      );
      await expectResponsive(page, when);
      outcomes.push(`${what} ${way}: ${outcome} in ${Date.now() - start} ms`);
      expect(await injected(page), `injected ${when}`).toEqual([]);
      expect(app.errors, `errors ${when}`).toEqual([]);
      // Back to the generated ids, so each paste starts from a drawn panel.
      await page.goto(`${app.base}?v=1&p=hash&s=1`);
      await page.waitForSelector('#f-ids');
    }
  }
  for (const outcome of outcomes) console.log(`#   ${outcome}`);
});

test('a panic shows the error banner, and its reset link brings back a working default page', async ({ app }) => {
  const page = await app.newPage();
  await page.goto(`${app.base}?v=1&p=jitter&s=9&debug=panic`);
  await page.waitForSelector('#error-banner[role="alert"]', { timeout: 15_000 });
  const banner = page.locator('#error-banner');
  await expect(banner).toContainText(/went wrong/);
  await expect(banner).toContainText(/debug=panic/);
  await expect(page.locator('#reset-link')).toContainText(/reset to defaults/i);
  expect(app.errors.some((e) => /debug=panic/.test(e)), `the panic logged among ${JSON.stringify(app.errors)}`).toBe(true);
  // The codec drops the debug key, so no link the page offers carries it.
  const links = await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href')));
  expect(links.filter((href) => href.includes('debug')), 'links that keep the debug key').toEqual([]);
  app.errors.length = 0;
  await page.click('#reset-link');
  await page.waitForSelector('section#panel[data-panel="poisson"]', { timeout: 15_000 });
  const url = new URL(page.url());
  expect(url.pathname === PREFIX && !url.search.includes('debug'), `reset went to ${page.url()}`).toBe(true);
  await expect(page.locator('#error-banner'), 'the banner after the reset').toHaveCount(0);
  await expect(page.locator('#notices li.notice'), 'notices after the reset').toHaveCount(0);
  await settledPanel(page);
  await expectResponsive(page, 'after the reset');
});

test('offline: no request leaves 127.0.0.1 while every panel opens and a queue run uses the worker', async ({ app }) => {
  const context = await app.newContext();
  const requests = [];
  const outside = [];
  // Records every request, the worker's too, and stops any that would leave.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (/^(data|blob):/.test(url) || new URL(url).hostname === '127.0.0.1') return route.continue();
    outside.push(url);
    return route.abort();
  });
  context.on('request', (request) => requests.push(request.url()));
  const page = await app.newPage({}, context);
  const workers = [];
  page.on('worker', (worker) => workers.push(worker));
  for (const slug of SLUGS) {
    await page.goto(`${app.base}?v=1&p=${slug}&s=1`);
    await settledPanel(page);
  }
  // Ten times the default accounts: enough jobs to go to the worker. The
  // run may end before a check for its progress bar comes round, so the
  // test waits for the end alone.
  await page.goto(`${app.base}?v=1&p=queue&s=1&n=20000`);
  await page.waitForSelector('[data-run-status="done"]', { timeout: 60_000, state: 'attached' });
  expect(workers.length, 'workers the queue run started').toBeGreaterThan(0);
  // What the page and its workers fetched, as their own timing entries list it.
  const resources = async (target) => target.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name)).catch(() => []);
  requests.push(...(await resources(page)));
  for (const worker of workers) requests.push(...(await resources(worker)));
  for (const url of requests) {
    if (!/^(data|blob):/.test(url) && new URL(url).hostname !== '127.0.0.1') outside.push(url);
  }
  console.log(`# offline: ${requests.length} requests recorded, ${new Set(requests).size} distinct, ${workers.length} worker(s)`);
  expect([...new Set(outside)], 'requests outside 127.0.0.1').toEqual([]);
});

test('embed: messages from the parent page never change the iframe, which only posts its height', async ({ app }) => {
  const page = await app.newPage();
  // Every message the parent page receives, from anyone.
  await page.addInitScript(() => {
    if (window !== window.top) return;
    window.__heard = [];
    window.addEventListener('message', (e) => {
      const frames = [...document.querySelectorAll('iframe.stampede')];
      window.__heard.push({ frame: frames.findIndex((f) => f.contentWindow === e.source), data: e.data });
    });
  });
  await page.goto(`${app.base}embed-example.html`);
  const count = await page.locator('iframe.stampede').count();
  expect(count, 'iframe.stampede').toBeGreaterThanOrEqual(2);
  for (let i = 0; i < count; i++) await page.locator('iframe.stampede').nth(i).scrollIntoViewIfNeeded();
  const frames = async () => {
    const list = [];
    for (let i = 0; i < count; i++) list.push(await (await page.locator('iframe.stampede').nth(i).elementHandle()).contentFrame());
    return list;
  };
  /** Each frame's state once it is drawn and its address has caught up with it. */
  const snapshot = async () =>
    Promise.all(
      (await frames()).map(async (frame) => {
        if (!frame) return null;
        // Every frame draws a chart; not every one shows the key numbers (fig=depth).
        await frame.waitForSelector('#figure canvas', { timeout: 15_000 });
        await chartsCaughtUp(frame);
        await addressSettled(frame);
        return frame.evaluate(() => ({
          search: location.search,
          panel: document.querySelector('section#panel')?.dataset.panel,
          numbers: [...document.querySelectorAll('dd[data-key]')].map((dd) => dd.textContent).join('|'),
          controls: [...document.querySelectorAll('input, select')].map((el) => `${el.id}=${el.value}`).join('|'),
        }));
      }),
    );
  const before = await snapshot();
  expect(before.every(Boolean), 'a frame for every iframe').toBe(true);
  const hostile = [
    { type: 'stampede:state', query: 'p=queue&n=1000000' },
    { type: 'stampede:state', query: '?v=1&p=queue&n=1000000&w=1&hz=8760' },
    { type: 'stampede:state', state: { panel: 'queue', seed: 5 } },
    { type: 'stampede:query', query: 'p=hash&q=<img src=x onerror=alert(1)>' },
    { type: 'stampede:height', height: 1e9 },
    { type: 'stampede:navigate', url: 'javascript:alert(1)' },
    { query: 'p=backoff' },
    'p=queue&n=1000000',
    '?v=1&p=hash&ids=<img src=x onerror=alert(1)>',
    IMG,
    '',
    null,
    42,
    [1, 2, 3],
    { __proto__: { polluted: true }, type: 'stampede:state' },
    { type: 'stampede:state', query: `p=hash&ids=${'a'.repeat(KB100)}` },
  ];
  // Messages from one window arrive in the order posted: once a last one,
  // a marker, has arrived, every hostile one has been handled.
  const MARKER = 'stampede-test: the last message';
  for (const frame of await frames()) {
    await frame.evaluate((marker) => {
      window.__markerHeard = new Promise((resolve) => window.addEventListener('message', (e) => e.data === marker && resolve()));
    }, MARKER);
  }
  await page.evaluate(
    ({ messages, marker }) => {
      for (const frame of document.querySelectorAll('iframe.stampede')) {
        for (const message of messages) frame.contentWindow.postMessage(message, '*');
        frame.contentWindow.postMessage(new ArrayBuffer(64), '*');
        frame.contentWindow.postMessage(marker, '*');
      }
    },
    { messages: hostile, marker: MARKER },
  );
  for (const frame of await frames()) {
    await frame.evaluate(() => window.__markerHeard);
    await nextFrame(frame);
    await expectResponsive(frame, 'in an iframe after the messages');
  }
  const after = await snapshot();
  for (let i = 0; i < count; i++) {
    const changed = Object.keys(after[i]).filter((key) => after[i][key] !== before[i][key]);
    expect(changed, `iframe ${i}: what changed after the messages (${JSON.stringify(before[i].search)} → ${JSON.stringify(after[i].search)})`).toEqual([]);
  }
  for (const frame of await frames()) expect(await injected(frame), 'injected in an iframe').toEqual([]);
  const heard = await page.evaluate(() => window.__heard);
  const odd = heard.filter(
    ({ frame, data }) => frame < 0 || data?.type !== 'stampede:height' || Object.keys(data).sort().join(',') !== 'height,type' || !Number.isFinite(data.height),
  );
  const from = new Set(heard.map((m) => m.frame));
  console.log(`# embed: ${hostile.length + 2} messages posted to each of ${count} iframes; the parent heard ${heard.length}, all heights`);
  expect(JSON.stringify(odd.slice(0, 3)).slice(0, 300), 'unexpected messages in the parent').toBe('[]');
  expect(from.size, `iframes heights were heard from (${[...from].join(', ')})`).toBe(count);
});
