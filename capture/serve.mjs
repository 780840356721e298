#!/usr/bin/env node
// Serves the demo page (capture/demo/) with the golden cases on http://127.0.0.1:<port>:
//   node capture/serve.mjs [--cases DIR]...
// then open the printed URL in a browser with WebGPU; "run every kernel", then "download".
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, makeJobs } from './suite/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const extra = {};
for (let i = 0; i < args.length; ++i) if (args[i] === '--cases') { const d = path.resolve(args[++i]); extra[`cases${Object.keys(extra).length}`] = { dir: d }; }
const mounts = { '/capture/': path.join(root, 'capture'), '/wgsl_ports/': path.join(root, 'wgsl_ports'), '/golden/': path.join(root, 'golden') };
const sources = { golden: { dir: path.join(root, 'golden'), url: 'golden' } };
for (const [k, v] of Object.entries(extra)) { mounts[`/_${k}/`] = v.dir; sources[k] = { dir: v.dir, url: `_${k}` }; }
const s = await startServer({ mounts, jobs: makeJobs(root, sources) });
console.log(`open ${s.url}/capture/demo/index.html  (Ctrl-C stops the server)`);
