// Before any spec: the build must be there, or every test would wait for
// an app that never loads; and the pictures of tests that failed in an
// earlier run go, so those left are of this one.

import fs from 'node:fs';
import path from 'node:path';
import { DIST, SHOTS } from './helpers.mjs';

export default function checkBuild() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`${DIST}/index.html is missing: build first (scripts/build --base /docs/stampede/), or set E2E_DIST`);
  }
  const shots = fs.existsSync(SHOTS) ? fs.readdirSync(SHOTS) : [];
  for (const name of shots.filter((name) => name.startsWith('failed-'))) fs.rmSync(path.join(SHOTS, name));
}
