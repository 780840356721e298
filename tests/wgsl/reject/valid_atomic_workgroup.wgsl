// accept: workgroup atomics with a barrier
var<workgroup> count: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  atomicAdd(&count, 1u);
  workgroupBarrier();
  if (lid.x == 0u) {
    out[0] = atomicLoad(&count);
  }
}
