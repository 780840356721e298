// reject: a barrier after a continue taken by some invocations
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  for (var i = 0u; i < 4u; i++) {
    if (lid.x == i) {
      continue;
    }
    workgroupBarrier();
  }
}
