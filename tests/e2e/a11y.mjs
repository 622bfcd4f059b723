// Accessibility of the release build (dist/) in headless Chromium.
//
// axe-core (pinned in package.json) is injected into each of the six panels,
// into the embed mode and into the dark colour scheme; any violation of
// impact "serious" or "critical" fails, printed with its rule id, impact and
// targets. Beyond axe: every chart canvas has a text alternative that states
// numbers, every input and select has an accessible name, and a focused
// slider, button and select look different from unfocused ones. Served as
// e2e.mjs serves it, under /docs/stampede/. Every check runs even when an
// earlier one fails; each prints `ok - name` or `not ok - name: reason`, and
// the exit code is 1 if any failed.
//
// Usage: node tests/e2e/a11y.mjs   (after `trunk build --release`, as
// scripts/test runs it; E2E_DIST picks another build)

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, PREFIX, assert, blankCanvases, poll, startServer } from './e2e.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.resolve(process.env.E2E_DIST ?? path.join(REPO, 'dist'));
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SLUGS = ['poisson', 'jitter', 'backoff', 'hash', 'slots', 'queue', 'fleet'];
// The impacts that fail the test; "minor" and "moderate" are only counted.
const FAILING = new Set(['serious', 'critical']);
// How long a panel gets to draw its charts.
const DRAW_TIMEOUT_MS = 10_000;

/** Opens `query`, waits for the panel (or the Learn step), its charts and, on Queue, the run. */
async function open(page, base, query) {
  await page.goto(base + query);
  await page.waitForSelector('#panel, #learn', { timeout: 30_000 });
  if (await page.locator('[data-run-status]').count()) {
    await page.waitForSelector('[data-run-status="done"]', { timeout: 30_000, state: 'attached' });
  }
  await poll(async () => (await blankCanvases(page)).length === 0, 'every chart to draw', DRAW_TIMEOUT_MS);
  // The debounced address-bar update and any last redraw.
  await page.waitForTimeout(300);
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
  assert(focused, `${selector} did not receive focus by Tab`);
  const after = await focusStyle(page, selector);
  const visible = after !== before && !/^outline: none .*box-shadow: none$/.test(after);
  assert(visible, `${selector} looks the same focused (${after}) as not (${before})`);
  return after;
}

async function main() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.error(`a11y: ${DIST}/index.html is missing; run \`trunk build --release\` first`);
    process.exit(1);
  }
  setTimeout(() => {
    console.error('a11y: gave up after 3 minutes');
    process.exit(1);
  }, 3 * 60 * 1000).unref();
  const started = Date.now();

  const server = await startServer(DIST);
  const BASE = `http://127.0.0.1:${server.address().port}${PREFIX}`;
  console.log(`# serving ${path.relative(REPO, DIST) || DIST} at ${BASE}`);
  const browser = await chromium.launch(CHROMIUM);
  const failed = [];
  let passed = 0;

  async function check(name, fn, options = {}) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      const note = await fn(page);
      passed++;
      console.log(`ok - ${name}${note ? ` # ${note}` : ''}`);
    } catch (e) {
      failed.push(name);
      const [first, ...rest] = String(e?.message ?? e).split('\n');
      console.log(`not ok - ${name}: ${first}`);
      for (const line of rest) console.log(`#   ${line}`);
    } finally {
      await context.close().catch(() => {});
    }
  }

  /** One page: axe, the charts' labels and the controls' names. */
  const audit = (query) => async (page) => {
    await open(page, BASE, query);
    const problems = [];
    const [failing, lesser] = await axe(page);
    problems.push(...failing.map((line) => `axe: ${line}`));
    problems.push(...(await unlabelledCharts(page)).map((c) => `chart without numbers in its aria-label: ${c}`));
    problems.push(...(await unnamedControls(page)).map((c) => `control without an accessible name: ${c}`));
    assert(problems.length === 0, `${problems.length} problem(s)\n${problems.join('\n')}`);
    const charts = await page.$$eval('#figure canvas', (c) => c.length);
    return `${charts} chart(s) labelled${lesser.length ? `; minor/moderate: ${lesser.join(', ')}` : ''}`;
  };

  for (const slug of SLUGS) {
    await check(`${slug}: no serious or critical axe violations; charts and controls named`, audit(`?v=1&p=${slug}&s=1`));
  }
  for (let step = 1; step <= 8; step++) {
    await check(`learn, step ${step}: no serious or critical axe violations; charts and controls named`, audit(`?v=1&p=learn&step=${step}&s=1`));
  }
  await check('embed mode (slots, with controls): no serious or critical axe violations', audit('?v=1&p=slots&s=1&embed=1&controls=1'));
  await check('embed mode (queue): no serious or critical axe violations', audit('?v=1&p=queue&s=1&embed=1'));
  for (const slug of SLUGS) {
    await check(`dark scheme, ${slug}: no serious or critical axe violations`, audit(`?v=1&p=${slug}&s=1`), {
      colorScheme: 'dark',
    });
  }

  for (const scheme of ['light', 'dark']) {
    await check(
      `${scheme} scheme: a focused slider, button and select show a focus style`,
      async (page) => {
        await open(page, BASE, '?v=1&p=hash&s=1');
        const select = (await page.$('.controls select')) ? '.controls select' : 'select';
        const styles = [];
        for (const selector of ['.controls input[type="range"]', '#new-seed', select]) {
          styles.push(`${selector}: ${await expectFocusStyle(page, selector)}`);
        }
        return styles.join('; ');
      },
      { colorScheme: scheme },
    );
  }

  await browser.close();
  server.close();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`# ${passed} passed, ${failed.length} failed in ${seconds} s`);
  if (failed.length) console.log(`# failed: ${failed.join('; ')}`);
  process.exitCode = failed.length ? 1 : 0;
}

await main();
