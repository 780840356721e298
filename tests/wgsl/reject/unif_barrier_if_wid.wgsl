// accept: workgroupBarrier under a branch on workgroup_id (uniform builtin)
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  if (wid.x == 0u) {
    workgroupBarrier();
  }
}
