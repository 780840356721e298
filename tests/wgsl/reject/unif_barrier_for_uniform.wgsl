// accept: workgroupBarrier in a for loop with a constant trip count
@compute @workgroup_size(64) fn main() {
  for (var i = 0u; i < 4u; i++) {
    workgroupBarrier();
  }
}
