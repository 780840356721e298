// accept: a barrier after a non-uniform if that falls through
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x = 0u;
  if (lid.x == 0u) {
    x = 1u;
  }
  workgroupBarrier();
  out[lid.x] = x;
}
