// accept: a private pointer passed to a function
var<private> counter: u32;
fn bump(p: ptr<private, u32>) {
  *p += 1u;
}
@compute @workgroup_size(64) fn main() {
  bump(&counter);
}
