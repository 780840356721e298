// accept: integer vertex inputs need no interpolation
@vertex fn main(@location(0) i : vec4<u32>) -> @builtin(position) vec4<f32> {
  return vec4<f32>(vec4<u32>(i));
}
