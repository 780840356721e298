// A zip archive (stored, no compression) from { path: Uint8Array }: what the page offers as the
// download of its captured cases. CRC-32 as in the zip specification (APPNOTE 4.4.7).
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; ++n) { let c = n; for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; t[n] = c >>> 0; }
  return t;
})();
export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; ++i) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
export function zip(entries) {
  const enc = new TextEncoder(), locals = [], central = [];
  let offset = 0;
  for (const [path, data] of entries) {
    const name = enc.encode(path), crc = crc32(data);
    const h = new Uint8Array(30 + name.length), v = new DataView(h.buffer);
    v.setUint32(0, 0x04034b50, true); v.setUint16(4, 20, true); v.setUint16(8, 0, true); v.setUint16(12, 0x21, true);  // 1980-01-01
    v.setUint32(14, crc, true); v.setUint32(18, data.length, true); v.setUint32(22, data.length, true);
    v.setUint16(26, name.length, true); h.set(name, 30);
    locals.push(h, data);
    const c = new Uint8Array(46 + name.length), cv = new DataView(c.buffer);
    cv.setUint32(0, 0x02014b50, true); cv.setUint16(4, 20, true); cv.setUint16(6, 20, true); cv.setUint16(14, 0x21, true);
    cv.setUint32(16, crc, true); cv.setUint32(20, data.length, true); cv.setUint32(24, data.length, true);
    cv.setUint16(28, name.length, true); cv.setUint32(42, offset, true); c.set(name, 46);
    central.push(c);
    offset += h.length + data.length;
  }
  const csize = central.reduce((a, c) => a + c.length, 0);
  const end = new Uint8Array(22), ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true); ev.setUint16(8, central.length, true); ev.setUint16(10, central.length, true);
  ev.setUint32(12, csize, true); ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + csize + 22);
  let o = 0; for (const p of [...locals, ...central, end]) { out.set(p, o); o += p.length; }
  return out;
}
