// reject: an if condition of type vec2<bool>
@compute @workgroup_size(64) fn main() {
  if (vec2u(1u) == vec2u(1u)) {
  }
}
