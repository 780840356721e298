// reject: @size(2) on a u32 member
struct S {
  @size(2) x: u32,
}
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  s.x = 1u;
}
