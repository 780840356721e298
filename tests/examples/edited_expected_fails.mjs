#!/usr/bin/env node
// The examples' replay can fail: copies two examples' captured cases, checks the copies pass
// untouched (the control), then edits one expected value and requires `wgslvk validate --wgsl`
// to fail (exit 1) with a message naming the case, the buffer and the element:
//   1. bitonic_sort: the last bit of one element of an exact-compared output_data flipped;
//   2. matmul_tiled: one element of the ULP-compared c moved by 4x its bound (in ULP of
//      max(|value|, magnitude)), i.e. twice what browser and native may differ by.
// usage: node tests/examples/edited_expected_fails.mjs --wgslvk build/cli/wgslvk --out DIR
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseNpy, npyBytes } from '../../capture/src/format.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name) => { const i = process.argv.indexOf(name); if (i < 0 || i + 1 >= process.argv.length) throw new Error(`${name} VALUE is required`); return path.resolve(process.argv[i + 1]); };
const wgslvk = arg('--wgslvk'), out = arg('--out');
let failures = 0;
const expect = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures++; };

function validate(wgsl, cases) {
  const r = spawnSync(wgslvk, ['validate', '--wgsl', wgsl, '--cases', cases], { encoding: 'utf8', env: { ...process.env, WGSLVK_SOURCE_DIR: root } });
  return { status: r.status, text: `${r.stdout}${r.stderr}` };
}

// example, its WGSL, the case to edit, the buffer, how to edit element i of the expected array
const edits = [
  { example: 'bitonic_sort', wgsl: 'bitonicCompute.wgsl', caseName: 'step29_flip_global_span256', buffer: 'output_data',
    label: 'exact check, last bit flipped', edit: (u, f, i) => { u[i] ^= 1; } },
  { example: 'matmul_tiled', wgsl: 'kShaderMatmul4.wgsl', caseName: 'm128_k32_n128', buffer: 'c',
    label: 'ULP check, moved by 4x its bound', edit: (u, f, i, check, dir) => {
      const m = Math.max(Math.abs(f[i]), new Float32Array(parseNpy(fs.readFileSync(path.join(dir, check.magnitude.file))).bytes.slice().buffer)[i]);
      f[i] += 4 * check.ulp * 2 ** (Math.max(Math.floor(Math.log2(m)), -126) - 23);
    } },
];

for (const e of edits) {
  const wgsl = path.join(root, 'examples/wgsl', e.example, e.wgsl);
  const copy = path.join(out, e.example);
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'examples/wgsl', e.example, 'cases'), copy, { recursive: true });
  let r = validate(wgsl, copy);
  expect(r.status === 0, `${e.example}: the untouched cases pass (exit ${r.status})`);
  if (r.status !== 0) { console.log(r.text.split('\n').slice(-12).join('\n')); continue; }
  const dir = path.join(copy, e.caseName);
  const c = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const check = c.checks.find(k => k.buffer === e.buffer);
  const file = path.join(dir, check.expected);
  const n = parseNpy(new Uint8Array(fs.readFileSync(file)), file);
  const bytes = n.bytes.slice(), u = new Uint32Array(bytes.buffer), f = new Float32Array(bytes.buffer);
  const [lo, hi] = check.range || [0, u.length];
  const i = Math.floor((lo + hi) / 2), before = n.dtype === 'f32' ? f[i] : u[i];
  e.edit(u, f, i, check, dir);
  fs.writeFileSync(file, npyBytes(n.dtype, bytes));
  r = validate(wgsl, copy);
  expect(r.status === 1, `${e.example}: ${e.label}: the replay fails (exit ${r.status})`);
  const line = r.text.split('\n').find(l => l.includes(e.caseName) && l.includes(e.buffer) && new RegExp(`\\b${i}\\b`).test(l)) || '';
  expect(line !== '', `${e.example}: the failure names case '${e.caseName}', buffer '${e.buffer}' and element ${i} (${before} -> ${n.dtype === 'f32' ? f[i] : u[i]})`);
  if (line) console.log(`     ${line.trim().slice(0, 300)}`); else console.log(r.text.split('\n').slice(-12).join('\n'));
}
console.log(failures ? `FAIL: ${failures} expectation(s) not met` : 'PASS: edited expected values fail the replay, named');
process.exit(failures ? 1 : 0);
