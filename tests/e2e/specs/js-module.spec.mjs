// The docs module in the build (dist/js/): a plain page beside it
// (js-module.html) imports it as a docs author would, calls every
// function and a few bad calls, and gets the numbers; the fleet module
// places the same starts as the command line, to the microsecond.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, until } from '../fixtures.mjs';
import { DIST, REPO, STAMPEDE } from '../helpers.mjs';

test('docs module: a plain page imports it and gets the numbers', async ({ app }) => {
  expect(fs.existsSync(path.join(DIST, 'js', 'stampede.js')), `${path.relative(REPO, DIST)}/js/stampede.js (trunk build runs scripts/build-js as a post_build hook)`).toBe(true);
  const page = await app.newPage();
  await page.goto(`${app.base}js/js-module.html`);
  const results = await until(() => page.evaluate(() => window.__results), 'window.__results', 20_000);
  const value = (name) => {
    const entry = results[name] ?? results.init;
    expect(entry, `the result of ${name}`).toBeTruthy();
    expect(entry.error?.message, `what ${name} threw`).toBeUndefined();
    return entry.value;
  };
  const thrown = (name) => {
    const entry = results[name];
    expect(entry?.error, `${name} to throw; it returned ${JSON.stringify(entry?.value)}`).toBeTruthy();
    expect(entry.error.isError, `${name} threw an Error: ${entry.error.message}`).toBe(true);
    return entry.error.message;
  };

  const poisson = value('poisson');
  expect(poisson.panel, 'poisson().panel').toBe('poisson');
  // defer keeps the daily rate: 300 a day.
  expect(poisson.rate, 'poisson({n: 300, wp: "defer"}).rate_per_second').toBe(300 / 86400);
  expect(poisson.events > 0 && poisson.deferred > 0, `poisson ran ${poisson.events} events, deferred ${poisson.deferred}`).toBe(true);

  const jitter = value('jitter');
  expect(jitter.panel, 'jitter().panel').toBe('jitter');
  expect(jitter.flatRate.toFixed(3), 'jitter({n: 10000, lo: 0, hi: 30}).flat_rate_per_second').toBe('5.556');
  expect(jitter.jobs, 'jobs counted in jitter().per_second').toBe(10000);

  const backoff = value('backoff');
  expect(backoff.panel, 'backoff().panel').toBe('backoff');
  expect(backoff.bands, 'backoff().fleets[0].bands.length (8 retries by default)').toBe(8);
  expect(backoff.timelineCalls, 'calls in backoff().fleet.timeline').toBe(backoff.calls);

  // MurmurHash3 of "a", "" and "abc" (core/tests/data/hash_vectors.tsv), mod 3600.
  expect(value('spread'), 'spread({fn: "murmur", window: 3600})').toEqual([
    { key: 'a', hash: 1009084850, offset: 1250 },
    { key: '', hash: 0, offset: 0 },
    { key: 'abc', hash: 3017643002, offset: 602 },
  ]);
  // Ruby's Random.new(1).rand(3600) (core/tests/data/spread_ruby.tsv); no hash.
  expect(value('spreadRuby'), 'spread({fn: "ruby"})').toEqual([{ key: '1', hash: null, offset: 1061 }]);

  const slots = value('slots');
  expect(slots.panel, 'slots().panel').toBe('slots');
  // gcd(28,800, 65,535) = 15 slots of 1,920 s; the plan enqueues the 15 per-slot jobs and every account.
  expect(`${slots.slots} x ${slots.slotSeconds}`, 'slots() slots x slot_seconds').toBe('15 x 1920');
  expect(slots.ingress, 'jobs entering the queue in slots().plan.ingress_slotted').toBe(1015);

  // The URL's lenient rules: n=abc keeps the default 10,000 and says so.
  const fromUrl = value('run');
  expect(fromUrl.panel, 'run(url).result.panel').toBe('jitter');
  expect(fromUrl.jobs, 'run(url).result.run_at.length').toBe(10000);
  expect(fromUrl.notices, 'keys of run(url).notices').toEqual(['n']);
  // The same seed and parameters draw the same jobs, by URL or by object.
  expect(fromUrl.first, 'first job of run(url) and of jitter({...})').toBe(jitter.first);

  expect(thrown('badValue'), 'poisson({n: 5000000}) error').toBe('n: 5000000 is above the maximum 1000000');
  expect(thrown('unknownKey'), 'jitter({zzz: 1}) error').toMatch(/^zzz: /);
  expect(thrown('badHash'), 'spread({fn: "md5"}) error').toMatch(/^fn: "md5" is not one of/);
  expect(thrown('badWindow'), 'spread({window: 0}) error').toMatch(/^window: /);
  expect(thrown('badQuery'), 'run(42) error').toMatch(/^query: /);

  // The fleet module places the same starts in Chromium as the command
  // line does natively, to the microsecond.
  const fleetText = await page.evaluate(() => window.FLEET_TEXT);
  const cli = execFileSync(STAMPEDE, ['fleet', '--from', '2025-03-29T00:00:00Z', '--hours', '48', '--starts'], {
    input: fleetText,
    stdio: ['pipe', 'pipe', 'ignore'],
  }).toString();
  const fleet = value('fleet');
  // RFC 3339 to the microsecond, as the command line writes it: the
  // fraction's trailing zeros dropped, none for a whole second.
  const rfc3339 = (atMicros) => {
    const micros = ((atMicros % 1e6) + 1e6) % 1e6;
    const whole = new Date((atMicros - micros) / 1000).toISOString().replace('.000Z', '');
    const fraction = micros ? `.${String(micros).padStart(6, '0').replace(/0+$/, '')}` : '';
    return `${whole}${fraction}Z`;
  };
  const browserStarts = fleet.starts.map(([line, id, atMicros]) => `${line}\t${id}\t${rfc3339(atMicros)}`).join('\n');
  expect(browserStarts, 'fleet() starts against stampede fleet --starts').toBe(cli.trimEnd());
  expect(fleet.skipped, 'fleet().skipped').toEqual([[4, 'spec']]);
  expect(fleet.starts.length, 'starts fleet() placed').toBeGreaterThan(11_000);
  const systems = new Set(fleet.starts.map(([line]) => line));
  expect([...systems].sort((a, b) => a - b), 'lines with starts in fleet()').toEqual([1, 2, 3, 5, 6, 7, 8]);
  expect(thrown('badFleetOption'), 'fleet({hours: 0}) error').toMatch(/^hours: /);
  expect(thrown('badFleetFormat'), 'fleet({format: "xml"}) error').toMatch(/^format: "xml" is not one of/);
});
