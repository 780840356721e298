// accept: const-expressions of builtins
const a = max(1, 2);
const b = vec3(1.0, 2.0, 3.0) * 2.0;
const c = dot(b, b);
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main() {
  out[0] = f32(a) + c;
}
