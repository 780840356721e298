// accept: indexing and member access through pointers
struct S { v: vec4f, a: array<f32, 4> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  let p = &s;
  p.a[1] = p.v.x;
}
