// reject: var<private> inside a function
@compute @workgroup_size(64) fn main() {
  var<private> x: u32;
}
