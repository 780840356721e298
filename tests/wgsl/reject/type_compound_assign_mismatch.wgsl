// reject: u32 += f32
@compute @workgroup_size(64) fn main() {
  var x = 1u;
  x += 1.5f;
}
