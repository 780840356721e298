// reject: an undeclared identifier
@compute @workgroup_size(64) fn main() {
  let x = y;
}
