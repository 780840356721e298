// reject: workgroupBarrier under a branch on local_invocation_id
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    workgroupBarrier();
  }
}
