// accept: a function's return value computed from a uniform argument decides a barrier
fn twice(v: u32) -> u32 {
  return v * 2u;
}
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  if (twice(wid.x) == 0u) {
    workgroupBarrier();
  }
}
