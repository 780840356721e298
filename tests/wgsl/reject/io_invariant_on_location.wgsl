// reject: @invariant on user-defined IO
struct Out {
  @location(0) @invariant v : vec4<f32>,
  @builtin(position) pos : vec4<f32>,
};
@vertex fn main() -> Out {
  return Out();
}
