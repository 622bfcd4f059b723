// The Learn page: every step draws, restores from its URL, shows the
// numbers its full panel shows and embeds; arrows and buttons move through
// the steps with the focus on each heading; presenter mode at 1920×1080
// and 1280×720 (every step and card on the screen, the text and charts
// large, a remote's keys, the ring's own view inside it); every step on a
// 390 px phone, its chart on the first screen; a step embedded through the
// picker; the first-visit pointer to the story.

import { expect, test, until } from '../fixtures.mjs';
import { addressSettled, blankCanvases, chartsCaughtUp, fleetSettled, keyNumberMap, nextFrame } from '../helpers.mjs';

const STEPS = 8;

/** The Queue's run, and its replications if any, are done. */
const queueSettled = (page, replicationsShown) =>
  page.waitForFunction(
    (replicationsShown) => {
      const run = document.querySelector('[data-run-status]')?.dataset.runStatus;
      const replicated = document.querySelector('[data-replication-status]')?.dataset.replicationStatus;
      if (replicationsShown) return run === 'done' && ['done', 'off'].includes(replicated);
      return (run ?? 'done') === 'done' && (replicated === undefined || replicated === 'done' || replicated === 'off');
    },
    replicationsShown,
    { timeout: 30_000 },
  );

/**
 * Waits until step `n`'s figure has what it needs (a run, a read fleet,
 * replications), its text is written for its parameters and its charts drawn.
 */
async function stepSettled(page, n) {
  await page.waitForSelector(`#learn[data-step="${n}"]`, { timeout: 30_000 });
  const panel = await page.getAttribute('#learn', 'data-panel');
  if (panel === 'fleet') await fleetSettled(page);
  if (panel === 'queue') await queueSettled(page, false);
  await page.waitForSelector('.step-text[data-current="true"]', { timeout: 30_000, state: 'attached' });
  await chartsCaughtUp(page);
}

/** Waits until a full panel opened from a step has its figures and its address. */
async function panelSettled(page) {
  const slug = await page.getAttribute('#panel', 'data-panel');
  if (slug === 'fleet') await fleetSettled(page);
  if (slug === 'queue') await queueSettled(page, true);
  await chartsCaughtUp(page);
  await addressSettled(page);
}

/** The step's paragraphs, once they are written for the page's parameters. */
async function stepText(page) {
  await page.waitForSelector('.step-text[data-current="true"] p', { timeout: 30_000 });
  return (await page.$$eval('.step-text > p', (ps) => ps.map((p) => p.textContent.trim()))).join(' ');
}

/** The replications' differences in words, as the page states them. */
const replicated = (page) => page.$$eval('li[data-difference]', (items) => items.map((item) => item.textContent.trim()));

/** Presenter mode's card count, "2 / 3": which card shows, of how many. */
async function buildCount(page) {
  const text = (await page.textContent('#learn .build-count')).trim();
  const [card, total] = text.replace(/^\D*/, '').split('/').map((part) => parseInt(part, 10));
  return { text, card, total };
}

/** Waits until every chart shows at its presenter size with its presenter text. */
const presenterDrawn = (page, what) =>
  expect
    .poll(
      () =>
        page.$$eval('#figure canvas', (canvases) =>
          canvases
            .filter((c) => c.checkVisibility())
            .every((c) => Number(c.dataset.textPx) >= 18 && Math.abs(c.width - c.clientWidth * devicePixelRatio) <= 2),
        ),
      { message: `${what}: the charts to redraw for presenter mode` },
    )
    .toBe(true);

/**
 * Run in the page: what presenter mode shows and where. `problems` lists a
 * block (a chart, a key number, a paragraph, a control, an answer, a
 * warning...) off the screen, under the step bar or over another block,
 * and a page or slide that scrolls; `small` the visible text under 28 px
 * (the step's prose) or 24 px (anything else). `figure` is the charts'
 * share of the screen, `axisPx` the size each chart drew its smallest text
 * at (its canvas's data-text-px).
 */
function presenterLayout() {
  const learn = document.querySelector('#learn');
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return e.checkVisibility() && r.width > 1 && r.height > 1;
  };
  const blocks = [];
  const add = (selector, what) =>
    document.querySelectorAll(selector).forEach((e) => shown(e) && blocks.push({ what, r: e.getBoundingClientRect() }));
  add('#figure canvas', 'a chart');
  add('dl.key-numbers .key-number', 'a key number');
  add('.step-text > p', 'a paragraph');
  add('#learn .controls .control', 'a control');
  add('#learn .answer', 'an answer');
  add('#learn .slots-warning', 'a warning');
  add('#learn .queue-differences li', 'a difference');
  add('#learn .build-count', 'the card count');
  add('#learn .step-head h2', 'the title');
  add('#learn .chart-head', "the chart's title");
  add('#learn .playback', 'the clock');
  add('#slots-present', "the ring's button");
  const bar = document.querySelector('nav.step-nav').getBoundingClientRect();
  const px = (v) => Math.round(v);
  const problems = [];
  for (const { what, r } of blocks) {
    if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) {
      problems.push(`${what} is off the screen at ${px(r.left)},${px(r.top)} to ${px(r.right)},${px(r.bottom)}`);
    }
    if (r.bottom > bar.top + 0.5 && r.top < bar.bottom - 0.5 && r.right > bar.left + 0.5 && r.left < bar.right - 0.5) {
      problems.push(`${what} reaches under the step bar (${px(r.bottom)} > ${px(bar.top)})`);
    }
  }
  for (let i = 0; i < blocks.length; i++) {
    for (let j = i + 1; j < blocks.length; j++) {
      const [a, b] = [blocks[i].r, blocks[j].r];
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
        problems.push(`${blocks[i].what} overlaps ${blocks[j].what}`);
      }
    }
  }
  const page = document.scrollingElement;
  if (page.scrollHeight > innerHeight) problems.push(`the page scrolls: ${page.scrollHeight} px for ${innerHeight}`);
  if (learn.scrollTop !== 0 || learn.scrollHeight > learn.clientHeight + 1) {
    problems.push(`the slide scrolls: ${learn.scrollHeight} px for ${learn.clientHeight}, at ${learn.scrollTop}`);
  }

  // Every visible piece of text, by its parent's computed size; text
  // clipped away for a screen reader (.sr-only) is not visible.
  const small = [];
  let prosePx = Infinity;
  let otherPx = Infinity;
  const walker = document.createTreeWalker(learn, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const parent = node.parentElement;
    if (!parent.checkVisibility() || parent.closest('select')) continue;
    let clipped = false;
    for (let e = parent; e && e !== learn; e = e.parentElement) clipped ||= getComputedStyle(e).clipPath !== 'none';
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (clipped || box.width < 1 || box.height < 1) continue;
    const size = parseFloat(getComputedStyle(parent).fontSize);
    const prose = parent.closest('.step-text > p') !== null;
    if (prose) prosePx = Math.min(prosePx, size);
    else otherPx = Math.min(otherPx, size);
    if (size < (prose ? 28 : 24) - 0.01) small.push(`${size} px: "${node.textContent.trim().slice(0, 40)}"`);
  }
  for (const select of learn.querySelectorAll('select')) {
    if (!shown(select)) continue;
    const size = parseFloat(getComputedStyle(select).fontSize);
    otherPx = Math.min(otherPx, size);
    if (size < 24) small.push(`${size} px: a list's choice`);
  }
  const charts = [...document.querySelectorAll('#figure canvas')].filter(shown);
  const area = charts.reduce((sum, c) => {
    const r = c.getBoundingClientRect();
    return sum + r.width * r.height;
  }, 0);
  return {
    card: learn.dataset.card,
    problems,
    small,
    prosePx,
    otherPx,
    figure: area / (innerWidth * innerHeight),
    axisPx: charts.map((c) => Number(c.dataset.textPx)),
  };
}

test('learn: every step draws, restores from its URL, matches its full panel and embeds', async ({ app }) => {
  const page = await app.newPage();
  const panelPage = await app.newPage();
  const embedPage = await app.newPage({ viewport: { width: 720, height: 900 } });
  for (let n = 1; n <= STEPS; n++) {
    await app.open(page, `?v=1&p=learn&step=${n}`, '#learn');
    await stepSettled(page, n);
    expect(await blankCanvases(page), `step ${n}: blank canvases`).toEqual([]);
    expect(await page.locator('#figure canvas').count(), `step ${n}: charts`).toBeGreaterThan(0);
    await stepText(page);
    expect(await page.locator('.step-text > p').count(), `step ${n}: paragraphs`).toBeGreaterThanOrEqual(2);
    const labels = await page.$$eval('#figure canvas', (all) => all.map((c) => c.getAttribute('aria-label') ?? ''));
    expect(labels.filter((label) => !/\d/.test(label)), `step ${n}: charts whose text alternative states no number`).toEqual([]);
    await app.shot(page, `learn-step-${n}`);

    const numbers = await keyNumberMap(page);
    const rows = await replicated(page);
    expect(Object.keys(numbers).length + rows.length, `step ${n}: numbers shown`).toBeGreaterThan(0);
    const full = await page.getAttribute('a.open-panel', 'href');
    expect(full && !full.includes('p=learn'), `step ${n}: the full panel's link is ${full}`).toBe(true);
    await app.open(panelPage, full);
    await panelSettled(panelPage);
    const inPanel = await keyNumberMap(panelPage);
    for (const [key, value] of Object.entries(numbers)) expect(inPanel[key], `step ${n}: ${key} in the full panel`).toBe(value);
    if (rows.length > 0) {
      const panelRows = await replicated(panelPage);
      for (const row of rows) expect(panelRows, `step ${n}: the full panel's differences`).toContain(row);
    }

    // Embedded, the step shows its text and figure without the page around it.
    await embedPage.goto(`${app.base}?v=1&p=learn&step=${n}&embed=1`);
    await stepSettled(embedPage, n);
    await expect(embedPage.locator('header'), `step ${n} embedded: the header`).toHaveCount(0);
    expect(await blankCanvases(embedPage), `step ${n} embedded: blank canvases`).toEqual([]);
    const embedNumbers = await keyNumberMap(embedPage);
    for (const [key, value] of Object.entries(numbers)) expect(embedNumbers[key], `step ${n} embedded: ${key}`).toBe(value);
  }

  // A value moved on a step travels in its link and comes back.
  await app.open(page, '?v=1&p=learn&step=2', '#learn');
  await page.fill('#f-hi', '2.5');
  await page.press('#f-hi', 'Enter');
  await expect.poll(() => new URL(page.url()).searchParams.get('hi'), { message: 'hi in the URL' }).toBe('2.5');
  const link = page.url();
  expect(new URL(link).searchParams.get('step'), `the step of the link ${link}`).toBe('2');
  const again = await app.newPage();
  await again.goto(link);
  await stepSettled(again, 2);
  await expect(again.locator('#f-hi'), 'hi in the restored step').toHaveValue('2.5');
  const over = await keyNumberMap(again);
  expect(over['seconds-over'], 'with 2.5 min, seconds over the limit').toMatch(/^0 /);

  // The text follows the controls: a teacher's 12 h cycle and 192 buckets
  // on the slots step, and more workers on the herd.
  await app.open(page, '?v=1&p=learn&step=6&cyc=43200&bk=192', '#learn');
  await stepSettled(page, 6);
  const slotsText = await stepText(page);
  const slotsNumbers = await keyNumberMap(page);
  for (const phrase of ['192 slots of 3 min 45 s', 'cycle of 12 h', 'twice the accounts', `${slotsNumbers['sql-unscheduled']} accounts are never run`]) {
    expect(slotsText, 'step 6 at 12 h and 192 buckets').toContain(phrase);
  }
  expect(slotsText, 'step 6 speaking of the defaults').not.toMatch(/255|eight hours|15 slots/);
  await app.open(page, '?v=1&p=learn&step=1', '#learn');
  await stepSettled(page, 1);
  await page.fill('#f-w', '8');
  await page.press('#f-w', 'Enter');
  await expect
    .poll(async () => (await page.getAttribute('.step-text', 'data-current')) === 'true' && (await stepText(page)).includes('8 start at once'), {
      message: 'the herd text to follow 8 workers',
    })
    .toBe(true);
  await stepSettled(page, 1);
  const herdText = await stepText(page);
  const herdNumbers = await keyNumberMap(page);
  for (const key of ['max-depth', 'mean-wait', 'p95-wait', 'utilization']) expect(herdText, `the herd text's ${key}`).toContain(herdNumbers[key]);
});

test('learn: arrows, buttons and the step list move through the steps, the focus on each heading', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=learn&step=1', '#learn');
  await expect(page.locator('nav a[data-panel="learn"]'), 'Learn the current page').toHaveAttribute('aria-current', 'page');
  await page.keyboard.press('ArrowRight');
  await stepSettled(page, 2);
  expect(await page.evaluate(() => document.activeElement?.id), 'the focus').toBe('step-title');
  await expect(page.locator('#step-title'), 'step 2').toHaveText('Jitter');
  expect(new URL(page.url()).searchParams.get('step'), 'the step in the URL').toBe('2');
  await page.keyboard.press('ArrowLeft');
  await stepSettled(page, 1);
  await page.click('#step-next');
  await stepSettled(page, 2);
  await page.click('.step-list li:nth-child(5) a');
  await stepSettled(page, 5);
  await expect(page.locator('.step-list li:nth-child(5) a'), 'step 5 marked current').toHaveAttribute('aria-current', 'step');
  // Arrows in a slider move the slider, not the step.
  const field = await page.inputValue('#f-n');
  await page.focus('#f-n-range');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#f-n'), 'the slider moved by the arrow').not.toHaveValue(field);
  await nextFrame(page);
  await expect(page.locator('#learn'), 'the step after an arrow in a slider').toHaveAttribute('data-step', '5');
  await page.goBack();
  await stepSettled(page, 2);
});

test('learn: presenter mode fits 1920×1080 and 1280×720, every step and card on screen, large text, half the screen a figure', async ({ app }) => {
  test.setTimeout(300_000);
  for (const [width, height] of [
    [1920, 1080],
    [1280, 720],
  ]) {
    const page = await app.newPage({ viewport: { width, height } });
    await app.open(page, '?v=1&p=learn&step=1', '#learn');
    await stepSettled(page, 1);
    await page.click('#present');
    await page.waitForSelector('#learn.presenting');
    const sizes = [];
    for (let n = 1; n <= STEPS; n++) {
      await stepSettled(page, n);
      const { total } = await buildCount(page);
      for (let card = 1; card <= total; card++) {
        const at = await buildCount(page);
        expect(at.card === card && at.total === total, `step ${n} at ${width}×${height}: the count reads ${at.text}, not ${card} / ${total}`).toBe(true);
        await presenterDrawn(page, `step ${n} card ${card} at ${width}×${height}`);
        const seen = await page.evaluate(presenterLayout);
        const where = `step ${n} card ${card} (${seen.card}) at ${width}×${height}`;
        expect(seen.problems.slice(0, 4), `${where}: problems`).toEqual([]);
        expect(seen.small.slice(0, 4), `${where}: text too small`).toEqual([]);
        expect(seen.figure, `${where}: the figure's share of the screen`).toBeGreaterThanOrEqual(0.45);
        expect(seen.axisPx.length > 0 && seen.axisPx.every((px) => px >= 18), `${where}: the charts' smallest text is ${seen.axisPx.join(', ')} px`).toBe(true);
        sizes.push(seen);
        await app.shot(page, card === 1 ? `learn-present-${width}-${n}` : `learn-present-${width}-${n}-card${card}`, { fullPage: false });
        await page.keyboard.press('PageDown');
      }
      if (n < STEPS) {
        await stepSettled(page, n + 1);
        expect((await buildCount(page)).card, `step ${n + 1}'s first card`).toBe(1);
      }
    }
    await expect(page.locator('#learn'), 'Page Down past the last step').toHaveAttribute('data-step', String(STEPS));
    const prose = Math.min(...sizes.map((s) => s.prosePx).filter(Number.isFinite));
    const other = Math.min(...sizes.map((s) => s.otherPx));
    const figure = Math.min(...sizes.map((s) => s.figure));
    const axis = Math.min(...sizes.flatMap((s) => s.axisPx));
    console.log(`# presenter ${width}×${height}: prose ≥ ${prose} px, other text ≥ ${other} px, axis labels ≥ ${axis} px, figure ≥ ${(figure * 100).toFixed(1)} % of the screen`);
  }
});

test("learn: a remote's keys in presenter mode: cards, steps, blanking, Escape", async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 720 } });
  await app.open(page, '?v=1&p=learn&step=1', '#learn');
  await stepSettled(page, 1);
  // Outside presenter mode Page Down moves nothing and there are no cards.
  await page.keyboard.press('PageDown');
  await nextFrame(page);
  await expect(page.locator('#learn'), 'the step after Page Down outside presenter mode').toHaveAttribute('data-step', '1');
  expect(await page.locator('.step-text > p.paragraph:visible').count(), 'paragraphs shown outside presenter mode').toBeGreaterThanOrEqual(2);
  await page.click('#present');
  await page.waitForSelector('#learn.presenting');
  await expect.poll(() => page.evaluate(() => document.activeElement?.id), { message: 'presenter mode to focus the heading' }).toBe('step-title');
  const expectAt = async (step, card, what) => {
    await expect(page.locator('#learn'), `${what}: the step`).toHaveAttribute('data-step', String(step));
    const at = await buildCount(page);
    expect(at.card, `${what}: the card of ${at.text}`).toBe(card);
    expect(await page.locator('.step-text > p.paragraph:visible').count(), `${what}: paragraphs shown at once`).toBeLessThanOrEqual(1);
    return at;
  };
  const { total } = await expectAt(1, 1, 'presenting');
  await page.keyboard.press('PageDown');
  await expectAt(1, 2, 'Page Down');
  await page.keyboard.press('ArrowRight');
  await expectAt(1, 3, 'the right arrow');
  await page.keyboard.press(' ');
  await expectAt(1, 4, 'Space');
  for (let card = 5; card <= total; card++) await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  await stepSettled(page, 2);
  await expectAt(2, 1, 'Page Down after the last card');
  await page.keyboard.press('PageUp');
  await stepSettled(page, 1);
  await expectAt(1, total, 'Page Up from the first card');
  await page.keyboard.press('ArrowLeft');
  await expectAt(1, total - 1, 'the left arrow');

  // B and "." blank the screen; the same key, or any move, shows it again.
  const cover = async () =>
    page.evaluate(() => {
      const blank = document.querySelector('.presenter-blank');
      if (!blank || !blank.checkVisibility()) return null;
      const r = blank.getBoundingClientRect();
      return {
        full: r.left <= 0 && r.top <= 0 && r.right >= innerWidth && r.bottom >= innerHeight,
        black: getComputedStyle(blank).backgroundColor === 'rgb(0, 0, 0)',
        told: blank.getAttribute('role') === 'status' && /blank/i.test(blank.textContent),
        top: document.elementFromPoint(innerWidth / 2, innerHeight / 2) === blank,
      };
    });
  await page.keyboard.press('b');
  expect(await cover(), 'the cover after B').toEqual({ full: true, black: true, told: true, top: true });
  await app.shot(page, 'learn-present-blank', { fullPage: false });
  await page.keyboard.press('b');
  expect(await cover(), 'the cover after B again').toBeNull();
  await page.keyboard.press('.');
  expect(await cover(), 'the cover after "."').not.toBeNull();
  await page.keyboard.press('PageDown');
  expect(await cover(), 'the cover after Page Down').toBeNull();
  await expectAt(1, total - 1, 'Page Down on a blank screen');

  // Keys in a field are the field's.
  await page.focus('#f-n');
  await page.keyboard.press('b');
  await page.keyboard.press('PageDown');
  expect(await cover(), 'the cover after B in a field').toBeNull();
  await expectAt(1, total - 1, 'Page Down in a field');

  // A chart clicked on keeps its arrows, not the remote's Page Down.
  await page.focus('#figure canvas');
  await page.keyboard.press('PageDown');
  await expectAt(1, total, 'Page Down on a focused chart');

  await page.focus('#step-title');
  await page.keyboard.press('Escape');
  await expect(page.locator('#learn.presenting'), 'presenter mode after Escape').toHaveCount(0);
  expect(await page.locator('.step-text > p.paragraph:visible').count(), 'paragraphs shown after presenter mode').toBeGreaterThanOrEqual(2);
});

test("learn: the ring's own full-screen view nests inside presenter mode", async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 1280, height: 720 } });
  await app.open(page, '?v=1&p=learn&step=6', '#learn');
  await stepSettled(page, 6);
  await page.click('#present');
  await page.waitForSelector('#learn.presenting');
  const ring = () =>
    page.evaluate(() => {
      const block = document.querySelector('.chart-block.ring-view');
      const canvas = document.querySelector('#slots-ring');
      const box = canvas.getBoundingClientRect();
      return {
        open: block !== null,
        presenting: document.querySelector('#learn.presenting') !== null,
        share: (box.width * box.height) / (innerWidth * innerHeight),
        full: document.fullscreenElement?.tagName ?? null,
        drawn: Math.abs(canvas.width - canvas.clientWidth * devicePixelRatio) <= 2,
      };
    });
  for (const leave of ['button', 'Escape']) {
    await page.click('#slots-present');
    // Open, and the ring redrawn at its new size.
    await expect.poll(async () => (await ring()).open && (await ring()).drawn, { message: 'the ring view to open' }).toBe(true);
    await chartsCaughtUp(page);
    const opened = await ring();
    expect(opened.presenting && opened.share > 0.5, `the ring view: ${JSON.stringify(opened)}`).toBe(true);
    if (leave === 'button') await app.shot(page, 'learn-present-ring', { fullPage: false });
    // The remote's moves are the ring view's while it is open.
    await page.keyboard.press('PageDown');
    expect((await buildCount(page)).card, 'the card after Page Down under the ring view').toBe(1);
    if (leave === 'button') await page.click('#slots-present');
    else await page.keyboard.press('Escape');
    await expect.poll(async () => (await ring()).open, { message: `the ring view to close by ${leave}` }).toBe(false);
    await presenterDrawn(page, `back from the ring view by ${leave}`);
    const closed = await ring();
    expect(closed.presenting, `leaving the ring view by ${leave}, presenter mode: ${JSON.stringify(closed)}`).toBe(true);
    await expect(page.locator('#learn'), `the step after leaving the ring view by ${leave}`).toHaveAttribute('data-step', '6');
  }
  const seen = await page.evaluate(presenterLayout);
  expect(seen.problems, 'back from the ring view: problems').toEqual([]);
  expect(seen.figure, "back from the ring view: the figure's share").toBeGreaterThanOrEqual(0.45);
});

test('learn: every step on a 390 px phone, nothing wider than the screen', async ({ app }) => {
  const page = await app.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  for (let n = 1; n <= STEPS; n++) {
    await app.open(page, `?v=1&p=learn&step=${n}`, '#learn');
    await stepSettled(page, n);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `step ${n}: px wider than the screen`).toBeLessThanOrEqual(0);
    const top = await page.evaluate(() => document.querySelector('#figure canvas').getBoundingClientRect().top + scrollY);
    expect(top, `step ${n}: px down to the chart`).toBeLessThan(844);
    await app.shot(page, `learn-phone-${n}`);
  }
});

test('learn: a step embeds through the picker, text, controls and figure', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=learn&step=4', '#learn');
  await page.click('#embed-button');
  // The dialog grows as its preview loads; a click while it moves can miss.
  await until(async () => {
    await page.locator('#embed-controls').setChecked(true, { timeout: 2000 }).catch(() => {});
    return page.isChecked('#embed-controls');
  }, 'the embed picker to take "with its controls"', 15_000);
  const snippet = await page.inputValue('#embed-snippet');
  expect(snippet, 'the snippet').toMatch(/p=learn&amp;step=4/);
  expect(snippet, 'the snippet').toMatch(/embed=1/);
  const src = snippet.match(/src="([^"]*p=learn[^"]*)"/)[1].replace(/&amp;/g, '&');
  const embed = await app.newPage({ viewport: { width: 720, height: 900 } });
  await embed.goto(src);
  await stepSettled(embed, 4);
  await expect(embed.locator('header, nav.step-nav'), 'the header or the step list in the embed').toHaveCount(0);
  await expect(embed.locator('#learn .step-text .controls'), "the embed's controls").toBeVisible();
  expect(await blankCanvases(embed), 'blank canvases').toEqual([]);
  await app.shot(embed, 'learn-embed-4');
});

test('learn: a first visit points to the story, once', async ({ app }) => {
  const page = await app.newPage();
  await app.open(page, '?v=1&p=slots');
  await page.click('#first-visit');
  await stepSettled(page, 1);
  await app.open(page, '?v=1&p=slots');
  await expect(page.locator('#first-visit'), 'the pointer on the second visit').toHaveCount(0);
});
