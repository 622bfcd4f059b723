// The npm package as a user gets it: installs target/npm/stampede-wasm-*.tgz
// (scripts/pack-js) into a scratch folder, then
// - imports it in Node, handing `init` the wasm's bytes as its README says,
//   for both modules;
// - imports it by its bare name from a page in headless Chromium, through an
//   import map, as a page without a bundler does;
// and checks both get the numbers the command line gives for the same
// parameters.
//
// Usage: node tests/e2e/package.mjs   (after scripts/pack-js; scripts/test
// runs both)

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, assert, startServer } from './e2e.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NPM_DIR = path.join(REPO, 'target', 'npm');
const STAMPEDE = path.resolve(process.env.E2E_STAMPEDE ?? path.join(REPO, 'target', 'debug', 'stampede'));
const JITTER = { n: 10000, lo: 0, hi: 30, s: 7 };

const tarballs = fs.existsSync(NPM_DIR) ? fs.readdirSync(NPM_DIR).filter((name) => /^stampede-wasm-.*\.tgz$/.test(name)) : [];
if (tarballs.length !== 1) {
  console.error(`package: expected one stampede-wasm tarball in ${NPM_DIR}, found ${tarballs.length}: run scripts/pack-js`);
  process.exit(1);
}

/** What the command line computes for the jitter panel at JITTER. */
const query = `?v=1&p=jitter&${new URLSearchParams(Object.entries(JITTER).map(([k, v]) => [k, String(v)]))}`;
const expected = JSON.parse(execFileSync(STAMPEDE, ['run', query], { encoding: 'utf8', maxBuffer: 1 << 28 }));
const expectedRate = expected.flat_rate_per_second ?? expected.result?.flat_rate_per_second;
assert(typeof expectedRate === 'number', `stampede run gives no flat_rate_per_second: ${Object.keys(expected)}`);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stampede-package-'));
try {
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', path.join(NPM_DIR, tarballs[0])], {
    cwd: scratch,
    stdio: 'inherit',
  });

  // Node: both modules, their wasm passed as bytes.
  const script = `
    import { readFile } from 'node:fs/promises';
    import init, { jitter } from 'stampede-wasm';
    import initFleet, { fleet } from 'stampede-wasm/fleet';
    const bytes = (name) => readFile(new URL(import.meta.resolve('stampede-wasm/' + name)));
    await init({ module_or_path: await bytes('stampede_bg.wasm') });
    await initFleet({ module_or_path: await bytes('stampede_fleet_bg.wasm') });
    const rate = jitter(${JSON.stringify(JITTER)}).flat_rate_per_second;
    const starts = fleet('cron\\tnightly\\t0 0 * * *\\n', { from: '2025-01-01T00:00:00Z', hours: 48 }).starts.length;
    console.log(JSON.stringify({ rate, starts }));
  `;
  fs.writeFileSync(path.join(scratch, 'node-check.mjs'), script);
  const fromNode = JSON.parse(execFileSync('node', ['node-check.mjs'], { cwd: scratch, encoding: 'utf8' }));
  assert(fromNode.rate === expectedRate, `Node: jitter gives ${fromNode.rate}, stampede run ${expectedRate}`);
  assert(fromNode.starts === 2, `Node: a nightly job over 48 hours starts ${fromNode.starts} times, not 2`);
  console.log('ok - package: installed from its tarball, both modules load in Node with their wasm passed as bytes');

  // A page: the bare name through an import map.
  fs.writeFileSync(
    path.join(scratch, 'index.html'),
    `<!doctype html><title>package</title>
<script type="importmap">{ "imports": { "stampede-wasm": "./node_modules/stampede-wasm/stampede.js" } }</script>
<script type="module">
  import init, { jitter } from 'stampede-wasm';
  await init();
  document.title = String(jitter(${JSON.stringify(JITTER)}).flat_rate_per_second);
</script>`,
  );
  const server = await startServer(scratch, '/');
  const browser = await chromium.launch(CHROMIUM);
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.title !== 'package', null, { timeout: 20_000 });
    const rate = Number(await page.title());
    assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
    assert(rate === expectedRate, `page: jitter gives ${rate}, stampede run ${expectedRate}`);
    console.log('ok - package: a page imports it by name through an import map and gets the same numbers');
  } finally {
    await browser.close();
    server.close();
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
