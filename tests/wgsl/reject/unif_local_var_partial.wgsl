// reject: a partial assignment keeps a vector non-uniform
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var v = vec2u(0u);
  v.x = lid.x;
  if (v.y == 0u) {
    workgroupBarrier();
  }
}
