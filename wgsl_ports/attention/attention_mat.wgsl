// wgslvk's own WGSL (not from the seeds): the elementwise passes of attention with the score matrix
// materialized and its products on tensor cores (sgmm_f16_batched; the mixed-precision trainer,
// apps/gpt/README.md "Mixed precision"). S = Q K^T (raw dot products) and dP = dO V^T come from
// the products; these kernels do the f32 math between them:
//   attn_softmax_mat:  S -> P = causal softmax(scale * S) in place, 0.0 above the diagonal.
//   attn_dscores_mat:  dP -> dS = scale * P * (dP - dsum) in place, 0.0 above the diagonal
//                      (dsum = rowsum(dO * O), attn_dsum's), so dQ = dS K and dK = dS^T Q.
// The matrices are [batch * heads][seq][seq] f32 (attn_scores' layout), one AttnParams uniform as
// attention.wgsl's. Ports: attn_softmax_mat.comp, attn_dscores_mat.comp.

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

@group(0) @binding(0) var<uniform> p_smat: AttnParams;
@group(0) @binding(1) var<storage, read_write> att_smat: array<f32>;

var<workgroup> red_smat: array<f32, 256>;

// Row (b,h,i) of S, one workgroup of 256 per row (workgroup (x, y) of a 2-D grid is row
// y * num_workgroups.x + x): the max of scale * S over j <= i, then e = exp(scale * S - max) and
// their sum (tree reductions in workgroup memory), then P = e / sum for j <= i and 0.0 above.
@compute @workgroup_size(256, 1, 1)
fn attn_softmax_mat(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let row = wid.y * nwg.x + wid.x;
    let T = p_smat.seq;
    if (row >= p_smat.batch * p_smat.heads * T) { return; }
    let i = row % T;
    let base = row * T;
    let scale = p_smat.scale;
    var m = -3.4028234663852886e38;  // -FLT_MAX exactly: a literal above it is a shader-creation error
    for (var j = lid; j <= i; j = j + WG) {
        m = max(m, scale * att_smat[base + j]);
    }
    red_smat[lid] = m;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            red_smat[lid] = max(red_smat[lid], red_smat[lid + s]);
        }
        workgroupBarrier();
    }
    m = red_smat[0];
    workgroupBarrier();
    var l = 0.0;
    for (var j = lid; j <= i; j = j + WG) {
        let e = exp(scale * att_smat[base + j] - m);
        att_smat[base + j] = e;
        l = l + e;
    }
    red_smat[lid] = l;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            red_smat[lid] = red_smat[lid] + red_smat[lid + s];
        }
        workgroupBarrier();
    }
    l = red_smat[0];
    for (var j = lid; j < T; j = j + WG) {
        var v = 0.0;
        if (j <= i) {
            v = att_smat[base + j] / l;
        }
        att_smat[base + j] = v;
    }
}

@group(0) @binding(0) var<uniform> p_dsmat: AttnParams;
@group(0) @binding(1) var<storage, read> att_dsmat: array<f32>;
@group(0) @binding(2) var<storage, read> dsum_dsmat: array<f32>;
@group(0) @binding(3) var<storage, read_write> ds_dsmat: array<f32>;

// Element (b,h,i,j), one invocation each: dP (the product dO V^T) in, dS out.
@compute @workgroup_size(256, 1, 1)
fn attn_dscores_mat(@builtin(global_invocation_id) gid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let idx = flat_id(gid, nwg);
    let T = p_dsmat.seq;
    if (idx >= p_dsmat.batch * p_dsmat.heads * T * T) { return; }
    let row = idx / T;
    let i = row % T;
    let j = idx % T;
    var v = 0.0;
    if (j <= i) {
        v = p_dsmat.scale * (att_dsmat[idx] * (ds_dsmat[idx] - dsum_dsmat[row]));
    }
    ds_dsmat[idx] = v;
}
