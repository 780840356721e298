// Helpers shared by the examples' host programs (<example>/host.mjs): a seeded random source, typed
// views of captured bytes, and the checks of the browser's outputs against each host's own
// JavaScript reference (exact, or a ULP distance against a stated bound).
import { splitmixHalves, npyBytes } from '../../capture/src/format.mjs';

// Seeded uniform random numbers: splitmix64 (capture/src/format.mjs) over the seed mixed with the
// example's name, so each example's inputs depend only on (seed, name).
export function makeRng(seed, name) {
  let h = 0xcbf29ce484222325n;  // FNV-1a 64 of the name
  for (const ch of new TextEncoder().encode(name)) h = BigInt.asUintN(64, (h ^ BigInt(ch)) * 0x100000001b3n);
  const s = BigInt.asUintN(64, BigInt(seed) ^ h);
  let i = 0;
  const next = () => splitmixHalves(s, i++);
  return {
    u32: () => next()[1],
    // [0, 1) with 53 random bits
    unit: () => { const [hi, lo] = next(); return ((hi >>> 5) * 67108864 + (lo >>> 6)) / 9007199254740992; },
    int(lo, hi) { return lo + Math.floor(this.unit() * (hi - lo + 1)); },  // inclusive
    uniform(lo, hi) { return lo + (hi - lo) * this.unit(); },
  };
}

export const u32s = (bytes) => new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
export const f32s = (bytes) => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
// A typed array as the bytes of a .npy file (a describe() `files` entry).
export const npy = (dtype, arr) => npyBytes(dtype, new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));

// The captured buffer `name` of a describe() call: { before, after, dtype, ... }.
export function captured(info, name) {
  const b = info.buffers.find(x => x.name === name);
  if (!b) throw new Error(`case '${info.name}': no captured buffer '${name}' (have ${info.buffers.map(x => x.name).join(', ')})`);
  return b;
}

// Throws naming the first element where the browser's output differs from the reference.
export function expectExact(what, actual, reference) {
  if (actual.length < reference.length) throw new Error(`${what}: ${actual.length} elements, the reference has ${reference.length}`);
  let bad = 0, first = -1;
  for (let i = 0; i < reference.length; ++i) if (actual[i] !== reference[i]) { bad++; if (first < 0) first = i; }
  if (bad) throw new Error(`${what}: the browser's output differs from the JavaScript reference at ${bad} element(s), first [${first}]: ${actual[first]} vs ${reference[first]}`);
}

// The spacing of f32 at |x| (the subnormal spacing below the normal range), as the runner measures.
export function ulpF32(x) {
  const a = Math.abs(x);
  if (a < 2 ** -126) return 2 ** -149;
  return 2 ** (Math.floor(Math.log2(a)) - 23);
}

// The browser's f32 outputs against a double-precision reference: each element's error in ULP of
// max(|reference|, magnitude[i]) must be at most bound[i]. Returns the worst ratio error / bound.
export function expectWithin(what, actual, reference, bound, magnitude) {
  let worst = 0, worstAt = -1, bad = 0, first = -1;
  for (let i = 0; i < reference.length; ++i) {
    const e = reference[i], a = actual[i];
    const b = typeof bound === 'number' ? bound : bound[i];
    const m = Math.max(Math.abs(Math.fround(e)), magnitude ? magnitude[i] : 0);
    const err = Math.abs(a - e) / ulpF32(m);
    if (!(err <= b)) { bad++; if (first < 0) first = i; }
    const r = b > 0 ? err / b : (err > 0 ? Infinity : 0);
    if (r > worst) { worst = r; worstAt = i; }
  }
  if (bad) throw new Error(`${what}: ${bad} element(s) outside the stated bound against the double-precision reference, first [${first}]: browser ${actual[first]}, reference ${reference[first]}`);
  return { worst, worstAt };
}

// The next f32 at or above x (bounds and magnitudes stored as f32 must not shrink when rounded).
export function f32Up(x) {
  const f = Math.fround(x);
  if (f >= x) return f;
  const v = new Float32Array([f]), u = new Uint32Array(v.buffer);
  u[0] += f >= 0 ? 1 : -1;
  return v[0];
}
