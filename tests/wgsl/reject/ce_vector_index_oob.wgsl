// reject: a vector indexed by a constant out of range
@compute @workgroup_size(64) fn main() {
  let v = vec2f(1.0, 2.0);
  let x = v[2];
}
