// reject: true + 1
@compute @workgroup_size(64) fn main() {
  let x = true + 1;
}
