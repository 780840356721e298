// reject: two variables at the same group and binding used by one entry point
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(0) var<storage, read_write> b: array<u32>;
@compute @workgroup_size(64) fn main() {
  a[0] = b[0];
}
