// The browser as the oracle: a case folder's inputs run on the browser's device and captured, the
// browser's outputs becoming the expected arrays, the comparisons derived from the original case's
// checks (which carry each kernel's stated bound and its reason, from wgsl_ports/<family>/reference.hpp).
//
// Decision (the bounds of a captured check), for an original check with bound B ULP:
// - "exact" stays exact: the references say those outputs (copies, selections, integer work,
//   untouched padding) have one right answer, so the browser and the native port must agree bit
//   for bit.
// - "ulp" with magnitude "self" (distance on the float line): the browser is within B steps of the
//   exact value, the native port too, and the float-line distance is a metric, so they are within
//   2B steps of each other: the captured bound is 2B.
// - "ulp" with a magnitude M (a number or a file): the bound is 2B ULP of max(|e|, M), where e is
//   the original expected value (the double-precision reference rounded once) and M the original
//   magnitude, stored as a per-element magnitude file. Measured against the browser value b, the
//   runner uses ulp(max(|b|, max(|e|, M))) >= ulp(max(|e|, M)), so 2B is sound: |native - b| <=
//   |native - e| + |e - b| <= 2B ulp(max(|e|, M)). (Using |b| alone could halve the unit at a binade
//   edge and fail a correct port.) Per-element bounds double element-wise.
// - Ranges and buffers are the original's; a buffer no check reads is not read back.
// So a captured case fails exactly when native and browser disagree by more than two stated
// bounds, i.e. when at least one of them is outside its own bound.
import { DT, parseNpy, npyBytes, typedView } from './format.mjs';

// For createCapture({ wholeBuffers: true, snapshot, describe }) around runCase(original case):
//   snapshot: which copies to take; describe: the captured case.json's kernel, case, provenance,
//   buffer specs (generated and filled inputs keep their spec; the bytes were made from it) and checks.
export function oracleHooks(original, loadFile, { source = 'browser', adapter = '' } = {}) {
  const checked = new Set(original.checks.map(k => k.buffer));
  const specOf = (name) => {
    const s = original.buffers[name];
    return s && !s.file ? s : null;
  };
  return {
    snapshot: ({ name, when }) => when === 'before' ? !specOf(name) : checked.has(name),
    async prepare() {  // loads what describe needs (it runs synchronously)
      const exp = new Map();
      for (const k of original.checks) {
        for (const f of [k.expected, k.ulp?.file, k.magnitude?.file]) if (f && !exp.has(f)) exp.set(f, parseNpy(await loadFile(f), f));
      }
      this.arrays = exp;
    },
    describe(info) {
      const buffers = {}, files = {}, checks = [];
      for (const b of info.buffers) { const s = specOf(b.name); if (s) buffers[b.name] = s; }
      original.checks.forEach((k, ki) => {
        const e = this.arrays.get(k.expected);
        // the expected array as long as the original's (the runner wants bound and magnitude files
        // of that length), the original's range or all of it
        const n = e.bytes.length / DT[e.dtype][1];
        const base = { buffer: k.buffer, dtype: e.dtype, count: n, range: k.range || [0, n] };
        if (k.compare !== 'ulp') {
          checks.push({ ...base, compare: 'exact', reason: `the browser's output, exact as the original check: ${k.reason}` });
          return;
        }
        let ulp;
        if (typeof k.ulp === 'object') {
          const B = typedView('f32', this.arrays.get(k.ulp.file).bytes), out = new Float32Array(B.length);
          for (let i = 0; i < B.length; ++i) out[i] = 2 * B[i];
          const f = `${k.buffer}.check${ki}.ulp.npy`; files[f] = npyBytes('f32', new Uint8Array(out.buffer)); ulp = { file: f };
        } else ulp = 2 * (k.ulp ?? 0);
        let magnitude = 'self';
        if (k.magnitude !== undefined && k.magnitude !== 'self') {
          const ev = e.dtype === 'f32' ? typedView('f32', e.bytes) : null;
          const eh = e.dtype === 'f16' ? typedView('f16', e.bytes) : null;
          const M = typeof k.magnitude === 'object' ? typedView('f32', this.arrays.get(k.magnitude.file).bytes) : null;
          const out = new Float32Array(n);
          for (let i = 0; i < n; ++i) {
            let x = ev ? ev[i] : eh ? f16abs(eh[i]) : 0;
            x = Math.abs(x); if (!Number.isFinite(x)) x = 0;
            const m = M ? M[i] : k.magnitude;
            out[i] = Math.max(x, m);
          }
          const f = `${k.buffer}.check${ki}.magnitude.npy`; files[f] = npyBytes('f32', new Uint8Array(out.buffer)); magnitude = { file: f };
        }
        checks.push({ ...base, compare: 'ulp', ulp, magnitude,
          reason: `2x the original bound (${typeof k.ulp === 'object' ? 'per-element bounds' : k.ulp + ' ULP'}${magnitude === 'self' ? '' : ' of max(|reference|, magnitude)'}): browser and native are each within it of the exact value (capture/src/oracle.mjs); original: ${k.reason}` });
      });
      return {
        kernel: original.kernel, case: original.case, buffers, checks, files,
        description: `${original.description || original.case} -- inputs of ${source}, expected = what ${adapter || 'the browser'} computed`,
        provenance: { oracle: adapter || 'browser', inputs: source, original_provenance: original.provenance || {} },
      };
    },
  };
}
function f16abs(h) {
  const e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0x1f) return NaN;
  return e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15);
}
