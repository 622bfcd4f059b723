// Checks for a reader on a keyboard or a phone, run by e2e.mjs with its
// harness: an operator's task done with the keys alone, each press counted;
// "Copy link" and the panels' answers announced; and on a phone, the
// Controls button over no chart or table wherever the page is scrolled.

import { assert, poll } from './e2e.mjs';

// The task of the issue: 8,000 jobs at 02:00 against an API that takes 40
// calls a second, on 95 % of nights. The reader needed 62 presses.
const MOST_PRESSES = 40;

/** A keyboard that counts its presses and names the focused element. */
function countingKeyboard(page) {
  const keys = {
    presses: 0,
    async press(key) {
      this.presses++;
      await page.keyboard.press(key);
    },
    focused: () => page.evaluate(() => {
      const el = document.activeElement;
      return el === document.body || !el ? 'body' : el.id || `${el.tagName.toLowerCase()}.${el.className}`;
    }),
    /** Tabs forward until `id` has the focus, at most `most` presses. */
    async tabTo(id, most = 15) {
      for (let i = 0; i < most && (await this.focused()) !== id; i++) await this.press('Tab');
      assert((await this.focused()) === id, `Tab never reached #${id}; the focus is on ${await this.focused()}`);
    },
    /** Types `text` into the focused box, a press a character. */
    async type(text) {
      for (const character of text) await this.press(character);
    },
    /** Moves the focused slider of field `key` with the arrows until its box reads `target`. */
    async slide(key, target, most = 12) {
      const value = async () => Number(await page.inputValue(`#f-${key}`));
      for (let i = 0; i < most && (await value()) !== target; i++) {
        const before = await value();
        await this.press((await value()) < target ? 'ArrowRight' : 'ArrowLeft');
        await poll(async () => (await value()) !== before, `#f-${key}-range to move from ${before}`, 2000);
      }
      assert((await value()) === target, `the ${key} slider passed ${target} without stopping there: ${await value()}`);
    },
  };
  return keys;
}

export async function keyboardChecks({ check, openApp, ORIGIN }) {
  await check('keyboard: the SRE task (8,000 jobs at 02:00, 40 /s, 95 %, use this window) in at most 40 presses', async (t) => {
    const page = await t.newPage({ viewport: { width: 1280, height: 900 } });
    await openApp(page, '?v=1&p=jitter&s=1');
    const keys = countingKeyboard(page);
    await keys.press('Tab');
    assert((await keys.focused()).startsWith('a.skip-link'), `the first Tab stop is ${await keys.focused()}`);
    await t.shot(page, 'keyboard-skip-link', { fullPage: false });
    await keys.press('Enter');
    await poll(async () => (await keys.focused()) === 'f-n-range', '"Skip to controls" to focus the Jobs slider');
    await keys.slide('n', 8000);
    const jobs = await page.getAttribute('#f-n-range', 'aria-valuetext');
    assert(jobs === '8,000 jobs', `the Jobs slider says ${JSON.stringify(jobs)}`);
    await keys.tabTo('f-rps-range');
    await keys.slide('rps', 40);
    const limit = await page.getAttribute('#f-rps-range', 'aria-valuetext');
    assert(limit === '40 /s', `the limit slider says ${JSON.stringify(limit)}`);
    await keys.tabTo('f-conf');
    for (let i = 0; i < 3 && (await page.inputValue('#f-conf')) !== '95'; i++) await keys.press('ArrowDown');
    assert((await page.inputValue('#f-conf')) === '95', `the share of nights is ${await page.inputValue('#f-conf')}`);
    // Tab selects the box's text, so typing replaces it.
    await keys.tabTo('f-at');
    await keys.type('02:00');
    await keys.tabTo('use-window', 20);
    const at = await page.inputValue('#f-at');
    assert(at === '02:00', `the enqueue time is ${JSON.stringify(at)}`);
    const before = await page.inputValue('#f-hi');
    await keys.press('Enter');
    await poll(async () => (await page.inputValue('#f-hi')) !== before, `the max delay to change from ${before}`);
    // 8,000 jobs at 40 a second take 200 s at the least; random starts need more.
    const minutes = Number(await page.inputValue('#f-hi'));
    assert(minutes > 200 / 60 && minutes < 10, `the max delay set: ${minutes} min`);
    await page.waitForTimeout(300);
    const focus = await keys.focused();
    console.log(`# figure: the SRE task took ${keys.presses} key presses; max delay ${minutes} min; focus on ${focus}`);
    await t.shot(page, 'keyboard-sre-task', { fullPage: false });
    assert(focus !== 'body', 'after "Use this window" the focus fell to the page body');
    assert(keys.presses <= MOST_PRESSES, `${keys.presses} presses, more than ${MOST_PRESSES}`);
  });

  await check('keyboard: "Copy link" says it copied, and each answer is in a polite live region', async (t) => {
    const page = await t.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
    await openApp(page, '?v=1&p=poisson&s=1');
    const status = page.locator('.panel-head [role="status"]');
    assert((await status.textContent()) === '', 'the status speaks before any copy');
    await page.focus('#copy-link');
    await page.keyboard.press('Enter');
    await poll(async () => (await status.textContent()) === 'Link copied', 'the status to say "Link copied"', 3000);
    for (const [slug, answer] of [
      ['backoff', '#verdict'],
      ['slots', '.slots-outcome'],
    ]) {
      await openApp(page, `?v=1&p=${slug}&s=1`, answer);
      const live = await page.getAttribute(answer, 'aria-live');
      assert(live === 'polite', `${slug}'s answer ${answer} has aria-live ${JSON.stringify(live)}`);
    }
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 360, height: 740 },
  ]) {
    const size = `${viewport.width}×${viewport.height}`;
    await check(`phone ${size}: the Controls button covers no chart or table, however far the page is scrolled`, async (t) => {
      const page = await t.newPage({ viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
      for (const slug of ['poisson', 'jitter', 'backoff', 'hash', 'slots', 'queue', 'fleet']) {
        await openApp(page, `?v=1&p=${slug}&s=1`);
        const height = await page.evaluate(() => document.documentElement.scrollHeight - innerHeight);
        for (const share of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
          await page.evaluate((y) => window.scrollTo(0, y), Math.round(height * share));
          await page.waitForTimeout(150);
          const covered = await page.evaluate(() => {
            const button = document.querySelector('.sheet-toggle').getBoundingClientRect();
            if (button.width === 0) return ['(the button is not shown)'];
            const overlaps = (box) =>
              box.width > 0 && box.height > 0 && box.left < button.right && button.left < box.right
              && box.top < button.bottom && button.top < box.bottom;
            return [...document.querySelectorAll('canvas, table')]
              .filter((el) => overlaps(el.getBoundingClientRect()))
              .map((el) => el.id || el.className || el.tagName);
          });
          if (share === 0.4) await t.shot(page, `phone-${slug}-${viewport.width}-scrolled`, { fullPage: false });
          assert(covered.length === 0, `${slug} scrolled to ${share * 100} %: the button covers ${covered.join(', ')}`);
        }
      }
    });
  }
}
