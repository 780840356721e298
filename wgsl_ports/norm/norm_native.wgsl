// norm_native.wgsl: wgslvk's own layernorm backward (ours; not from the seed: the seed family is
// 04_norm.wgsl, our reconstruction for TinyGPT's engineering log). Same math, same
// LnParams uniform, same partials layout [n_blocks][2][d/4] and the same one pass over x and dy as
// 04_norm.wgsl's layernorm_backward + layernorm_backward_dparams; built for the loads in flight
// that the port's pair lacks (41-52% of the copy roofline on an H200; README.md):
//
//   layernorm_backward_lean          dx and the per-block dgamma/dbeta partials. A block of
//       rows_per_block rows per workgroup, walked rpw rows at a time by segments of tpr lanes.
//   layernorm_backward_lean_dparams  the blocks' partials summed per column in a fixed order.
//
// Design (why: wgsl_ports/norm/README.md, measured on an H200):
//   * LEAN_M = 2 vec4 columns per lane (the port: up to 4): lean_threads_per_row(d4) = the
//     smallest power of two >= d4 / 2 in [8, 256] (d 96, 128: 16 lanes; 192, 256: 32; 768: 128).
//     d <= 2048 (the host runs the port's layernorm_backward above that: the same partials
//     layout, finalized by layernorm_backward_lean_dparams).
//   * No branch around a load: columns and rows are clamped into range and the values of idle
//     slots discarded by `select`, so a row group's x, dy, gamma, mean and rstd loads are all in
//     flight together.
//   * dgamma/dbeta partials accumulated before the row sums' barriers (they need no row sum), so
//     only xhat and g live across them.
//   * Row sums in two barriers: one lane of every 8 adds its 8 pairs (a fixed tree), then every
//     lane of the segment adds the segment's tpr / 8 group sums in order. The barrier that ends a
//     row group's reads is the next row group's first: no third barrier, no double buffer.
//   * The finalize: one vec4 column per workgroup (d / 4 workgroups), 256 lanes adding blocks
//     lane, lane + 256, ... (ceil(n_blocks / 256) loads per lane), then trees of 8, 8 and 4 in
//     workgroup memory: a chain that barely grows with the block count.
// A block's partials: partials[block] = (sum_rows dy*xhat, sum_rows dy) per column, added per
// segment in row order, then over segments in segment order by segment 0. No atomics; dx, dgamma,
// dbeta overwritten; rows past `rows` and blocks past n_blocks store nothing. For fixed (rows, d,
// rows_per_block) the results are bitwise identical on every run.
// Depths (reference.hpp lean_*): row sums 2 + 2 + 3 + tpr / 8; dgamma/dbeta ceil(rpb / rpw) +
// (rpw - 1) + ceil(n_blocks / 256) + 8.

const WG: u32 = 256u;

struct LnParams {
    rows: u32,
    d: u32,               // a multiple of 4
    eps: f32,             // unused here (the forward's)
    rows_per_block: u32,  // rows per workgroup (block) of the dgamma/dbeta partials
}

var<workgroup> fb_v: array<vec4<f32>, 256>;
var<workgroup> fb_w: array<vec4<f32>, 256>;

fn hsum(v: vec4<f32>) -> f32 {
    return (v.x + v.y) + (v.z + v.w);
}

@group(0) @binding(0) var<storage, read> lb_x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> lb_gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> lb_dy: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> lb_mean: array<f32>;
@group(0) @binding(4) var<storage, read> lb_rstd: array<f32>;
@group(0) @binding(5) var<storage, read_write> lb_dx: array<vec4<f32>>;
// [n_blocks][2][d/4]: per block, the dgamma partial then the dbeta partial.
@group(0) @binding(6) var<storage, read_write> lb_partials: array<vec4<f32>>;
@group(0) @binding(7) var<uniform> lb: LnParams;

@group(0) @binding(0) var<storage, read> ld_partials: array<vec4<f32>>;  // [n_blocks][2][d/4]
@group(0) @binding(1) var<storage, read_write> ld_dgamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> ld_dbeta: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> ld: LnParams;

// ---- layernorm_backward_lean -------------------------------------------------------------------

const LEAN_M: u32 = 2u;  // vec4 columns per lane: d <= 4 * 256 * 2 = 2048
// Rows per segment per row group step. 2 (twice the loads per barrier pair) took 80 registers
// instead of 64 and was 1.3-1.6x slower on an H200 (README.md); the loops keep the measured shape.
const LEAN_R: u32 = 1u;
const LEAN_S: u32 = 2u;  // LEAN_M * LEAN_R register slots per lane

var<workgroup> lean_pair: array<vec2<f32>, 256>;  // 256 * LEAN_R; per lane: (sum g, sum g xhat)
var<workgroup> lean_group: array<vec2<f32>, 32>;  // 32 * LEAN_R; per 8 lanes: their pairs' sum

fn lean_threads_per_row(d4: u32) -> u32 {
    var t = 8u;
    loop {
        if (t * LEAN_M >= d4 || t >= WG) { break; }
        t = t * 2u;
    }
    return t;
}

// The tree ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)) of lean_pair[q .. q + 8).
fn lean_pair_tree8(q: u32) -> vec2<f32> {
    return ((lean_pair[q] + lean_pair[q + 1u]) + (lean_pair[q + 2u] + lean_pair[q + 3u])) +
           ((lean_pair[q + 4u] + lean_pair[q + 5u]) + (lean_pair[q + 6u] + lean_pair[q + 7u]));
}

@compute @workgroup_size(256, 1, 1)
fn layernorm_backward_lean(@builtin(local_invocation_index) tid: u32,
                           @builtin(workgroup_id) wid: vec3<u32>,
                           @builtin(num_workgroups) nwg: vec3<u32>) {
    let d4 = lb.d / 4u;
    let tpr = lean_threads_per_row(d4);
    let rpw = WG / tpr;
    let lane = tid % tpr;
    let seg = tid / tpr;
    let gpr = tpr / 8u;  // groups of 8 lanes per row
    let block = wid.y * nwg.x + wid.x;
    let n_blocks = (lb.rows + lb.rows_per_block - 1u) / lb.rows_per_block;
    if (block >= n_blocks) { return; }
    let row0 = block * lb.rows_per_block;
    let row_end = min(row0 + lb.rows_per_block, lb.rows);
    let fd = f32(lb.d);
    let zero = vec4<f32>(0.0);

    var pg = array<vec4<f32>, 2>(zero, zero);
    var pb = array<vec4<f32>, 2>(zero, zero);

    for (var r = row0; r < row_end; r = r + rpw * LEAN_R) {
        var valid: array<bool, LEAN_R>;
        var base: array<u32, LEAN_R>;
        var mean: array<f32, LEAN_R>;
        var rstd: array<f32, LEAN_R>;
        var xv: array<vec4<f32>, LEAN_S>;
        var dv: array<vec4<f32>, LEAN_S>;
        for (var i = 0u; i < LEAN_R; i = i + 1u) {
            let row = r + i * rpw + seg;
            valid[i] = row < row_end;
            let rc = min(row, row_end - 1u);  // in range for idle segments too
            base[i] = rc * d4;
            mean[i] = lb_mean[rc];
            rstd[i] = lb_rstd[rc];
            for (var k = 0u; k < LEAN_M; k = k + 1u) {
                let c = min(lane + k * tpr, d4 - 1u);
                xv[i * LEAN_M + k] = lb_x[base[i] + c];
                dv[i * LEAN_M + k] = lb_dy[base[i] + c];
            }
        }
        var gm: array<vec4<f32>, 2>;
        for (var k = 0u; k < LEAN_M; k = k + 1u) {
            gm[k] = lb_gamma[min(lane + k * tpr, d4 - 1u)];
        }
        var xh: array<vec4<f32>, LEAN_S>;
        var g: array<vec4<f32>, LEAN_S>;
        for (var i = 0u; i < LEAN_R; i = i + 1u) {
            var s1 = zero;
            var s2 = zero;
            for (var k = 0u; k < LEAN_M; k = k + 1u) {
                let q = i * LEAN_M + k;
                let use_k = valid[i] && lane + k * tpr < d4;
                let dyk = select(zero, dv[q], use_k);
                xh[q] = select(zero, (xv[q] - vec4<f32>(mean[i])) * rstd[i], use_k);
                g[q] = dyk * gm[k];
                pg[k] = pg[k] + dyk * xh[q];
                pb[k] = pb[k] + dyk;
                s1 = s1 + g[q];
                s2 = s2 + g[q] * xh[q];
            }
            lean_pair[i * 256u + tid] = vec2<f32>(hsum(s1), hsum(s2));
        }
        workgroupBarrier();
        if (tid % 8u == 0u) {
            for (var i = 0u; i < LEAN_R; i = i + 1u) {
                lean_group[i * 32u + tid / 8u] = lean_pair_tree8(i * 256u + tid);
            }
        }
        workgroupBarrier();
        for (var i = 0u; i < LEAN_R; i = i + 1u) {
            var sums = lean_group[i * 32u + seg * gpr];
            for (var t = 1u; t < gpr; t = t + 1u) {
                sums = sums + lean_group[i * 32u + seg * gpr + t];
            }
            let c1 = sums.x / fd;
            let c2 = sums.y / fd;
            if (valid[i]) {
                for (var k = 0u; k < LEAN_M; k = k + 1u) {
                    let j = lane + k * tpr;
                    if (j < d4) {
                        lb_dx[base[i] + j] = (g[i * LEAN_M + k] - vec4<f32>(c1) - xh[i * LEAN_M + k] * c2) * rstd[i];
                    }
                }
            }
        }
    }

    // Segments' partials, added in segment order by segment 0.
    let out_base = block * 2u * d4;
    for (var k = 0u; k < LEAN_M; k = k + 1u) {
        fb_v[tid] = pg[k];
        fb_w[tid] = pb[k];
        workgroupBarrier();
        let j = lane + k * tpr;
        if (seg == 0u && j < d4) {
            var sg = fb_v[lane];
            var sb = fb_w[lane];
            for (var s = 1u; s < rpw; s = s + 1u) {
                sg = sg + fb_v[s * tpr + lane];
                sb = sb + fb_w[s * tpr + lane];
            }
            lb_partials[out_base + j] = sg;
            lb_partials[out_base + d4 + j] = sb;
        }
        workgroupBarrier();
    }
}

// ---- layernorm_backward_lean_dparams ----------------------------------------------------------

// The tree of 8 of fb_v (or fb_w) at q, q + st, ..., q + 7 st, as lean_pair_tree8.
fn fb_v_tree8(q: u32, st: u32) -> vec4<f32> {
    return ((fb_v[q] + fb_v[q + st]) + (fb_v[q + 2u * st] + fb_v[q + 3u * st])) +
           ((fb_v[q + 4u * st] + fb_v[q + 5u * st]) + (fb_v[q + 6u * st] + fb_v[q + 7u * st]));
}
fn fb_w_tree8(q: u32, st: u32) -> vec4<f32> {
    return ((fb_w[q] + fb_w[q + st]) + (fb_w[q + 2u * st] + fb_w[q + 3u * st])) +
           ((fb_w[q + 4u * st] + fb_w[q + 5u * st]) + (fb_w[q + 6u * st] + fb_w[q + 7u * st]));
}

// One vec4 column per workgroup: d / 4 workgroups (2-D past 65535 is never needed: d <= 4096).
@compute @workgroup_size(256, 1, 1)
fn layernorm_backward_lean_dparams(@builtin(local_invocation_index) tid: u32,
                                   @builtin(workgroup_id) wid: vec3<u32>,
                                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let d4 = ld.d / 4u;
    let c = wid.y * nwg.x + wid.x;
    if (c >= d4) { return; }
    let n_blocks = (ld.rows + ld.rows_per_block - 1u) / ld.rows_per_block;
    var sg = vec4<f32>(0.0);
    var sb = vec4<f32>(0.0);
    for (var b = tid; b < n_blocks; b = b + WG) {
        sg = sg + ld_partials[b * 2u * d4 + c];
        sb = sb + ld_partials[b * 2u * d4 + d4 + c];
    }
    fb_v[tid] = sg;
    fb_w[tid] = sb;
    workgroupBarrier();
    if (tid < 32u) {  // 32 sums of 8 lanes, each into its first slot
        let v = fb_v_tree8(tid * 8u, 1u);
        let w = fb_w_tree8(tid * 8u, 1u);
        fb_v[tid * 8u] = v;
        fb_w[tid * 8u] = w;
    }
    workgroupBarrier();
    if (tid < 4u) {  // 4 sums of 8 of those
        let v = fb_v_tree8(tid * 64u, 8u);
        let w = fb_w_tree8(tid * 64u, 8u);
        fb_v[tid * 64u] = v;
        fb_w[tid * 64u] = w;
    }
    workgroupBarrier();
    if (tid == 0u) {
        ld_dgamma[c] = (fb_v[0] + fb_v[64]) + (fb_v[128] + fb_v[192]);
        ld_dbeta[c] = (fb_w[0] + fb_w[64]) + (fb_w[128] + fb_w[192]);
    }
}
