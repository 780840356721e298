// optimizer_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own kernels beside the
// 12_optimizer.wgsl ports, written in WGSL so the same ABI check covers their GLSL ports and Dawn
// can run them too (plain WGSL, no `enable`).
//
// reduce_norm_sq_partials + finalize_grad_stats_partials: the deterministic gradient norm. The
// seed's reduce_norm_sq CAS-adds one f32 per workgroup into a scalar in whatever order the
// workgroups finish, so the norm (and clipScale, and every weight) can differ in the last bit from
// run to run (the llm.istanbul study of 12_optimizer.wgsl, "reduce_norm_sq — Atomic Reduction"). Here every workgroup writes
// its tree-reduced partial sum to its own slot (no atomics), and one workgroup sums the slots in a
// fixed tree order. For a fixed element count and workgroup count (the host fixes both from the
// layout alone) the result is bitwise identical on every run.
//
// adamw_one_call: the fused AdamW of the popcornAdamW_f32 specification ("Algorithm",
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

// ---- adamw_one_call (the popcornAdamW_f32 specification) ------------------------------------

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

// ---- adamw_8bit_update_vec4: adamw_8bit_update restructured for speed (ours) ----------------
//
// The same 8-bit scheme, inputs and outputs as 12_optimizer.wgsl's adamw_8bit_update (see the
// comment there), with the same numerics: every f32 expression is the port's, evaluated in the
// same order on the same values, and the requantization is the same integer work, so w, g, the
// codes and the scales come out bit-identical to the port's on the same inputs (tested). What
// changes is the work per invocation (wgsl_ports/optimizer/README.md, "The 8-bit update"):
//   * one workgroup = one 256-element block as in the port (the same grid: ceil(n/256)
//     workgroups), but 64 invocations, each owning 4 consecutive elements: one vec4 load and store
//     of w and of g, one u32 of m codes and one of v codes (its whole packed word: no byte
//     extraction from a word another invocation also loads, no workgroup pass to repack codes);
//   * the block maxima: each invocation's max of its 4, then 64 -> 8 -> 1 through workgroup
//     memory (2 barriers; the port: 8 tree levels of 256 plus a barrier before packing);
//   * per-invocation constants (bias corrections with their divisions, the decoded scale
//     exponents, the hash salts) once per 4 elements instead of once per element.
//   * decode and encode without the port's per-code branches (q8v4_dec, q8v4_enc below: the same
//     bits, about 40 fewer instructions per element), their per-block constants hoisted; and no
//     zero-init barrier: every workgroup element is written before it is read (R17).
// ABI (decision): bindings and uniforms as adamw_8bit_update, except w and g are vec4 arrays
// (element i is component i % 4 of vec4 i / 4), so their bound ranges must hold ceil(n/4) vec4s,
// i.e. the caller pads w and g to a multiple of 4 elements. Elements past n in the last vec4 are
// read but never written (per-component stores); their codes are written as 0, as the port does.
// Subgroup operations would shorten the block max further, but the runtime exposes no subgroup
// feature, so this stays plain WGSL on workgroup memory.

const Q8V4_WG: u32 = 64u;  // invocations per workgroup (= per block), 4 elements each
const Q8V4_M_TOP: u32 = 15u;
const Q8V4_V_TOP: u32 = 31u;
const Q8V4_MB: u32 = 3u;

@group(0) @binding(0) var<storage, read_write> w_v4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> g_v4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> m_packed_v4: array<u32>;
@group(0) @binding(3) var<storage, read_write> v_packed_v4: array<u32>;
@group(0) @binding(4) var<storage, read_write> m_scale_v4: array<f32>;
@group(0) @binding(5) var<storage, read_write> v_scale_v4: array<f32>;
@group(0) @binding(6) var<storage, read> grad_stats_v4: array<f32>;
@group(0) @binding(7) var<uniform> size_v4: u32;
@group(0) @binding(8) var<uniform> hp_v4: vec4<f32>;    // (lr, b1, b2, wd)
@group(0) @binding(9) var<uniform> bias_v4: vec4<f32>;  // (b1_t, b2_t, eps, t)

// Not zeroed by the port (R17): every element is written before the barrier that precedes its
// first read, so WGSL's zero-initialization is not observable.
var<workgroup> sh_max64: array<vec2<u32>, 64>;  // per invocation: (|m_new| bits, v_new bits) max
var<workgroup> sh_max8: array<vec2<u32>, 8>;

// The port's helpers (12_optimizer.wgsl), unchanged.
fn q8v4_hash(x_in: u32) -> u32 {
    var x = x_in;
    x = x ^ (x >> 16u);
    x = x * 0x7feb352du;
    x = x ^ (x >> 15u);
    x = x * 0x846ca68bu;
    x = x ^ (x >> 16u);
    return x;
}

fn q8v4_block_exp(max_bits: u32) -> u32 {
    let e = max_bits >> 23u;
    let bump = (max_bits & 0x7fffffu) > 0x700000u && e >= 1u && e < 254u;
    return select(e, e + 1u, bump);
}

fn q8v4_encode(xb: u32, emax: u32, top: u32, rnd: u32) -> u32 {
    let ex = xb >> 23u;
    if (ex == 0u) { return 0u; }
    let d = emax - ex;
    let s = (xb & 0x7fffffu) | 0x800000u;
    var shift: u32;
    var base: u32;
    if (d < top) {
        shift = 23u - Q8V4_MB;
        base = (top - d - 1u) << Q8V4_MB;
    } else {
        shift = d + 24u - top - Q8V4_MB;
        base = 0u;
        if (shift > 24u) { return 0u; }
    }
    let q = s >> shift;
    let rem = s & ((1u << shift) - 1u);
    let r = rnd >> (32u - shift);
    var code = base + q;
    if (rem + r >= (1u << shift)) { code = code + 1u; }
    return min(code, (top << Q8V4_MB) | ((1u << Q8V4_MB) - 1u));
}

fn q8v4_decode(code: u32, emax: u32, top: u32) -> f32 {
    let ec = code >> Q8V4_MB;
    let mant = code & ((1u << Q8V4_MB) - 1u);
    let sig = select(mant, mant + (1u << Q8V4_MB), ec != 0u);
    let eb = i32(emax) + i32(max(ec, 1u)) - i32(top) - i32(Q8V4_MB);
    if (sig == 0u || eb < 1) { return 0.0; }
    return f32(sig) * bitcast<f32>(u32(eb) << 23u);
}

// Decoding without the port's per-code branches (same bits; exhaustively checked against
// q8v4_decode for every code and every block exponent below 256): a code with exponent field
// ec >= 1 is the f32 whose bits are (code << 20) + ((emax - top) << 23) once that exponent is
// normal (code >= t), +inf past 254 (the port's product overflows); ec = 0 codes are
// f32(code) * 2^(emax - top - 2 - 127), 0 when that is below the normal range.
struct Q8V4Dec {
    kb: u32,  // (emax - top) << 23
    t: u32,   // the smallest code whose value is a normal f32 (always >= 8)
    p0: f32,  // the step of the ec = 0 codes, 0 where the port flushes them
}

fn q8v4_dec_consts(emax: u32, top: u32) -> Q8V4Dec {
    var c: Q8V4Dec;
    c.kb = (emax - top) << 23u;
    c.t = u32(max(4 + i32(top) - i32(emax), 1)) << Q8V4_MB;
    c.p0 = select(0.0, bitcast<f32>((emax - top - 2u) << 23u), emax >= top + 3u);
    return c;
}

fn q8v4_dec(code: u32, c: Q8V4Dec) -> f32 {
    let hi = bitcast<f32>(min((code << 20u) + c.kb, 0x7f800000u));
    let lo = f32(code) * c.p0;
    return select(lo, hi, code >= c.t);
}

// Encoding with the port's branches taken only below the block's normal codes (same bits;
// checked against q8v4_encode for every exponent pair and random mantissas and hashes): for
// 0 < ex <= emax with emax - ex < top the port's base + (s >> 20) is (xb >> 20) + ((top - emax) << 3)
// and its round-up test rem + (rnd >> 12) >= 2^20 is the carry out of (xb << 12) + rnd.
struct Q8V4Enc {
    emax: u32,
    lo_ex: u32,  // exponents 1 ..= lo_ex take the port's encode (subnormal codes, flush to 0)
    cn: u32,     // (top - emax) << 3
}

fn q8v4_enc_consts(emax: u32, top: u32) -> Q8V4Enc {
    return Q8V4Enc(emax, u32(max(i32(emax) - i32(top), 0)), (top - emax) << Q8V4_MB);
}

// floor1: the port's v rule (a nonzero v never encodes to 0); only its encode can give 0 there.
fn q8v4_enc(xb: u32, top: u32, rnd: u32, c: Q8V4Enc, floor1: bool) -> u32 {
    let ex = xb >> 23u;
    var code = (xb >> 20u) + c.cn + select(0u, 1u, (xb << 12u) + rnd < rnd);
    code = min(code, select(0u, (top << Q8V4_MB) | ((1u << Q8V4_MB) - 1u), ex != 0u));
    if (ex - 1u < c.lo_ex) {
        code = q8v4_encode(xb, c.emax, top, rnd);
        code = select(code, 1u, floor1 && code == 0u);
    }
    return code;
}

// What every element needs that does not depend on the element.
struct Q8V4Consts {
    lr: f32, beta1: f32, beta2: f32, wd: f32,
    b1_corr: f32, b2_corr: f32, eps: f32, clip: f32,
    m_emax_old: u32, v_emax_old: u32,
    m_dec: Q8V4Dec, v_dec: Q8V4Dec,
}

struct Q8V4Elem {
    w_new: f32,
    m_new: f32,  // 0 for an element past n (the port's value for it)
    v_new: f32,
}

// m's old value; the sign bit set on the magnitude is the port's negation (-0.0 included).
fn q8v4_m_old(mc: u32, k: Q8V4Consts) -> f32 {
    let m_mag = q8v4_dec(mc & 0x7fu, k.m_dec);
    return bitcast<f32>(bitcast<u32>(m_mag) | ((mc & 0x80u) << 24u));
}

// The port's decode, for a block whose scale has its sign bit set (exponent field >= 256).
fn q8v4_m_old_port(mc: u32, k: Q8V4Consts) -> f32 {
    let m_mag = q8v4_decode(mc & 0x7fu, k.m_emax_old, Q8V4_M_TOP);
    return select(m_mag, -m_mag, (mc & 0x80u) != 0u);
}

// One element's update: the port's expressions, in the port's order.
fn q8v4_elem(w_old: f32, g_raw: f32, m_old: f32, v_old: f32, in_range: bool, k: Q8V4Consts) -> Q8V4Elem {
    var grad = g_raw;
    grad = select(0.0, grad, is_finite(grad));
    grad = grad * k.clip;

    let m_new = k.beta1 * m_old + (1.0 - k.beta1) * grad;
    let v_new = k.beta2 * v_old + (1.0 - k.beta2) * grad * grad;

    let m_hat = m_new * k.b1_corr;
    let v_hat = v_new * k.b2_corr;

    let denom = sqrt(v_hat) + k.eps;
    let adam_step = m_hat / denom + k.wd * w_old;
    let w_new = w_old - k.lr * adam_step;
    return Q8V4Elem(w_new, select(0.0, m_new, in_range), select(0.0, v_new, in_range));
}

// m and v codes of one element (the port's sign and no-flush rules).
fn q8v4_m_code(m_new: f32, salt: u32, c: Q8V4Enc) -> u32 {
    let m_code = q8v4_enc(bitcast<u32>(abs(m_new)), Q8V4_M_TOP, q8v4_hash(bitcast<u32>(m_new) ^ salt), c, false);
    return select(m_code, m_code | 0x80u, m_new < 0.0 && m_code != 0u);
}

fn q8v4_v_code(v_new: f32, salt_v: u32, c: Q8V4Enc) -> u32 {
    let v_bits = bitcast<u32>(v_new);
    return q8v4_enc(v_bits, Q8V4_V_TOP, q8v4_hash(v_bits ^ salt_v), c, true);
}

@compute @workgroup_size(64, 1, 1)
fn adamw_8bit_update_vec4(@builtin(global_invocation_id) gid: vec3<u32>,
                          @builtin(local_invocation_index) tid: u32,
                          @builtin(num_workgroups) nwg: vec3<u32>) {
    let q = gid.y * nwg.x * Q8V4_WG + gid.x;  // packed word q = elements 4q .. 4q + 3
    let n = size_v4;
    let words = (n >> 2u) + select(0u, 1u, (n & 3u) != 0u);
    let live = q < words;  // no early return: every invocation reaches the barriers
    let blk = q / Q8V4_WG;   // the same for the whole workgroup
    let i0 = q * 4u;         // < 2^32 where live

    var k: Q8V4Consts;
    k.lr = hp_v4.x;
    k.beta1 = hp_v4.y;
    k.beta2 = hp_v4.z;
    k.wd = hp_v4.w;
    k.b1_corr = 1.0 / max(1.0 - bias_v4.x, 1e-12);
    k.b2_corr = 1.0 / max(1.0 - bias_v4.y, 1e-12);
    k.eps = bias_v4.z;
    let t = u32(bias_v4.w);

    var e0 = Q8V4Elem(0.0, 0.0, 0.0);
    var e1 = e0;
    var e2 = e0;
    var e3 = e0;
    if (live) {
        k.clip = grad_stats_v4[1];
        k.m_emax_old = bitcast<u32>(m_scale_v4[blk]) >> 23u;
        k.v_emax_old = bitcast<u32>(v_scale_v4[blk]) >> 23u;
        let mw = m_packed_v4[q];
        let vw = v_packed_v4[q];
        let w4 = w_v4[q];
        let g4 = g_v4[q];
        k.m_dec = q8v4_dec_consts(k.m_emax_old, Q8V4_M_TOP);
        k.v_dec = q8v4_dec_consts(k.v_emax_old, Q8V4_V_TOP);
        if (max(k.m_emax_old, k.v_emax_old) < 256u) {
            e0 = q8v4_elem(w4.x, g4.x, q8v4_m_old(mw & 0xffu, k), q8v4_dec(vw & 0xffu, k.v_dec), i0 < n, k);
            e1 = q8v4_elem(w4.y, g4.y, q8v4_m_old((mw >> 8u) & 0xffu, k), q8v4_dec((vw >> 8u) & 0xffu, k.v_dec), i0 + 1u < n, k);
            e2 = q8v4_elem(w4.z, g4.z, q8v4_m_old((mw >> 16u) & 0xffu, k), q8v4_dec((vw >> 16u) & 0xffu, k.v_dec), i0 + 2u < n, k);
            e3 = q8v4_elem(w4.w, g4.w, q8v4_m_old(mw >> 24u, k), q8v4_dec(vw >> 24u, k.v_dec), i0 + 3u < n, k);
        } else {  // a scale with its sign bit set (never written by a finite step): the port's decode
            e0 = q8v4_elem(w4.x, g4.x, q8v4_m_old_port(mw & 0xffu, k), q8v4_decode(vw & 0xffu, k.v_emax_old, Q8V4_V_TOP), i0 < n, k);
            e1 = q8v4_elem(w4.y, g4.y, q8v4_m_old_port((mw >> 8u) & 0xffu, k), q8v4_decode((vw >> 8u) & 0xffu, k.v_emax_old, Q8V4_V_TOP), i0 + 1u < n, k);
            e2 = q8v4_elem(w4.z, g4.z, q8v4_m_old_port((mw >> 16u) & 0xffu, k), q8v4_decode((vw >> 16u) & 0xffu, k.v_emax_old, Q8V4_V_TOP), i0 + 2u < n, k);
            e3 = q8v4_elem(w4.w, g4.w, q8v4_m_old_port(mw >> 24u, k), q8v4_decode(vw >> 24u, k.v_emax_old, Q8V4_V_TOP), i0 + 3u < n, k);
        }
        if (i0 + 3u < n) {
            w_v4[q] = vec4<f32>(e0.w_new, e1.w_new, e2.w_new, e3.w_new);
            g_v4[q] = vec4<f32>(0.0);
        } else {  // the last, partial vec4: only elements below n
            w_v4[q].x = e0.w_new;
            g_v4[q].x = 0.0;
            if (i0 + 1u < n) {
                w_v4[q].y = e1.w_new;
                g_v4[q].y = 0.0;
            }
            if (i0 + 2u < n) {
                w_v4[q].z = e2.w_new;
                g_v4[q].z = 0.0;
            }
        }
    }

    // block maxima: the u32 order of non-negative f32 bit patterns is their float order
    let mmax = max(max(bitcast<u32>(abs(e0.m_new)), bitcast<u32>(abs(e1.m_new))),
                   max(bitcast<u32>(abs(e2.m_new)), bitcast<u32>(abs(e3.m_new))));
    let vmax = max(max(bitcast<u32>(e0.v_new), bitcast<u32>(e1.v_new)),
                   max(bitcast<u32>(e2.v_new), bitcast<u32>(e3.v_new)));
    sh_max64[tid] = vec2<u32>(mmax, vmax);
    workgroupBarrier();
    if (tid < 8u) {
        var a = sh_max64[tid * 8u];
        for (var j = 1u; j < 8u; j = j + 1u) {
            a = max(a, sh_max64[tid * 8u + j]);
        }
        sh_max8[tid] = a;
    }
    workgroupBarrier();
    var bm = sh_max8[0];
    for (var j = 1u; j < 8u; j = j + 1u) {
        bm = max(bm, sh_max8[j]);
    }
    let m_emax = q8v4_block_exp(bm.x);
    let v_emax = q8v4_block_exp(bm.y);

    if (live) {
        let salt = q8v4_hash(t);
        let salt_v = salt * 0x9e3779b9u;
        let me = q8v4_enc_consts(m_emax, Q8V4_M_TOP);
        let ve = q8v4_enc_consts(v_emax, Q8V4_V_TOP);
        m_packed_v4[q] = q8v4_m_code(e0.m_new, salt, me) | (q8v4_m_code(e1.m_new, salt, me) << 8u) | (q8v4_m_code(e2.m_new, salt, me) << 16u) | (q8v4_m_code(e3.m_new, salt, me) << 24u);
        v_packed_v4[q] = q8v4_v_code(e0.v_new, salt_v, ve) | (q8v4_v_code(e1.v_new, salt_v, ve) << 8u) | (q8v4_v_code(e2.v_new, salt_v, ve) << 16u) | (q8v4_v_code(e3.v_new, salt_v, ve) << 24u);
    }
    if (tid == 0u && live) {  // the block's first word exists: blk * 256 < n
        m_scale_v4[blk] = bitcast<f32>(m_emax << 23u);
        v_scale_v4[blk] = bitcast<f32>(v_emax << 23u);
    }
}
