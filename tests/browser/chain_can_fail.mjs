#!/usr/bin/env node
// Proves the browser -> capture -> native replay chain can fail: captures a few cases in headless
// Chromium (embed_lookup: exact checks; layernorm_forward: ULP checks), then
//   1. replays them untouched: must pass (the control);
//   2. flips the last mantissa bit of one element of an exact-compared expected array: the replay
//      must fail, naming the case, the buffer and the element;
//   3. moves one element of a ULP-compared expected array by 4x its bound (the bound is 2x the
//      stated one, so this is 8 stated bounds): must fail, naming case, buffer and element;
//   4. replays the embed_lookup captures through a deliberately wrong port loaded at run time
//      (tests/browser/wrong_port/embed_lookup_wrong.comp, one ULP off): must fail, named; and
//      through the right port loaded the same way (the control): must pass.
// usage: node tests/browser/chain_can_fail.mjs --wgslvk build/cli/wgslvk --out DIR
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runBrowser, parseArgs } from '../../capture/suite/run_suite.mjs';
import { parseNpy, npyBytes } from '../../capture/src/format.mjs';

const o = parseArgs([...process.argv.slice(2), '--no-fresh', '--kernel', 'embedding/embed_lookup', '--kernel', 'norm/layernorm_forward']);
let failures = 0;
const expect = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures++; };

const b = await runBrowser(o);
const captured = b.results.filter(r => r.status === 'captured');
expect(captured.length >= 4, `captured ${captured.length} cases from ${b.device}`);
const validate = (dir) => spawnSync(o.wgslvk, ['validate', '--cases', dir], { encoding: 'utf8', env: { ...process.env, WGSLVK_SOURCE_DIR: path.resolve('.') } });

let r = validate(b.capturedDir);
expect(r.status === 0, 'untouched captured cases replay and pass');

// Edits one element of `file` through fn(bits view, float view, i), replays, restores.
function tamper(caseDir, bufferName, i, edit, label) {
  const file = path.join(caseDir, `${bufferName}.expected.npy`);
  const orig = fs.readFileSync(file);
  const n = parseNpy(new Uint8Array(orig), file);
  const bytes = n.bytes.slice();
  const u = new Uint32Array(bytes.buffer), f = new Float32Array(bytes.buffer);
  const before = f[i];
  edit(u, f, i);
  fs.writeFileSync(file, npyBytes(n.dtype, bytes));
  const res = validate(b.capturedDir);
  fs.writeFileSync(file, orig);
  const out = res.stdout + res.stderr;
  const caseName = path.basename(caseDir);
  expect(res.status === 1, `${label}: replay fails (exit ${res.status})`);
  const line = out.split('\n').find(l => l.includes(caseName) && l.includes(bufferName)) || '';
  expect(line !== '' && new RegExp(`\\b${i}\\b`).test(line), `${label}: the failure names case '${caseName}', buffer '${bufferName}' and element ${i} (${before} -> ${f[i]})`);
  if (res.status !== 1 || !line) console.log(out.split('\n').slice(-15).join('\n'));
  else console.log(`     ${line.trim().slice(0, 300)}`);
}

const caseDirOf = (kernel) => {
  const d = path.join(b.capturedDir, 'golden', kernel);
  return path.join(d, fs.readdirSync(d).sort()[0]);
};
// exact: embed_lookup's out, an element inside the checked range
{
  const dir = caseDirOf('embedding/embed_lookup');
  const c = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const k = c.checks.find(x => x.compare === 'exact');
  const i = Math.floor((k.range[0] + k.range[1]) / 2);
  tamper(dir, k.buffer, i, (u, f, j) => { u[j] ^= 1; }, 'exact check, last bit flipped');
}
// ulp: layernorm_forward's first ULP check
{
  const dir = caseDirOf('norm/layernorm_forward');
  const c = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const k = c.checks.find(x => x.compare === 'ulp' && typeof x.ulp === 'number');
  const i = k.range[0] + 1;
  tamper(dir, k.buffer, i, (u, f, j) => {
    // 4x the captured bound in ULP of max(|value|, magnitude) (magnitude 'self' or a file)
    let m = Math.abs(f[j]);
    if (k.magnitude?.file) m = Math.max(m, new Float32Array(parseNpy(new Uint8Array(fs.readFileSync(path.join(dir, k.magnitude.file)))).bytes.slice().buffer)[j]);
    const ulp = 2 ** (Math.max(Math.floor(Math.log2(m)), -126) - 23);
    f[j] = f[j] + 4 * k.ulp * ulp;
  }, `ULP check (bound ${k.ulp}), moved by 4x the bound`);
}
// a wrong port, and the right one, loaded with --port against copies of the embed_lookup captures
{
  const src = path.join(b.capturedDir, 'golden', 'embedding', 'embed_lookup');
  const common = ['--wgsl', 'wgsl_ports/embedding/01_embedding.wgsl', '--include-dir', 'wgsl_ports/common'];
  for (const [label, comp, fam, mustFail] of [
    ['a deliberately wrong port', 'tests/browser/wrong_port/embed_lookup_wrong.comp', 'wrong', true],
    ['the right port loaded the same way', 'wgsl_ports/embedding/embed_lookup.comp', 'right', false]]) {
    const kernel = `${fam}/embed_lookup`;  // --family F --entry E registers F/E
    const dst = path.join(o.out, `port-${fam}`);
    fs.rmSync(dst, { recursive: true, force: true });
    fs.cpSync(src, dst, { recursive: true });
    for (const cs of fs.readdirSync(dst)) {
      const f = path.join(dst, cs, 'case.json');
      const c = JSON.parse(fs.readFileSync(f, 'utf8'));
      c.kernel = kernel; for (const d of c.dispatches) d.kernel = kernel;
      fs.writeFileSync(f, JSON.stringify(c, null, 1));
    }
    const res = spawnSync(o.wgslvk, ['validate', '--cases', dst, '--port', comp, '--entry', 'embed_lookup', '--family', fam, ...common],
                          { encoding: 'utf8', env: { ...process.env, WGSLVK_SOURCE_DIR: path.resolve('.') } });
    const out = res.stdout + res.stderr;
    if (!mustFail) { expect(res.status === 0, `${label}: the captures replay and pass`); if (res.status !== 0) console.log(out.slice(-1500)); continue; }
    expect(res.status === 1, `${label}: replay fails (exit ${res.status})`);
    const line = out.split('\n').find(l => /FAIL/.test(l) && l.includes(kernel) && /out\[\d+\]/.test(l)) || '';
    expect(line !== '', `${label}: the failure names the case, buffer 'out' and the element`);
    console.log(line ? `     ${line.trim().slice(0, 300)}` : out.slice(-1500));
  }
}
console.log(failures ? `chain_can_fail: ${failures} expectation(s) failed` : 'chain_can_fail: every tampered replay failed as it must');
process.exit(failures ? 1 : 0);
