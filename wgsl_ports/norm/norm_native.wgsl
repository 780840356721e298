// norm_native.wgsl: wgslvk's own layernorm backward (ours; not from the seed: the seed family is
// 04_norm.wgsl, our reconstruction for shared/seeds/004_dfbf477a7f89ef8c.txt). Same math, same
// LnParams uniform, same partials layout and the same one pass over x and dy as
// 04_norm.wgsl's layernorm_backward + layernorm_backward_dparams; what differs is where the
// time went on an H200 (41-51% of the copy roofline, bench/results/h200-2026-11-23-families):
//
//   layernorm_backward_fused         dx and the per-block dgamma/dbeta partials. A row's two sums
//       (sum g, sum g*xhat) take ONE workgroup barrier instead of log2(tpr) + 2: each lane writes
//       its (s1, s2) to a double-buffered workgroup array, one barrier, then every lane of the
//       segment reads the segment's tpr pairs (same addresses across the segment: broadcast
//       reads) and adds them into 8 accumulators in a fixed order. The barrier count per row
//       (8 at d = 768) is what kept a workgroup's next loads from being issued; it is 1 here.
//       Double buffering makes the barrier that ends the reads unnecessary: row i writes buffer
//       i % 2, and every lane passed row i+1's barrier (after its reads of row i) before anyone
//       writes buffer i % 2 again at row i+2.
//   layernorm_backward_fused_dparams the blocks' partials summed per column: 4 vec4 columns x 64
//       lanes per workgroup (ceil(d / 16) workgroups), lane l adds blocks l, l + 64, ... in
//       order (a chain of ceil(n_blocks / 64) loads instead of ceil(n_blocks / 16) floats), then
//       a tree over the 64 lanes in workgroup memory. vec4 loads and stores.
//
// Row mapping as in 04_norm.wgsl: a row belongs to a segment of tpr = threads_per_row(d/4) lanes
// (8..256, a power of two, >= 8), a 256-thread workgroup holds 256/tpr segments, lane l of a
// segment holds the vec4 columns l, l + tpr, ... (at most MAXV = 4: d <= 4096). A workgroup
// (block) owns rows [block * rows_per_block, ...), walked rpw rows at a time; its partials are
// partials[block] = (sum_rows dy*xhat, sum_rows dy) per column, added per segment in row order,
// then over segments in segment order. No atomics; dx, dgamma, dbeta overwritten. For fixed
// (rows, d, rows_per_block) the results are bitwise identical on every run.
//
// Summation depths (the bounds in reference.hpp): a row sum m + 2 + tpr/8 + 3 (m vec4 columns per
// lane, hsum, tpr/8 adds per accumulator, the 8 accumulators' tree); dgamma/dbeta
// ceil(rows_per_block / rpw) + (rpw - 1) + ceil(n_blocks / 64) + 6.
// Rows past `rows` and blocks past n_blocks store nothing; d must be a multiple of 4, <= 4096.

const WG: u32 = 256u;
const MAXV: u32 = 4u;

struct LnParams {
    rows: u32,
    d: u32,               // a multiple of 4
    eps: f32,             // unused here (the forward's)
    rows_per_block: u32,  // rows per workgroup (block) of the dgamma/dbeta partials
}

var<workgroup> fb_sum: array<vec2<f32>, 512>;  // 2 buffers x 256 lanes: (s1, s2)
var<workgroup> fb_v: array<vec4<f32>, 256>;
var<workgroup> fb_w: array<vec4<f32>, 256>;

fn threads_per_row(d4: u32) -> u32 {
    var t = 8u;
    loop {
        if (t * MAXV >= d4 || t >= WG) { break; }
        t = t * 2u;
    }
    return t;
}

fn hsum(v: vec4<f32>) -> f32 {
    return (v.x + v.y) + (v.z + v.w);
}

// The sum of the tpr pairs fb_sum[p0 .. p0 + tpr) in a fixed order: 8 strided accumulators
// (tpr is a power of two >= 8), then a tree of the 8.
fn seg_sum8(p0: u32, tpr: u32) -> vec2<f32> {
    var a0 = vec2<f32>(0.0);
    var a1 = vec2<f32>(0.0);
    var a2 = vec2<f32>(0.0);
    var a3 = vec2<f32>(0.0);
    var a4 = vec2<f32>(0.0);
    var a5 = vec2<f32>(0.0);
    var a6 = vec2<f32>(0.0);
    var a7 = vec2<f32>(0.0);
    for (var i = 0u; i < tpr; i = i + 8u) {
        let p = p0 + i;
        a0 = a0 + fb_sum[p];
        a1 = a1 + fb_sum[p + 1u];
        a2 = a2 + fb_sum[p + 2u];
        a3 = a3 + fb_sum[p + 3u];
        a4 = a4 + fb_sum[p + 4u];
        a5 = a5 + fb_sum[p + 5u];
        a6 = a6 + fb_sum[p + 6u];
        a7 = a7 + fb_sum[p + 7u];
    }
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

// ---- layernorm_backward_fused ------------------------------------------------------------------

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
fn layernorm_backward_fused(@builtin(local_invocation_index) tid: u32,
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
    var buf = 0u;

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
        fb_sum[buf * WG + tid] = vec2<f32>(hsum(s1), hsum(s2));
        workgroupBarrier();
        let sums = seg_sum8(buf * WG + seg * tpr, tpr);
        buf = 1u - buf;
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

// ---- layernorm_backward_fused_dparams ----------------------------------------------------------

@group(0) @binding(0) var<storage, read> ld_partials: array<vec4<f32>>;  // [n_blocks][2][d/4]
@group(0) @binding(1) var<storage, read_write> ld_dgamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> ld_dbeta: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> ld: LnParams;

// 4 vec4 columns x 64 lanes per workgroup: ceil(d / 16) workgroups.
@compute @workgroup_size(256, 1, 1)
fn layernorm_backward_fused_dparams(@builtin(local_invocation_index) tid: u32,
                                    @builtin(workgroup_id) wid: vec3<u32>,
                                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let d4 = ld.d / 4u;
    let c = (wid.y * nwg.x + wid.x) * 4u + tid % 4u;
    let lane = tid / 4u;
    let n_blocks = (ld.rows + ld.rows_per_block - 1u) / ld.rows_per_block;
    let valid = c < d4;
    var sg = vec4<f32>(0.0);
    var sb = vec4<f32>(0.0);
    if (valid) {
        for (var b = lane; b < n_blocks; b = b + 64u) {
            sg = sg + ld_partials[b * 2u * d4 + c];
            sb = sb + ld_partials[b * 2u * d4 + d4 + c];
        }
    }
    fb_v[tid] = sg;
    fb_w[tid] = sb;
    var s = 32u;
    loop {
        workgroupBarrier();
        if (s == 0u) { break; }
        if (lane < s) {
            fb_v[tid] = fb_v[tid] + fb_v[tid + 4u * s];
            fb_w[tid] = fb_w[tid] + fb_w[tid + 4u * s];
        }
        s = s >> 1u;
    }
    if (valid && lane == 0u) {
        ld_dgamma[c] = fb_v[tid];
        ld_dbeta[c] = fb_w[tid];
    }
}
