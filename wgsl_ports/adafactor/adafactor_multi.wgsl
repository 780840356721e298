// adafactor_multi.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own batched multi-tensor Adafactor
// (issue 13): the kernels of adafactor.wgsl (its header states the formulas, the non-finite rule
// and the no-spin-wait decision), each run ONCE PER PHASE over ALL tensors of a step instead of
// once per tensor. A step is 7 dispatches whatever the tensor count: sq_sums (every 2-D tensor),
// ema_1d (every 1-D tensor), factor_ema, row_rsqrt, update_rms, apply_2d, apply_1d.
//
// The tensors live in mega-buffers (w, g, state, partials, factors) bound whole; a read-only
// tensor table (one AfTensor per tensor, 2-D and 1-D tensors in separate tables) gives each
// tensor's offsets, shape, partial counts and its first workgroup in the phase's grid (wg_a,
// wg_b: prefix sums of the per-tensor workgroup counts, ascending).
//
// DECISION (tensor lookup): each workgroup finds its tensor by a binary search over the
// first-workgroup column (log2(tensors) loads of one table, <= 7 for the 110M model), not a
// per-workgroup tensor index array: the table stays O(tensors) whatever the shapes (an index
// array is O(workgroups): 3.4k entries for 110M, 10^5 for large tensors, and one array per
// phase grid), and it needs no host rebuild when only the grid changes. The search depends on
// the workgroup id and read-only storage only, so it is workgroup-uniform and the early return of
// the padding workgroups (a 2-D grid for > 65535 workgroups rounds up) precedes every barrier.
//
// NUMERICS: every workgroup runs adafactor.wgsl's body for its tensor with the workgroup id that
// tensor's own dispatch would have given it (tile (bx, by) = local index % nbx, / nbx; ema_1d's
// grid stride nparts * 256, nparts <= 1024 so the per-tensor grid is 1-D too), the same partial
// tiling and the same reduction order: the step is BITWISE identical to the per-tensor path
// (tested over several steps). Tensors never share a w / g / state / partial range, so their
// order within a phase does not matter.
//
// Weight decay: the uniform holds the decay tensors' AfHp; a table entry with decay_on = 0 uses
// 1.0 (the no-decay AfHp differs only in that field, reference.cpp scalars(): w * 1.0 is exact).

const WG: u32 = 256u;
const TX: u32 = 64u;
const TY: u32 = 4u;
const SR: u32 = 32u;
const WC: u32 = 256u;
const WR: u32 = 128u;
const TINY: f32 = 1.17549435e-38;

struct AfHp {
    beta_w: f32,
    eps1: f32,
    eps1_sq: f32,
    inv_eps1: f32,
    eps2: f32,
    d: f32,
    rho: f32,
    decay: f32,
    scale_param: f32,
    pad0: f32,
    pad1: f32,
    pad2: f32,
}

// One tensor of a batched phase; offsets in f32 elements from the start of each binding.
struct AfTensor {
    wg_a: u32,      // first workgroup: 2-D the tile grid (sq_sums, update_rms, apply_2d); 1-D ema_1d
    wg_b: u32,      // first workgroup: 2-D factor_ema; 1-D apply_1d
    decay_on: u32,  // 1: w *= hp.decay; 0: no weight decay
    w: u32,         // w and g
    rows: u32,      // 2-D: R; 1-D: 1
    cols: u32,      // 2-D: C; 1-D: n
    nbx: u32,       // 2-D tile grid (1-D: 0)
    nby: u32,
    nparts: u32,    // partials of rms(u) and rms(w)
    n: u32,         // elements
    s0: u32,        // state: 2-D row_var, 1-D v
    s1: u32,        // state: 2-D col_var
    row_part: u32,  // partials buffer
    col_part: u32,
    p_part: u32,
    rms_part: u32,
    rr: u32,        // factors buffer
    rc: u32,
    pad0: u32,
    pad1: u32,
}

fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

fn fin(x: f32) -> f32 {
    return select(0.0, x, is_finite(x));
}

fn lerp_t(a: f32, b: f32, w: f32) -> f32 {
    if (w < 0.5) { return a + w * (b - a); }
    return b - (b - a) * (1.0 - w);
}

var<workgroup> sh_tile: array<f32, 2048>;
var<workgroup> sh_red: array<f32, 256>;
var<workgroup> sh_red2: array<f32, 256>;

// ---- adafactor_multi_sq_sums: adafactor_sq_sums over every 2-D tensor --------------------------

@group(0) @binding(0) var<storage, read> ms_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> ms_hp: AfHp;
@group(0) @binding(2) var<storage, read> ms_g: array<f32>;
@group(0) @binding(3) var<storage, read> ms_w: array<f32>;
@group(0) @binding(4) var<storage, read_write> ms_part: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_sq_sums(@builtin(local_invocation_index) tid: u32,
                           @builtin(workgroup_id) wid: vec3<u32>,
                           @builtin(num_workgroups) nwg: vec3<u32>) {
    let lw = wid.y * nwg.x + wid.x;
    var lo = 0u;
    var hi = arrayLength(&ms_tab);
    loop {
        if (hi - lo <= 1u) { break; }
        let mid = (lo + hi) / 2u;
        if (ms_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    let t = ms_tab[lo];
    let lt = lw - t.wg_a;
    if (lt >= t.nbx * t.nby) { return; }
    let bx = lt % t.nbx;
    let by = lt / t.nbx;

    let rows = t.rows;
    let cols = t.cols;
    let tx = tid % TX;
    let ty = tid / TX;
    let c0 = bx * WC;
    let r0 = by * WR;
    let use_p = ms_hp.scale_param != 0.0;
    let lane_row = tid / 8u;
    let seg = tid % 8u;
    var col_acc = vec4<f32>(0.0);
    var p_acc: f32 = 0.0;
    for (var rb = 0u; rb < WR / SR; rb = rb + 1u) {
        var row_acc: f32 = 0.0;
        for (var cb = 0u; cb < WC / TX; cb = cb + 1u) {
            let c = c0 + cb * TX + tx;
            var part: f32 = 0.0;
            for (var k = 0u; k < SR / TY; k = k + 1u) {
                let lr = k * TY + ty;
                let r = r0 + rb * SR + lr;
                var v: f32 = 0.0;
                if (r < rows && c < cols) {
                    let i = t.w + r * cols + c;
                    let g = fin(ms_g[i]);
                    v = g * g;
                    if (use_p) {
                        let p = ms_w[i];
                        p_acc = p_acc + p * p;
                    }
                }
                sh_tile[lr * TX + tx] = v;
                part = part + v;
            }
            col_acc[cb] = col_acc[cb] + part;
            workgroupBarrier();
            var s: f32 = 0.0;
            for (var j = 0u; j < 8u; j = j + 1u) {
                s = s + sh_tile[lane_row * TX + seg * 8u + j];
            }
            row_acc = row_acc + s;
            workgroupBarrier();
        }
        sh_red[tid] = row_acc;
        workgroupBarrier();
        if (tid < SR) {
            var s: f32 = 0.0;
            for (var j = 0u; j < 8u; j = j + 1u) {
                s = s + sh_red[tid * 8u + j];
            }
            let r = r0 + rb * SR + tid;
            if (r < rows) { ms_part[t.row_part + bx * rows + r] = s; }
        }
        workgroupBarrier();
    }
    for (var cb = 0u; cb < WC / TX; cb = cb + 1u) {
        sh_red[tid] = col_acc[cb];
        workgroupBarrier();
        if (tid < TX) {
            let s = (sh_red[tid] + sh_red[TX + tid]) + (sh_red[2u * TX + tid] + sh_red[3u * TX + tid]);
            let c = c0 + cb * TX + tid;
            if (c < cols) { ms_part[t.col_part + by * cols + c] = s; }
        }
        workgroupBarrier();
    }
    if (use_p) {
        sh_red[tid] = p_acc;
        workgroupBarrier();
        var s = WG / 2u;
        loop {
            if (s == 0u) { break; }
            if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
            workgroupBarrier();
            s = s >> 1u;
        }
        if (tid == 0u) { ms_part[t.p_part + by * t.nbx + bx] = sh_red[0]; }
    }
}

// ---- adafactor_multi_factor_ema: adafactor_factor_ema over every 2-D tensor --------------------

@group(0) @binding(0) var<storage, read> mf_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> mf_hp: AfHp;
@group(0) @binding(2) var<storage, read> mf_part: array<f32>;
@group(0) @binding(3) var<storage, read_write> mf_state: array<f32>;
@group(0) @binding(4) var<storage, read_write> mf_fac: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_factor_ema(@builtin(local_invocation_index) tid: u32,
                              @builtin(workgroup_id) wid: vec3<u32>,
                              @builtin(num_workgroups) nwg: vec3<u32>) {
    let lw = wid.y * nwg.x + wid.x;
    var lo = 0u;
    var hi = arrayLength(&mf_tab);
    loop {
        if (hi - lo <= 1u) { break; }
        let mid = (lo + hi) / 2u;
        if (mf_tab[mid].wg_b <= lw) { lo = mid; } else { hi = mid; }
    }
    let t = mf_tab[lo];
    let i = (lw - t.wg_b) * WG + tid;
    let rows = t.rows;
    let cols = t.cols;
    if (i < rows) {
        var s: f32 = 0.0;
        for (var b = 0u; b < t.nbx; b = b + 1u) {
            s = s + mf_part[t.row_part + b * rows + i];
        }
        let mean = s / f32(cols);
        mf_state[t.s0 + i] = lerp_t(mf_state[t.s0 + i], mean, mf_hp.beta_w);
    } else if (i < rows + cols) {
        let j = i - rows;
        var s: f32 = 0.0;
        for (var b = 0u; b < t.nby; b = b + 1u) {
            s = s + mf_part[t.col_part + b * cols + j];
        }
        let mean = s / f32(rows);
        let cv = lerp_t(mf_state[t.s1 + j], mean, mf_hp.beta_w);
        mf_state[t.s1 + j] = cv;
        mf_fac[t.rc + j] = inverseSqrt(max(cv, TINY));
    }
}

// ---- adafactor_multi_row_rsqrt: adafactor_row_rsqrt, workgroup k for 2-D tensor k --------------

@group(0) @binding(0) var<storage, read> mr_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> mr_hp: AfHp;
@group(0) @binding(2) var<storage, read> mr_state: array<f32>;
@group(0) @binding(3) var<storage, read_write> mr_fac: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_row_rsqrt(@builtin(local_invocation_index) tid: u32,
                             @builtin(workgroup_id) wid: vec3<u32>,
                             @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = wid.y * nwg.x + wid.x;
    if (k >= arrayLength(&mr_tab)) { return; }
    let t = mr_tab[k];
    let rows = t.rows;
    var acc: f32 = 0.0;
    for (var q = tid; q < rows; q = q + WG) {
        acc = acc + mr_state[t.s0 + q];
    }
    sh_red[tid] = acc;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
        workgroupBarrier();
        s = s >> 1u;
    }
    let mean = sh_red[0] / f32(rows);
    let denom = max(mean, mr_hp.eps1);
    for (var q = tid; q < rows; q = q + WG) {
        mr_fac[t.rr + q] = inverseSqrt(max(mr_state[t.s0 + q] / denom, TINY));
    }
}

// ---- adafactor_multi_update_rms: adafactor_update_rms over every 2-D tensor --------------------

@group(0) @binding(0) var<storage, read> mu_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> mu_hp: AfHp;
@group(0) @binding(2) var<storage, read> mu_g: array<f32>;
@group(0) @binding(3) var<storage, read> mu_fac: array<f32>;
@group(0) @binding(4) var<storage, read_write> mu_part: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_update_rms(@builtin(local_invocation_index) tid: u32,
                              @builtin(workgroup_id) wid: vec3<u32>,
                              @builtin(num_workgroups) nwg: vec3<u32>) {
    let lw = wid.y * nwg.x + wid.x;
    var lo = 0u;
    var hi = arrayLength(&mu_tab);
    loop {
        if (hi - lo <= 1u) { break; }
        let mid = (lo + hi) / 2u;
        if (mu_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    let t = mu_tab[lo];
    let lt = lw - t.wg_a;
    if (lt >= t.nbx * t.nby) { return; }
    let bx = lt % t.nbx;
    let by = lt / t.nbx;

    let rows = t.rows;
    let cols = t.cols;
    let c = bx * WC + tid;
    let r0 = by * WR;
    var acc: f32 = 0.0;
    if (c < cols) {
        let fc = mu_fac[t.rc + c];
        for (var k = 0u; k < WR; k = k + 1u) {
            let r = r0 + k;
            if (r >= rows) { break; }
            let g = fin(mu_g[t.w + r * cols + c]);
            let u = g * min(mu_fac[t.rr + r] * fc, mu_hp.inv_eps1);
            acc = acc + u * u;
        }
    }
    sh_red[tid] = acc;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
        workgroupBarrier();
        s = s >> 1u;
    }
    if (tid == 0u) { mu_part[t.rms_part + by * t.nbx + bx] = sh_red[0]; }
}

// ---- adafactor_multi_apply_2d: adafactor_apply_2d over every 2-D tensor ------------------------

@group(0) @binding(0) var<storage, read> ma_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> ma_hp: AfHp;
@group(0) @binding(2) var<storage, read_write> ma_w: array<f32>;
@group(0) @binding(3) var<storage, read> ma_g: array<f32>;
@group(0) @binding(4) var<storage, read> ma_fac: array<f32>;
@group(0) @binding(5) var<storage, read> ma_part: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_apply_2d(@builtin(local_invocation_index) tid: u32,
                            @builtin(workgroup_id) wid: vec3<u32>,
                            @builtin(num_workgroups) nwg: vec3<u32>) {
    let lw = wid.y * nwg.x + wid.x;
    var lo = 0u;
    var hi = arrayLength(&ma_tab);
    loop {
        if (hi - lo <= 1u) { break; }
        let mid = (lo + hi) / 2u;
        if (ma_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    let t = ma_tab[lo];
    let lt = lw - t.wg_a;
    if (lt >= t.nbx * t.nby) { return; }
    let bx = lt % t.nbx;
    let by = lt / t.nbx;

    let use_p = ma_hp.scale_param != 0.0;
    var su: f32 = 0.0;
    var sp: f32 = 0.0;
    for (var k = tid; k < t.nparts; k = k + WG) {
        su = su + ma_part[t.rms_part + k];
        if (use_p) { sp = sp + ma_part[t.p_part + k]; }
    }
    sh_red[tid] = su;
    sh_red2[tid] = sp;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_red[tid] = sh_red[tid] + sh_red[tid + s];
            sh_red2[tid] = sh_red2[tid] + sh_red2[tid + s];
        }
        workgroupBarrier();
        s = s >> 1u;
    }
    let nf = f32(t.n);
    let denom = max(1.0, sqrt(sh_red[0] / nf) / ma_hp.d);
    var alpha = ma_hp.rho;
    if (use_p) { alpha = alpha * max(ma_hp.eps2, sqrt(sh_red2[0] / nf)); }
    let step = alpha / denom;
    let decay = select(1.0, ma_hp.decay, t.decay_on != 0u);

    let rows = t.rows;
    let cols = t.cols;
    let c = bx * WC + tid;
    let r0 = by * WR;
    if (c < cols) {
        let fc = ma_fac[t.rc + c];
        for (var k = 0u; k < WR; k = k + 1u) {
            let r = r0 + k;
            if (r >= rows) { break; }
            let i = t.w + r * cols + c;
            let g = fin(ma_g[i]);
            let u = g * min(ma_fac[t.rr + r] * fc, ma_hp.inv_eps1);
            let wd = ma_w[i] * decay;
            ma_w[i] = wd - step * u;
        }
    }
}

// ---- adafactor_multi_ema_1d: adafactor_ema_1d over every 1-D tensor ----------------------------

@group(0) @binding(0) var<storage, read> me_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> me_hp: AfHp;
@group(0) @binding(2) var<storage, read> me_g: array<f32>;
@group(0) @binding(3) var<storage, read> me_w: array<f32>;
@group(0) @binding(4) var<storage, read_write> me_state: array<f32>;
@group(0) @binding(5) var<storage, read_write> me_part: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_ema_1d(@builtin(local_invocation_index) tid: u32,
                          @builtin(workgroup_id) wid: vec3<u32>,
                          @builtin(num_workgroups) nwg: vec3<u32>) {
    let lw = wid.y * nwg.x + wid.x;
    var lo = 0u;
    var hi = arrayLength(&me_tab);
    loop {
        if (hi - lo <= 1u) { break; }
        let mid = (lo + hi) / 2u;
        if (me_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    let t = me_tab[lo];
    let lt = lw - t.wg_a;
    if (lt >= t.nparts) { return; }

    let use_p = me_hp.scale_param != 0.0;
    let grid_size = t.nparts * WG;
    var acc: f32 = 0.0;
    var pacc: f32 = 0.0;
    var i = lt * WG + tid;
    loop {
        if (i >= t.n) { break; }
        let g = fin(me_g[t.w + i]);
        let v = lerp_t(me_state[t.s0 + i], g * g, me_hp.beta_w);
        me_state[t.s0 + i] = v;
        let u = g * inverseSqrt(max(v, me_hp.eps1_sq));
        acc = acc + u * u;
        if (use_p) {
            let p = me_w[t.w + i];
            pacc = pacc + p * p;
        }
        i = i + grid_size;
    }
    sh_red[tid] = acc;
    sh_red2[tid] = pacc;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_red[tid] = sh_red[tid] + sh_red[tid + s];
            sh_red2[tid] = sh_red2[tid] + sh_red2[tid + s];
        }
        workgroupBarrier();
        s = s >> 1u;
    }
    if (tid == 0u) {
        me_part[t.rms_part + lt] = sh_red[0];
        if (use_p) { me_part[t.p_part + lt] = sh_red2[0]; }
    }
}

// ---- adafactor_multi_apply_1d: adafactor_apply_1d over every 1-D tensor ------------------------

@group(0) @binding(0) var<storage, read> mb_tab: array<AfTensor>;
@group(0) @binding(1) var<uniform> mb_hp: AfHp;
@group(0) @binding(2) var<storage, read_write> mb_w: array<f32>;
@group(0) @binding(3) var<storage, read> mb_g: array<f32>;
@group(0) @binding(4) var<storage, read> mb_state: array<f32>;
@group(0) @binding(5) var<storage, read> mb_part: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn adafactor_multi_apply_1d(@builtin(local_invocation_index) tid: u32,
                            @builtin(workgroup_id) wid: vec3<u32>,
                            @builtin(num_workgroups) nwg: vec3<u32>) {
    let lw = wid.y * nwg.x + wid.x;
    var lo = 0u;
    var hi = arrayLength(&mb_tab);
    loop {
        if (hi - lo <= 1u) { break; }
        let mid = (lo + hi) / 2u;
        if (mb_tab[mid].wg_b <= lw) { lo = mid; } else { hi = mid; }
    }
    let t = mb_tab[lo];
    let lt = lw - t.wg_b;
    if (lt * WG >= t.n) { return; }

    let use_p = mb_hp.scale_param != 0.0;
    var su: f32 = 0.0;
    var sp: f32 = 0.0;
    for (var k = tid; k < t.nparts; k = k + WG) {
        su = su + mb_part[t.rms_part + k];
        if (use_p) { sp = sp + mb_part[t.p_part + k]; }
    }
    sh_red[tid] = su;
    sh_red2[tid] = sp;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_red[tid] = sh_red[tid] + sh_red[tid + s];
            sh_red2[tid] = sh_red2[tid] + sh_red2[tid + s];
        }
        workgroupBarrier();
        s = s >> 1u;
    }
    let nf = f32(t.n);
    let denom = max(1.0, sqrt(sh_red[0] / nf) / mb_hp.d);
    var alpha = mb_hp.rho;
    if (use_p) { alpha = alpha * max(mb_hp.eps2, sqrt(sh_red2[0] / nf)); }
    let step = alpha / denom;
    let decay = select(1.0, mb_hp.decay, t.decay_on != 0u);

    let i = lt * WG + tid;
    if (i < t.n) {
        let g = fin(mb_g[t.w + i]);
        let u = g * inverseSqrt(max(mb_state[t.s0 + i], mb_hp.eps1_sq));
        let wd = mb_w[t.w + i] * decay;
        mb_w[t.w + i] = wd - step * u;
    }
}
