// reject: an IO attribute on the return type of a function that is not an entry point
fn f() -> @builtin(position) vec4<f32> {
  return vec4<f32>();
}
@compute @workgroup_size(1) fn main() {
  _ = f();
}
