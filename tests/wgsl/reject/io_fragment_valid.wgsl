// accept: a fragment entry point with built-in and user-defined IO, integers flat
struct In {
  @builtin(position) pos : vec4<f32>,
  @location(0) uv : vec2<f32>,
  @location(1) @interpolate(flat) id : u32,
  @location(2) @interpolate(linear, sample) w : f32,
};
@fragment fn main(in : In, @builtin(front_facing) ff : bool) -> @location(0) vec4<f32> {
  return vec4<f32>(in.uv, in.w, select(0.0, 1.0, ff));
}
