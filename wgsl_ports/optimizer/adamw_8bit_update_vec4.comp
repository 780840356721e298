// Port of adamw_8bit_update_vec4, optimizer_native.wgsl: wgslvk's own kernel, not from the
// browser engine (12_optimizer.wgsl's adamw_8bit_update in its llm.istanbul study,
// restructured: 64 invocations per 256-element block, 4 elements each, bit-identical results).
// Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 64
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer WV4 { vec4 w_v4[]; };
layout(set = 0, binding = 1, std430) buffer GV4 { vec4 g_v4[]; };
layout(set = 0, binding = 2, std430) buffer MPackedV4 { uint m_packed_v4[]; };
layout(set = 0, binding = 3, std430) buffer VPackedV4 { uint v_packed_v4[]; };
layout(set = 0, binding = 4, std430) buffer MScaleV4 { float m_scale_v4[]; };
layout(set = 0, binding = 5, std430) buffer VScaleV4 { float v_scale_v4[]; };
layout(set = 0, binding = 6, std430) readonly buffer GradStatsV4 { float grad_stats_v4[]; };
layout(set = 0, binding = 7, std140) uniform SizeV4 { uint size_v4; };
layout(set = 0, binding = 8, std140) uniform HpV4 { vec4 hp_v4; };      // (lr, b1, b2, wd)
layout(set = 0, binding = 9, std140) uniform BiasV4 { vec4 bias_v4; };  // (b1_t, b2_t, eps, t)

// Not zeroed (R17): every element is written before the barrier that precedes its first read.
shared uvec2 sh_max64[64];  // per invocation: (|m_new| bits, v_new bits) max
shared uvec2 sh_max8[8];

const uint Q8V4_WG = 64u;
const uint Q8V4_M_TOP = 15u;
const uint Q8V4_V_TOP = 31u;
const uint Q8V4_MB = 3u;

uint q8v4_hash(uint x_in) {
    uint x = x_in;
    x = x ^ (x >> 16u);
    x = x * 0x7feb352du;
    x = x ^ (x >> 15u);
    x = x * 0x846ca68bu;
    x = x ^ (x >> 16u);
    return x;
}

uint q8v4_block_exp(uint max_bits) {
    uint e = max_bits >> 23u;
    bool bump = (max_bits & 0x7fffffu) > 0x700000u && e >= 1u && e < 254u;
    return wgsl_select(e, e + 1u, bump);
}

uint q8v4_encode(uint xb, uint emax, uint top, uint rnd) {
    uint ex = xb >> 23u;
    if (ex == 0u) { return 0u; }
    uint d = emax - ex;
    uint s = (xb & 0x7fffffu) | 0x800000u;
    uint shift;
    uint base;
    if (d < top) {
        shift = 23u - Q8V4_MB;
        base = (top - d - 1u) << Q8V4_MB;
    } else {
        shift = d + 24u - top - Q8V4_MB;
        base = 0u;
        if (shift > 24u) { return 0u; }
    }
    uint q = s >> shift;
    uint rem = s & ((1u << shift) - 1u);
    uint r = rnd >> (32u - shift);
    uint code = base + q;
    if (rem + r >= (1u << shift)) { code = code + 1u; }
    return min(code, (top << Q8V4_MB) | ((1u << Q8V4_MB) - 1u));
}

float q8v4_decode(uint code, uint emax, uint top) {
    uint ec = code >> Q8V4_MB;
    uint mant = code & ((1u << Q8V4_MB) - 1u);
    uint sig = wgsl_select(mant, mant + (1u << Q8V4_MB), ec != 0u);
    int eb = int(emax) + int(max(ec, 1u)) - int(top) - int(Q8V4_MB);
    if (sig == 0u || eb < 1) { return 0.0; }
    return float(sig) * uintBitsToFloat(uint(eb) << 23u);
}

struct Q8V4Dec {
    uint kb;
    uint t;
    float p0;
};

Q8V4Dec q8v4_dec_consts(uint emax, uint top) {
    Q8V4Dec c = Q8V4Dec(0u, 0u, 0.0);  // WGSL: zero-initialized var
    c.kb = (emax - top) << 23u;
    c.t = uint(max(4 + int(top) - int(emax), 1)) << Q8V4_MB;
    c.p0 = wgsl_select(0.0, uintBitsToFloat((emax - top - 2u) << 23u), emax >= top + 3u);
    return c;
}

// Same bits as q8v4_decode for emax < 256 (the WGSL explains the formulation).
float q8v4_dec(uint code, Q8V4Dec c) {
    float hi = uintBitsToFloat(min((code << 20u) + c.kb, 0x7f800000u));
    float lo = float(code) * c.p0;
    return wgsl_select(lo, hi, code >= c.t);
}

struct Q8V4Enc {
    uint emax;
    uint lo_ex;
    uint cn;
};

Q8V4Enc q8v4_enc_consts(uint emax, uint top) {
    return Q8V4Enc(emax, uint(max(int(emax) - int(top), 0)), (top - emax) << Q8V4_MB);
}

// Same code as q8v4_encode: its branches only below the block's normal codes.
uint q8v4_enc(uint xb, uint top, uint rnd, Q8V4Enc c, bool floor1) {
    uint ex = xb >> 23u;
    uint code = (xb >> 20u) + c.cn + wgsl_select(0u, 1u, (xb << 12u) + rnd < rnd);
    code = min(code, wgsl_select(0u, (top << Q8V4_MB) | ((1u << Q8V4_MB) - 1u), ex != 0u));
    if (ex - 1u < c.lo_ex) {
        code = q8v4_encode(xb, c.emax, top, rnd);
        code = wgsl_select(code, 1u, floor1 && code == 0u);
    }
    return code;
}

struct Q8V4Consts {
    float lr; float beta1; float beta2; float wd;
    float b1_corr; float b2_corr; float eps; float clip;
    uint m_emax_old; uint v_emax_old;
    Q8V4Dec m_dec; Q8V4Dec v_dec;
};

struct Q8V4Elem {
    float w_new;
    float m_new;
    float v_new;
};

float q8v4_m_old(uint mc, Q8V4Consts k) {
    float m_mag = q8v4_dec(mc & 0x7fu, k.m_dec);
    return uintBitsToFloat(floatBitsToUint(m_mag) | ((mc & 0x80u) << 24u));
}

float q8v4_m_old_port(uint mc, Q8V4Consts k) {
    float m_mag = q8v4_decode(mc & 0x7fu, k.m_emax_old, Q8V4_M_TOP);
    return wgsl_select(m_mag, -m_mag, (mc & 0x80u) != 0u);
}

Q8V4Elem q8v4_elem(float w_old, float g_raw, float m_old, float v_old, bool in_range, Q8V4Consts k) {
    float grad = g_raw;
    grad = wgsl_select(0.0, grad, is_finite(grad));
    grad = grad * k.clip;

    float m_new = k.beta1 * m_old + (1.0 - k.beta1) * grad;
    float v_new = k.beta2 * v_old + (1.0 - k.beta2) * grad * grad;

    float m_hat = m_new * k.b1_corr;
    float v_hat = v_new * k.b2_corr;

    float denom = sqrt(v_hat) + k.eps;
    float adam_step = m_hat / denom + k.wd * w_old;
    float w_new = w_old - k.lr * adam_step;
    return Q8V4Elem(w_new, wgsl_select(0.0, m_new, in_range), wgsl_select(0.0, v_new, in_range));
}

uint q8v4_m_code(float m_new, uint salt, Q8V4Enc c) {
    uint m_code = q8v4_enc(floatBitsToUint(abs(m_new)), Q8V4_M_TOP, q8v4_hash(floatBitsToUint(m_new) ^ salt), c, false);
    return wgsl_select(m_code, m_code | 0x80u, m_new < 0.0 && m_code != 0u);
}

uint q8v4_v_code(float v_new, uint salt_v, Q8V4Enc c) {
    uint v_bits = floatBitsToUint(v_new);
    return q8v4_enc(v_bits, Q8V4_V_TOP, q8v4_hash(v_bits ^ salt_v), c, true);
}

void main() {
    uint tid = gl_LocalInvocationIndex;

    uint q = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint n = size_v4;
    uint words = (n >> 2u) + wgsl_select(0u, 1u, (n & 3u) != 0u);
    bool live = q < words;
    uint blk = q / Q8V4_WG;
    uint i0 = q * 4u;

    Q8V4Consts k = Q8V4Consts(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0u, 0u, Q8V4Dec(0u, 0u, 0.0), Q8V4Dec(0u, 0u, 0.0));  // WGSL: zero-initialized var
    k.lr = hp_v4.x;
    k.beta1 = hp_v4.y;
    k.beta2 = hp_v4.z;
    k.wd = hp_v4.w;
    k.b1_corr = 1.0 / max(1.0 - bias_v4.x, 1e-12);
    k.b2_corr = 1.0 / max(1.0 - bias_v4.y, 1e-12);
    k.eps = bias_v4.z;
    uint t = uint(bias_v4.w);

    Q8V4Elem e0 = Q8V4Elem(0.0, 0.0, 0.0);
    Q8V4Elem e1 = e0;
    Q8V4Elem e2 = e0;
    Q8V4Elem e3 = e0;
    if (live) {
        k.clip = grad_stats_v4[1];
        k.m_emax_old = floatBitsToUint(m_scale_v4[blk]) >> 23u;
        k.v_emax_old = floatBitsToUint(v_scale_v4[blk]) >> 23u;
        uint mw = m_packed_v4[q];
        uint vw = v_packed_v4[q];
        vec4 w4 = w_v4[q];
        vec4 g4 = g_v4[q];
        k.m_dec = q8v4_dec_consts(k.m_emax_old, Q8V4_M_TOP);
        k.v_dec = q8v4_dec_consts(k.v_emax_old, Q8V4_V_TOP);
        if (max(k.m_emax_old, k.v_emax_old) < 256u) {
            e0 = q8v4_elem(w4.x, g4.x, q8v4_m_old(mw & 0xffu, k), q8v4_dec(vw & 0xffu, k.v_dec), i0 < n, k);
            e1 = q8v4_elem(w4.y, g4.y, q8v4_m_old((mw >> 8u) & 0xffu, k), q8v4_dec((vw >> 8u) & 0xffu, k.v_dec), i0 + 1u < n, k);
            e2 = q8v4_elem(w4.z, g4.z, q8v4_m_old((mw >> 16u) & 0xffu, k), q8v4_dec((vw >> 16u) & 0xffu, k.v_dec), i0 + 2u < n, k);
            e3 = q8v4_elem(w4.w, g4.w, q8v4_m_old(mw >> 24u, k), q8v4_dec(vw >> 24u, k.v_dec), i0 + 3u < n, k);
        } else {
            e0 = q8v4_elem(w4.x, g4.x, q8v4_m_old_port(mw & 0xffu, k), q8v4_decode(vw & 0xffu, k.v_emax_old, Q8V4_V_TOP), i0 < n, k);
            e1 = q8v4_elem(w4.y, g4.y, q8v4_m_old_port((mw >> 8u) & 0xffu, k), q8v4_decode((vw >> 8u) & 0xffu, k.v_emax_old, Q8V4_V_TOP), i0 + 1u < n, k);
            e2 = q8v4_elem(w4.z, g4.z, q8v4_m_old_port((mw >> 16u) & 0xffu, k), q8v4_decode((vw >> 16u) & 0xffu, k.v_emax_old, Q8V4_V_TOP), i0 + 2u < n, k);
            e3 = q8v4_elem(w4.w, g4.w, q8v4_m_old_port(mw >> 24u, k), q8v4_decode(vw >> 24u, k.v_emax_old, Q8V4_V_TOP), i0 + 3u < n, k);
        }
        if (i0 + 3u < n) {
            w_v4[q] = vec4(e0.w_new, e1.w_new, e2.w_new, e3.w_new);
            g_v4[q] = vec4(0.0);
        } else {
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

    uint mmax = max(max(floatBitsToUint(abs(e0.m_new)), floatBitsToUint(abs(e1.m_new))),
                    max(floatBitsToUint(abs(e2.m_new)), floatBitsToUint(abs(e3.m_new))));
    uint vmax = max(max(floatBitsToUint(e0.v_new), floatBitsToUint(e1.v_new)),
                    max(floatBitsToUint(e2.v_new), floatBitsToUint(e3.v_new)));
    sh_max64[tid] = uvec2(mmax, vmax);
    barrier();
    if (tid < 8u) {
        uvec2 a = sh_max64[tid * 8u];
        for (uint j = 1u; j < 8u; j = j + 1u) {
            a = max(a, sh_max64[tid * 8u + j]);
        }
        sh_max8[tid] = a;
    }
    barrier();
    uvec2 bm = sh_max8[0];
    for (uint j = 1u; j < 8u; j = j + 1u) {
        bm = max(bm, sh_max8[j]);
    }
    uint m_emax = q8v4_block_exp(bm.x);
    uint v_emax = q8v4_block_exp(bm.y);

    if (live) {
        uint salt = q8v4_hash(t);
        uint salt_v = salt * 0x9e3779b9u;
        Q8V4Enc me = q8v4_enc_consts(m_emax, Q8V4_M_TOP);
        Q8V4Enc ve = q8v4_enc_consts(v_emax, Q8V4_V_TOP);
        m_packed_v4[q] = q8v4_m_code(e0.m_new, salt, me) | (q8v4_m_code(e1.m_new, salt, me) << 8u) | (q8v4_m_code(e2.m_new, salt, me) << 16u) | (q8v4_m_code(e3.m_new, salt, me) << 24u);
        v_packed_v4[q] = q8v4_v_code(e0.v_new, salt_v, ve) | (q8v4_v_code(e1.v_new, salt_v, ve) << 8u) | (q8v4_v_code(e2.v_new, salt_v, ve) << 16u) | (q8v4_v_code(e3.v_new, salt_v, ve) << 24u);
    }
    if (tid == 0u && live) {
        m_scale_v4[blk] = uintBitsToFloat(m_emax << 23u);
        v_scale_v4[blk] = uintBitsToFloat(v_emax << 23u);
    }
}
