// reject: @location's value must be an integer
@vertex fn main(@location(1.0) res : f32) -> @builtin(position) vec4<f32> {
  return vec4<f32>();
}
