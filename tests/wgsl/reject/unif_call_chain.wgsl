// reject: a non-uniform argument passed down two functions to a barrier
fn inner(x: u32) {
  if (x > 3u) {
    workgroupBarrier();
  }
}
fn outer(y: u32) {
  inner(y + 1u);
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  outer(lid.y);
}
