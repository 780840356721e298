// What wgpu's examples/src/hello_synchronization/mod.rs (execute) does with shaders.wgsl's
// patient_main: one storage buffer of 128 u32 results, an explicit layout of one read-write storage
// binding, 128 workgroups of 16 invocations; each workgroup's invocations atomicAdd a workgroup
// atomic, meet at workgroupBarrier(), and invocation 0 stores the count, so every result is 16.
// Cases: the upstream dispatch, and 300 workgroups writing into a 320-element buffer (the last 20
// elements must stay as they were). The buffer starts as poison (the sample's zeros would hide a
// workgroup that never stores). hasty_main, the same without the barrier, races by design (the
// sample prints its varying counts), so it has no case.
import { captured, expectExact, u32s } from '../lib.mjs';
import { POISON32 } from '../../../capture/src/format.mjs';

export const wgslFile = 'shaders.wgsl';
const UPSTREAM = { repository: 'https://github.com/gfx-rs/wgpu', commit: '64a61ee5c69569bbb3db03563997e88a229eba17',
                   path: 'examples/src/hello_synchronization/shaders.wgsl', host: 'examples/src/hello_synchronization/mod.rs' };

export async function run(ctx) {
  const { device, cap } = ctx;
  const module = device.createShaderModule({ code: ctx.code, label: wgslFile });
  const layout = device.createBindGroupLayout({ entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } }] });
  const pipeline = device.createComputePipeline({ layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
                                                  compute: { module, entryPoint: 'patient_main' } });
  const cases = [];
  for (const [name, workgroups, length] of [['patient_128_workgroups', 128, 128], ['patient_300_workgroups', 300, 320]]) {
    const output = device.createBuffer({ label: 'output', size: 4 * length, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
    new Uint32Array(output.getMappedRange()).fill(POISON32);
    output.unmap();
    const bindGroup = device.createBindGroup({ layout, entries: [{ binding: 0, resource: { buffer: output } }] });
    cap.begin(name);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(workgroups, 1, 1);
    pass.end();
    device.queue.submit([enc.finish()]);
    cases.push(await cap.end());
    output.destroy();
  }
  return cases;
}

export function describe(info, json, ctx) {
  const out = captured(info, 'output');
  const workgroups = info.dispatches[0].workgroups[0];
  const ref = u32s(out.before).slice();
  ref.fill(16, 0, workgroups);
  expectExact(`${info.name}: output`, u32s(out.after), ref);
  return {
    case: info.name,
    description: `patient_main over ${workgroups} workgroups of 16: each result is the workgroup atomic after the barrier (16); ` +
      `${ref.length - workgroups} element(s) past them untouched; expected = what ${ctx.adapter} computed`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/workgroup_atomics/host.mjs', seed: ctx.seed, oracle: ctx.adapter },
    buffers: { output: { dtype: 'u32', count: ref.length, fill: 'poison' } },
    checks: [{ buffer: 'output', compare: 'exact',
               reason: 'every invocation adds 1 to the zero-initialised workgroup atomic before workgroupBarrier(), so invocation 0 reads 16; elements past the last workgroup stay poison' }],
  };
}
