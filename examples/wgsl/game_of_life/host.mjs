// What webgpu-samples' sample/gameOfLife/main.ts does with compute.wgsl, on a seeded board: a
// 64 x 48 board (the GUI's width/height steps are 16), 'workgroupSize' 8 passed as the pipeline
// constant blockSize (8 is also the override's default, which is what a case replays: the format
// has no pipeline constants), cells alive with probability 0.25, buffer0 and buffer1 ping-ponged
// through two bind groups, one dispatch of (64 / 8, 48 / 8) workgroups per frame. Cases: one
// generation, and eight generations in a row (one case of eight dispatches). buffer1 starts as
// poison instead of zeros (the kernel writes every cell before anything reads it; poison shows a
// cell it failed to write). The host checks every generation against a JavaScript step with the
// WGSL's u32 arithmetic.
import { captured, expectExact, u32s } from '../lib.mjs';
import { POISON32 } from '../../../capture/src/format.mjs';

export const wgslFile = 'compute.wgsl';
const UPSTREAM = { repository: 'https://github.com/webgpu/webgpu-samples', commit: '27925c84407854b8c1933ee449b3e4171ea2277d',
                   path: 'sample/gameOfLife/compute.wgsl', host: 'sample/gameOfLife/main.ts' };
const W = 64, H = 48, BLOCK = 8;

// One generation as the WGSL computes it: x - 1 and y - 1 wrap to 0xffffffff at 0 and are then
// reduced modulo the board size in u32 (for H = 48 the row above row 0 is row 15, not 47).
function step(cur) {
  const next = new Uint32Array(W * H);
  const idx = (x, y) => ((y >>> 0) % H) * W + ((x >>> 0) % W);
  const cell = (x, y) => cur[idx(x, y)];
  for (let y = 0; y < H; ++y) for (let x = 0; x < W; ++x) {
    const n = cell(x - 1, y - 1) + cell(x, y - 1) + cell(x + 1, y - 1) + cell(x - 1, y) + cell(x + 1, y) +
              cell(x - 1, y + 1) + cell(x, y + 1) + cell(x + 1, y + 1);
    next[idx(x, y)] = cell(x, y) === 1 ? Number(n === 2 || n === 3) : Number(n === 3);
  }
  return next;
}

export async function run(ctx) {
  const { device, cap, rng } = ctx;
  const layout = device.createBindGroupLayout({ entries: [
    { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
    { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
    { binding: 2, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } }] });
  const pipeline = device.createComputePipeline({ layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
    compute: { module: device.createShaderModule({ code: ctx.code, label: wgslFile }), constants: { blockSize: BLOCK } } });
  const cases = [];
  for (const [name, generations] of [['one_generation', 1], ['eight_generations', 8]]) {
    const size = device.createBuffer({ label: 'size', size: 8, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, mappedAtCreation: true });
    new Uint32Array(size.getMappedRange()).set([W, H]);
    size.unmap();
    const cells = Uint32Array.from({ length: W * H }, () => (rng.unit() < 0.25 ? 1 : 0));
    const buffer0 = device.createBuffer({ label: 'buffer0', size: cells.byteLength, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
    new Uint32Array(buffer0.getMappedRange()).set(cells);
    buffer0.unmap();
    const buffer1 = device.createBuffer({ label: 'buffer1', size: cells.byteLength, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
    new Uint32Array(buffer1.getMappedRange()).fill(POISON32);
    buffer1.unmap();
    const bg = [[buffer0, buffer1], [buffer1, buffer0]].map(([a, b]) => device.createBindGroup({ layout, entries: [
      { binding: 0, resource: { buffer: size } }, { binding: 1, resource: { buffer: a } }, { binding: 2, resource: { buffer: b } }] }));
    cap.begin(name);
    for (let t = 0; t < generations; ++t) {
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bg[t % 2]);
      pass.dispatchWorkgroups(W / BLOCK, H / BLOCK);
      pass.end();
      device.queue.submit([enc.finish()]);
    }
    cases.push(await cap.end());
    for (const b of [size, buffer0, buffer1]) b.destroy();
  }
  return cases;
}

export function describe(info, json, ctx) {
  const generations = info.dispatches.length;
  const b0 = captured(info, 'buffer0'), b1 = captured(info, 'buffer1');
  let cur = u32s(b0.before), last1 = null;
  for (let t = 0; t < generations; ++t) { cur = step(cur); if (t % 2 === 0) last1 = cur; }
  expectExact(`${info.name}: buffer1`, u32s(b1.after), last1);
  expectExact(`${info.name}: buffer0`, u32s(b0.after), generations % 2 === 0 ? cur : u32s(b0.before));
  const alive = cur.reduce((a, v) => a + v, 0);
  return {
    case: info.name,
    description: `${generations} generation(s) of webgpu-samples' game of life on a 64 x 48 board, buffer0 and buffer1 ping-ponged; ` +
      `${alive} cells alive at the end; expected = what ${ctx.adapter} computed`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/game_of_life/host.mjs', seed: ctx.seed, oracle: ctx.adapter,
                  notes: ['the sample sets the pipeline constant blockSize = 8, the override\'s default; the case format has no pipeline constants, so the replay uses the default'] },
    buffers: { buffer1: { dtype: 'u32', count: W * H, fill: 'poison' } },
    checks: [
      { buffer: 'buffer0', compare: 'exact', reason: 'cells are 0 or 1 computed with u32 arithmetic (neighbour indices wrap modulo 2^32, then modulo the board), fixed by the WGSL' },
      { buffer: 'buffer1', compare: 'exact', reason: 'cells are 0 or 1 computed with u32 arithmetic (neighbour indices wrap modulo 2^32, then modulo the board), fixed by the WGSL' },
    ],
  };
}
