// reject: the address of a let
@compute @workgroup_size(64) fn main() {
  let a = 1u;
  let p = &a;
}
