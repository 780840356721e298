// reject: a function named set (a reserved word)
fn set(x: u32) -> u32 {
  return x;
}
@compute @workgroup_size(64) fn main() {
  _ = set(1u);
}
