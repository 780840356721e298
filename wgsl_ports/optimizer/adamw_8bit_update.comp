// Port of adamw_8bit_update, 12_optimizer.wgsl (its llm.istanbul study,
// "adamw_8bit_update"; the quantization scheme is wgslvk's, documented in the WGSL).
// Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer WQ8 { float w_q8[]; };
layout(set = 0, binding = 1, std430) buffer GQ8 { float g_q8[]; };
layout(set = 0, binding = 2, std430) buffer MPacked { uint m_packed[]; };
layout(set = 0, binding = 3, std430) buffer VPacked { uint v_packed[]; };
layout(set = 0, binding = 4, std430) buffer MScale { float m_scale[]; };
layout(set = 0, binding = 5, std430) buffer VScale { float v_scale[]; };
layout(set = 0, binding = 6, std430) readonly buffer GradStatsQ8 { float grad_stats_q8[]; };
layout(set = 0, binding = 7, std140) uniform SizeQ8 { uint size_q8; };
layout(set = 0, binding = 8, std140) uniform HpQ8 { vec4 hp_q8; };      // (lr, b1, b2, wd)
layout(set = 0, binding = 9, std140) uniform BiasQ8 { vec4 bias_q8; };  // (b1_t, b2_t, eps, t)

shared uint sh_mmax[WG];
shared uint sh_vmax[WG];
shared uint sh_code[WG];

const uint M_TOP = 15u;  // m: E4M3, exponent codes 0..15
const uint V_TOP = 31u;  // v: E5M3, exponent codes 0..31
const uint Q_MB = 3u;    // mantissa bits of both

uint hash_u32(uint x_in) {  // "lowbias32" integer hash
    uint x = x_in;
    x = x ^ (x >> 16u);
    x = x * 0x7feb352du;
    x = x ^ (x >> 15u);
    x = x * 0x846ca68bu;
    x = x ^ (x >> 16u);
    return x;
}

uint q8_block_exp(uint max_bits) {
    uint e = max_bits >> 23u;
    bool bump = (max_bits & 0x7fffffu) > 0x700000u && e >= 1u && e < 254u;
    return wgsl_select(e, e + 1u, bump);
}

uint q8_encode(uint xb, uint emax, uint top, uint rnd) {
    uint ex = xb >> 23u;
    if (ex == 0u) { return 0u; }
    uint d = emax - ex;
    uint s = (xb & 0x7fffffu) | 0x800000u;
    uint shift;
    uint base;
    if (d < top) {
        shift = 23u - Q_MB;
        base = (top - d - 1u) << Q_MB;
    } else {
        shift = d + 24u - top - Q_MB;
        base = 0u;
        if (shift > 24u) { return 0u; }
    }
    uint q = s >> shift;
    uint rem = s & ((1u << shift) - 1u);
    uint r = rnd >> (32u - shift);
    uint code = base + q;
    if (rem + r >= (1u << shift)) { code = code + 1u; }
    return min(code, (top << Q_MB) | ((1u << Q_MB) - 1u));
}

float q8_decode(uint code, uint emax, uint top) {
    uint ec = code >> Q_MB;
    uint mant = code & ((1u << Q_MB) - 1u);
    uint sig = wgsl_select(mant, mant + (1u << Q_MB), ec != 0u);
    int eb = int(emax) + int(max(ec, 1u)) - int(top) - int(Q_MB);
    if (sig == 0u || eb < 1) { return 0.0; }
    return float(sig) * uintBitsToFloat(uint(eb) << 23u);
}

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_mmax[tid] = 0u;
    sh_vmax[tid] = 0u;
    sh_code[tid] = 0u;
    barrier();

    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    bool in_range = i < size_q8;
    uint blk = i / WG;

    float lr      = hp_q8.x;
    float beta1   = hp_q8.y;
    float beta2   = hp_q8.z;
    float wd      = hp_q8.w;
    float beta1_t = bias_q8.x;
    float beta2_t = bias_q8.y;
    float eps     = bias_q8.z;
    uint t        = uint(bias_q8.w);
    float clip    = grad_stats_q8[1];

    float m_new = 0.0;
    float v_new = 0.0;
    if (in_range) {
        float grad = g_q8[i];
        grad = wgsl_select(0.0, grad, is_finite(grad));
        grad = grad * clip;

        uint word = i >> 2u;
        uint sh = (i & 3u) * 8u;
        uint mc = (m_packed[word] >> sh) & 0xffu;
        uint vc = (v_packed[word] >> sh) & 0xffu;
        float m_mag = q8_decode(mc & 0x7fu, floatBitsToUint(m_scale[blk]) >> 23u, M_TOP);
        float m_old = wgsl_select(m_mag, -m_mag, (mc & 0x80u) != 0u);
        float v_old = q8_decode(vc, floatBitsToUint(v_scale[blk]) >> 23u, V_TOP);
        float w_old = w_q8[i];

        m_new = beta1 * m_old + (1.0 - beta1) * grad;
        v_new = beta2 * v_old + (1.0 - beta2) * grad * grad;

        float b1_corr = 1.0 / max(1.0 - beta1_t, 1e-12);
        float b2_corr = 1.0 / max(1.0 - beta2_t, 1e-12);
        float m_hat = m_new * b1_corr;
        float v_hat = v_new * b2_corr;

        float denom = sqrt(v_hat) + eps;
        float adam_step = m_hat / denom + wd * w_old;
        float w_new = w_old - lr * adam_step;

        w_q8[i] = w_new;
        g_q8[i] = 0.0;
    }

    uint m_bits = floatBitsToUint(abs(m_new));
    uint v_bits = floatBitsToUint(v_new);
    sh_mmax[tid] = m_bits;
    sh_vmax[tid] = v_bits;
    barrier();
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_mmax[tid] = max(sh_mmax[tid], sh_mmax[tid + s]);
            sh_vmax[tid] = max(sh_vmax[tid], sh_vmax[tid + s]);
        }
        barrier();
        s = s >> 1u;
    }
    uint m_emax = q8_block_exp(sh_mmax[0]);
    uint v_emax = q8_block_exp(sh_vmax[0]);

    uint salt = hash_u32(t);
    uint m_code = q8_encode(m_bits, m_emax, M_TOP, hash_u32(floatBitsToUint(m_new) ^ salt));
    uint v_code = q8_encode(v_bits, v_emax, V_TOP, hash_u32(v_bits ^ (salt * 0x9e3779b9u)));
    m_code = wgsl_select(m_code, m_code | 0x80u, m_new < 0.0 && m_code != 0u);
    v_code = wgsl_select(v_code, 1u, v_code == 0u && (v_bits >> 23u) != 0u);
    sh_code[tid] = m_code | (v_code << 8u);
    barrier();

    if (tid < 64u) {
        uint word = blk * 64u + tid;
        if (word * 4u < size_q8) {
            uint mw = 0u;
            uint vw = 0u;
            for (uint k = 0u; k < 4u; k = k + 1u) {
                uint c = sh_code[tid * 4u + k];
                mw = mw | ((c & 0xffu) << (8u * k));
                vw = vw | ((c >> 8u) << (8u * k));
            }
            m_packed[word] = mw;
            v_packed[word] = vw;
        }
    }
    if (tid == 0u && blk * WG < size_q8) {
        m_scale[blk] = uintBitsToFloat(m_emax << 23u);
        v_scale[blk] = uintBitsToFloat(v_emax << 23u);
    }
}
