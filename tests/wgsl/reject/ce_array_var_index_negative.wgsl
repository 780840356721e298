// reject: a fixed-size array variable indexed by the constant -1
@compute @workgroup_size(64) fn main() {
  var a: array<u32, 4>;
  let x = a[-1];
}
