// reject: a runtime-sized array in a uniform buffer
@group(0) @binding(0) var<uniform> u: array<vec4u>;
@compute @workgroup_size(64) fn main() {
  _ = u[0];
}
