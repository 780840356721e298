// reject: a runtime-sized array that is not the last struct member
struct S {
  a: array<u32>,
  b: u32,
}
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  s.b = 1u;
}
