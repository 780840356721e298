// reject: increment of an f32 variable
@compute @workgroup_size(64) fn main() {
  var f = 1.0;
  f++;
}
