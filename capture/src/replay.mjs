// Running a wgslvk-case/1 folder on a WebGPU device: its buffers, its dispatches (each in its own
// compute pass of one command buffer, as wgslvk's runner does), WGSL from `wgslFor(kernel)`,
// layout "auto". Used by the browser suite and the demo page (through a createCapture device, so
// the run becomes a captured case) and usable under Node with Dawn.
import { initialBytes, inlineBytes, dispatchGrid } from './format.mjs';
import { trimForEntry } from './wgsl.mjs';

// wgslFor(kernel) -> { code, label } (async); loadFile(name) -> .npy bytes of the case folder.
// Returns { skipped: reason } when an entry point needs a feature the device lacks, else
// { buffers: Map(name -> GPUBuffer), trimmed: [kernels compiled from a trimmed module] }.
export async function prepareModules(device, c, wgslFor, cache = new Map()) {
  const hasF16 = device.features.has('shader-f16');
  const mods = [], trimmed = [];
  for (const d of c.dispatches) {
    const key = `${d.kernel}|${hasF16}`;
    if (!cache.has(key)) {
      const [, entry] = d.kernel.split('/');
      const src = await wgslFor(d.kernel);
      if (!src) { cache.set(key, { skipped: `no shipped WGSL declares ${d.kernel}` }); }
      else {
        const t = trimForEntry(src.code, entry, { hasF16 });
        if (!t.code || (t.needsF16 && !hasF16)) cache.set(key, { skipped: `${d.kernel} ${t.reason}` });
        else {
          device.pushErrorScope('validation');
          const module = device.createShaderModule({ code: t.code, label: src.label });
          const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: entry }, label: d.kernel });
          const err = await device.popErrorScope();
          cache.set(key, err ? { skipped: `${d.kernel}: ${err.message}`, error: true } : { pipeline, trimmed: t.trimmed, entry });
        }
      }
    }
    const m = cache.get(key);
    if (m.skipped) return { skipped: m.skipped, error: m.error };
    mods.push(m);
    if (m.trimmed) trimmed.push(d.kernel);
  }
  return { mods, trimmed };
}

// Creates the buffers, encodes every dispatch and submits; `capture` (optional) gets a window
// named `name` around them. Returns { buffers, captured }.
export async function runCase(device, c, mods, loadFile, { capture = null, name = c.case } = {}) {
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const buffers = new Map(), extra = [];
  device.pushErrorScope('validation');
  for (const [nm, spec] of Object.entries(c.buffers)) {
    const init = await initialBytes(spec, loadFile, `buffers.${nm}`);
    const b = device.createBuffer({ size: Math.max(4, init.bytes.length), usage, label: nm });
    device.queue.writeBuffer(b, 0, init.bytes);
    buffers.set(nm, b);
  }
  const steps = c.dispatches.map((d, di) => {
    const pipe = mods[di].pipeline, groups = new Map();
    for (const b of d.bindings) {
      let resource;
      if (b.values !== undefined) {
        const bytes = inlineBytes(b.values);
        const ib = device.createBuffer({ size: bytes.length, usage, label: `d${di}_g${b.group ?? 0}_b${b.binding}` });
        device.queue.writeBuffer(ib, 0, bytes);
        extra.push(ib);
        resource = { buffer: ib };
      } else {
        resource = { buffer: buffers.get(b.buffer), offset: b.offset || 0 };
        if (b.size !== undefined) resource.size = b.size;
      }
      const g = b.group ?? 0;
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push({ binding: b.binding, resource });
    }
    const bgs = [...groups].map(([g, entries]) => [g, device.createBindGroup({ layout: pipe.getBindGroupLayout(g), entries })]);
    return { pipe, bgs, wg: dispatchGrid(d) };
  });
  if (capture) capture.begin(name);
  const enc = device.createCommandEncoder();
  for (const s of steps) {
    const pass = enc.beginComputePass();
    pass.setPipeline(s.pipe);
    for (const [g, bg] of s.bgs) pass.setBindGroup(g, bg);
    pass.dispatchWorkgroups(...s.wg);
    pass.end();
  }
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) { if (capture) await capture.end().catch(() => {}); throw new Error(`validation: ${err.message}`); }
  const captured = capture ? await capture.end() : null;
  return { buffers, extra, captured };
}

export function destroyAll(run) { for (const b of run.buffers.values()) b.destroy(); for (const b of run.extra) b.destroy(); }

