// reject: a runtime-sized array in a function variable
@compute @workgroup_size(64) fn main() {
  var a: array<u32>;
}
