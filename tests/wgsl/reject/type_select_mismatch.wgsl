// reject: select with u32 and i32 operands
@compute @workgroup_size(64) fn main() {
  let a = 1u;
  let b = 2i;
  let c = select(a, b, true);
}
