// reject: a recursive function
fn f(x: u32) -> u32 {
  if (x == 0u) {
    return 0u;
  }
  return f(x - 1u);
}
@compute @workgroup_size(64) fn main() {
  _ = f(3u);
}
