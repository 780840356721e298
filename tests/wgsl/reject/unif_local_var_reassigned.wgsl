// accept: a local variable first non-uniform, then reassigned a constant, decides a barrier
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x = lid.x;
  x = 0u;
  if (x == 0u) {
    workgroupBarrier();
  }
}
