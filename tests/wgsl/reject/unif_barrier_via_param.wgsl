// reject: workgroupBarrier under a branch on a parameter given local_invocation_id
fn sync_if(x: u32) {
  if (x == 0u) {
    workgroupBarrier();
  }
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  sync_if(lid.x);
}
