// reject: a barrier under && whose left side is non-uniform
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  if (wid.x == 0u && lid.x == 0u) {
    workgroupBarrier();
  }
}
