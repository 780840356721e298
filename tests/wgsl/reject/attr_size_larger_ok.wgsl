// accept: @size(16) on a u32 member
struct S {
  @size(16) x: u32,
  y: u32,
}
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  s.y = s.x;
}
