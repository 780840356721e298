// reject: @location and @builtin on the same input
@fragment fn main(@location(0) @builtin(position) p : vec4<f32>) -> @location(0) vec4<f32> {
  return p;
}
