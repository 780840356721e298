// reject: an integer fragment input must be @interpolate(flat)
@fragment fn main(@location(0) i : vec2<i32>) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
