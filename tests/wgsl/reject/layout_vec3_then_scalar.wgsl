// accept: vec3f followed by an f32 in a storage struct
struct S {
  v: vec3f,
  w: f32,
}
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(64) fn main() {
  s.w = s.v.x;
}
