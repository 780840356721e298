// reject: an array indexed by a float
@compute @workgroup_size(64) fn main() {
  var a: array<u32, 4>;
  let x = a[1.0];
}
