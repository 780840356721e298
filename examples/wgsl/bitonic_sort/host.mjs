// What webgpu-samples' sample/bitonicSort/main.ts does with NaiveBitonicCompute(64), on a seeded
// shuffle: 'Total Elements' 512 and 'Size Limit' 64 (so 'Workgroup Size' min(512 / 2, 64) = 64 and
// 4 workgroups per step), every step of the sort in order, each frame writing the elements to the
// input buffer, the step type and swap span to the uniforms, dispatching, and reading the output back
// as the next frame's elements; the swap counter accumulates over the sort (it starts at zero, as
// after atomicToZero). Steps 1, 2 and 3 of the sort, the first global flip, the first global
// disperse, the first local disperse after a global step and the last step are captured, one case
// each (a case cannot hold the copy between steps); the host checks every step against a JavaScript
// bitonic step and the final output is sorted.
import { captured, expectExact, u32s } from '../lib.mjs';

export const wgslFile = 'bitonicCompute.wgsl';
const UPSTREAM = { repository: 'https://github.com/webgpu/webgpu-samples', commit: '27925c84407854b8c1933ee449b3e4171ea2277d',
                   path: 'sample/bitonicSort/bitonicCompute.ts', host: 'sample/bitonicSort/main.ts',
                   extraction: 'the template literal returned by NaiveBitonicCompute(64) (${workgroupSize} = 64, ${workgroupSize * 2} = 128)' };
const TOTAL = 512, WG = 64, SLACK = 64;  // buffers hold 64 elements past the sorted ones, never touched
const STEP = { FLIP_LOCAL: 1, DISPERSE_LOCAL: 2, FLIP_GLOBAL: 3, DISPERSE_GLOBAL: 4 };
const stepNames = Object.fromEntries(Object.entries(STEP).map(([k, v]) => [v, k]));

// The schedule main.ts walks (frame(): 'Next Step', 'Next Swap Span', highestBlockHeight).
function schedule() {
  const steps = [];
  let algo = STEP.FLIP_LOCAL, span = 2, highest = 2;
  for (;;) {
    steps.push({ algo, span });
    span /= 2;
    if (span === 1) {
      highest *= 2;
      if (highest === TOTAL * 2) return steps;
      algo = highest > WG * 2 ? STEP.FLIP_GLOBAL : STEP.FLIP_LOCAL;
      span = highest;
    } else algo = span > WG * 2 ? STEP.DISPERSE_GLOBAL : STEP.DISPERSE_LOCAL;
  }
}

// One dispatch of computeMain in JavaScript: { out, swaps } from (input, output before, algo, span).
function reference(input, outBefore, algo, span, workgroups) {
  const out = outBefore.slice();
  let swaps = 0;
  const flip = (id, h) => { const off = Math.floor(2 * id / h) * h, half = h / 2; return [id % half + off, h - id % half - 1 + off]; };
  const disperse = (id, h) => { const off = Math.floor(2 * id / h) * h, half = h / 2; return [id % half + off, id % half + half + off]; };
  for (let wg = 0; wg < workgroups; ++wg) {
    const base = WG * 2 * wg;
    if (algo <= 2) {
      const local = input.slice(base, base + 2 * WG);
      for (let t = 0; t < WG; ++t) {  // the pairs of one step are disjoint: order does not matter
        const [a, b] = (algo === STEP.FLIP_LOCAL ? flip : disperse)(t, span);
        if (local[b] < local[a]) { swaps++; [local[a], local[b]] = [local[b], local[a]]; }
      }
      out.set(local, base);
    } else {
      for (let t = 0; t < WG; ++t) {
        const [a, b] = (algo === STEP.FLIP_GLOBAL ? flip : disperse)(base / 2 + t, span);
        if (input[b] < input[a]) { out[a] = input[b]; out[b] = input[a]; }
      }
    }
  }
  return { out, swaps };
}

export async function run(ctx) {
  const { device, cap, rng } = ctx;
  const elements0 = Uint32Array.from({ length: TOTAL }, (_, i) => i);
  for (let cur = elements0.length; cur !== 0;) {  // randomizeElementArray(), seeded
    const r = Math.floor(rng.unit() * cur); cur -= 1;
    [elements0[cur], elements0[r]] = [elements0[r], elements0[cur]];
  }
  const size = 4 * (TOTAL + SLACK);
  const input = device.createBuffer({ label: 'input_data', size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  const output = device.createBuffer({ label: 'output_data', size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const counter = device.createBuffer({ label: 'counter', size: 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const counterStaging = device.createBuffer({ size: 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const uniforms = device.createBuffer({ label: 'uniforms', size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const vis = GPUShaderStage.COMPUTE;
  const layout = device.createBindGroupLayout({ label: 'BitonicSort.bindGroupLayout', entries: [
    { binding: 0, visibility: vis, buffer: { type: 'read-only-storage' } }, { binding: 1, visibility: vis, buffer: { type: 'storage' } },
    { binding: 2, visibility: vis, buffer: { type: 'uniform' } }, { binding: 3, visibility: vis, buffer: { type: 'storage' } }] });
  const bindGroup = device.createBindGroup({ label: 'BitonicSort.bindGroup0', layout, entries: [
    { binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: output } },
    { binding: 2, resource: { buffer: uniforms } }, { binding: 3, resource: { buffer: counter } }] });
  const pipeline = device.createComputePipeline({ layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
    compute: { module: device.createShaderModule({ code: ctx.code, label: wgslFile }) } });

  const steps = schedule();
  if (steps.length !== 9 * 10 / 2) throw new Error(`schedule: ${steps.length} steps, log2(512) * (log2(512) + 1) / 2 = 45 expected`);
  const firstOf = (algo, after = -1) => steps.findIndex((s, i) => i > after && s.algo === algo);
  const firstGlobal = firstOf(STEP.FLIP_GLOBAL);
  const keep = new Set([0, 1, 2, firstGlobal, firstOf(STEP.DISPERSE_GLOBAL), firstOf(STEP.DISPERSE_LOCAL, firstGlobal), steps.length - 1]);
  const cases = [];
  let elements = elements0, outShadow = new Uint32Array(TOTAL + SLACK), swapsShadow = 0;
  const workgroups = Math.ceil((TOTAL - 1) / (WG * 2));
  for (let k = 0; k < steps.length; ++k) {
    const { algo, span } = steps[k];
    device.queue.writeBuffer(input, 0, elements);
    device.queue.writeBuffer(uniforms, 0, new Float32Array([16, 32]));  // 'Grid Width' x 'Grid Height' of 512 cells
    device.queue.writeBuffer(uniforms, 8, new Uint32Array([algo, span]));
    const name = `step${String(k + 1).padStart(2, '0')}_${stepNames[algo].toLowerCase()}_span${span}`;
    if (keep.has(k)) cap.begin(name);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(workgroups);
    pass.end();
    enc.copyBufferToBuffer(output, 0, staging, 0, size);
    enc.copyBufferToBuffer(counter, 0, counterStaging, 0, 4);
    device.queue.submit([enc.finish()]);
    if (keep.has(k)) cases.push(await cap.end());
    await staging.mapAsync(GPUMapMode.READ);
    const got = new Uint32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    await counterStaging.mapAsync(GPUMapMode.READ);
    const swaps = new Uint32Array(counterStaging.getMappedRange().slice(0))[0];
    counterStaging.unmap();
    const inFull = new Uint32Array(TOTAL + SLACK); inFull.set(elements);
    const ref = reference(inFull, outShadow, algo, span, workgroups);
    expectExact(`${name}: output_data`, got, ref.out);
    swapsShadow += ref.swaps;
    if (swaps !== swapsShadow) throw new Error(`${name}: counter ${swaps}, the reference counts ${swapsShadow}`);
    outShadow = got;
    elements = got.slice(0, TOTAL);
  }
  for (let i = 1; i < TOTAL; ++i) if (elements[i - 1] > elements[i]) throw new Error(`the sort's output is not sorted at ${i}`);
  ctx.messages.push(`sorted ${TOTAL} elements in ${steps.length} steps, ${swapsShadow} swaps; captured ${cases.length} steps`);
  for (const b of [input, output, staging, counter, counterStaging, uniforms]) b.destroy();
  return cases;
}

export function describe(info, json, ctx) {
  const [, step, algoName, spanText] = /^step(\d+)_(.*)_span(\d+)$/.exec(info.name);
  const algo = STEP[algoName.toUpperCase()];
  const input = u32s(captured(info, 'input_data').before), out = captured(info, 'output_data');
  const counter = captured(info, 'counter');
  const ref = reference(input, u32s(out.before), algo, Number(spanText), 4);
  expectExact(`${info.name}: output_data`, u32s(out.after), ref.out);
  if (u32s(counter.after)[0] !== u32s(counter.before)[0] + ref.swaps) throw new Error(`${info.name}: counter off`);
  return {
    case: info.name,
    description: `step ${Number(step)} of 45 of webgpu-samples' bitonic sort of 512 elements: ${algoName.toUpperCase()} (uniforms.algo ${algo}), ` +
      `blockHeight ${spanText}, 4 workgroups of 64; ${ref.swaps} swap(s); expected = what ${ctx.adapter} computed`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/bitonic_sort/host.mjs', seed: ctx.seed, oracle: ctx.adapter,
                  notes: ['input_data, output_data: 512 elements + 64 never touched (the sample sizes its buffers for the largest element count)'] },
    checks: [
      { buffer: 'output_data', compare: 'exact', reason: 'compare-and-swap of u32 values: the permutation each step makes is fixed by the WGSL; the 64 elements past the sort are never written' },
      { buffer: 'counter', compare: 'exact', reason: 'atomicAdd(&counter, 1) once per local swap: an integer count, fixed by the input' },
    ],
  };
}
