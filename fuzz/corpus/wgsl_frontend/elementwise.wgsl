// Seed: an elementwise kernel on a 2-D grid (flat_id), uniform parameters, select and exp.
struct Params {
  n : u32,
  alpha : f32,
}

@group(0) @binding(0) var<uniform> params : Params;
@group(0) @binding(1) var<storage, read> x : array<f32>;
@group(0) @binding(2) var<storage, read_write> y : array<f32>;

const WG : u32 = 256u;

fn flat_id(gid : vec3<u32>, nwg : vec3<u32>) -> u32 {
  return gid.y * nwg.x * WG + gid.x;
}

fn gelu(v : f32) -> f32 {
  let c = 0.7978845608f;
  return 0.5 * v * (1.0 + tanh(c * (v + 0.044715 * v * v * v)));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>,
        @builtin(num_workgroups) nwg : vec3<u32>) {
  let i = flat_id(gid, nwg);
  if (i >= params.n) {
    return;
  }
  let v = x[i];
  y[i] = select(params.alpha * v, gelu(v), v > 0.0) + exp(-abs(v)) * 0.0;
}
