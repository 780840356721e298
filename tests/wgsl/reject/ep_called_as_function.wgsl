// reject: an entry point called from a function
@compute @workgroup_size(64) fn main() {
}
fn other() {
  main();
}
