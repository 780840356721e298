// reject: a read through a let pointer to workgroup memory decides a barrier
var<workgroup> w: array<u32, 4>;
@compute @workgroup_size(64) fn main() {
  let p = &w[1];
  if (*p == 0u) {
    workgroupBarrier();
  }
}
