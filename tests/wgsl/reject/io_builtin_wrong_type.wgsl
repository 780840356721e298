// reject: @builtin(front_facing) must be bool
@fragment fn main(@builtin(front_facing) ff : u32) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
