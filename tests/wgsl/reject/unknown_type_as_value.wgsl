// reject: a type name used as a value
@compute @workgroup_size(64) fn main() {
  let x = u32;
}
