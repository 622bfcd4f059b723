// Where a drag's time goes: Chromium's CPU profile of one drag of a
// panel's slider at its defaults, as tests/e2e/bench.mjs drags it, summed
// by function (self time, idle left out). Not a test and not a benchmark:
// the profiler slows the page, so read the shares, not the times.
//
// Build with the wasm names kept first (the book's Performance chapter), then:
//   node tests/e2e/profile-drag.mjs DIST PANEL KEY   e.g. target/prof/dist queue w
// TOP=N prints the N largest (default 30); the whole profile is written to
// target/drag.cpuprofile, which Chromium's DevTools opens.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, PREFIX, dragSlider, percentile, startServer } from './helpers.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [dist, slug, key] = process.argv.slice(2);
if (!dist || !slug || !key) {
  console.error('usage: node tests/e2e/profile-drag.mjs DIST PANEL KEY');
  process.exit(2);
}
const TOP = Number(process.env.TOP ?? 30);

const server = await startServer(path.resolve(dist), PREFIX);
const browser = await chromium.launch(CHROMIUM);
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}${PREFIX}?v=1&p=${slug}&s=1`);
  await page.waitForSelector('#figure canvas');
  await page.waitForLoadState('networkidle').catch(() => {});
  if (slug === 'queue') await page.waitForSelector('[data-run-status="done"]', { state: 'attached' });
  await page.waitForTimeout(500);

  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const updates = await dragSlider(page, key, { moves: 50, span: 0.6 });
  const { profile } = await cdp.send('Profiler.stop');
  fs.writeFileSync(path.join(REPO, 'target', 'drag.cpuprofile'), JSON.stringify(profile));

  // Each sample's time goes to the function it was taken in.
  const sampled = new Map();
  profile.samples.forEach((id, i) => sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map();
  let busy = 0;
  for (const [id, us] of sampled) {
    const frame = nodes.get(id).callFrame;
    const name = frame.functionName || frame.url.split('/').pop() || '(native)';
    if (name === '(idle)' || name === '(program)') continue;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    busy += us;
  }
  console.log(
    `${updates.length} updates, p50 ${percentile(updates, 0.5).toFixed(1)} ms, ` +
      `p95 ${percentile(updates, 0.95).toFixed(1)} ms; busy ${(busy / 1000).toFixed(0)} ms`,
  );
  [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .forEach(([name, us]) => {
      const share = `${((100 * us) / busy).toFixed(1)} %`;
      console.log(`${(us / 1000).toFixed(1).padStart(8)} ms ${share.padStart(7)}  ${name.slice(0, 140)}`);
    });
} finally {
  await browser.close();
  server.close();
}
