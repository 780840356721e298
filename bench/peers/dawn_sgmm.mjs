// Dawn (npm webgpu = dawn.node) running the WGSL wgslvk's subgroup-matrix kernels are ported from
// (wgsl_ports/subgroup_matrix/chromium_experimental/: subgroup_matrix.wgsl for sgmm_f16,
// subgroup_matrix_tiled8.wgsl for sgmm_f16_tiled8) on the inputs test_subgroup_matrix's Bench4096
// dumped (WGSLVK_SGMM_DUMP=DIR: a.f16, b.f16, ENTRY.c.f32 = wgslvk's output), 4096^3, no flags:
// its output compared bit for bit with wgslvk's, and timed (pass timestamps, median of 30 after
// warm-up); then timed at gpt110m's products (the Bench4096 shapes: 2048 rows, forward, dX, dW+=).
//   node bench/peers/dawn_sgmm.mjs DIR [N [ENTRY]]  (ENTRY: sgmm_f16, the default; wgslvk's output
//   is DIR/ENTRY.c.f32; DAWN_NODE=path/to/dawn.node)
// N = 0: the gpt110m products only (on the 4096^3 inputs' first elements), no N^3 comparison: the
// products in a process of their own. N = -1: the bit comparison of the gpt110m products
// test_subgroup_matrix's Bench4096 dumped (gpt_fF.*: one per flag set), one dispatch each. DAWN_SGMM_WGSL=FILE (relative to the repository) and
// DAWN_SGMM_BLOCK=BMxBN: another kernel of the family's ABI (gen_tiled.py --sweep's variants).
import { createRequire } from 'module';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
const n0 = Number(process.argv[3] ?? 4096);
const n = n0 > 0 ? n0 : 4096;  // the dumped inputs' size
const entry = process.argv[4] || 'sgmm_f16';
const tiled = entry !== 'sgmm_f16';
// the kernel's blocks of C: 64x64, or 128x128 (sgmm_f16_tiled8), or DAWN_SGMM_BLOCK's
const [blockM, blockN] = process.env.DAWN_SGMM_BLOCK ? process.env.DAWN_SGMM_BLOCK.split('x').map(Number)
  : (tiled ? [128, 128] : [64, 64]);
const wgslFile = tiled ? `subgroup_matrix_${entry.slice('sgmm_f16_'.length)}.wgsl` : 'subgroup_matrix.wgsl';
const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(import.meta.url);
const repoDawn = path.resolve(here, '../../node_modules/webgpu/dist/linux-x64/dawn.node');
const { create, globals } = require(process.env.DAWN_NODE || repoDawn);
Object.assign(globalThis, globals);
const gpu = create(['backend=vulkan', 'enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis',
  'disable-dawn-features=timestamp_quantization']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const info = adapter.info || {};
console.log(`dawn_sgmm: ${info.vendor || ''} ${info.architecture || ''} ${info.description || ''}`);
console.log(`dawn_sgmm: adapter features: ${[...adapter.features].sort().join(' ')}`);
if (info.subgroupMatrixConfigs) console.log('dawn_sgmm: subgroupMatrixConfigs', JSON.stringify(info.subgroupMatrixConfigs));
console.log(`dawn_sgmm: adapter maxComputeWorkgroupStorageSize ${adapter.limits.maxComputeWorkgroupStorageSize}`);
const want = ['shader-f16', 'timestamp-query', 'subgroups', 'chromium-experimental-subgroup-matrix'];
const missing = want.filter(f => !adapter.features.has(f));
if (missing.length) { console.log(`dawn_sgmm: SKIP, the adapter lacks ${missing.join(' ')}`); process.exit(0); }
const device = await adapter.requestDevice({
  requiredFeatures: want,
  requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    // sgmm_f16_tiled8 declares 49,152 bytes of workgroup memory (WebGPU's default is 16,384)
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize },
});
device.onuncapturederror = e => console.error('dawn uncaptured error:', e.error.message);
const code = fs.readFileSync(process.env.DAWN_SGMM_WGSL ? path.resolve(here, '../..', process.env.DAWN_SGMM_WGSL)
  : path.resolve(here, '../../wgsl_ports/subgroup_matrix/chromium_experimental', wgslFile), 'utf8');
device.pushErrorScope('validation');
const module = device.createShaderModule({ code });
const ci = await module.getCompilationInfo();
for (const m of ci.messages) console.log(`dawn_sgmm: WGSL ${m.type} ${m.lineNum}:${m.linePos} ${m.message}`);
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: entry } });
const err = await device.popErrorScope();
if (err) { console.log(`dawn_sgmm: ERROR ${err.message}`); process.exit(1); }

const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const mk = (bytes, usage) => { const buf = device.createBuffer({ size: bytes.byteLength, usage }); device.queue.writeBuffer(buf, 0, bytes); return buf; };
const key = x => (x & 0x80000000) ? -(x & 0x7fffffff) : x;  // f32 bits in ULP order

if (n0 < 0) {
  // gpt110m's products as test_subgroup_matrix dumped them (one per flag set: gpt_fF.dims, .a.f16,
  // .b.f16, .c0.f32 = C before an ACCUMULATE, ENTRY.gpt_fF.c.f32 = wgslvk's output of one
  // dispatch): one dispatch here on the same inputs, every output compared bit for bit.
  const tags = fs.readdirSync(dir).filter(f => /^gpt_f\d+\.dims$/.test(f)).map(f => f.slice(0, -5)).sort();
  if (!tags.length) { console.log(`dawn_sgmm: no gpt_f*.dims in ${dir}`); process.exit(1); }
  for (const tag of tags) {
    const [M, N, K, flags] = new Uint32Array(new Uint8Array(fs.readFileSync(path.join(dir, `${tag}.dims`))).buffer);
    const pad8 = buf => { const o = new Uint8Array(Math.ceil(Math.max(buf.length, 8) / 8) * 8); o.set(buf); return o; };
    const ga = mk(pad8(fs.readFileSync(path.join(dir, `${tag}.a.f16`))), S);
    const gb = mk(pad8(fs.readFileSync(path.join(dir, `${tag}.b.f16`))), S);
    const c0 = fs.readFileSync(path.join(dir, `${tag}.c0.f32`));
    const gc = device.createBuffer({ size: M * N * 4, usage: S });
    if (c0.length) device.queue.writeBuffer(gc, 0, c0);
    const gu = mk(new Uint32Array([M, N, K, flags]), GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    const bg = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
      { binding: 0, resource: { buffer: ga } }, { binding: 1, resource: { buffer: gb } },
      { binding: 2, resource: { buffer: gc } }, { binding: 3, resource: { buffer: gu } }] });
    const e = device.createCommandEncoder();
    const p = e.beginComputePass(); p.setPipeline(pipeline); p.setBindGroup(0, bg);
    p.dispatchWorkgroups(Math.ceil(N / blockN), Math.ceil(M / blockM)); p.end();
    const rc = device.createBuffer({ size: M * N * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    e.copyBufferToBuffer(gc, 0, rc, 0, M * N * 4);
    device.queue.submit([e.finish()]);
    await rc.mapAsync(GPUMapMode.READ);
    const theirs = new Uint32Array(rc.getMappedRange().slice(0));
    rc.unmap();
    const ours = new Uint32Array(new Uint8Array(fs.readFileSync(path.join(dir, `${entry}.${tag}.c.f32`))).buffer);
    let diff = 0, worst = 0;
    for (let i = 0; i < M * N; ++i) if (theirs[i] !== ours[i]) { ++diff; worst = Math.max(worst, Math.abs(key(theirs[i]) - key(ours[i]))); }
    console.log(`dawn_sgmm ${entry} gpt ${M}x${N}x${K} flags ${flags}: ${M * N - diff} of ${M * N} outputs bit-identical to wgslvk's, ${diff} differ (largest difference ${worst} f32 ULPs)`);
    for (const x of [ga, gb, gc, gu, rc]) x.destroy();
  }
  process.exit(0);
}

const a = fs.readFileSync(path.join(dir, 'a.f16')), b = fs.readFileSync(path.join(dir, 'b.f16'));
const ours = n0 > 0 ? new Uint32Array(new Uint8Array(fs.readFileSync(path.join(dir, `${entry}.c.f32`))).buffer) : null;
const ba = mk(a, S), bb = mk(b, S);
const bc = device.createBuffer({ size: n * n * 4, usage: S });
const bu = mk(new Uint32Array([n, n, n, 0]), GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
  { binding: 0, resource: { buffer: ba } }, { binding: 1, resource: { buffer: bb } },
  { binding: 2, resource: { buffer: bc } }, { binding: 3, resource: { buffer: bu } }] });
let gm = n, gn = n;  // the dispatch's M and N
const record = (enc, tw) => { const p = enc.beginComputePass(tw ? { timestampWrites: tw } : {}); p.setPipeline(pipeline); p.setBindGroup(0, group); p.dispatchWorkgroups(Math.ceil(gn / blockN), Math.ceil(gm / blockM)); p.end(); };
// Warm-up: at least 3 dispatches and 300 ms of them (the GPU's clock leaves its idle state), as
// test_subgroup_matrix does.
const warm = async () => {
  const t0 = performance.now();
  for (let i = 0; i < 3 || performance.now() - t0 < 300; ++i) {
    const e = device.createCommandEncoder(); record(e, null); device.queue.submit([e.finish()]);
    if (i % 4 === 3) await device.queue.onSubmittedWorkDone();
  }
  await device.queue.onSubmittedWorkDone();
};
const reps = 30;
const qs = device.createQuerySet({ type: 'timestamp', count: 2 * reps });
if (n0 > 0) {
await warm();
const enc = device.createCommandEncoder();
for (let i = 0; i < reps; ++i) record(enc, { querySet: qs, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 });
const rs = device.createBuffer({ size: 16 * reps, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const rt = device.createBuffer({ size: 16 * reps, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const rc = device.createBuffer({ size: n * n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
enc.resolveQuerySet(qs, 0, 2 * reps, rs, 0); enc.copyBufferToBuffer(rs, 0, rt, 0, 16 * reps);
enc.copyBufferToBuffer(bc, 0, rc, 0, n * n * 4);
device.queue.submit([enc.finish()]);
await rt.mapAsync(GPUMapMode.READ);
const t = new BigUint64Array(rt.getMappedRange().slice(0));
const ms = []; for (let i = 0; i < reps; ++i) ms.push(Number(t[2 * i + 1] - t[2 * i]) * 1e-6);
ms.sort((x, y) => x - y);
const med = ms[Math.floor(ms.length / 2)];
console.log(`dawn_sgmm ${entry} ${n}^3: min ${ms[0].toFixed(4)} ms, median ${med.toFixed(4)} ms, max ${ms[ms.length - 1].toFixed(4)} ms over ${reps}: ${(2 * n * n * n / (med * 1e-3) / 1e12).toFixed(1)} TFLOP/s (median)`);
await rc.mapAsync(GPUMapMode.READ);
const theirs = new Uint32Array(rc.getMappedRange().slice(0));
const f = new Float32Array(1), fb = new Uint32Array(f.buffer);
let diff = 0, worst = 0;
for (let i = 0; i < n * n; ++i) if (theirs[i] !== ours[i]) {
  ++diff;
  worst = Math.max(worst, Math.abs(key(theirs[i]) - key(ours[i])));
}
console.log(`dawn_sgmm ${entry} ${n}^3: ${n * n - diff} of ${n * n} outputs bit-identical to wgslvk's, ${diff} differ (largest difference ${worst} f32 ULPs)`);
rt.unmap(); rc.unmap();
}

// gpt110m's products on the same buffers (their first elements: random f16 of the 4096^3 case).
const shapes = [];
for (const [din, dout] of [[768, 2304], [768, 768], [768, 3072], [3072, 768]])
  shapes.push([2048, dout, din, 0], [2048, din, dout, 2], [din, dout, 2048, 9]);
for (const [M, N, K, flags] of shapes) {
  if (M * N > n * n || M * K > n * n || K * N > n * n) continue;
  device.queue.writeBuffer(bu, 0, new Uint32Array([M, N, K, flags]));
  gm = M; gn = N;
  await warm();
  const e = device.createCommandEncoder();
  for (let i = 0; i < reps; ++i) record(e, { querySet: qs, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 });
  const rs2 = device.createBuffer({ size: 16 * reps, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const rt2 = device.createBuffer({ size: 16 * reps, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  e.resolveQuerySet(qs, 0, 2 * reps, rs2, 0); e.copyBufferToBuffer(rs2, 0, rt2, 0, 16 * reps);
  device.queue.submit([e.finish()]);
  await rt2.mapAsync(GPUMapMode.READ);
  const t2 = new BigUint64Array(rt2.getMappedRange().slice(0));
  rt2.unmap(); rt2.destroy(); rs2.destroy();
  const ms2 = []; for (let i = 0; i < reps; ++i) ms2.push(Number(t2[2 * i + 1] - t2[2 * i]) * 1e-6);
  ms2.sort((x, y) => x - y);
  const med2 = ms2[Math.floor(ms2.length / 2)];
  console.log(`dawn_sgmm ${entry} gpt ${M}x${N}x${K} flags ${flags}: median ${med2.toFixed(4)} ms: ${(2 * M * N * K / (med2 * 1e-3) / 1e12).toFixed(1)} TFLOP/s (median)`);
}
process.exit(0);
