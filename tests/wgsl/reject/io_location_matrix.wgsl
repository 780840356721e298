// reject: @location on a matrix
@fragment fn main(@location(0) m : mat2x2<f32>) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
