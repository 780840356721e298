// reject: an unclosed brace
@compute @workgroup_size(64) fn main() {
  if (true) {
}
