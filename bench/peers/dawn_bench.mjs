// Dawn (Chrome's WebGPU, through the npm package `webgpu` = dawn.node) running OUR OWN WGSL
// sources: wgsl_ports/optimizer/12_optimizer.wgsl, wgsl_ports/embedding/01_embedding.wgsl and
// wgsl_ports/wgslvk_util/util.wgsl (copy_vec4, the same copy roofline as wgslvk bench).
//
//   node dawn_bench.mjs --root REPO --compare DUMP_DIR
//       Replays each case that `wgslvk bench --dump DUMP_DIR` wrote (same inputs, same dispatch)
//       under Dawn and compares Dawn's outputs with ours: a faithfulness check of the ports.
//   node dawn_bench.mjs --root REPO --bench OURS.json --out DAWN.json [--reps N] [--warmup N]
//       Times every kernel row of our bench JSON at the same sizes (pass timestamp queries,
//       median of the repeats after a warm-up), plus the multi-tensor optimizer step.
//
// Environment: DAWN_NODE=path/to/dawn.node (default: .dawn/dawn.node under --root).
import { createRequire } from 'module';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const root = path.resolve(opt('--root', process.cwd()));
const dawnPath = process.env.DAWN_NODE || path.join(root, '.dawn', 'dawn.node');
const require = createRequire(import.meta.url);
const { create, globals } = require(dawnPath);
Object.assign(globalThis, globals);

const flags = ['backend=vulkan',
  'enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis',
  'disable-dawn-features=timestamp_quantization'];
const gpu = create(flags);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) { console.error('dawn: no adapter'); process.exit(2); }
const wantFeatures = ['shader-f16', 'timestamp-query'].filter((f) => adapter.features.has(f));
const device = await adapter.requestDevice({
  requiredFeatures: wantFeatures,
  requiredLimits: {
    // raised for buffers over 128 MiB, as a WebGPU user would
    maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxStorageBuffersPerShaderStage: Math.min(adapter.limits.maxStorageBuffersPerShaderStage, 10),
  },
});
let lastError = null;
device.onuncapturederror = (e) => { lastError = e.error.message; console.error('dawn error:', e.error.message); };
const info = adapter.info || {};
const deviceDesc = `${info.vendor || ''} ${info.architecture || ''} ${info.device || ''} ${info.description || ''}`.trim();
console.error(`dawn: adapter "${deviceDesc}", features ${wantFeatures.join(',')}, maxBufferSize ${device.limits.maxBufferSize}, maxStorageBufferBindingSize ${device.limits.maxStorageBufferBindingSize}`);

const S = GPUBufferUsage;
const modules = new Map();
function module(rel) {
  if (!modules.has(rel)) {
    const code = fs.readFileSync(path.join(root, rel), 'utf8');
    modules.set(rel, device.createShaderModule({ code, label: rel }));
  }
  return modules.get(rel);
}
const pipelines = new Map();
function pipeline(rel, entry) {
  const key = rel + ':' + entry;
  if (!pipelines.has(key))
    pipelines.set(key, device.createComputePipeline({ layout: 'auto', compute: { module: module(rel), entryPoint: entry }, label: entry }));
  return pipelines.get(key);
}
const FILE_OF = {
  reduce_norm_sq: 'wgsl_ports/optimizer/12_optimizer.wgsl',
  finalize_grad_stats: 'wgsl_ports/optimizer/12_optimizer.wgsl',
  adamw_update: 'wgsl_ports/optimizer/12_optimizer.wgsl',
  adamw_update_f16: 'wgsl_ports/optimizer/12_optimizer.wgsl',
  adamw_8bit_update: 'wgsl_ports/optimizer/12_optimizer.wgsl',
  embed_lookup: 'wgsl_ports/embedding/01_embedding.wgsl',
  embed_backward: 'wgsl_ports/embedding/01_embedding.wgsl',
  embed_lookup_w16: 'wgsl_ports/embedding/01_embedding.wgsl',
  embed_backward_deterministic: 'wgsl_ports/embedding/embedding_native.wgsl',
  copy_vec4: 'wgsl_ports/wgslvk_util/util.wgsl',
};

// Same 2-D grid rule as wgslvk's grid_for_workgroups: fewest surplus workgroups, x <= 65535.
function grid(workgroups) {
  const maxDim = device.limits.maxComputeWorkgroupsPerDimension;
  if (workgroups <= maxDim) return [Math.max(1, workgroups), 1];
  const y = Math.ceil(workgroups / maxDim);
  return [Math.ceil(workgroups / y), y];
}
const align4 = (n) => Math.ceil(n / 4) * 4;

function buffer(size, usage, label) {
  return device.createBuffer({ size: Math.max(16, align4(size)), usage, label });
}
function storage(size, label) { return buffer(size, S.STORAGE | S.COPY_SRC | S.COPY_DST, label); }
function uniform(bytes, label) {
  const b = buffer(Math.max(16, bytes.byteLength), S.UNIFORM | S.COPY_DST, label);
  const pad = new Uint8Array(Math.max(16, align4(bytes.byteLength)));
  pad.set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  device.queue.writeBuffer(b, 0, pad);
  return b;
}
function write(b, bytes, offset = 0) {
  const u8 = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = align4(u8.byteLength);
  if (n === u8.byteLength) device.queue.writeBuffer(b, offset, u8);
  else { const p = new Uint8Array(n); p.set(u8); device.queue.writeBuffer(b, offset, p); }
}
// Fills a buffer with a repeating non-zero f32 pattern, 16 MiB at a time.
function fillPattern(b, size, seed, scale = 1, positive = false) {
  const n = Math.min(size / 4, 4 << 20);
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let x = (Math.imul(i, 0x9e3779b9) + Math.imul(seed, 0x85ebca6b)) >>> 0;
    x ^= x >>> 16; x = Math.imul(x, 0x7feb352d) >>> 0; x ^= x >>> 15; x = Math.imul(x, 0x846ca68b) >>> 0; x ^= x >>> 16;
    let f = ((x >>> 8) / 8388608) - 1; if (f === 0) f = 0.5;
    a[i] = scale * (positive ? 0.5 * (f + 1) + 1e-3 : f);
  }
  for (let off = 0; off < size; off += a.byteLength)
    device.queue.writeBuffer(b, off, a.buffer, 0, Math.min(a.byteLength, size - off));
}
async function readBack(b, size) {
  const st = device.createBuffer({ size: align4(size), usage: S.MAP_READ | S.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(b, 0, st, 0, align4(size));
  device.queue.submit([enc.finish()]);
  await st.mapAsync(GPUMapMode.READ);
  const out = new Uint8Array(st.getMappedRange().slice(0));
  st.unmap(); st.destroy();
  return out;
}
function bindGroup(pipe, entries, label) {
  return device.createBindGroup({
    layout: pipe.getBindGroupLayout(0), label,
    entries: entries.map(([binding, buf, offset, size]) => ({ binding, resource: { buffer: buf, offset: offset || 0, size } })),
  });
}

// Times `record(pass)` as `reps` passes with pass timestamps after a warm-up of at least
// `warmup` repeats and WARM_MS of busy GPU (clocks drop while the host fills buffers). With
// `copy`, a copy_vec4 pass of the same bytes alternates with the kernel (as in wgslvk bench).
const WARM_MS = Number(opt('--warm-ms', 200));
async function timePasses(record, reps, warmup, copy = null) {
  const t0 = performance.now();
  let done = 0, batch = Math.max(1, warmup);
  for (;;) {
    const enc = device.createCommandEncoder();
    for (let i = 0; i < batch; i++) {
      let p = enc.beginComputePass(); record(p); p.end();
      if (copy) { p = enc.beginComputePass(); copy(p); p.end(); }
    }
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    done += batch;
    if ((done >= warmup && performance.now() - t0 >= WARM_MS) || done >= 20000) break;
    batch = Math.min(batch * 2, 512);
  }
  const per = copy ? 4 : 2;
  const qs = device.createQuerySet({ type: 'timestamp', count: per * reps });
  const res = device.createBuffer({ size: 8 * per * reps, usage: S.QUERY_RESOLVE | S.COPY_SRC });
  const enc = device.createCommandEncoder();
  for (let i = 0; i < reps; i++) {
    let p = enc.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: per * i, endOfPassWriteIndex: per * i + 1 } });
    record(p); p.end();
    if (copy) {
      p = enc.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: per * i + 2, endOfPassWriteIndex: per * i + 3 } });
      copy(p); p.end();
    }
  }
  enc.resolveQuerySet(qs, 0, per * reps, res, 0);
  device.queue.submit([enc.finish()]);
  const raw = await readBack(res, 8 * per * reps);
  const ts = new BigUint64Array(raw.buffer);
  const stats = (first) => {
    const ms = [];
    for (let i = 0; i < reps; i++) if (ts[per * i + first + 1] >= ts[per * i + first]) ms.push(Number(ts[per * i + first + 1] - ts[per * i + first]) * 1e-6);
    ms.sort((a, b) => a - b);
    const med = ms.length % 2 ? ms[(ms.length - 1) / 2] : 0.5 * (ms[ms.length / 2 - 1] + ms[ms.length / 2]);
    return { median_ms: med, min_ms: ms[0], p10_ms: ms[Math.round(0.1 * (ms.length - 1))], p90_ms: ms[Math.round(0.9 * (ms.length - 1))], reps: ms.length };
  };
  qs.destroy(); res.destroy();
  const k = stats(0);
  if (copy) k.copy = stats(2);
  return k;
}

// copy_vec4 over `bytes` (half read, half written), capped at the binding limit; returns the
// pass recorder and the bytes copied. Buffers are allocated once at the largest size asked.
let copyBufs = null;
function copyRecorder(bytes) {
  const cap = Math.floor(Math.min(device.limits.maxStorageBufferBindingSize, 2 ** 31) / 256) * 256;
  const half = Math.min(Math.ceil(bytes / 2 / 16) * 16, cap);
  if (!copyBufs) {
    copyBufs = { src: storage(cap, 'copy_src'), dst: storage(cap, 'copy_dst') };
    fillPattern(copyBufs.src, cap, 11);
  }
  const pipe = pipeline(FILE_OF.copy_vec4, 'copy_vec4');
  const bg = bindGroup(pipe, [[0, copyBufs.src, 0, half], [1, copyBufs.dst, 0, half], [2, uniform(new Uint32Array([half / 16, 0, 0, 0]))]], 'copy');
  const [gx, gy] = grid(Math.ceil(half / 16 / 256));
  return { rec: (p) => { p.setPipeline(pipe); p.setBindGroup(0, bg); p.dispatchWorkgroups(gx, gy); }, bytes: 2 * half };
}

// ---- compare mode ------------------------------------------------------------------------------
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
function ordered(bits) { return (bits & 0x80000000) ? -(bits & 0x7fffffff) : bits; }
function ulp32(a, b) {  // a, b: u32 bit patterns
  const na = ((a & 0x7f800000) === 0x7f800000) && (a & 0x7fffff), nb = ((b & 0x7f800000) === 0x7f800000) && (b & 0x7fffff);
  if (na || nb) return na && nb ? 0 : Infinity;
  return Math.abs(ordered(a) - ordered(b));
}
function ulp16(a, b) {
  const o = (h) => (h & 0x8000) ? -(h & 0x7fff) : h;
  return Math.abs(o(a) - o(b));
}

async function compare(dir) {
  const cases = fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, 'case.json'))).sort();
  const rows = [];
  let failed = 0;
  for (const c of cases) {
    const cd = path.join(dir, c);
    const meta = JSON.parse(fs.readFileSync(path.join(cd, 'case.json'), 'utf8'));
    const file = meta.wgsl || FILE_OF[meta.kernel];
    if (meta.kernel === 'adamw_update_f16' || meta.kernel === 'embed_lookup_w16') {
      if (!device.features.has('shader-f16')) { rows.push({ kernel: meta.kernel, result: 'skipped: no shader-f16' }); continue; }
    }
    lastError = null;
    const pipe = pipeline(file, meta.kernel);
    const bufs = {};
    const entries = [];
    for (const b of meta.bindings) {
      const data = fs.readFileSync(path.join(cd, b.in));
      const u8 = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const buf = b.type === 'uniform' ? uniform(u8, 'b' + b.binding) : storage(u8.byteLength, 'b' + b.binding);
      if (b.type !== 'uniform') write(buf, u8);
      bufs[b.binding] = buf;
      entries.push([b.binding, buf, 0, b.type === 'uniform' ? 16 : u8.byteLength]);
    }
    const bg = bindGroup(pipe, entries, meta.kernel);
    const wgs = meta.workgroups || Math.ceil(meta.threads / (meta.wg || 256));
    const [gx, gy] = grid(wgs);
    const enc = device.createCommandEncoder();
    const p = enc.beginComputePass();
    p.setPipeline(pipe); p.setBindGroup(0, bg); p.dispatchWorkgroups(gx, gy); p.end();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    const row = { kernel: meta.kernel, outputs: [] };
    for (const b of meta.bindings) {
      if (!b.out) continue;
      const ours = fs.readFileSync(path.join(cd, b.out));
      const theirs = await readBack(bufs[b.binding], ours.byteLength);
      const rule = b.compare || 'exact';
      let worst = 0, mismatches = 0, n = 0, firstBad = -1;
      if (rule === 'exact' || rule.startsWith('q8')) {
        const A = new Uint8Array(ours.buffer, ours.byteOffset, ours.byteLength);
        if (rule.startsWith('q8')) {  // codes: identical when the f32 state agrees; allow 1 code step
          n = A.length;
          for (let i = 0; i < n; i++) {
            const d = rule === 'q8m' ? (((A[i] & 0x80) !== (theirs[i] & 0x80)) && (A[i] & 0x7f) && (theirs[i] & 0x7f) ? 255 : Math.abs((A[i] & 0x7f) - (theirs[i] & 0x7f))) : Math.abs(A[i] - theirs[i]);
            if (d) { mismatches++; if (firstBad < 0) firstBad = i; }
            worst = Math.max(worst, d);
          }
        } else {
          const a = new Uint32Array(ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.byteLength));
          const t = new Uint32Array(theirs.buffer, 0, a.length);
          n = a.length;
          for (let i = 0; i < n; i++) if (a[i] !== t[i]) { mismatches++; if (firstBad < 0) firstBad = i; worst = Math.max(worst, ulp32(a[i], t[i])); }
        }
      } else if (rule.startsWith('ulp16')) {
        const a = new Uint16Array(ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.byteLength));
        const t = new Uint16Array(theirs.buffer, 0, a.length);
        n = a.length;
        for (let i = 0; i < n; i++) { const d = ulp16(a[i], t[i]); if (d) { mismatches++; if (firstBad < 0) firstBad = i; } worst = Math.max(worst, d); }
      } else if (rule.startsWith('tolfile')) {  // |ours - theirs| <= tol[i] (f32 per element)
        const tf = fs.readFileSync(path.join(cd, rule.split(':')[1]));
        const tol = new Float32Array(tf.buffer.slice(tf.byteOffset, tf.byteOffset + tf.byteLength));
        const fa = new Float32Array(ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.byteLength));
        const ft = new Float32Array(theirs.buffer, 0, fa.length);
        n = fa.length;
        for (let i = 0; i < n; i++) {
          if (fa[i] === ft[i]) continue;
          const d = Math.abs(fa[i] - ft[i]);
          if (d > 0) mismatches++;
          const over = d / Math.max(tol[i], 1e-45);
          if (!(d <= tol[i])) { if (firstBad < 0) firstBad = i; }
          worst = Math.max(worst, over);  // in units of the element's bound
        }
      } else {
        const a = new Uint32Array(ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.byteLength));
        const t = new Uint32Array(theirs.buffer, 0, a.length);
        const fa = new Float32Array(a.buffer), ft = new Float32Array(t.buffer, 0, a.length);
        n = a.length;
        for (let i = 0; i < n; i++) {
          if (a[i] === t[i]) continue;
          mismatches++; if (firstBad < 0) firstBad = i;
          worst = Math.max(worst, rule.startsWith('rel') ? Math.abs(fa[i] - ft[i]) / Math.max(Math.abs(fa[i]), 1e-30) : ulp32(a[i], t[i]));
        }
      }
      const bound = rule.startsWith('tolfile') ? 1 : rule.includes(':') ? Number(rule.split(':')[1]) : (rule.startsWith('q8') ? 1 : 0);
      const ok = worst <= bound;
      if (!ok) failed++;
      row.outputs.push({ binding: b.binding, rule, elements: n, mismatches, worst, first_mismatch: firstBad, ok });
    }
    if (lastError) { row.error = lastError; failed++; }
    rows.push(row);
    console.log(`${meta.kernel.padEnd(30)} ` + (row.outputs.map((o) => `b${o.binding}[${o.rule}] ${o.ok ? 'ok' : 'FAIL'} ${o.mismatches}/${o.elements} differ, worst ${o.worst}`).join('; ') || row.result || '') + (row.error ? ' ERROR ' + row.error : ''));
  }
  return { rows, failed };
}

// ---- bench mode --------------------------------------------------------------------------------
async function benchKernel(row, reps, warmup) {
  const name = row.kernel.split('/')[1].replace(/\[.*\]$/, '');
  const file = FILE_OF[name];
  if (!file) return null;
  if ((name.endsWith('_f16') || name.endsWith('_w16')) && !device.features.has('shader-f16')) return null;
  const pipe = pipeline(file, name);
  const d = row.dims;
  const owned = [];
  const sb = (size, label) => { const b = storage(size, label); owned.push(b); return b; };
  let entries, wgs;
  const u4 = (a, b = 0, c = 0, e = 0) => uniform(new Uint32Array([a, b, c, e]));
  const f4 = (a, b, c, e) => uniform(new Float32Array([a, b, c, e]));
  const hp = () => f4(1e-3, 0.9, 0.999, 0.01);
  const bias = () => f4(Math.pow(0.9, 10), Math.pow(0.999, 10), 1e-8, 10);
  const stats = () => { const b = sb(16, 'stats'); write(b, new Float32Array([1.5, 0.8, 0, 0])); return b; };
  if (name === 'reduce_norm_sq') {
    const n = d.n; const g = sb(4 * n, 'g'); fillPattern(g, 4 * n, 202);
    entries = [[0, g], [1, sb(4, 'acc')], [2, u4(n)]]; wgs = d.workgroups;
  } else if (name === 'adamw_update' || name === 'adamw_update_f16') {
    const n = d.n; const w = sb(4 * n, 'w'), g = sb(4 * n, 'g'), m = sb(4 * n, 'm'), v = sb(4 * n, 'v');
    fillPattern(w, 4 * n, 301); fillPattern(g, 4 * n, 302, 0.1); fillPattern(m, 4 * n, 303, 0.01); fillPattern(v, 4 * n, 304, 1e-3, true);
    entries = [[0, w], [1, g], [2, m], [3, v], [4, stats()], [5, u4(n)], [6, hp()], [7, bias()]];
    if (name === 'adamw_update_f16') entries.push([8, sb(2 * n, 'w16')]);
    wgs = Math.ceil(n / 256);
  } else if (name === 'adamw_8bit_update') {
    const n = d.n; const w = sb(4 * n, 'w'), g = sb(4 * n, 'g');
    fillPattern(w, 4 * n, 301); fillPattern(g, 4 * n, 302, 0.1);
    const nb = Math.ceil(n / 256);
    entries = [[0, w], [1, g], [2, sb(n, 'mq')], [3, sb(n, 'vq')], [4, sb(4 * nb, 'ms')], [5, sb(4 * nb, 'vs')], [6, stats()], [7, u4(n)], [8, hp()], [9, bias()]];
    wgs = nb;
  } else if (name.startsWith('embed_')) {
    if (name === 'embed_backward_deterministic') return null;  // native-only host sort; not a Dawn peer
    const { seq, d_model: dm, vocab } = d;
    const tok = new Uint32Array(seq);
    for (let s = 0; s < seq; s++) {
      let x = (Math.imul(s, 0x9e3779b9) + 17) >>> 0;
      x ^= x >>> 16; x = Math.imul(x, 0x7feb352d) >>> 0; x ^= x >>> 15; x = Math.imul(x, 0x846ca68b) >>> 0; x ^= x >>> 16;
      tok[s] = x % vocab;
    }
    const tb = sb(4 * seq, 'tokens'); write(tb, tok);
    const w16 = name === 'embed_lookup_w16';
    if ((w16 ? 2 : 4) * vocab * dm > device.limits.maxStorageBufferBindingSize)
      return { kernel: row.kernel, label: row.label, skipped: `table of ${(w16 ? 2 : 4) * vocab * dm} bytes over Dawn's maxStorageBufferBindingSize ${device.limits.maxStorageBufferBindingSize}` };
    const table = sb((w16 ? 2 : 4) * vocab * dm, 'table');
    if (!w16) fillPattern(table, 4 * vocab * dm, 501, 0.5);
    else {
      const n = Math.min(vocab * dm, 8 << 20), h = new Uint16Array(n);
      for (let i = 0; i < n; i++) h[i] = 0x3400 | (i * 7919 & 0x3ff);
      for (let off = 0; off < 2 * vocab * dm; off += h.byteLength) device.queue.writeBuffer(table, off, h.buffer, 0, Math.min(h.byteLength, 2 * vocab * dm - off));
    }
    const act = sb(4 * seq * dm, 'act');
    if (name === 'embed_backward') fillPattern(act, 4 * seq * dm, 502);
    const lookup = name.startsWith('embed_lookup');
    entries = [[0, tb], [1, lookup ? table : act], [2, lookup ? act : table], [3, u4(seq, dm, vocab, 0)]];
    wgs = Math.ceil(seq * dm / 256);
  } else return null;
  await device.queue.onSubmittedWorkDone();
  lastError = null;
  const bg = bindGroup(pipe, entries.map(([b, buf]) => [b, buf]), name);
  const [gx, gy] = grid(wgs);
  const copy = copyRecorder(row.bytes);
  const t = await timePasses((p) => { p.setPipeline(pipe); p.setBindGroup(0, bg); p.dispatchWorkgroups(gx, gy); }, reps, warmup, copy.rec);
  for (const b of owned) b.destroy();
  if (lastError) return { kernel: row.kernel, label: row.label, error: lastError };
  const gbps = row.bytes / (t.median_ms * 1e-3) / 1e9, copy_gbps = copy.bytes / (t.copy.median_ms * 1e-3) / 1e9;
  return { kernel: row.kernel, label: row.label, dims: row.dims, bytes: row.bytes, ...t, gbps,
           copy_bytes: copy.bytes, copy_gbps, roofline_share: gbps / copy_gbps };
}

// The multi-tensor optimizer step of wgslvk bench's "step" section: reduce over the whole
// gradient, finalize, then one update dispatch per range (2 ranges, or one per tensor).
async function benchStep(st, reps, warmup) {
  const kernel = st.update_kernel;
  if (kernel === 'adamw_update_f16' && !device.features.has('shader-f16')) return null;
  const N = st.padded_elems;
  const file = FILE_OF[kernel];
  const pr = pipeline(file, 'reduce_norm_sq'), pf = pipeline(file, 'finalize_grad_stats'), pu = pipeline(file, kernel);
  const owned = [];
  const sb = (size, label) => { const b = storage(size, label); owned.push(b); return b; };
  const w = sb(4 * N, 'w'), g = sb(4 * N, 'g');
  fillPattern(w, 4 * N, 601); fillPattern(g, 4 * N, 602, 0.1);
  const q8 = kernel === 'adamw_8bit_update';
  let m, v, mq, vq, ms, vs, w16;
  if (q8) { mq = sb(N, 'mq'); vq = sb(N, 'vq'); ms = sb(4 * Math.ceil(N / 256), 'ms'); vs = sb(4 * Math.ceil(N / 256), 'vs'); }
  else { m = sb(4 * N, 'm'); v = sb(4 * N, 'v'); fillPattern(m, 4 * N, 603, 0.01); fillPattern(v, 4 * N, 604, 1e-3, true); }
  if (kernel === 'adamw_update_f16') w16 = sb(2 * N, 'w16');
  const acc = sb(4, 'acc'), stats = sb(16, 'stats');
  const bgR = bindGroup(pr, [[0, g], [1, acc], [2, uniform(new Uint32Array([N, 0, 0, 0]))]], 'reduce');
  const bgF = bindGroup(pf, [[0, acc], [1, stats], [2, uniform(new Float32Array([1, 0, 0, 0]))]], 'finalize');
  const hpWd = uniform(new Float32Array([1e-3, 0.9, 0.999, 0.01])), hpNo = uniform(new Float32Array([1e-3, 0.9, 0.999, 0]));
  const bias = uniform(new Float32Array([Math.pow(0.9, 10), Math.pow(0.999, 10), 1e-8, 10]));
  const groups = [];
  for (const r of st.ranges) {
    const [o, cnt, decay] = r;
    const e = [[0, w, 4 * o, 4 * cnt], [1, g, 4 * o, 4 * cnt]];
    if (q8) e.push([2, mq, o, align4(cnt)], [3, vq, o, align4(cnt)], [4, ms, 4 * (o / 256), 4 * Math.ceil(cnt / 256)], [5, vs, 4 * (o / 256), 4 * Math.ceil(cnt / 256)], [6, stats], [7, uniform(new Uint32Array([cnt, 0, 0, 0]))], [8, decay ? hpWd : hpNo], [9, bias]);
    else {
      e.push([2, m, 4 * o, 4 * cnt], [3, v, 4 * o, 4 * cnt], [4, stats], [5, uniform(new Uint32Array([cnt, 0, 0, 0]))], [6, decay ? hpWd : hpNo], [7, bias]);
      if (w16) e.push([8, w16, 2 * o, align4(2 * cnt)]);
    }
    groups.push([bindGroup(pu, e, 'update'), grid(Math.ceil(cnt / 256))]);
  }
  const [rx, ry] = grid(st.reduce_workgroups);
  await device.queue.onSubmittedWorkDone();
  lastError = null;
  const copy = copyRecorder(st.bytes);
  const t = await timePasses((p) => {
    p.setPipeline(pr); p.setBindGroup(0, bgR); p.dispatchWorkgroups(rx, ry);
    p.setPipeline(pf); p.setBindGroup(0, bgF); p.dispatchWorkgroups(1);
    p.setPipeline(pu);
    for (const [bg, [x, y]] of groups) { p.setBindGroup(0, bg); p.dispatchWorkgroups(x, y); }
  }, reps, warmup, copy.rec);
  t.copy_bytes = copy.bytes;
  t.copy_gbps = copy.bytes / (t.copy.median_ms * 1e-3) / 1e9;
  t.byte_limit_ms = st.bytes / (t.copy_gbps * 1e9) * 1e3;
  t.vs_byte_limit = t.median_ms / t.byte_limit_ms;
  for (const b of owned) b.destroy();
  if (lastError) return { variant: st.variant, mode: st.mode, error: lastError };
  return { variant: st.variant, mode: st.mode, update_dispatches: st.ranges.length, ...t };
}

if (args.includes('--compare')) {
  const { rows, failed } = await compare(opt('--compare'));
  const out = opt('--out');
  if (out) fs.writeFileSync(out, JSON.stringify({ device: deviceDesc, flags, rows }, null, 1));
  console.log(failed ? `dawn compare: ${failed} output(s) disagree` : 'dawn compare: all outputs agree within their bounds');
  process.exit(failed ? 1 : 0);
} else if (args.includes('--bench')) {
  const ours = JSON.parse(fs.readFileSync(opt('--bench'), 'utf8'));
  const reps = Number(opt('--reps', ours.options?.reps ?? 25)), warmup = Number(opt('--warmup', 3));
  const out = { tool: 'dawn.node (npm webgpu) running wgslvk WGSL sources', device: deviceDesc, flags, reps, warmup, warm_ms: WARM_MS, kernels: [], step: [] };
  for (const row of ours.kernels || []) {
    if (row.kernel.includes('[seed grid]')) continue;
    try {
      const r = await benchKernel(row, reps, warmup);
      if (!r) continue;
      out.kernels.push(r);
      console.log(`dawn ${row.kernel.padEnd(34)} ${row.label.padEnd(22)} ${r.error ? 'ERROR ' + r.error : r.skipped ? 'skipped: ' + r.skipped : r.median_ms.toFixed(4) + ' ms ' + r.gbps.toFixed(1) + ' GB/s, ' + (100 * r.roofline_share).toFixed(1) + '% of copy'}`);
    } catch (e) {
      out.kernels.push({ kernel: row.kernel, label: row.label, error: String(e.message || e) });
      console.log(`dawn ${row.kernel} ${row.label}: ${e.message || e}`);
    }
  }
  for (const st of ours.step || []) {
    if (!st.ranges) continue;
    if (st.norm && st.norm !== 'atomic') continue;  // benchStep records the seed CAS norm only
    try {
      const r = await benchStep(st, reps, warmup);
      if (r) { out.step.push(r); console.log(`dawn step ${st.variant} ${st.mode}: ${r.error ? 'ERROR ' + r.error : r.median_ms.toFixed(4) + ' ms'}`); }
    } catch (e) { out.step.push({ variant: st.variant, mode: st.mode, error: String(e.message || e) }); console.log(`dawn step ${st.variant} ${st.mode}: ${e.message || e}`); }
  }
  fs.writeFileSync(opt('--out', 'dawn.json'), JSON.stringify(out, null, 1));
  console.log('wrote', opt('--out', 'dawn.json'));
} else {
  console.error('usage: node dawn_bench.mjs --root REPO (--compare DUMP_DIR [--out F] | --bench OURS.json --out F [--reps N])');
  process.exit(2);
}
device.destroy();
process.exit(0);
