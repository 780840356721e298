// accept: matrix times vector and transpose
@group(0) @binding(0) var<storage, read_write> out: array<vec3f>;
@compute @workgroup_size(64) fn main() {
  let m = mat3x3f(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
  out[0] = transpose(m) * vec3f(1.0, 2.0, 3.0);
}
