// reject: a module-scope var without an address space
var x: u32;
@compute @workgroup_size(64) fn main() {
  x = 1u;
}
