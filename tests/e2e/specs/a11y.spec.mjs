// Accessibility: axe-core (pinned in package.json) in each panel, each
// Learn step, the embed mode and the dark colour scheme; any violation of
// impact "serious" or "critical" fails, with its rule id, impact and
// targets. Beyond axe: every chart canvas has a text alternative that
// states numbers, every input and select has an accessible name, and a
// focused slider, button and select look different from unfocused ones.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test } from '../fixtures.mjs';
import { SLUGS, blankCanvases, queueDone } from '../helpers.mjs';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// The impacts that fail the test; "minor" and "moderate" are only counted.
const FAILING = new Set(['serious', 'critical']);

/** Opens `query`, waits for the panel (or the Learn step), on Queue the run, and every chart drawn. */
async function open(app, page, query) {
  await app.open(page, query, '#panel, #learn');
  if (await page.locator('[data-run-status]').count()) await queueDone(page);
  await expect.poll(() => blankCanvases(page), { message: 'every chart to draw' }).toEqual([]);
}

/** Runs axe on the page; returns [failing violations as lines, count of lesser ones]. */
async function axe(page) {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => `${n.target.join(' ')}${n.any[0]?.message ? ` (${n.any[0].message})` : ''}`),
    }));
  });
  const failing = violations
    .filter((v) => FAILING.has(v.impact))
    .map((v) => `${v.id} [${v.impact}] ${v.help}: ${v.targets.slice(0, 8).join('; ')}${v.targets.length > 8 ? ` … ${v.targets.length} nodes` : ''}`);
  const lesser = violations.filter((v) => !FAILING.has(v.impact)).map((v) => `${v.id} [${v.impact}] x${v.targets.length}`);
  return [failing, lesser];
}

/** Canvases whose aria-label is missing, empty or states no number. */
const unlabelledCharts = (page) =>
  page.$$eval('#figure canvas', (canvases) =>
    canvases
      .filter((c) => !/\d/.test(c.getAttribute('aria-label') ?? ''))
      .map((c) => `${c.id || '(no id)'}: ${JSON.stringify(c.getAttribute('aria-label'))}`),
  );

/** Visible inputs and selects without an accessible name (label, aria-label(ledby), legend-less title). */
const unnamedControls = (page) =>
  page.$$eval('input, select, textarea', (elements) => {
    const text = (el) => (el?.textContent ?? '').trim();
    const name = (el) => {
      const by = el.getAttribute('aria-labelledby');
      if (by) return by.split(/\s+/).map((id) => text(document.getElementById(id))).join(' ').trim();
      if (el.getAttribute('aria-label')?.trim()) return el.getAttribute('aria-label').trim();
      const labels = [...(el.labels ?? [])].map(text).join(' ').trim();
      if (labels) return labels;
      return (el.getAttribute('title') ?? '').trim();
    };
    return elements
      .filter((el) => el.type !== 'hidden' && el.getClientRects().length > 0 && !name(el))
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}[type=${el.type}]`);
  });

/** The focus-related computed style of the element `selector` matches. */
const focusStyle = (page, selector) =>
  page.$eval(selector, (el) => {
    const s = getComputedStyle(el);
    return `outline: ${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}; box-shadow: ${s.boxShadow}`;
  });

/** Fails unless keyboard focus on `selector` changes its outline or box-shadow. */
async function expectFocusStyle(page, selector) {
  await page.evaluate(() => document.activeElement?.blur());
  const before = await focusStyle(page, selector);
  // Keyboard focus, so :focus-visible applies as it does for a keyboard user:
  // focus the element before it, then Tab to it.
  await page.$eval(selector, (el) => {
    const all = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter(
      (e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length > 0,
    );
    const at = all.indexOf(el);
    if (at > 0) all[at - 1].focus();
  });
  await page.keyboard.press('Tab');
  const focused = await page.$eval(selector, (el) => document.activeElement === el);
  expect(focused, `${selector} focused by Tab`).toBe(true);
  const after = await focusStyle(page, selector);
  const visible = after !== before && !/^outline: none .*box-shadow: none$/.test(after);
  expect(visible, `${selector} looks different focused (${after}) than not (${before})`).toBe(true);
  return after;
}

/** One page: axe, the charts' labels and the controls' names. */
const audit = (query, options = {}) => async ({ app }) => {
  const page = await app.newPage(options);
  await open(app, page, query);
  const [failing, lesser] = await axe(page);
  const problems = [
    ...failing.map((line) => `axe: ${line}`),
    ...(await unlabelledCharts(page)).map((c) => `chart without numbers in its aria-label: ${c}`),
    ...(await unnamedControls(page)).map((c) => `control without an accessible name: ${c}`),
  ];
  expect(problems, 'accessibility problems').toEqual([]);
  const charts = await page.$$eval('#figure canvas', (c) => c.length);
  console.log(`# ${query}: ${charts} chart(s) labelled${lesser.length ? `; minor/moderate: ${lesser.join(', ')}` : ''}`);
};

for (const slug of SLUGS) {
  test(`${slug}: no serious or critical axe violations; charts and controls named`, audit(`?v=1&p=${slug}&s=1`));
}
for (let step = 1; step <= 8; step++) {
  test(`learn, step ${step}: no serious or critical axe violations; charts and controls named`, audit(`?v=1&p=learn&step=${step}&s=1`));
}
test('embed mode (slots, with controls): no serious or critical axe violations', audit('?v=1&p=slots&s=1&embed=1&controls=1'));
test('embed mode (queue): no serious or critical axe violations', audit('?v=1&p=queue&s=1&embed=1'));
for (const slug of SLUGS) {
  test(`dark scheme, ${slug}: no serious or critical axe violations`, audit(`?v=1&p=${slug}&s=1`, { colorScheme: 'dark' }));
}

for (const colorScheme of ['light', 'dark']) {
  test(`${colorScheme} scheme: a focused slider, button and select show a focus style`, async ({ app }) => {
    const page = await app.newPage({ colorScheme });
    await open(app, page, '?v=1&p=hash&s=1');
    const select = (await page.$('.controls select')) ? '.controls select' : 'select';
    for (const selector of ['.controls input[type="range"]', '#new-seed', select]) {
      console.log(`# ${colorScheme}: ${selector}: ${await expectFocusStyle(page, selector)}`);
    }
  });
}
