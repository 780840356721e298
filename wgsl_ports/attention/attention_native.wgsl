// attention_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own helper beside attention.wgsl
// (TinyGPT's engineering log names only attn_dscores_fa2 and attn_dv_fa2 for the FA2
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

// ---- attn_fwd_fa2_wide: the FA2 forward with 8 invocations per Q row ---------------------------
// NOT FROM THE LOG: wgslvk's own variant of attention.wgsl's attn_fwd_fa2, with the same ABI
// (bindings 0-3, the same dispatch (ceil(T/16), H, B), the same outputs out and
// lse = m + log(l)) so a host can switch between them. The ported kernel runs one invocation per
// Q row (16 per workgroup): too few invocations, each a long serial chain, to fill a GPU (README
// "Measured"). Here each Q row has 8 invocations (workgroup 128 = 16 rows x 8): invocation
// (r = lid / 8, g = lid % 8) owns the interleaved head columns c = g + 8t (t < 16) of q and of
// the output accumulator o, in private memory (16 + 16 floats at MAX_HD = 128).
// Per K block of 16 keys (the same blocks as attn_fwd_fa2, so the same online-softmax rescales):
//   1. load the K block into kv_w [16][hd];                                       barrier
//   2. partial dots: part_w[jj][r][g] = sum_t q[g + 8t] k[jj][g + 8t];            barrier
//   3. load the V block into kv_w (the same memory: K and V of 16 x 128 f32 would take all of
//      WebGPU's 16 KB); each invocation sums its row's 8 partials per key in the fixed order
//      g' = 0..7 (all 8 invocations of a row compute bit-identical scores, hence identical m, l,
//      p: no broadcast needed);                                                   barrier
//   4. the online-softmax step of attn_fwd_fa2 (block max over keys j <= i, alpha, p, l) and
//      o[t] = o[t] alpha + sum_jj p_jj v[jj][g + 8t].
// Workgroup memory: kv_w 2048 + part_w 2048 f32 = 16 KB. Each score is an hd-term dot in another
// order (8 partial sums of hd/8 terms, then their sum): the same (hd + 1)u S bound. Rows past T
// compute row T - 1 and store nothing; lse is written by g = 0. head_dim > 128 writes nothing.

@group(0) @binding(0) var<uniform> p_fwdw: AttnParams;
@group(0) @binding(1) var<storage, read> qkv_fwdw: array<f32>;
@group(0) @binding(2) var<storage, read_write> out_fwdw: array<f32>;
@group(0) @binding(3) var<storage, read_write> lse_fwdw: array<f32>;

const W_TILE: u32 = 16u;   // Q rows per workgroup = keys per block (as attn_fwd_fa2)
const W_SPLIT: u32 = 8u;   // invocations per Q row
const W_MAX_HD: u32 = 128u;
const W_COLS: u32 = 16u;   // W_MAX_HD / W_SPLIT: columns owned per invocation

var<workgroup> kv_w: array<f32, 2048>;    // W_TILE * W_MAX_HD: the K block, then the V block
var<workgroup> part_w: array<f32, 2048>;  // [W_TILE keys][W_TILE rows][W_SPLIT] partial dots

@compute @workgroup_size(128, 1, 1)
fn attn_fwd_fa2_wide(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(local_invocation_id) lid: vec3<u32>) {
    let T = p_fwdw.seq;
    let H = p_fwdw.heads;
    let hd = p_fwdw.head_dim;
    if (hd > W_MAX_HD) { return; }  // uniform: the whole workgroup leaves
    let d = H * hd;
    let qt = wid.x;
    let h = wid.y;
    let b = wid.z;
    let r = lid.x / W_SPLIT;
    let g = lid.x % W_SPLIT;
    let i = qt * W_TILE + r;
    let ic = min(i, T - 1u);  // rows past T compute row T - 1 and store nothing
    let q_off = (b * T + ic) * 3u * d + h * hd;
    let scale = p_fwdw.scale;

    var q: array<f32, W_COLS>;  // q[t] = q_i[g + 8t] (0 past hd)
    var o: array<f32, W_COLS>;  // zero-initialized
    var s: array<f32, W_TILE>;
    for (var t = 0u; t < W_COLS; t = t + 1u) {
        let c = g + W_SPLIT * t;
        if (c < hd) { q[t] = qkv_fwdw[q_off + c]; }
    }
    var m = 0.0;
    var l = 0.0;
    for (var kb = 0u; kb <= qt; kb = kb + 1u) {
        let j0 = kb * W_TILE;
        // 1. K block (0.0 past T). The barrier before: the previous block's V reads are done.
        workgroupBarrier();
        for (var e = lid.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            let jj = e / hd;
            var kx = 0.0;
            if (j0 + jj < T) {
                kx = qkv_fwdw[(b * T + j0 + jj) * 3u * d + d + h * hd + e % hd];
            }
            kv_w[e] = kx;
        }
        workgroupBarrier();
        // 2. Partial dots over this invocation's columns.
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var acc = 0.0;
            for (var t = 0u; t < W_COLS; t = t + 1u) {
                let c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + q[t] * kv_w[jj * hd + c]; }
            }
            part_w[(jj * W_TILE + r) * W_SPLIT + g] = acc;
        }
        workgroupBarrier();
        // 3. V block into the same memory; the row's scores from the 8 partials.
        for (var e = lid.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            let jj = e / hd;
            var vx = 0.0;
            if (j0 + jj < T) {
                vx = qkv_fwdw[(b * T + j0 + jj) * 3u * d + 2u * d + h * hd + e % hd];
            }
            kv_w[e] = vx;
        }
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var acc = 0.0;
            for (var gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_w[(jj * W_TILE + r) * W_SPLIT + gg];
            }
            s[jj] = acc * scale;
        }
        workgroupBarrier();
        // 4. Online softmax (attn_fwd_fa2's step) and the O update on this invocation's columns.
        // Key j0 <= ic always (tile qt holds ic): the block max starts from a real score.
        var bmax = s[0];
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            if (j0 + jj <= ic) { bmax = max(bmax, s[jj]); }
        }
        let first = kb == 0u;
        let m_new = select(max(m, bmax), bmax, first);
        let alpha = exp(select(m - m_new, 0.0, first));  // first block: o and l are 0 anyway
        var psum = 0.0;
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var pj = 0.0;
            if (j0 + jj <= ic) { pj = exp(s[jj] - m_new); }  // causal mask: exp never sees j > i
            s[jj] = pj;
            psum = psum + pj;
        }
        l = l * alpha + psum;
        for (var t = 0u; t < W_COLS; t = t + 1u) {
            let c = g + W_SPLIT * t;
            if (c < hd) {
                var acc = o[t] * alpha;
                for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
                    acc = acc + s[jj] * kv_w[jj * hd + c];
                }
                o[t] = acc;
            }
        }
        m = m_new;
    }
    if (i < T) {
        let o_off = (b * T + i) * d + h * hd;
        for (var t = 0u; t < W_COLS; t = t + 1u) {
            let c = g + W_SPLIT * t;
            if (c < hd) { out_fwdw[o_off + c] = o[t] / l; }
        }
        if (g == 0u) { lse_fwdw[(b * H + h) * T + i] = m + log(l); }
    }
}

// ---- attn_dscores_fa2_wide, attn_dv_fa2_wide: the FA2 backward with 8 invocations per row ------
// NOT FROM THE LOG: wgslvk's own variants of attention.wgsl's attn_dscores_fa2 (dq) and
// attn_dv_fa2 (dk, dv), with their ABI (bindings 0-5, dispatch (ceil(T/16), H, B), the same
// dqkv columns written) and their algorithm (P = exp(scale q.k - L), dP = dout.v,
// dS = P (dP - dsum); K/V blocks of 16 up to the diagonal for dq, Q blocks of 16 from the
// diagonal for dk and dv; every dqkv element has one writer: deterministic, no atomics), but
// 128 invocations per tile: 16 rows x 8 column groups as in attn_fwd_fa2_wide, each invocation
// owning the columns g + 8t of its row's vectors. Dot products over hd are 8 partial sums
// reduced in the fixed order g' = 0..7 through part_b (bit-identical in the 8 invocations of a
// row). One block buffer kv_b (16 x 128 f32) is reused for the two blocks a step needs, so
// workgroup memory is 16 KB.

@group(0) @binding(0) var<uniform> p_dsw: AttnParams;
@group(0) @binding(1) var<storage, read> qkv_dsw: array<f32>;
@group(0) @binding(2) var<storage, read> dout_dsw: array<f32>;
@group(0) @binding(3) var<storage, read> lse_dsw: array<f32>;
@group(0) @binding(4) var<storage, read> dsum_dsw: array<f32>;
@group(0) @binding(5) var<storage, read_write> dqkv_dsw: array<f32>;

var<workgroup> kv_b: array<f32, 2048>;    // W_TILE * W_MAX_HD: V then K, or dout then Q
var<workgroup> part_b: array<f32, 2048>;  // [W_TILE][W_TILE rows][W_SPLIT] partial dots

// dq: one workgroup per (Q tile, head, batch), invocation (r, g) = (lid / 8, lid % 8), Q row
// i = tile * 16 + r. Per K block: V block -> partial dP -> dP; K block -> partial s -> s;
// dS = P (dP - dsum_i); dq[g + 8t] += sum_jj dS_jj k_jj[g + 8t]; at the end dq * scale.
@compute @workgroup_size(128, 1, 1)
fn attn_dscores_fa2_wide(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>) {
    let T = p_dsw.seq;
    let H = p_dsw.heads;
    let hd = p_dsw.head_dim;
    if (hd > W_MAX_HD) { return; }
    let d = H * hd;
    let qt = wid.x;
    let h = wid.y;
    let b = wid.z;
    let r = lid.x / W_SPLIT;
    let g = lid.x % W_SPLIT;
    let i = qt * W_TILE + r;
    let ic = min(i, T - 1u);
    let q_off = (b * T + ic) * 3u * d + h * hd;
    let g_off = (b * T + ic) * d + h * hd;
    let L = lse_dsw[(b * H + h) * T + ic];
    let Di = dsum_dsw[(b * H + h) * T + ic];
    let scale = p_dsw.scale;

    var q: array<f32, W_COLS>;   // q_i[g + 8t]
    var go: array<f32, W_COLS>;  // dout_i[g + 8t]
    var dq: array<f32, W_COLS>;
    var s: array<f32, W_TILE>;
    var dp: array<f32, W_TILE>;
    for (var t = 0u; t < W_COLS; t = t + 1u) {
        let c = g + W_SPLIT * t;
        if (c < hd) {
            q[t] = qkv_dsw[q_off + c];
            go[t] = dout_dsw[g_off + c];
        }
    }
    for (var kb = 0u; kb <= qt; kb = kb + 1u) {
        let j0 = kb * W_TILE;
        // V block (0.0 past T); the barrier before: the previous block's K reads are done.
        workgroupBarrier();
        for (var e = lid.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            let jj = e / hd;
            var vx = 0.0;
            if (j0 + jj < T) {
                vx = qkv_dsw[(b * T + j0 + jj) * 3u * d + 2u * d + h * hd + e % hd];
            }
            kv_b[e] = vx;
        }
        workgroupBarrier();
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var acc = 0.0;
            for (var t = 0u; t < W_COLS; t = t + 1u) {
                let c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + go[t] * kv_b[jj * hd + c]; }
            }
            part_b[(jj * W_TILE + r) * W_SPLIT + g] = acc;
        }
        workgroupBarrier();
        // K block into the same memory; dP from the partials.
        for (var e = lid.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            let jj = e / hd;
            var kx = 0.0;
            if (j0 + jj < T) {
                kx = qkv_dsw[(b * T + j0 + jj) * 3u * d + d + h * hd + e % hd];
            }
            kv_b[e] = kx;
        }
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var acc = 0.0;
            for (var gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(jj * W_TILE + r) * W_SPLIT + gg];
            }
            dp[jj] = acc;
        }
        workgroupBarrier();
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var acc = 0.0;
            for (var t = 0u; t < W_COLS; t = t + 1u) {
                let c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + q[t] * kv_b[jj * hd + c]; }
            }
            part_b[(jj * W_TILE + r) * W_SPLIT + g] = acc;
        }
        workgroupBarrier();
        for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
            var acc = 0.0;
            for (var gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(jj * W_TILE + r) * W_SPLIT + gg];
            }
            var ds = 0.0;
            if (j0 + jj <= ic) {
                let pij = exp(acc * scale - L);
                ds = pij * (dp[jj] - Di);
            }
            s[jj] = ds;
        }
        for (var t = 0u; t < W_COLS; t = t + 1u) {
            let c = g + W_SPLIT * t;
            if (c < hd) {
                var acc = dq[t];
                for (var jj = 0u; jj < W_TILE; jj = jj + 1u) {
                    acc = acc + s[jj] * kv_b[jj * hd + c];
                }
                dq[t] = acc;
            }
        }
    }
    if (i < T) {
        for (var t = 0u; t < W_COLS; t = t + 1u) {
            let c = g + W_SPLIT * t;
            if (c < hd) { dqkv_dsw[q_off + c] = dq[t] * scale; }
        }
    }
}

@group(0) @binding(0) var<uniform> p_dvw: AttnParams;
@group(0) @binding(1) var<storage, read> qkv_dvw: array<f32>;
@group(0) @binding(2) var<storage, read> dout_dvw: array<f32>;
@group(0) @binding(3) var<storage, read> lse_dvw: array<f32>;
@group(0) @binding(4) var<storage, read> dsum_dvw: array<f32>;
@group(0) @binding(5) var<storage, read_write> dqkv_dvw: array<f32>;

// dk and dv: one workgroup per (K tile, head, batch), invocation (r, g), key row
// j = tile * 16 + r, holding k_j, v_j, dk_j and dv_j on the columns g + 8t (both gradients in
// one invocation: attn_dv_fa2's two roles merged). Per Q block from the diagonal to the last:
// dout block -> partial dP -> dP; Q block (same memory) -> partial s -> s; P = exp(scale s - L_i),
// dS = P (dP - dsum_i) for queries i >= j, i < T; dk += sum_ii (dS scale) q_ii from the Q block,
// dv += sum_ii P dout_ii with dout read from device memory (the block buffer holds Q by then).
@compute @workgroup_size(128, 1, 1)
fn attn_dv_fa2_wide(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(local_invocation_id) lid: vec3<u32>) {
    let T = p_dvw.seq;
    let H = p_dvw.heads;
    let hd = p_dvw.head_dim;
    if (hd > W_MAX_HD) { return; }
    let d = H * hd;
    let kt = wid.x;
    let h = wid.y;
    let b = wid.z;
    let r = lid.x / W_SPLIT;
    let g = lid.x % W_SPLIT;
    let j = kt * W_TILE + r;
    let jc = min(j, T - 1u);
    let k_off = (b * T + jc) * 3u * d + d + h * hd;
    let v_off = k_off + d;
    let scale = p_dvw.scale;
    let n_tiles = (T + W_TILE - 1u) / W_TILE;

    var kr: array<f32, W_COLS>;  // k_j[g + 8t]
    var vr: array<f32, W_COLS>;  // v_j[g + 8t]
    var dk: array<f32, W_COLS>;
    var dv: array<f32, W_COLS>;
    var pw: array<f32, W_TILE>;
    var dp: array<f32, W_TILE>;
    for (var t = 0u; t < W_COLS; t = t + 1u) {
        let c = g + W_SPLIT * t;
        if (c < hd) {
            kr[t] = qkv_dvw[k_off + c];
            vr[t] = qkv_dvw[v_off + c];
        }
    }
    for (var qb = kt; qb < n_tiles; qb = qb + 1u) {
        let i0 = qb * W_TILE;
        workgroupBarrier();
        for (var e = lid.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            let ii = e / hd;
            var gx = 0.0;
            if (i0 + ii < T) { gx = dout_dvw[(b * T + i0 + ii) * d + h * hd + e % hd]; }
            kv_b[e] = gx;
        }
        workgroupBarrier();
        for (var ii = 0u; ii < W_TILE; ii = ii + 1u) {
            var acc = 0.0;
            for (var t = 0u; t < W_COLS; t = t + 1u) {
                let c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + kv_b[ii * hd + c] * vr[t]; }
            }
            part_b[(ii * W_TILE + r) * W_SPLIT + g] = acc;
        }
        workgroupBarrier();
        for (var e = lid.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            let ii = e / hd;
            var qx = 0.0;
            if (i0 + ii < T) { qx = qkv_dvw[(b * T + i0 + ii) * 3u * d + h * hd + e % hd]; }
            kv_b[e] = qx;
        }
        for (var ii = 0u; ii < W_TILE; ii = ii + 1u) {
            var acc = 0.0;
            for (var gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(ii * W_TILE + r) * W_SPLIT + gg];
            }
            dp[ii] = acc;
        }
        workgroupBarrier();
        for (var ii = 0u; ii < W_TILE; ii = ii + 1u) {
            var acc = 0.0;
            for (var t = 0u; t < W_COLS; t = t + 1u) {
                let c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + kv_b[ii * hd + c] * kr[t]; }
            }
            part_b[(ii * W_TILE + r) * W_SPLIT + g] = acc;
        }
        workgroupBarrier();
        for (var ii = 0u; ii < W_TILE; ii = ii + 1u) {
            var acc = 0.0;
            for (var gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(ii * W_TILE + r) * W_SPLIT + gg];
            }
            let i = i0 + ii;
            var pij = 0.0;
            var ds = 0.0;
            if (i >= jc && i < T) {  // causal: query i sees key j iff i >= j
                let row = (b * H + h) * T + i;
                pij = exp(acc * scale - lse_dvw[row]);
                ds = pij * (dp[ii] - dsum_dvw[row]) * scale;
            }
            pw[ii] = pij;
            dp[ii] = ds;
        }
        for (var t = 0u; t < W_COLS; t = t + 1u) {
            let c = g + W_SPLIT * t;
            if (c < hd) {
                var ak = dk[t];
                var av = dv[t];
                for (var ii = 0u; ii < W_TILE; ii = ii + 1u) {
                    ak = ak + dp[ii] * kv_b[ii * hd + c];
                    if (i0 + ii < T) {
                        av = av + pw[ii] * dout_dvw[(b * T + i0 + ii) * d + h * hd + c];
                    }
                }
                dk[t] = ak;
                dv[t] = av;
            }
        }
    }
    if (j < T) {
        for (var t = 0u; t < W_COLS; t = t + 1u) {
            let c = g + W_SPLIT * t;
            if (c < hd) {
                dqkv_dvw[k_off + c] = dk[t];
                dqkv_dvw[v_off + c] = dv[t];
            }
        }
    }
}

// ---- attn_bwd_fa2_tiled: the whole FA2 backward (dq, dk, dv) in one dispatch, register-tiled ---
// NOT FROM THE LOG: wgslvk's own FA2 backward, replacing the pair attn_dscores_fa2(_wide) +
// attn_dv_fa2(_wide) (run after attn_dsum, the same bindings 0-5, the same dqkv columns written,
// the same algorithm: P = exp(scale q.k - L), dP = dout.v, dS = P (dP - dsum)). The wide pair
// reduces every dot product from 8 partials through workgroup memory (about two workgroup-memory
// reads per multiply-add, 5 barriers per 16 keys); here every output is accumulated by one
// invocation from 32 x 32 tiles in workgroup memory (FlashAttention-2's backward structure).
//
// Dispatch (B * H, 2 * ceil(T / 32), 1): wid.x = b * H + h; wid.y = a job, heaviest first:
//   even wid.y = 2k: dk and dv of K tile k (keys 32k ..), walking Q blocks k .. last (the
//     FA2 paper's outer loop over K/V tiles, dk and dv accumulated in registers);
//   odd wid.y = 2k + 1: dq of Q tile nt - 1 - k, walking K blocks 0 .. the diagonal.
// DECISION (dq without float atomics, deterministic): dq is recomputed by its own Q-tile jobs (a
// separate pass per Q tile over K tiles: S and dP computed a second time, 3 of the 7 tile
// matmuls) instead of partial dq tiles reduced afterwards: no scratch buffer (O(T) memory, as
// FA2 promises; the partials would take ceil(T/32) x T x hd floats per head, the attention
// matrix's size at hd = 32), the same bindings as the ported pair (a host switches by kernel
// name), and the two roles run concurrently in one dispatch. Every dqkv element has one writer
// and a fixed summation order: bit-identical reruns.
//
// Both roles are one code path: a "fixed" tile of 32 rows (kv: k and v of the K tile; dq: q and
// dout of the Q tile), held in registers for the whole walk, against a "streamed" block of 32
// rows per step (kv: q and dout; dq: k and v). Per step, with hd split in chunks of 32 columns:
//   A. per chunk: fixed and streamed chunks into 4 workgroup tiles; invocation (ty, tx) =
//      (lid / 16, lid % 16) accumulates the 2 x 2 scores s[rr][cc] = F1[rr] . S1[cc] and
//      dp[rr][cc] = F2[rr] . S2[cc] for fixed rows rr = ty, ty + 16 and block rows cc = tx, tx + 16
//      (one hd-term dot each, in column order);
//   B. P = exp(scale s - L_i), dS = P (dP - dsum_i) for key j <= query i < T (else exactly 0),
//      into two tiles; per chunk, last to first (the last chunk's streamed tiles are still in
//      place): acc1[rr][c] += sum_cc dS[rr][cc] S1[cc][c] (kv: dk from q; dq: dq from k) and,
//      kv only, acc2[rr][c] += sum_cc P[rr][cc] S2[cc][c] (dv from dout), c = ch*32 + tx, +16.
// At the end dq = acc1 * scale, dk = acc1 * scale, dv = acc2 (dk takes the scale once at the end,
// as dq does, instead of attn_dv_fa2's per-term dS * scale: the same bound).
// Workgroup memory: 4 tiles of 32 x 32 f32 = 16 KB (WebGPU's default limit), swizzled: element
// (r, c) at r * 32 + (c ^ r), so the column reads of phase A (32 rows, one column) and the row
// reads of phase B (one row, 32 columns) and the row-wise stores all hit 32 distinct banks.
// Per invocation: 16 + 16 floats of the fixed tile (4 chunks x 4 loads, head_dim <= 128),
// 16 + 16 accumulators, 4 + 4 scores.
// Bounds: reference.hpp's backward bounds, unchanged: the same operations per term (the scores'
// hd-term dots, exp(s*scale - L), P (dP - D)); dq, dk and dv are n-term sums in another order
// (blocks of 32, each summed in row order), which the order-free (n + 2nb + 3)u covers.
// Tails: rows past T (streamed or fixed) and columns past hd are loaded as 0.0 and masked; only
// rows < T and columns < hd are stored. head_dim > 128: a uniform early return, nothing written.
// NaN/Inf inputs are not special-cased: a non-finite value in any row of a 32-row block can reach
// every output the block's tiles meet (0 * NaN), as in the wide kernels.

@group(0) @binding(0) var<uniform> p_bt: AttnParams;
@group(0) @binding(1) var<storage, read> qkv_bt: array<f32>;
@group(0) @binding(2) var<storage, read> dout_bt: array<f32>;
@group(0) @binding(3) var<storage, read> lse_bt: array<f32>;
@group(0) @binding(4) var<storage, read> dsum_bt: array<f32>;
@group(0) @binding(5) var<storage, read_write> dqkv_bt: array<f32>;

const BT_TILE: u32 = 32u;     // rows per tile and per walked block; columns per chunk
const BT_CHUNKS: u32 = 4u;    // W_MAX_HD / BT_TILE
const BT_SLOT: u32 = 1024u;   // BT_TILE * BT_TILE floats: one tile of workgroup memory

// Slots: 0 F1 chunk, then dS; 1 F2 chunk, then P; 2 S1 chunk; 3 S2 chunk.
var<workgroup> tiles_bt: array<f32, 4096>;

// The swizzled index of element (r, c) of a 32 x 32 tile, r and c < 32.
fn bt_sw(r: u32, c: u32) -> u32 {
    return r * BT_TILE + (c ^ r);
}

// Element (row, col) of head h of batch b of q (which = 0), k (1), v (2) or dout (3); 0.0 for a
// row past T or a column past head_dim.
fn bt_load(which: u32, b: u32, h: u32, row: u32, col: u32) -> f32 {
    let T = p_bt.seq;
    let hd = p_bt.head_dim;
    let d = p_bt.heads * hd;
    if (row >= T || col >= hd) { return 0.0; }
    if (which == 3u) { return dout_bt[(b * T + row) * d + h * hd + col]; }
    return qkv_bt[(b * T + row) * 3u * d + which * d + h * hd + col];
}

@compute @workgroup_size(256, 1, 1)
fn attn_bwd_fa2_tiled(@builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(local_invocation_id) lid: vec3<u32>) {
    let T = p_bt.seq;
    let H = p_bt.heads;
    let hd = p_bt.head_dim;
    if (hd > W_MAX_HD) { return; }  // uniform: the whole workgroup leaves
    let d = H * hd;
    let b = wid.x / H;
    let h = wid.x % H;
    let nt = (T + BT_TILE - 1u) / BT_TILE;
    let kv = (wid.y % 2u) == 0u;
    let tile = select(nt - 1u - wid.y / 2u, wid.y / 2u, kv);
    let f0 = tile * BT_TILE;                  // first row of the fixed tile
    let f1w = select(0u, 1u, kv);             // fixed: k, v (kv) or q, dout (dq)
    let f2w = select(3u, 2u, kv);
    let s1w = select(1u, 0u, kv);             // streamed: q, dout (kv) or k, v (dq)
    let s2w = select(2u, 3u, kv);
    let first = select(0u, tile, kv);         // kv: blocks tile .. nt - 1; dq: 0 .. tile
    let nb = select(tile + 1u, nt - tile, kv);
    let last = (hd - 1u) / BT_TILE;           // the last chunk (hd >= 1)
    let t = lid.x;
    let ty = t / 16u;
    let tx = t % 16u;
    let lr = t / BT_TILE;                     // this invocation loads rows lr + 8u, column lc
    let lc = t % BT_TILE;
    let scale = p_bt.scale;
    let row_base = (b * H + h) * T;

    var f1: array<f32, 16>;  // [ch * 4 + u] = F1[f0 + lr + 8u][ch * 32 + lc]
    var f2: array<f32, 16>;
    var acc1: array<f32, 16>;  // [ch * 4 + a * 2 + e]: row ty + 16a, column ch * 32 + tx + 16e
    var acc2: array<f32, 16>;
    for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
        for (var u = 0u; u < 4u; u = u + 1u) {
            f1[ch * 4u + u] = bt_load(f1w, b, h, f0 + lr + 8u * u, ch * BT_TILE + lc);
            f2[ch * 4u + u] = bt_load(f2w, b, h, f0 + lr + 8u * u, ch * BT_TILE + lc);
        }
    }
    for (var step = 0u; step < nb; step = step + 1u) {
        let s0 = (first + step) * BT_TILE;    // first row of the streamed block
        // [a * 2 + e]: fixed row ty + 16a, block row tx + 16e. Initialized explicitly: Dawn
        // (npm webgpu 0.6.2 on Mesa 25 lavapipe) did not re-zero a loop-body `var s: array<f32, 4>;`
        // on each iteration (the replay of this kernel failed until this was written out).
        var s = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
        var dp = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
        // A. scores and dP over the chunks of hd.
        for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                workgroupBarrier();  // the previous reads of the slots are done
                for (var u = 0u; u < 4u; u = u + 1u) {
                    let x = bt_sw(lr + 8u * u, lc);
                    tiles_bt[x] = f1[ch * 4u + u];
                    tiles_bt[BT_SLOT + x] = f2[ch * 4u + u];
                    tiles_bt[2u * BT_SLOT + x] = bt_load(s1w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                    tiles_bt[3u * BT_SLOT + x] = bt_load(s2w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                }
                workgroupBarrier();
                for (var c = 0u; c < BT_TILE; c = c + 1u) {
                    let x0 = tiles_bt[bt_sw(ty, c)];
                    let x1 = tiles_bt[bt_sw(ty + 16u, c)];
                    let y0 = tiles_bt[2u * BT_SLOT + bt_sw(tx, c)];
                    let y1 = tiles_bt[2u * BT_SLOT + bt_sw(tx + 16u, c)];
                    s[0] = s[0] + x0 * y0;
                    s[1] = s[1] + x0 * y1;
                    s[2] = s[2] + x1 * y0;
                    s[3] = s[3] + x1 * y1;
                    let v0 = tiles_bt[BT_SLOT + bt_sw(ty, c)];
                    let v1 = tiles_bt[BT_SLOT + bt_sw(ty + 16u, c)];
                    let w0 = tiles_bt[3u * BT_SLOT + bt_sw(tx, c)];
                    let w1 = tiles_bt[3u * BT_SLOT + bt_sw(tx + 16u, c)];
                    dp[0] = dp[0] + v0 * w0;
                    dp[1] = dp[1] + v0 * w1;
                    dp[2] = dp[2] + v1 * w0;
                    dp[3] = dp[3] + v1 * w1;
                }
            }
        }
        // B. P and dS (exactly 0 where masked) into slots 1 and 0.
        workgroupBarrier();  // phase A's reads of slots 0 and 1 are done
        for (var a = 0u; a < 2u; a = a + 1u) {
            for (var e = 0u; e < 2u; e = e + 1u) {
                let rr = ty + 16u * a;
                let cc = tx + 16u * e;
                let qi = select(f0 + rr, s0 + cc, kv);  // the query of this score
                let kj = select(s0 + cc, f0 + rr, kv);  // its key
                var pv = 0.0;
                var dsv = 0.0;
                if (kj <= qi && qi < T) {  // causal; rows past T (j <= i < T keeps j < T too)
                    pv = exp(s[a * 2u + e] * scale - lse_bt[row_base + qi]);
                    dsv = pv * (dp[a * 2u + e] - dsum_bt[row_base + qi]);
                }
                tiles_bt[bt_sw(rr, cc)] = dsv;
                tiles_bt[BT_SLOT + bt_sw(rr, cc)] = pv;
            }
        }
        // The accumulations, chunk by chunk from the last (its streamed tiles are in place).
        for (var k = 0u; k < BT_CHUNKS; k = k + 1u) {
            let ch = BT_CHUNKS - 1u - k;
            if (ch <= last) {
                if (ch != last) {
                    workgroupBarrier();  // the previous chunk's reads are done
                    for (var u = 0u; u < 4u; u = u + 1u) {
                        let x = bt_sw(lr + 8u * u, lc);
                        tiles_bt[2u * BT_SLOT + x] = bt_load(s1w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                        tiles_bt[3u * BT_SLOT + x] = bt_load(s2w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                    }
                }
                workgroupBarrier();  // dS and P (first chunk) or the reloaded chunk are stored
                for (var j = 0u; j < BT_TILE; j = j + 1u) {
                    let g0 = tiles_bt[bt_sw(ty, j)];
                    let g1 = tiles_bt[bt_sw(ty + 16u, j)];
                    let z0 = tiles_bt[2u * BT_SLOT + bt_sw(j, tx)];
                    let z1 = tiles_bt[2u * BT_SLOT + bt_sw(j, tx + 16u)];
                    acc1[ch * 4u] = acc1[ch * 4u] + g0 * z0;
                    acc1[ch * 4u + 1u] = acc1[ch * 4u + 1u] + g0 * z1;
                    acc1[ch * 4u + 2u] = acc1[ch * 4u + 2u] + g1 * z0;
                    acc1[ch * 4u + 3u] = acc1[ch * 4u + 3u] + g1 * z1;
                }
                if (kv) {
                    for (var j = 0u; j < BT_TILE; j = j + 1u) {
                        let p0 = tiles_bt[BT_SLOT + bt_sw(ty, j)];
                        let p1 = tiles_bt[BT_SLOT + bt_sw(ty + 16u, j)];
                        let o0 = tiles_bt[3u * BT_SLOT + bt_sw(j, tx)];
                        let o1 = tiles_bt[3u * BT_SLOT + bt_sw(j, tx + 16u)];
                        acc2[ch * 4u] = acc2[ch * 4u] + p0 * o0;
                        acc2[ch * 4u + 1u] = acc2[ch * 4u + 1u] + p0 * o1;
                        acc2[ch * 4u + 2u] = acc2[ch * 4u + 2u] + p1 * o0;
                        acc2[ch * 4u + 3u] = acc2[ch * 4u + 3u] + p1 * o1;
                    }
                }
            }
        }
    }
    // Stores: kv writes the k and v columns of its keys, dq the q columns of its queries.
    for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
        for (var a = 0u; a < 2u; a = a + 1u) {
            for (var e = 0u; e < 2u; e = e + 1u) {
                let row = f0 + ty + 16u * a;
                let col = ch * BT_TILE + tx + 16u * e;
                if (row < T && col < hd) {
                    let o = (b * T + row) * 3u * d + h * hd + col;
                    let x = ch * 4u + a * 2u + e;
                    if (kv) {
                        dqkv_bt[o + d] = acc1[x] * scale;
                        dqkv_bt[o + 2u * d] = acc2[x];
                    } else {
                        dqkv_bt[o] = acc1[x] * scale;
                    }
                }
            }
        }
    }
}

// ---- attn_fwd_fa2_tiled: the FA2 forward, register-tiled (32 x 32 tiles, 256 invocations) ------
// NOT FROM THE LOG: wgslvk's own FA2 forward with attn_fwd_fa2's bindings 0-3 and outputs (out,
// lse = m + log l) and attn_bwd_fa2_tiled's tiles: a Q tile of 32 rows per workgroup walks K/V
// blocks of 32 keys 0 .. the diagonal, with the online softmax of attn_fwd_fa2 per block. The wide
// kernel reduces every score from 8 partials through workgroup memory (4 barriers per 16 keys,
// 16 exps per row and invocation); here invocation (ty, tx) = (lid / 16, lid % 16) accumulates the
// 2 x 2 scores of Q rows ty, ty + 16 and keys tx, tx + 16 of the block, and the 2 x 2 outputs of
// rows ty, ty + 16 and columns tx, tx + 16 of each 32-column chunk of hd.
// Dispatch (B * H, ceil(T / 32), 1): wid.x = b * H + h; wid.y = nt - 1 - the Q tile (the longest
// walks first). Per block (hd in chunks of 32 columns):
//   A. per chunk: the Q chunk (from registers) and the K chunk into tiles 0 and 1; scores
//      s[a][e] += Q[ty + 16a][c] K[tx + 16e][c] in column order;
//   B. the scaled scores into tile 3; every invocation of row r reads the row's 32 scores and
//      takes the block max over keys j <= i (key j0 <= i always: the first is real), in key
//      order, so the 16 invocations of a row hold the same m, alpha; its own p = exp(s - m') (0 for
//      j > i) into tile 1; the row's p summed in key order from tile 1 (again the same in all 16):
//      l = l alpha + sum p; per chunk (V chunk in tile 2): o = o alpha + sum_j p_j v_j[c], keys in
//      order.
// The same operations per term as attn_fwd_fa2 (blocks of 32 instead of 16: fewer rescales; the
// scores' hd-term dots and the block sums in another order): reference.hpp's forward bounds, which
// count the 16-key blocks, cover it. Workgroup memory: 4 tiles of 32 x 32 f32 = 16 KB, swizzled as
// attn_bwd_fa2_tiled's (element (r, c) at r * 32 + (c ^ r)). Rows past T and columns past hd load
// 0.0, compute finite values and are not stored. head_dim > 128: a uniform early return.

@group(0) @binding(0) var<uniform> p_ft: AttnParams;
@group(0) @binding(1) var<storage, read> qkv_ft: array<f32>;
@group(0) @binding(2) var<storage, read_write> out_ft: array<f32>;
@group(0) @binding(3) var<storage, read_write> lse_ft: array<f32>;

// Slots: 0 Q chunk; 1 K chunk, then P; 2 V chunk; 3 the scaled scores.
var<workgroup> tiles_ft: array<f32, 4096>;

// Element (row, col) of head h of batch b of q (which = 0), k (1) or v (2); 0.0 for a row past T
// or a column past head_dim.
fn ft_load(which: u32, b: u32, h: u32, row: u32, col: u32) -> f32 {
    let T = p_ft.seq;
    let hd = p_ft.head_dim;
    let d = p_ft.heads * hd;
    if (row >= T || col >= hd) { return 0.0; }
    return qkv_ft[(b * T + row) * 3u * d + which * d + h * hd + col];
}

@compute @workgroup_size(256, 1, 1)
fn attn_fwd_fa2_tiled(@builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(local_invocation_id) lid: vec3<u32>) {
    let T = p_ft.seq;
    let H = p_ft.heads;
    let hd = p_ft.head_dim;
    if (hd > W_MAX_HD) { return; }  // uniform: the whole workgroup leaves
    let d = H * hd;
    let b = wid.x / H;
    let h = wid.x % H;
    let nt = (T + BT_TILE - 1u) / BT_TILE;
    let qt = nt - 1u - wid.y;
    let f0 = qt * BT_TILE;
    let t = lid.x;
    let ty = t / 16u;
    let tx = t % 16u;
    let lr = t / BT_TILE;  // this invocation loads rows lr + 8u, column lc
    let lc = t % BT_TILE;
    let scale = p_ft.scale;

    var fq: array<f32, 16>;   // [ch * 4 + u] = Q[f0 + lr + 8u][ch * 32 + lc]
    var acc: array<f32, 16>;  // [ch * 4 + a * 2 + e]: row ty + 16a, column ch * 32 + tx + 16e
    var m = array<f32, 2>(0.0, 0.0);  // rows ty, ty + 16
    var l = array<f32, 2>(0.0, 0.0);
    for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
        for (var u = 0u; u < 4u; u = u + 1u) {
            fq[ch * 4u + u] = ft_load(0u, b, h, f0 + lr + 8u * u, ch * BT_TILE + lc);
        }
    }
    for (var kb = 0u; kb <= qt; kb = kb + 1u) {
        let j0 = kb * BT_TILE;
        // Initialized explicitly (attn_bwd_fa2_tiled: Dawn did not re-zero a loop-body array).
        var s = array<f32, 4>(0.0, 0.0, 0.0, 0.0);  // [a * 2 + e]
        // A. scores over the chunks of hd.
        for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                workgroupBarrier();  // the previous reads of tiles 0, 1 and 2 are done
                for (var u = 0u; u < 4u; u = u + 1u) {
                    let x = bt_sw(lr + 8u * u, lc);
                    tiles_ft[x] = fq[ch * 4u + u];
                    tiles_ft[BT_SLOT + x] = ft_load(1u, b, h, j0 + lr + 8u * u, ch * BT_TILE + lc);
                }
                workgroupBarrier();
                for (var c = 0u; c < BT_TILE; c = c + 1u) {
                    let x0 = tiles_ft[bt_sw(ty, c)];
                    let x1 = tiles_ft[bt_sw(ty + 16u, c)];
                    let y0 = tiles_ft[BT_SLOT + bt_sw(tx, c)];
                    let y1 = tiles_ft[BT_SLOT + bt_sw(tx + 16u, c)];
                    s[0] = s[0] + x0 * y0;
                    s[1] = s[1] + x0 * y1;
                    s[2] = s[2] + x1 * y0;
                    s[3] = s[3] + x1 * y1;
                }
            }
        }
        // B. the scaled scores into tile 3 (its previous reads were before phase A's barriers).
        for (var a = 0u; a < 2u; a = a + 1u) {
            for (var e = 0u; e < 2u; e = e + 1u) {
                s[a * 2u + e] = s[a * 2u + e] * scale;
                tiles_ft[3u * BT_SLOT + bt_sw(ty + 16u * a, tx + 16u * e)] = s[a * 2u + e];
            }
        }
        workgroupBarrier();
        let first = kb == 0u;
        var alpha = array<f32, 2>(1.0, 1.0);
        for (var a = 0u; a < 2u; a = a + 1u) {
            let rr = ty + 16u * a;
            let i = f0 + rr;
            var bmax = tiles_ft[3u * BT_SLOT + bt_sw(rr, 0u)];
            for (var jj = 1u; jj < BT_TILE; jj = jj + 1u) {
                if (j0 + jj <= i) { bmax = max(bmax, tiles_ft[3u * BT_SLOT + bt_sw(rr, jj)]); }
            }
            let m_new = select(max(m[a], bmax), bmax, first);
            alpha[a] = exp(select(m[a] - m_new, 0.0, first));  // first block: o and l are 0
            m[a] = m_new;
            for (var e = 0u; e < 2u; e = e + 1u) {
                let cc = tx + 16u * e;
                var pj = 0.0;
                if (j0 + cc <= i) { pj = exp(s[a * 2u + e] - m_new); }  // exp never sees j > i
                tiles_ft[BT_SLOT + bt_sw(rr, cc)] = pj;  // tile 1's K reads ended at the barrier
            }
        }
        for (var u = 0u; u < 4u; u = u + 1u) {  // the first V chunk
            tiles_ft[2u * BT_SLOT + bt_sw(lr + 8u * u, lc)] = ft_load(2u, b, h, j0 + lr + 8u * u, lc);
        }
        workgroupBarrier();
        for (var a = 0u; a < 2u; a = a + 1u) {
            let rr = ty + 16u * a;
            var psum = 0.0;
            for (var jj = 0u; jj < BT_TILE; jj = jj + 1u) {
                psum = psum + tiles_ft[BT_SLOT + bt_sw(rr, jj)];
            }
            l[a] = l[a] * alpha[a] + psum;
        }
        for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                if (ch != 0u) {
                    workgroupBarrier();  // the previous chunk's V reads are done
                    for (var u = 0u; u < 4u; u = u + 1u) {
                        tiles_ft[2u * BT_SLOT + bt_sw(lr + 8u * u, lc)] =
                            ft_load(2u, b, h, j0 + lr + 8u * u, ch * BT_TILE + lc);
                    }
                    workgroupBarrier();
                }
                var o0 = acc[ch * 4u] * alpha[0];
                var o1 = acc[ch * 4u + 1u] * alpha[0];
                var o2 = acc[ch * 4u + 2u] * alpha[1];
                var o3 = acc[ch * 4u + 3u] * alpha[1];
                for (var jj = 0u; jj < BT_TILE; jj = jj + 1u) {
                    let p0 = tiles_ft[BT_SLOT + bt_sw(ty, jj)];
                    let p1 = tiles_ft[BT_SLOT + bt_sw(ty + 16u, jj)];
                    let v0 = tiles_ft[2u * BT_SLOT + bt_sw(jj, tx)];
                    let v1 = tiles_ft[2u * BT_SLOT + bt_sw(jj, tx + 16u)];
                    o0 = o0 + p0 * v0;
                    o1 = o1 + p0 * v1;
                    o2 = o2 + p1 * v0;
                    o3 = o3 + p1 * v1;
                }
                acc[ch * 4u] = o0;
                acc[ch * 4u + 1u] = o1;
                acc[ch * 4u + 2u] = o2;
                acc[ch * 4u + 3u] = o3;
            }
        }
    }
    for (var a = 0u; a < 2u; a = a + 1u) {
        let i = f0 + ty + 16u * a;
        if (i < T) {
            for (var ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
                for (var e = 0u; e < 2u; e = e + 1u) {
                    let col = ch * BT_TILE + tx + 16u * e;
                    if (col < hd) { out_ft[(b * T + i) * d + h * hd + col] = acc[ch * 4u + a * 2u + e] / l[a]; }
                }
            }
            if (tx == 0u) { lse_ft[(b * H + h) * T + i] = m[a] + log(l[a]); }
        }
    }
}

// ---- attn_bwd_fa2_tiled4: attn_bwd_fa2_tiled with 4 x 4 register blocks, head_dim <= 64 --------
// NOT FROM THE LOG: attn_bwd_fa2_tiled's algorithm, jobs, grid (B * H, 2 * ceil(T / 32), 1),
// bindings 0-5, tiles (4 of 32 x 32 f32 = 16 KB, the same swizzle) and summation orders, with 64
// invocations per workgroup instead of 256: invocation (ty, tx) = (lid / 8, lid % 8) owns the 4 x 4
// block of rows rr = ty + 8a and columns cc = tx + 8e (a, e < 4) of each 32 x 32 product, so each
// workgroup-memory value it reads feeds 4 multiply-adds (attn_bwd_fa2_tiled's 2 x 2 blocks: 2).
// DECISION (head_dim <= 64): 4 x 4 blocks put 16 + 16 scores and 16 accumulators per chunk of 32
// head columns (dk and dv: 2 x 16) in every invocation; at head_dim <= 128 that would be 128
// accumulators. Chunks are capped at 2 (64 + 32 floats of accumulators and scores), the GPT
// presets' head_dim (32, 64), and a host runs attn_bwd_fa2_tiled above 64 (attention/host.hpp).
// The fixed tile (k and v, or q and dout) is not held in registers (16 x 2 x 2 floats per
// invocation here): each step reloads it from device memory with the streamed block (the same
// 8 KB per step and job: cache hits).
// DECISION (one accumulator array per chunk: acc1_0, acc1_1, acc2_0, acc2_1): every register
// array is indexed by constants once the 4 x 4 loops unroll. The first version indexed one
// array<f32, 32> by the chunk loop's counter (ch * 16 + a * 4 + e), as attn_bwd_fa2_tiled does;
// on the H200 it ran 1.8x slower than attn_bwd_fa2_tiled at 91 registers per invocation, fewer
// than its 96 live accumulators and scores (so the accumulators were in local memory).
// Summation orders as attn_bwd_fa2_tiled's, term for term: scores and dP over the head columns
// in order (chunk by chunk), each step's 32 block rows in order into dq/dk/dv, steps in order, one
// scale at the end; so the same bounds (reference.hpp) and, where a compiler contracts the same
// multiply-adds, the same bits.
// Tails and refusals as attn_bwd_fa2_tiled: rows past T and columns past hd load 0.0 and are not
// stored; head_dim > 64: a uniform early return, nothing written.

@group(0) @binding(0) var<uniform> p_b4: AttnParams;
@group(0) @binding(1) var<storage, read> qkv_b4: array<f32>;
@group(0) @binding(2) var<storage, read> dout_b4: array<f32>;
@group(0) @binding(3) var<storage, read> lse_b4: array<f32>;
@group(0) @binding(4) var<storage, read> dsum_b4: array<f32>;
@group(0) @binding(5) var<storage, read_write> dqkv_b4: array<f32>;

const B4_MAX_HD: u32 = 64u;
const B4_CHUNKS: u32 = 2u;    // B4_MAX_HD / BT_TILE

// Slots as attn_bwd_fa2_tiled: 0 F1 chunk, then dS; 1 F2 chunk, then P; 2 S1 chunk; 3 S2 chunk.
var<workgroup> tiles_b4: array<f32, 4096>;

// bt_load's element (row, col) of q (which = 0), k (1), v (2) or dout (3); 0.0 past T or hd.
fn b4_load(which: u32, b: u32, h: u32, row: u32, col: u32) -> f32 {
    let T = p_b4.seq;
    let hd = p_b4.head_dim;
    let d = p_b4.heads * hd;
    if (row >= T || col >= hd) { return 0.0; }
    if (which == 3u) { return dout_b4[(b * T + row) * d + h * hd + col]; }
    return qkv_b4[(b * T + row) * 3u * d + which * d + h * hd + col];
}

@compute @workgroup_size(64, 1, 1)
fn attn_bwd_fa2_tiled4(@builtin(workgroup_id) wid: vec3<u32>,
                       @builtin(local_invocation_id) lid: vec3<u32>) {
    let T = p_b4.seq;
    let H = p_b4.heads;
    let hd = p_b4.head_dim;
    if (hd > B4_MAX_HD) { return; }  // uniform: the whole workgroup leaves
    let d = H * hd;
    let b = wid.x / H;
    let h = wid.x % H;
    let nt = (T + BT_TILE - 1u) / BT_TILE;
    let kv = (wid.y % 2u) == 0u;
    let tile = select(nt - 1u - wid.y / 2u, wid.y / 2u, kv);
    let f0 = tile * BT_TILE;                  // first row of the fixed tile
    let f1w = select(0u, 1u, kv);             // fixed: k, v (kv) or q, dout (dq)
    let f2w = select(3u, 2u, kv);
    let s1w = select(1u, 0u, kv);             // streamed: q, dout (kv) or k, v (dq)
    let s2w = select(2u, 3u, kv);
    let first = select(0u, tile, kv);         // kv: blocks tile .. nt - 1; dq: 0 .. tile
    let nb = select(tile + 1u, nt - tile, kv);
    let last = (hd - 1u) / BT_TILE;           // the last chunk (hd >= 1)
    let t = lid.x;
    let ty = t / 8u;
    let tx = t % 8u;
    let lr = t / BT_TILE;                     // this invocation loads rows lr + 2u, column lc
    let lc = t % BT_TILE;
    let scale = p_b4.scale;
    let row_base = (b * H + h) * T;

    // [a * 4 + e]: row ty + 8a, column tx + 8e (acc*_0) or 32 + tx + 8e (acc*_1).
    var acc1_0: array<f32, 16>;
    var acc1_1: array<f32, 16>;
    var acc2_0: array<f32, 16>;
    var acc2_1: array<f32, 16>;
    for (var step = 0u; step < nb; step = step + 1u) {
        let s0 = (first + step) * BT_TILE;    // first row of the streamed block
        // [a * 4 + e]: fixed row ty + 8a, block row tx + 8e (initialized explicitly, as in
        // attn_bwd_fa2_tiled: Dawn did not re-zero a loop-body array).
        var s = array<f32, 16>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                               0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        var dp = array<f32, 16>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        // A. scores and dP over the chunks of hd.
        for (var ch = 0u; ch < B4_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                workgroupBarrier();  // the previous reads of the slots are done
                for (var u = 0u; u < 16u; u = u + 1u) {
                    let x = bt_sw(lr + 2u * u, lc);
                    let col = ch * BT_TILE + lc;
                    tiles_b4[x] = b4_load(f1w, b, h, f0 + lr + 2u * u, col);
                    tiles_b4[BT_SLOT + x] = b4_load(f2w, b, h, f0 + lr + 2u * u, col);
                    tiles_b4[2u * BT_SLOT + x] = b4_load(s1w, b, h, s0 + lr + 2u * u, col);
                    tiles_b4[3u * BT_SLOT + x] = b4_load(s2w, b, h, s0 + lr + 2u * u, col);
                }
                workgroupBarrier();
                for (var c = 0u; c < BT_TILE; c = c + 1u) {
                    var x: array<f32, 4>;
                    var y: array<f32, 4>;
                    for (var a = 0u; a < 4u; a = a + 1u) {
                        x[a] = tiles_b4[bt_sw(ty + 8u * a, c)];
                        y[a] = tiles_b4[2u * BT_SLOT + bt_sw(tx + 8u * a, c)];
                    }
                    for (var a = 0u; a < 4u; a = a + 1u) {
                        for (var e = 0u; e < 4u; e = e + 1u) {
                            s[a * 4u + e] = s[a * 4u + e] + x[a] * y[e];
                        }
                    }
                    for (var a = 0u; a < 4u; a = a + 1u) {
                        x[a] = tiles_b4[BT_SLOT + bt_sw(ty + 8u * a, c)];
                        y[a] = tiles_b4[3u * BT_SLOT + bt_sw(tx + 8u * a, c)];
                    }
                    for (var a = 0u; a < 4u; a = a + 1u) {
                        for (var e = 0u; e < 4u; e = e + 1u) {
                            dp[a * 4u + e] = dp[a * 4u + e] + x[a] * y[e];
                        }
                    }
                }
            }
        }
        // B. P and dS (exactly 0 where masked) into slots 1 and 0.
        workgroupBarrier();  // phase A's reads of slots 0 and 1 are done
        for (var a = 0u; a < 4u; a = a + 1u) {
            for (var e = 0u; e < 4u; e = e + 1u) {
                let rr = ty + 8u * a;
                let cc = tx + 8u * e;
                let qi = select(f0 + rr, s0 + cc, kv);  // the query of this score
                let kj = select(s0 + cc, f0 + rr, kv);  // its key
                var pv = 0.0;
                var dsv = 0.0;
                if (kj <= qi && qi < T) {  // causal; rows past T (j <= i < T keeps j < T too)
                    pv = exp(s[a * 4u + e] * scale - lse_b4[row_base + qi]);
                    dsv = pv * (dp[a * 4u + e] - dsum_b4[row_base + qi]);
                }
                tiles_b4[bt_sw(rr, cc)] = dsv;
                tiles_b4[BT_SLOT + bt_sw(rr, cc)] = pv;
            }
        }
        // The accumulations: chunk 1 first where hd > 32 (its streamed tiles are in place), then
        // chunk 0 (reloaded).
        if (last == 1u) {
            workgroupBarrier();  // dS and P are stored
            for (var j = 0u; j < BT_TILE; j = j + 1u) {
                var g: array<f32, 4>;
                var z: array<f32, 4>;
                for (var a = 0u; a < 4u; a = a + 1u) {
                    g[a] = tiles_b4[bt_sw(ty + 8u * a, j)];
                    z[a] = tiles_b4[2u * BT_SLOT + bt_sw(j, tx + 8u * a)];
                }
                for (var a = 0u; a < 4u; a = a + 1u) {
                    for (var e = 0u; e < 4u; e = e + 1u) {
                        acc1_1[a * 4u + e] = acc1_1[a * 4u + e] + g[a] * z[e];
                    }
                }
            }
            if (kv) {
                for (var j = 0u; j < BT_TILE; j = j + 1u) {
                    var g: array<f32, 4>;
                    var z: array<f32, 4>;
                    for (var a = 0u; a < 4u; a = a + 1u) {
                        g[a] = tiles_b4[BT_SLOT + bt_sw(ty + 8u * a, j)];
                        z[a] = tiles_b4[3u * BT_SLOT + bt_sw(j, tx + 8u * a)];
                    }
                    for (var a = 0u; a < 4u; a = a + 1u) {
                        for (var e = 0u; e < 4u; e = e + 1u) {
                            acc2_1[a * 4u + e] = acc2_1[a * 4u + e] + g[a] * z[e];
                        }
                    }
                }
            }
            workgroupBarrier();  // chunk 1's reads are done
            for (var u = 0u; u < 16u; u = u + 1u) {
                let x = bt_sw(lr + 2u * u, lc);
                tiles_b4[2u * BT_SLOT + x] = b4_load(s1w, b, h, s0 + lr + 2u * u, lc);
                tiles_b4[3u * BT_SLOT + x] = b4_load(s2w, b, h, s0 + lr + 2u * u, lc);
            }
        }
        workgroupBarrier();  // dS and P (hd <= 32) or chunk 0's reload are stored
        for (var j = 0u; j < BT_TILE; j = j + 1u) {
            var g: array<f32, 4>;
            var z: array<f32, 4>;
            for (var a = 0u; a < 4u; a = a + 1u) {
                g[a] = tiles_b4[bt_sw(ty + 8u * a, j)];
                z[a] = tiles_b4[2u * BT_SLOT + bt_sw(j, tx + 8u * a)];
            }
            for (var a = 0u; a < 4u; a = a + 1u) {
                for (var e = 0u; e < 4u; e = e + 1u) {
                    acc1_0[a * 4u + e] = acc1_0[a * 4u + e] + g[a] * z[e];
                }
            }
        }
        if (kv) {
            for (var j = 0u; j < BT_TILE; j = j + 1u) {
                var g: array<f32, 4>;
                var z: array<f32, 4>;
                for (var a = 0u; a < 4u; a = a + 1u) {
                    g[a] = tiles_b4[BT_SLOT + bt_sw(ty + 8u * a, j)];
                    z[a] = tiles_b4[3u * BT_SLOT + bt_sw(j, tx + 8u * a)];
                }
                for (var a = 0u; a < 4u; a = a + 1u) {
                    for (var e = 0u; e < 4u; e = e + 1u) {
                        acc2_0[a * 4u + e] = acc2_0[a * 4u + e] + g[a] * z[e];
                    }
                }
            }
        }
    }
    // Stores: kv writes the k and v columns of its keys, dq the q columns of its queries.
    for (var a = 0u; a < 4u; a = a + 1u) {
        for (var e = 0u; e < 4u; e = e + 1u) {
            let row = f0 + ty + 8u * a;
            let col = tx + 8u * e;
            let x = a * 4u + e;
            if (row < T) {
                let o = (b * T + row) * 3u * d + h * hd + col;
                if (col < hd) {
                    if (kv) {
                        dqkv_b4[o + d] = acc1_0[x] * scale;
                        dqkv_b4[o + 2u * d] = acc2_0[x];
                    } else {
                        dqkv_b4[o] = acc1_0[x] * scale;
                    }
                }
                if (col + BT_TILE < hd) {
                    if (kv) {
                        dqkv_b4[o + BT_TILE + d] = acc1_1[x] * scale;
                        dqkv_b4[o + BT_TILE + 2u * d] = acc2_1[x];
                    } else {
                        dqkv_b4[o + BT_TILE] = acc1_1[x] * scale;
                    }
                }
            }
        }
    }
}
