// reject: a function's return value computed from a non-uniform argument decides a barrier
fn twice(v: u32) -> u32 {
  return v * 2u;
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (twice(lid.x) == 0u) {
    workgroupBarrier();
  }
}
