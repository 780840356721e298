// accept: the same @location once as input and once as output
@fragment fn main(@location(0) a : vec4<f32>) -> @location(0) vec4<f32> {
  return a;
}
