// reject: mat3x2f * vec2f (needs a vec3)
@compute @workgroup_size(64) fn main() {
  let m = mat3x2f();
  let v = m * vec2f(1.0);
}
