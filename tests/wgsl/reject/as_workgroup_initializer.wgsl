// reject: a workgroup variable with an initializer
var<workgroup> w: u32 = 0u;
@compute @workgroup_size(64) fn main() {
  w = 1u;
}
