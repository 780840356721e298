// accept: bitcast and vector select
@group(0) @binding(0) var<storage, read_write> out: array<vec2u>;
@compute @workgroup_size(64) fn main() {
  let f = vec2f(1.0, -2.0);
  out[0] = select(vec2u(0u), bitcast<vec2u>(f), f > vec2f(0.0));
}
