// accept: workgroupBarrier after an early return on a uniform condition
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  if (wid.x == 0u) {
    return;
  }
  workgroupBarrier();
}
