// accept: two compute entry points sharing a helper
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn put(i: u32, v: u32) {
  out[i] = v;
}
@compute @workgroup_size(64) fn first(@builtin(local_invocation_id) lid: vec3u) {
  put(lid.x, 1u);
}
@compute @workgroup_size(32) fn second(@builtin(local_invocation_id) lid: vec3u) {
  put(lid.x, 2u);
}
