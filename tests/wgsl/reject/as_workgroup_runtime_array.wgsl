// reject: a runtime-sized array in workgroup memory
var<workgroup> w: array<u32>;
@compute @workgroup_size(64) fn main() {
  w[0] = 1u;
}
