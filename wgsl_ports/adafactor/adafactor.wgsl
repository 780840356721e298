// adafactor.wgsl: NOT FROM THE BROWSER ENGINE (the browser trainer has no Adafactor). wgslvk's own
// kernels for the speed-optimized Adafactor of forgather's Triton notes (adafactor_triton.py), with
// torch.optim.Adafactor's definitions (PyTorch >= 2.5, torch/optim/_adafactor.py), plain WGSL (no
// `enable`) so Dawn runs it too. The formulas, per tensor at step t (README.md):
//   beta_w = t^beta2_decay (beta2_decay = -0.8: beta2_t = 1 - t^-0.8, the paper's schedule)
//   2-D [R, C]: row_var = lerp(row_var, rowmean(g^2), beta_w); col_var = lerp(col_var, colmean(g^2), beta_w)
//               u = g * min(rsqrt(row_var / max(mean(row_var), eps1)) * rsqrt(col_var), 1 / eps1)
//               (= g * rsqrt(max(row_var * col_var / max(mean(row_var), eps1), eps1^2)), torch's var_estimate)
//   1-D [n]:    v = lerp(v, g^2, beta_w);  u = g * rsqrt(max(v, eps1^2))
//   step = alpha / max(1, rms(u) / d), alpha = rho * (scale_param ? max(eps2, rms(w)) : 1)
//   w = w * (1 - lr * weight_decay) - step * u     (rms(w) taken before the decay, as torch does)
// A non-finite gradient element counts as 0 everywhere (the sums, the EMA, the RMS, the update):
// AdamW's rule (wgsl_ports/optimizer/README.md, adamw_update's is_finite select).
//
// The seed's persistent update kernel spins on a completion counter between its RMS phase and its
// apply phase. WebGPU and Vulkan promise no forward progress between workgroups, so a spin-wait
// can hang (a waiting workgroup may keep the one it waits for from ever being scheduled). DECISION:
// separate dispatches in one compute pass; the RMS goes through device memory as per-workgroup
// partials (adafactor_update_rms writes them, adafactor_apply_2d reads them), and every apply
// workgroup sums the same partials in the same fixed order (the seed's "clip_scale computed
// redundantly per-block"), so no finalize dispatch and no host round trip. No native variant
// spins either: the same rule holds on Vulkan.
//
// Determinism: no atomics anywhere. Every sum is per-thread sequential, then a fixed tree or
// fixed-order loop over per-workgroup partials whose count depends on the shape only: the same
// bits on every run and every device that rounds the same.
//
// adafactor_sq_sums reads the gradient ONCE for both the row and the column sums of g^2 (the seed
// reads it twice, one kernel per direction), without materializing g^2: a workgroup covers a
// 128 x 256 tile in 32 x 64 sub-tiles; the column sums stay in registers, the row sums go through
// one 8 KB sub-tile in workgroup memory.

const WG: u32 = 256u;
const TX: u32 = 64u;   // columns of a sub-tile (threads along x)
const TY: u32 = 4u;    // thread rows
const SR: u32 = 32u;   // rows of a sub-tile
const WC: u32 = 256u;  // columns per workgroup tile (4 sub-tiles; also the 2-D update's width)
const WR: u32 = 128u;  // rows per workgroup tile (4 sub-tiles; also the 2-D update's height)
const TINY: f32 = 1.17549435e-38;  // smallest normal: rsqrt never sees 0 (indeterminate in WGSL)

struct AfDims {
    rows: u32,    // 2-D: R; 1-D: 1
    cols: u32,    // 2-D: C; 1-D: n
    nbx: u32,     // 2-D tile grid: ceil(C / 256) x ceil(R / 128)
    nby: u32,
    nparts: u32,  // per-workgroup partials of rms(u) and rms(w): 2-D nbx * nby, 1-D the ema grid
    n: u32,       // elements
    pad0: u32,
    pad1: u32,
}

struct AfHp {
    beta_w: f32,       // t^beta2_decay (lerp weight)
    eps1: f32,
    eps1_sq: f32,      // f32(eps1 * eps1) computed in double (torch: clamp_(min=eps1 * eps1))
    inv_eps1: f32,     // f32(1 / eps1) in double: the 2-D factor's clamp
    eps2: f32,
    d: f32,            // clip threshold (> 0)
    rho: f32,          // lr, or min(lr, 1 / sqrt(t)) with relative_step
    decay: f32,        // f32(1 - lr * weight_decay) in double (1 for no-decay tensors)
    scale_param: f32,  // 1: alpha = rho * max(eps2, rms(w)) (torch); 0: alpha = rho
    pad0: f32,
    pad1: f32,
    pad2: f32,
}

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// WGSL has no isFinite: test the exponent bits (R15).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// a non-finite gradient element counts as 0
fn fin(x: f32) -> f32 {
    return select(0.0, x, is_finite(x));
}

// torch.lerp's formula (ATen lerp): weight < 0.5 from the start, else from the end, so weight 1
// (step 1) gives the end exactly.
fn lerp_t(a: f32, b: f32, w: f32) -> f32 {
    if (w < 0.5) { return a + w * (b - a); }
    return b - (b - a) * (1.0 - w);
}

var<workgroup> sh_tile: array<f32, 2048>;  // SR x TX
var<workgroup> sh_red: array<f32, 256>;
var<workgroup> sh_red2: array<f32, 256>;

// ---- adafactor_sq_sums: row and column partial sums of g^2 in one pass ----------------------

@group(0) @binding(0) var<storage, read> sq_g: array<f32>;
@group(0) @binding(1) var<storage, read> sq_w: array<f32>;
@group(0) @binding(2) var<storage, read_write> sq_row_part: array<f32>;  // [nbx][R]
@group(0) @binding(3) var<storage, read_write> sq_col_part: array<f32>;  // [nby][C]
@group(0) @binding(4) var<storage, read_write> sq_p_part: array<f32>;    // [nby * nbx]: sum w^2
@group(0) @binding(5) var<uniform> sq_dims: AfDims;
@group(0) @binding(6) var<uniform> sq_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_sq_sums(@builtin(local_invocation_index) tid: u32,
                     @builtin(workgroup_id) wid: vec3<u32>) {
    let rows = sq_dims.rows;
    let cols = sq_dims.cols;
    let tx = tid % TX;
    let ty = tid / TX;
    let c0 = wid.x * WC;
    let r0 = wid.y * WR;
    let use_p = sq_hp.scale_param != 0.0;
    let lane_row = tid / 8u;  // the sub-tile row this thread sums
    let seg = tid % 8u;       // its 8-column segment
    var col_acc = vec4<f32>(0.0);  // one per column sub-tile
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
                    let i = r * cols + c;
                    let g = fin(sq_g[i]);
                    v = g * g;
                    if (use_p) {
                        let p = sq_w[i];
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
            if (r < rows) { sq_row_part[wid.x * rows + r] = s; }
        }
        workgroupBarrier();
    }
    for (var cb = 0u; cb < WC / TX; cb = cb + 1u) {
        sh_red[tid] = col_acc[cb];
        workgroupBarrier();
        if (tid < TX) {
            let s = (sh_red[tid] + sh_red[TX + tid]) + (sh_red[2u * TX + tid] + sh_red[3u * TX + tid]);
            let c = c0 + cb * TX + tid;
            if (c < cols) { sq_col_part[wid.y * cols + c] = s; }
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
        if (tid == 0u) { sq_p_part[wid.y * sq_dims.nbx + wid.x] = sh_red[0]; }
    }
}

// ---- adafactor_factor_ema: finish the sums, EMA of row/column state, rsqrt(col) ---------------

@group(0) @binding(0) var<storage, read> fe_row_part: array<f32>;
@group(0) @binding(1) var<storage, read> fe_col_part: array<f32>;
@group(0) @binding(2) var<storage, read_write> fe_row_var: array<f32>;  // [R] state
@group(0) @binding(3) var<storage, read_write> fe_col_var: array<f32>;  // [C] state
@group(0) @binding(4) var<storage, read_write> fe_rc: array<f32>;       // [C] rsqrt(col_var)
@group(0) @binding(5) var<uniform> fe_dims: AfDims;
@group(0) @binding(6) var<uniform> fe_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_factor_ema(@builtin(global_invocation_id) gid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let rows = fe_dims.rows;
    let cols = fe_dims.cols;
    if (i < rows) {
        var s: f32 = 0.0;
        for (var b = 0u; b < fe_dims.nbx; b = b + 1u) {
            s = s + fe_row_part[b * rows + i];
        }
        let mean = s / f32(cols);
        fe_row_var[i] = lerp_t(fe_row_var[i], mean, fe_hp.beta_w);
    } else if (i < rows + cols) {
        let j = i - rows;
        var s: f32 = 0.0;
        for (var b = 0u; b < fe_dims.nby; b = b + 1u) {
            s = s + fe_col_part[b * cols + j];
        }
        let mean = s / f32(rows);
        let cv = lerp_t(fe_col_var[j], mean, fe_hp.beta_w);
        fe_col_var[j] = cv;
        fe_rc[j] = inverseSqrt(max(cv, TINY));
    }
}

// ---- adafactor_row_rsqrt: one workgroup: mean(row_var), rsqrt(row_var / max(mean, eps1)) ------

@group(0) @binding(0) var<storage, read> rs_row_var: array<f32>;
@group(0) @binding(1) var<storage, read_write> rs_rr: array<f32>;  // [R]
@group(0) @binding(2) var<uniform> rs_dims: AfDims;
@group(0) @binding(3) var<uniform> rs_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_row_rsqrt(@builtin(local_invocation_index) tid: u32) {
    let rows = rs_dims.rows;
    var acc: f32 = 0.0;
    for (var k = tid; k < rows; k = k + WG) {
        acc = acc + rs_row_var[k];
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
    let denom = max(mean, rs_hp.eps1);
    for (var k = tid; k < rows; k = k + WG) {
        rs_rr[k] = inverseSqrt(max(rs_row_var[k] / denom, TINY));
    }
}

// ---- adafactor_update_rms: per-workgroup partial sums of u^2 (2-D) ----------------------------

@group(0) @binding(0) var<storage, read> ur_g: array<f32>;
@group(0) @binding(1) var<storage, read> ur_rr: array<f32>;
@group(0) @binding(2) var<storage, read> ur_rc: array<f32>;
@group(0) @binding(3) var<storage, read_write> ur_part: array<f32>;  // [nby * nbx]
@group(0) @binding(4) var<uniform> ur_dims: AfDims;
@group(0) @binding(5) var<uniform> ur_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_update_rms(@builtin(local_invocation_index) tid: u32,
                        @builtin(workgroup_id) wid: vec3<u32>) {
    let rows = ur_dims.rows;
    let cols = ur_dims.cols;
    let c = wid.x * WC + tid;
    let r0 = wid.y * WR;
    var acc: f32 = 0.0;
    if (c < cols) {
        let fc = ur_rc[c];
        for (var k = 0u; k < WR; k = k + 1u) {
            let r = r0 + k;
            if (r >= rows) { break; }
            let g = fin(ur_g[r * cols + c]);
            let u = g * min(ur_rr[r] * fc, ur_hp.inv_eps1);
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
    if (tid == 0u) { ur_part[wid.y * ur_dims.nbx + wid.x] = sh_red[0]; }
}

// ---- adafactor_apply_2d: clip scale from the partials, weight decay, update -------------------

@group(0) @binding(0) var<storage, read_write> a2_w: array<f32>;
@group(0) @binding(1) var<storage, read> a2_g: array<f32>;
@group(0) @binding(2) var<storage, read> a2_rr: array<f32>;
@group(0) @binding(3) var<storage, read> a2_rc: array<f32>;
@group(0) @binding(4) var<storage, read> a2_rms_part: array<f32>;
@group(0) @binding(5) var<storage, read> a2_p_part: array<f32>;
@group(0) @binding(6) var<uniform> a2_dims: AfDims;
@group(0) @binding(7) var<uniform> a2_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_apply_2d(@builtin(local_invocation_index) tid: u32,
                      @builtin(workgroup_id) wid: vec3<u32>) {
    // the step scale, redundantly per workgroup: the same partials in the same order everywhere
    let use_p = a2_hp.scale_param != 0.0;
    var su: f32 = 0.0;
    var sp: f32 = 0.0;
    for (var k = tid; k < a2_dims.nparts; k = k + WG) {
        su = su + a2_rms_part[k];
        if (use_p) { sp = sp + a2_p_part[k]; }
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
    let nf = f32(a2_dims.n);
    let denom = max(1.0, sqrt(sh_red[0] / nf) / a2_hp.d);
    var alpha = a2_hp.rho;
    if (use_p) { alpha = alpha * max(a2_hp.eps2, sqrt(sh_red2[0] / nf)); }
    let step = alpha / denom;

    let rows = a2_dims.rows;
    let cols = a2_dims.cols;
    let c = wid.x * WC + tid;
    let r0 = wid.y * WR;
    if (c < cols) {
        let fc = a2_rc[c];
        for (var k = 0u; k < WR; k = k + 1u) {
            let r = r0 + k;
            if (r >= rows) { break; }
            let i = r * cols + c;
            let g = fin(a2_g[i]);
            let u = g * min(a2_rr[r] * fc, a2_hp.inv_eps1);
            let wd = a2_w[i] * a2_hp.decay;
            a2_w[i] = wd - step * u;
        }
    }
}

// ---- adafactor_ema_1d: v = lerp(v, g^2, beta_w), partial sums of u^2 and w^2 ------------------

@group(0) @binding(0) var<storage, read> e1_g: array<f32>;
@group(0) @binding(1) var<storage, read> e1_w: array<f32>;
@group(0) @binding(2) var<storage, read_write> e1_v: array<f32>;
@group(0) @binding(3) var<storage, read_write> e1_rms_part: array<f32>;  // one per workgroup
@group(0) @binding(4) var<storage, read_write> e1_p_part: array<f32>;
@group(0) @binding(5) var<uniform> e1_dims: AfDims;
@group(0) @binding(6) var<uniform> e1_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_ema_1d(@builtin(global_invocation_id) gid: vec3<u32>,
                    @builtin(local_invocation_index) tid: u32,
                    @builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let use_p = e1_hp.scale_param != 0.0;
    let grid_size = nwg.x * nwg.y * WG;
    var acc: f32 = 0.0;
    var pacc: f32 = 0.0;
    var i = flat_id(gid, nwg);
    loop {
        if (i >= e1_dims.n) { break; }
        let g = fin(e1_g[i]);
        let v = lerp_t(e1_v[i], g * g, e1_hp.beta_w);
        e1_v[i] = v;
        let u = g * inverseSqrt(max(v, e1_hp.eps1_sq));
        acc = acc + u * u;
        if (use_p) {
            let p = e1_w[i];
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
        let slot = wid.y * nwg.x + wid.x;
        e1_rms_part[slot] = sh_red[0];
        if (use_p) { e1_p_part[slot] = sh_red2[0]; }
    }
}

// ---- adafactor_apply_1d ------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read_write> a1_w: array<f32>;
@group(0) @binding(1) var<storage, read> a1_g: array<f32>;
@group(0) @binding(2) var<storage, read> a1_v: array<f32>;
@group(0) @binding(3) var<storage, read> a1_rms_part: array<f32>;
@group(0) @binding(4) var<storage, read> a1_p_part: array<f32>;
@group(0) @binding(5) var<uniform> a1_dims: AfDims;
@group(0) @binding(6) var<uniform> a1_hp: AfHp;

@compute @workgroup_size(256, 1, 1)
fn adafactor_apply_1d(@builtin(global_invocation_id) gid: vec3<u32>,
                      @builtin(local_invocation_index) tid: u32,
                      @builtin(num_workgroups) nwg: vec3<u32>) {
    let use_p = a1_hp.scale_param != 0.0;
    var su: f32 = 0.0;
    var sp: f32 = 0.0;
    for (var k = tid; k < a1_dims.nparts; k = k + WG) {
        su = su + a1_rms_part[k];
        if (use_p) { sp = sp + a1_p_part[k]; }
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
    let nf = f32(a1_dims.n);
    let denom = max(1.0, sqrt(sh_red[0] / nf) / a1_hp.d);
    var alpha = a1_hp.rho;
    if (use_p) { alpha = alpha * max(a1_hp.eps2, sqrt(sh_red2[0] / nf)); }
    let step = alpha / denom;

    let i = flat_id(gid, nwg);
    if (i < a1_dims.n) {
        let g = fin(a1_g[i]);
        let u = g * inverseSqrt(max(a1_v[i], a1_hp.eps1_sq));
        let wd = a1_w[i] * a1_hp.decay;
        a1_w[i] = wd - step * u;
    }
}
