// Finishes a Trunk build in DIST for any static host (scripts/build runs it):
//
// 1. names every asset by its content: Trunk hashes the stylesheet and the
//    icon, and this renames the app's files (scripts/build-app), the two
//    workers' files and the JS modules' wasm, rewriting each reference
//    (wasm → script → loader → index.html);
// 2. writes a service worker, sw.js, that keeps every asset of this build for
//    offline use, versioned by their names;
// 3. writes .gz and .br beside every text and wasm file, for hosts that serve
//    them (scripts/serve does);
// 4. prints the cache rules.
//
// Files keep fixed names only where other pages link to them: index.html,
// embed-example.html, stampede-figure.js, sw.js, js/stampede.js and
// js/stampede_fleet.js (their types too). Everything else may be cached
// forever.
//
// Usage: node scripts/finish-build.mjs DIST

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const WORKERS = ['stampede-worker', 'stampede-fleet-worker'];
const MODULES = ['js/stampede', 'js/stampede_fleet'];
/** The files whose names other pages use, which must be revalidated. */
const FIXED = new Set([
  'index.html',
  'embed-example.html',
  'stampede-figure.js',
  'sw.js',
  'js/stampede.js',
  'js/stampede.d.ts',
  'js/stampede_fleet.js',
  'js/stampede_fleet.d.ts',
]);
const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.wasm', '.json', '.ts']);

const fail = (message) => {
  console.error(`finish-build: error: ${message}`);
  process.exit(1);
};
const file = (name) => path.join(DIST, name);
const read = (name) => fs.readFileSync(file(name));
const contentHash = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** Replaces the one `from` in text file `name` by `to`; fails unless there is exactly one. */
function rewrite(name, from, to) {
  const text = read(name).toString('utf8');
  const parts = text.split(from);
  if (parts.length !== 2) fail(`${name} holds ${JSON.stringify(from)} ${parts.length - 1} times, not once`);
  fs.writeFileSync(file(name), parts.join(to));
}

/** Replaces every `from` in text file `name` by `to`; fails if there is none. */
function rewriteAll(name, from, to) {
  const text = read(name).toString('utf8');
  if (!text.includes(from)) fail(`${name} does not hold ${JSON.stringify(from)}`);
  fs.writeFileSync(file(name), text.split(from).join(to));
}

/** Renames `name` (in its folder) to `stem-HASH` + `tail`; returns the new base name. */
function renameByContent(name, stem, tail) {
  const hashed = `${path.basename(stem)}-${contentHash(read(name))}${tail}`;
  fs.renameSync(file(name), file(path.join(path.dirname(name), hashed)));
  return hashed;
}

if (!fs.existsSync(file('index.html'))) fail(`${DIST} holds no index.html: run trunk build first`);

// The app: the panels' modules, which __wasm_split.js fetches; the main
// module, which index.html starts; then the app's script and
// __wasm_split.js, which import each other, so they share one name made of
// both contents.
const SPLIT_LOADER = '__wasm_split.js';
for (const [, module] of read(SPLIT_LOADER).toString('utf8').matchAll(/"\.\/([\w-]+)\.wasm"/g)) {
  // The shared modules are chunk_N; the content hash names them apart.
  const hashed = renameByContent(`${module}.wasm`, `stampede-app-${module.replace(/_\d+$/, '')}`, '.wasm');
  rewrite(SPLIT_LOADER, `"./${module}.wasm"`, `"./${hashed}"`);
}
// Which files each group of panels fetches, its own module and the shared
// ones, for index.html to start downloading the opening panel's with the
// main module's.
const loader = read(SPLIT_LOADER).toString('utf8');
const fileOf = (declaration) => declaration.match(/new URL\("\.\/([\w.-]+)"/)?.[1] ?? fail(`no file in ${declaration}`);
const chunks = Object.fromEntries(
  [...loader.matchAll(/const (__chunk_\d+) = makeLoad\(\(\) => \{[\s\S]*?\n\}/g)].map(([declaration, chunk]) => [chunk, fileOf(declaration)]),
);
const groups = Object.fromEntries(
  [...loader.matchAll(/export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{[\s\S]*?\n\}\s*, \[([\w, ]*)\]/g)].map(
    ([declaration, group, deps]) => [
      group,
      [fileOf(declaration), ...deps.split(',').filter((d) => d.trim()).map((d) => chunks[d.trim()] ?? fail(`${group} needs ${d}, never declared`))],
    ],
  ),
);
if (!Object.keys(groups).length) fail(`${SPLIT_LOADER} declares no group of panels`);
rewrite('index.html', 'var groupFiles = {};', `var groupFiles = ${JSON.stringify(groups)};`);
const appWasm = renameByContent('stampede-app_bg.wasm', 'stampede-app', '_bg.wasm');
rewrite('stampede-app.js', "'stampede-app_bg.wasm'", `'${appWasm}'`);
rewriteAll('index.html', 'stampede-app_bg.wasm"', `${appWasm}"`);
const appHash = contentHash(Buffer.concat([read('stampede-app.js'), read(SPLIT_LOADER)]));
const [appScript, appSplit] = [`stampede-app-${appHash}.js`, `stampede-app-${appHash}_split.js`];
// Only the imports: the wasm's own imports keep the loader's first name.
rewriteAll('stampede-app.js', `from "./${SPLIT_LOADER}"`, `from "./${appSplit}"`);
rewrite(SPLIT_LOADER, '"./stampede-app.js"', `"./${appScript}"`);
rewriteAll('index.html', 'stampede-app.js"', `${appScript}"`);
rewrite('index.html', `${SPLIT_LOADER}"`, `${appSplit}"`);
fs.renameSync(file('stampede-app.js'), file(appScript));
fs.renameSync(file(SPLIT_LOADER), file(appSplit));

for (const worker of WORKERS) {
  const wasm = renameByContent(`${worker}_bg.wasm`, worker, '_bg.wasm');
  rewrite(`${worker}.js`, `'${worker}_bg.wasm'`, `'${wasm}'`);
  const script = renameByContent(`${worker}.js`, worker, '.js');
  rewrite(`${worker}_loader.js`, `'./${worker}.js'`, `'./${script}'`);
  const loader = renameByContent(`${worker}_loader.js`, worker, '_loader.js');
  rewrite('index.html', `content="./${worker}_loader.js"`, `content="./${loader}"`);
}
for (const module of MODULES) {
  const name = path.basename(module);
  const wasm = renameByContent(`${module}_bg.wasm`, module, '_bg.wasm');
  rewrite(`${module}.js`, `'${name}_bg.wasm'`, `'${wasm}'`);
}

/** Every file under DIST, as paths relative to it with `/`. */
function listFiles(dir = DIST) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listFiles(full);
    return [path.relative(DIST, full).split(path.sep).join('/')];
  });
}

// The app's own files: what the page and its workers fetch. The docs modules
// and the example page are for other pages, and are left to the network.
const appFiles = listFiles()
  .filter((name) => !name.startsWith('js/') && !/\.(gz|br)$/.test(name))
  .filter((name) => !['sw.js', 'embed-example.html', 'stampede-figure.js'].includes(name))
  .sort();
const version = contentHash(appFiles.map((name) => `${name}\n`).join('') + read('index.html'));
const serviceWorker = fs
  .readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'www', 'sw.js'), 'utf8')
  .replace("'__VERSION__'", JSON.stringify(version))
  .replace("['__FILES__']", JSON.stringify(appFiles.map((name) => (name === 'index.html' ? './' : `./${name}`))));
if (serviceWorker.includes('__VERSION__') || serviceWorker.includes('__FILES__')) fail('www/sw.js lost its placeholders');
fs.writeFileSync(file('sw.js'), serviceWorker);

for (const name of listFiles()) {
  if (!COMPRESSED.has(path.extname(name)) || /\.(gz|br)$/.test(name)) continue;
  const bytes = read(name);
  if (bytes.length < 1024) continue;
  fs.writeFileSync(file(`${name}.gz`), zlib.gzipSync(bytes, { level: 9 }));
  fs.writeFileSync(
    file(`${name}.br`),
    zlib.brotliCompressSync(bytes, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  );
}

const fixed = listFiles().filter((name) => FIXED.has(name));
console.log(`finish-build: ${DIST} is ready; service worker version ${version}`);
console.log(`finish-build: revalidate on every load (Cache-Control: no-cache): ${fixed.join(', ')}`);
console.log('finish-build: cache everything else for a year (Cache-Control: public, max-age=31536000, immutable)');
