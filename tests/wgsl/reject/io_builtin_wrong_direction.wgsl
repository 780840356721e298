// reject: @builtin(vertex_index) is an input, not an output
struct Out {
  @builtin(position) pos : vec4<f32>,
  @builtin(vertex_index) vi : u32,
};
@vertex fn main() -> Out {
  return Out();
}
