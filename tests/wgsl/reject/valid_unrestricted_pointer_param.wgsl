// accept: a storage pointer parameter (unrestricted_pointer_parameters)
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn put(p: ptr<storage, array<u32>, read_write>, i: u32) {
  p[i] = i;
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  put(&buf, lid.x);
}
