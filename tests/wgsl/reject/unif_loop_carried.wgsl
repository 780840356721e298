// reject: a variable made non-uniform at the end of one iteration decides the next iteration's barrier
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x = 0u;
  loop {
    if (x > 4u) {
      break;
    }
    workgroupBarrier();
    x = lid.x;
  }
}
