// What webgpu-samples' sample/computeBoids/main.ts does with updateSprites.wgsl: the 7-float SimParams
// uniform with the sample's values, two particle buffers both created with the initial particles,
// bind groups from the pipeline's "auto" layout, one dispatch of ceil(n / 64) workgroups per frame.
// Cases (one frame each): `spread_256`, 256 particles as the sample draws them (positions uniform in
// [-1, 1), velocities in [-0.1, 0.1)) but four of them at the edges heading out (the wrap-around), and `clustered_256`, 256 particles in [-0.15, 0.15) so that
// most see dozens of neighbours. n is a multiple of 64 (the sample's 1500 is not: invocations 1500..1535
// then index past the array, and where WGSL's robustness clamps the index they store over the last
// particle, so its result is not determined).
//
// Every neighbour test (distance < rule distance) and every wrap-around test (|pos| > 1) is kept away
// from its threshold (particles are redrawn until each margin is at least 1e-5 relative, about 80x
// the f32 error of a distance), so every implementation takes the same branches; the float outputs
// then carry the bound below, per component, from WGSL's accuracy rules (u = 2^-24):
//   w = vVel + cMass s1 + colVel s2 + cVel s3: sums of c terms in the loop's order, a division by the
//     count (2.5 ULP), the products and the three additions: |dw| <= E_w = (c_max + 10) u T, with
//     T = |vVel| + s1 (mean|pos| + |vPos|) + s2 sum(|pos| + |vPos|) + s3 mean|vel| (the larger component)
//   normalize (w / length, length = 1 / inverseSqrt(dot): 2 + 2.5 ULP, dot's roundings) within
//     2.5 E_w / L + 15.5 u per component, L = |w|; times clamp(L, 0, 0.1) (L itself within
//     sqrt(2) E_w + 10.5 u L): |dvel| <= max(0.1 (2.5 E_w / L + 16.5 u), 4 E_w + 27 u L)
//   vPos + vVel dt: |dpos| <= dt |dvel| + u dt |vel| + u |pos|; a wrapped component is exactly -1 or 1.
// Stored per component as B = ceil(E / ulp(m)) ULP of m (m = min(L, 0.1) for a velocity, the scale
// normalize's errors are relative to; |vPos| + dt min(L, 0.1) for a position), the captured check
// allowing 2B (browser and native each within B of the exact value).
import { captured, expectWithin, f32s, f32Up, npy, ulpF32 } from '../lib.mjs';

export const wgslFile = 'updateSprites.wgsl';
const UPSTREAM = { repository: 'https://github.com/webgpu/webgpu-samples', commit: '27925c84407854b8c1933ee449b3e4171ea2277d',
                   path: 'sample/computeBoids/updateSprites.wgsl', host: 'sample/computeBoids/main.ts' };
const PARAMS = Float32Array.from([0.04, 0.1, 0.025, 0.025, 0.02, 0.05, 0.005]);  // deltaT, rule1..3Distance, rule1..3Scale
const N = 256, U = 2 ** -24, MARGIN = 1e-5;

// One frame in double from f32 particles [px, py, vx, vy]*: { out, E (absolute bound), m (magnitude), margin }
function frame(p) {
  const [dt, r1, r2, r3, s1, s2, s3] = PARAMS;
  const out = new Float64Array(4 * N), E = new Float64Array(4 * N), m = new Float64Array(4 * N);
  let margin = Infinity;  // the smallest relative distance of any test to its threshold
  for (let i = 0; i < N; ++i) {
    const px = p[4 * i], py = p[4 * i + 1], vx = p[4 * i + 2], vy = p[4 * i + 3];
    let cmx = 0, cmy = 0, c1 = 0, a1x = 0, a1y = 0, colx = 0, coly = 0, c2 = 0, a2x = 0, a2y = 0, cvx = 0, cvy = 0, c3 = 0, a3x = 0, a3y = 0;
    for (let j = 0; j < N; ++j) {
      if (j === i) continue;
      const qx = p[4 * j], qy = p[4 * j + 1], d = Math.hypot(qx - px, qy - py);
      for (const r of [r1, r2, r3]) margin = Math.min(margin, Math.abs(d - r) / r);
      if (d < r1) { cmx += qx; cmy += qy; c1++; a1x += Math.abs(qx); a1y += Math.abs(qy); }
      if (d < r2) { colx -= qx - px; coly -= qy - py; c2++; a2x += Math.abs(qx) + Math.abs(px); a2y += Math.abs(qy) + Math.abs(py); }
      if (d < r3) { cvx += p[4 * j + 2]; cvy += p[4 * j + 3]; c3++; a3x += Math.abs(p[4 * j + 2]); a3y += Math.abs(p[4 * j + 3]); }
    }
    if (c1 > 0) { cmx = cmx / c1 - px; cmy = cmy / c1 - py; a1x = a1x / c1 + Math.abs(px); a1y = a1y / c1 + Math.abs(py); }
    if (c3 > 0) { cvx /= c3; cvy /= c3; a3x /= c3; a3y /= c3; }
    const wx = vx + cmx * s1 + colx * s2 + cvx * s3, wy = vy + cmy * s1 + coly * s2 + cvy * s3;
    const T = Math.max(Math.abs(vx) + s1 * a1x + s2 * a2x + s3 * a3x, Math.abs(vy) + s1 * a1y + s2 * a2y + s3 * a3y);
    const Ew = (Math.max(c1, c2, c3) + 10) * U * T;
    const L = Math.hypot(wx, wy), k = Math.min(L, 0.1) / L;
    if (!(L > 1000 * Ew)) margin = 0;  // normalize of a vector lost in its rounding: redraw
    const ox = wx * k, oy = wy * k;
    const Ev = Math.max(0.1 * (2.5 * Ew / L + 16.5 * U), 4 * Ew + 27 * U * L), mv = Math.min(L, 0.1);
    for (const [c, pp, o] of [[0, px, ox], [1, py, oy]]) {
      let q = pp + o * dt;
      const Ep = dt * Ev + U * dt * Math.abs(o) + U * Math.abs(q);
      margin = Math.min(margin, (Math.abs(Math.abs(q) - 1) - 4 * Ep) / 1);
      let e = Ep;
      if (q < -1) { q = 1; e = 0; } else if (q > 1) { q = -1; e = 0; }
      out[4 * i + c] = q; E[4 * i + c] = e; m[4 * i + c] = Math.abs(pp) + dt * mv;
    }
    out[4 * i + 2] = ox; out[4 * i + 3] = oy; E[4 * i + 2] = E[4 * i + 3] = Ev; m[4 * i + 2] = m[4 * i + 3] = mv;
  }
  return { out, E, m, margin };
}

// Seeded particles, redrawn (one particle at a time, the first involved) until every margin holds.
function particles(rng, lo, hi) {
  const p = new Float32Array(4 * N);
  const draw = (i) => { p[4 * i] = rng.uniform(lo, hi); p[4 * i + 1] = rng.uniform(lo, hi); p[4 * i + 2] = rng.uniform(-0.1, 0.1); p[4 * i + 3] = rng.uniform(-0.1, 0.1); };
  for (let i = 0; i < N; ++i) draw(i);
  // in the spread case, four particles at the edges heading out: the wrap-around branches
  if (hi === 1) [[0.999, 0.2, 0.1, 0], [-0.999, 0.3, -0.1, 0], [0.4, 0.999, 0, 0.1], [0.5, -0.999, 0, -0.1]].forEach((v, i) => p.set(v, 4 * i));
  for (let round = 0; ; ++round) {
    if (round > 200) throw new Error('boids: could not draw particles clear of every threshold');
    let worst = -1;
    const [, r1, r2, r3] = PARAMS;
    for (let i = 0; i < N && worst < 0; ++i) for (let j = i + 1; j < N; ++j) {
      const d = Math.hypot(p[4 * j] - p[4 * i], p[4 * j + 1] - p[4 * i + 1]);
      if ([r1, r2, r3].some(r => Math.abs(d - r) / r < MARGIN)) { worst = j; break; }
    }
    if (worst < 0 && frame(p).margin >= MARGIN) return p;
    draw(worst >= 0 ? worst : rng.int(4, N - 1));
  }
}

export async function run(ctx) {
  const { device, cap, rng } = ctx;
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: ctx.code, label: wgslFile }) } });
  const cases = [];
  for (const [name, lo, hi] of [['spread_256', -1, 1], ['clustered_256', -0.15, 0.15]]) {
    const simParams = device.createBuffer({ label: 'params', size: 7 * 4, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(simParams, 0, PARAMS);
    const init = particles(rng, lo, hi);
    const bufs = ['particlesA', 'particlesB'].map((label) => {
      const b = device.createBuffer({ label, size: init.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.STORAGE, mappedAtCreation: true });
      new Float32Array(b.getMappedRange()).set(init);
      b.unmap();
      return b;
    });
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
      { binding: 0, resource: { buffer: simParams } }, { binding: 1, resource: { buffer: bufs[0] } }, { binding: 2, resource: { buffer: bufs[1] } }] });
    cap.begin(name);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(Math.ceil(N / 64));
    pass.end();
    device.queue.submit([enc.finish()]);
    cases.push(await cap.end());
    for (const b of [simParams, ...bufs]) b.destroy();
  }
  return cases;
}

export function describe(info, json, ctx) {
  const p = f32s(captured(info, 'particlesA').before), got = f32s(captured(info, 'particlesB').after);
  const r = frame(p);
  const magnitude = Float32Array.from(r.m, f32Up);
  const bound = Float32Array.from(r.E, (e, i) => Math.ceil(e / ulpF32(magnitude[i])));
  const w = expectWithin(`${info.name}: particlesB`, got, r.out, bound, magnitude);
  const wrapped = r.E.filter(e => e === 0).length;
  ctx.messages.push(`${info.name}: browser vs double reference: worst ${(100 * w.worst).toFixed(2)}% of the per-component bound; ${wrapped} wrapped coordinate(s)`);
  return {
    case: info.name,
    description: `one frame of webgpu-samples' compute boids, ${N} particles, the sample's SimParams; ${wrapped} coordinate(s) wrapped around; ` +
      `expected = what ${ctx.adapter} computed (worst ${(100 * w.worst).toFixed(1)}% of the per-component bound against a double-precision frame)`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/boids/host.mjs', seed: ctx.seed, oracle: ctx.adapter },
    files: { 'particlesB.bound.npy': npy('f32', bound.map(b => 2 * b)), 'particlesB.magnitude.npy': npy('f32', magnitude) },
    checks: [{ buffer: 'particlesB', compare: 'ulp', ulp: { file: 'particlesB.bound.npy' }, magnitude: { file: 'particlesB.magnitude.npy' },
               reason: 'per component 2B ULP of m: B from WGSL\'s accuracy rules for the neighbour sums, the division by the count, normalize, length and the kinematic update (examples/wgsl/boids/host.mjs derives it), m = min(|w|, 0.1) for a velocity, |vPos| + dt min(|w|, 0.1) for a position; 0 (exact) for a coordinate wrapped to -1 or 1; every neighbour and wrap test is at least 1e-5 relative from its threshold, so all implementations branch alike; browser and native each within B of the exact value' }],
  };
}
