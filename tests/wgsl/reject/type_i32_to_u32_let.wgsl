// reject: an i32 value given to a u32 let (no implicit conversion)
@compute @workgroup_size(64) fn main() {
  let a = 1i;
  let b: u32 = a;
}
