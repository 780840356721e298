// reject: a plain read of workgroup memory decides a barrier
var<workgroup> flag: u32;
@compute @workgroup_size(64) fn main() {
  if (flag == 1u) {
    workgroupBarrier();
  }
}
