// accept: a struct of uniform builtins only
struct In {
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
}
@compute @workgroup_size(64) fn main(input: In) {
  if (input.wid.x < input.nwg.x) {
    workgroupBarrier();
  }
}
