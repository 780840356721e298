// reject: a local used before its declaration
@compute @workgroup_size(64) fn main() {
  let a = b;
  let b = 1;
}
