// Embedding: the embed mode with and without its controls, the docs'
// example page sizing its iframes from the height messages, the embed
// picker's <stampede-figure> pasted on another site's page, the element
// following that page's colour scheme, and the footer's link to the example.

import http from 'node:http';
import { expect, test } from '../fixtures.mjs';
import { addressSettled, blankCanvases, nextFrame } from '../helpers.mjs';

/** Serves `html` as the only page of another site, on its own port; resolves to its URL and a close(). */
async function otherSite(html) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/** Waits until the embed in `frame` (a frame or frame locator's owner) has drawn every chart. */
const embedDrawn = async (frame, what) => {
  await expect.poll(() => blankCanvases(frame), { message: `${what}: blank charts` }).toEqual([]);
  await addressSettled(frame);
};

const EMBED_QUERY = '?embed=1&v=1&p=slots&cyc=3600&bk=256';

test('embed mode shows only the figure and key numbers', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 640, height: 480 } });
  await app.open(page, EMBED_QUERY, 'dl.key-numbers');
  await expect(page.locator('header'), 'header elements').toHaveCount(0);
  await expect(page.locator('nav'), 'nav elements').toHaveCount(0);
  await expect(page.locator('dl.key-numbers')).toBeVisible();
  await expect(page.locator('form.controls'), 'form.controls elements').toHaveCount(0);
  await app.shot(page, 'embed-slots', { fullPage: false });
});

test('embed mode with controls=1 shows the controls', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 640, height: 480 } });
  await app.open(page, `${EMBED_QUERY}&controls=1`, 'dl.key-numbers');
  await expect(page.locator('header'), 'header elements').toHaveCount(0);
  await expect(page.locator('nav'), 'nav elements').toHaveCount(0);
  await expect(page.locator('form.controls').first()).toBeVisible();
  await app.shot(page, 'embed-slots-controls', { fullPage: false });
});

test('docs embed example sizes its iframes from the height messages', async ({ app }) => {
  const page = await app.newPage();
  // Records which iframe sent each stampede:height, to prove heights come from messages.
  await page.addInitScript(() => {
    if (window !== window.top) return;
    window.__stampedeHeights = [];
    window.addEventListener('message', (e) => {
      if (e.data?.type !== 'stampede:height') return;
      const frames = [...document.querySelectorAll('iframe.stampede')];
      window.__stampedeHeights.push({ frame: frames.findIndex((f) => f.contentWindow === e.source), height: e.data.height });
    });
  });
  await page.goto(`${app.base}embed-example.html`);
  const srcs = await page.$$eval('iframe.stampede', (frames) => frames.map((f) => f.getAttribute('src') ?? ''));
  expect(srcs.length, 'iframe.stampede on the example').toBeGreaterThanOrEqual(2);
  for (const src of srcs) expect(src, 'an iframe src, relative').not.toMatch(/^(\/|[a-z]+:)/i);
  // The example's frames are loading="lazy": visit each, as a reader scrolling would.
  for (let i = 0; i < srcs.length; i++) await page.locator('iframe.stampede').nth(i).scrollIntoViewIfNeeded();
  const state = () =>
    page.evaluate(() => {
      const frames = [...document.querySelectorAll('iframe.stampede')];
      const heard = new Set((window.__stampedeHeights ?? []).map((m) => m.frame));
      const heights = frames.map((f) => parseFloat(f.style.height || f.getAttribute('height') || '0'));
      return { heights, heard: [...heard], ok: frames.every((_, i) => heard.has(i) && heights[i] > 100) };
    });
  await expect.poll(state, { message: 'both iframes to get a height over 100 px from their messages', timeout: 20_000 }).toMatchObject({ ok: true });
  for (const frame of page.frames().filter((f) => f !== page.mainFrame())) await embedDrawn(frame, frame.url());
  await app.shot(page, 'embed-example');
});

test('embed picker: one figure as <stampede-figure>, pasted on a page from another port, loads when near and fits its height', async ({ app }) => {
  const page = await app.newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await app.open(page, '?v=1&p=queue&s=1');
  await page.click('#embed-button');
  await expect(page.locator('#embed-dialog')).toBeVisible();
  await page.selectOption('#embed-figure', 'depth');
  await page.check('#embed-controls');
  await page.uncheck('#embed-controls');
  await page.selectOption('#embed-theme', 'dark');
  await page.selectOption('#embed-form', 'iframe');
  expect(await page.inputValue('#embed-snippet'), 'the iframe snippet').toMatch(/^<iframe class="stampede"/);
  await page.selectOption('#embed-form', 'element');
  const snippet = await page.inputValue('#embed-snippet');
  expect(snippet, 'the element snippet').toMatch(
    /^<script type="module" src="http:[^"]+\/stampede-figure\.js"><\/script>\n<stampede-figure src="[^"]*fig=depth[^"]*theme=dark/,
  );
  const preview = page.frameLocator('#embed-dialog iframe');
  await preview.locator('#fig-depth canvas').waitFor({ timeout: 20_000 });
  await page.click('#copy-embed');
  await expect(page.locator('#copy-embed')).toContainText(/copied/i);
  // The preview drawn, and the dialog grown to it, before the picture.
  const previewFrame = await (await page.locator('#embed-dialog iframe').elementHandle()).contentFrame();
  await embedDrawn(previewFrame, 'the preview');
  await expect
    .poll(
      async () => {
        const [frameHeight, reported] = await Promise.all([
          page.$eval('#embed-dialog iframe', (f) => parseFloat(f.style.height)),
          previewFrame.evaluate(() => document.body.offsetHeight),
        ]);
        return Math.abs(frameHeight - reported) <= 1;
      },
      { message: 'the preview to take the height it reports' },
    )
    .toBe(true);
  await nextFrame(page);
  await app.shot(page, 'embed-picker', { fullPage: false });

  // Another site: a page on its own port with nothing but the snippet,
  // the figure far below the first screen.
  const other = await otherSite(
    `<!doctype html><title>Docs</title><h1>Our runbook</h1><div style="height:3000px">Scroll down.</div>${snippet}<p>After the figure.</p>`,
  );
  try {
    const docs = await app.newPage();
    await docs.goto(other.url);
    const element = docs.locator('stampede-figure');
    await expect.poll(() => element.evaluate((e) => !!e.shadowRoot?.querySelector('.placeholder')), { message: 'the placeholder' }).toBe(true);
    expect(await element.evaluate((e) => e.shadowRoot.querySelector('iframe')), 'an iframe before the figure is near').toBeNull();
    expect(await element.evaluate((e) => e.getBoundingClientRect().height), 'the placeholder height').toBe(360);
    await element.scrollIntoViewIfNeeded();
    const frame = docs.frameLocator('stampede-figure iframe');
    await frame.locator('#fig-depth canvas').waitFor({ timeout: 30_000 });
    await expect(frame.locator('canvas'), 'charts in the embed').toHaveCount(1);
    await expect(frame.locator('html'), 'the embed theme').toHaveAttribute('data-theme', 'dark');
    const heights = () =>
      Promise.all([
        element.evaluate((e) => parseFloat(e.shadowRoot.querySelector('iframe').style.height)),
        frame.locator('body').evaluate((body) => body.offsetHeight),
      ]);
    await expect
      .poll(
        async () => {
          const [frameHeight, reported] = await heights();
          return reported > 100 && Math.abs(frameHeight - reported) <= 1;
        },
        { message: 'the iframe to take the height the embed reports', timeout: 20_000 },
      )
      .toBe(true);
    const [frameHeight] = await heights();
    expect(frameHeight, 'the one-figure embed height').toBeLessThan(900);
    const embedded = docs.frames().find((f) => f.url().includes('fig=depth'));
    await embedDrawn(embedded, 'the embed');
    await nextFrame(docs);
    await app.shot(docs, 'embed-one-figure', { fullPage: false });
  } finally {
    other.close();
  }
});

test('<stampede-figure> without a theme follows the colour scheme of the page it is on', async ({ app }) => {
  const src = `${app.base}?v=1&p=jitter&s=1&fig=arrivals`;
  const other = await otherSite(
    `<!doctype html><meta name="color-scheme" content="light"><title>Docs</title>` +
      `<script type="module" src="${app.base}stampede-figure.js"></script>` +
      `<stampede-figure src="${src.replace(/&/g, '&amp;')}"></stampede-figure>`,
  );
  try {
    // The reader's system is dark; the page says light.
    const docs = await app.newPage({ colorScheme: 'dark' });
    await docs.goto(other.url);
    const frame = docs.frameLocator('stampede-figure iframe');
    await frame.locator('#fig-arrivals canvas').waitFor({ timeout: 30_000 });
    await expect(frame.locator('html'), 'the embed theme').toHaveAttribute('data-theme', 'light');
  } finally {
    other.close();
  }
});

test('the footer links the embed example at the build root', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=poisson');
  await page.click('footer a[href="embed-example.html"]');
  await page.waitForURL(/embed-example\.html$/);
  expect(page.url(), 'where the link went').toBe(`${app.base}embed-example.html`);
  await expect(page.locator('iframe.stampede[src*="fig=depth"]'), 'a single Queue chart on the example').toHaveCount(1);
});
