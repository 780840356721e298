// reject: @builtin(frag_depth) is a fragment output, not a vertex output
struct Out {
  @builtin(position) pos : vec4<f32>,
  @builtin(frag_depth) depth : f32,
};
@vertex fn main() -> Out {
  return Out();
}
