// What gpu.cpp's examples/matmul/run.cpp does for MATMUL_VERSION=5 ("2D block-tiling",
// createMatmul4 with BM 64, BK 8, BN 64, TM 8, TN 8, no loop unrolling), on a 128 x 32 x 128 problem:
// C (M x N) = A (M x K) times the transpose of B (N x K, "column-major weights"), 64 invocations per
// workgroup, (M / 64, N / 64, 1) = (2, 2, 1) workgroups, A and B bound read-only, C read-write. The
// inputs are the case format's `generate` uniform [-1, 1) (gpu.cpp draws randn; uniform keeps every
// product's magnitude bounded and the case free of input files); C starts as poison. The host checks
// the browser's C against a double-precision product first, within the bound below.
//
// Bound: the WGSL fixes each element's summation order (k = 0..K-1 into a zero-initialised
// accumulator, tile by tile), so the only freedom is whether `acc += a * b` is contracted into an
// fma. Either way the sequential dot product is within gamma_K * sum_k |a_k b_k| <= K ulp(M) of the
// exact value, M = sum_k |a_k b_k| (u = 2^-24 <= ulp(M) / M): K = 32 ULP of M per side, so browser and
// native are within 2K = 64 ULP of M of each other. M is the per-element magnitude file.
import { captured, expectWithin, f32s, f32Up, npy } from '../lib.mjs';
import { generateBytes, POISON32 } from '../../../capture/src/format.mjs';

export const wgslFile = 'kShaderMatmul4.wgsl';
const UPSTREAM = { repository: 'https://github.com/AnswerDotAI/gpu.cpp', commit: '09bdeaa7a0c6715ed7624ee90eda53aa2d8c4cbc',
                   path: 'examples/matmul/run.cpp', host: 'examples/matmul/run.cpp (selectMatmul, version 5)',
                   extraction: 'kShaderMatmul4 after createMatmul4\'s replaceAll: {{workgroupSize}} "64, 1, 1", {{precision}} f32, {{M}} 128, {{K}} 32, {{N}} 128, {{BM}} 64, {{BK}} 8, {{BN}} 64, {{TM}} 8, {{TN}} 8, {{NUM_TILEA}} 8, {{NUM_TILEB}} 8' };
const M = 128, K = 32, N = 128;

function reference(a, b) {
  const c = new Float64Array(M * N), mag = new Float64Array(M * N);
  for (let i = 0; i < M; ++i) for (let j = 0; j < N; ++j) {
    let s = 0, m = 0;
    for (let k = 0; k < K; ++k) { const p = a[i * K + k] * b[j * K + k]; s += p; m += Math.abs(p); }
    c[i * N + j] = s; mag[i * N + j] = m;
  }
  return { c, mag };
}

const specs = (seed) => ({
  a: { generate: { dtype: 'f32', count: M * K, kind: 'uniform', lo: -1, hi: 1, seed: seed + 1 } },
  b: { generate: { dtype: 'f32', count: N * K, kind: 'uniform', lo: -1, hi: 1, seed: seed + 2 } },
  c: { dtype: 'f32', count: M * N, fill: 'poison' },
});

export async function run(ctx) {
  const { device, cap } = ctx;
  const s = specs(Number(ctx.seed));
  const tensor = (label, bytes) => {
    const t = device.createBuffer({ label, size: bytes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
    new Uint8Array(t.getMappedRange()).set(bytes);
    t.unmap();
    return t;
  };
  const a = tensor('a', generateBytes(s.a.generate)), b = tensor('b', generateBytes(s.b.generate));
  const c = tensor('c', new Uint8Array(new Uint32Array(M * N).fill(POISON32).buffer));
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: ctx.code, label: wgslFile }), entryPoint: 'main' } });
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [a, b, c].map((buffer, binding) => ({ binding, resource: { buffer } })) });
  cap.begin('m128_k32_n128');
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(M / 64, N / 64, 1);
  pass.end();
  device.queue.submit([enc.finish()]);
  const out = await cap.end();
  for (const t of [a, b, c]) t.destroy();
  return [out];
}

export function describe(info, json, ctx) {
  const a = f32s(captured(info, 'a').before), b = f32s(captured(info, 'b').before);
  const got = f32s(captured(info, 'c').after);
  const { c, mag } = reference(a, b);
  const magnitude = Float32Array.from(mag, f32Up);
  const w = expectWithin(`${info.name}: c`, got, c, K, magnitude);
  ctx.messages.push(`${info.name}: browser vs double reference: worst ${(w.worst * K).toFixed(3)} ULP of M (bound ${K})`);
  return {
    case: info.name,
    description: `gpu.cpp's 2D block-tiled matmul (version 5), C = A B^T with M 128, K 32, N 128, A and B uniform in [-1, 1); ` +
      `expected = what ${ctx.adapter} computed (within ${(w.worst * K).toFixed(2)} of the ${K} ULP of M allowed against a double-precision product)`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/matmul_tiled/host.mjs', seed: ctx.seed, oracle: ctx.adapter },
    buffers: specs(Number(ctx.seed)),
    files: { 'c.magnitude.npy': npy('f32', magnitude) },
    checks: [{ buffer: 'c', compare: 'ulp', ulp: 2 * K, magnitude: { file: 'c.magnitude.npy' },
               reason: `each element is a K = ${K} term dot product in the order the WGSL fixes; with or without fma contraction it is within gamma_K * M <= K ulp(M) of the exact value (M = sum |a_k b_k|, the magnitude file), so browser and native are within 2K = ${2 * K} ULP of M of each other` }],
  };
}
