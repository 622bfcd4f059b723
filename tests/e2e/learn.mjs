// The Learn page's end-to-end checks, run by e2e.mjs with its harness: every
// step draws, restores from its URL and shows the numbers its full panel
// shows; arrows and buttons move through the steps with the focus on each
// heading; presenter mode at 1920×1080; every step on a 390 px phone; a step
// embedded through the picker; the first-visit pointer to the story.

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

  await check('learn: presenter mode at 1920×1080 gives the figure most of the screen, large text, step by step', async (t) => {
    const page = await t.newPage({ viewport: { width: 1920, height: 1080 } });
    for (const n of [2, 4]) {
      await openApp(page, `?v=1&p=learn&step=${n}`, '#learn');
      await stepSettled(page, n);
      await page.click('#present');
      await page.waitForTimeout(500);
      const layout = await page.evaluate(() => {
        const chart = document.querySelector('#figure canvas').getBoundingClientRect();
        const text = getComputedStyle(document.querySelector('.step-text p')).fontSize;
        return { width: chart.width, height: chart.height, text: parseFloat(text) };
      });
      assert(layout.width > 1920 * 0.55, `the chart is ${Math.round(layout.width)} px wide`);
      assert(layout.height > 1080 * 0.5, `the chart is ${Math.round(layout.height)} px tall`);
      assert(layout.text >= 20, `the text is ${layout.text} px`);
      await t.shot(page, `learn-present-${n}`, { fullPage: false });
      await page.keyboard.press('ArrowRight');
      await stepSettled(page, n + 1);
      assert(await page.locator('#learn.presenting').count(), 'the next step left presenter mode');
      await t.shot(page, `learn-present-${n + 1}`, { fullPage: false });
    }
  });

  await check('learn: every step on a 390 px phone, nothing wider than the screen', async (t) => {
    const page = await t.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    for (let n = 1; n <= STEPS; n++) {
      await openApp(page, `?v=1&p=learn&step=${n}`, '#learn');
      await stepSettled(page, n);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert(overflow <= 0, `step ${n} is ${overflow} px wider than the screen`);
      await t.shot(page, `learn-phone-${n}`);
    }
  });

  await check('learn: a step embeds through the picker, text, controls and figure', async (t) => {
    const page = await t.newPage();
    await openApp(page, '?v=1&p=learn&step=4', '#learn');
    await page.click('#embed-button');
    await page.check('#embed-controls');
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
