// accept: num_workgroups is uniform
@compute @workgroup_size(64) fn main(@builtin(num_workgroups) nwg: vec3u) {
  if (nwg.x > 1u) {
    workgroupBarrier();
  }
}
