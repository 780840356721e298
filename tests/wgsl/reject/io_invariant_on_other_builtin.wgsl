// reject: @invariant on a built-in other than position
@fragment fn main(@builtin(sample_index) @invariant s : u32) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
