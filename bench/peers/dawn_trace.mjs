// Dawn (npm `webgpu`, dawn.node) replaying a wgslvk trace (format "wgslvk-trace-1", written by a
// Device with DeviceDescriptor::trace_dir or env WGSLVK_TRACE=DIR; runtime/src/trace.hpp): the
// same buffers, writes, WGSL entry points (the trace's copies of the WGSL files), explicit bind
// group layouts, bind groups, passes, dispatches, copies and submits, in the same order. At each
// read-back wgslvk made, Dawn's bytes of the same range are compared with wgslvk's: bit-equal
// words, and as f32: max |relative| difference, max ULP distance, NaN mismatches.
//
// Decisions:
// - Layouts are always explicit, built from the trace's entries (layout "auto" would make a
//   pipeline-private layout on both sides; explicit ones are what wgslvk validated, and a bind
//   group made from one pipeline's auto layout stays usable with another pipeline of the same
//   layout, as in wgslvk).
// - A read "fails" when its max relative difference exceeds --rel-tol (default 0.01, issue 12's
//   bar) or NaN-ness differs; --gate LABEL,... limits failing to reads of those buffer labels
//   (others are still reported).
// - Dawn validation / out-of-memory errors are collected in an error scope closed at each read
//   (the report names the trace lines between the two reads) and make the run fail.
// - Timing: wall-clock between consecutive reads and the submits between them (a read waits for
//   the GPU, as wgslvk's read-back does), so ms/submit is comparable with the trainer's ms/step.
//
// The replay core (replayTrace) takes the parsed ops, a blob reader and a shader reader, so a
// web page can reuse it with fetch(); file access and dawn.node stay in main() at the bottom.
//
// usage: node dawn_trace.mjs --trace DIR [--out replay.json] [--rel-tol 0.01] [--gate LABELS]
//          [--stop-on-mismatch] [--values N] [--dawn-node PATH] [--quiet]
// exit: 0 every gated read within tolerance; 1 a mismatch; 2 an error (Dawn validation error,
//       bad trace, crash); 77 no Dawn adapter/device (a prerequisite, not a result).

// ---- comparison -----------------------------------------------------------------------------------
const ordered = (u) => (u & 0x80000000 ? 0x80000000 - (u & 0x7fffffff) : 0x80000000 + u);
export function compareBytes(expected, got, valuesLimit = 256) {
  const words = Math.floor(expected.length / 4);
  const E = new Float32Array(expected.buffer, expected.byteOffset, words);
  const G = new Float32Array(got.buffer, got.byteOffset, words);
  const EU = new Uint32Array(expected.buffer, expected.byteOffset, words);
  const GU = new Uint32Array(got.buffer, got.byteOffset, words);
  let differing = 0, maxAbs = 0, maxRel = 0, maxUlp = 0, nanMismatch = 0, worstIndex = -1;
  for (let i = 0; i < words; ++i) {
    if (EU[i] === GU[i]) continue;
    ++differing;
    const a = E[i], b = G[i];
    if (Number.isNaN(a) || Number.isNaN(b)) { if (Number.isNaN(a) !== Number.isNaN(b)) ++nanMismatch; continue; }
    const abs = Math.abs(a - b), m = Math.max(Math.abs(a), Math.abs(b));
    const rel = !isFinite(abs) ? Infinity : m > 0 ? abs / m : 0;
    const ulp = Math.abs(ordered(EU[i]) - ordered(GU[i]));
    if (rel > maxRel) { maxRel = rel; worstIndex = i; }
    maxAbs = Math.max(maxAbs, abs);
    maxUlp = Math.max(maxUlp, ulp);
  }
  let tailBytesDiffer = 0;
  for (let i = words * 4; i < expected.length; ++i) if (expected[i] !== got[i]) ++tailBytesDiffer;
  const out = { words, bit_equal: differing === 0 && tailBytesDiffer === 0, differing_words: differing,
                max_abs: maxAbs, max_rel: maxRel, max_ulp: maxUlp, nan_mismatch: nanMismatch, worst_index: worstIndex };
  if (words <= valuesLimit) { out.wgslvk = Array.from(E); out.dawn = Array.from(G); }
  return out;
}

// ---- replay ---------------------------------------------------------------------------------------
const TYPES = { uniform: 'uniform', storage: 'storage', 'read-only-storage': 'read-only-storage' };

// Opens the device the trace needs on `gpu` (navigator.gpu or dawn.node's create()). Returns
// { adapter, device, features } or null when there is no adapter.
export async function openDevice(gpu, header) {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) return null;
  const features = (header.features || []).filter(f => (f === 'shader-f16' || f === 'timestamp-query') && adapter.features.has(f));
  const requiredLimits = {};
  for (const k of Object.keys(header.limits || {})) if (k in adapter.limits) requiredLimits[k] = adapter.limits[k];
  const need = header.storage_alignment, have = adapter.limits.minStorageBufferOffsetAlignment;
  if (need && have > need && need % have)
    throw new Error(`the trace binds storage at offsets aligned to ${need} bytes; this adapter's minStorageBufferOffsetAlignment is ${have}`);
  const device = await adapter.requestDevice({ requiredFeatures: features, requiredLimits });
  return { adapter, device, features };
}

// ops: an async iterable of { line, op } (op: one parsed trace line after the header).
// io: { blob(offset, size) -> Uint8Array, shader(path) -> string }.
// opts: { relTol, gate: Set|null, stopOnMismatch, valuesLimit, log(msg) }.
export async function replayTrace(device, ops, io, opts = {}) {
  const relTol = opts.relTol ?? 0.01, valuesLimit = opts.valuesLimit ?? 256, log = opts.log || (() => {});
  const objs = new Map(), encoders = new Map(), cbs = new Map(), modules = new Map(), bglMeta = new Map();
  const reads = [], errors = [];
  let lastReadLine = 0, submits = 0, dispatches = 0, t0 = performance.now();
  const get = (id, what, line) => { const o = objs.get(id); if (!o) throw new Error(`trace line ${line}: unknown ${what} ${id}`); return o; };
  const enc = (id, line) => { const e = encoders.get(id); if (!e) throw new Error(`trace line ${line}: unknown encoder ${id}`); return e; };
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  const closeScopes = async (line) => {
    for (const kind of ['validation', 'out-of-memory']) {
      const e = await device.popErrorScope();
      if (e) errors.push({ kind, between_lines: [lastReadLine + 1, line], message: e.message });
    }
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
  };
  for await (const { line, op: o } of ops) {
    switch (o.op) {
      case 'buffer':
        objs.set(o.id, device.createBuffer({ label: o.label, size: o.size, usage: o.usage }));
        break;
      case 'bgl':
        bglMeta.set(o.id, o);
        objs.set(o.id, device.createBindGroupLayout({
          label: o.label,
          entries: o.entries.map(e => ({ binding: e.binding, visibility: GPUShaderStage.COMPUTE,
                                         buffer: { type: TYPES[e.type], minBindingSize: e.min_binding_size } })),
        }));
        break;
      case 'pipeline': {
        if (!o.in_wgsl)
          throw new Error(`trace line ${line}: pipeline "${o.label}" runs ${o.kernel}, a native-only variant with no WGSL entry point; Dawn cannot replay it (record with WGSL kernels only: for wgslvk train, any --matmul but native)`);
        let module = modules.get(o.source);
        if (!module) { module = device.createShaderModule({ label: o.wgsl, code: io.shader(o.source) }); modules.set(o.source, module); }
        const layout = device.createPipelineLayout({ label: o.label, bindGroupLayouts: o.groups.map(g => get(g, 'bind group layout', line)) });
        objs.set(o.id, device.createComputePipeline({ label: o.label, layout, compute: { module, entryPoint: o.entry } }));
        break;
      }
      case 'bind_group':
        objs.set(o.id, device.createBindGroup({
          label: o.label, layout: get(o.layout, 'bind group layout', line),
          entries: o.entries.map(e => ({ binding: e.binding, resource: { buffer: get(e.buffer, 'buffer', line), offset: e.offset, size: e.size } })),
        }));
        break;
      case 'encoder': encoders.set(o.id, { enc: device.createCommandEncoder({ label: o.label }), pass: null }); break;
      case 'begin_pass': { const e = enc(o.enc, line); e.pass = e.enc.beginComputePass({ label: o.label }); break; }
      case 'set_pipeline': enc(o.enc, line).pass.setPipeline(get(o.pipeline, 'pipeline', line)); break;
      case 'set_bind_group': enc(o.enc, line).pass.setBindGroup(o.index, get(o.group, 'bind group', line)); break;
      case 'dispatch': enc(o.enc, line).pass.dispatchWorkgroups(o.x, o.y, o.z); ++dispatches; break;
      case 'end_pass': { const e = enc(o.enc, line); e.pass.end(); e.pass = null; break; }
      case 'copy': enc(o.enc, line).enc.copyBufferToBuffer(get(o.src, 'buffer', line), o.src_offset, get(o.dst, 'buffer', line), o.dst_offset, o.size); break;
      case 'clear': enc(o.enc, line).enc.clearBuffer(get(o.buffer, 'buffer', line), o.offset, o.size); break;
      case 'finish': cbs.set(o.id, enc(o.enc, line).enc.finish()); encoders.delete(o.enc); break;
      case 'submit': {
        device.queue.submit(o.command_buffers.map(id => { const c = cbs.get(id); if (!c) throw new Error(`trace line ${line}: unknown command buffer ${id}`); cbs.delete(id); return c; }));
        ++submits;
        break;
      }
      case 'write': {
        const bytes = io.blob(o.blob, o.size);
        device.queue.writeBuffer(get(o.buffer, 'buffer', line), o.offset, bytes.buffer, bytes.byteOffset, bytes.length);
        break;
      }
      case 'read': {
        const src = get(o.buffer, 'buffer', line);
        const staging = device.createBuffer({ label: 'dawn_trace read-back', size: o.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        const e = device.createCommandEncoder();
        e.copyBufferToBuffer(src, o.offset, staging, 0, o.size);
        device.queue.submit([e.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const got = new Uint8Array(staging.getMappedRange().slice(0));
        staging.unmap(); staging.destroy();
        const t1 = performance.now();
        await closeScopes(line);
        const expected = io.blob(o.blob, o.size);
        const cmp = compareBytes(expected, got, valuesLimit);
        const gated = !opts.gate || opts.gate.has(o.label);
        const fail = gated && (cmp.max_rel > relTol || cmp.nan_mismatch > 0);
        reads.push({ index: reads.length, line, label: o.label, offset: o.offset, size: o.size, gated, fail,
                     submits_since_last_read: submits, dispatches_since_last_read: dispatches,
                     ms_since_last_read: t1 - t0, ...cmp });
        log(`read ${reads.length - 1} (line ${line}) ${o.label} [${o.offset}, +${o.size}): ${cmp.bit_equal ? 'bit-equal' : `max rel ${cmp.max_rel.toExponential(2)}, ${cmp.max_ulp} ulp, ${cmp.differing_words}/${cmp.words} words differ`}${fail ? '  FAIL' : ''}`);
        submits = 0; dispatches = 0; lastReadLine = line; t0 = performance.now();
        if ((fail || errors.length) && opts.stopOnMismatch) return { reads, errors, stopped_at_line: line };
        break;
      }
      default: throw new Error(`trace line ${line}: unknown op "${o.op}"`);
    }
  }
  await closeScopes(Infinity);
  return { reads, errors };
}

// Per buffer label: reads, bit-equal reads, worst relative difference and ULP.
export function summarize(reads) {
  const by = new Map();
  for (const r of reads) {
    const s = by.get(r.label) || { label: r.label, reads: 0, bit_equal: 0, failing: 0, max_rel: 0, max_ulp: 0 };
    s.reads++; if (r.bit_equal) s.bit_equal++; if (r.fail) s.failing++;
    s.max_rel = Math.max(s.max_rel, r.max_rel); s.max_ulp = Math.max(s.max_ulp, r.max_ulp);
    by.set(r.label, s);
  }
  return [...by.values()];
}

// ---- Node: files and dawn.node --------------------------------------------------------------------
const keepAlive = {};
async function main() {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const readline = await import('node:readline');
  const { createRequire } = await import('node:module');
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  const has = (name) => args.includes(name);
  const dir = opt('--trace');
  if (!dir) { console.error('usage: node dawn_trace.mjs --trace DIR [--out replay.json] [--rel-tol 0.01] [--gate LABELS] [--stop-on-mismatch] [--values N] [--dawn-node PATH] [--quiet]'); return 2; }
  const outPath = opt('--out', '');
  const relTol = Number(opt('--rel-tol', '0.01'));
  const gate = opt('--gate', '') ? new Set(opt('--gate').split(',')) : null;
  const dawnPath = opt('--dawn-node', process.env.WGSLVK_DAWN_NODE || process.env.DAWN_NODE || '/tmp/dawnpkg/node_modules/webgpu/dist/linux-x64/dawn.node');
  const quiet = has('--quiet');

  const jsonl = path.join(dir, 'trace.jsonl');
  if (!fs.existsSync(jsonl)) { console.error(`dawn_trace: ${jsonl} does not exist (record one with WGSLVK_TRACE=DIR or wgslvk train --trace DIR)`); return 2; }
  const lines = readline.createInterface({ input: fs.createReadStream(jsonl), crlfDelay: Infinity });
  const it = lines[Symbol.asyncIterator]();
  const first = await it.next();
  const header = first.done ? null : JSON.parse(first.value);
  if (!header || header.op !== 'device' || header.format !== 'wgslvk-trace-1') { console.error(`dawn_trace: ${jsonl} line 1 is not a wgslvk-trace-1 device header`); return 2; }

  if (!fs.existsSync(dawnPath)) { console.error(`dawn_trace: PREREQUISITE: dawn.node not found at ${dawnPath} (npm install webgpu@0.6.2; or --dawn-node / WGSLVK_DAWN_NODE)`); return 77; }
  const require = createRequire(import.meta.url);
  const { create, globals } = require(dawnPath);
  Object.assign(globalThis, globals);
  const flags = process.env.DAWN_FLAGS ? process.env.DAWN_FLAGS.split(' ') :
    ['backend=vulkan', 'enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis',
     'disable-dawn-features=timestamp_quantization'];
  let opened;
  // Keep the GPU (instance) object reachable for the whole run: dawn.node tears the instance down
  // when it is garbage-collected, and a device that outlives it crashes (SIGSEGV at the first
  // mapAsync on lavapipe).
  keepAlive.gpu = create(flags);
  try { opened = await openDevice(keepAlive.gpu, header); } catch (e) { console.error(`dawn_trace: PREREQUISITE: requestDevice failed: ${e.message}`); return 77; }
  if (!opened) { console.error('dawn_trace: PREREQUISITE: Dawn found no Vulkan adapter (Debian 12\'s Mesa 22 lavapipe is refused; use Mesa 25: bench/peers/local-lavapipe.sh)'); return 77; }
  const { adapter, device } = opened;
  let lost = null;
  device.lost.then(i => { lost = i; });
  const info = adapter.info || {};
  const adapterName = `${info.vendor || ''} ${info.architecture || ''} ${info.description || info.device || ''}`.trim();
  if (!quiet) console.log(`dawn_trace: replaying ${dir} (recorded on "${header.adapter}") on Dawn: ${adapterName}`);

  const fd = fs.openSync(path.join(dir, 'blob.bin'), 'r');
  const io = {
    blob(offset, size) {
      const b = Buffer.alloc(size);
      const got = size ? fs.readSync(fd, b, 0, size, offset) : 0;
      if (got !== size) throw new Error(`blob.bin: ${size} bytes at ${offset} asked, ${got} read (truncated trace?)`);
      return new Uint8Array(b.buffer, b.byteOffset, size);
    },
    shader(rel) { return fs.readFileSync(path.join(dir, rel), 'utf8'); },
  };
  async function* ops() {
    let line = 1;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      ++line;
      if (!r.value) continue;
      let op;
      try { op = JSON.parse(r.value); } catch (e) { throw new Error(`trace line ${line}: ${e.message}`); }
      yield { line, op };
    }
  }
  const wall0 = performance.now();
  let res, crash = null;
  try {
    res = await replayTrace(device, ops(), io, { relTol, gate, stopOnMismatch: has('--stop-on-mismatch'),
                                                 valuesLimit: Number(opt('--values', '256')), log: quiet ? null : (m) => console.log(m) });
  } catch (e) { crash = e.message; res = { reads: [], errors: [] }; }
  const wall = performance.now() - wall0;
  if (lost) res.errors.push({ kind: 'device-lost', message: `${lost.reason}: ${lost.message}` });
  const summary = summarize(res.reads);
  const failing = res.reads.filter(r => r.fail).length;
  const report = { format: 'wgslvk-dawn-replay-1', trace: dir, recorded_on: header.adapter, dawn_adapter: adapterName,
                   rel_tol: relTol, gate: gate ? [...gate] : null, wall_ms: wall, reads: res.reads.length,
                   failing_reads: failing, errors: res.errors, crash, stopped_at_line: res.stopped_at_line ?? null,
                   summary, read_list: res.reads };
  if (outPath) fs.writeFileSync(outPath, JSON.stringify(report, null, 1));
  console.log('| buffer | reads | bit-equal | failing | max rel diff | max ulp |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of summary) console.log(`| ${s.label} | ${s.reads} | ${s.bit_equal} | ${s.failing} | ${s.max_rel.toExponential(2)} | ${s.max_ulp} |`);
  if (crash) console.error(`dawn_trace: ERROR: ${crash}`);
  for (const e of res.errors) console.error(`dawn_trace: ${e.kind} error${e.between_lines ? ` (trace lines ${e.between_lines[0]}-${e.between_lines[1]})` : ''}: ${e.message}`);
  console.log(`dawn_trace: ${res.reads.length} reads, ${failing} beyond rel ${relTol}, ${res.errors.length} Dawn errors, ${(wall / 1000).toFixed(1)} s`);
  fs.closeSync(fd);
  device.destroy();
  return crash || res.errors.length ? 2 : failing ? 1 : 0;
}

if (typeof process !== 'undefined' && process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href) {
  main().then(code => process.exit(code), e => { console.error(`dawn_trace: ERROR: ${e.stack || e}`); process.exit(2); });
}
