// reject: a function containing a barrier called from non-uniform control flow
fn sync() {
  workgroupBarrier();
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    sync();
  }
}
