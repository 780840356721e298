// reject: an integer vertex output must be @interpolate(flat)
struct Out {
  @builtin(position) pos : vec4<f32>,
  @location(0) @interpolate(linear) i : u32,
};
@vertex fn main() -> Out {
  return Out();
}
