// accept: a workgroup variable used by a helper function
var<workgroup> tile: array<f32, 64>;
fn load(i: u32) -> f32 {
  return tile[i];
}
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  tile[lid.x] = f32(lid.x);
  workgroupBarrier();
  out[lid.x] = load(63u - lid.x);
}
