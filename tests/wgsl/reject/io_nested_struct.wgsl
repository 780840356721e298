// reject: a structure nested in an entry point's IO structure
struct Inner {
  @location(0) value : f32,
};
struct Outer {
  inner : Inner,
};
@fragment fn main(o : Outer) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
