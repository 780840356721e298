// reject: a call of an undeclared function
@compute @workgroup_size(64) fn main() {
  foo();
}
