// reject: vec3f + vec2f
@compute @workgroup_size(64) fn main() {
  let v = vec3f(1.0) + vec2f(1.0);
}
