// reject: an undeclared struct member
struct S { a: u32 }
@compute @workgroup_size(64) fn main() {
  var s: S;
  let x = s.b;
}
