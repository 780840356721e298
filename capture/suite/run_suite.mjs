#!/usr/bin/env node
// The browser suite: headless Chromium (Debian's, through puppeteer-core) runs every shipped WGSL
// entry point its WebGPU device supports on the inputs of every golden case and of a fresh seeded
// case per kernel (`wgslvk golden fresh`), captures each run with capture/ (the browser's outputs
// become the expected arrays, the bounds derived from the original checks: capture/src/oracle.mjs),
// then replays the captured cases natively with `wgslvk validate --cases` and prints one row per
// kernel. Exit 1 on any replay failure, any browser error, or a kernel without f16 left uncaptured.
//
//   node capture/suite/run_suite.mjs --wgslvk build/cli/wgslvk [--out DIR] [--seed N]
//        [--kernel K]... [--no-fresh] [--no-validate] [--screenshot FILE.png] [--chromium PATH]
//        [--stall S (no progress for S s is a hang; default 120)] [--timeout S (in all; 1500)]
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer, makeJobs } from './server.mjs';
import { stallWatchdog } from './watchdog.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM_FLAGS = ['--headless=new', '--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];

export function parseArgs(argv) {
  const o = { wgslvk: null, out: path.join(root, 'out', 'browser-suite'), seed: null, kernels: [], fresh: true, validate: true,
              screenshot: null, chromium: process.env.CHROMIUM || '/usr/bin/chromium', stall: 120, timeout: 1500 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i], v = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    if (a === '--wgslvk') o.wgslvk = path.resolve(v());
    else if (a === '--out') o.out = path.resolve(v());
    else if (a === '--seed') o.seed = v();
    else if (a === '--kernel') o.kernels.push(v());
    else if (a === '--no-fresh') o.fresh = false;
    else if (a === '--no-validate') o.validate = false;
    else if (a === '--screenshot') o.screenshot = path.resolve(v());
    else if (a === '--chromium') o.chromium = v();
    else if (a === '--timeout') o.timeout = Number(v());
    else if (a === '--stall') o.stall = Number(v());
    else throw new Error(`unknown option '${a}' (see the header of capture/suite/run_suite.mjs)`);
  }
  if (!o.wgslvk) throw new Error('--wgslvk PATH (the built CLI) is required');
  // the fresh inputs' seed: --seed, else WGSLVK_TEST_SEED (as the GoogleTest suites), else fresh; printed
  if (o.seed === null) o.seed = process.env.WGSLVK_TEST_SEED || String(Math.floor(Math.random() * 2 ** 32));
  return o;
}

const sh = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, WGSLVK_SOURCE_DIR: root }, ...opts });
  if (r.error) throw r.error;
  return r;
};
const matchKernel = (wanted, kernel) => !wanted.length || wanted.some(w => w === kernel || w === kernel.split('/')[0] || w === kernel.split('/')[1]);

// Runs the browser part; returns { device, results, jobs, capturedDir }.
export async function runBrowser(o) {
  const t0 = Date.now();
  fs.rmSync(o.out, { recursive: true, force: true });
  const freshDir = path.join(o.out, 'fresh-inputs'), capturedDir = path.join(o.out, 'captured');
  fs.mkdirSync(capturedDir, { recursive: true });
  const sources = { golden: { dir: path.join(root, 'golden'), url: 'golden' } };
  if (o.fresh) {
    const args = ['golden', 'fresh', '--seed', o.seed, '--out', freshDir];
    for (const k of o.kernels) args.push('--kernel', k);
    const r = sh(o.wgslvk, args);
    if (r.status !== 0) throw new Error(`wgslvk ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
    sources.fresh = { dir: freshDir, url: '_fresh' };
  }
  const jobs = makeJobs(root, sources);
  jobs.cases = jobs.cases.filter(c => matchKernel(o.kernels, c.kernel));
  const mounts = { '/capture/': path.join(root, 'capture'), '/wgsl_ports/': path.join(root, 'wgsl_ports'),
                   '/golden/': path.join(root, 'golden'), '/_fresh/': freshDir };
  const server = await startServer({ mounts, jobs, outDir: capturedDir });
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ executablePath: o.chromium, headless: true, args: CHROMIUM_FLAGS,
                                           userDataDir: path.join(o.out, 'chromium-profile'), protocolTimeout: o.timeout * 1000 });
  let done;
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 900 });
    const consoleLines = [];
    page.on('console', m => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', e => consoleLines.push(`pageerror: ${e.message}`));
    await page.goto(`${server.url}/capture/demo/index.html?suite=1`);
    // A hang detector (no request for --stall seconds), not a fixed total: a busy machine is slow,
    // not hung. --timeout stays as an overall bound.
    const dog = stallWatchdog({ lastActivity: server.lastActivity, stallS: o.stall, maxS: o.timeout,
                                describe: () => `console:\n${consoleLines.slice(-20).join('\n')}` });
    try { done = await Promise.race([server.done, dog.promise]); } finally { dog.cancel(); }
    if (o.screenshot) { await page.waitForFunction('window.wgslvkDone === true'); await page.screenshot({ path: o.screenshot, fullPage: true }); }
    if (consoleLines.some(l => /uncaptured|pageerror/.test(l))) done.console = consoleLines;
  } finally {
    await browser.close();
    await server.close();
  }
  if (done.fatal) throw new Error(`the browser has no usable WebGPU device: ${done.fatal}`);
  done.browser_s = (Date.now() - t0) / 1000;
  return { ...done, jobs, capturedDir };
}

export function replay(o, capturedDir) {
  const r = sh(o.wgslvk, ['validate', '--cases', capturedDir, '--json']);
  let rep;
  try { rep = JSON.parse(r.stdout); } catch { throw new Error(`wgslvk validate --json printed no JSON (exit ${r.status}):\n${r.stdout}${r.stderr}`); }
  return { status: r.status, report: rep };
}

// One row per shipped kernel: browser side (captured / skipped and why / errors), replay side.
export function table(b, v, o) {
  const rows = new Map();
  for (const k of b.jobs.kernels) if (matchKernel(o.kernels, k.kernel)) rows.set(k.kernel, { kernel: k.kernel, captured: 0, skipped: 0, errors: 0, notes: new Set(), trimmed: false });
  for (const r of b.results) {
    const row = rows.get(r.kernel) || { kernel: r.kernel, captured: 0, skipped: 0, errors: 0, notes: new Set(), trimmed: false };
    rows.set(r.kernel, row);
    if (r.status === 'captured') row.captured++; else if (r.status === 'skipped') row.skipped++; else { row.errors++; row.notes.add(`${r.id}: ${r.reason}`); }
    if (r.status === 'skipped') row.notes.add(r.reason);
    if (r.trimmed) row.trimmed = true;
  }
  const vrows = new Map((v?.report.kernels || []).map(r => [r.kernel, r]));
  const lines = [];
  let bad = 0;
  const fmt = (x) => !Number.isFinite(x) ? 'inf' : x === Math.floor(x) && x < 1e7 ? String(x) : x.toPrecision(3);
  lines.push(`${'kernel'.padEnd(42)} ${'browser'.padEnd(26)} ${'replayed'.padStart(8)}  ${'worst / bound (2x stated)'.padEnd(26)} result`);
  for (const row of rows.values()) {
    const vr = vrows.get(row.kernel);
    let browser = `${row.captured} captured`;
    if (row.skipped) browser += `, ${row.skipped} skipped`;
    if (row.errors) browser += `, ${row.errors} ERRORS`;
    if (row.trimmed) browser += ' (f16-trimmed)';
    let result, err = '-';
    if (vr) { err = vr.worst_ulp !== undefined ? `${fmt(Number(vr.worst_ulp))} / ${fmt(Number(vr.bound_ulp))} ULP` : vr.status === 'SKIP' ? '-' : 'exact'; result = vr.status; }
    else result = row.captured ? (v ? 'NOT REPLAYED' : 'CAPTURED') : row.skipped ? 'SKIP' : row.errors ? 'ERROR' : 'NO CASE';
    // wgslvk_util/ holds the runtime's probes and the copy roofline, not engine kernels: no cases by design
    if (result === 'NO CASE' && row.kernel.startsWith('wgslvk_util/')) result = 'NO CASE (helper)';
    if (row.errors || (vr && vr.status !== 'PASS' && vr.status !== 'SKIP') || result === 'NOT REPLAYED' || result === 'NO CASE') bad++;
    lines.push(`${row.kernel.padEnd(42)} ${browser.padEnd(26)} ${String(vr ? vr.cases : 0).padStart(8)}  ${err.padEnd(26)} ${result}`);
    for (const n of row.notes) lines.push(`    ${n}`);
    if (vr) for (const m of vr.messages || []) lines.push(`    ${m}`);
  }
  for (const [k, vr] of vrows) {  // replayed rows no shipped entry point accounts for (a case that did not load)
    if (rows.has(k)) continue;
    if (vr.status !== 'PASS' && vr.status !== 'SKIP') bad++;
    lines.push(`${k.padEnd(42)} ${'-'.padEnd(26)} ${String(vr.cases).padStart(8)}  ${'-'.padEnd(26)} ${vr.status}`);
    for (const m of vr.messages || []) lines.push(`    ${m}`);
  }
  return { text: lines.join('\n'), bad };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  console.log(`browser suite: chromium ${o.chromium}, fresh inputs seed ${o.seed} (--seed ${o.seed} replays it), out ${o.out}`);
  const b = await runBrowser(o);
  const lim = b.limits || {};
  console.log(`browser device: ${b.device}; features: ${(b.features || []).join(' ') || '(no shader-f16)'}; ` +
              `minStorageBufferOffsetAlignment ${lim.minStorageBufferOffsetAlignment}; ${b.results.length} cases in ${b.browser_s.toFixed(1)} s`);
  if (b.console) console.log(b.console.join('\n'));
  let v = null;
  if (o.validate) {
    const t1 = Date.now();
    v = replay(o, b.capturedDir);
    console.log(`native replay: ${v.report.device || ''} ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  }
  const t = table(b, v, o);
  console.log('\n' + t.text);
  const failed = t.bad > 0 || (v && v.status !== 0);
  console.log(`\n${failed ? 'FAIL' : 'PASS'}: ${b.results.filter(r => r.status === 'captured').length} cases captured from the browser` +
              `${v ? ' and replayed natively' : ''}, ${b.results.filter(r => r.status === 'skipped').length} skipped, ` +
              `${b.results.filter(r => r.status === 'error').length} errors (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  fs.writeFileSync(path.join(o.out, 'summary.json'), JSON.stringify({ seed: o.seed, device: b.device, features: b.features, limits: b.limits, results: b.results, replay: v?.report }, null, 1));
  return failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(code => process.exit(code), e => { console.error(`browser suite: ${e.message || e}`); process.exit(1); });
}
