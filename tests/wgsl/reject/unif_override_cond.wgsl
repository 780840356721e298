// accept: an override decides a barrier
override N: u32 = 4u;
@compute @workgroup_size(64) fn main() {
  if (N > 2u) {
    workgroupBarrier();
  }
}
