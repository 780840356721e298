// reject: a function with a barrier called in a loop after a non-uniform return
fn sync() {
  storageBarrier();
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  for (var i = 0u; i < 4u; i++) {
    if (i == lid.x) {
      return;
    }
    sync();
  }
}
