// The page: asks the server for the jobs (case folders and the shipped WGSL), runs each case's
// dispatches on this browser's device through createCapture, and either keeps the captured folders
// for a zip download (a user's browser) or posts them to the suite's server (?suite=1, headless).
import { createCapture } from '../src/capture.mjs';
import { prepareModules, runCase, destroyAll } from '../src/replay.mjs';
import { oracleHooks } from '../src/oracle.mjs';
import { parseCaseJson } from '../src/format.mjs';
import { zip } from '../src/zip.mjs';
import { captureSelfTest } from '../src/selftest.mjs';

const params = new URLSearchParams(location.search);
const suite = params.has('suite');
const $ = (id) => document.getElementById(id);
const results = [];     // one per case: { id, kernel, source, status, reason, trimmed }
const captured = [];    // [path, bytes] for the zip
window.wgslvkDone = false;

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function device() {
  if (!navigator.gpu) throw new Error('navigator.gpu is missing: this browser has no WebGPU (or the page is not a secure context)');
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('requestAdapter returned null');
  const features = ['shader-f16'].filter(f => adapter.features.has(f));
  const L = adapter.limits;
  const dev = await adapter.requestDevice({ requiredFeatures: features, requiredLimits: {
    maxBufferSize: L.maxBufferSize, maxStorageBufferBindingSize: L.maxStorageBufferBindingSize,
    maxComputeWorkgroupStorageSize: L.maxComputeWorkgroupStorageSize, maxStorageBuffersPerShaderStage: L.maxStorageBuffersPerShaderStage,
    maxComputeInvocationsPerWorkgroup: L.maxComputeInvocationsPerWorkgroup, maxComputeWorkgroupSizeX: L.maxComputeWorkgroupSizeX } });
  const info = adapter.info || {};
  const name = [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'WebGPU adapter';
  return { dev, name, features, limits: { minStorageBufferOffsetAlignment: L.minStorageBufferOffsetAlignment,
    minUniformBufferOffsetAlignment: L.minUniformBufferOffsetAlignment, maxStorageBufferBindingSize: L.maxStorageBufferBindingSize,
    maxComputeWorkgroupsPerDimension: L.maxComputeWorkgroupsPerDimension } };
}

function render(jobs) {
  const byKernel = new Map();
  for (const k of jobs.kernels) byKernel.set(k.kernel, { captured: 0, skipped: 0, errors: 0, notes: new Set(), wgsl: k.wgsl });
  for (const r of results) {
    const row = byKernel.get(r.kernel) || { captured: 0, skipped: 0, errors: 0, notes: new Set() };
    byKernel.set(r.kernel, row);
    if (r.status === 'captured') row.captured++; else if (r.status === 'skipped') row.skipped++; else row.errors++;
    if (r.reason) row.notes.add(r.reason.slice(0, 140));
    if (r.trimmed) row.notes.add('compiled from the module trimmed of its f16 parts');
  }
  $('rows').innerHTML = '';
  for (const [k, r] of byKernel) {
    const tr = document.createElement('tr');
    const cls = r.errors ? 'error' : r.captured ? 'captured' : 'skipped';
    const note = r.captured + r.skipped + r.errors === 0 ? 'no case (no golden, no generator)' : [...r.notes].join('; ');
    tr.innerHTML = `<td class="${cls}">${k}</td><td>${r.captured}</td><td>${r.skipped}</td><td>${r.errors}</td><td>${note}</td>`;
    $('rows').appendChild(tr);
  }
  const c = results.filter(r => r.status === 'captured').length, s = results.filter(r => r.status === 'skipped').length,
        e = results.filter(r => r.status === 'error').length;
  $('summary').textContent = `${results.length} / ${jobs.cases.length + 1} cases (the last: the capture's self-test): ${c} captured, ${s} skipped, ${e} errors`;
}

async function runAll(gpu, jobs) {
  const wgslCache = new Map(), modCache = new Map();
  const wgslFor = async (kernel) => {
    const k = jobs.kernels.find(x => x.kernel === kernel);
    if (!k) return null;
    if (!wgslCache.has(k.wgsl)) wgslCache.set(k.wgsl, new TextDecoder().decode(await fetchBytes(`/${k.wgsl}`)));
    return { code: wgslCache.get(k.wgsl), label: k.wgsl };
  };
  let hooks = null;
  const cap = createCapture(gpu.dev, {
    wholeBuffers: true,
    snapshot: (q) => hooks.snapshot(q),
    describe: (info) => hooks.describe(info),
    kernelName: (d) => d.label,   // the pipelines are labelled with their wgslvk kernel names
  });
  const only = params.get('only');  // ?only=substring: the cases whose kernel contains it
  if (only) jobs.cases = jobs.cases.filter(j => j.kernel.includes(only));
  for (const job of jobs.cases) {
    const t0 = performance.now();
    const row = { id: job.id, kernel: job.kernel, source: job.source };
    try {
      const c = parseCaseJson(new TextDecoder().decode(await fetchBytes(`/${job.dir}/case.json`)));
      const loadFile = (f) => fetchBytes(`/${job.dir}/${f}`);
      const m = await prepareModules(cap.device, c, wgslFor, modCache);
      if (m.skipped) { Object.assign(row, { status: m.error ? 'error' : 'skipped', reason: m.skipped }); }
      else {
        hooks = oracleHooks(c, loadFile, { source: job.source, adapter: gpu.name });
        await hooks.prepare();
        const run = await runCase(cap.device, c, m.mods, loadFile, { capture: cap, name: c.case });
        destroyAll(run);
        const out = run.captured;
        const dir = `${job.source}/${c.kernel}/${out.name}`;
        for (const [f, bytes] of out.files) {
          if (suite) {
            const r = await fetch(`/api/out/${dir}/${f}`, { method: 'POST', body: bytes });
            if (!r.ok) throw new Error(`posting ${dir}/${f}: HTTP ${r.status}`);
          } else captured.push([`wgslvk-captured/${dir}/${f}`, bytes]);
        }
        Object.assign(row, { status: 'captured', trimmed: m.trimmed.length > 0, dir });
      }
    } catch (e) {
      Object.assign(row, { status: 'error', reason: String(e.message || e) });
    }
    row.ms = Math.round(performance.now() - t0);
    results.push(row);
    if (results.length % 10 === 0 || results.length === jobs.cases.length) render(jobs);
  }
  // the capture's own check on a page-like program (selection by entry point, a split pass)
  const t0 = performance.now();
  const row = { id: 'selftest/elementwise/residual_add', kernel: 'elementwise/residual_add', source: 'selftest' };
  try {
    const st = await captureSelfTest(gpu.dev, (await wgslFor('elementwise/residual_add')).code);
    if (!st.ok) throw new Error(`capture self-test: ${st.messages.join('; ')}`);
    for (const c of st.cases) for (const [f, bytes] of c.files) {
      const dir = `selftest/${c.kernel}/${c.name}`;
      if (suite) { const r = await fetch(`/api/out/${dir}/${f}`, { method: 'POST', body: bytes }); if (!r.ok) throw new Error(`posting ${dir}/${f}: HTTP ${r.status}`); }
      else captured.push([`wgslvk-captured/${dir}/${f}`, bytes]);
    }
    row.status = 'captured';
  } catch (e) { Object.assign(row, { status: 'error', reason: String(e.message || e) }); }
  row.ms = Math.round(performance.now() - t0);
  results.push(row);
  render(jobs);
}

(async () => {
  let gpu, jobs;
  try {
    jobs = await (await fetch('/api/jobs')).json();
    gpu = await device();
    $('device').textContent = `device: ${gpu.name}; features: ${gpu.features.join(' ') || 'no shader-f16'}; ` +
      `minStorageBufferOffsetAlignment ${gpu.limits.minStorageBufferOffsetAlignment}, maxStorageBufferBindingSize ${gpu.limits.maxStorageBufferBindingSize}`;
    gpu.dev.addEventListener('uncapturederror', (e) => console.error('uncaptured WebGPU error:', e.error.message));
  } catch (e) {
    $('device').textContent = `no WebGPU device: ${e.message || e}`;
    if (suite) await fetch('/api/done', { method: 'POST', body: JSON.stringify({ fatal: String(e.message || e) }) });
    window.wgslvkDone = true;
    return;
  }
  const go = async () => {
    $('run').disabled = true;
    await runAll(gpu, jobs);
    if (suite) await fetch('/api/done', { method: 'POST', body: JSON.stringify({ device: gpu.name, features: gpu.features, limits: gpu.limits, results }) });
    else $('download').disabled = captured.length === 0;
    window.wgslvkDone = true;
  };
  $('download').onclick = () => {
    const blob = new Blob([zip(captured)], { type: 'application/zip' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob); a.download = 'wgslvk-captured.zip'; a.click();
  };
  $('run').onclick = go;
  $('run').disabled = false;
  if (suite || params.has('auto')) go();
})();
