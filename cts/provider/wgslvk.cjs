// The CTS's --gpu-provider module for wgslvk: a `navigator.gpu` whose adapters are `wgslvk serve`
// processes (one per adapter, so one per device). Every WebGPU call that returns no promise is sent
// down the pipe without waiting, naming its new object with an id chosen here; calls that return
// a promise wait for the answer with the same `r`. The server applies WebGPU's rules (through the
// wgslvk runtime) and reports errors to the device's error scopes. cts/README.md has the protocol.
//
// What wgslvk does not implement (textures, samplers, render passes, query sets, ...) throws here
// at once with "not implemented in wgslvk: X" (or, for what only the server can tell, comes back
// as an internal error with that text), so nothing hangs and every refusal is counted in the logs.
// Flags (--gpu-provider-flag): bin=PATH (the wgslvk binary; default env WGSLVK_BIN, else
// <repo>/build/cli/wgslvk), device=SEL (wgslvk's --device).
'use strict';
const { spawn } = require('child_process');
const path = require('path');
const readline = require('readline');

const NI = 'not implemented in wgslvk: ';
function notImplemented(what) {
  const e = new Error(NI + what);
  e.name = 'NotSupportedError';
  console.log(NI + what);  // counted by cts/run.mjs
  return e;
}
const opError = msg => new DOMException(msg, 'OperationError');
// How long a promise-returning call may wait for `wgslvk serve` (a pipeline compile or a large
// map included) before the device is declared lost.
const kCallTimeoutS = Number(process.env.WGSLVK_CTS_CALL_TIMEOUT_S || 120);

// ---- recording (WGSLVK_CTS_RECORD=DIR): the replay corpus of tests/cts/replay ------------------
// Every line sent to and received from each `wgslvk serve` goes to DIR/<pid>-<n>.jsonl as
// [">" or "<", line]. When the CTS runner logs a case's result ("[pass] <case> (..ms)"), a mark
// naming the case and its status is sent to every open server: a request that changes nothing
// and is answered in order (getCompilationInfo of object 0, which never exists: ids start at 1),
// so the server's output is cut into cases exactly where the case's output ends.
// cts/replay.mjs replays a transcript and compares the output of the cases the CTS passed.
const recorder = process.env.WGSLVK_CTS_RECORD ? (() => {
  const fs = require('fs');
  const dir = process.env.WGSLVK_CTS_RECORD;
  fs.mkdirSync(dir, { recursive: true });
  const open = new Set();
  const seen = new Set();
  let n = 0;
  const log = console.log;
  console.log = (...a) => {
    const m = typeof a[0] === 'string' && /^\[(pass|fail|skip|warn)\] (\S+) \(\d/.exec(a[0]);
    if (m && !seen.has(m[2])) {  // the runner's summary repeats failures and skips
      seen.add(m[2]);
      for (const c of open) {
        // Awaited like a call, so that the runner does not exit before the last mark's answer.
        const r = c.nextR++;
        c.pending.set(r, { resolve() {} });
        c.updateRef();
        c.send({ op: 'getCompilationInfo', id: 0, r, mark: m[2], status: m[1] });
      }
    }
    return log.apply(console, a);
  };
  return {
    open(conn) {
      const fd = fs.openSync(path.join(dir, `${process.pid}-${++n}.jsonl`), 'w');
      conn.record = (dirn, line) => fs.writeSync(fd, JSON.stringify([dirn, line]) + '\n');
      open.add(conn);
      conn.child.on('exit', () => open.delete(conn));
    },
  };
})() : null;

// ---- WebGPU's constants and error classes -------------------------------------------------------
const GPUBufferUsage = Object.freeze({ MAP_READ: 0x1, MAP_WRITE: 0x2, COPY_SRC: 0x4, COPY_DST: 0x8,
  INDEX: 0x10, VERTEX: 0x20, UNIFORM: 0x40, STORAGE: 0x80, INDIRECT: 0x100, QUERY_RESOLVE: 0x200 });
const GPUMapMode = Object.freeze({ READ: 0x1, WRITE: 0x2 });
const GPUShaderStage = Object.freeze({ VERTEX: 0x1, FRAGMENT: 0x2, COMPUTE: 0x4 });
const GPUTextureUsage = Object.freeze({ COPY_SRC: 0x1, COPY_DST: 0x2, TEXTURE_BINDING: 0x4,
  STORAGE_BINDING: 0x8, RENDER_ATTACHMENT: 0x10 });
const GPUColorWrite = Object.freeze({ RED: 0x1, GREEN: 0x2, BLUE: 0x4, ALPHA: 0x8, ALL: 0xf });
class GPUError { constructor(message) { this.message = String(message); } }
class GPUValidationError extends GPUError {}
class GPUOutOfMemoryError extends GPUError {}
class GPUInternalError extends GPUError {}
class GPUPipelineError extends DOMException {
  constructor(message, options = {}) { super(message, 'GPUPipelineError'); this.reason = options.reason; }
}
class GPUUncapturedErrorEvent extends Event {
  constructor(type, init) { super(type); this.error = init.error; }
}
const errorOf = e => e.kind === 'validation' ? new GPUValidationError(e.message)
  : e.kind === 'out-of-memory' ? new GPUOutOfMemoryError(e.message) : new GPUInternalError(e.message);

// WebGPU's limits with their defaults. The server reports the compute ones it models; the rest
// (textures, vertex, render targets) stay at WebGPU's default, which is what wgslvk "supports" of
// features it does not have.
const kDefaultLimits = {
  maxTextureDimension1D: 8192, maxTextureDimension2D: 8192, maxTextureDimension3D: 2048,
  maxTextureArrayLayers: 256, maxBindGroups: 4, maxBindGroupsPlusVertexBuffers: 24,
  maxBindingsPerBindGroup: 1000, maxDynamicUniformBuffersPerPipelineLayout: 8,
  maxDynamicStorageBuffersPerPipelineLayout: 4, maxSampledTexturesPerShaderStage: 16,
  maxSamplersPerShaderStage: 16, maxStorageBuffersPerShaderStage: 8,
  maxStorageTexturesPerShaderStage: 4, maxUniformBuffersPerShaderStage: 12,
  maxUniformBufferBindingSize: 65536, maxStorageBufferBindingSize: 134217728,
  minUniformBufferOffsetAlignment: 256, minStorageBufferOffsetAlignment: 256, maxVertexBuffers: 8,
  maxBufferSize: 268435456, maxVertexAttributes: 16, maxVertexBufferArrayStride: 2048,
  maxInterStageShaderComponents: 64, maxInterStageShaderVariables: 16, maxColorAttachments: 8,
  maxColorAttachmentBytesPerSample: 32, maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 256, maxComputeWorkgroupSizeZ: 64,
  maxComputeWorkgroupsPerDimension: 65535,
};
class GPUSupportedLimits {}
function makeLimits(reported) {
  const l = new GPUSupportedLimits();
  for (const [k, v] of Object.entries({ ...kDefaultLimits, ...reported }))
    Object.defineProperty(l, k, { value: v, enumerable: true });
  return Object.freeze(l);
}
class GPUSupportedFeatures extends Set {}

// ---- the pipe ------------------------------------------------------------------------------------
const liveConnections = new Set();  // for cts/worker.cjs: childPids() and shutdown()
class Connection {
  constructor(bin, flags) {
    const args = ['serve'];
    if (flags.device) args.push('--device', flags.device);
    this.child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.pending = new Map();
    this.nextR = 1;
    this.nextId = 1;
    this.onEvent = () => {};
    this.closed = false;
    liveConnections.add(this);
    this.exited = new Promise(resolve => this.child.on('close', resolve));
    this.child.on('error', e => this.close(`cannot start ${bin}: ${e.message}`));
    this.child.on('exit', (code, sig) => {
      liveConnections.delete(this);
      this.close(`wgslvk serve exited (${code ?? sig})`);
    });
    this.child.stdin.on('error', () => {});
    if (recorder) recorder.open(this);
    readline.createInterface({ input: this.child.stdout }).on('line', line => {
      if (this.record) this.record('<', line);
      let m;
      try { m = JSON.parse(line); } catch { return; }
      if (m.r !== undefined) {
        const p = this.pending.get(m.r);
        this.pending.delete(m.r);
        if (p) clearTimeout(p.timer);
        this.updateRef();
        if (p) p.resolve(m);
      } else {
        this.onEvent(m);
      }
    });
    // Objects the page dropped: the server frees them (shaders and pipelines would pile up over a
    // CTS run otherwise).
    this.registry = new FinalizationRegistry(id => this.send({ op: 'release', id }));
    this.updateRef();
  }
  // Keep Node's event loop alive only while an answer is awaited.
  updateRef() {
    const busy = this.pending.size > 0;
    for (const s of [this.child, this.child.stdout, this.child.stdin]) {
      if (busy) s.ref?.(); else s.unref?.();
    }
  }
  close(why) {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = why;
    for (const p of this.pending.values()) p.resolve({ error: { name: 'OperationError', message: why } });
    this.pending.clear();
    this.onEvent({ ev: 'lost', message: why });
  }
  send(m) {
    if (this.closed) return;
    const line = JSON.stringify(m);
    if (this.record) this.record('>', line);
    this.child.stdin.write(line + '\n');
  }
  call(m) {
    if (this.closed) return Promise.resolve({ error: { name: 'OperationError', message: this.closeReason } });
    return new Promise(resolve => {
      m.r = this.nextR++;
      this.pending.set(m.r, { resolve });
      this.updateRef();
      this.send(m);
      // Never hang: a server that stops answering loses the device (and is killed).
      const timer = setTimeout(() => {
        if (!this.pending.has(m.r)) return;
        this.close(`wgslvk serve did not answer '${m.op}' within ${kCallTimeoutS} s`);
        this.child.kill('SIGKILL');
      }, kCallTimeoutS * 1000);
      timer.unref();
      this.pending.get(m.r).timer = timer;
    });
  }
  track(obj) {
    obj._id = this.nextId++;
    this.registry.register(obj, obj._id);
    return obj._id;
  }
  exit() {
    this.send({ op: 'exit' });
    this.child.stdin.end();
  }
}

function bytesOf(data, dataOffset = 0, size) {
  let u8;
  if (data instanceof ArrayBuffer || data instanceof SharedArrayBuffer) {
    u8 = new Uint8Array(data);
  } else if (ArrayBuffer.isView(data)) {
    const el = data.BYTES_PER_ELEMENT ?? 1;
    u8 = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    dataOffset *= el;
    if (size !== undefined) size *= el;
  } else {
    throw new TypeError('writeBuffer: data is not an ArrayBuffer or a view of one');
  }
  if (dataOffset > u8.length) throw opError('writeBuffer: dataOffset is past the end of data');
  const n = size === undefined ? u8.length - dataOffset : size;
  if (dataOffset + n > u8.length) throw opError('writeBuffer: dataOffset + size is past the end of data');
  return u8.subarray(dataOffset, dataOffset + n);
}
const b64 = u8 => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('base64');

// ---- objects -------------------------------------------------------------------------------------
class GPUObjectBase {
  constructor(device, label) { this._device = device; this.label = label ?? ''; }
}

class GPUBuffer extends GPUObjectBase {
  constructor(device, desc) {
    super(device, desc.label);
    this.size = desc.size;
    this.usage = desc.usage;
    this.mapState = desc.mappedAtCreation ? 'mapped' : 'unmapped';
    this._ranges = [];
    if (desc.mappedAtCreation) this._map = { offset: 0, bytes: new Uint8Array(desc.size), write: true };
  }
  mapAsync(mode, offset = 0, size) {
    const conn = this._device._conn;
    if (this.mapState !== 'unmapped') {
      conn.send({ op: 'reportError', kind: 'validation', message: `mapAsync: the buffer is ${this.mapState}` });
      return Promise.reject(opError(`mapAsync: the buffer is ${this.mapState}`));
    }
    if (size === undefined) size = Math.max(0, this.size - offset);
    this.mapState = 'pending';
    const p = conn.call({ op: 'mapAsync', id: this._id, mode, offset, size }).then(m => {
      if (this._aborted) { this._aborted = false; throw new DOMException('mapAsync: unmapped before it finished', 'AbortError'); }
      if (m.error) { this.mapState = 'unmapped'; throw opError(m.error.message); }
      this.mapState = 'mapped';
      this._map = { offset, bytes: new Uint8Array(Buffer.from(m.data, 'base64')), write: mode === GPUMapMode.WRITE };
      this._ranges = [];
    });
    this._pendingMap = p;
    return p;
  }
  getMappedRange(offset = 0, size) {
    if (this.mapState !== 'mapped') throw opError('getMappedRange: the buffer is not mapped');
    const m = this._map;
    if (size === undefined) size = Math.max(0, m.offset + m.bytes.length - offset);
    if (offset % 8 || size % 4 || offset < m.offset || offset + size > m.offset + m.bytes.length)
      throw opError(`getMappedRange(${offset}, ${size}): outside the mapped range or misaligned`);
    for (const r of this._ranges)
      if (offset < r.offset + r.size && r.offset < offset + size)
        throw opError('getMappedRange: overlaps a range already returned');
    const ab = new ArrayBuffer(size);
    new Uint8Array(ab).set(m.bytes.subarray(offset - m.offset, offset - m.offset + size));
    this._ranges.push({ offset, size, ab });
    return ab;
  }
  unmap() {
    const conn = this._device._conn;
    if (this.mapState === 'pending') { this._aborted = true; this.mapState = 'unmapped'; return; }
    if (this.mapState !== 'mapped') return;
    const writes = this._map.write
      ? this._ranges.filter(r => r.ab.byteLength === r.size).map(r => ({ offset: r.offset, data: b64(new Uint8Array(r.ab)) }))
      : undefined;
    for (const r of this._ranges) try { structuredClone(r.ab, { transfer: [r.ab] }); } catch {}  // detach
    this._ranges = [];
    this._map = undefined;
    this.mapState = 'unmapped';
    conn.send({ op: 'unmap', id: this._id, writes });
  }
  destroy() {
    if (this.mapState === 'mapped') { this._map.write = false; this.unmap(); }
    if (this.mapState === 'pending') this.unmap();
    this._device._conn.send({ op: 'destroyBuffer', id: this._id });
  }
}

class GPUBindGroupLayout extends GPUObjectBase {}
class GPUPipelineLayout extends GPUObjectBase {}
class GPUBindGroup extends GPUObjectBase {}
class GPUCommandBuffer extends GPUObjectBase {}
class GPUCompilationMessage {
  constructor(m) {
    this.message = m.message; this.type = m.type; this.lineNum = m.lineNum ?? 0;
    this.linePos = m.linePos ?? 0; this.offset = 0; this.length = 0;
  }
}
class GPUCompilationInfo { constructor(messages) { this.messages = messages; } }
class GPUShaderModule extends GPUObjectBase {
  getCompilationInfo() {
    return this._device._conn.call({ op: 'getCompilationInfo', id: this._id })
      .then(m => new GPUCompilationInfo((m.messages ?? []).map(x => new GPUCompilationMessage(x))));
  }
}
class GPUComputePipeline extends GPUObjectBase {
  getBindGroupLayout(index) {
    const l = new GPUBindGroupLayout(this._device);
    this._device._conn.send({ op: 'getBindGroupLayout', id: this._device._conn.track(l), pipeline: this._id, index });
    return l;
  }
}

class GPUComputePassEncoder extends GPUObjectBase {
  constructor(encoder, desc) { super(encoder._device, desc?.label); this._enc = encoder; }
  _send(m) { this._device._conn.send({ ...m, encoder: this._enc._id, pass: this._id }); }
  setPipeline(p) { this._send({ op: 'setPipeline', pipeline: p._id }); }
  setBindGroup(index, group, offsets, start, length) {
    let dyn = [];
    if (offsets) dyn = Array.from(start === undefined ? offsets : offsets.subarray(start, start + length));
    this._send({ op: 'setBindGroup', index, group: group ? group._id : null, dynamicOffsets: dyn });
  }
  dispatchWorkgroups(x, y = 1, z = 1) { this._send({ op: 'dispatchWorkgroups', x, y, z }); }
  dispatchWorkgroupsIndirect(buffer, offset) {
    console.log(NI + 'dispatchWorkgroupsIndirect');
    this._send({ op: 'dispatchWorkgroupsIndirect', buffer: buffer._id, offset });
  }
  end() { this._send({ op: 'end' }); }
  pushDebugGroup() {}
  popDebugGroup() {}
  insertDebugMarker() {}
  writeTimestamp() { throw notImplemented('GPUComputePassEncoder.writeTimestamp'); }
}

class GPUCommandEncoder extends GPUObjectBase {
  _send(m) { this._device._conn.send({ ...m, encoder: this._id }); }
  beginComputePass(desc = {}) {
    if (desc.timestampWrites) throw notImplemented('compute pass timestampWrites (query sets)');
    const p = new GPUComputePassEncoder(this, desc);
    this._send({ op: 'beginComputePass', id: this._device._conn.track(p), label: desc.label });
    return p;
  }
  copyBufferToBuffer(src, srcOffset, dst, dstOffset, size) {
    this._send({ op: 'copyBufferToBuffer', src: src._id, srcOffset, dst: dst._id, dstOffset, size });
  }
  clearBuffer(buffer, offset = 0, size) { this._send({ op: 'clearBuffer', buffer: buffer._id, offset, size }); }
  finish(desc = {}) {
    const cb = new GPUCommandBuffer(this._device, desc.label);
    this._send({ op: 'finish', id: this._device._conn.track(cb) });
    return cb;
  }
  pushDebugGroup() {}
  popDebugGroup() {}
  insertDebugMarker() {}
  beginRenderPass() { throw notImplemented('render passes'); }
  copyBufferToTexture() { throw notImplemented('textures (copyBufferToTexture)'); }
  copyTextureToBuffer() { throw notImplemented('textures (copyTextureToBuffer)'); }
  copyTextureToTexture() { throw notImplemented('textures (copyTextureToTexture)'); }
  resolveQuerySet() { throw notImplemented('query sets (resolveQuerySet)'); }
  writeTimestamp() { throw notImplemented('GPUCommandEncoder.writeTimestamp'); }
}

class GPUQueue extends GPUObjectBase {
  submit(cbs) { this._device._conn.send({ op: 'submit', commandBuffers: [...cbs].map(c => c._id) }); }
  writeBuffer(buffer, bufferOffset, data, dataOffset = 0, size) {
    const u8 = bytesOf(data, dataOffset, size);
    this._device._conn.send({ op: 'writeBuffer', id: buffer._id, offset: bufferOffset, data: b64(u8) });
  }
  onSubmittedWorkDone() { return this._device._conn.call({ op: 'onSubmittedWorkDone' }).then(() => undefined); }
  writeTexture() { throw notImplemented('textures (writeTexture)'); }
  copyExternalImageToTexture() { throw notImplemented('textures (copyExternalImageToTexture)'); }
}

class GPUDevice extends EventTarget {
  constructor(adapter, conn, desc, reply) {
    super();
    this._conn = conn;
    this.label = desc.label ?? '';
    this.features = new GPUSupportedFeatures(desc.requiredFeatures ?? []);
    this.limits = makeLimits({ ...adapter._requestedLimits, ...reply.limits });
    this.adapterInfo = adapter.info;
    this.queue = new GPUQueue(this);
    this.onuncapturederror = null;
    this.lost = new Promise(resolve => { this._lose = resolve; });
    conn.onEvent = m => {
      if (m.ev === 'uncapturederror') this._report(m.kind, m.message);
      else if (m.ev === 'notimplemented') console.log(m.message.startsWith(NI) ? m.message : NI + m.message);
      else if (m.ev === 'lost') this._lose({ reason: this._destroyed ? 'destroyed' : 'unknown', message: m.message });
    };
  }
  _report(kind, message) {
    const ev = new GPUUncapturedErrorEvent('uncapturederror', { error: errorOf({ kind, message }) });
    const handled = this.onuncapturederror || this._hasListeners;
    if (this.onuncapturederror) this.onuncapturederror(ev);
    this.dispatchEvent(ev);
    if (!handled) console.warn(`wgslvk: uncaptured ${kind} error: ${message}`);
  }
  addEventListener(type, ...rest) {
    if (type === 'uncapturederror') this._hasListeners = true;
    return super.addEventListener(type, ...rest);
  }
  _make(cls, op, desc, extra) {
    const o = new cls(this, desc.label);
    this._conn.send({ op, id: this._conn.track(o), label: desc.label, ...extra });
    return o;
  }
  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    this._conn.send({ op: 'destroyDevice' });
    this._lose({ reason: 'destroyed', message: 'device.destroy()' });
    this._conn.exit();
  }
  createBuffer(desc) {
    const b = new GPUBuffer(this, desc);
    this._conn.send({ op: 'createBuffer', id: this._conn.track(b), size: desc.size, usage: desc.usage,
                      mappedAtCreation: !!desc.mappedAtCreation, label: desc.label });
    return b;
  }
  createBindGroupLayout(desc) {
    const entries = [...desc.entries].map(e => {
      const x = { binding: e.binding, visibility: e.visibility };
      if (e.buffer) x.buffer = { type: e.buffer.type ?? 'uniform', hasDynamicOffset: !!e.buffer.hasDynamicOffset, minBindingSize: e.buffer.minBindingSize ?? 0 };
      else x.other = e.texture ? 'texture' : e.sampler ? 'sampler' : e.storageTexture ? 'storageTexture' : 'externalTexture';
      return x;
    });
    return this._make(GPUBindGroupLayout, 'createBindGroupLayout', desc, { entries });
  }
  createPipelineLayout(desc) {
    return this._make(GPUPipelineLayout, 'createPipelineLayout', desc,
                      { bindGroupLayouts: [...desc.bindGroupLayouts].map(l => l._id) });
  }
  createShaderModule(desc) {
    return this._make(GPUShaderModule, 'createShaderModule', desc, { code: String(desc.code) });
  }
  _pipelineMsg(desc) {
    const c = desc.compute;
    return { module: c.module._id, entryPoint: c.entryPoint, constants: c.constants ?? {},
             layout: desc.layout === 'auto' ? 'auto' : desc.layout._id };
  }
  createComputePipeline(desc) {
    return this._make(GPUComputePipeline, 'createComputePipeline', desc, this._pipelineMsg(desc));
  }
  createComputePipelineAsync(desc) {
    const p = new GPUComputePipeline(this, desc.label);
    return this._conn.call({ op: 'createComputePipeline', id: this._conn.track(p), label: desc.label, ...this._pipelineMsg(desc) })
      .then(m => {
        if (m.error) throw new GPUPipelineError(m.error.message, { reason: m.error.reason ?? 'internal' });
        return p;
      });
  }
  createBindGroup(desc) {
    const entries = [...desc.entries].map(e => {
      const r = e.resource;
      if (r instanceof GPUBuffer) return { binding: e.binding, buffer: r._id };  // GPUBuffer as a binding resource
      if (r && r.buffer instanceof GPUBuffer) return { binding: e.binding, buffer: r.buffer._id, offset: r.offset ?? 0, size: r.size };
      return { binding: e.binding, other: true };
    });
    return this._make(GPUBindGroup, 'createBindGroup', desc, { layout: desc.layout._id, entries });
  }
  createCommandEncoder(desc = {}) { return this._make(GPUCommandEncoder, 'createCommandEncoder', desc, {}); }
  pushErrorScope(filter) {
    if (!['validation', 'out-of-memory', 'internal'].includes(filter))
      throw new TypeError(`pushErrorScope: '${filter}' is not a GPUErrorFilter`);
    this._conn.send({ op: 'pushErrorScope', filter });
  }
  popErrorScope() {
    return this._conn.call({ op: 'popErrorScope' }).then(m => {
      if (m.error && m.error.name) throw opError(m.error.message);
      return m.error ? errorOf(m.error) : null;
    });
  }
  createTexture() { throw notImplemented('textures (createTexture)'); }
  createSampler() { throw notImplemented('samplers (createSampler)'); }
  importExternalTexture() { throw notImplemented('external textures'); }
  createRenderPipeline() { throw notImplemented('render pipelines'); }
  createRenderPipelineAsync() { return Promise.reject(notImplemented('render pipelines')); }
  createRenderBundleEncoder() { throw notImplemented('render bundles'); }
  createQuerySet() { throw notImplemented('query sets (createQuerySet)'); }
}

class GPUAdapter {
  constructor(conn, info) {
    this._conn = conn;
    this.features = new GPUSupportedFeatures(info.features);
    this.limits = makeLimits(info.limits);
    this.info = { vendor: `0x${info.vendorId.toString(16)}`, architecture: info.type,
                  device: info.name, description: `${info.name} (${info.driver}) through wgslvk`,
                  subgroupMinSize: info.subgroupMinSize, subgroupMaxSize: info.subgroupMaxSize };
    this.isFallbackAdapter = false;
  }
  requestAdapterInfo() { return Promise.resolve(this.info); }
  async requestDevice(desc = {}) {
    if (this._used) throw opError('wgslvk: one device per adapter (request another adapter)');
    this._used = true;
    for (const f of desc.requiredFeatures ?? [])
      if (!this.features.has(f)) throw new TypeError(`requestDevice: feature '${f}' is not supported`);
    const modeled = {};
    for (const [k, v] of Object.entries(desc.requiredLimits ?? {})) {
      if (v === undefined) continue;
      if (!(k in kDefaultLimits)) throw opError(`requestDevice: unknown limit '${k}'`);
      const better = k.startsWith('min') ? v < this.limits[k] : v > this.limits[k];
      if (better) throw opError(`requestDevice: ${k} = ${v} is better than the adapter's ${this.limits[k]}`);
      modeled[k] = v;
    }
    this._requestedLimits = Object.fromEntries(Object.entries(modeled));
    const m = await this._conn.call({ op: 'requestDevice', requiredFeatures: [...(desc.requiredFeatures ?? [])],
                                      requiredLimits: modeled, label: desc.label });
    if (m.error) throw opError(m.error.message);
    return new GPUDevice(this, this._conn, desc, m);
  }
}

class GPU {
  constructor(flags) {
    this._flags = flags;
    // The WGSL language features the front end accepts in `requires` (translator/wgsl/src/sema.cpp
    // keeps the same list). readonly_and_readwrite_storage_textures: the language (read and
    // read_write storage textures, textureBarrier) is typed; textures themselves are not run
    // (createTexture fails clearly, as every texture call does).
    this.wgslLanguageFeatures = new Set(['packed_4x8_integer_dot_product',
      'unrestricted_pointer_parameters', 'pointer_composite_access',
      'readonly_and_readwrite_storage_textures']);
  }
  async requestAdapter(options = {}) {
    if (options.compatibilityMode) return null;
    const conn = new Connection(this._flags.bin, this._flags);
    const m = await conn.call({ op: 'adapter' });
    if (m.error) {
      console.error(`wgslvk provider: no adapter: ${m.error.message} (bin=${this._flags.bin})`);
      conn.exit();
      return null;
    }
    return new GPUAdapter(conn, m);
  }
  getPreferredCanvasFormat() { return 'bgra8unorm'; }
}

const globals = {
  GPU, GPUAdapter, GPUDevice, GPUBuffer, GPUQueue, GPUShaderModule, GPUComputePipeline,
  GPUBindGroup, GPUBindGroupLayout, GPUPipelineLayout, GPUCommandEncoder, GPUCommandBuffer,
  GPUComputePassEncoder, GPUCompilationInfo, GPUCompilationMessage, GPUSupportedLimits,
  GPUSupportedFeatures, GPUError, GPUValidationError, GPUOutOfMemoryError, GPUInternalError,
  GPUPipelineError, GPUUncapturedErrorEvent, GPUBufferUsage, GPUMapMode, GPUShaderStage,
  GPUTextureUsage, GPUColorWrite,
};

module.exports.create = flagList => {
  const flags = {};
  for (const f of flagList) {
    const i = f.indexOf('=');
    flags[i < 0 ? f : f.slice(0, i)] = i < 0 ? '' : f.slice(i + 1);
  }
  flags.bin = flags.bin || process.env.WGSLVK_BIN || path.resolve(__dirname, '../../build/cli/wgslvk');
  if (!flags.device && process.env.WGSLVK_DEVICE) flags.device = process.env.WGSLVK_DEVICE;
  Object.assign(globalThis, globals);
  return new GPU(flags);
};
module.exports.globals = globals;
// For cts/worker.cjs, which runs many spec files in one process: the pids of the live servers (to
// count their CPU time per file), and a clean end (each server told to exit and waited for, so
// that its CPU time is counted by whoever waits for this process).
module.exports.childPids = () => [...liveConnections].map(c => c.child.pid).filter(Boolean);
module.exports.shutdown = async () => {
  const all = [...liveConnections];
  for (const c of all) {
    c.exit();
    for (const s of [c.child, c.child.stdout]) s.ref?.();  // wait for them (updateRef unrefs)
  }
  let timer;
  await Promise.race([Promise.all(all.map(c => c.exited)), new Promise(r => { timer = setTimeout(r, 10000); })]);
  clearTimeout(timer);
};
