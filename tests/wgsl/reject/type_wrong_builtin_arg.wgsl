// reject: countOneBits of an f32
@compute @workgroup_size(64) fn main() {
  let x = countOneBits(1.5f);
}
