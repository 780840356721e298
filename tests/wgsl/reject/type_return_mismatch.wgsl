// reject: returning a float from a u32 function
fn f() -> u32 {
  return 1.5;
}
@compute @workgroup_size(64) fn main() {
  _ = f();
}
