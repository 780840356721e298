// reject: a struct of builtins is non-uniform as a whole when one member is
struct In {
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
}
@compute @workgroup_size(64) fn main(input: In) {
  if (input.wid.x == 0u) {
    workgroupBarrier();
  }
}
