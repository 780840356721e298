// reject: workgroupBarrier in a loop that some invocations leave early
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = 0u;
  loop {
    if (lid.x < i) {
      break;
    }
    workgroupBarrier();
    i = i + 1u;
  }
}
