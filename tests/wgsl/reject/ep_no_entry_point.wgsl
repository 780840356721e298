// accept: a module with no entry point
fn helper(x: u32) -> u32 {
  return x + 1u;
}
