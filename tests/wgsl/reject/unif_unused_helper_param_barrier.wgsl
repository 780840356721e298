// accept: an unused function with a barrier under a parameter-dependent branch
fn maybe_sync(x: u32) {
  if (x == 0u) {
    workgroupBarrier();
  }
}
@compute @workgroup_size(64) fn main() {
}
