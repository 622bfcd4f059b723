// The npm package as a user gets it: target/npm/stampede-wasm-*.tgz
// (scripts/pack-js) installed into a scratch folder, then imported in
// Node, handing `init` the wasm's bytes as its README says, for both
// modules; and by its bare name from a page, through an import map, as a
// page without a bundler does. Both get the numbers the command line
// gives for the same parameters.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '../fixtures.mjs';
import { REPO, startServer, stampedeJson } from '../helpers.mjs';

const NPM_DIR = path.join(REPO, 'target', 'npm');
const JITTER = { n: 10000, lo: 0, hi: 30, s: 7 };

// Both tests use one installation.
test.describe.configure({ mode: 'serial' });

let scratch;
let expectedRate;

test.beforeAll(() => {
  const tarballs = fs.existsSync(NPM_DIR) ? fs.readdirSync(NPM_DIR).filter((name) => /^stampede-wasm-.*\.tgz$/.test(name)) : [];
  expect(tarballs, `the stampede-wasm tarball in ${NPM_DIR} (scripts/pack-js writes it)`).toHaveLength(1);
  // What the command line computes for the jitter panel at JITTER.
  const query = `?v=1&p=jitter&${new URLSearchParams(Object.entries(JITTER).map(([k, v]) => [k, String(v)]))}`;
  const expected = stampedeJson(['run', query]);
  expectedRate = expected.flat_rate_per_second ?? expected.result?.flat_rate_per_second;
  expect(typeof expectedRate, `flat_rate_per_second from stampede run (it gives ${Object.keys(expected)})`).toBe('number');
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stampede-package-'));
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', path.join(NPM_DIR, tarballs[0])], { cwd: scratch, stdio: 'inherit' });
});

test.afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test('package: installed from its tarball, both modules load in Node with their wasm passed as bytes', () => {
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
  expect(fromNode.rate, 'Node: jitter against stampede run').toBe(expectedRate);
  expect(fromNode.starts, 'Node: starts of a nightly job over 48 hours').toBe(2);
});

test('package: a page imports it by name through an import map and gets the same numbers', async ({ app }) => {
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
  try {
    const page = await app.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await expect(page, 'the title the page sets from jitter()').not.toHaveTitle('package', { timeout: 20_000 });
    expect(Number(await page.title()), 'page: jitter against stampede run').toBe(expectedRate);
  } finally {
    server.close();
  }
});
