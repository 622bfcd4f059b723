// Compares two release builds' first chart and first paint, for a change
// meant to make a page open sooner. Not a test: it prints a table and
// judges nothing.
//
// On a shared machine one build's median moves by tens of milliseconds
// from one run to the next, more than most changes do. So the two builds
// load in pairs, back to back, in alternating order, and the table gives
// each build's median beside the median of the paired differences (B − A),
// which the machine's drift mostly cancels out of.
//
// Usage: node tests/e2e/compare-builds.mjs DIST_A DIST_B [PANELS] [ROUNDS]
//   PANELS  comma-separated slugs (default: every panel the bench loads)
//   ROUNDS  pairs of loads a panel (default 11)
// BROWSER_ARGS_B (space-separated) starts B's loads in a browser of their
// own with those Chromium arguments: the same build twice then shows what
// a change in the browser would make, such as V8's flags
// (BROWSER_ARGS_B=--js-flags=--wasm-tiering-budget=1000000000 keeps every
// wasm function in its first, unoptimised tier).

import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, DRAGGED, PREFIX, firstPaintTimes, median, startServer } from './helpers.mjs';

const [distA, distB, panelList, roundCount] = process.argv.slice(2);
if (!distA || !distB) {
  console.error('usage: node tests/e2e/compare-builds.mjs DIST_A DIST_B [PANELS] [ROUNDS]');
  process.exit(2);
}
const panels = panelList ? panelList.split(',') : DRAGGED.map(([slug]) => slug);
const rounds = Number(roundCount ?? 11);

const servers = {
  A: await startServer(path.resolve(distA), PREFIX),
  B: await startServer(path.resolve(distB), PREFIX),
};
const argsB = process.env.BROWSER_ARGS_B?.split(' ').filter(Boolean) ?? [];
const browsers = { A: await chromium.launch(CHROMIUM) };
browsers.B = argsB.length ? await chromium.launch({ ...CHROMIUM, args: [...CHROMIUM.args, ...argsB] }) : browsers.A;
try {
  const pairs = new Map(panels.map((panel) => [panel, []]));
  for (let round = 0; round < rounds; round++) {
    for (const panel of panels) {
      const pair = {};
      for (const build of round % 2 ? ['A', 'B'] : ['B', 'A']) {
        const port = servers[build].address().port;
        pair[build] = await firstPaintTimes(browsers[build], `http://127.0.0.1:${port}${PREFIX}?v=1&p=${panel}&s=1`);
      }
      pairs.get(panel).push(pair);
    }
  }
  console.log(`A = ${distA}\nB = ${distB}${argsB.length ? ` (Chromium with ${argsB.join(' ')})` : ''}\n${rounds} pairs of loads a panel; times in ms from navigation\n`);
  const columns = ['chart A', 'chart B', 'B − A', 'paint A', 'paint B', 'B − A'];
  const row = (first, cells) => console.log(first.padEnd(8) + cells.map((cell) => String(cell).padStart(9)).join(''));
  row('panel', columns);
  for (const [panel, loads] of pairs) {
    const cells = ['firstChart', 'firstPaint'].flatMap((figure) => {
      const [a, b] = ['A', 'B'].map((build) => median(loads.map((pair) => pair[build][figure])));
      const change = median(loads.map((pair) => pair.B[figure] - pair.A[figure]));
      return [a.toFixed(0), b.toFixed(0), `${change > 0 ? '+' : ''}${change.toFixed(0)}`];
    });
    row(panel, cells);
  }
} finally {
  await Promise.all([...new Set(Object.values(browsers))].map((browser) => browser.close()));
  Object.values(servers).forEach((server) => server.close());
}
