// accept: a barrier in the else of a uniform if
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  if (wid.x == 0u) {
  } else {
    workgroupBarrier();
  }
}
