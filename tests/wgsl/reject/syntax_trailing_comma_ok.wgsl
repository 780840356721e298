// accept: trailing commas in parameters, arguments and struct members
struct S {
  a: u32,
  b: u32,
}
fn add(x: u32, y: u32,) -> u32 {
  return x + y;
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let s = S(1u, 2u,);
  out[0] = add(s.a, s.b,);
}
