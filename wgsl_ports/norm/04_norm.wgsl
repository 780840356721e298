// 04_norm.wgsl: layer normalization of the GPT block, forward and backward. Reconstructed for
// wgslvk from TinyGPT's engineering log (the GPT-shaped trainer whose kernels "train
// a GPT-2-shaped model": the log names layernorm among the block's kernels but shows no code), so
// the algorithm is ours, pinned in wgsl_ports/norm/reference.hpp before this file was written.
// Plain WGSL (no `enable`), subgroup-free.
//
// Layout: x, y, dy, dx are row-major [rows, d] with d a multiple of 4 (bound as vec4 arrays);
// gamma, beta [d]; mean, rstd [rows].
//
// Row mapping (both row kernels use it): a row is owned by a segment of tpr threads, tpr the
// smallest power of two >= d/16 clamped to [8, 256], so each lane holds at most 4 vec4 columns
// of its row in registers (d <= 4096); a 256-thread workgroup holds 256/tpr segments. So
// d = 96 or 128 puts 32 rows in a workgroup (8 lanes each), 192 or 256 sixteen, 768 four. Lane l of a segment reads the vec4
// columns l, l + tpr, ... (coalesced), and the segment sums through a segmented tree in workgroup
// memory (no subgroups). Rows past `rows` take part in every barrier and store nothing.
//
// layernorm_forward: mean = sum(x)/d, var = sum((x - mean)^2)/d (two-pass, from the registers:
// the row is read once), rstd = inverseSqrt(var + eps), y = (x - mean)*rstd*gamma + beta; mean
// and rstd are saved per row for the backward.
//
// layernorm_backward: with xhat = (x - mean)*rstd and g = dy*gamma,
//   dx = rstd * (g - mean_row(g) - xhat * mean_row(g*xhat))   (overwrites dx),
// and, fused into the same pass so dy and x are read once, the parameter gradients' partial sums
// over a block of `rows_per_block` rows: partials[block] = (sum dy*xhat, sum dy) per column.
// Each thread keeps its columns' partial sums in registers (at most MAXV = 4 vec4 columns per
// thread: d <= 4096), adding its segment's rows in row order; at the end the segments' sums are added in
// segment order. No atomics: every partial has one writer and a fixed order of adds.
// layernorm_backward_dparams then sums the blocks' partials per column in a fixed order:
// lane k of 16 adds blocks k, k + 16, ... in order, then lane 0 adds the 16 lane sums in order.
// dgamma and dbeta are overwritten (not accumulated). For fixed (rows, d, rows_per_block) the
// results are bitwise identical on every run.

const WG: u32 = 256u;

struct LnParams {
    rows: u32,
    d: u32,               // a multiple of 4
    eps: f32,
    rows_per_block: u32,  // backward: rows per workgroup (block) of the dgamma/dbeta partials
}

var<workgroup> sh_a: array<f32, 256>;
var<workgroup> sh_b: array<f32, 256>;
var<workgroup> sh_v: array<vec4<f32>, 256>;
var<workgroup> sh_w: array<vec4<f32>, 256>;

const MAXV: u32 = 4u;  // vec4 columns per lane: d <= 4 * 256 * MAXV = 4096

// Threads per row: the smallest power of two >= d4 / MAXV, clamped to [8, WG].
fn threads_per_row(d4: u32) -> u32 {
    var t = 8u;
    loop {
        if (t * MAXV >= d4 || t >= WG) { break; }
        t = t * 2u;
    }
    return t;
}

// Segmented tree sum of sh_a (and sh_b) over each aligned segment of tpr threads; every thread
// gets its segment's sums. Called in uniform control flow by the whole workgroup.
fn seg_reduce2(tid: u32, lane: u32, tpr: u32) -> vec2<f32> {
    workgroupBarrier();
    var s = tpr / 2u;
    loop {
        if (s == 0u) { break; }
        if (lane < s) {
            sh_a[tid] = sh_a[tid] + sh_a[tid + s];
            sh_b[tid] = sh_b[tid] + sh_b[tid + s];
        }
        workgroupBarrier();
        s = s >> 1u;
    }
    let r = vec2<f32>(sh_a[tid - lane], sh_b[tid - lane]);
    workgroupBarrier();  // every segment has read before sh_a / sh_b are written again
    return r;
}

fn hsum(v: vec4<f32>) -> f32 {
    return (v.x + v.y) + (v.z + v.w);
}

// ---- layernorm_forward -------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> lf_x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> lf_gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> lf_beta: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> lf_y: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> lf_mean: array<f32>;
@group(0) @binding(5) var<storage, read_write> lf_rstd: array<f32>;
@group(0) @binding(6) var<uniform> lf: LnParams;

@compute @workgroup_size(256, 1, 1)
fn layernorm_forward(@builtin(local_invocation_index) tid: u32,
                     @builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let d4 = lf.d / 4u;
    let tpr = threads_per_row(d4);
    let lane = tid % tpr;
    let row = (wid.y * nwg.x + wid.x) * (WG / tpr) + tid / tpr;
    let valid = row < lf.rows;
    let base = row * d4;
    let fd = f32(lf.d);

    var xv = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k < MAXV; k = k + 1u) {
        let j = lane + k * tpr;
        if (valid && j < d4) {
            xv[k] = lf_x[base + j];
            acc = acc + xv[k];
        }
    }
    sh_a[tid] = hsum(acc);
    sh_b[tid] = 0.0;
    let mean = seg_reduce2(tid, lane, tpr).x / fd;

    var acc2 = vec4<f32>(0.0);
    for (var k = 0u; k < MAXV; k = k + 1u) {
        let j = lane + k * tpr;
        if (valid && j < d4) {
            let c = xv[k] - vec4<f32>(mean);
            acc2 = acc2 + c * c;
        }
    }
    sh_a[tid] = hsum(acc2);
    sh_b[tid] = 0.0;
    let variance = seg_reduce2(tid, lane, tpr).x / fd;
    let rstd = inverseSqrt(variance + lf.eps);

    if (!valid) { return; }
    if (lane == 0u) {
        lf_mean[row] = mean;
        lf_rstd[row] = rstd;
    }
    for (var k = 0u; k < MAXV; k = k + 1u) {
        let j = lane + k * tpr;
        if (j < d4) {
            let xhat = (xv[k] - vec4<f32>(mean)) * rstd;
            lf_y[base + j] = xhat * lf_gamma[j] + lf_beta[j];
        }
    }
}

// ---- layernorm_backward ------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> lb_x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> lb_gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> lb_dy: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> lb_mean: array<f32>;
@group(0) @binding(4) var<storage, read> lb_rstd: array<f32>;
@group(0) @binding(5) var<storage, read_write> lb_dx: array<vec4<f32>>;
// [n_blocks][2][d/4]: per block, the dgamma partial then the dbeta partial.
@group(0) @binding(6) var<storage, read_write> lb_partials: array<vec4<f32>>;
@group(0) @binding(7) var<uniform> lb: LnParams;

@compute @workgroup_size(256, 1, 1)
fn layernorm_backward(@builtin(local_invocation_index) tid: u32,
                      @builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>) {
    let d4 = lb.d / 4u;
    let tpr = threads_per_row(d4);
    let rpw = WG / tpr;
    let lane = tid % tpr;
    let seg = tid / tpr;
    let block = wid.y * nwg.x + wid.x;
    let n_blocks = (lb.rows + lb.rows_per_block - 1u) / lb.rows_per_block;
    if (block >= n_blocks) { return; }
    let row0 = block * lb.rows_per_block;
    let row_end = min(row0 + lb.rows_per_block, lb.rows);
    let fd = f32(lb.d);

    var pg = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    var pb = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

    for (var r = row0; r < row_end; r = r + rpw) {
        let row = r + seg;
        let valid = row < row_end;
        let base = row * d4;
        var mean = 0.0;
        var rstd = 0.0;
        if (valid) {
            mean = lb_mean[row];
            rstd = lb_rstd[row];
        }
        var xh = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
        var dy = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
        var s1 = vec4<f32>(0.0);
        var s2 = vec4<f32>(0.0);
        for (var k = 0u; k < MAXV; k = k + 1u) {
            let j = lane + k * tpr;
            if (valid && j < d4) {
                xh[k] = (lb_x[base + j] - vec4<f32>(mean)) * rstd;
                dy[k] = lb_dy[base + j];
                let g = dy[k] * lb_gamma[j];
                s1 = s1 + g;
                s2 = s2 + g * xh[k];
            }
        }
        sh_a[tid] = hsum(s1);
        sh_b[tid] = hsum(s2);
        let sums = seg_reduce2(tid, lane, tpr);
        let c1 = sums.x / fd;
        let c2 = sums.y / fd;
        for (var k = 0u; k < MAXV; k = k + 1u) {
            let j = lane + k * tpr;
            if (valid && j < d4) {
                let g = dy[k] * lb_gamma[j];
                lb_dx[base + j] = (g - vec4<f32>(c1) - xh[k] * c2) * rstd;
                pg[k] = pg[k] + dy[k] * xh[k];
                pb[k] = pb[k] + dy[k];
            }
        }
    }

    // Segments' partials, added in segment order by segment 0.
    let out_base = block * 2u * d4;
    for (var k = 0u; k < MAXV; k = k + 1u) {
        sh_v[tid] = pg[k];
        sh_w[tid] = pb[k];
        workgroupBarrier();
        let j = lane + k * tpr;
        if (seg == 0u && j < d4) {
            var sg = sh_v[lane];
            var sb = sh_w[lane];
            for (var s = 1u; s < rpw; s = s + 1u) {
                sg = sg + sh_v[s * tpr + lane];
                sb = sb + sh_w[s * tpr + lane];
            }
            lb_partials[out_base + j] = sg;
            lb_partials[out_base + d4 + j] = sb;
        }
        workgroupBarrier();
    }
}

// ---- layernorm_backward_dparams ----------------------------------------------------------------

@group(0) @binding(0) var<storage, read> ld_partials: array<f32>;  // [n_blocks][2][d]
@group(0) @binding(1) var<storage, read_write> ld_dgamma: array<f32>;
@group(0) @binding(2) var<storage, read_write> ld_dbeta: array<f32>;
@group(0) @binding(3) var<uniform> ld: LnParams;

// 16 columns x 16 lanes per workgroup: ceil(d / 16) workgroups.
@compute @workgroup_size(256, 1, 1)
fn layernorm_backward_dparams(@builtin(local_invocation_index) tid: u32,
                              @builtin(workgroup_id) wid: vec3<u32>,
                              @builtin(num_workgroups) nwg: vec3<u32>) {
    let col = (wid.y * nwg.x + wid.x) * 16u + tid % 16u;
    let lane = tid / 16u;
    let n_blocks = (ld.rows + ld.rows_per_block - 1u) / ld.rows_per_block;
    let valid = col < ld.d;
    var sg = 0.0;
    var sb = 0.0;
    if (valid) {
        for (var b = lane; b < n_blocks; b = b + 16u) {
            sg = sg + ld_partials[b * 2u * ld.d + col];
            sb = sb + ld_partials[b * 2u * ld.d + ld.d + col];
        }
    }
    sh_a[tid] = sg;
    sh_b[tid] = sb;
    workgroupBarrier();
    if (valid && lane == 0u) {
        var tg = sh_a[tid];
        var tb = sh_b[tid];
        for (var l = 1u; l < 16u; l = l + 1u) {
            tg = tg + sh_a[l * 16u + tid];
            tb = tb + sh_b[l * 16u + tid];
        }
        ld_dgamma[col] = tg;
        ld_dbeta[col] = tb;
    }
}
