// optimizer_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own kernels beside the
// 12_optimizer.wgsl ports, written in WGSL so the same ABI check covers their GLSL ports and Dawn
// can run them too (plain WGSL, no `enable`).
//
// reduce_norm_sq_partials + finalize_grad_stats_partials: the deterministic gradient norm. The
// seed's reduce_norm_sq CAS-adds one f32 per workgroup into a scalar in whatever order the
// workgroups finish, so the norm (and clipScale, and every weight) can differ in the last bit from
// run to run (shared/seeds/000, "reduce_norm_sq — Atomic Reduction"). Here every workgroup writes
// its tree-reduced partial sum to its own slot (no atomics), and one workgroup sums the slots in a
// fixed tree order. For a fixed element count and workgroup count (the host fixes both from the
// layout alone) the result is bitwise identical on every run.
//
// adamw_one_call: the fused AdamW of shared/seeds/002_808a56625505f765.txt ("Algorithm",
// "Reference Implementation"): caller-provided bias corrections bc1 = 1 - beta1^t and
// bc2 = 1 - beta2^t, grad read-only, no clipping, no finite guard, no grad zeroing.

const WG: u32 = 256u;

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// WGSL has no isFinite: test the exponent bits (R15).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

var<workgroup> sh_part: array<f32, 256>;

fn sq_finite(v: f32) -> f32 {
    return select(0.0, v * v, is_finite(v));
}

// ---- reduce_norm_sq_partials ----------------------------------------------------------------

@group(0) @binding(0) var<storage, read> data_det: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;  // one slot per workgroup
@group(0) @binding(2) var<uniform> n_det: u32;

@compute @workgroup_size(256, 1, 1)
fn reduce_norm_sq_partials(@builtin(global_invocation_id) gid: vec3<u32>,
                           @builtin(local_invocation_index) tid: u32,
                           @builtin(workgroup_id) wid: vec3<u32>,
                           @builtin(num_workgroups) nwg: vec3<u32>) {
    // Four independent loads per iteration into four accumulators: with one scalar load in
    // flight per thread this kernel read at ~57% of the copy roofline on an H200
    // (bench/results/h200-2026-11-22-norm). Each partial is still a fixed function of
    // (n, workgroup count), so the result stays bitwise deterministic.
    let grid_size = nwg.x * nwg.y * WG;
    var acc = vec4<f32>(0.0);
    var i = flat_id(gid, nwg);
    loop {
        if (i + 3u * grid_size >= n_det) { break; }
        let a = data_det[i];
        let b = data_det[i + grid_size];
        let c = data_det[i + 2u * grid_size];
        let d = data_det[i + 3u * grid_size];
        acc = acc + vec4<f32>(sq_finite(a), sq_finite(b), sq_finite(c), sq_finite(d));
        i = i + 4u * grid_size;
    }
    loop {
        if (i >= n_det) { break; }
        acc.x = acc.x + sq_finite(data_det[i]);
        i = i + grid_size;
    }
    let local = (acc.x + acc.y) + (acc.z + acc.w);

    sh_part[tid] = local;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) { sh_part[tid] = sh_part[tid] + sh_part[tid + s]; }
        workgroupBarrier();
        s = s >> 1u;
    }

    if (tid == 0u) {
        partials[wid.y * nwg.x + wid.x] = sh_part[0];
    }
}

// ---- finalize_grad_stats_partials: one workgroup --------------------------------------------

@group(0) @binding(0) var<storage, read> partials_in: array<f32>;  // every slot the reduce wrote
@group(0) @binding(1) var<storage, read_write> grad_stats_det: array<f32>;  // [gradNorm, clipScale]
@group(0) @binding(2) var<uniform> max_grad_norm_det: f32;

@compute @workgroup_size(256, 1, 1)
fn finalize_grad_stats_partials(@builtin(local_invocation_index) tid: u32) {
    // the bound range is exactly the written slots (R8: arrayLength sees the binding's size)
    let count = arrayLength(&partials_in);
    var local: f32 = 0.0;
    var k = tid;
    loop {
        if (k >= count) { break; }
        local = local + partials_in[k];
        k = k + WG;
    }

    sh_part[tid] = local;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) { sh_part[tid] = sh_part[tid] + sh_part[tid + s]; }
        workgroupBarrier();
        s = s >> 1u;
    }

    if (tid == 0u) {
        let sum = sh_part[0];
        let grad_norm = sqrt(sum);
        let clip_scale = min(1.0, max_grad_norm_det / max(grad_norm, 1e-6));
        grad_stats_det[0] = grad_norm;
        grad_stats_det[1] = clip_scale;
    }
}

// ---- adamw_one_call (shared/seeds/002) ------------------------------------------------------

@group(0) @binding(0) var<storage, read_write> param_oc: array<f32>;
@group(0) @binding(1) var<storage, read> grad_oc: array<f32>;
@group(0) @binding(2) var<storage, read_write> m_oc: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_oc: array<f32>;
@group(0) @binding(4) var<uniform> size_oc: u32;
@group(0) @binding(5) var<uniform> hp_oc: vec4<f32>;  // (lr, beta1, beta2, weight_decay)
@group(0) @binding(6) var<uniform> bc_oc: vec4<f32>;  // (bias_correction1, bias_correction2, eps, _)

@compute @workgroup_size(256, 1, 1)
fn adamw_one_call(@builtin(global_invocation_id) gid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= size_oc) { return; }

    let lr = hp_oc.x;
    let beta1 = hp_oc.y;
    let beta2 = hp_oc.z;
    let wd = hp_oc.w;
    let bc1 = bc_oc.x;
    let bc2 = bc_oc.y;
    let eps = bc_oc.z;

    let gr = grad_oc[i];

    // update moments
    let m_new = beta1 * m_oc[i] + (1.0 - beta1) * gr;
    let v_new = beta2 * v_oc[i] + (1.0 - beta2) * gr * gr;
    m_oc[i] = m_new;
    v_oc[i] = v_new;

    // bias-corrected estimates
    let m_hat = m_new / bc1;
    let v_hat = v_new / bc2;

    // update parameter with decoupled weight decay
    let p = param_oc[i];
    param_oc[i] = p - lr * (m_hat / (sqrt(v_hat) + eps) + wd * p);
}
