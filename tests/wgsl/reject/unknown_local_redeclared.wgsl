// reject: two locals with the same name in one scope
@compute @workgroup_size(64) fn main() {
  let a = 1;
  let a = 2;
}
