// The wgslvk-case/1 format on the JavaScript side (golden/README.md is the definition): element
// types, .npy read/write, f16 rounding, value encoding, the `generate` kinds (splitmix64), the
// inline `values` segments and grid_for_workgroups. Plain ES module on Uint8Array/DataView, no
// Node API, so the same code runs in a page, under Node (bench/peers/dawn_cases.mjs,
// capture/suite) and in Dawn's node binding.

// dtype -> [typed array for reading elements, element size in bytes]
export const DT = {
  f32: [Float32Array, 4], f16: [Uint16Array, 2], u32: [Uint32Array, 4], i32: [Int32Array, 4],
  u16: [Uint16Array, 2], i16: [Int16Array, 2], u8: [Uint8Array, 1], i8: [Int8Array, 1],
};
export const NPY = {
  '<f4': 'f32', '<f2': 'f16', '<u4': 'u32', '<i4': 'i32', '<u2': 'u16', '<i2': 'i16', '|u1': 'u8', '|i1': 'i8',
};
export const POISON32 = 0x7fa5a5a5, POISON16 = 0x7d5a, POISON8 = 0xa5;

const latin1 = (bytes) => { let s = ''; for (const b of bytes) s += String.fromCharCode(b); return s; };

// .npy bytes -> { dtype, shape, bytes } (versions 1.0, 2.0 and 3.0; little-endian, C order).
export function parseNpy(buf, where = 'npy') {
  const b = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  if (b.length < 10 || latin1(b.subarray(0, 6)) !== '\x93NUMPY') throw new Error(`${where}: not a .npy file`);
  const major = b[6], dv = new DataView(b.buffer, b.byteOffset, b.length);
  const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true), start = major === 1 ? 10 : 12;
  const header = latin1(b.subarray(start, start + hlen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const dtype = NPY[descr];
  if (!dtype) throw new Error(`${where}: descr ${descr} not supported (golden/README.md lists the types)`);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${where}: fortran_order True not supported`);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] || '').split(',').map(s => s.trim()).filter(Boolean).map(Number);
  const bytes = b.subarray(start + hlen);
  return { dtype, shape, bytes };
}

// Version 1.0, 1-D, header padded to a multiple of 64 bytes (what wgslvk writes).
export function npyBytes(dtype, bytes) {
  const descr = Object.keys(NPY).find(k => NPY[k] === dtype);
  if (!descr) throw new Error(`npy: unknown dtype ${dtype}`);
  const n = bytes.length / DT[dtype][1];
  if (!Number.isInteger(n)) throw new Error(`npy: ${bytes.length} bytes is not a whole number of ${dtype}`);
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${n},), }`;
  while ((10 + h.length + 1) % 64) h += ' ';
  h += '\n';
  const out = new Uint8Array(10 + h.length + bytes.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 0xff, h.length >> 8]);
  for (let i = 0; i < h.length; ++i) out[10 + i] = h.charCodeAt(i);
  out.set(bytes, 10 + h.length);
  return out;
}

// f32 value -> f16 bits, round to nearest even (NaN stays a quiet NaN, overflow to infinity).
const f32s = new Float32Array(1), u32s = new Uint32Array(f32s.buffer);
export function f16bits(x) {
  f32s[0] = x; const b = u32s[0], s = (b >>> 16) & 0x8000, e = (b >>> 23) & 0xff, m = b & 0x7fffff;
  if (e === 0xff) return s | 0x7c00 | (m ? 0x200 : 0);
  const ee = e - 127 + 15;
  if (ee >= 0x1f) return s | 0x7c00;
  if (ee <= 0) {
    if (ee < -10) return s;
    const mm = m | 0x800000, sh = 14 - ee; let r = mm >> sh;
    const rem = mm & ((1 << sh) - 1), half = 1 << (sh - 1);
    if (rem > half || (rem === half && (r & 1))) r++;
    return s | r;
  }
  let r = (ee << 10) | (m >> 13); const rem = m & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1))) r++;
  return s | r;
}
export function f16value(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

// One JSON value of the format (number, "nan", "inf", "-inf", "0x..." bits) into `view` at `off`.
export function encodeValue(dtype, v, view, off) {
  const size = DT[dtype]?.[1];
  if (!size) throw new Error(`unknown dtype ${dtype}`);
  if (typeof v === 'string' && v.startsWith('0x')) {
    const bits = Number(BigInt(v));
    if (size === 4) view.setUint32(off, bits, true); else if (size === 2) view.setUint16(off, bits, true); else view.setUint8(off, bits);
    return;
  }
  const x = v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v);
  switch (dtype) {
    case 'f32': view.setFloat32(off, x, true); break;
    case 'f16': view.setUint16(off, f16bits(x), true); break;
    case 'u32': view.setUint32(off, x >>> 0, true); break;
    case 'i32': view.setInt32(off, x, true); break;
    case 'u16': view.setUint16(off, x, true); break;
    case 'i16': view.setInt16(off, x, true); break;
    case 'u8': view.setUint8(off, x); break;
    case 'i8': view.setInt8(off, x); break;
  }
}

// case.json as JSON.parse would read it, except that "seed" integers stay exact: the C++ writer
// emits 64-bit seeds as plain numbers, and a double keeps only 53 bits, so a generated input would
// be a different array from wgslvk's (seen on the GPU: every bench sweep case with a seed above
// 2^53 "failed" under Dawn). The seeds become decimal strings, which BigInt() reads exactly.
export function parseCaseJson(text) {
  return JSON.parse(text.replace(/(?<!\\)("seed"\s*:\s*)(\d+)(?=\s*[,}\]])/g, '$1"$2"'));
}
// The inverse for writing case.json: seeds held as decimal strings (or BigInts) are written as the
// plain integers wgslvk's loader requires ("an unsigned integer").
export function stringifyCaseJson(obj, indent = 1) {
  const text = JSON.stringify(obj, (k, v) => (typeof v === 'bigint' ? v.toString() : v), indent);
  return text.replace(/(?<!\\)("seed"\s*:\s*)"(\d+)"/g, '$1$2');
}

// splitmix64(seed + (i + 1) * golden) for i in [0, n), as [hi, lo] 32-bit halves, without BigInt in
// the loop (the 16,777,472-element golden would take a minute with BigInt).
function mul64(ah, al, bh, bl) {  // low 64 bits of a * b, halves as uint32
  const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const lo = ((mid & 0xffff) << 16 | (p00 & 0xffff)) >>> 0;
  const carry = Math.floor(mid / 65536) + Math.floor(p01 / 65536) + Math.floor(p10 / 65536) + p11;
  const hi = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  return [hi, lo];
}
export function splitmixHalves(seed, i) {
  const S = BigInt.asUintN(64, BigInt(seed));
  const start = BigInt.asUintN(64, S + (BigInt(i) + 1n) * 0x9e3779b97f4a7c15n);
  let zh = Number(start >> 32n) >>> 0, zl = Number(start & 0xffffffffn) >>> 0;
  let r;
  // z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >> 31
  let xl = (zl >>> 30 | zh << 2) >>> 0, xh = zh >>> 30;
  r = mul64((zh ^ xh) >>> 0, (zl ^ xl) >>> 0, 0xbf58476d, 0x1ce4e5b9); zh = r[0]; zl = r[1];
  xl = (zl >>> 27 | zh << 5) >>> 0; xh = zh >>> 27;
  r = mul64((zh ^ xh) >>> 0, (zl ^ xl) >>> 0, 0x94d049bb, 0x133111eb); zh = r[0]; zl = r[1];
  xl = (zl >>> 31 | zh << 1) >>> 0; xh = zh >>> 31;
  return [(zh ^ xh) >>> 0, (zl ^ xl) >>> 0];
}
// The reference implementation (BigInt), kept for the tests.
const M64 = (1n << 64n) - 1n;
export function splitmixBig(seed, i) {
  let z = (BigInt(seed) + (BigInt(i) + 1n) * 0x9e3779b97f4a7c15n) & M64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
// Add golden (as halves) to the running state instead of recomputing from BigInt each element;
// values are stored through a typed array of the element's width (choices pre-encoded once).
export function generateBytes(g, where = 'generate') {
  const sz = DT[g.dtype]?.[1];
  if (!sz) throw new Error(`${where}.dtype: unknown type ${JSON.stringify(g.dtype)}`);
  if (g.kind !== 'choice' && g.kind !== 'uniform') throw new Error(`${where}.kind: unknown kind ${JSON.stringify(g.kind)}`);
  const out = new Uint8Array(Math.ceil(g.count * sz / 4) * 4);
  const bits = sz === 4 ? new Uint32Array(out.buffer) : sz === 2 ? new Uint16Array(out.buffer) : out;
  const tmp = new DataView(new ArrayBuffer(4));
  const encoded = (v) => { encodeValue(g.dtype, v, tmp, 0); return sz === 4 ? tmp.getUint32(0, true) : sz === 2 ? tmp.getUint16(0, true) : tmp.getUint8(0); };
  const nvals = g.kind === 'choice' ? g.values.length : 0;
  const choice = g.kind === 'choice' ? g.values.map(encoded) : null;
  const f32 = g.dtype === 'f32' ? new Float32Array(out.buffer) : null;
  const S = BigInt.asUintN(64, BigInt(g.seed));
  let zh = Number(S >> 32n) >>> 0, zl = Number(S & 0xffffffffn) >>> 0;
  const GH = 0x9e3779b9, GL = 0x7f4a7c15, span = g.hi - g.lo;
  const m32 = nvals ? 0x100000000 % nvals : 0;
  for (let i = 0; i < g.count; ++i) {
    const lo = zl + GL; zl = lo >>> 0; zh = (zh + GH + (lo > 0xffffffff ? 1 : 0)) >>> 0;
    let xl = (zl >>> 30 | zh << 2) >>> 0, xh = zh >>> 30;
    let r = mul64((zh ^ xh) >>> 0, (zl ^ xl) >>> 0, 0xbf58476d, 0x1ce4e5b9);
    xl = (r[1] >>> 27 | r[0] << 5) >>> 0; xh = r[0] >>> 27;
    r = mul64((r[0] ^ xh) >>> 0, (r[1] ^ xl) >>> 0, 0x94d049bb, 0x133111eb);
    xl = (r[1] >>> 31 | r[0] << 1) >>> 0; xh = r[0] >>> 31;
    const hi = (r[0] ^ xh) >>> 0, low = (r[1] ^ xl) >>> 0;
    if (choice) {
      // r % n from the halves: (hi * 2^32 + lo) mod n, exact in doubles for n < 2^20
      bits[i] = choice[((hi % nvals) * m32 + (low % nvals)) % nvals];
    } else {
      const v = g.lo + span * ((hi >>> 8) * 2 ** -24);  // r >> 40 = hi >> 8; in double, rounded once
      if (f32) f32[i] = v;
      else bits[i] = encoded(g.dtype.startsWith('f') ? v : Math.floor(v));
    }
  }
  return out;
}

// A buffer's initial bytes from its case.json spec; `file` specs come through `loadFile(name)`
// (async, returns the .npy bytes). Sizes are rounded up to a multiple of 4 as the runner does.
export async function initialBytes(spec, loadFile, where = 'buffer') {
  if (spec.file) {
    const n = parseNpy(await loadFile(spec.file), spec.file);
    const out = new Uint8Array(Math.ceil(n.bytes.length / 4) * 4); out.set(n.bytes);
    return { dtype: n.dtype, bytes: out };
  }
  if (spec.generate) return { dtype: spec.generate.dtype, bytes: generateBytes(spec.generate, `${where}.generate`) };
  const sz = DT[spec.dtype]?.[1];
  if (!sz) throw new Error(`${where}.dtype: unknown type ${JSON.stringify(spec.dtype)}`);
  const out = new Uint8Array(Math.ceil(spec.count * sz / 4) * 4), view = new DataView(out.buffer);
  const fill = spec.fill === undefined || spec.fill === 'poison' ? null : spec.fill;
  if (fill === null) {
    if (sz === 4) new Uint32Array(out.buffer).fill(POISON32);
    else if (sz === 2) new Uint16Array(out.buffer).fill(POISON16);
    else out.fill(POISON8);
  } else for (let i = 0; i < spec.count; ++i) encodeValue(spec.dtype, fill, view, i * sz);
  return { dtype: spec.dtype, bytes: out };
}

// An inline `values` binding: segments concatenated, zero-padded to a multiple of 16 bytes.
export function inlineBytes(values) {
  const segs = Array.isArray(values) ? values : [values];
  const parts = [];
  for (const s of segs) for (const [t, vs] of Object.entries(s)) {
    const sz = DT[t][1], b = new Uint8Array(vs.length * sz), view = new DataView(b.buffer);
    vs.forEach((v, k) => encodeValue(t, v, view, k * sz));
    parts.push(b);
  }
  const n = parts.reduce((a, p) => a + p.length, 0), out = new Uint8Array(Math.max(16, Math.ceil(n / 16) * 16));
  let o = 0; for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

// grid_for_workgroups: (N, 1, 1) up to 65535, else x * y >= N with x <= 65535.
export function gridForWorkgroups(n) {
  if (n <= 65535) return [n, 1, 1];
  const y = Math.ceil(n / 65535); return [Math.ceil(n / y), y, 1];
}
export function dispatchGrid(d) {
  return d.workgroups ? [d.workgroups[0], d.workgroups[1] ?? 1, d.workgroups[2] ?? 1] : gridForWorkgroups(d.workgroups_1d);
}

// Typed view of bytes as dtype (copying when unaligned).
export function typedView(dtype, bytes) {
  const [Ty, sz] = DT[dtype];
  const n = Math.floor(bytes.length / sz);
  if (bytes.byteOffset % sz === 0) return new Ty(bytes.buffer, bytes.byteOffset, n);
  return new Ty(bytes.slice(0, n * sz).buffer);
}
