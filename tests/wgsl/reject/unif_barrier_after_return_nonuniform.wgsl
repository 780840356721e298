// reject: workgroupBarrier after an early return taken by some invocations
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    return;
  }
  workgroupBarrier();
}
