// reject: a compute entry point with a return value
@compute @workgroup_size(1) fn main() -> u32 {
  return 1u;
}
