// reject: a reserved word (static) as a name
@compute @workgroup_size(64) fn main() {
  let static = 1;
}
