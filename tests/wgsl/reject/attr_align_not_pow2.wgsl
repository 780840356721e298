// reject: @align(3) on a struct member
struct S {
  @align(3) x: u32,
}
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  s.x = 1u;
}
