// reject: an undeclared type name
@compute @workgroup_size(64) fn main() {
  var x: float;
}
