// accept: a uniform value stored through a function pointer decides a barrier
fn store_to(p: ptr<function, u32>, v: u32) {
  *p = v;
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x: u32;
  store_to(&x, 4u);
  if (x == 0u) {
    workgroupBarrier();
  }
}
