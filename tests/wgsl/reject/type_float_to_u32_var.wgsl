// reject: a float literal initializing a u32 variable
@compute @workgroup_size(64) fn main() {
  var x: u32 = 1.5;
}
