// accept: a barrier in a switch case selected by workgroup_id
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  switch (wid.x) {
    case 0u, 1u: {
      workgroupBarrier();
    }
    default: {
    }
  }
}
