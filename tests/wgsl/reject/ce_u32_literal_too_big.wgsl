// reject: the literal 4294967296u
@compute @workgroup_size(64) fn main() {
  let x = 4294967296u;
}
