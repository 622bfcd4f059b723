// The panels: each opens from its link, fits a 360 px phone, keeps a
// control and its chart on one screen (the controls in a sheet on a
// phone); notices at the field that caused them; the dark scheme; the
// Jitter panel's answer applied; the Hash panel's pasted ids; the Slots
// clock and ring.

import { expect, test, until } from '../fixtures.mjs';
import { SLUGS, keyNumberMap, nextFrame, pasteInto, queryParam, queueDone } from '../helpers.mjs';

/** Where the element `selector` matches is on the screen. */
const box = (page, selector) =>
  page.$eval(selector, (el) => {
    const rect = el.getBoundingClientRect();
    return { top: rect.top, bottom: rect.bottom, left: rect.left, visible: rect.width > 0 && rect.height > 0 };
  });

for (const [i, slug] of SLUGS.entries()) {
  test(`panel ${slug}: nav link opens it`, async ({ app }) => {
    const page = await app.newPage();
    // Start on another panel so the click is a real switch.
    await app.open(page, `?v=1&p=${SLUGS[(i + SLUGS.length - 1) % SLUGS.length]}`);
    await page.click(`nav a[data-panel="${slug}"]`);
    await app.settled(page, `section#panel[data-panel="${slug}"]`);
    await expect(page.locator('section#panel p.explain').first(), 'p.explain').not.toBeEmpty();
    await expect.poll(() => queryParam(page, 'p'), { message: 'p in the URL' }).toBe(slug);
    await expect(page.locator(`nav a[data-panel="${slug}"]`), `aria-current of the ${slug} link`).toHaveAttribute('aria-current', 'page');
    await app.shot(page, `panel-${slug}`);
  });
}

for (const slug of SLUGS) {
  test(`panel ${slug} on a 360 px phone: no horizontal overflow`, async ({ app }) => {
    // isMobile honours <meta name="viewport">, as a phone does; DPR 2 exercises canvas scaling.
    const page = await app.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await app.open(page, `?v=1&p=${slug}`);
    await app.shot(page, `mobile-${slug}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, 'the page width on a 360 px screen').toBeLessThanOrEqual(360);
  });
}

// The workbench: a control and its chart in one view, the controls beside
// the figures while they scroll; on a phone, the chart first and the
// controls in a sheet.
for (const slug of SLUGS) {
  test(`workbench ${slug} at 1280×900: a control and the first chart share the first screen`, async ({ app }) => {
    const page = await app.newPage();
    await app.open(page, `?v=1&p=${slug}`);
    const control = '.controls-column .control-slot:not([hidden]) :is(input, select)';
    const chart = await box(page, '#figure canvas');
    const first = await box(page, control);
    const toolbar = await box(page, '#copy-link');
    expect(chart.visible && chart.top < 900 - 80, `the first chart starts at ${Math.round(chart.top)} px`).toBe(true);
    expect(first.visible && first.bottom < 900, `the first control ends at ${Math.round(first.bottom)} px`).toBe(true);
    expect(first.left, 'the controls beside the figures').toBeLessThan(chart.left);
    expect(toolbar.bottom, 'the bottom of Copy link').toBeLessThan(300);
    // The controls stay in view while the figures scroll, down to the last chart.
    await page.$$eval('#figure .chart-block', (blocks) => blocks.at(-1).scrollIntoView({ block: 'end' }));
    await nextFrame(page);
    const scrolled = await box(page, control);
    expect(scrolled.top >= 0 && scrolled.bottom < 900, `at the last chart, the first control is at ${Math.round(scrolled.top)} px`).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));
    await nextFrame(page);
    await app.shot(page, `bench-${slug}`, { fullPage: false });
  });

  test(`workbench ${slug} at 390×844: the first chart on the first screen, the controls in a sheet`, async ({ app }) => {
    const page = await app.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await app.open(page, `?v=1&p=${slug}`);
    const chart = await box(page, '#figure canvas');
    expect(chart.visible && chart.top < 844 - 60, `the first chart starts at ${Math.round(chart.top)} px`).toBe(true);
    await expect(page.locator('#controls-sheet'), 'the controls before the button is pressed').toBeHidden();
    await app.shot(page, `phone-${slug}`, { fullPage: false });
    await page.click('.sheet-toggle');
    await expect(page.locator('#controls-sheet .controls'), 'the controls sheet').toBeVisible();
    const sheet = await box(page, '#controls-sheet');
    expect(sheet.top > 100 && sheet.top < 844, `the sheet starts at ${Math.round(sheet.top)} px`).toBe(true);
    await app.shot(page, `phone-${slug}-controls`, { fullPage: false });
  });
}

test('a notice appears beside the field that caused it, and clears when the field changes', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=queue');
  await queueDone(page);
  // A million accounts would start too many jobs: the simulated time is cut, and
  // the reader hears it at the field they typed in, and at the one adjusted.
  await page.fill('#f-n', '1000000');
  await page.locator('#f-n').dispatchEvent('change');
  const notice = page.locator('.control-slot:has(#f-n) .field-notice');
  await expect(notice, 'a notice at the accounts field').toBeVisible();
  const field = await box(page, '#f-n');
  const at = await box(page, '.control-slot:has(#f-n) .field-notice');
  const distance = Math.max(0, at.top - field.bottom, field.top - at.bottom);
  expect(distance, 'px from the notice to its field').toBeLessThanOrEqual(200);
  await expect(notice, 'the notice names the simulated time').toContainText('(hz)');
  expect(await page.locator('#notices li.notice').count(), 'notices in the summary').toBeGreaterThanOrEqual(1);
  await app.shot(page, 'notice-at-field', { fullPage: false });
  await page.fill('#f-n', '2000');
  await page.locator('#f-n').dispatchEvent('change');
  await expect(page.locator('.field-notice'), 'the notice to clear').toHaveCount(0);
  await expect(page.locator('#notices li.notice'), 'notices in the summary after the change').toHaveCount(0);
});

test('dark colour scheme gives a dark page', async ({ app }) => {
  const page = await app.newPage({ colorScheme: 'dark' });
  await app.open(page, '?v=1&p=poisson');
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
  expect(bg, 'the background colour of body or html').not.toBeNull();
  const sum = bg.rgb.reduce((a, b) => a + b, 0);
  expect(sum, `r+g+b of the ${bg.element} background ${bg.css}`).toBeLessThan(200);
  await app.shot(page, 'dark-poisson');
});

// The operator's question, answered and applied: 5,000 jobs, 50 a second.
test('jitter: "use this window" sets the window that holds on 95 % of nights', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=jitter&s=1&n=5000&rps=50&hi=2');
  await expect(page.locator('dd[data-key="seconds-over"]'), 'seconds over the limit at 2 min').not.toHaveText(/^0 of/);
  const answer = page.locator('#window-answer');
  await expect(answer).toContainText('2 min 48 s to keep every second at or under 50 on 95 % of nights');
  await expect(answer, 'the answer is a live region').toHaveAttribute('aria-live', 'polite');
  await page.focus('#use-window');
  await page.keyboard.press('Enter');
  await expect.poll(() => queryParam(page, 'hi'), { message: 'hi in the URL' }).toBe('2.8');
  await expect(answer, 'the button to say the window is in use').toContainText('In use: max 2.8 min');
  expect(await page.evaluate(() => document.activeElement?.id), 'focus after "Use this window"').toBe('f-hi-range');
  // Its snippets carry the same whole seconds.
  const seconds = Math.round(2.8 * 60);
  await page.click('.use-it button[data-snippet="systemd"]');
  await expect(page.locator('.snippet[data-snippet="systemd"] code').first()).toContainText(`RandomizedDelaySec=${seconds}`);
  await page.click('.use-it button[data-snippet="crontab"]');
  await expect(page.locator('.snippet[data-snippet="crontab"] code').first()).toContainText(`shuf -i 0-${seconds - 1} -n 1`);
  await app.shot(page, 'jitter-window-applied');
});

test('hash: a 2,000-line paste reads 2,000 ids, the link carries the first, drops are named', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 1100 } });
  await app.open(page, '?v=1&p=hash&s=1');
  // A spreadsheet column, one id a line.
  const column = Array.from({ length: 2000 }, (_, i) => `account-${1000 + i}`);
  await pasteInto(page, '#f-ids', column.join('\r\n'));
  const said = await until(
    async () => (await page.textContent('#f-ids-status')).match(/^2,000 ids read; a link carries the first (\d+) of them/),
    'the status to say 2,000 ids read',
  );
  const carried = Number(said[1]);
  expect(carried > 100 && carried < 2000, `the link carries ${carried} ids`).toBe(true);
  await expect.poll(async () => (await keyNumberMap(page)).keys, { message: 'the key number of ids' }).toBe('2,000 pasted ids');
  expect((await page.inputValue('#f-ids')).split('\n').length, 'lines in the text area').toBe(2000);
  await expect.poll(() => queryParam(page, 'ids'), { message: `the first ${carried} ids in the URL` }).toBe(column.slice(0, carried).join(','));
  // Repeats and an over-long id are dropped, and the page says why.
  await pasteInto(page, '#f-ids', `${column.join('\n')}\naccount-1000, account-1001\t${'x'.repeat(300)}`);
  const notice = await until(
    () => page.$$eval('#notices li.notice', (lis) => lis.map((li) => li.textContent).find((s) => s.includes('(ids): '))),
    'a notice about the ids',
  );
  expect(notice).toContain('2,000 ids read, 3 dropped: 2 repeated (first "account-1000"), 1 longer than 256 characters');
  await page.locator('#f-ids').scrollIntoViewIfNeeded();
  await app.shot(page, 'hash-ids-pasted');
});

test('slots: the clock hand moves while playing and stops when paused', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=slots&s=1');
  const ring = () => page.$eval('#slots-ring', (c) => c.toDataURL());
  const play = page.locator('#slots-play');
  await expect(play, 'aria-pressed before playing').toHaveAttribute('aria-pressed', 'false');
  const still = await ring();
  await play.click();
  await expect(play, 'aria-pressed while playing').toHaveAttribute('aria-pressed', 'true');
  await expect.poll(ring, { message: 'the ring to change while playing' }).not.toBe(still);
  await play.click();
  await expect(play, 'aria-pressed after pausing').toHaveAttribute('aria-pressed', 'false');
  // The hand moves every frame while playing: after a frame for the pause
  // to land, twenty more must leave the ring as it is.
  await nextFrame(page);
  const paused = await ring();
  for (let frame = 0; frame < 20; frame++) await nextFrame(page);
  expect(await ring(), 'the ring after pausing').toBe(paused);
  // Scrubbing moves the hand to a chosen moment of the cycle.
  await page.fill('#slots-scrub', '500');
  await expect(page.locator('.slots-time'), 'the clock at half the cycle').toContainText(/slot 8 of 15/);
  await app.shot(page, 'slots-scrubbed');
});

test('slots: a slot can be reached and read with the keyboard', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=slots&s=1');
  let reached = null;
  for (let i = 0; i < 80 && reached === null; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.dataset?.slot ?? null);
  }
  expect(reached, 'a slot button reached by Tab').not.toBeNull();
  const note = page.locator('#slots-note');
  await expect(note, `#slots-note to describe slot ${Number(reached) + 1}`).toHaveText(new RegExp(`^\\s*Slot ${Number(reached) + 1} of 15`));
  await expect(note, 'how many accounts').toContainText('accounts');
  await expect(note).toHaveAttribute('aria-live', 'polite');
});

test('slots: the ring steps with the arrow keys and presents fullscreen', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=slots&s=1');
  const note = page.locator('#slots-note');
  await page.focus('#slots-ring');
  await expect(note, "the clock's slot 1 on focus").toHaveText(/^Slot 1 of 15/);
  await page.keyboard.press('ArrowRight');
  await expect(note, 'ArrowRight to read slot 2').toHaveText(/^Slot 2 of 15 \(32 min–1 h 4 min/);
  await page.keyboard.press('End');
  await expect(note, 'End to read slot 15').toHaveText(/^Slot 15 of 15/);
  await page.click('#slots-present');
  await expect
    .poll(() => page.evaluate(() => document.fullscreenElement?.classList.contains('chart-block') ?? false), { message: "the ring's block to go fullscreen" })
    .toBe(true);
  // The button follows the fullscreenchange event, which comes after the element is shown.
  await expect(page.locator('#slots-present'), 'aria-pressed while presenting').toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => page.$eval('#slots-ring', (c) => c.clientHeight), { message: 'the ring to grow' }).toBeGreaterThan(400);
  // Redrawn at its new size before the picture.
  await expect
    .poll(() => page.$eval('#slots-ring', (c) => Math.abs(c.width - c.clientWidth * devicePixelRatio) <= 2), { message: 'the ring redrawn at its size' })
    .toBe(true);
  await nextFrame(page);
  await app.shot(page, 'slots-presenting', { fullPage: false });
  await page.click('#slots-present');
  await expect.poll(() => page.evaluate(() => document.fullscreenElement === null), { message: 'the presenter view to close' }).toBe(true);
});
