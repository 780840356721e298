// reject: a fragment input with neither @builtin nor @location
@fragment fn main(x : vec4<f32>) -> @location(0) vec4<f32> {
  return x;
}
