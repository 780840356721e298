// accept: a barrier after a loop left by non-uniform breaks (uniform again after the loop)
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = 0u;
  for (; i < 64u; i++) {
    if (lid.x == i) {
      break;
    }
  }
  workgroupBarrier();
  out[lid.x] = i;
}
