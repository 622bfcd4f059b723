// A static file server for a build, as a plain static host serves it: used by
// scripts/serve and by the browser tests (tests/e2e/).
//
// - It serves ROOT under PREFIX on 127.0.0.1 and answers 404 for anything
//   else, including any path that resolves outside ROOT.
// - Where the request accepts them, it sends FILE.br or FILE.gz, written
//   beside FILE by scripts/build, with Content-Encoding.
// - Every file may be loaded from any origin (CORS), as the element's
//   script and the JS modules are by other sites' pages.
// - With `caching: 'build'` it sends the book's Publishing cache rules (fixed
//   names revalidate, content-named files are immutable); with `'none'`,
//   no-store, so a test never sees an earlier build.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

// Chromium refuses to compile wasm served with any other type than application/wasm.
export const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

/** Files named by their content: a 16-hex-digit hash before the extension or `_bg`. */
const CONTENT_NAMED = /-[0-9a-f]{16}(_bg|_loader)?\.[a-z]+$/;

/**
 * Starts the server; resolves to the listening http.Server.
 * `extras` maps paths under `prefix` to files outside `root` served there too.
 */
export function startStaticServer({ root, prefix = '/', port = 0, extras = {}, caching = 'none' }) {
  root = path.resolve(root);
  // Node refuses request heads over 16 KB; a shared URL may be longer (the
  // hostile-input test sends 100 KB ones), as browsers allow up to 2 MB.
  const server = http.createServer({ maxHeaderSize: 4 << 20 }, (req, res) => {
    const notFound = () => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return notFound();

    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      return notFound(); // malformed %-escape
    }
    if (!pathname.startsWith(prefix)) return notFound();
    let rel = pathname.slice(prefix.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';

    const extra = Object.hasOwn(extras, rel);
    const file = extra ? extras[rel] : path.resolve(root, rel);
    if (!extra && !file.startsWith(root + path.sep)) return notFound();

    const accepts = req.headers['accept-encoding'] ?? '';
    const encodings = [
      ['br', '.br'],
      ['gzip', '.gz'],
    ].filter(([name]) => accepts.includes(name));
    const choose = (candidates) => {
      const [encoding, suffix] = candidates[0] ?? [null, ''];
      fs.stat(file + suffix, (err, stat) => {
        if (encoding && (err || !stat.isFile())) return choose(candidates.slice(1));
        if (err || !stat.isFile()) return notFound();
        const headers = {
          'content-type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
          'content-length': stat.size,
          'cache-control':
            caching === 'none'
              ? 'no-store'
              : CONTENT_NAMED.test(file)
                ? 'public, max-age=31536000, immutable'
                : 'no-cache',
          vary: 'accept-encoding',
          // The element's script and the JS modules load from other sites'
          // pages, which a browser allows only with CORS.
          'access-control-allow-origin': '*',
        };
        if (encoding) headers['content-encoding'] = encoding;
        res.writeHead(200, headers);
        if (req.method === 'HEAD') return res.end();
        fs.createReadStream(file + suffix).pipe(res);
      });
    };
    choose(encodings);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

// `node scripts/static-server.mjs DIST [PORT]`: serves a build as a host would.
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.argv[2] ?? 'dist';
  const port = Number(process.argv[3] ?? 8080);
  const server = await startStaticServer({ root, port, caching: 'build' });
  console.log(`serve: ${path.resolve(root)} at http://127.0.0.1:${server.address().port}/ (Ctrl-C to stop)`);
}
