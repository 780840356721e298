// reject: a shift by an i32 amount
@compute @workgroup_size(64) fn main() {
  let a = 1u;
  let s = 2i;
  let x = a << s;
}
