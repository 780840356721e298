// accept: workgroupUniformLoad makes a workgroup value uniform for a barrier
var<workgroup> flag: u32;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    flag = 1u;
  }
  let f = workgroupUniformLoad(&flag);
  if (f == 1u) {
    workgroupBarrier();
  }
}
