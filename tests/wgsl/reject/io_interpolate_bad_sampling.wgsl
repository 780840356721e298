// reject: flat interpolation takes first or either, not center
@fragment fn main(@location(0) @interpolate(flat, center) v : f32) -> @location(0) vec4<f32> {
  return vec4<f32>(v);
}
