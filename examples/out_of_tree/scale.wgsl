// The example's kernel: dst = scale * src over n elements.
struct Params { n: u32, scale: f32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < params.n) {
    dst[g.x] = params.scale * src[g.x];
  }
}
