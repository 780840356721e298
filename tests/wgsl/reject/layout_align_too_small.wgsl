// reject: @align(2) on a u32 member of a storage struct
struct S {
  a: u32,
  @align(2) b: u32,
}
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  s.a = s.b;
}
