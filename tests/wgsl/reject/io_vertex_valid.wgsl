// accept: a vertex entry point with an invariant position and flat integer outputs
const base = 2u;
struct Out {
  @builtin(position) @invariant pos : vec4<f32>,
  @location(base + 1) @interpolate(flat, either) id : vec2<i32>,
  @location(0) @interpolate(perspective, centroid) c : vec3<f32>,
};
@vertex fn main(@builtin(vertex_index) vi : u32, @location(0) p : vec4<f32>, @location(1) k : i32) -> Out {
  return Out(p, vec2<i32>(i32(vi), k), p.xyz);
}
