// 04_loss.wgsl: softmax cross-entropy over the vocabulary, forward, deterministic mean, backward.
// Reconstructed for wgslvk from TinyGPT's engineering log (the GPT-shaped trainer:
// the log's loss values, "loss 2.8650", come from this kernel, whose code it does not show), so
// the algorithm is ours, pinned in wgsl_ports/loss/reference.hpp. Plain WGSL (no `enable`).
//
// Layout: logits and dlogits row-major [rows, vocab] (any vocab: scalar, coalesced loads);
// targets, loss, lse [rows]; stats [2] = (mean loss, n_valid). A row is valid iff
// target < vocab and target != ignore_index; an ignored (or out-of-range) row has loss 0 and
// dlogits 0 and is not counted. Rows are workgroup ids over a 2-D grid (R12), one workgroup per
// row. All three kernels bind only the rows they need, so a host may run them over row chunks
// (sub-range bindings at 64-row multiples are 256-byte aligned for any vocab).
//
// cross_entropy_forward: one pass over the row with the online softmax (a running max m and
// sum s = sum exp(x - m) per thread, rescaled when the max grows), the 256 (m, s) pairs merged by
// a tree in workgroup memory; lse = m + log(s), loss = lse - logits[target]. Only differences
// x - m <= 0 reach exp, so logits of +-1e4 cannot overflow. lse is saved for the backward.
// Non-finite logits give a non-finite lse (NaN or inf) for that row.
// cross_entropy_mean: one workgroup; thread k adds the valid rows k, k + 256, ... in order, then a
// fixed tree: mean = sum / n_valid, bitwise identical on every run; 0 when n_valid = 0 (the count
// says so: stats[1] = f32(n_valid), exact below 2^24).
// cross_entropy_backward: dlogits = (exp(x - lse) - onehot(target)) * scale / n_valid with scale
// from the uniform and n_valid read from the mean kernel's stats on the device (no host
// read-back); 0 for every element of an ignored row.

const WG: u32 = 256u;
const NEG_BIG: f32 = -0x1.fffffep+127f;  // lowest finite f32: the running max before any element

struct CeParams {
    rows: u32,
    vocab: u32,
    ignore_index: u32,
    scale: f32,  // backward: dloss_scale (1.0 for a plain mean)
}

var<workgroup> sh_m: array<f32, 256>;
var<workgroup> sh_s: array<f32, 256>;
var<workgroup> sh_c: array<u32, 256>;

fn ce_valid(t: u32, vocab: u32, ignore_index: u32) -> bool {
    return t < vocab && t != ignore_index;
}

// ---- cross_entropy_forward ---------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> cf_logits: array<f32>;
@group(0) @binding(1) var<storage, read> cf_targets: array<u32>;
@group(0) @binding(2) var<storage, read_write> cf_loss: array<f32>;
@group(0) @binding(3) var<storage, read_write> cf_lse: array<f32>;
@group(0) @binding(4) var<uniform> cf: CeParams;

@compute @workgroup_size(256, 1, 1)
fn cross_entropy_forward(@builtin(local_invocation_index) tid: u32,
                         @builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = wid.y * nwg.x + wid.x;
    if (row >= cf.rows) { return; }
    let base = row * cf.vocab;

    var m = NEG_BIG;
    var s = 0.0;
    for (var j = tid; j < cf.vocab; j = j + WG) {
        let v = cf_logits[base + j];
        if (v > m) {
            s = s * exp(m - v) + 1.0;
            m = v;
        } else {
            s = s + exp(v - m);
        }
    }
    sh_m[tid] = m;
    sh_s[tid] = s;
    workgroupBarrier();
    var st = WG / 2u;
    loop {
        if (st == 0u) { break; }
        if (tid < st) {
            let m1 = sh_m[tid];
            let m2 = sh_m[tid + st];
            let mm = max(m1, m2);
            sh_s[tid] = sh_s[tid] * exp(m1 - mm) + sh_s[tid + st] * exp(m2 - mm);
            sh_m[tid] = mm;
        }
        workgroupBarrier();
        st = st >> 1u;
    }
    if (tid == 0u) {
        let lse = sh_m[0] + log(sh_s[0]);
        cf_lse[row] = lse;
        let t = cf_targets[row];
        var loss = 0.0;
        if (ce_valid(t, cf.vocab, cf.ignore_index)) {
            loss = lse - cf_logits[base + t];
        }
        cf_loss[row] = loss;
    }
}

// ---- cross_entropy_mean ------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> cm_loss: array<f32>;
@group(0) @binding(1) var<storage, read> cm_targets: array<u32>;
@group(0) @binding(2) var<storage, read_write> cm_stats: array<f32>;  // (mean, f32(n_valid))
@group(0) @binding(3) var<uniform> cm: CeParams;

@compute @workgroup_size(256, 1, 1)
fn cross_entropy_mean(@builtin(local_invocation_index) tid: u32,
                      @builtin(workgroup_id) wid: vec3<u32>) {
    if (wid.x + wid.y + wid.z != 0u) { return; }  // one workgroup does the work
    var s = 0.0;
    var c = 0u;
    for (var r = tid; r < cm.rows; r = r + WG) {
        if (ce_valid(cm_targets[r], cm.vocab, cm.ignore_index)) {
            s = s + cm_loss[r];
            c = c + 1u;
        }
    }
    sh_s[tid] = s;
    sh_c[tid] = c;
    workgroupBarrier();
    var st = WG / 2u;
    loop {
        if (st == 0u) { break; }
        if (tid < st) {
            sh_s[tid] = sh_s[tid] + sh_s[tid + st];
            sh_c[tid] = sh_c[tid] + sh_c[tid + st];
        }
        workgroupBarrier();
        st = st >> 1u;
    }
    if (tid == 0u) {
        let n = sh_c[0];
        var mean = 0.0;
        if (n > 0u) { mean = sh_s[0] / f32(n); }
        cm_stats[0] = mean;
        cm_stats[1] = f32(n);
    }
}

// ---- cross_entropy_backward --------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> cb_logits: array<f32>;
@group(0) @binding(1) var<storage, read> cb_targets: array<u32>;
@group(0) @binding(2) var<storage, read> cb_lse: array<f32>;
@group(0) @binding(3) var<storage, read> cb_stats: array<f32>;  // cross_entropy_mean's output
@group(0) @binding(4) var<storage, read_write> cb_dlogits: array<f32>;
@group(0) @binding(5) var<uniform> cb: CeParams;

@compute @workgroup_size(256, 1, 1)
fn cross_entropy_backward(@builtin(local_invocation_index) tid: u32,
                          @builtin(workgroup_id) wid: vec3<u32>,
                          @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = wid.y * nwg.x + wid.x;
    if (row >= cb.rows) { return; }
    let base = row * cb.vocab;
    let t = cb_targets[row];
    if (!ce_valid(t, cb.vocab, cb.ignore_index)) {
        for (var j = tid; j < cb.vocab; j = j + WG) {
            cb_dlogits[base + j] = 0.0;
        }
        return;
    }
    let scale = cb.scale / cb_stats[1];
    let lse = cb_lse[row];
    for (var j = tid; j < cb.vocab; j = j + WG) {
        let p = exp(cb_logits[base + j] - lse);
        cb_dlogits[base + j] = (p - select(0.0, 1.0, j == t)) * scale;
    }
}
