// Dawn (npm `webgpu`, dawn.node) replaying wgslvk-case/1 folders: the cases `wgslvk bench --dump
// DIR` wrote for every time_case row (the families' own case builders at sweep sizes). For each
// case: the same buffers, the same WGSL entry points (found in wgsl_ports/<family>/*.wgsl), layout
// "auto", the same dispatches; then
//   faithfulness: Dawn's outputs against the case's checks (same bounds as wgslvk validate) and,
//                 bit for bit, against what wgslvk computed (DIR/actual/<case id>/*.actual.npy);
//   timing:       the dispatch list in one pass with timestampWrites, median of --reps after a
//                 busy warm-up (as wgslvk bench).
// usage: node dawn_cases.mjs --root REPO --cases DIR --out dawn_cases.json [--reps 25] [--only family,...]
//        [--budget-s 280]
//
// dawn.node 0.6.2 has died mid-replay on an H200 (segfault, or std::system_error "The futex facility
// returned an unexpected error code") after several families' cases. So the replay runs in child
// processes: each child appends one JSON line per case to OUT.jsonl ("started", then the row) and
// the parent starts a new child after a death, records the case that was running as
// `died_in_case` and goes on with the next one. Every per-case GPU object is destroyed explicitly
// (none is left to the garbage collector's finalizers).
import { createRequire } from 'module';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DT, parseNpy, parseCaseJson, initialBytes as initialBytesOf, inlineBytes, gridForWorkgroups } from '../../capture/src/format.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const root = opt('--root', '.'), casesDir = opt('--cases'), outPath = opt('--out', 'dawn_cases.json');
const reps = Number(opt('--reps', '25')), only = opt('--only', '');
const journal = `${outPath}.jsonl`;
function readJournal() {
  const done = new Map(), started = [];
  if (!fs.existsSync(journal)) return { done, started };
  for (const line of fs.readFileSync(journal, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let o; try { o = JSON.parse(line); } catch { continue; }  // a line cut by a death
    if (o.started) started.push(o.started); else done.set(o.id, o);
  }
  return { done, started };
}
if (!args.includes('--child')) {
  // --budget-s: the whole replay's wall-clock budget; the case running when it ends is recorded
  // as cut off and the JSON is written with every case done so far.
  const deadline = Date.now() + 1000 * Number(opt('--budget-s', '280'));
  fs.rmSync(journal, { force: true });
  let info = {}, features = [];
  for (let deaths = 0; ; ) {
    const left = deadline - Date.now();
    if (left <= 0) { console.log('dawn_cases: budget spent; the remaining cases were not replayed'); break; }
    const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, ...args, '--child'],
                        { stdio: 'inherit', timeout: left, killSignal: 'SIGKILL' });
    const { done, started } = readJournal();
    const lost = started.filter(id => !done.has(id));
    if (r.status === 0 && lost.length === 0) break;
    if (lost.length === 0 || ++deaths > 20) { console.error(`dawn_cases: child exited ${r.status ?? r.signal}; giving up`); break; }
    const id = lost[lost.length - 1], cut = r.error && r.error.code === 'ETIMEDOUT';
    console.log(`${id.padEnd(60)} ${cut ? 'CUT OFF (budget spent)' : `DIED (dawn.node exited ${r.status ?? r.signal}); restarting after it`}`);
    fs.appendFileSync(journal, JSON.stringify({ id, kernel: id.split('/').slice(0, 2).join('/'), [cut ? 'cut_off' : 'died_in_case']: String(r.status ?? r.signal) }) + '\n');
    if (cut) break;
  }
  const { done } = readJournal();
  const head = done.get('#adapter');
  if (head) { info = head.adapter; features = head.features; done.delete('#adapter'); }
  fs.writeFileSync(outPath, JSON.stringify({ adapter: info, features, rows: [...done.values()] }, null, 1));
  fs.rmSync(journal, { force: true });
  process.exit(0);
}
const require = createRequire(import.meta.url);
// dawn.node: $DAWN_NODE, else the repository's npm install (package.json: webgpu 0.6.2), else /tmp/dawnpkg
const repoDawn = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../node_modules/webgpu/dist/linux-x64/dawn.node');
const dawnPath = process.env.DAWN_NODE || (fs.existsSync(repoDawn) ? repoDawn : '/tmp/dawnpkg/node_modules/webgpu/dist/linux-x64/dawn.node');
const { create, globals } = require(dawnPath);
Object.assign(globalThis, globals);
const flags = process.env.DAWN_FLAGS ? process.env.DAWN_FLAGS.split(' ') :
  ['backend=vulkan', 'enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis',
   'disable-dawn-features=timestamp_quantization'];
const gpu = create(flags);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const want = ['shader-f16', 'timestamp-query'].filter(f => adapter.features.has(f));
const device = await adapter.requestDevice({
  requiredFeatures: want,
  requiredLimits: {
    maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
  },
});
device.onuncapturederror = e => console.error('dawn uncaptured error:', e.error.message);
const info = adapter.info || {};
console.log(`dawn_cases: ${info.vendor || ''} ${info.architecture || ''} ${info.description || ''}; features ${want.join(' ')}`);
const already = readJournal();
if (!already.done.has('#adapter'))
  fs.appendFileSync(journal, JSON.stringify({ id: '#adapter', adapter: { vendor: info.vendor, architecture: info.architecture, description: info.description }, features: want }) + '\n');
const skip = new Set([...already.done.keys()]);

// ---- case folders ---------------------------------------------------------------------------------
// The format's shared parts (element types, .npy, values, generate, inline values, grids) are
// capture/src/format.mjs, the same code the browser capture uses.
const readNpy = (file) => parseNpy(fs.readFileSync(file), file);
const initialBytes = (dir, spec) => initialBytesOf(spec, async (f) => fs.readFileSync(path.join(dir, f)));
const wgslCache = new Map();
function moduleFor(kernel) {
  const [family, entry] = kernel.split('/');
  const dir = path.join(root, 'wgsl_ports', family);
  for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.wgsl')).sort()) {
    const code = fs.readFileSync(path.join(dir, f), 'utf8');
    if (new RegExp(`fn\\s+${entry}\\s*\\(`).test(code)) {
      const key = path.join(dir, f);
      if (!wgslCache.has(key)) wgslCache.set(key, device.createShaderModule({ code, label: f }));
      return { module: wgslCache.get(key), entry, wgsl: `${family}/${f}` };
    }
  }
  return null;
}
const grid = gridForWorkgroups;
// ---- comparison ---------------------------------------------------------------------------------
function ulpOf(x) { x = Math.abs(x); if (!(x > 0) || !isFinite(x)) return 2 ** -149; const e = Math.max(Math.floor(Math.log2(x)), -126); return 2 ** (e - 23); }
function checkCase(dir, c, outputs) {
  const res = [];
  for (const k of c.checks) {
    const exp = readNpy(path.join(dir, k.expected)), got = outputs[k.buffer];
    const [Ty] = DT[exp.dtype];
    const E = new Ty(exp.bytes.buffer, exp.bytes.byteOffset, exp.bytes.length / DT[exp.dtype][1]);
    const G = new Ty(got.buffer, got.byteOffset, Math.floor(got.length / DT[exp.dtype][1]));
    const [b, e] = k.range || [0, E.length];
    let worst = 0, bad = 0;
    const bound = typeof k.ulp === 'object' ? readNpy(path.join(dir, k.ulp.file)) : null;
    const B = bound ? new Float32Array(bound.bytes.buffer, bound.bytes.byteOffset, bound.bytes.length / 4) : null;
    const mag = k.magnitude && typeof k.magnitude === 'object' && k.magnitude.file ? readNpy(path.join(dir, k.magnitude.file)) : null;
    const Mg = mag ? new Float32Array(mag.bytes.buffer, mag.bytes.byteOffset, mag.bytes.length / 4) : null;
    for (let i = b; i < e; ++i) {
      if (k.compare === 'exact' || exp.dtype !== 'f32') { if (E[i] !== G[i] && !(Number.isNaN(E[i]) && Number.isNaN(G[i]))) { bad++; worst = Infinity; } continue; }
      const x = E[i], y = G[i];
      if (Number.isNaN(x) || Number.isNaN(y)) { if (!(Number.isNaN(x) && Number.isNaN(y))) { bad++; worst = Infinity; } continue; }
      if (!isFinite(x) || !isFinite(y)) { if (x !== y) { bad++; worst = Infinity; } continue; }
      const m = Mg ? Math.max(Math.abs(x), Mg[i]) : typeof k.magnitude === 'number' ? Math.max(Math.abs(x), k.magnitude) : Math.max(Math.abs(x), Math.abs(y));
      const d = Math.abs(x - y) / ulpOf(m), lim = B ? B[i] : k.ulp || 0;
      worst = Math.max(worst, d);
      if (d > lim) bad++;
    }
    res.push({ buffer: k.buffer, range: [b, e], compare: k.compare, worst_ulp: worst, failing: bad });
  }
  return res;
}
function bitsEqual(a, b) { if (!a || !b || a.length !== b.length) return false; for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false; return true; }

// ---- run ------------------------------------------------------------------------------------------
function findCases(d) {
  const out = [];
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === 'actual') continue;
    const p = path.join(d, e.name);
    if (fs.existsSync(path.join(p, 'case.json'))) out.push(p); else out.push(...findCases(p));
  }
  return out.sort();
}
const families = only ? new Set(only.split(',')) : null;
for (const dir of findCases(casesDir)) {
  const c = parseCaseJson(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  if (families && !families.has(c.kernel.split('/')[0])) continue;
  const id = `${c.kernel}/${c.case}`;
  if (skip.has(id)) continue;
  fs.appendFileSync(journal, JSON.stringify({ started: id }) + '\n');
  const row = { id, kernel: c.kernel, case: c.case };
  const owned = [];  // every GPU object of this case, destroyed at its end
  try {
    device.pushErrorScope('validation');
    const bufs = {}, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    // In-place state (a checked output with initial contents: optimizer state, accumulated
    // gradients) is restored before every timed and warm-up repeat, outside the timestamps, as
    // wgslvk bench does (bench/src/time_case.cpp): each repeat computes the case itself.
    const checked = new Set(c.checks.map(k => k.buffer)), restore = [];
    for (const [name, spec] of Object.entries(c.buffers)) {
      const init = await initialBytes(dir, spec);
      const size = Math.ceil(init.bytes.length / 4) * 4;
      const b = device.createBuffer({ size, usage, label: name });
      owned.push(b);
      device.queue.writeBuffer(b, 0, init.bytes.buffer, init.bytes.byteOffset, init.bytes.length);
      bufs[name] = b;
      if (checked.has(name) && (spec.file || spec.generate || (spec.fill !== undefined && spec.fill !== 'poison'))) {
        const keep = device.createBuffer({ size, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, label: `${name}.pristine` });
        owned.push(keep);
        device.queue.writeBuffer(keep, 0, init.bytes.buffer, init.bytes.byteOffset, init.bytes.length);
        restore.push([keep, b, size]);
      }
    }
    const steps = [];
    for (const d of c.dispatches) {
      const m = moduleFor(d.kernel);
      if (!m) throw new Error(`no WGSL declares ${d.kernel}`);
      row.wgsl = m.wgsl;
      const pipe = device.createComputePipeline({ layout: 'auto', compute: { module: m.module, entryPoint: m.entry }, label: d.kernel });
      const groups = {};
      for (const b of d.bindings) {
        let resource;
        if (b.values !== undefined) {
          const bytes = inlineBytes(b.values);
          const ib = device.createBuffer({ size: bytes.length, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
          owned.push(ib);
          device.queue.writeBuffer(ib, 0, bytes);
          resource = { buffer: ib };
        } else {
          resource = { buffer: bufs[b.buffer], offset: b.offset || 0 };
          if (b.size !== undefined) resource.size = b.size;
        }
        (groups[b.group || 0] ||= []).push({ binding: b.binding, resource });
      }
      const bgs = Object.entries(groups).map(([g, entries]) => [Number(g), device.createBindGroup({ layout: pipe.getBindGroupLayout(Number(g)), entries })]);
      const wg = d.workgroups ? [d.workgroups[0], d.workgroups[1] || 1, d.workgroups[2] || 1] : grid(d.workgroups_1d);
      steps.push({ pipe, bgs, wg });
    }
    const record = (enc, ts, fresh = true) => {
      if (fresh) for (const [keep, b, size] of restore) enc.copyBufferToBuffer(keep, 0, b, 0, size);
      const pass = enc.beginComputePass(ts ? { timestampWrites: ts } : {});
      for (const s of steps) { pass.setPipeline(s.pipe); for (const [g, bg] of s.bgs) pass.setBindGroup(g, bg); pass.dispatchWorkgroups(...s.wg); }
      pass.end();
    };
    // one run for the outputs
    { const enc = device.createCommandEncoder(); record(enc, null, false); device.queue.submit([enc.finish()]); }
    const outputs = {};
    for (const name of new Set(c.checks.map(k => k.buffer))) {
      const b = bufs[name], rb = device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const enc = device.createCommandEncoder(); enc.copyBufferToBuffer(b, 0, rb, 0, b.size); device.queue.submit([enc.finish()]);
      await rb.mapAsync(GPUMapMode.READ); outputs[name] = new Uint8Array(rb.getMappedRange().slice(0)); rb.unmap(); rb.destroy();
    }
    row.checks = checkCase(dir, c, outputs);
    row.pass = row.checks.every(k => k.failing === 0);
    // bit for bit against wgslvk's own outputs
    const actualDir = path.join(casesDir, 'actual', id);
    row.bitwise_equal_to_wgslvk = {};
    for (const name of Object.keys(outputs)) {
      const f = path.join(actualDir, `${name}.actual.npy`);
      if (fs.existsSync(f)) { const a = readNpy(f); row.bitwise_equal_to_wgslvk[name] = bitsEqual(a.bytes, outputs[name].subarray(0, a.bytes.length)); }
    }
    // timing
    if (device.features.has('timestamp-query')) {
      const t0 = Date.now(); let n = 0;
      while (Date.now() - t0 < 200 || n < 3) { const enc = device.createCommandEncoder(); for (let i = 0; i < 8; ++i) record(enc, null); device.queue.submit([enc.finish()]); await device.queue.onSubmittedWorkDone(); n += 8; }
      const qs = device.createQuerySet({ type: 'timestamp', count: 2 * reps });
      const enc = device.createCommandEncoder();
      for (let i = 0; i < reps; ++i) record(enc, { querySet: qs, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 });
      const rs = device.createBuffer({ size: 16 * reps, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const rb = device.createBuffer({ size: 16 * reps, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      owned.push(qs, rs, rb);
      enc.resolveQuerySet(qs, 0, 2 * reps, rs, 0); enc.copyBufferToBuffer(rs, 0, rb, 0, 16 * reps);
      device.queue.submit([enc.finish()]);
      await rb.mapAsync(GPUMapMode.READ);
      const t = new BigUint64Array(rb.getMappedRange().slice(0)); rb.unmap();
      const ms = []; for (let i = 0; i < reps; ++i) if (t[2 * i + 1] >= t[2 * i]) ms.push(Number(t[2 * i + 1] - t[2 * i]) * 1e-6);
      ms.sort((a, b) => a - b); row.median_ms = ms[Math.floor(ms.length / 2)]; row.reps = ms.length; row.restored_state = restore.length > 0;
    }
    const err = await device.popErrorScope();
    if (err) throw new Error(err.message);
  } catch (e) { row.error = String(e.message || e); delete row.median_ms; delete row.pass; }  // a validation error surfaces after the timing ran on nothing
  await device.queue.onSubmittedWorkDone();
  for (const o of owned) o.destroy();
  fs.appendFileSync(journal, JSON.stringify(row) + '\n');
  const eq = row.bitwise_equal_to_wgslvk ? Object.entries(row.bitwise_equal_to_wgslvk).map(([k, v]) => `${k}:${v ? 'bit-identical' : 'differs'}`).join(' ') : '';
  console.log(`${id.padEnd(60)} ${row.error ? 'ERROR ' + row.error : (row.pass ? 'PASS' : 'FAIL') + ' ' + (row.median_ms !== undefined ? row.median_ms.toFixed(4) + ' ms' : '') + ' ' + eq}`);
}
process.exit(0);
