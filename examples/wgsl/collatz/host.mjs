// What wgpu's examples/src/hello_compute/mod.rs (execute_gpu_inner) does with shader.wgsl, on
// seeded inputs: one storage buffer holding the numbers, read and written in place, layout "auto",
// one workgroup of one invocation per number, then a copy to a staging buffer. Each case is one
// dispatch; the expected array is what the browser left in the buffer, checked here against
// collatz_iterations() in JavaScript first.
import { captured, expectExact, u32s } from '../lib.mjs';

export const wgslFile = 'shader.wgsl';
const UPSTREAM = { repository: 'https://github.com/gfx-rs/wgpu', commit: '64a61ee5c69569bbb3db03563997e88a229eba17',
                   path: 'examples/src/hello_compute/shader.wgsl', host: 'examples/src/hello_compute/mod.rs' };

// The WGSL's collatz_iterations, in doubles (3n + 1 < 2^34 stays exact).
function collatz(n) {
  let i = 0;
  for (;;) {
    if (n <= 1) break;
    if (n % 2 === 0) n = n / 2;
    else {
      if (n >= 1431655765) return 0xffffffff;
      n = 3 * n + 1;
    }
    i++;
  }
  return i;
}

async function runOnce(ctx, name, numbers) {
  const { device, cap } = ctx;
  const module = device.createShaderModule({ code: ctx.code, label: wgslFile });
  const size = numbers.byteLength;
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const storage = device.createBuffer({ label: 'v_indices', size, mappedAtCreation: true,
                                        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  new Uint32Array(storage.getMappedRange()).set(numbers);
  storage.unmap();
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: storage } }] });
  cap.begin(name);
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(numbers.length, 1, 1);
  pass.end();
  encoder.copyBufferToBuffer(storage, 0, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  const c = await cap.end();
  await staging.mapAsync(GPUMapMode.READ);
  staging.unmap();
  storage.destroy(); staging.destroy();
  return c;
}

export async function run(ctx) {
  const { rng } = ctx;
  // the upstream default input, and the edges of the WGSL's arithmetic
  const edges = [1, 2, 3, 4, 0, 27, 97, 871, 837799, 1431655764, 1431655765, 1431655766, 2 ** 31, 2 ** 32 - 1, 2 ** 32 - 2, 3 * 2 ** 30];
  const numbers = new Uint32Array(1024);
  numbers.set(edges);
  for (let i = edges.length; i < numbers.length; ++i) {
    const k = i % 10;  // 40% below 10^6 (long chains, no overflow), 30% up to 2^31, 30% anywhere
    numbers[i] = k < 4 ? rng.int(1, 1e6) : k < 7 ? rng.int(1e6, 2 ** 31) : rng.int(0, 2 ** 32 - 1);
  }
  return [
    await runOnce(ctx, 'default_numbers', new Uint32Array([1, 2, 3, 4])),
    await runOnce(ctx, 'random_1024', numbers),
  ];
}

export function describe(info, json, ctx) {
  const v = captured(info, 'v_indices');
  const input = u32s(v.before);
  expectExact(`${info.name}: v_indices`, u32s(v.after), Uint32Array.from(input, collatz));
  const overflow = Array.from(input, collatz).filter(x => x === 0xffffffff).length;
  return {
    case: info.name,
    description: `collatz_iterations of ${input.length} numbers in place (${overflow} overflow to 0xffffffff); expected = what ${ctx.adapter} computed`,
    provenance: { upstream: UPSTREAM, host: 'examples/wgsl/collatz/host.mjs', seed: ctx.seed, oracle: ctx.adapter },
    checks: [{ buffer: 'v_indices', compare: 'exact',
               reason: 'integer work: the iteration count, or 0xffffffff where 3n + 1 would overflow u32, is fixed by the WGSL' }],
  };
}
