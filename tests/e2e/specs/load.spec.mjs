// Loading: the build under /docs/stampede/, each panel's code fetched when
// the panel first opens (and a panel whose code cannot come says so), the
// skeleton index.html paints before the wasm, and the app working offline
// after one visit.

import { expect, test } from '../fixtures.mjs';
import { SLUGS, blankCanvases } from '../helpers.mjs';

test('the app loads under /docs/stampede/', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '');
  await expect(page.locator('header h1')).toHaveText('Stampede');
  // A figure, not a limit: an upper bound on the time to the first drawn panel.
  const sinceStart = await page.evaluate(() => performance.now());
  console.log(`# figure: panel drawn within ${Math.round(sinceStart)} ms of navigation start`);
});

test("each panel's code arrives when the panel first opens", async ({ app }) => {
  const page = await app.newPage();
  const fetched = [];
  page.on('request', (request) => {
    const name = new URL(request.url()).pathname.split('/').pop();
    if (name.endsWith('.wasm')) fetched.push(name);
  });
  // The panels are split off in groups (src/panels/mod.rs).
  const own = (group) => fetched.filter((name) => name.startsWith(`stampede-app-split_${group}-`)).length;
  await app.open(page, '?v=1&p=poisson');
  expect(fetched.filter((name) => /^stampede-app-[0-9a-f]+_bg\.wasm$/.test(name)).length, 'main modules fetched').toBe(1);
  expect(own('arrivals'), "the arrival panels' own modules fetched").toBe(1);
  expect(own('queues') + own('fleet'), "the other panels' own modules fetched on the Poisson panel").toBe(0);
  await page.click('nav a[data-panel="queue"]');
  await page.waitForSelector('#panel[data-panel="queue"] .figure canvas');
  expect(own('queues'), "the queue panels' own modules fetched after opening the Queue").toBe(1);
  await expect.poll(() => blankCanvases(page), { message: 'the Queue panel drawing its charts once its code arrived' }).toEqual([]);
});

test("the opening panel's code downloads beside the main module, not after it starts", async ({ app }) => {
  // index.html preloads the opening panel's group (its map of panels to
  // groups must agree with src/panels/mod.rs); a module the app fetched
  // itself would show as initiated by `fetch`.
  for (const slug of SLUGS) {
    const page = await app.newPage();
    await app.open(page, `?v=1&p=${slug}&s=1`);
    const modules = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((entry) => /\/stampede-app-(split|chunk)[\w-]*\.wasm$/.test(entry.name))
        .map((entry) => [entry.name.split('/').pop(), entry.initiatorType]),
    );
    expect(modules.length, `${slug}: the panel's modules fetched`).toBeGreaterThan(0);
    expect(modules.filter(([, by]) => by !== 'link'), `${slug}: modules fetched only once the app asked`).toEqual([]);
    await page.context().close();
  }
});

test('a panel whose code cannot be downloaded says so, and the others keep working', async ({ app }) => {
  // Without the service worker, which would fetch the module itself.
  const page = await app.newPage({ serviceWorkers: 'block' });
  await page.route('**/stampede-app-split_queues-*.wasm', (route) => route.abort());
  app.allowErrors(/Failed to fetch|ERR_FAILED|failed to load split module/);
  await app.open(page, '?v=1&p=poisson');
  await page.click('nav a[data-panel="slots"]');
  const message = page.locator('#panel[data-panel="slots"] .not-loaded');
  await expect(message, 'the message names the panel').toContainText(/Slots panel's code could not be downloaded/);
  await expect(page.locator('#error-banner'), 'error banners').toHaveCount(0);
  await expect(page.locator('#panel .how-it-works'), '"How it works" without its text').toHaveCount(0);
  await app.shot(page, 'panel-not-loaded', { fullPage: false });
  await page.click('nav a[data-panel="jitter"]');
  await page.waitForSelector('#panel[data-panel="jitter"] .figure canvas');
  await expect.poll(() => blankCanvases(page), { message: 'the Jitter panel drawing its charts' }).toEqual([]);
});

test('skeleton: index.html paints the header, the panel links and a loading line; the app replaces it', async ({ app }) => {
  const html = await (await fetch(app.base)).text();
  for (const slug of SLUGS) expect(html, `index.html's link to ?p=${slug}`).toContain(`href="?p=${slug}"`);
  expect(html, 'the loading line').toContain('Loading the playground…');
  expect(html, '<noscript>').toContain('<noscript>');
  const header = (page) =>
    page.evaluate(() => ({
      h1: document.querySelector('header h1')?.textContent.trim(),
      purpose: document.querySelector('header .purpose')?.textContent.trim(),
      links: [...document.querySelectorAll('header nav a')].map((a) => `${a.textContent.trim()} ${new URL(a.href).searchParams.get('p')}`),
    }));
  // Before the wasm arrives: it never does here.
  let skeleton;
  for (const colorScheme of ['light', 'dark']) {
    const page = await app.newPage({ colorScheme });
    await page.route('**/*.wasm', () => {});
    await page.goto(`${app.base}?v=1&p=hash`);
    await page.waitForSelector('#skeleton .skeleton-loading', { state: 'visible' });
    skeleton = await header(page);
    await app.shot(page, `skeleton-${colorScheme}`, { fullPage: false });
  }
  expect(skeleton.links.length, 'links in the skeleton (the panels and Learn)').toBe(SLUGS.length + 1);
  // Without JavaScript: the message, and no loading line.
  const off = await app.newPage({ javaScriptEnabled: false });
  await off.goto(app.base);
  // Read as text: a locator's text leaves <noscript> out.
  expect(await off.textContent('#skeleton main'), 'the <noscript> message without JavaScript').toMatch(/needs JavaScript/);
  await expect(off.locator('.skeleton-loading'), 'the loading line without JavaScript').toBeHidden();
  await app.shot(off, 'skeleton-noscript', { fullPage: false });
  // Once mounted: the app's own header, equal to the skeleton's, once.
  const page = await app.newPage();
  await app.open(page, '?v=1&p=hash');
  for (const selector of ['#skeleton', '.skeleton-loading']) await expect(page.locator(selector), `${selector} after mount`).toHaveCount(0);
  for (const selector of ['h1', 'header', 'nav', 'main']) await expect(page.locator(selector), `${selector} elements after mount`).toHaveCount(1);
  expect(await header(page), 'the app header against the skeleton').toEqual(skeleton);
});

test('offline: after one visit the app opens and works with the network off', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=jitter&s=1');
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
      await page.goto(app.base + query);
      await page.waitForSelector(ready, { timeout: 30_000, state: 'attached' });
      await expect.poll(() => blankCanvases(page), { message: `blank charts offline at ${query}` }).toEqual([]);
    }
    await app.shot(page, 'offline-fleet');
  } finally {
    await page.context().setOffline(false);
  }
});
