// reject: u32 + i32
@compute @workgroup_size(64) fn main() {
  let a: u32 = 1u + 1i;
}
