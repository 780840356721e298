// Port of attn_fwd_fa2, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 forward: one workgroup per (batch, head, Q tile of 16 rows), K/V blocks of 16,
// (m, l, O) per invocation). Line by line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 16
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) buffer Out { float out_[]; };
layout(set = 0, binding = 3, std430) buffer Lse { float lse[]; };

// Every element read in a block step is written by that step's load first: no zeroing (R17).
shared float k_blk[2048];
shared float v_blk[2048];

void main() {
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    if (hd > MAX_HD) { return; }
    uint d = H * hd;
    uint qt = gl_WorkGroupID.x;
    uint h = gl_WorkGroupID.y;
    uint b = gl_WorkGroupID.z;
    uint r = gl_LocalInvocationID.x;
    uint i = qt * TILE + r;
    uint ic = min(i, T - 1u);
    uint q_off = (b * T + ic) * 3u * d + h * hd;
    float scale = p.scale;

    float o[MAX_HD];
    for (uint c = 0u; c < MAX_HD; c = c + 1u) { o[c] = 0.0; }  // WGSL zero-initializes
    float s[TILE];
    float m = 0.0;
    float l = 0.0;
    for (uint kb = 0u; kb <= qt; kb = kb + 1u) {
        uint j0 = kb * TILE;
        barrier();
        for (uint e = r; e < TILE * hd; e = e + TILE) {
            uint jj = e / hd;
            uint c = e % hd;
            float kx = 0.0;
            float vx = 0.0;
            if (j0 + jj < T) {
                uint k_off = (b * T + j0 + jj) * 3u * d + d + h * hd + c;
                kx = qkv[k_off];
                vx = qkv[k_off + d];
            }
            k_blk[e] = kx;
            v_blk[e] = vx;
        }
        barrier();

        for (uint jj = 0u; jj < TILE; jj = jj + 1u) { s[jj] = 0.0; }
        for (uint c = 0u; c < hd; c = c + 1u) {
            float qc = qkv[q_off + c];
            for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
                s[jj] = s[jj] + qc * k_blk[jj * hd + c];
            }
        }
        float bmax = s[0] * scale;
        for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
            float sj = s[jj] * scale;
            s[jj] = sj;
            if (j0 + jj <= ic) { bmax = max(bmax, sj); }
        }
        bool first = kb == 0u;
        float m_new = wgsl_select(max(m, bmax), bmax, first);
        float alpha = exp(wgsl_select(m - m_new, 0.0, first));
        float psum = 0.0;
        for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
            float pj = 0.0;
            if (j0 + jj <= ic) { pj = exp(s[jj] - m_new); }
            s[jj] = pj;
            psum = psum + pj;
        }
        l = l * alpha + psum;
        for (uint c = 0u; c < MAX_HD; c = c + 1u) {
            if (c < hd) {
                float acc = o[c] * alpha;
                for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
                    acc = acc + s[jj] * v_blk[jj * hd + c];
                }
                o[c] = acc;
            }
        }
        m = m_new;
    }
    if (i < T) {
        uint o_off = (b * T + i) * d + h * hd;
        for (uint c = 0u; c < hd; c = c + 1u) {
            out_[o_off + c] = o[c] / l;
        }
        lse[(b * H + h) * T + i] = m + log(l);
    }
}
