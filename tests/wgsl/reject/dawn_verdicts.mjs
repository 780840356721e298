// Asks Dawn (npm `webgpu`, dawn.node) for the verdict on every tests/wgsl/reject/*.wgsl and writes
// tests/wgsl/reject/dawn_verdicts.json, the expected verdicts test_wgsl_reject compares our front
// end with. A module is rejected when createShaderModule reports an error; otherwise one compute
// pipeline per @compute entry point is created (layout 'auto', no constants), since some errors
// (workgroup size and memory limits, overrides without a value, override-expression errors,
// binding limits) appear only there.
//
// The device: the adapter's shader-f16 and subgroups features (the corpus enables them), default
// limits (the ones WGSL code may assume). Dawn needs Mesa 25's lavapipe on a machine without a GPU:
//   source /opt/wgslvk-dawn/mesa25/env.sh   (bench/peers/local-lavapipe.sh makes it)
//   node tests/wgsl/reject/dawn_verdicts.mjs [--check]
// --check writes nothing and exits 1 when a verdict differs from the committed file (Dawn update).
// Each file's first line says what it tests and what we expect ("// reject: ..." or
// "// accept: ..."); a file whose expectation Dawn contradicts is listed, so the corpus stays
// honest about what it claims.
import { createRequire } from 'module';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '../../..');
const require = createRequire(import.meta.url);
const dawnPath = process.env.DAWN_NODE || path.join(repo, 'node_modules/webgpu/dist/linux-x64/dawn.node');
const pkgVersion = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules/webgpu/package.json'), 'utf8')).version;
const { create, globals } = require(dawnPath);
Object.assign(globalThis, globals);

const check = process.argv.includes('--check');
const gpu = create(['backend=vulkan']);
const adapter = await gpu.requestAdapter();
if (!adapter) {
  console.error('dawn_verdicts: no adapter (source /opt/wgslvk-dawn/mesa25/env.sh first)');
  process.exit(2);
}
const features = ['shader-f16', 'subgroups'].filter(f => adapter.features.has(f));
const device = await adapter.requestDevice({ requiredFeatures: features });
device.onuncapturederror = e => console.error('dawn uncaptured error:', e.error.message);
const info = adapter.info || {};

// Entry points by stage, read from the source (attributes before `fn NAME`); good enough for the
// corpus, whose files are small and written for it.
function computeEntryPoints(code) {
  const noComments = code.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/.*$/gm, '');
  const out = [];
  const re = /@compute\b[^;{}]*?\bfn\s+([A-Za-z_][A-Za-z0-9_]*)/g;
  for (let m; (m = re.exec(noComments));) out.push(m[1]);
  return out;
}

const firstLine = (msg) => msg.split('\n')[0];
const files = fs.readdirSync(here).filter(f => f.endsWith('.wgsl')).sort();
const verdicts = {};
const contradicted = [];
for (const file of files) {
  const code = fs.readFileSync(path.join(here, file), 'utf8');
  const intent = (/^\/\/\s*(reject|accept)\b/.exec(code) || [])[1] || null;
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code });
  const compilation = await module.getCompilationInfo();
  const moduleError = await device.popErrorScope();
  const messages = compilation.messages.map(m => ({ type: m.type, line: m.lineNum, col: m.linePos, message: m.message }));
  const entry = { verdict: 'accept', stage: null, messages };
  if (moduleError || messages.some(m => m.type === 'error')) {
    entry.verdict = 'reject';
    entry.stage = 'createShaderModule';
  } else {
    entry.pipelines = [];
    for (const entryPoint of computeEntryPoints(code)) {
      device.pushErrorScope('validation');
      device.pushErrorScope('internal');
      try {
        device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint } });
      } catch (e) {
        entry.pipelines.push({ entryPoint, error: firstLine(String(e.message || e)) });
        continue;
      }
      const internal = await device.popErrorScope();
      const validation = await device.popErrorScope();
      const err = validation || internal;
      entry.pipelines.push(err ? { entryPoint, error: firstLine(err.message) } : { entryPoint, error: null });
      if (err && entry.verdict === 'accept') {
        entry.verdict = 'reject';
        entry.stage = 'createComputePipeline';
      }
    }
  }
  if (intent && intent !== entry.verdict) contradicted.push(`${file}: the file says ${intent}, Dawn says ${entry.verdict}`);
  verdicts[file] = entry;
}

const out = {
  generator: 'tests/wgsl/reject/dawn_verdicts.mjs',
  date: new Date().toISOString().slice(0, 10),
  webgpu_package: `webgpu@${pkgVersion}`,
  adapter: { vendor: info.vendor, architecture: info.architecture, description: info.description },
  features,
  wgsl_language_features: [...gpu.wgslLanguageFeatures].sort(),
  verdicts,
};
const target = path.join(here, 'dawn_verdicts.json');
const rejected = Object.values(verdicts).filter(v => v.verdict === 'reject').length;
console.log(`dawn_verdicts: ${files.length} files, ${rejected} rejected, ${files.length - rejected} accepted ` +
            `(webgpu@${pkgVersion}, ${info.description || info.vendor || 'adapter'})`);
for (const c of contradicted) console.log('  contradicts its first line: ' + c);
if (check) {
  const old = JSON.parse(fs.readFileSync(target, 'utf8')).verdicts;
  const changed = files.filter(f => !old[f] || old[f].verdict !== verdicts[f].verdict);
  for (const f of changed) console.log(`  changed: ${f}: ${old[f] ? old[f].verdict : '(new)'} -> ${verdicts[f].verdict}`);
  process.exit(changed.length ? 1 : 0);
}
fs.writeFileSync(target, JSON.stringify(out, null, 1) + '\n');
process.exit(0);
