// reject: a const array indexed by a constant out of range
const a = array(1, 2, 3);
@compute @workgroup_size(64) fn main() {
  let x = a[3];
}
