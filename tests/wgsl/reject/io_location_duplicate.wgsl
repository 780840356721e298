// reject: @location(1) twice among a fragment shader's inputs
struct S {
  @location(1) b : f32,
};
@fragment fn main(@location(1) a : f32, s : S) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
