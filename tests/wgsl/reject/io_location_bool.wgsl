// reject: @location on a bool
@fragment fn main(@location(0) @interpolate(flat) b : bool) -> @location(0) vec4<f32> {
  return vec4<f32>();
}
