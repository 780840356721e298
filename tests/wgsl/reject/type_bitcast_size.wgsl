// reject: bitcast between types of different sizes
@compute @workgroup_size(64) fn main() {
  let x = bitcast<u32>(vec2f(1.0));
}
