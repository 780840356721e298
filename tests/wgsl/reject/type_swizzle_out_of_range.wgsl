// reject: swizzle .z of a vec2
@compute @workgroup_size(64) fn main() {
  let v = vec2f(1.0, 2.0);
  let z = v.z;
}
