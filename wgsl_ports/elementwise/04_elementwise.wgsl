// 04_elementwise.wgsl: the GPT block's elementwise kernels: GELU forward and backward, residual
// add (out-of-place and in-place), position-embedding add. Reconstructed for wgslvk from
// TinyGPT's engineering log (the GPT-shaped trainer; the log lists these among the
// kernels that train the model but shows no code): the algorithms are ours, pinned in
// wgsl_ports/elementwise/reference.hpp. Plain WGSL (no `enable`).
//
// Every kernel works on vec4<f32>: element counts (and d for pos_embed_add) must be multiples of
// 4 (activations are [rows, d] with d % 4 == 0 in every GPT shape). One vec4 per invocation,
// flat_id over a 2-D grid (R12). dims = (n4, d4, T, 0): n4 the number of vec4s; d4 and T only
// for pos_embed_add.
//
// GELU, the tanh approximation GPT-2 uses:
//   gelu(x) = 0.5 x (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3).
// Computed through the identity 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)), i.e.
//   gelu(x) = x / (1 + exp(-2u)),
// never through WGSL's tanh: WGSL only promises tanh "inherited from sinh(x)/cosh(x)", which
// some implementations evaluate as a ratio of exponentials that overflows to inf/inf = NaN for
// |x| beyond ~89; and the tanh form also loses all relative accuracy for u << 0, where
// 1 + tanh(u) cancels. The exp argument is clamped to <= 80 so the divisor stays inside the range
// where WGSL's division is accurate (|y| <= 2^126); exp(80) makes gelu(x) = x * 1.8e-35 instead
// of ~0, far below a ULP of x. Non-finite inputs: NaN -> NaN, +inf -> +inf, -inf -> -inf.
// gelu_backward: dx = dy * gelu'(x), gelu'(x) = s + x * s (1 - s) * 2 sqrt(2/pi) (1 + 3*0.044715 x^2)
// with s = sigmoid(2u), evaluated from e = exp(-2|u|) <= 1 (s(1-s) = e / (1 + e)^2, no
// cancellation, no overflow); for |u| > 40 gelu' is 1 (u > 0) or 0 (u < 0) exactly (the true
// value differs by less than exp(-80) |x|^3).

const WG: u32 = 256u;

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

const GELU_K: f32 = 0.7978845608028654;  // sqrt(2 / pi)
const GELU_C: f32 = 0.044715;

fn gelu_value(x: vec4<f32>) -> vec4<f32> {
    let u = GELU_K * (x + GELU_C * x * x * x);
    let e = exp(min(-2.0 * u, vec4<f32>(80.0)));
    return x / (1.0 + e);
}

fn gelu_grad(x: vec4<f32>) -> vec4<f32> {
    let u = GELU_K * (x + GELU_C * x * x * x);
    let a = abs(u);
    let e = exp(-2.0 * min(a, vec4<f32>(40.0)));  // in [exp(-80), 1]
    let r = 1.0 / (1.0 + e);
    let s = select(e * r, r, u >= vec4<f32>(0.0));  // sigmoid(2u)
    let q = e * r * r;                               // s (1 - s)
    let du = 2.0 * GELU_K * (1.0 + 3.0 * GELU_C * x * x);
    let g = s + x * du * q;
    let far = select(vec4<f32>(0.0), vec4<f32>(1.0), u > vec4<f32>(0.0));
    return select(g, far, a > vec4<f32>(40.0));
}

// ---- gelu_forward ------------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> gf_x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> gf_y: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> gf_dims: vec4<u32>;  // (n4, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn gelu_forward(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= gf_dims.x) { return; }
    gf_y[i] = gelu_value(gf_x[i]);
}

// ---- gelu_backward -----------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> gb_x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gb_dy: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> gb_dx: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> gb_dims: vec4<u32>;  // (n4, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn gelu_backward(@builtin(global_invocation_id) gid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= gb_dims.x) { return; }
    gb_dx[i] = gb_dy[i] * gelu_grad(gb_x[i]);
}

// ---- residual_add: out = a + b -----------------------------------------------------------------

@group(0) @binding(0) var<storage, read> ra_a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> ra_b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> ra_out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> ra_dims: vec4<u32>;  // (n4, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn residual_add(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= ra_dims.x) { return; }
    ra_out[i] = ra_a[i] + ra_b[i];
}

// ---- residual_add_inplace: a += b --------------------------------------------------------------

@group(0) @binding(0) var<storage, read_write> ri_a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> ri_b: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> ri_dims: vec4<u32>;  // (n4, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn residual_add_inplace(@builtin(global_invocation_id) gid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= ri_dims.x) { return; }
    ri_a[i] = ri_a[i] + ri_b[i];
}

// ---- pos_embed_add: x[b, t, :] += pos[t, :] ----------------------------------------------------

@group(0) @binding(0) var<storage, read_write> pe_x: array<vec4<f32>>;  // [B*T, d]
@group(0) @binding(1) var<storage, read> pe_pos: array<vec4<f32>>;      // [T, d] (at least)
@group(0) @binding(2) var<uniform> pe_dims: vec4<u32>;  // (n4 = B*T*d/4, d4, T, _)

@compute @workgroup_size(256, 1, 1)
fn pos_embed_add(@builtin(global_invocation_id) gid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= pe_dims.x) { return; }
    let d4 = pe_dims.y;
    let row = i / d4;
    let t = row % pe_dims.z;
    pe_x[i] = pe_x[i] + pe_pos[t * d4 + i % d4];
}
