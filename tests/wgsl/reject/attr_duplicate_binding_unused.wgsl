// accept: two variables at the same group and binding, one unused
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(0) var<storage, read_write> b: array<u32>;
@compute @workgroup_size(64) fn main() {
  a[0] = 1u;
}
