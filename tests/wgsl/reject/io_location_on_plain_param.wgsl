// reject: @location on a parameter of a function that is not an entry point
fn f(@location(0) x : f32) -> f32 {
  return x;
}
@compute @workgroup_size(1) fn main() {
  _ = f(1.0);
}
