// Runs each example's host program on this browser's WebGPU device through capture/'s
// createCapture and posts the captured case folders to the server of capture_examples.mjs
// (POST /api/out/<example>/cases/<case>/<file>, then /api/done with one result per example).
import { createCapture } from '../../capture/src/capture.mjs';
import { makeRng } from './lib.mjs';

const log = (s) => { document.getElementById('log').textContent += `\n${s}`; };

async function requestDevice() {
  if (!navigator.gpu) throw new Error('navigator.gpu is missing: no WebGPU (or not a secure context)');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('requestAdapter returned null');
  const dev = await adapter.requestDevice();
  const info = adapter.info || {};
  return { dev, name: [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'WebGPU adapter' };
}

async function post(url, body) {
  const r = await fetch(url, { method: 'POST', body });
  if (!r.ok) throw new Error(`POST ${url}: HTTP ${r.status}`);
}

(async () => {
  const jobs = await (await fetch('/api/jobs')).json();
  let gpu;
  try { gpu = await requestDevice(); } catch (e) {
    await post('/api/done', JSON.stringify({ fatal: String(e.message || e) }));
    return;
  }
  const uncaptured = [];
  gpu.dev.addEventListener('uncapturederror', (e) => uncaptured.push(e.error.message));
  const results = [];
  for (const name of jobs.examples) {
    const t0 = performance.now();
    const r = { example: name, status: 'ok', cases: [], messages: [] };
    try {
      const host = await import(`./${name}/host.mjs`);
      const code = await (await fetch(`./${name}/${host.wgslFile}`)).text();
      const ctx = { code, wgslFile: host.wgslFile, seed: jobs.seed, rng: makeRng(`${jobs.seed}`, name), messages: r.messages, adapter: gpu.name };
      const cap = createCapture(gpu.dev, { describe: (info, json) => host.describe(info, json, ctx) });
      ctx.device = cap.device;
      ctx.cap = cap;
      const before = uncaptured.length;
      const cases = await host.run(ctx);
      if (uncaptured.length > before) throw new Error(`WebGPU errors: ${uncaptured.slice(before).join('; ')}`);
      if (!cases.length) throw new Error('the host captured no case');
      for (const c of cases) {
        for (const [f, bytes] of c.files) await post(`/api/out/${name}/cases/${c.name}/${f}`, bytes);
        r.cases.push(c.name);
      }
    } catch (e) {
      r.status = 'error';
      r.messages.push(String(e.stack || e.message || e));
    }
    r.ms = Math.round(performance.now() - t0);
    log(`${name}: ${r.status} ${r.cases.length} case(s) ${r.messages.join(' | ')}`);
    results.push(r);
  }
  await post('/api/done', JSON.stringify({ device: gpu.name, results }));
})();
