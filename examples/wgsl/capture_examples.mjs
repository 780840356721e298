#!/usr/bin/env node
// Regenerates the cases of every example under examples/wgsl/ from a real browser: headless
// Chromium (Debian's, through puppeteer-core, WebGPU on SwiftShader: the flags of the browser suite,
// capture/suite/run_suite.mjs) opens capture_page.html, which runs each example's host program
// (<example>/host.mjs: what the upstream project's host code does with the kernel, on seeded random
// inputs) through capture/'s createCapture and posts the captured wgslvk-case/1 folders back; the
// browser's outputs are the expected arrays. Each host also checks the browser's outputs against its
// own JavaScript reference (exact, or within the stated bound) and fails the run if they disagree.
//
//   node examples/wgsl/capture_examples.mjs [--example NAME]... [--seed N] [--out DIR] [--chromium PATH]
//
// Without --out, each example's cases/ folder is replaced (examples/wgsl/<name>/cases/<case>/).
// Then check them natively:  wgslvk validate --wgsl examples/wgsl/<name>/<file>.wgsl --cases examples/wgsl/<name>/cases
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../capture/suite/server.mjs';
import { CHROMIUM_FLAGS } from '../../capture/suite/run_suite.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

// The examples: every folder here with a host.mjs, in name order.
export function exampleNames() {
  return fs.readdirSync(here, { withFileTypes: true })
    .filter(e => e.isDirectory() && fs.existsSync(path.join(here, e.name, 'host.mjs'))).map(e => e.name).sort();
}

function parseArgs(argv) {
  const o = { examples: [], seed: '20261126', out: null, chromium: process.env.CHROMIUM || '/usr/bin/chromium', timeout: 300 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i], v = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    if (a === '--example') o.examples.push(v());
    else if (a === '--seed') o.seed = v();
    else if (a === '--out') o.out = path.resolve(v());
    else if (a === '--chromium') o.chromium = v();
    else if (a === '--timeout') o.timeout = Number(v());
    else throw new Error(`unknown option '${a}' (see the header of examples/wgsl/capture_examples.mjs)`);
  }
  if (!/^\d+$/.test(o.seed)) throw new Error(`--seed ${o.seed}: expected an unsigned integer`);
  const all = exampleNames();
  for (const e of o.examples) if (!all.includes(e)) throw new Error(`--example ${e}: no such example (have: ${all.join(', ')})`);
  if (!o.examples.length) o.examples = all;
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  // captured files land in a staging folder first: a failed run leaves the committed cases alone
  const staging = fs.mkdtempSync(path.join(o.out ? path.dirname(o.out) : here, '.capture-'));
  const server = await startServer({ mounts: { '/capture/': path.join(root, 'capture'), '/examples/wgsl/': here },
                                     jobs: { examples: o.examples, seed: o.seed }, outDir: staging });
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ executablePath: o.chromium, headless: true, args: CHROMIUM_FLAGS,
                                           userDataDir: path.join(staging, 'chromium-profile'), protocolTimeout: o.timeout * 1000 });
  let done;
  const consoleLines = [];
  try {
    const page = await browser.newPage();
    page.on('console', m => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', e => consoleLines.push(`pageerror: ${e.message}`));
    await page.goto(`${server.url}/examples/wgsl/capture_page.html`);
    let timeout;
    const timer = new Promise((_, rej) => { timeout = setTimeout(() => rej(new Error(`the page did not finish in ${o.timeout} s; console:\n${consoleLines.slice(-20).join('\n')}`)), o.timeout * 1000); });
    try { done = await Promise.race([server.done, timer]); } finally { clearTimeout(timeout); }
  } finally {
    await browser.close();
    await server.close();
  }
  fs.rmSync(path.join(staging, 'chromium-profile'), { recursive: true, force: true });
  if (done.fatal) throw new Error(`the browser has no usable WebGPU device: ${done.fatal}`);
  console.log(`browser device: ${done.device}; seed ${o.seed}`);
  let bad = 0;
  for (const r of done.results) {
    console.log(`${r.example.padEnd(24)} ${r.status.padEnd(8)} ${String(r.cases.length).padStart(3)} case(s) ${r.ms} ms`);
    for (const m of r.messages) console.log(`    ${m}`);
    if (r.status !== 'ok') bad++;
  }
  if (consoleLines.some(l => /uncaptured|pageerror/.test(l))) { console.log(consoleLines.join('\n')); bad++; }
  if (bad) { fs.rmSync(staging, { recursive: true, force: true }); throw new Error(`${bad} example(s) failed; nothing written`); }
  // replace each example's cases with the fresh capture
  let bytes = 0;
  for (const name of o.examples) {
    const dst = o.out ? path.join(o.out, name, 'cases') : path.join(here, name, 'cases');
    fs.rmSync(dst, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.renameSync(path.join(staging, name, 'cases'), dst);
    for (const c of fs.readdirSync(dst)) for (const f of fs.readdirSync(path.join(dst, c))) bytes += fs.statSync(path.join(dst, c, f)).size;
  }
  fs.rmSync(staging, { recursive: true, force: true });
  console.log(`wrote the cases of ${o.examples.length} example(s), ${(bytes / 1024).toFixed(0)} KiB, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch(e => { console.error(`capture_examples: ${e.message || e}`); process.exit(1); });
}
