// reject: the abstract int -1 converted to u32
@compute @workgroup_size(64) fn main() {
  let x: u32 = -1;
}
