// reject: a negative @location
struct Out {
  @builtin(position) pos : vec4<f32>,
  @location(-1) v : f32,
};
@vertex fn main() -> Out {
  return Out();
}
