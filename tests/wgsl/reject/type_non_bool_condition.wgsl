// reject: an if condition of type u32
@compute @workgroup_size(64) fn main() {
  if (1u) {
  }
}
