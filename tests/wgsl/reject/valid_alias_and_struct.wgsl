// accept: type aliases of vectors and structs
alias V = vec4<f32>;
struct Pair { a: V, b: V }
alias P = Pair;
@group(0) @binding(0) var<storage, read_write> out: array<P>;
@compute @workgroup_size(64) fn main() {
  out[0] = P(V(1.0), V(2.0));
}
