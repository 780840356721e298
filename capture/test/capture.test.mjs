// node --test capture/test/: the parts of capture/ that need no GPU (the WGSL trimming step, the
// .npy and generate code against their definitions, the zip writer). The GPU parts run in the
// browser suite (tests/browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { trimForEntry, entryBindings, entryPoints, parseModule, usesF16 } from '../src/wgsl.mjs';
import { parseNpy, npyBytes, generateBytes, splitmixBig, parseCaseJson, stringifyCaseJson, f16bits, f16value, inlineBytes, gridForWorkgroups } from '../src/format.mjs';
import { zip, crc32 } from '../src/zip.mjs';
import { stallWatchdog } from '../suite/watchdog.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f) => fs.readFileSync(path.join(root, f), 'utf8');

test('trimming 01_embedding.wgsl: the non-f16 entry points compile without f16, the _w16 one needs it', () => {
  const code = read('wgsl_ports/embedding/01_embedding.wgsl');
  for (const e of ['embed_lookup', 'embed_backward']) {
    const t = trimForEntry(code, e);
    assert.equal(t.trimmed, true); assert.equal(t.needsF16, false);
    assert.doesNotMatch(t.code, /enable\s+f16/);
    assert.equal(usesF16(t.code.replace(/^\/\/.*\n/, '')), false);
    assert.match(t.code, new RegExp(`fn ${e}\\(`));
    assert.doesNotMatch(t.code, /embed_lookup_w16|table_w16/);
    assert.match(t.code, /fn flat_id/);  // helpers reached through calls are kept
  }
  const w = trimForEntry(code, 'embed_lookup_w16');
  assert.equal(w.code, null); assert.equal(w.needsF16, true);
  assert.match(w.reason, /table_w16/);
  // a device with shader-f16 gets the module unchanged
  assert.equal(trimForEntry(code, 'embed_lookup_w16', { hasF16: true }).code, code);
});

test('trimming keeps other extensions, follows structs, aliases and calls, and ignores comments', () => {
  const code = `enable f16, subgroups; // both
/* a /* nested */ comment mentioning f16 */
alias T = f32;
struct P { n: u32, s: T, }
const K: u32 = 4u;
fn helper(x: T) -> T { return x * f32(K); }
fn half_helper(x: f16) -> f16 { return x * 2.0h; }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(2) var<storage, read_write> oh: array<f16>;
@compute @workgroup_size(64) fn a(@builtin(global_invocation_id) g: vec3<u32>) { let o2 = p.n; o[g.x] = helper(p.s) + f32(o2); }
@compute @workgroup_size(64) fn b(@builtin(global_invocation_id) g: vec3<u32>) { oh[g.x] = half_helper(1.0h); }
@compute @workgroup_size(64) fn c(@builtin(global_invocation_id) g: vec3<u32>) { let v = vec2h(1.0); o[g.x] = f32(v.x); }
`;
  const t = trimForEntry(code, 'a');
  assert.equal(t.needsF16, false);
  assert.match(t.code, /enable subgroups;/);
  assert.doesNotMatch(t.code, /f16|half_helper|\boh\b/);
  for (const s of ['alias T', 'struct P', 'const K', 'fn helper', 'var<uniform> p']) assert.ok(t.code.includes(s), s);
  assert.match(trimForEntry(code, 'b').reason, /'b' uses f16|half_helper|oh/);
  assert.equal(trimForEntry(code, 'c').needsF16, true);  // vec2h in the body
  assert.deepEqual(entryPoints(code).map(e => e.name), ['a', 'b', 'c']);
  assert.deepEqual(entryBindings(code, 'a').map(b => [b.group, b.binding, b.space, b.access, b.dtype]),
                   [[0, 0, 'uniform', 'read', 'u32'], [0, 1, 'storage', 'read_write', 'f32']]);
  assert.equal(parseModule(code).length, 12);  // enable, alias, struct, const, 2 fns, 3 vars, 3 entry points
  assert.throws(() => trimForEntry(code, 'missing'), /no function named 'missing'/);
});

test('entryBindings of the optimizer: member accesses (hp.w) do not pull in other entry points\' bindings', () => {
  const code = read('wgsl_ports/optimizer/12_optimizer.wgsl');
  const names = entryBindings(code, 'adamw_update_f16').map(b => b.name);
  assert.deepEqual(names, ['w_mp', 'g_mp', 'm_buf_mp', 'v_buf_mp', 'grad_stats_mp', 'size_mp', 'hp_mp', 'bias_mp', 'dst_w16']);
  assert.equal(trimForEntry(code, 'adamw_update').needsF16, false);
  assert.equal(trimForEntry(code, 'adamw_update_f16').needsF16, true);
});

test('npy round trip, and a golden .npy reads as numpy wrote it', () => {
  const bytes = new Uint8Array(new Float32Array([1, -2.5, NaN, 3e-40]).buffer);
  const n = parseNpy(npyBytes('f32', bytes));
  assert.equal(n.dtype, 'f32'); assert.deepEqual(n.shape, [4]); assert.deepEqual([...n.bytes], [...bytes]);
  assert.equal((npyBytes('u8', new Uint8Array(3)).length - 3) % 64, 0);
  assert.throws(() => parseNpy(new Uint8Array(12)), /not a .npy/);
});

test('generate: splitmix64 without BigInt equals the BigInt definition (golden/README.md)', () => {
  for (const seed of [0, 1, 7, 8011, 2 ** 53 - 1]) {
    const b = generateBytes({ dtype: 'u32', count: 64, kind: 'uniform', seed, lo: 0, hi: 2 ** 24 });
    const u = new Uint32Array(b.buffer);
    for (let i = 0; i < 64; ++i) assert.equal(u[i], Number(splitmixBig(seed, i) >> 40n), `seed ${seed} element ${i}`);
    const c = generateBytes({ dtype: 'i32', count: 64, kind: 'choice', seed, values: [0, 1, -1, 5, 9, 11, 13] });
    const ci = new Int32Array(c.buffer);
    for (let i = 0; i < 64; ++i) assert.equal(ci[i], [0, 1, -1, 5, 9, 11, 13][Number(splitmixBig(seed, i) % 7n)]);
    const f = new Float32Array(generateBytes({ dtype: 'f32', count: 64, kind: 'uniform', seed, lo: -3, hi: 5 }).buffer);
    for (let i = 0; i < 64; ++i) assert.equal(f[i], Math.fround(-3 + 8 * Number(splitmixBig(seed, i) >> 40n) * 2 ** -24));
    const vals = [0, 1, -1, 'nan', 'inf', '-inf', '0x7fa5a5a5'];
    const fc = new Uint32Array(generateBytes({ dtype: 'f32', count: 64, kind: 'choice', seed, values: vals }).buffer);
    const want = [0, 0x3f800000, 0xbf800000, 0x7fc00000, 0x7f800000, 0xff800000, 0x7fa5a5a5];
    for (let i = 0; i < 64; ++i) assert.equal(fc[i], want[Number(splitmixBig(seed, i) % 7n)]);
    const h = new Uint16Array(generateBytes({ dtype: 'f16', count: 63, kind: 'uniform', seed, lo: -1, hi: 1 }).buffer);
    for (let i = 0; i < 63; ++i) assert.equal(h[i], f16bits(-1 + 2 * Number(splitmixBig(seed, i) >> 40n) * 2 ** -24));
  }
});

test('case.json: 64-bit seeds stay exact (a double keeps 53 bits: another generated array)', () => {
  const seed = '17120915738216824669';  // a bench sweep seed that Dawn's replay once read rounded
  const text = `{"buffers": {"t": {"generate": {"dtype": "u32", "count": 8, "kind": "uniform", "seed": ${seed}, "lo": 0, "hi": 16777216}}},\n "seed":18446744073709551615,"d": "\\"seed\\": 12345678901234567890"}`;
  const c = parseCaseJson(text);
  const g = c.buffers.t.generate;
  assert.equal(g.seed, seed);
  assert.equal(c.seed, '18446744073709551615');
  assert.equal(c.d, '"seed": 12345678901234567890');  // inside a string: untouched
  assert.notEqual(BigInt(JSON.parse(text).buffers.t.generate.seed), BigInt(seed));  // the bug
  const u = new Uint32Array(generateBytes(g).buffer);
  for (let i = 0; i < 8; ++i) assert.equal(u[i], Number(splitmixBig(BigInt(seed), i) >> 40n));
  assert.deepEqual(parseCaseJson('{"seed": 7, "x": [1, 2]}'), { seed: '7', x: [1, 2] });
  // Written back as plain integers (what wgslvk's case loader requires), exact both ways.
  const back = stringifyCaseJson(c);
  assert.match(back, new RegExp(`"seed": ${seed}[,\\n}]`));
  assert.match(back, /"seed": 18446744073709551615/);
  assert.deepEqual(parseCaseJson(back), c);
  assert.match(stringifyCaseJson({ seed: 5n }), /"seed": 5/);
});

test('f16 rounding, inline values, grid_for_workgroups', () => {
  assert.equal(f16bits(1), 0x3c00); assert.equal(f16bits(65520), 0x7c00); assert.equal(f16bits(2 ** -24), 1);
  assert.equal(f16bits(1 + 2 ** -11), 0x3c00);  // tie to even
  assert.equal(f16value(0x3555), f16value(f16bits(1 / 3)));
  const v = inlineBytes([{ u32: [7] }, { f32: [0.5] }]);
  assert.equal(v.length, 16); assert.deepEqual([...new Uint32Array(v.buffer)], [7, 0x3f000000, 0, 0]);
  assert.deepEqual(gridForWorkgroups(65535), [65535, 1, 1]); assert.deepEqual(gridForWorkgroups(65537), [32769, 2, 1]);
});

test('zip: stored entries with correct CRC-32 (unzip -t accepts it when present)', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  const z = zip([['a/case.json', new TextEncoder().encode('{}')], ['a/x.npy', new Uint8Array([1, 2, 3])]]);
  assert.equal(new DataView(z.buffer).getUint32(0, true), 0x04034b50);
  assert.equal(new DataView(z.buffer).getUint32(z.length - 22, true), 0x06054b50);
  const f = path.join(fs.mkdtempSync('/tmp/capture-zip-'), 't.zip');
  fs.writeFileSync(f, z);
  const { spawnSync } = require_('node:child_process');
  const r = spawnSync('unzip', ['-t', f], { encoding: 'utf8' });
  if (!r.error) assert.equal(r.status, 0, r.stdout + r.stderr);
});
import { createRequire } from 'node:module';
const require_ = createRequire(import.meta.url);

// The browser suite's hang detector: slow progress is not a hang (a fixed 170 s total failed the
// suite on a busy machine); no progress for the stall time is, and so is the overall bound.
test('stallWatchdog: progress keeps the page alive, a stall or the total ends it', async () => {
  let t = 0, last = 0;
  const now = () => t;
  // Progress every 50 s for 400 s: past any fixed 170 s total, never a stall of 120 s.
  const alive = stallWatchdog({ lastActivity: () => last, stallS: 120, maxS: 1500, now, everyMs: 1 });
  let failed = null;
  alive.promise.catch(e => { failed = e; });
  for (; t < 400_000; t += 10_000) {
    if (t % 50_000 === 0) last = t;
    await new Promise(r => setTimeout(r, 3));
  }
  assert.equal(failed, null);
  alive.cancel();
  // No progress after t = 400 s: rejected once 120 s have passed.
  const stalled = stallWatchdog({ lastActivity: () => last, stallS: 120, maxS: 1500, now, everyMs: 1 });
  last = t;
  t += 121_000;
  await assert.rejects(stalled.promise, /no progress for 120 s/);
  // Steady progress past the overall bound.
  t = 0; last = 0;
  const long = stallWatchdog({ lastActivity: () => t, stallS: 120, maxS: 300, now, everyMs: 1 });
  t = 301_000;
  await assert.rejects(long.promise, /did not finish in 300 s in all/);
});
