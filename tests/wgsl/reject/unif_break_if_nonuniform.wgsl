// reject: a barrier in a loop left by a non-uniform break if
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = 0u;
  loop {
    workgroupBarrier();
    continuing {
      i = i + 1u;
      break if i > lid.x;
    }
  }
}
