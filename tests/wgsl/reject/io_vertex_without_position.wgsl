// reject: a vertex entry point must return @builtin(position)
@vertex fn main() -> @location(0) vec4<f32> {
  return vec4<f32>();
}
