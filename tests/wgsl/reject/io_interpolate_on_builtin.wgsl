// reject: @interpolate on a built-in value
@fragment fn main(@builtin(position) @interpolate(flat) p : vec4<f32>) -> @location(0) vec4<f32> {
  return p;
}
