// accept: a function using a const and a struct declared after it
fn make_s() -> S {
  return S(K);
}
struct S { v: u32 }
const K = 7u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  out[0] = make_s().v;
}
