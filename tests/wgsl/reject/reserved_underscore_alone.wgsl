// reject: _ as a let name
@compute @workgroup_size(64) fn main() {
  let _ = 1;
}
