// attention_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own helper beside attention.wgsl
// (shared/seeds/004_dfbf477a7f89ef8c.txt names only attn_dscores_fa2 and attn_dv_fa2 for the FA2
// backward; both need D_i = rowsum(dout * out), which the log does not say where it comes from).
// Written in WGSL so the same ABI check covers its GLSL port.
//
// attn_dsum: dsum[b,h,i] = sum_c dout[b*T + i, h*hd + c] * out[b*T + i, h*hd + c]
// (= sum_j P_ij dP_ij, the softmax backward's row term). One invocation per (b, h, i), on flat_id's
// 2-D grid. Read by attn_dscores (naive) and by attn_dscores_fa2 / attn_dv_fa2, so each dsum is
// computed once instead of once per Q tile and once per K tile.

struct AttnParams {
    batch: u32,
    seq: u32,
    heads: u32,
    head_dim: u32,
    scale: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const WG: u32 = 256u;

fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

@group(0) @binding(0) var<uniform> p_dsum: AttnParams;
@group(0) @binding(1) var<storage, read> out_dsum: array<f32>;
@group(0) @binding(2) var<storage, read> dout_dsum: array<f32>;
@group(0) @binding(3) var<storage, read_write> dsum: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn attn_dsum(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = flat_id(gid, nwg);  // (b*H + h)*T + i
    let T = p_dsum.seq;
    let H = p_dsum.heads;
    let hd = p_dsum.head_dim;
    if (row >= p_dsum.batch * H * T) { return; }
    let i = row % T;
    let h = (row / T) % H;
    let b = row / (T * H);
    let off = (b * T + i) * H * hd + h * hd;
    var acc = 0.0;
    for (var c = 0u; c < hd; c = c + 1u) {
        acc = acc + dout_dsum[off + c] * out_dsum[off + c];
    }
    dsum[row] = acc;
}
