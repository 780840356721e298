// Dawn's verdicts on the programs test_wgsl_uniformity generates (GeneratedProgramsAgreeWithDawn),
// written to tests/wgsl/uniformity_programs.json with each program's FNV-1a hash. Regenerate after
// changing the generator:
//   WGSLVK_SOURCE_DIR=$PWD WGSLVK_WRITE_GENERATED=/tmp/gen WGSLVK_GENERATED_COUNT=1500 \
//     build/tests/wgsl/test_wgsl_uniformity --gtest_filter='*GeneratedPrograms*'
//   source /opt/wgslvk-dawn/mesa25/env.sh && node tests/wgsl/uniformity_programs.mjs /tmp/gen
// Every program must be valid WGSL apart from uniformity: a rejection for another reason is a
// generator bug, reported, and nothing is written.
import { createRequire } from 'module';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '../..');
const dir = process.argv[2];
if (!dir) {
  console.error('usage: node tests/wgsl/uniformity_programs.mjs DIR (the generated programs)');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const dawnPath = process.env.DAWN_NODE || path.join(repo, 'node_modules/webgpu/dist/linux-x64/dawn.node');
const pkgVersion = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules/webgpu/package.json'), 'utf8')).version;
const { create, globals } = require(dawnPath);
Object.assign(globalThis, globals);
const gpu = create(['backend=vulkan']);
const adapter = await gpu.requestAdapter();
if (!adapter || !adapter.features.has('subgroups')) {
  console.error('uniformity_programs: no adapter with subgroups (source /opt/wgslvk-dawn/mesa25/env.sh first)');
  process.exit(2);
}
const device = await adapter.requestDevice({ requiredFeatures: ['subgroups'] });

function fnv1a(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

const files = fs.readdirSync(dir).filter(f => /^p\d{5}\.wgsl$/.test(f)).sort();
const programs = [];
const invalid = [];
for (const [i, f] of files.entries()) {
  if (f !== `p${String(i).padStart(5, '0')}.wgsl`) throw new Error(`${f}: programs must be numbered from 0 without gaps`);
  const code = fs.readFileSync(path.join(dir, f), 'utf8');
  device.pushErrorScope('validation');
  const info = await device.createShaderModule({ code }).getCompilationInfo();
  await device.popErrorScope();
  const e = info.messages.find(m => m.type === 'error');
  if (!e) {
    programs.push({ hash: fnv1a(code), verdict: 'accept' });
  } else {
    if (!/uniform/.test(e.message)) invalid.push(`${f}: ${e.lineNum}:${e.linePos}: ${e.message}`);
    programs.push({ hash: fnv1a(code), verdict: 'reject', line: e.lineNum, col: e.linePos, message: e.message });
  }
}
if (invalid.length) {
  console.error(`uniformity_programs: ${invalid.length} programs are invalid for another reason (fix the generator):`);
  for (const s of invalid.slice(0, 20)) console.error('  ' + s);
  process.exit(1);
}
const rejected = programs.filter(p => p.verdict === 'reject').length;
fs.writeFileSync(path.join(here, 'uniformity_programs.json'), JSON.stringify({
  generator: 'tests/wgsl/test_wgsl_uniformity.cpp ProgramGenerator, judged by tests/wgsl/uniformity_programs.mjs',
  date: new Date().toISOString().slice(0, 10),
  webgpu_package: `webgpu@${pkgVersion}`,
  count: programs.length,
  programs,
}, null, 0).replace(/\},\{/g, '},\n{') + '\n');
console.log(`uniformity_programs: ${programs.length} programs, ${rejected} rejected (uniformity), ${programs.length - rejected} accepted`);
process.exit(0);
