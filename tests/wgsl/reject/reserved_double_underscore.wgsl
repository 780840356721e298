// reject: a name starting with two underscores
@compute @workgroup_size(64) fn main() {
  let __x = 1;
}
