// reject: workgroupBarrier in a for loop whose condition depends on local_invocation_id
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  for (var i = 0u; i < lid.x; i++) {
    workgroupBarrier();
  }
}
