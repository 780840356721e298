// A page-like program run twice, on the plain device and through createCapture with a selection by
// entry point, to check the capture where the suite's windows do not reach: no effect on the
// program's results (bit for bit), mapped and queued writes, a bind group range at a 256-byte
// offset, a selected dispatch in the middle of a pass (the pass is split around it), inputs taken
// just before that dispatch (after the previous dispatch of the same pass wrote them), outputs
// just after it (before the next one), the rebasing of bound ranges, the default exact checks.
// The captured case is a real one (elementwise/residual_add) that `wgslvk validate` replays.
import { createCapture } from './capture.mjs';
import { parseNpy } from './format.mjs';

const N = 1024;  // floats per range; residual_add works on vec4: dims.x = N / 4

async function program(device, code) {
  const U = GPUBufferUsage;
  const module = device.createShaderModule({ code, label: 'elementwise/04_elementwise.wgsl' });
  const add = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'residual_add' }, label: 'page: residual_add' });
  const inplace = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'residual_add_inplace' }, label: 'page: residual_add_inplace' });
  // act: 2N floats, written through a mapping; res: N floats, written with writeBuffer
  const act = device.createBuffer({ size: 8 * N, usage: U.STORAGE | U.COPY_SRC, mappedAtCreation: true, label: 'act' });
  const a = new Float32Array(act.getMappedRange());
  for (let i = 0; i < 2 * N; ++i) a[i] = (i % 97) * 0.375 - 17.25 + i * 2 ** -10;
  act.unmap();
  const res = device.createBuffer({ size: 4 * N, usage: U.STORAGE | U.COPY_DST, label: 'res' });
  device.queue.writeBuffer(res, 0, new Float32Array(Array.from({ length: N }, (_, i) => Math.sin(i) * 3.5)));
  const out = device.createBuffer({ size: 4 * N + 2048, usage: U.STORAGE | U.COPY_SRC, label: 'out' });
  const dims = device.createBuffer({ size: 16, usage: U.UNIFORM | U.COPY_DST, label: 'dims' });
  device.queue.writeBuffer(dims, 0, new Uint32Array([N / 4, 0, 0, 0]));
  const hi = { buffer: act, offset: 4 * N, size: 4 * N };   // act[N, 2N)
  const bgInplace = device.createBindGroup({ layout: inplace.getBindGroupLayout(0), entries: [
    { binding: 0, resource: hi }, { binding: 1, resource: { buffer: res } }, { binding: 2, resource: { buffer: dims } }] });
  const bgAdd = device.createBindGroup({ layout: add.getBindGroupLayout(0), entries: [
    { binding: 0, resource: hi }, { binding: 1, resource: { buffer: res } },
    { binding: 2, resource: { buffer: out, offset: 2048, size: 4 * N } }, { binding: 3, resource: { buffer: dims } }] });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(inplace); pass.setBindGroup(0, bgInplace); pass.dispatchWorkgroups(1);  // act[N..] += res
  pass.setPipeline(add); pass.setBindGroup(0, bgAdd); pass.dispatchWorkgroups(1);          // out = act[N..] + res
  pass.setPipeline(inplace); pass.setBindGroup(0, bgInplace); pass.dispatchWorkgroups(1);  // act[N..] += res again
  pass.end();
  const rb = device.createBuffer({ size: 8 * N + 4 * N + 2048, usage: U.MAP_READ | U.COPY_DST });
  enc.copyBufferToBuffer(act, 0, rb, 0, 8 * N);
  enc.copyBufferToBuffer(out, 0, rb, 8 * N, 4 * N + 2048);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(rb.getMappedRange().slice(0)); rb.unmap();
  return { act: bytes.slice(0, 8 * N), out: bytes.slice(8 * N) };
}

const same = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);

// -> { ok, messages, cases }
export async function captureSelfTest(device, code) {
  const msgs = [];
  const check = (ok, what) => { if (!ok) msgs.push(what); };
  const plain = await program(device, code);
  const cap = createCapture(device, { select: { entryPoint: 'residual_add' }, kernelName: (d) => `elementwise/${d.entryPoint}`,
                                      caseName: () => 'capture_selftest_split_pass' });
  const captured = await program(cap.device, code);
  const cases = await cap.flush();
  check(same(plain.act, captured.act) && same(plain.out, captured.out), 'the program computes different bytes under the capture');
  check(cases.length === 1, `expected 1 captured case, got ${cases.length}`);
  const ops = new Set(cap.log.map(l => l.op));
  for (const op of ['createBuffer', 'mappedWrite', 'writeBuffer', 'createBindGroup', 'createComputePipeline', 'dispatchWorkgroups'])
    check(ops.has(op), `log lacks ${op}`);
  check(cap.log.filter(l => l.op === 'dispatchWorkgroups').length === 3, 'log should hold 3 dispatches');
  if (cases.length === 1) {
    const c = cases[0], j = c.json;
    check(j.kernel === 'elementwise/residual_add' && j.dispatches.length === 1, `kernel/dispatches: ${j.kernel} ${j.dispatches.length}`);
    const b = Object.fromEntries(j.dispatches[0].bindings.map(x => [x.binding, x]));
    check(b[0]?.buffer === 'act' && b[0].offset === 0 && b[0].size === 4 * N, `binding 0 (act range rebased to 0): ${JSON.stringify(b[0])}`);
    check(b[2]?.buffer === 'out' && b[2].offset === 0 && b[2].size === 4 * N, `binding 2 (out at 2048, rebased): ${JSON.stringify(b[2])}`);
    check(JSON.stringify(j.dispatches[0].workgroups) === '[1,1,1]', 'workgroups');
    // inputs: act[N..] after the first inplace dispatch, i.e. plain result minus one more res
    const actIn = new Float32Array(parseNpy(c.files.get('act.npy')).bytes.slice().buffer);
    const outExp = new Float32Array(parseNpy(c.files.get('out.expected.npy')).bytes.slice().buffer);
    const resIn = new Float32Array(parseNpy(c.files.get('res.npy')).bytes.slice().buffer);
    const plainOut = new Float32Array(plain.out.buffer, 2048, N);
    check(outExp.length === N && outExp.every((v, i) => Object.is(v, plainOut[i])), 'expected out = what the program read back');
    check(actIn.every((v, i) => Object.is(Math.fround(v + resIn[i]), outExp[i])), 'captured act is the state just before the selected dispatch');
    check(j.checks.length >= 1 && j.checks.every(k => k.compare === 'exact'), 'default checks are exact');
    check(!j.checks.some(k => k.buffer === 'res' || k.buffer === 'dims') && j.checks.some(k => k.buffer === 'out'), 'default checks cover the written buffers only');
  }
  return { ok: msgs.length === 0, messages: msgs, cases };
}
