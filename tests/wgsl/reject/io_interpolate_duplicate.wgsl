// reject: @interpolate twice
@fragment fn main(@location(0) @interpolate(flat, either) @interpolate(flat) v : vec4<f32>) -> @location(0) vec4<f32> {
  return v;
}
