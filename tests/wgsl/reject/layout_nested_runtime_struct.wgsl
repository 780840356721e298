// reject: a struct ending in a runtime array used as an array element
struct R {
  n: u32,
  data: array<u32>,
}
@group(0) @binding(0) var<storage, read_write> s: array<R, 2>;
@compute @workgroup_size(64) fn main() {
}
