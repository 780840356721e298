// accept: array<u32, 4> in a uniform buffer (legal with uniform_buffer_standard_layout)
@group(0) @binding(0) var<uniform> u: array<vec4u, 1>;
@group(0) @binding(1) var<uniform> v: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  out[0] = v[1] + u[0].x;
}
