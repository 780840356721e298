// 12_optimizer.wgsl, reconstructed from its llm.istanbul study (the study of the
// browser engine's optimizer file): reduce_norm_sq, finalize_grad_stats, adamw_update,
// adamw_update_f16, adamw_8bit_update. Bind group ABIs are the seed's tables; code follows its
// "Line by Line" listings. Where the seed is silent, wgslvk decides and says so here:
//   * reduce_norm_sq's element count `n` (binding 2) and finalize_grad_stats' bindings;
//   * who zeroes the norm accumulator: finalize_grad_stats, which reads it with atomicExchange
//     (read and reset in one operation), so the next step's reduce starts from 0 with no extra
//     command; the host zeroes it once at allocation;
//   * the 8-bit quantization scheme (see adamw_8bit_update below);
//   * module-scope names are unique in WGSL, so the 8-bit kernel's bindings carry a `_q8` suffix
//     the way the f16 kernel's carry the seed's `_mp`.
// One module for all five; `enable f16` makes Dawn require "shader-f16" for the whole module
// (wgslvk checks the feature per kernel).
enable f16;

const WG: u32 = 256u;

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// WGSL has no isFinite: test the exponent bits (R15).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// ---- reduce_norm_sq: sum of squares of the finite elements into one f32 accumulator ----------

@group(0) @binding(0) var<storage, read> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> result: atomic<u32>;  // f32 bits
@group(0) @binding(2) var<uniform> n: u32;

var<workgroup> sh_red: array<f32, 256>;

// Grid-stride: the host launches a bounded number of workgroups (not ceil(n/256)) so the CAS on
// the single accumulator is not a contention hot spot (CAS-adding from every workgroup is).
@compute @workgroup_size(256, 1, 1)
fn reduce_norm_sq(@builtin(global_invocation_id) gid: vec3<u32>,
                  @builtin(local_invocation_index) tid: u32,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let grid_size = nwg.x * nwg.y * WG;
    var local: f32 = 0.0;
    var i = flat_id(gid, nwg);
    loop {
        if (i >= n) { break; }
        let v = data[i];
        if (is_finite(v)) { local = local + v * v; }
        i = i + grid_size;
    }

    sh_red[tid] = local;
    workgroupBarrier();
    // classical tree reduction (no subgroups)
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
        workgroupBarrier();
        s = s >> 1u;
    }

    if (tid == 0u) {
        // f32 add on atomic<u32> by CAS on the bit patterns (as 01_embedding.wgsl's study shows it)
        let add = sh_red[0];
        var old_bits = atomicLoad(&result);
        loop {
            let new_bits = bitcast<u32>(bitcast<f32>(old_bits) + add);
            let res = atomicCompareExchangeWeak(&result, old_bits, new_bits);
            if (res.exchanged) { break; }
            old_bits = res.old_value;
        }
    }
}

// ---- finalize_grad_stats: one thread -------------------------------------------------------

@group(0) @binding(0) var<storage, read_write> norm_sq_acc: atomic<u32>;  // reduce's `result`
@group(0) @binding(1) var<storage, read_write> grad_stats_out: array<f32>;  // [gradNorm, clipScale]
@group(0) @binding(2) var<uniform> max_grad_norm: f32;  // clipping off: a huge finite value (1e30)

@compute @workgroup_size(1, 1, 1)
fn finalize_grad_stats() {
    // read and reset in one operation: the accumulator is 0 again for the next step's reduce
    let sum = bitcast<f32>(atomicExchange(&norm_sq_acc, 0u));
    let grad_norm = sqrt(sum);
    let clip_scale = min(1.0, max_grad_norm / max(grad_norm, 1e-6));
    grad_stats_out[0] = grad_norm;
    grad_stats_out[1] = clip_scale;
}

// ---- adamw_update: fused AdamW + clip + grad zero, pure fp32 ---------------------------------

@group(0) @binding(0) var<storage, read_write> w: array<f32>;
@group(0) @binding(1) var<storage, read_write> g: array<f32>;
@group(0) @binding(2) var<storage, read_write> m_buf: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_buf: array<f32>;
@group(0) @binding(4) var<storage, read> grad_stats: array<f32>;
@group(0) @binding(5) var<uniform> size: u32;
@group(0) @binding(6) var<uniform> hp: vec4<f32>;    // (lr, beta1, beta2, wd)
@group(0) @binding(7) var<uniform> bias: vec4<f32>;  // (beta1^t, beta2^t, eps, t)

@compute @workgroup_size(256, 1, 1)
fn adamw_update(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= size) { return; }

    let lr      = hp.x;
    let beta1   = hp.y;
    let beta2   = hp.z;
    let wd      = hp.w;
    let beta1_t = bias.x;
    let beta2_t = bias.y;
    let eps     = bias.z;
    let clip    = grad_stats[1];

    var grad = g[i];
    grad = select(0.0, grad, is_finite(grad));
    grad = grad * clip;

    let m_old = m_buf[i];
    let v_old = v_buf[i];
    let w_old = w[i];

    let m_new = beta1 * m_old + (1.0 - beta1) * grad;
    let v_new = beta2 * v_old + (1.0 - beta2) * grad * grad;

    let b1_corr = 1.0 / max(1.0 - beta1_t, 1e-12);
    let b2_corr = 1.0 / max(1.0 - beta2_t, 1e-12);
    let m_hat = m_new * b1_corr;
    let v_hat = v_new * b2_corr;

    // the seed's `step` (renamed: GLSL's step() is a built-in)
    let denom = sqrt(v_hat) + eps;
    let adam_step = m_hat / denom + wd * w_old;
    let w_new = w_old - lr * adam_step;

    w[i] = w_new;
    m_buf[i] = m_new;
    v_buf[i] = v_new;
    g[i] = 0.0;
}

// ---- adamw_update_f16: the same plus the fused f16 forward mirror ----------------------------

@group(0) @binding(0) var<storage, read_write> w_mp: array<f32>;
@group(0) @binding(1) var<storage, read_write> g_mp: array<f32>;
@group(0) @binding(2) var<storage, read_write> m_buf_mp: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_buf_mp: array<f32>;
@group(0) @binding(4) var<storage, read> grad_stats_mp: array<f32>;
@group(0) @binding(5) var<uniform> size_mp: u32;
@group(0) @binding(6) var<uniform> hp_mp: vec4<f32>;
@group(0) @binding(7) var<uniform> bias_mp: vec4<f32>;
@group(0) @binding(8) var<storage, read_write> dst_w16: array<f16>;

@compute @workgroup_size(256, 1, 1)
fn adamw_update_f16(@builtin(global_invocation_id) gid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= size_mp) { return; }

    let lr      = hp_mp.x;
    let beta1   = hp_mp.y;
    let beta2   = hp_mp.z;
    let wd      = hp_mp.w;
    let beta1_t = bias_mp.x;
    let beta2_t = bias_mp.y;
    let eps     = bias_mp.z;
    let clip    = grad_stats_mp[1];

    var grad = g_mp[i];
    grad = select(0.0, grad, is_finite(grad));
    grad = grad * clip;

    let m_old = m_buf_mp[i];
    let v_old = v_buf_mp[i];
    let w_old = w_mp[i];

    let m_new = beta1 * m_old + (1.0 - beta1) * grad;
    let v_new = beta2 * v_old + (1.0 - beta2) * grad * grad;

    let b1_corr = 1.0 / max(1.0 - beta1_t, 1e-12);
    let b2_corr = 1.0 / max(1.0 - beta2_t, 1e-12);
    let m_hat = m_new * b1_corr;
    let v_hat = v_new * b2_corr;

    let denom = sqrt(v_hat) + eps;
    let adam_step = m_hat / denom + wd * w_old;
    let w_new = w_old - lr * adam_step;

    w_mp[i] = w_new;
    m_buf_mp[i] = m_new;
    v_buf_mp[i] = v_new;
    g_mp[i] = 0.0;
    dst_w16[i] = f16(w_new);  // fused mirror: no separate cast_f32_to_f16 sweep
}

// ---- adamw_8bit_update: 8-bit block-quantized Adam state ------------------------------------
//
// The seed fixes only the ABI: m and v as 8-bit codes packed four per u32 (element i is byte
// i % 4 of word i / 4, least significant byte first) and one f32 scale per 256-element block for
// each. wgslvk's scheme (decision; linear int8 is not enough: it flushes small second moments to
// zero, which is why bitsandbytes' 8-bit Adam uses dynamic, non-linear maps):
//   * One workgroup = one block of 256 elements (block b = elements [256b, 256b + 256) of the
//     bound range), so the block maximum is a workgroup reduction and the requantization of a
//     block needs no other workgroup.
//   * The block scale is a power of two, 2^(E - 127), stored as an f32 whose mantissa bits are
//     zero (E = the biased exponent of the block's max |value|, plus one when that max lies above
//     1.875 * 2^(E - 127), so the largest value is representable). Scaling by a power of two is
//     exact, so quantization is pure integer work on the f32 bits: the CPU reference reproduces
//     it bit for bit, with no division, log or pow whose GPU precision would move a code.
//   * m: sign + 7-bit minifloat E4M3 relative to the scale (16 binades, 3 mantissa bits,
//     subnormals at the bottom): |m| from 2^-18 to 1.875 times the scale, relative step 1/8.
//   * v: unsigned 8-bit minifloat E5M3 (32 binades): v from 2^-33 to 1.875 times the scale, so
//     sqrt(v) spans about the same 16 binades as m. A non-zero normal v never quantizes to zero
//     (code 1 at least): a zero v under a non-zero m would turn the step into m / eps.
//   * Rounding is stochastic (round up with probability = the discarded fraction), so the EMAs
//     stay unbiased: with beta2 = 0.999 the per-step change of v (0.1%) is far below the 8-bit
//     step (6-12%), and round-to-nearest would freeze v for ever. The random bits are a hash of
//     the value's own f32 bits and the step t (bias.w, exact in f32 up to 2^24), so the result is
//     deterministic, independent of how the tensors are bound (multi-tensor or per-tensor), and
//     a resumed run repeats it exactly.
//   * The weight update uses the f32 m_new, v_new (dequantized old state + this gradient) before
//     requantization, like bitsandbytes. All-zero block: scale 0, codes 0.
// State per parameter: 1 + 1 byte + 2 * 4 / 256 bytes of scales = 2.03 bytes (fp32: 8).

@group(0) @binding(0) var<storage, read_write> w_q8: array<f32>;
@group(0) @binding(1) var<storage, read_write> g_q8: array<f32>;
@group(0) @binding(2) var<storage, read_write> m_packed: array<u32>;
@group(0) @binding(3) var<storage, read_write> v_packed: array<u32>;
@group(0) @binding(4) var<storage, read_write> m_scale: array<f32>;
@group(0) @binding(5) var<storage, read_write> v_scale: array<f32>;
@group(0) @binding(6) var<storage, read> grad_stats_q8: array<f32>;
@group(0) @binding(7) var<uniform> size_q8: u32;
@group(0) @binding(8) var<uniform> hp_q8: vec4<f32>;    // (lr, b1, b2, wd)
@group(0) @binding(9) var<uniform> bias_q8: vec4<f32>;  // (b1_t, b2_t, eps, t)

var<workgroup> sh_mmax: array<u32, 256>;
var<workgroup> sh_vmax: array<u32, 256>;
var<workgroup> sh_code: array<u32, 256>;

const M_TOP: u32 = 15u;  // m: E4M3, exponent codes 0..15
const V_TOP: u32 = 31u;  // v: E5M3, exponent codes 0..31
const Q_MB: u32 = 3u;    // mantissa bits of both

fn hash_u32(x_in: u32) -> u32 {  // "lowbias32" integer hash
    var x = x_in;
    x = x ^ (x >> 16u);
    x = x * 0x7feb352du;
    x = x ^ (x >> 15u);
    x = x * 0x846ca68bu;
    x = x ^ (x >> 16u);
    return x;
}

// Block exponent from the bits of the block's max |value| (non-negative f32 bits).
fn q8_block_exp(max_bits: u32) -> u32 {
    let e = max_bits >> 23u;
    let bump = (max_bits & 0x7fffffu) > 0x700000u && e >= 1u && e < 254u;
    return select(e, e + 1u, bump);
}

// Code of a non-negative f32 (bits xb) relative to block exponent emax; `top` is the highest
// exponent code, Q_MB mantissa bits, stochastic rounding with the random bits rnd.
fn q8_encode(xb: u32, emax: u32, top: u32, rnd: u32) -> u32 {
    let ex = xb >> 23u;
    if (ex == 0u) { return 0u; }  // zero or subnormal: flushed
    let d = emax - ex;            // binades below the scale; ex <= emax
    let s = (xb & 0x7fffffu) | 0x800000u;
    var shift: u32;
    var base: u32;
    if (d < top) {                // normal code: exponent code top - d
        shift = 23u - Q_MB;
        base = (top - d - 1u) << Q_MB;
    } else {                      // subnormal code: units of 2^(1 - top - Q_MB)
        shift = d + 24u - top - Q_MB;
        base = 0u;
        if (shift > 24u) { return 0u; }
    }
    let q = s >> shift;
    let rem = s & ((1u << shift) - 1u);
    let r = rnd >> (32u - shift);  // uniform in [0, 2^shift)
    var code = base + q;
    if (rem + r >= (1u << shift)) { code = code + 1u; }
    return min(code, (top << Q_MB) | ((1u << Q_MB) - 1u));
}

// Exact inverse: (sig * 2^k) * 2^(emax - 127) as a product of a small integer and a power of two;
// a result below the normal range is 0.
fn q8_decode(code: u32, emax: u32, top: u32) -> f32 {
    let ec = code >> Q_MB;
    let mant = code & ((1u << Q_MB) - 1u);
    let sig = select(mant, mant + (1u << Q_MB), ec != 0u);
    let eb = i32(emax) + i32(max(ec, 1u)) - i32(top) - i32(Q_MB);
    if (sig == 0u || eb < 1) { return 0.0; }
    return f32(sig) * bitcast<f32>(u32(eb) << 23u);
}

@compute @workgroup_size(256, 1, 1)
fn adamw_8bit_update(@builtin(global_invocation_id) gid: vec3<u32>,
                     @builtin(local_invocation_index) tid: u32,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let in_range = i < size_q8;  // no early return: every thread reaches the barriers
    let blk = i / WG;          // the same for the whole workgroup

    let lr      = hp_q8.x;
    let beta1   = hp_q8.y;
    let beta2   = hp_q8.z;
    let wd      = hp_q8.w;
    let beta1_t = bias_q8.x;
    let beta2_t = bias_q8.y;
    let eps     = bias_q8.z;
    let t       = u32(bias_q8.w);
    let clip    = grad_stats_q8[1];

    var m_new: f32 = 0.0;
    var v_new: f32 = 0.0;
    if (in_range) {
        var grad = g_q8[i];
        grad = select(0.0, grad, is_finite(grad));
        grad = grad * clip;

        let word = i >> 2u;
        let sh = (i & 3u) * 8u;
        let mc = (m_packed[word] >> sh) & 0xffu;
        let vc = (v_packed[word] >> sh) & 0xffu;
        let m_mag = q8_decode(mc & 0x7fu, bitcast<u32>(m_scale[blk]) >> 23u, M_TOP);
        let m_old = select(m_mag, -m_mag, (mc & 0x80u) != 0u);
        let v_old = q8_decode(vc, bitcast<u32>(v_scale[blk]) >> 23u, V_TOP);
        let w_old = w_q8[i];

        m_new = beta1 * m_old + (1.0 - beta1) * grad;
        v_new = beta2 * v_old + (1.0 - beta2) * grad * grad;

        let b1_corr = 1.0 / max(1.0 - beta1_t, 1e-12);
        let b2_corr = 1.0 / max(1.0 - beta2_t, 1e-12);
        let m_hat = m_new * b1_corr;
        let v_hat = v_new * b2_corr;

        let denom = sqrt(v_hat) + eps;
        let adam_step = m_hat / denom + wd * w_old;
        let w_new = w_old - lr * adam_step;

        w_q8[i] = w_new;
        g_q8[i] = 0.0;
    }

    // block maxima: the u32 order of non-negative f32 bit patterns is their float order
    let m_bits = bitcast<u32>(abs(m_new));
    let v_bits = bitcast<u32>(v_new);
    sh_mmax[tid] = m_bits;
    sh_vmax[tid] = v_bits;
    workgroupBarrier();
    var s = WG / 2u;
    loop {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_mmax[tid] = max(sh_mmax[tid], sh_mmax[tid + s]);
            sh_vmax[tid] = max(sh_vmax[tid], sh_vmax[tid + s]);
        }
        workgroupBarrier();
        s = s >> 1u;
    }
    let m_emax = q8_block_exp(sh_mmax[0]);
    let v_emax = q8_block_exp(sh_vmax[0]);

    let salt = hash_u32(t);
    var m_code = q8_encode(m_bits, m_emax, M_TOP, hash_u32(bitcast<u32>(m_new) ^ salt));
    var v_code = q8_encode(v_bits, v_emax, V_TOP, hash_u32(v_bits ^ (salt * 0x9e3779b9u)));
    m_code = select(m_code, m_code | 0x80u, m_new < 0.0 && m_code != 0u);
    v_code = select(v_code, 1u, v_code == 0u && (v_bits >> 23u) != 0u);  // never flush a normal v
    sh_code[tid] = m_code | (v_code << 8u);
    workgroupBarrier();

    // 64 threads pack the block's 256 codes into 64 words per state
    if (tid < 64u) {
        let word = blk * 64u + tid;
        if (word * 4u < size_q8) {
            var mw = 0u;
            var vw = 0u;
            for (var k = 0u; k < 4u; k = k + 1u) {
                let c = sh_code[tid * 4u + k];
                mw = mw | ((c & 0xffu) << (8u * k));
                vw = vw | ((c >> 8u) << (8u * k));
            }
            m_packed[word] = mw;
            v_packed[word] = vw;
        }
    }
    if (tid == 0u && blk * WG < size_q8) {
        m_scale[blk] = bitcast<f32>(m_emax << 23u);
        v_scale[blk] = bitcast<f32>(v_emax << 23u);
    }
}
