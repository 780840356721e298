// reject: f16 without enable f16
@compute @workgroup_size(64) fn main() {
  var x: f16;
}
