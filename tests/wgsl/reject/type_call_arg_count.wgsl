// reject: a call with too many arguments
fn f(a: u32) {
}
@compute @workgroup_size(64) fn main() {
  f(1u, 2u);
}
