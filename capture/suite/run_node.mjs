#!/usr/bin/env node
// The browser suite's capture under Node with Dawn (npm `webgpu`, dawn.node) instead of Chromium:
// the same jobs (every golden case and a fresh seeded case per kernel), the same replay and capture
// code (capture/src/), the same oracle bounds, files written directly; then `wgslvk validate
// --cases` replays them on the device wgslvk picks (on the GPU machine: the real driver). A device
// with shader-f16 runs the f16 entry points too (modules compiled untrimmed).
//
//   node capture/suite/run_node.mjs --wgslvk build/cli/wgslvk [--out DIR] [--seed N] [--kernel K]...
//        [--no-fresh] [--no-validate] [--dawn PATH/dawn.node]      (DAWN_FLAGS overrides the toggles)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { makeJobs } from './server.mjs';
import { parseArgs, replay, table } from './run_suite.mjs';
import { createCapture } from '../src/capture.mjs';
import { prepareModules, runCase, destroyAll } from '../src/replay.mjs';
import { oracleHooks } from '../src/oracle.mjs';
import { parseCaseJson } from '../src/format.mjs';
import { spawnSync } from 'node:child_process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
let dawnPath = process.env.DAWN_NODE || path.join(root, 'node_modules/webgpu/dist/linux-x64/dawn.node');
const k = argv.indexOf('--dawn');
if (k >= 0) { dawnPath = argv[k + 1]; argv.splice(k, 2); }
const o = parseArgs(argv);
if (o.out === path.join(root, 'out', 'browser-suite')) o.out = path.join(root, 'out', 'dawn-capture');

const t0 = Date.now();
const require = createRequire(import.meta.url);
const { create, globals } = require(dawnPath);
Object.assign(globalThis, globals);
const flags = process.env.DAWN_FLAGS ? process.env.DAWN_FLAGS.split(' ') :
  ['backend=vulkan', 'enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis'];
const gpu = create(flags);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) { console.error('run_node: Dawn found no adapter'); process.exit(1); }
const features = ['shader-f16'].filter(f => adapter.features.has(f));
const L = adapter.limits;
const device = await adapter.requestDevice({ requiredFeatures: features, requiredLimits: {
  maxBufferSize: L.maxBufferSize, maxStorageBufferBindingSize: L.maxStorageBufferBindingSize,
  maxComputeWorkgroupStorageSize: L.maxComputeWorkgroupStorageSize } });
const info = adapter.info || {};
const name = `Dawn ${[info.vendor, info.architecture, info.description].filter(Boolean).join(' ')}`;
device.addEventListener?.('uncapturederror', (e) => console.error('dawn uncaptured error:', e.error.message));
console.log(`run_node: ${name}; features: ${features.join(' ') || '(no shader-f16)'}; fresh inputs seed ${o.seed}; out ${o.out}`);

fs.rmSync(o.out, { recursive: true, force: true });
const freshDir = path.join(o.out, 'fresh-inputs'), capturedDir = path.join(o.out, 'captured');
const sources = { golden: { dir: path.join(root, 'golden'), url: 'golden' } };
if (o.fresh) {
  const args = ['golden', 'fresh', '--seed', o.seed, '--out', freshDir];
  for (const kk of o.kernels) args.push('--kernel', kk);
  const r = spawnSync(o.wgslvk, args, { encoding: 'utf8', env: { ...process.env, WGSLVK_SOURCE_DIR: root } });
  if (r.status !== 0) { console.error(`wgslvk ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`); process.exit(1); }
  sources.fresh = { dir: freshDir, url: '_fresh' };
}
const jobs = makeJobs(root, sources);
const want = (kernel) => !o.kernels.length || o.kernels.some(w => w === kernel || w === kernel.split('/')[0] || w === kernel.split('/')[1]);
jobs.cases = jobs.cases.filter(c => want(c.kernel));
const dirOf = (job) => job.source === 'golden' ? path.join(root, job.dir) : path.join(freshDir, job.dir.slice('_fresh/'.length));
const wgslFor = async (kernel) => {
  const kk = jobs.kernels.find(x => x.kernel === kernel);
  return kk ? { code: fs.readFileSync(path.join(root, kk.wgsl), 'utf8'), label: kk.wgsl } : null;
};
let hooks = null;
const cap = createCapture(device, { wholeBuffers: true, snapshot: (q) => hooks.snapshot(q), describe: (i) => hooks.describe(i), kernelName: (d) => d.label });
const results = [], modCache = new Map();
for (const job of jobs.cases) {
  const row = { id: job.id, kernel: job.kernel, source: job.source };
  try {
    const dir = dirOf(job);
    const c = parseCaseJson(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
    const loadFile = async (f) => new Uint8Array(fs.readFileSync(path.join(dir, f)));
    const m = await prepareModules(cap.device, c, wgslFor, modCache);
    if (m.skipped) Object.assign(row, { status: m.error ? 'error' : 'skipped', reason: m.skipped });
    else {
      hooks = oracleHooks(c, loadFile, { source: job.source, adapter: name });
      await hooks.prepare();
      const run = await runCase(cap.device, c, m.mods, loadFile, { capture: cap, name: c.case });
      destroyAll(run);
      const out = path.join(capturedDir, job.source, c.kernel, run.captured.name);
      fs.mkdirSync(out, { recursive: true });
      for (const [f, bytes] of run.captured.files) fs.writeFileSync(path.join(out, f), bytes);
      Object.assign(row, { status: 'captured', trimmed: m.trimmed.length > 0 });
    }
  } catch (e) { Object.assign(row, { status: 'error', reason: String(e.message || e) }); }
  results.push(row);
}
const b = { device: name, features, results, jobs, capturedDir };
console.log(`captured ${results.filter(r => r.status === 'captured').length} of ${results.length} cases in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
let v = null;
if (o.validate) { v = replay(o, capturedDir); console.log(`native replay on ${v.report.device}`); }
const t = table(b, v, o);
console.log('\n' + t.text);
const failed = t.bad > 0 || (v && v.status !== 0);
fs.writeFileSync(path.join(o.out, 'summary.json'), JSON.stringify({ seed: o.seed, device: name, features, results, replay: v?.report }, null, 1));
console.log(`\n${failed ? 'FAIL' : 'PASS'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
