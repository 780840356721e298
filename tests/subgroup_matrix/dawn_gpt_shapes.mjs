// Dawn (npm webgpu's dawn.node) timing the subgroup-matrix kernels at gpt110m's products the way
// test_subgroup_matrix's GptShapes times ours (wgsl_ports/subgroup_matrix/README.md, "gpt110m's
// products"): per shape, (1) "alone": the first entry's dispatch loop alone after >= WARM_MS of
// warm-up; (2) "interleaved": every entry dispatched once per round after >= WARM_MS of warm-up
// rounds; medians of 30 passes with timestamps. No outputs are read back (timing only).
//   DAWN_NODE=path/to/dawn.node node tests/subgroup_matrix/dawn_gpt_shapes.mjs ENTRY...
// ENTRY: name=WGSL_FILE@BMxBNxSPLITS (the WGSL file relative to the repository; SPLITS: grid z of
// the split-K ablations, else 1), e.g.
//   sgmm_f16_tiled8_d2=wgsl_ports/subgroup_matrix/chromium_experimental/subgroup_matrix_tiled8_d2.wgsl@128x128x1
// WARM_MS (default 1000). Inputs: random f16 in [-1, 1) (the kernels' time does not depend on them).
import { createRequire } from 'module';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(import.meta.url);
const { create, globals } = require(process.env.DAWN_NODE ||
  path.resolve(here, '../../node_modules/webgpu/dist/linux-x64/dawn.node'));
Object.assign(globalThis, globals);
const warmMs = Number(process.env.WARM_MS || 1000);
const specs = process.argv.slice(2).map(a => {
  const m = /^([^=]+)=(.+)@(\d+)x(\d+)x(\d+)$/.exec(a);
  if (!m) { console.log(`dawn_gpt_shapes: bad entry "${a}" (want name=FILE@BMxBNxSPLITS)`); process.exit(2); }
  return { name: m[1], file: m[2], bm: Number(m[3]), bn: Number(m[4]), splits: Number(m[5]) };
});
if (!specs.length) { console.log('dawn_gpt_shapes: no entries'); process.exit(2); }
const gpu = create(['backend=vulkan', 'enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis',
  'disable-dawn-features=timestamp_quantization']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) { console.log('dawn_gpt_shapes: SKIP, no adapter'); process.exit(0); }
const want = ['shader-f16', 'timestamp-query', 'subgroups', 'chromium-experimental-subgroup-matrix'];
const missing = want.filter(f => !adapter.features.has(f));
if (missing.length) { console.log(`dawn_gpt_shapes: SKIP, the adapter lacks ${missing.join(' ')}`); process.exit(0); }
const device = await adapter.requestDevice({
  requiredFeatures: want,
  requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize },
});
device.onuncapturederror = e => console.error('dawn uncaptured error:', e.error.message);
const entries = [];
for (const s of specs) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: fs.readFileSync(path.resolve(here, '../..', s.file), 'utf8') });
  const ci = await module.getCompilationInfo();
  for (const m of ci.messages) if (m.type === 'error') console.log(`dawn_gpt_shapes: ${s.name}: WGSL ${m.type} ${m.lineNum}:${m.linePos} ${m.message}`);
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: s.name } });
  const err = await device.popErrorScope();
  if (err) { console.log(`dawn_gpt_shapes: ${s.name}: not run (${err.message})`); continue; }
  entries.push({ ...s, pipeline });
}
const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
const f16 = n => {  // n random f16 in [-1, 1), a whole number of vec4s
  const h = new Uint16Array(Math.ceil(n / 4) * 4);
  for (let i = 0; i < n; ++i) h[i] = (Math.random() < 0.5 ? 0x8000 : 0) | (0x3000 + Math.floor(Math.random() * 0xc00));
  return h;
};
const mk = (arr, usage) => { const b = device.createBuffer({ size: arr.byteLength, usage }); device.queue.writeBuffer(b, 0, arr); return b; };
const reps = 30;
const shapes = [];
for (const [din, dout] of [[768, 2304], [768, 768], [768, 3072], [3072, 768], [768, 256]])
  shapes.push([2048, dout, din, 0], [2048, din, dout, 2], [din, dout, 2048, 9]);
for (const [M, N, K, flags] of shapes) {
  const ga = mk(f16(M * K), S), gb = mk(f16(K * N), S);
  const gu = mk(new Uint32Array([M, N, K, flags]), GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  const runs = entries.map(e => {
    const gc = device.createBuffer({ size: M * N * 4, usage: S });
    const group = device.createBindGroup({ layout: e.pipeline.getBindGroupLayout(0), entries: [
      { binding: 0, resource: { buffer: ga } }, { binding: 1, resource: { buffer: gb } },
      { binding: 2, resource: { buffer: gc } }, { binding: 3, resource: { buffer: gu } }] });
    return { e, gc, group };
  });
  const time = async (list) => {
    const record = (enc, r, tw) => {
      const p = enc.beginComputePass(tw ? { timestampWrites: tw } : {});
      p.setPipeline(r.e.pipeline); p.setBindGroup(0, r.group);
      p.dispatchWorkgroups(Math.ceil(N / r.e.bn), Math.ceil(M / r.e.bm), r.e.splits); p.end();
    };
    const t0 = performance.now();
    // submits of >= 32 dispatches, a wait every fourth (as GptShapes: the GPU's clock rises)
    const rounds = Math.max(1, Math.ceil(32 / list.length));
    for (let i = 0; i < 3 || performance.now() - t0 < warmMs; ++i) {
      const enc = device.createCommandEncoder();
      for (let k = 0; k < rounds; ++k) for (const r of list) record(enc, r, null);
      device.queue.submit([enc.finish()]);
      if (i % 4 === 3) await device.queue.onSubmittedWorkDone();
    }
    await device.queue.onSubmittedWorkDone();
    const n = 2 * reps * list.length;
    const qs = device.createQuerySet({ type: 'timestamp', count: n });
    const enc = device.createCommandEncoder();
    for (let i = 0; i < reps; ++i)
      list.forEach((r, j) => { const q = 2 * (i * list.length + j); record(enc, r, { querySet: qs, beginningOfPassWriteIndex: q, endOfPassWriteIndex: q + 1 }); });
    const rs = device.createBuffer({ size: 8 * n, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const rt = device.createBuffer({ size: 8 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    enc.resolveQuerySet(qs, 0, n, rs, 0); enc.copyBufferToBuffer(rs, 0, rt, 0, 8 * n);
    device.queue.submit([enc.finish()]);
    await rt.mapAsync(GPUMapMode.READ);
    const t = new BigUint64Array(rt.getMappedRange().slice(0));
    rt.unmap(); rt.destroy(); rs.destroy(); qs.destroy();
    return list.map((r, j) => {
      const ms = [];
      for (let i = 0; i < reps; ++i) { const q = 2 * (i * list.length + j); ms.push(Number(t[q + 1] - t[q]) * 1e-6); }
      ms.sort((x, y) => x - y);
      return ms[Math.floor(reps / 2)];
    });
  };
  const line = (name, how, ms) => console.log(`dawn gpt ${M}x${N}x${K} flags ${flags}: ${name} ${how} ${(2 * M * N * K / (ms * 1e-3) / 1e12).toFixed(1)} TFLOP/s (median ${ms.toFixed(4)} ms)`);
  const [alone] = await time([runs[0]]);
  line(runs[0].e.name, 'alone', alone);
  const inter = await time(runs);
  runs.forEach((r, j) => line(r.e.name, 'interleaved', inter[j]));
  for (const r of runs) r.gc.destroy();
  for (const b of [ga, gb, gu]) b.destroy();
}
process.exit(0);
