// The local HTTP server the page talks to (http://127.0.0.1 is a secure context, so WebGPU is on,
// and ES modules load, which they do not from file://). Serves, read-only, the repository's
// capture/, wgsl_ports/ and golden/ folders and the fresh case folders; GET /api/jobs lists the
// cases and the shipped entry points; POST /api/out/<path> writes a captured file under outDir
// (suite mode); POST /api/done ends the run. Node built-ins only.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { entryPoints } from '../src/wgsl.mjs';

const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json',
                '.wgsl': 'text/plain', '.npy': 'application/octet-stream', '.png': 'image/png', '.md': 'text/plain' };

// Every compute entry point of every shipped WGSL file: [{ kernel: 'family/entry', wgsl: 'wgsl_ports/family/file.wgsl' }].
export function shippedKernels(root) {
  const out = [];
  const base = path.join(root, 'wgsl_ports');
  for (const fam of fs.readdirSync(base).sort()) {
    const dir = path.join(base, fam);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.wgsl')).sort())
      for (const e of entryPoints(fs.readFileSync(path.join(dir, f), 'utf8')))
        if (e.stage === 'compute') out.push({ kernel: `${fam}/${e.name}`, wgsl: `wgsl_ports/${fam}/${f}` });
  }
  return out;
}

// Case folders under dir: [relative path of each folder holding a case.json].
export function findCases(dir, rel = '') {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory()) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (fs.existsSync(path.join(dir, e.name, 'case.json'))) out.push(r); else out.push(...findCases(path.join(dir, e.name), r));
  }
  return out;
}

// mounts: { urlPrefix: directory } (read-only); outDir: where POSTed files go.
export function startServer({ mounts, jobs, outDir = null }) {
  let resolveDone;
  const done = new Promise(r => { resolveDone = r; });
  let last = Date.now();  // the last request: the page's progress, for the hang detector
  const server = http.createServer((req, res) => {
    last = Date.now();
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const fail = (code, msg) => { res.writeHead(code, { 'content-type': 'text/plain' }); res.end(msg); };
    if (url.split('/').includes('..')) return fail(400, 'no ..');
    if (req.method === 'GET' && url === '/api/jobs') { res.writeHead(200, { 'content-type': 'application/json' }); return res.end(JSON.stringify(jobs)); }
    if (req.method === 'POST') {
      const chunks = [];
      req.on('data', c => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (url === '/api/done') { res.end('ok'); resolveDone(JSON.parse(body.toString('utf8'))); return; }
        if (url.startsWith('/api/out/') && outDir) {
          const rel = url.slice('/api/out/'.length);
          if (!/^[\w./-]+$/.test(rel)) return fail(400, `bad path ${rel}`);
          const f = path.join(outDir, rel);
          fs.mkdirSync(path.dirname(f), { recursive: true });
          fs.writeFileSync(f, body);
          return res.end('ok');
        }
        fail(404, 'no such endpoint');
      });
      return;
    }
    if (req.method !== 'GET') return fail(405, 'GET or POST');
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!url.startsWith(prefix)) continue;
      const f = path.join(dir, url.slice(prefix.length));
      if (!fs.existsSync(f) || !fs.statSync(f).isFile()) return fail(404, `${url}: not found`);
      res.writeHead(200, { 'content-type': TYPES[path.extname(f)] || 'application/octet-stream', 'cache-control': 'no-store' });
      return fs.createReadStream(f).pipe(res);
    }
    fail(404, `${url}: not served`);
  });
  return new Promise(resolve => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    resolve({ url: `http://127.0.0.1:${port}`, done, lastActivity: () => last, close: () => new Promise(r => { server.closeAllConnections?.(); server.close(r); }) });
  }));
}

// The jobs of a run: the golden cases (golden/) and any other case roots, by source name.
export function makeJobs(root, sources) {
  const kernels = shippedKernels(root);
  const cases = [];
  for (const [source, { dir, url }] of Object.entries(sources))
    for (const rel of findCases(dir)) {
      const c = JSON.parse(fs.readFileSync(path.join(dir, rel, 'case.json'), 'utf8'));
      cases.push({ id: `${source}/${rel}`, source, kernel: c.kernel, dir: `${url}/${rel}` });
    }
  return { kernels, cases };
}
