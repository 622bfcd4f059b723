// The browser tests of a build, under Playwright Test, in Debian's
// Chromium (no browser download: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD).
//
//   npx playwright test                    every spec against dist/
//   npx playwright test --project smoke    the quick tier's one check
//   npx playwright test fleet -g sample    a spec, some of its tests
//
// E2E_DIST picks another build (scripts/test --quick gives its debug one).
// The specs compare the pages with the command line, target/debug/stampede,
// and with target/presets.json; scripts/test writes both first (`cargo run
// -q -p stampede-cli -- presets > target/presets.json`). Screenshots go to
// target/screenshots/.

import { defineConfig } from '@playwright/test';
import { CHROMIUM, REPO } from './helpers.mjs';

export default defineConfig({
  testDir: 'specs',
  globalSetup: './global-setup.mjs',
  outputDir: `${REPO}/target/playwright`,
  // The machine has 2 cores; each test opens its own contexts, so any two
  // may run side by side. Tests time nothing: speed is measured by
  // tests/e2e/bench.mjs, in scripts/bench-report.
  workers: 2,
  fullyParallel: true,
  // A flaky test is fixed, not retried.
  retries: 0,
  forbidOnly: true,
  // A test's pages wait on conditions, each with its own limit; this only
  // ends a test that hangs.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  // `list` ends with every failure in full.
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: CHROMIUM,
  },
  projects: [
    { name: 'smoke', testMatch: 'smoke.spec.mjs' },
    { name: 'e2e', testIgnore: 'smoke.spec.mjs' },
  ],
});
