// What the app downloads, gzipped (-9), from a finished build in DIST: its
// main module, which every page loads, and for each group of panels split
// off together (src/panels/mod.rs) the modules their first opening fetches
// (the group's own and those it shares with other groups), as the build's
// split loader lists them (scripts/build-app).
//
// Usage: node scripts/app-sizes.mjs DIST [--json]

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const [dist = 'dist', format] = process.argv.slice(2);
const names = fs.readdirSync(dist);
const only = (pattern, what) => {
  const found = names.filter((name) => pattern.test(name));
  if (found.length !== 1) {
    console.error(`app-sizes: error: ${dist} holds ${found.length} ${what}, not one`);
    process.exit(1);
  }
  return found[0];
};
const gzipBytes = (name) => zlib.gzipSync(fs.readFileSync(path.join(dist, name)), { level: 9 }).length;

const main = only(/^stampede-app-[0-9a-f]+_bg\.wasm$/, 'main app modules');
const loader = fs.readFileSync(path.join(dist, only(/^stampede-app-[0-9a-f]+_split\.js$/, 'split loaders')), 'utf8');
// Each shared module is `const __chunk_N = makeLoad(... "./FILE" ...)`, each
// group's `export const __wasm_split_load_NAME = ... "./FILE" ..., [CHUNKS])`.
const shared = new Map(
  [...loader.matchAll(/const (__chunk_\d+) = makeLoad\([^"]*"\.\/([^"]+)"/g)].map(([, chunk, file]) => [chunk, file]),
);
const groups = [...loader.matchAll(/export const __wasm_split_load_(\w+) = [^"]*"\.\/([^"]+)"[^[]*\[([^\]]*)\]/g)].map(
  ([, name, own, chunks]) => {
    const files = [own, ...chunks.split(',').map((chunk) => chunk.trim()).filter(Boolean).map((chunk) => shared.get(chunk))];
    return { name, modules: files.length, gzip_bytes: files.reduce((sum, file) => sum + gzipBytes(file), 0) };
  },
);
if (groups.length === 0) {
  console.error('app-sizes: error: the split loader names no group of panels');
  process.exit(1);
}
const all = names.filter((name) => /^stampede-app-.*\.wasm$/.test(name) && name !== main);
const sizes = {
  main: { file: main, raw_bytes: fs.statSync(path.join(dist, main)).size, gzip_bytes: gzipBytes(main) },
  groups,
  all_panels_gzip_bytes: all.reduce((sum, file) => sum + gzipBytes(file), 0),
};

if (format === '--json') {
  console.log(JSON.stringify(sizes));
} else {
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(`size: app main module ${kb(sizes.main.raw_bytes)} raw, ${kb(sizes.main.gzip_bytes)} gzipped`);
  for (const { name, modules, gzip_bytes } of groups) {
    console.log(`size: app ${name} panels, first opened: ${kb(gzip_bytes)} gzipped more in ${modules} modules`);
  }
  console.log(`size: app, every panel's modules: ${kb(sizes.all_panels_gzip_bytes)} gzipped in ${all.length} modules`);
}
