// Where a page's opening spends its time: one load of a panel traced in
// Chromium, from navigation to the first chart, as the bench loads it.
// Not a test and not a benchmark: tracing slows the page, so read the
// shares, not the times.
//
//   node tests/e2e/trace-opening.mjs DIST PANEL
//
// It prints the main thread's tasks (wall time, the CPU time the thread
// got in it, and what the task spent it on), then the CPU time every other
// thread took meanwhile: on a machine of few cores those threads (V8's
// compiler, the fleet's worker, the browser's own) and the page share the
// cores. The whole trace goes to target/opening-trace.json, which
// Chromium's DevTools (Performance, Load profile) opens.

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, PREFIX, REPO, firstPaintTimes, startServer } from './helpers.mjs';

const [dist, slug] = process.argv.slice(2);
if (!dist || !slug) {
  console.error('usage: node tests/e2e/trace-opening.mjs DIST PANEL');
  process.exit(2);
}
const OUT = path.join(REPO, 'target', 'opening-trace.json');
const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink.user_timing',
  'loading',
  'v8',
  'v8.wasm',
];
// Tasks on the main thread shorter than this are left out of the list.
const SHORTEST_TASK_MS = 2;
const TASK_NAMES = new Set(['ThreadControllerImpl::RunTask', 'RunTask', 'ThreadPool_RunTask']);

const server = await startServer(path.resolve(dist), PREFIX);
const browser = await chromium.launch(CHROMIUM);
let times;
try {
  const url = `http://127.0.0.1:${server.address().port}${PREFIX}?v=1&p=${slug}&s=1`;
  // The first load of a browser pays for its own start; the bench's
  // loads come after many others.
  await firstPaintTimes(browser, url);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  times = await firstPaintTimes(browser, url, { trace: { path: OUT, categories: CATEGORIES } });
} finally {
  await browser.close();
  server.close();
}

const { traceEvents } = JSON.parse(fs.readFileSync(OUT, 'utf8'));
const threadName = new Map();
const processName = new Map();
for (const event of traceEvents) {
  if (event.ph !== 'M') continue;
  if (event.name === 'thread_name') threadName.set(`${event.pid}:${event.tid}`, event.args.name);
  if (event.name === 'process_name') processName.set(event.pid, event.args.name);
}
const navigation = traceEvents.find(
  (event) => event.name === 'navigationStart' && event.args?.data?.documentLoaderURL?.includes(`p=${slug}`),
);
if (!navigation) throw new Error('the trace holds no navigation to the panel');
const from = navigation.ts;
const until = from + times.firstChart * 1000;
const ms = (us) => (us / 1000).toFixed(1);

// Complete events of one thread within the opening, outermost first.
const slices = new Map();
for (const event of traceEvents) {
  if (event.ph !== 'X' || event.ts < from || event.ts > until) continue;
  const thread = `${event.pid}:${event.tid}`;
  if (!slices.has(thread)) slices.set(thread, []);
  slices.get(thread).push(event);
}
for (const events of slices.values()) events.sort((a, b) => a.ts - b.ts || b.dur - a.dur);

/** The outermost tasks of a thread, each with what it spent its time on. */
function tasks(events) {
  const found = [];
  for (const event of events) {
    const last = found.at(-1);
    if (last && event.ts < last.task.ts + last.task.dur) {
      if (!TASK_NAMES.has(event.name)) {
        last.inside.set(event.name, (last.inside.get(event.name) ?? 0) + event.dur);
      }
    } else if (TASK_NAMES.has(event.name)) {
      found.push({ task: event, inside: new Map() });
    }
  }
  return found;
}
const largest = (inside, count) =>
  [...inside]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, dur]) => `${name} ${ms(dur)}`)
    .join(', ');

const main = [...slices.keys()]
  .filter((thread) => thread.startsWith(`${navigation.pid}:`) && threadName.get(thread) === 'CrRendererMain')
  .sort((a, b) => slices.get(b).length - slices.get(a).length)[0];
console.log(`${slug}: first paint ${times.firstPaint.toFixed(0)} ms, first chart ${times.firstChart.toFixed(0)} ms (traced)\n`);
console.log('main thread, tasks from navigation (ms): start, wall, CPU, what inside took longest');
let wall = 0;
let cpu = 0;
for (const { task, inside } of tasks(slices.get(main) ?? [])) {
  wall += task.dur;
  cpu += task.tdur ?? 0;
  if (task.dur < SHORTEST_TASK_MS * 1000) continue;
  const cells = [ms(task.ts - from), ms(task.dur), ms(task.tdur ?? 0)].map((cell) => cell.padStart(7));
  console.log(`${cells.join('')}  ${largest(inside, 4)}`);
}
console.log(`in all: ${ms(wall)} ms of tasks, in which the thread ran ${ms(cpu)} ms\n`);

console.log('other threads until the first chart: CPU ms, thread, what took it');
const others = [];
for (const [thread, events] of slices) {
  if (thread === main) continue;
  const outermost = tasks(events);
  const taken = outermost.reduce((sum, { task }) => sum + (task.tdur ?? 0), 0);
  const inside = new Map();
  for (const found of outermost) {
    for (const [name, dur] of found.inside) inside.set(name, (inside.get(name) ?? 0) + dur);
  }
  const [pid] = thread.split(':');
  const name = `${processName.get(Number(pid)) ?? pid} / ${threadName.get(thread) ?? thread}`;
  others.push({ taken, name, inside });
}
for (const { taken, name, inside } of others.sort((a, b) => b.taken - a.taken).slice(0, 10)) {
  if (taken < 1000) break;
  console.log(`${ms(taken).padStart(7)}  ${name}: ${largest(inside, 3)}`);
}
console.log(`\nthe whole trace: ${path.relative(process.cwd(), OUT)}`);
