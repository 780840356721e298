// reject: a loop with no exit (empty behavior)
fn spin() {
  loop {
  }
}
@compute @workgroup_size(64) fn main() {
  spin();
}
