// reject: a pointer as a struct member
struct S {
  p: ptr<function, u32>,
}
@compute @workgroup_size(64) fn main() {
}
