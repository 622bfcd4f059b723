// Before any spec: the build must be there, or every test would wait for
// an app that never loads.

import fs from 'node:fs';
import path from 'node:path';
import { DIST } from './helpers.mjs';

export default function checkBuild() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`${DIST}/index.html is missing: build first (scripts/build --base /docs/stampede/), or set E2E_DIST`);
  }
}
