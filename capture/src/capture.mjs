// createCapture(device, options): wraps a GPUDevice and records what the code using it does
// (buffers and usages, writeBuffer and mapped writes, bind groups with offsets and sizes, compute
// pipelines with their WGSL and entry point, every dispatchWorkgroups), and turns chosen dispatches
// into wgslvk-case/1 folders: inputs = the bound ranges just before, expected = the same ranges
// just after, as the device computed them.
//
//   const cap = createCapture(device, { select: { entryPoint: 'embed_lookup' } });
//   const dev = cap.device;            // use it instead of `device`, everywhere
//   ... the page's own code ...
//   const cases = await cap.flush();   // [{ name, files: Map(filename -> Uint8Array) }]
//
// Which dispatches (options.select): { entryPoint, label, index } (each a value, an array, a RegExp
// or a predicate; all given must match; `label` is the pipeline's label), or a function(dispatch)
// -> bool. Each selected dispatch is one case. Or a window: cap.begin(name) ... await cap.end()
// makes every dispatch recorded between them one case of several dispatches (a chain: reduce,
// finalize, update), inputs taken at each buffer's first use in the window, outputs after its last.
//
// No effect on the page's results (decisions):
// - Every buffer that may be bound (no MAP_* usage) gets COPY_SRC added, so its ranges can be
//   copied out; nothing else about it changes.
// - A compute pass is recorded and replayed onto the real encoder at pass.end(); around a selected
//   dispatch the pass is split in three (WebGPU orders passes, and a compute pass's usage scope is
//   per dispatch, so splitting changes no result) with the copies between. Pass timestampWrites go
//   to the first and last of the split passes (the timing then includes the copies).
// - Copies go to fresh MAP_READ buffers the page never sees; they are mapped only after the
//   command buffers holding them were submitted (flush()/end() wait for that).
// - Errors the page's calls raise are raised by the same native calls (replayed at pass.end()).
// Not recorded: indirect dispatches (they are replayed but never captured), render work.

import { DT, npyBytes, stringifyCaseJson } from './format.mjs';
import { entryBindings } from './wgsl.mjs';

const U = () => globalThis.GPUBufferUsage, MAPMODE = () => globalThis.GPUMapMode;

function matches(want, value) {
  if (want === undefined) return true;
  if (typeof want === 'function') return !!want(value);
  if (want instanceof RegExp) return want.test(value ?? '');
  if (Array.isArray(want)) return want.includes(value);
  return want === value;
}

function sanitize(name) { return String(name).replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[._]+/, '') || 'buffer'; }

export function createCapture(device, options = {}) {
  const opts = { snapshot: () => true, ...options };
  const bufInfo = new WeakMap(), pipeInfo = new WeakMap(), bgInfo = new WeakMap(), layoutInfo = new WeakMap();
  const moduleInfo = new WeakMap(), cbInfo = new WeakMap();
  const log = [];           // every recorded call, in order (small objects, no data)
  const finished = [];      // finished cases (files built)
  const pending = [];       // cases whose copies are encoded, waiting to be read back
  let nextBuffer = 0, nextDispatch = 0, win = null;
  const unsubmitted = new Set();

  const note = (op, fields) => { log.push({ op, ...fields }); if (opts.onLog) opts.onLog(log[log.length - 1]); };

  // ---- objects the page creates ----------------------------------------------------------------
  function createBuffer(desc) {
    const u = U();
    const mappable = desc.usage & (u.MAP_READ | u.MAP_WRITE);
    const real = device.createBuffer(mappable ? desc : { ...desc, usage: desc.usage | u.COPY_SRC });
    const info = { id: nextBuffer++, label: desc.label || '', size: desc.size, usage: desc.usage, mappedWrites: 0 };
    bufInfo.set(real, info);
    note('createBuffer', { buffer: info.id, label: info.label, size: desc.size, usage: desc.usage, mappedAtCreation: !!desc.mappedAtCreation });
    // mapped writes: recorded at unmap (the contents reach the GPU then)
    let writable = !!desc.mappedAtCreation;
    const mapAsync = real.mapAsync.bind(real), unmap = real.unmap.bind(real);
    real.mapAsync = (mode, ...rest) => { writable = !!(mode & MAPMODE().WRITE); return mapAsync(mode, ...rest); };
    real.unmap = () => {
      if (writable) { info.mappedWrites++; note('mappedWrite', { buffer: info.id, label: info.label }); taint(real, 'a mapped write'); }
      writable = false; return unmap();
    };
    return real;
  }
  function createShaderModule(desc) {
    const m = device.createShaderModule(desc);
    moduleInfo.set(m, { code: desc.code, label: desc.label || '' });
    note('createShaderModule', { label: desc.label || '', bytes: desc.code.length });
    return m;
  }
  function pipelineRecord(desc, p) {
    const mi = moduleInfo.get(desc.compute.module) || { code: null, label: '' };
    let entry = desc.compute.entryPoint;
    if (!entry && mi.code) entry = (/@compute[^{]*?fn\s+([A-Za-z_]\w*)/.exec(mi.code) || [])[1];
    let bindings = [];
    try { if (mi.code) bindings = entryBindings(mi.code, entry); } catch (e) { bindings = []; }
    pipeInfo.set(p, { code: mi.code, moduleLabel: mi.label, entry, label: desc.label || '', bindings, layout: desc.layout });
    note('createComputePipeline', { label: desc.label || '', entryPoint: entry, module: mi.label });
    return p;
  }
  function createComputePipeline(desc) { return pipelineRecord(desc, device.createComputePipeline(desc)); }
  async function createComputePipelineAsync(desc) { return pipelineRecord(desc, await device.createComputePipelineAsync(desc)); }
  function createBindGroupLayout(desc) {
    const l = device.createBindGroupLayout(desc);
    layoutInfo.set(l, desc.entries.map(e => ({ binding: e.binding, dynamic: !!e.buffer?.hasDynamicOffset })));
    return l;
  }
  function createBindGroup(desc) {
    const bg = device.createBindGroup(desc);
    const entries = [];
    for (const e of desc.entries) {
      const r = e.resource;
      const buffer = r instanceof globalThis.GPUBuffer ? r : r?.buffer;
      if (!buffer) continue;
      const offset = (r instanceof globalThis.GPUBuffer ? 0 : r.offset) || 0;
      const size = (r instanceof globalThis.GPUBuffer ? undefined : r.size) ?? buffer.size - offset;
      entries.push({ binding: e.binding, buffer, offset, size });
    }
    const dyn = layoutInfo.get(desc.layout);
    bgInfo.set(bg, { entries, dynamic: dyn ? dyn.filter(d => d.dynamic).map(d => d.binding).sort((a, b) => a - b) : [] });
    note('createBindGroup', { label: desc.label || '', entries: entries.map(e => ({ binding: e.binding, buffer: bufInfo.get(e.buffer)?.id, offset: e.offset, size: e.size })) });
    return bg;
  }

  // ---- the case under construction ---------------------------------------------------------------
  // A case: dispatches, and per GPUBuffer { before, after } readback buffers of the whole buffer.
  function newCase(name) { return { name, dispatches: [], buffers: new Map(), tainted: null, cbs: new Set() }; }
  function taint(buffer, how) {
    if (win && win.buffers.has(buffer)) win.tainted ||= `${how} to buffer '${bufInfo.get(buffer)?.label || bufInfo.get(buffer)?.id}' between its dispatches in the window`;
  }
  function readback(size, label) {
    const u = U();
    return device.createBuffer({ size: Math.ceil(size / 4) * 4, usage: u.MAP_READ | u.COPY_DST, label: `capture:${label}` });
  }
  function copySize(buffer) { return Math.floor(buffer.size / 4) * 4; }
  // Before-copies for the buffers a dispatch binds that the case has not seen yet.
  function snapshotBefore(enc, c, d) {
    for (const b of d.bindings) {
      if (c.buffers.has(b.buffer)) continue;
      const label = bufInfo.get(b.buffer)?.label || `buffer${bufInfo.get(b.buffer)?.id}`;
      const entry = { before: null, after: null, label };
      if (opts.snapshot({ name: label, buffer: b.buffer, when: 'before', case: c.name })) {
        entry.before = readback(b.buffer.size, `${label}.before`);
        enc.copyBufferToBuffer(b.buffer, 0, entry.before, 0, copySize(b.buffer));
      }
      c.buffers.set(b.buffer, entry);
    }
  }
  function snapshotAfter(enc, c, buffers) {
    for (const buf of buffers) {
      const entry = c.buffers.get(buf);
      if (!opts.snapshot({ name: entry.label, buffer: buf, when: 'after', case: c.name })) continue;
      entry.after ||= readback(buf.size, `${entry.label}.after`);
      enc.copyBufferToBuffer(buf, 0, entry.after, 0, copySize(buf));
    }
  }

  // A dispatch as the case sees it: the bindings its entry point uses, resolved to buffer ranges.
  function resolveDispatch(state, wg) {
    const pi = pipeInfo.get(state.pipeline) || { bindings: [], entry: undefined, label: '' };
    const bindings = [];
    const wanted = pi.bindings.length ? pi.bindings : null;
    for (const [g, { bg, offsets }] of state.groups) {
      const info = bgInfo.get(bg);
      if (!info) continue;
      for (const e of info.entries) {
        const decl = wanted ? wanted.find(w => w.group === g && w.binding === e.binding) : null;
        if (wanted && !decl) continue;  // bound but not statically used: not part of the case
        const k = info.dynamic.indexOf(e.binding);
        const offset = e.offset + (k >= 0 ? (offsets[k] || 0) : 0);
        bindings.push({ group: g, binding: e.binding, buffer: e.buffer, offset, size: e.size,
                        access: decl?.access || 'read_write', dtype: decl?.dtype || 'u32', space: decl?.space });
      }
    }
    bindings.sort((a, b) => a.group - b.group || a.binding - b.binding);
    return { index: nextDispatch++, entryPoint: pi.entry, label: pi.label, moduleLabel: pi.moduleLabel, code: pi.code,
             workgroups: [wg[0], wg[1] ?? 1, wg[2] ?? 1], bindings };
  }
  function selected(d) {
    const s = opts.select;
    if (!s || win) return false;
    if (typeof s === 'function') return !!s(d);
    return matches(s.entryPoint, d.entryPoint) && matches(s.label, d.label) && matches(s.index, d.index);
  }

  // ---- command encoders and passes -------------------------------------------------------------
  function wrapEncoder(enc) {
    const cases = new Set();  // cases with copies in this encoder
    const w = {
      __proto__: null,
      beginComputePass(desc = {}) { return wrapPass(enc, desc, cases); },
      copyBufferToBuffer(src, so, dst, ...rest) { taint(dst, 'a copyBufferToBuffer'); note('copyBufferToBuffer', { dst: bufInfo.get(dst)?.id }); return enc.copyBufferToBuffer(src, so, dst, ...rest); },
      clearBuffer(buf, ...rest) { taint(buf, 'a clearBuffer'); return enc.clearBuffer(buf, ...rest); },
      finish(desc) {
        const cb = enc.finish(desc);
        if (cases.size) { cbInfo.set(cb, cases); unsubmitted.add(cb); }
        return cb;
      },
    };
    return new Proxy(enc, {
      get(t, p) { if (p in w && w[p]) return w[p]; const v = Reflect.get(t, p, t); return typeof v === 'function' ? v.bind(t) : v; },
      set(t, p, v) { return Reflect.set(t, p, v, t); },
    });
  }
  function wrapPass(enc, desc, encCases) {
    const cmds = [];
    const rec = (name) => (...args) => { cmds.push([name, args]); };
    const pass = {
      setPipeline: rec('setPipeline'), setBindGroup: rec('setBindGroup'), dispatchWorkgroups: rec('dispatchWorkgroups'),
      dispatchWorkgroupsIndirect: rec('dispatchWorkgroupsIndirect'), pushDebugGroup: rec('pushDebugGroup'),
      popDebugGroup: rec('popDebugGroup'), insertDebugMarker: rec('insertDebugMarker'), label: desc.label || '',
      end() { replayPass(enc, desc, cmds, encCases); },
    };
    return pass;
  }
  function replayPass(enc, desc, cmds, encCases) {
    // Segment the commands: a selected dispatch gets a pass of its own.
    const state = { pipeline: null, groups: new Map() };
    const segments = [];  // { cmds: [...], capture: case | null, dispatches: [] }
    let seg = { cmds: [], capture: null, dispatches: [] };
    const startState = () => {
      const c = [];
      if (state.pipeline) c.push(['setPipeline', [state.pipeline]]);
      for (const [g, { bg, offsets }] of state.groups) c.push(['setBindGroup', [g, bg, offsets]]);
      return c;
    };
    for (const [name, args] of cmds) {
      if (name === 'setPipeline') state.pipeline = args[0];
      if (name === 'setBindGroup') {  // (index, group, offsets?) or (index, group, Uint32Array, start, length)
        const offs = args.length >= 5 ? Array.from(args[2].subarray(args[3], args[3] + args[4])) : args[2] ? [...args[2]] : [];
        state.groups.set(args[0], { bg: args[1], offsets: offs });
      }
      if (name === 'dispatchWorkgroups') {
        const d = resolveDispatch(state, args);
        note('dispatchWorkgroups', { index: d.index, entryPoint: d.entryPoint, label: d.label, workgroups: d.workgroups });
        if (win) { seg.dispatches.push(d); win.dispatches.push(d); }
        else if (selected(d)) {
          if (seg.cmds.length) segments.push(seg);
          const c = newCase(opts.caseName ? opts.caseName(d) : `dispatch${d.index}_${d.entryPoint}`);
          c.dispatches.push(d);
          segments.push({ cmds: [...startState(), [name, args]], capture: c, dispatches: [d] });
          seg = { cmds: startState(), capture: null, dispatches: [] };
          continue;
        }
      }
      seg.cmds.push([name, args]);
    }
    if (seg.cmds.length || !segments.length) segments.push(seg);
    segments.forEach((s, i) => {
      const c = s.capture || (win && s.dispatches.length ? win : null);
      if (c) { for (const d of s.dispatches) snapshotBefore(enc, c, d); encCases.add(c); c.cbs.add(enc); }
      const pd = { ...desc };
      if (desc.timestampWrites) {
        const tw = { querySet: desc.timestampWrites.querySet };
        if (i === 0 && desc.timestampWrites.beginningOfPassWriteIndex !== undefined) tw.beginningOfPassWriteIndex = desc.timestampWrites.beginningOfPassWriteIndex;
        if (i === segments.length - 1 && desc.timestampWrites.endOfPassWriteIndex !== undefined) tw.endOfPassWriteIndex = desc.timestampWrites.endOfPassWriteIndex;
        if (tw.beginningOfPassWriteIndex === undefined && tw.endOfPassWriteIndex === undefined) delete pd.timestampWrites; else pd.timestampWrites = tw;
      }
      const p = enc.beginComputePass(pd);
      for (const [name, args] of s.cmds) p[name](...args);
      p.end();
      if (c) snapshotAfter(enc, c, new Set(s.dispatches.flatMap(d => d.bindings.map(b => b.buffer))));
      if (s.capture) pending.push(s.capture);
    });
  }

  // ---- queue -----------------------------------------------------------------------------------
  const queue = device.queue;
  const wq = new Proxy(queue, {
    get(t, p) {
      if (p === 'writeBuffer') return (buf, off, data, ...rest) => {
        note('writeBuffer', { buffer: bufInfo.get(buf)?.id, label: bufInfo.get(buf)?.label, offset: off, bytes: data.byteLength ?? data.length });
        taint(buf, 'a writeBuffer');
        return t.writeBuffer(buf, off, data, ...rest);
      };
      if (p === 'submit') return (cbs) => { for (const cb of cbs) unsubmitted.delete(cb); note('submit', { commandBuffers: cbs.length }); return t.submit(cbs); };
      const v = Reflect.get(t, p, t); return typeof v === 'function' ? v.bind(t) : v;
    },
  });

  // ---- the wrapped device ------------------------------------------------------------------------
  const own = {
    createBuffer, createShaderModule, createComputePipeline, createComputePipelineAsync, createBindGroupLayout, createBindGroup,
    createCommandEncoder(desc) { return wrapEncoder(device.createCommandEncoder(desc)); },
  };
  const wrapped = new Proxy(device, {
    get(t, p) {
      if (p === 'queue') return wq;
      if (Object.hasOwn(own, p)) return own[p];
      const v = Reflect.get(t, p, t); return typeof v === 'function' ? v.bind(t) : v;
    },
    set(t, p, v) { return Reflect.set(t, p, v, t); },
  });

  // ---- reading back and writing the case -------------------------------------------------------
  async function build(c) {
    if ([...unsubmitted].some(cb => cbInfo.get(cb)?.has(c))) throw new Error(`capture: case '${c.name}': a command buffer holding its dispatches was never submitted`);
    const data = new Map();
    for (const [buf, e] of c.buffers) {
      const read = async (rb) => { if (!rb) return null; await rb.mapAsync(MAPMODE().READ); const b = new Uint8Array(rb.getMappedRange().slice(0)); rb.unmap(); rb.destroy(); return b; };
      data.set(buf, { before: await read(e.before), after: await read(e.after), label: e.label });
    }
    const out = toCase(c, data);
    finished.push(out);
    return out;
  }
  function toCase(c, data) {
    // one case buffer per GPUBuffer: the span of its bound ranges, rebased to the lowest offset
    const names = new Map(), used = new Set();
    const spans = new Map();
    for (const d of c.dispatches) for (const b of d.bindings) {
      const s = spans.get(b.buffer) || (opts.wholeBuffers ? { lo: 0, hi: b.buffer.size, dtype: null, written: false } : { lo: Infinity, hi: 0, dtype: null, written: false });
      s.lo = Math.min(s.lo, b.offset); s.hi = Math.max(s.hi, b.offset + b.size);
      if (b.access === 'read_write' && !s.written) { s.dtype = b.dtype; s.written = true; } else s.dtype ||= b.dtype;
      spans.set(b.buffer, s);
    }
    const notes = [];
    for (const [buf, s] of spans) {
      let nm = sanitize(data.get(buf)?.label || `buffer${bufInfo.get(buf)?.id}`);
      while (used.has(nm)) nm += '_';
      used.add(nm); names.set(buf, nm);
      s.hi = Math.min(Math.ceil(s.hi / 4) * 4, copySize(buf));
      const sz = DT[s.dtype][1];
      if ((s.hi - s.lo) % sz) s.dtype = 'u8';
    }
    const files = new Map();
    const json = { format: 'wgslvk-case/1', kernel: null, case: sanitize(c.name), description: '', provenance: {}, buffers: {}, dispatches: [], checks: [] };
    const info = { name: c.name, dispatches: c.dispatches, buffers: [] };
    for (const [buf, s] of spans) {
      const nm = names.get(buf), dd = data.get(buf);
      const before = dd.before ? dd.before.slice(s.lo, s.hi) : null, after = dd.after ? dd.after.slice(s.lo, s.hi) : null;
      info.buffers.push({ name: nm, label: dd.label, gpuBuffer: buf, dtype: s.dtype, written: s.written, lo: s.lo, bytes: s.hi - s.lo, before, after });
    }
    for (const d of c.dispatches) {
      const kernel = opts.kernelName ? opts.kernelName(d) : `${sanitize((d.moduleLabel || 'capture').replace(/\.wgsl$/, ''))}/${d.entryPoint}`;
      json.kernel ||= kernel;
      json.dispatches.push({
        kernel, label: d.label || `dispatch ${d.index}`,
        bindings: d.bindings.map(b => {
          const s = spans.get(b.buffer), off = b.offset - s.lo;
          if (off % 256) notes.push(`dispatch ${d.index} binding (${b.group}, ${b.binding}): offset ${off} from the span start is not a multiple of 256; wgslvk's runner requires 256`);
          return { group: b.group, binding: b.binding, buffer: names.get(b.buffer), offset: off, size: b.size };
        }),
        workgroups: d.workgroups,
      });
    }
    // What the describe hook may set: kernel, case, description, provenance, buffers[name] spec
    // (instead of the captured before-bytes), checks (default: every written buffer, exact).
    const desc = opts.describe ? opts.describe(info, json) || {} : {};
    if (desc.kernel) json.kernel = desc.kernel;
    if (desc.case) json.case = sanitize(desc.case);
    json.description = desc.description || `captured from ${c.dispatches.length} dispatch(es): ${c.dispatches.map(d => d.entryPoint).join(', ')}`;
    json.provenance = { capture: 'wgslvk capture/ (createCapture)', ...(desc.provenance || {}), ...(notes.length ? { notes } : {}) };
    for (const b of info.buffers) {
      const spec = desc.buffers?.[b.name];
      if (spec) { json.buffers[b.name] = spec; continue; }
      if (!b.before) throw new Error(`capture: case '${c.name}': buffer '${b.name}' has neither a before snapshot nor a spec`);
      json.buffers[b.name] = { file: `${b.name}.npy` };
      files.set(`${b.name}.npy`, npyBytes(b.dtype, b.before));
    }
    const checks = desc.checks || info.buffers.filter(b => b.written).map(b => ({
      buffer: b.name, compare: 'exact', reason: 'capture default: the device\'s output, bit for bit (no bound supplied to createCapture)' }));
    for (const k of checks) {
      const b = info.buffers.find(x => x.name === k.buffer);
      if (!b?.after) throw new Error(`capture: case '${c.name}': check on buffer '${k.buffer}' without an after snapshot`);
      const dtype = k.dtype || b.dtype, sz = DT[dtype][1];
      const exp = `${b.name}.expected.npy`;
      // `count`: the expected array's length (default: the whole buffer)
      const count = Math.min(k.count ?? Infinity, Math.floor(b.after.length / sz));
      if (!files.has(exp)) files.set(exp, npyBytes(dtype, b.after.subarray(0, count * sz)));
      const { dtype: _d, count: _c, ...rest } = k;
      json.checks.push({ ...rest, expected: exp });
    }
    for (const [f, bytes] of Object.entries(desc.files || {})) files.set(f, bytes);
    files.set('case.json', new TextEncoder().encode(stringifyCaseJson(json) + '\n'));
    return { name: json.case, kernel: json.kernel, json, files };
  }

  return {
    device: wrapped,
    log,
    cases: finished,
    begin(name) {
      if (win) throw new Error(`capture: begin('${name}') while window '${win.name}' is open`);
      win = newCase(name);
    },
    async end() {
      if (!win) throw new Error('capture: end() without begin()');
      const c = win; win = null;
      if (c.tainted) throw new Error(`capture: window '${c.name}': ${c.tainted}; not expressible as a case`);
      if (!c.dispatches.length) throw new Error(`capture: window '${c.name}' recorded no dispatch`);
      return build(c);
    },
    async flush() {
      const out = [];
      while (pending.length) out.push(await build(pending.shift()));
      return out;
    },
  };
}
