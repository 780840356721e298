// accept: workgroupBarrier under a branch on a parameter given workgroup_id
fn sync_if(x: u32) {
  if (x == 0u) {
    workgroupBarrier();
  }
}
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  sync_if(wid.x);
}
