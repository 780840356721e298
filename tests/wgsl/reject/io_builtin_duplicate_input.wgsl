// reject: @builtin(sample_mask) twice among a fragment shader's inputs
struct S {
  @builtin(sample_mask) a : u32,
};
@fragment fn main(@builtin(sample_mask) m : u32, s : S) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
