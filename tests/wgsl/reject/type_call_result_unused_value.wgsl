// reject: a call statement of a builtin whose result must be used
@compute @workgroup_size(64) fn main() {
  max(1u, 2u);
}
