// reject: the literal 3.5e38f (above f32 max)
@compute @workgroup_size(64) fn main() {
  let x = 3.5e38f;
}
