// reject: assignment to a let
@compute @workgroup_size(64) fn main() {
  let a = 1u;
  a = 2u;
}
