// reject: @location must be a const-expression, not an override-expression
override z = 7;
@vertex fn main(@location(z) res : f32) -> @builtin(position) vec4<f32> {
  return vec4<f32>();
}
