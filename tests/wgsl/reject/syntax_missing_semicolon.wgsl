// reject: a missing semicolon
@compute @workgroup_size(64) fn main() {
  let x = 1
}
