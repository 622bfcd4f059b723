// The Learn page's end-to-end checks, run by e2e.mjs with its harness: every
// step draws, restores from its URL and shows the numbers its full panel
// shows; arrows and buttons move through the steps with the focus on each
// heading; presenter mode at 1920×1080 and 1280×720 (every step and card on
// the screen, the text and charts large, a remote's keys, the ring's own
// view inside it); every step on a 390 px phone, its chart on the first
// screen; a step embedded through the picker; the first-visit pointer to
// the story.

import { assert, blankCanvases, poll } from './e2e.mjs';
import { fleetSettled } from './fleet.mjs';

const STEPS = 8;

/** Waits until step `n`'s figure has what it needs: a run, a read fleet, replications. */
async function stepSettled(page, n) {
  await page.waitForSelector(`#learn[data-step="${n}"]`, { timeout: 30_000 });
  const panel = await page.getAttribute('#learn', 'data-panel');
  if (panel === 'fleet') await fleetSettled(page);
  if (panel === 'queue') {
    await page.waitForFunction(
      () => {
        const run = document.querySelector('[data-run-status]')?.dataset.runStatus;
        const replicated = document.querySelector('[data-replication-status]')?.dataset.replicationStatus;
        return (run ?? 'done') === 'done' && (replicated === undefined || replicated === 'done' || replicated === 'off');
      },
      null,
      { timeout: 30_000 },
    );
  }
  await page.waitForTimeout(300);
}

/** The step's paragraphs, once they are written for the page's parameters. */
async function stepText(page) {
  await page.waitForSelector('.step-text[data-current="true"] p', { timeout: 30_000 });
  return (await page.$$eval('.step-text > p', (ps) => ps.map((p) => p.textContent.trim()))).join(' ');
}

const keyNumbers = (page) =>
  page.$$eval('dd[data-key]', (dds) => Object.fromEntries(dds.map((dd) => [dd.dataset.key, dd.textContent.trim()])));

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
  poll(
    () =>
      page.$$eval('#figure canvas', (canvases) =>
        canvases
          .filter((c) => c.checkVisibility())
          .every((c) => Number(c.dataset.textPx) >= 18 && Math.abs(c.width - c.clientWidth * devicePixelRatio) <= 2),
      ),
    `${what}: the charts to redraw for presenter mode`,
  );

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

export async function learnChecks({ check, openApp, BASE }) {
  await check('learn: every step draws, restores from its URL, matches its full panel and embeds', async (t) => {
    const page = await t.newPage();
    const panelPage = await t.newPage();
    const embedPage = await t.newPage({ viewport: { width: 720, height: 900 } });
    for (let n = 1; n <= STEPS; n++) {
      await openApp(page, `?v=1&p=learn&step=${n}`, '#learn');
      await stepSettled(page, n);
      const blank = await blankCanvases(page);
      assert(blank.length === 0, `step ${n}: blank canvases ${blank.join(', ')}`);
      const canvases = await page.locator('#figure canvas').count();
      assert(canvases > 0, `step ${n} draws no chart`);
      await stepText(page);
      const paragraphs = await page.locator('.step-text > p').count();
      assert(paragraphs >= 2, `step ${n} has ${paragraphs} paragraphs`);
      const labels = await page.$$eval('#figure canvas', (all) => all.map((c) => c.getAttribute('aria-label') ?? ''));
      assert(labels.every((label) => /\d/.test(label)), `step ${n}: a chart's text alternative states no number`);
      await t.shot(page, `learn-step-${n}`);

      const numbers = await keyNumbers(page);
      const rows = await replicated(page);
      assert(Object.keys(numbers).length + rows.length > 0, `step ${n} shows no numbers`);
      const full = await page.getAttribute('a.open-panel', 'href');
      assert(full && !full.includes('p=learn'), `step ${n}: the full panel's link is ${full}`);
      await openApp(panelPage, full);
      await stepSettledPanel(panelPage);
      const inPanel = await keyNumbers(panelPage);
      for (const [key, value] of Object.entries(numbers)) {
        assert(inPanel[key] === value, `step ${n}: ${key} reads "${value}", the full panel "${inPanel[key]}"`);
      }
      if (rows.length > 0) {
        const panelRows = await replicated(panelPage);
        for (const row of rows) assert(panelRows.includes(row), `step ${n}: the full panel lacks ${row}`);
      }

      // Embedded, the step shows its text and figure without the page around it.
      await embedPage.goto(`${BASE}?v=1&p=learn&step=${n}&embed=1`);
      await stepSettled(embedPage, n);
      assert((await embedPage.locator('header').count()) === 0, `step ${n} embedded shows the header`);
      const embedBlank = await blankCanvases(embedPage);
      assert(embedBlank.length === 0, `step ${n} embedded: blank canvases ${embedBlank.join(', ')}`);
      const embedNumbers = await keyNumbers(embedPage);
      for (const [key, value] of Object.entries(numbers)) {
        assert(embedNumbers[key] === value, `step ${n} embedded: ${key} reads "${embedNumbers[key]}", not "${value}"`);
      }
    }

    // A value moved on a step travels in its link and comes back.
    await openApp(page, '?v=1&p=learn&step=2', '#learn');
    await page.fill('#f-hi', '2.5');
    await page.press('#f-hi', 'Enter');
    await poll(async () => new URL(page.url()).searchParams.get('hi') === '2.5', 'the URL to carry hi=2.5');
    const link = page.url();
    assert(new URL(link).searchParams.get('step') === '2', `the link is ${link}`);
    const again = await t.newPage();
    await again.goto(link);
    await stepSettled(again, 2);
    assert((await again.inputValue('#f-hi')) === '2.5', 'the restored step lost hi=2.5');
    const over = await keyNumbers(again);
    assert(over['seconds-over']?.startsWith('0 '), `with 2.5 min, seconds over the limit: ${over['seconds-over']}`);

    // The text follows the controls: a teacher's 12 h cycle and 192 buckets
    // on the slots step, and more workers on the herd.
    await openApp(page, '?v=1&p=learn&step=6&cyc=43200&bk=192', '#learn');
    await stepSettled(page, 6);
    const slotsText = await stepText(page);
    const slotsNumbers = await keyNumbers(page);
    for (const phrase of ['192 slots of 3 min 45 s', 'cycle of 12 h', 'twice the accounts', `${slotsNumbers['sql-unscheduled']} accounts are never run`]) {
      assert(slotsText.includes(phrase), `step 6 at 12 h and 192 buckets does not say "${phrase}": ${slotsText}`);
    }
    assert(!/255|eight hours|15 slots/.test(slotsText), `step 6 still speaks of the defaults: ${slotsText}`);
    await openApp(page, '?v=1&p=learn&step=1', '#learn');
    await stepSettled(page, 1);
    await page.fill('#f-w', '8');
    await page.press('#f-w', 'Enter');
    await poll(async () => (await page.getAttribute('.step-text', 'data-current')) === 'true' && (await stepText(page)).includes('8 start at once'), 'the herd text to follow 8 workers');
    await stepSettled(page, 1);
    const herdText = await stepText(page);
    const herdNumbers = await keyNumbers(page);
    for (const key of ['max-depth', 'mean-wait', 'p95-wait', 'utilization']) {
      assert(herdText.includes(herdNumbers[key]), `the herd text lacks ${key} = ${herdNumbers[key]}: ${herdText}`);
    }

    async function stepSettledPanel(p) {
      const slug = await p.getAttribute('#panel', 'data-panel');
      if (slug === 'fleet') await fleetSettled(p);
      if (slug === 'queue') {
        await p.waitForFunction(
          () =>
            document.querySelector('[data-run-status]')?.dataset.runStatus === 'done' &&
            ['done', 'off'].includes(document.querySelector('[data-replication-status]')?.dataset.replicationStatus),
          null,
          { timeout: 30_000 },
        );
      }
      await p.waitForTimeout(300);
    }
  });

  await check('learn: arrows, buttons and the step list move through the steps, the focus on each heading', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=learn&step=1', '#learn');
    assert((await page.getAttribute('nav a[data-panel="learn"]', 'aria-current')) === 'page', 'Learn is not the current page');
    await page.keyboard.press('ArrowRight');
    await stepSettled(page, 2);
    const focused = await page.evaluate(() => document.activeElement?.id);
    assert(focused === 'step-title', `the focus is on ${focused}`);
    assert((await page.textContent('#step-title')).trim() === 'Jitter', 'step 2 is not Jitter');
    assert(new URL(page.url()).searchParams.get('step') === '2', `the URL is ${page.url()}`);
    await page.keyboard.press('ArrowLeft');
    await stepSettled(page, 1);
    await page.click('#step-next');
    await stepSettled(page, 2);
    await page.click('.step-list li:nth-child(5) a');
    await stepSettled(page, 5);
    assert((await page.getAttribute('.step-list li:nth-child(5) a', 'aria-current')) === 'step', 'step 5 is not marked current');
    // Arrows in a slider move the slider, not the step.
    await page.focus('#f-n-range');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(300);
    assert((await page.getAttribute('#learn', 'data-step')) === '5', 'an arrow in a slider moved the step');
    await page.goBack();
    await stepSettled(page, 2);
  });

  await check('learn: presenter mode fits 1920×1080 and 1280×720, every step and card on screen, large text, half the screen a figure', async (t) => {
    for (const [width, height] of [
      [1920, 1080],
      [1280, 720],
    ]) {
      const page = await t.newPage({ viewport: { width, height } });
      await openApp(page, '?v=1&p=learn&step=1', '#learn');
      await stepSettled(page, 1);
      await page.click('#present');
      await page.waitForSelector('#learn.presenting');
      const sizes = [];
      for (let n = 1; n <= STEPS; n++) {
        await stepSettled(page, n);
        const { total } = await buildCount(page);
        for (let card = 1; card <= total; card++) {
          const at = await buildCount(page);
          assert(at.card === card && at.total === total, `step ${n} at ${width}×${height}: the count reads ${at.text}, not ${card} / ${total}`);
          await presenterDrawn(page, `step ${n} card ${card} at ${width}×${height}`);
          const seen = await page.evaluate(presenterLayout);
          const where = `step ${n} card ${card} (${seen.card}) at ${width}×${height}`;
          assert(seen.problems.length === 0, `${where}: ${seen.problems.slice(0, 4).join('; ')}`);
          assert(seen.small.length === 0, `${where}: text too small: ${seen.small.slice(0, 4).join('; ')}`);
          assert(seen.figure >= 0.45, `${where}: the figure covers ${(seen.figure * 100).toFixed(1)} % of the screen`);
          assert(seen.axisPx.length > 0 && seen.axisPx.every((px) => px >= 18), `${where}: the charts' smallest text is ${seen.axisPx.join(', ')} px`);
          sizes.push(seen);
          await t.shot(page, card === 1 ? `learn-present-${width}-${n}` : `learn-present-${width}-${n}-card${card}`, { fullPage: false });
          await page.keyboard.press('PageDown');
        }
        if (n < STEPS) {
          await stepSettled(page, n + 1);
          assert((await buildCount(page)).card === 1, `step ${n + 1} did not open at its first card`);
        }
      }
      assert((await page.getAttribute('#learn', 'data-step')) === String(STEPS), 'Page Down moved past the last step');
      const prose = Math.min(...sizes.map((s) => s.prosePx).filter(Number.isFinite));
      const other = Math.min(...sizes.map((s) => s.otherPx));
      const figure = Math.min(...sizes.map((s) => s.figure));
      const axis = Math.min(...sizes.flatMap((s) => s.axisPx));
      console.log(`# presenter ${width}×${height}: prose ≥ ${prose} px, other text ≥ ${other} px, axis labels ≥ ${axis} px, figure ≥ ${(figure * 100).toFixed(1)} % of the screen`);
    }
  });

  await check("learn: a remote's keys in presenter mode: cards, steps, blanking, Escape", async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 720 } });
    await openApp(page, '?v=1&p=learn&step=1', '#learn');
    await stepSettled(page, 1);
    // Outside presenter mode Page Down moves nothing and there are no cards.
    await page.keyboard.press('PageDown');
    await page.waitForTimeout(200);
    assert((await page.getAttribute('#learn', 'data-step')) === '1', 'Page Down moved a step outside presenter mode');
    assert((await page.locator('.step-text > p.paragraph:visible').count()) >= 2, 'outside presenter mode not every paragraph shows');
    await page.click('#present');
    await page.waitForSelector('#learn.presenting');
    await poll(async () => (await page.evaluate(() => document.activeElement?.id)) === 'step-title', 'presenter mode to focus the heading');
    const expectAt = async (step, card, what) => {
      await poll(async () => (await page.getAttribute('#learn', 'data-step')) === String(step), `${what}: step ${step}`);
      const at = await buildCount(page);
      assert(at.card === card, `${what}: card ${at.text}, not ${card}`);
      const visible = await page.locator('.step-text > p.paragraph:visible').count();
      assert(visible <= 1, `${what}: ${visible} paragraphs show at once`);
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
    const blanked = await cover();
    assert(blanked && blanked.full && blanked.black && blanked.top && blanked.told, `B: the cover is ${JSON.stringify(blanked)}`);
    await t.shot(page, 'learn-present-blank', { fullPage: false });
    await page.keyboard.press('b');
    assert((await cover()) === null, 'B again left the screen blank');
    await page.keyboard.press('.');
    assert((await cover()) !== null, '"." did not blank the screen');
    await page.keyboard.press('PageDown');
    assert((await cover()) === null, 'Page Down left the screen blank');
    await expectAt(1, total - 1, 'Page Down on a blank screen');

    // Keys in a field are the field's.
    await page.focus('#f-n');
    await page.keyboard.press('b');
    await page.keyboard.press('PageDown');
    assert((await cover()) === null, 'B in a field blanked the screen');
    await expectAt(1, total - 1, 'Page Down in a field');

    // A chart clicked on keeps its arrows, not the remote's Page Down.
    await page.focus('#figure canvas');
    await page.keyboard.press('PageDown');
    await expectAt(1, total, 'Page Down on a focused chart');

    await page.focus('#step-title');
    await page.keyboard.press('Escape');
    await poll(async () => (await page.locator('#learn.presenting').count()) === 0, 'Escape to leave presenter mode');
    assert((await page.locator('.step-text > p.paragraph:visible').count()) >= 2, 'after presenter mode not every paragraph shows');
  });

  await check("learn: the ring's own full-screen view nests inside presenter mode", async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 720 } });
    await openApp(page, '?v=1&p=learn&step=6', '#learn');
    await stepSettled(page, 6);
    await page.click('#present');
    await page.waitForSelector('#learn.presenting');
    const ring = () =>
      page.evaluate(() => {
        const block = document.querySelector('.chart-block.ring-view');
        const canvas = document.querySelector('#slots-ring').getBoundingClientRect();
        return {
          open: block !== null,
          presenting: document.querySelector('#learn.presenting') !== null,
          share: (canvas.width * canvas.height) / (innerWidth * innerHeight),
          full: document.fullscreenElement?.tagName ?? null,
        };
      });
    for (const leave of ['button', 'Escape']) {
      await page.click('#slots-present');
      await poll(async () => (await ring()).open, 'the ring view to open');
      await page.waitForTimeout(400);
      const opened = await ring();
      assert(opened.presenting && opened.share > 0.5, `the ring view: ${JSON.stringify(opened)}`);
      if (leave === 'button') await t.shot(page, 'learn-present-ring', { fullPage: false });
      // The remote's moves are the ring view's while it is open.
      await page.keyboard.press('PageDown');
      assert((await buildCount(page)).card === 1, 'Page Down moved the step under the ring view');
      if (leave === 'button') await page.click('#slots-present');
      else await page.keyboard.press('Escape');
      await poll(async () => !(await ring()).open, `the ring view to close by ${leave}`);
      await page.waitForTimeout(300);
      const closed = await ring();
      assert(closed.presenting, `leaving the ring view by ${leave} left presenter mode: ${JSON.stringify(closed)}`);
      assert((await page.getAttribute('#learn', 'data-step')) === '6', `leaving the ring view by ${leave} moved the step`);
    }
    const seen = await page.evaluate(presenterLayout);
    assert(seen.problems.length === 0 && seen.figure >= 0.45, `back from the ring view: ${seen.problems.join('; ')}, figure ${seen.figure}`);
  });

  await check('learn: every step on a 390 px phone, nothing wider than the screen', async (t) => {
    const page = await t.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    for (let n = 1; n <= STEPS; n++) {
      await openApp(page, `?v=1&p=learn&step=${n}`, '#learn');
      await stepSettled(page, n);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert(overflow <= 0, `step ${n} is ${overflow} px wider than the screen`);
      const top = await page.evaluate(() => document.querySelector('#figure canvas').getBoundingClientRect().top + scrollY);
      assert(top < 844, `step ${n}: the chart starts ${Math.round(top)} px down, below the first screen`);
      await t.shot(page, `learn-phone-${n}`);
    }
  });

  await check('learn: a step embeds through the picker, text, controls and figure', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=learn&step=4', '#learn');
    await page.click('#embed-button');
    // The dialog grows as its preview loads; a click while it moves can miss.
    await poll(async () => {
      await page.locator('#embed-controls').setChecked(true, { timeout: 2000 }).catch(() => {});
      return page.isChecked('#embed-controls');
    }, 'the embed picker to take "with its controls"', 15_000);
    const snippet = await page.inputValue('#embed-snippet');
    assert(/p=learn&amp;step=4/.test(snippet) && /embed=1/.test(snippet), `the snippet is ${snippet}`);
    const src = snippet.match(/src="([^"]*p=learn[^"]*)"/)[1].replace(/&amp;/g, '&');
    const embed = await t.newPage({ viewport: { width: 720, height: 900 } });
    await embed.goto(src);
    await stepSettled(embed, 4);
    assert((await embed.locator('header, nav.step-nav').count()) === 0, 'the embed shows the header or the step list');
    assert(await embed.locator('#learn .step-text .controls').isVisible(), 'the embed has no controls');
    const blank = await blankCanvases(embed);
    assert(blank.length === 0, `blank canvases ${blank.join(', ')}`);
    await t.shot(embed, 'learn-embed-4');
  });

  await check('learn: a first visit points to the story, once', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=slots');
    await page.click('#first-visit');
    await stepSettled(page, 1);
    await page.goto(`${BASE}?v=1&p=slots`);
    await page.waitForSelector('#panel');
    await page.waitForTimeout(300);
    assert((await page.locator('#first-visit').count()) === 0, 'the pointer shows again');
  });
}
