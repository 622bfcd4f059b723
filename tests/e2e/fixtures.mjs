// The specs' fixtures, on top of Playwright Test's:
//
// - `site` (one per worker): the build served under /docs/stampede/ on
//   127.0.0.1, with the docs module's test page beside the module;
// - `app` (one per test): pages in fresh contexts of the worker's
//   Chromium that record page errors, console errors and dialogs; the test
//   fails at its end if any came that it did not allow. It opens the app
//   and waits for it to settle, takes the screenshots of
//   target/screenshots/, and keeps one of the last page a failed test had
//   open (failed-<test>.png).
//
// `until` polls a function until it returns something truthy, and returns that.

import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';
import { DIST, PREFIX, REPO, SHOTS, appSettled, chartsCaughtUp, openApp, startServer } from './helpers.mjs';

export { expect };

/** Polls `fn` until it returns something truthy; returns that, or fails with `message` after `timeout` ms. */
export async function until(fn, message, timeout = 10_000) {
  let value;
  await expect.poll(async () => (value = await fn()), { message, timeout }).toBeTruthy();
  return value;
}

export const test = base.extend({
  site: [
    async ({}, use) => {
      const server = await startServer(DIST, PREFIX, {
        'js/js-module.html': path.join(REPO, 'tests', 'e2e', 'js-module.html'),
      });
      const origin = `http://127.0.0.1:${server.address().port}`;
      await use({ origin, base: origin + PREFIX });
      server.close();
    },
    { scope: 'worker' },
  ],

  app: async ({ browser, site }, use, testInfo) => {
    const contexts = [];
    const errors = [];
    const allowed = [];
    let lastPage = null;
    const app = {
      ...site,
      /** What went wrong in the pages so far; a test that provokes errors may read and clear it. */
      errors,
      /** Console errors matching `pattern` are expected by this test. */
      allowErrors(pattern) {
        allowed.push(pattern);
      },
      async newContext({ viewport = { width: 1280, height: 900 }, ...options } = {}) {
        const context = await browser.newContext({ viewport, ...options });
        contexts.push(context);
        return context;
      },
      /** A page in a new context (or in `context`), watched for errors and dialogs. */
      async newPage(options = {}, context = null) {
        context ??= await app.newContext(options);
        const page = await context.newPage();
        page.setDefaultTimeout(10_000);
        page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
        page.on('console', (message) => {
          // Chromium asks for /favicon.ico at the origin root, outside the app.
          const where = message.location().url ?? '';
          if (message.type() !== 'error' || where.endsWith('/favicon.ico')) return;
          if (allowed.some((pattern) => pattern.test(message.text()))) return;
          errors.push(`console.error: ${message.text().slice(0, 300)}${where ? ` (${where})` : ''}`);
        });
        page.on('dialog', (dialog) => {
          errors.push(`dialog: ${dialog.type()} "${dialog.message()}" at ${page.url().slice(0, 120)}`);
          dialog.dismiss().catch(() => {});
        });
        lastPage = page;
        return page;
      },
      /** Opens the app at `query` (relative to the build) and waits as helpers.openApp does. */
      open: (page, query, ready) => openApp(page, site.base + query, ready),
      settled: appSettled,
      /** A screenshot in target/screenshots/, once every chart is drawn. */
      async shot(page, name, { fullPage = true } = {}) {
        // A broken page is still worth its picture.
        await chartsCaughtUp(page).catch(() => {});
        await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
      },
    };
    fs.mkdirSync(SHOTS, { recursive: true });
    await use(app);
    if (testInfo.status !== testInfo.expectedStatus && lastPage && !lastPage.isClosed()) {
      const name = `failed-${testInfo.title.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
      await app.shot(lastPage, name).catch(() => {});
    }
    for (const context of contexts) await context.close().catch(() => {});
    expect(errors, 'page errors, console errors and dialogs').toEqual([]);
  },
});
