// reject: a call of a builtin that does not exist
@compute @workgroup_size(64) fn main() {
  let x = saturatef(1.0);
}
