// reject: a barrier in a switch case selected by local_invocation_id
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  switch (lid.x) {
    case 0u: {
      workgroupBarrier();
    }
    default: {
    }
  }
}
