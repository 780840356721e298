// reject: a function with a return type whose end is reachable
fn f(x: u32) -> u32 {
  if (x > 0u) {
    return 1u;
  }
}
@compute @workgroup_size(64) fn main() {
  _ = f(1u);
}
