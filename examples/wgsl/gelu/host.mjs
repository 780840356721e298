// What gpu.cpp's examples/hello_world/run.cpp does with kGelu: an input tensor and an output tensor,
// bound read-only and read-write, 256 invocations per workgroup, ceil(N / 256) workgroups; the kernel
// guards with arrayLength(&inp). Cases: the upstream inputs x_i = i / 10 (the first 1000 of its
// 10000: x in [0, 100), so x > 10 takes select's exact branch), and 2000 seeded values uniform in
// [-10, 12) (the case format's `generate`: no input file). `out` has room for every invocation of the
// grid and starts as poison, so a write past arrayLength(&inp) shows. The host checks the browser's
// outputs against a double-precision GELU first, within the bound below.
//
// Bound (per element, in ULP of |x|; 0 where x > 10, select returns x itself). With
// v = S (x + c x^3) (S, c the f32 constants; |v| = w), WGSL's accuracy rules give:
//   tanh, "inherited from sinh(x)/cosh(x)", sinh/cosh from (exp(x) -/+ exp(-x)) * 0.5 and exp within
//   3 + 2|x| ULP, x/y within 2.5 ULP:  |tanh error| <= (16.5 + 8w) u   (u = 2^-24)
//   v's five roundings (x*x*x, c*x*x*x, +, *S; terms of one sign) move tanh by <= 5.01 w u
//   1 + t and the final product: <= 2u of 0.5 |x| (1 + t) <= |x|
// so |out error| <= 0.5 |x| u (16.5 + 8w + 5.01w + 4) = |x| u (10.25 + 6.505 w) <= (10.25 + 6.505 w) ulp(|x|).
// Per side B_i = ceil(10.25 + 6.51 w_i); browser and native each within it of the exact value, so the
// captured check allows 2 B_i ULP of max(|x_i|, |expected_i|) (the bound and magnitude files).
// [-10, 12) keeps exp(w) finite (w <= 44): the inherited formula has no defined result beyond.
import { captured, expectWithin, f32s, f32Up, npy } from '../lib.mjs';
import { generateBytes, POISON32 } from '../../../capture/src/format.mjs';

export const wgslFile = 'kGelu.wgsl';
const UPSTREAM = { repository: 'https://github.com/AnswerDotAI/gpu.cpp', commit: '09bdeaa7a0c6715ed7624ee90eda53aa2d8c4cbc',
                   path: 'examples/hello_world/run.cpp', host: 'examples/hello_world/run.cpp (main)',
                   extraction: 'kGelu after KernelCode\'s replaceAll: {{workgroupSize}} 256, {{precision}} f32' };
const S = Math.fround(0.7978845608028654), C = Math.fround(0.044715);

// { out, bound, magnitude } in double, per element
function reference(x) {
  const out = new Float64Array(x.length), bound = new Float32Array(x.length), magnitude = new Float32Array(x.length);
  for (let i = 0; i < x.length; ++i) {
    const v = S * (x[i] + C * x[i] * x[i] * x[i]);
    out[i] = x[i] > 10 ? x[i] : 0.5 * x[i] * (1 + Math.tanh(v));
    bound[i] = x[i] > 10 ? 0 : Math.ceil(10.25 + 6.51 * Math.abs(v));
    magnitude[i] = f32Up(Math.abs(x[i]));
  }
  return { out, bound, magnitude };
}

const CASES = [
  { name: 'upstream_inputs_1000', n: 1000, input: () => Float32Array.from({ length: 1000 }, (_, i) => i / 10) },
  { name: 'uniform_2000', n: 2000, spec: (seed) => ({ generate: { dtype: 'f32', count: 2000, kind: 'uniform', lo: -10, hi: 12, seed: seed + 3 } }) },
];

export async function run(ctx) {
  const { device, cap } = ctx;
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: ctx.code, label: wgslFile }), entryPoint: 'main' } });
  const out = [];
  for (const cs of CASES) {
    const x = cs.input ? cs.input() : new Float32Array(generateBytes(cs.spec(Number(ctx.seed)).generate).buffer);
    const groups = Math.ceil(cs.n / 256);
    const tensor = (label, arr) => {
      const t = device.createBuffer({ label, size: arr.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
      new Uint8Array(t.getMappedRange()).set(new Uint8Array(arr.buffer));
      t.unmap();
      return t;
    };
    const inp = tensor('inp', x), o = tensor('out', new Uint32Array(groups * 256).fill(POISON32));
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: inp } }, { binding: 1, resource: { buffer: o } }] });
    cap.begin(cs.name);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(groups, 1, 1);
    pass.end();
    device.queue.submit([enc.finish()]);
    out.push(await cap.end());
    inp.destroy(); o.destroy();
  }
  return out;
}

const padded = (a, n) => { const p = new Float32Array(n); p.set(a); return p; };

export function describe(info, json, ctx) {
  const cs = CASES.find(c => c.name === info.name);
  const x = f32s(captured(info, 'inp').before), o = captured(info, 'out');
  const got = f32s(o.after);
  const r = reference(x);
  const w = expectWithin(`${info.name}: out`, got, r.out, r.bound, r.magnitude);
  const tail = new Uint32Array(o.after.buffer.slice(o.after.byteOffset + 4 * cs.n, o.after.byteOffset + o.after.byteLength));
  if (tail.some(v => v !== POISON32)) throw new Error(`${info.name}: the browser wrote out[] past arrayLength(&inp)`);
  ctx.messages.push(`${info.name}: browser vs double reference: worst ${(100 * w.worst).toFixed(2)}% of the per-element bound`);
  const total = got.length;
  return {
    case: info.name,
    description: `gpu.cpp's hello_world GELU (tanh form) of ${cs.n} values, ${total - cs.n} poisoned elements of out past them; ` +
      `expected = what ${ctx.adapter} computed (worst ${(100 * w.worst).toFixed(1)}% of the per-element bound against a double-precision GELU)`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/gelu/host.mjs', seed: ctx.seed, oracle: ctx.adapter },
    buffers: { ...(cs.spec ? { inp: cs.spec(Number(ctx.seed)) } : {}), out: { dtype: 'f32', count: total, fill: 'poison' } },
    // bound and magnitude files as long as the expected array (the whole of out); the tail's entries are unused
    files: { 'out.bound.npy': npy('f32', padded(r.bound.map(b => 2 * b), total)), 'out.magnitude.npy': npy('f32', padded(r.magnitude, total)) },
    checks: [
      { buffer: 'out', range: [0, cs.n], compare: 'ulp', ulp: { file: 'out.bound.npy' }, magnitude: { file: 'out.magnitude.npy' },
        reason: 'per element 2 B_i ULP of max(|x_i|, |out_i|), B_i = ceil(10.25 + 6.51 |v_i|), v_i = S (x_i + c x_i^3): WGSL\'s tanh accuracy (inherited from exp through sinh/cosh, 3 + 2|v| ULP), the roundings of v, 1 + t and the product (examples/wgsl/gelu/host.mjs derives it); 0 where x_i > 10 (select returns x_i); browser and native each within B_i of the exact value' },
      { buffer: 'out', range: [cs.n, total], compare: 'exact', reason: 'invocations past arrayLength(&inp) store nothing: the poison stays' },
    ],
  };
}
