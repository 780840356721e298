// Port of attn_fwd_fa2_wide, attention_native.wgsl: wgslvk's own variant of attn_fwd_fa2 (not
// from the log; TinyGPT's engineering log, the FlashAttention-2 forward), 8
// invocations per Q row each owning the head columns g + 8t. Line by line; same group/binding/
// access as the WGSL (and as attn_fwd_fa2).
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 128
#include "wgsl.glsl"
#include "attention_common.glsl"

#define W_TILE 16u
#define W_SPLIT 8u
#define W_MAX_HD 128u
#define W_COLS 16u

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) buffer Out { float out_[]; };
layout(set = 0, binding = 3, std430) buffer Lse { float lse[]; };

// Every element read in a step is written by that step's load first: no zeroing (R17).
shared float kv_w[2048];
shared float part_w[2048];

void main() {
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    if (hd > W_MAX_HD) { return; }
    uint d = H * hd;
    uint qt = gl_WorkGroupID.x;
    uint h = gl_WorkGroupID.y;
    uint b = gl_WorkGroupID.z;
    uint r = gl_LocalInvocationID.x / W_SPLIT;
    uint g = gl_LocalInvocationID.x % W_SPLIT;
    uint i = qt * W_TILE + r;
    uint ic = min(i, T - 1u);
    uint q_off = (b * T + ic) * 3u * d + h * hd;
    float scale = p.scale;

    float q[W_COLS];
    float o[W_COLS];
    float s[W_TILE];
    for (uint t = 0u; t < W_COLS; t = t + 1u) { q[t] = 0.0; o[t] = 0.0; }  // WGSL zero-initializes
    for (uint t = 0u; t < W_COLS; t = t + 1u) {
        uint c = g + W_SPLIT * t;
        if (c < hd) { q[t] = qkv[q_off + c]; }
    }
    float m = 0.0;
    float l = 0.0;
    for (uint kb = 0u; kb <= qt; kb = kb + 1u) {
        uint j0 = kb * W_TILE;
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            uint jj = e / hd;
            float kx = 0.0;
            if (j0 + jj < T) {
                kx = qkv[(b * T + j0 + jj) * 3u * d + d + h * hd + e % hd];
            }
            kv_w[e] = kx;
        }
        barrier();
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float acc = 0.0;
            for (uint t = 0u; t < W_COLS; t = t + 1u) {
                uint c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + q[t] * kv_w[jj * hd + c]; }
            }
            part_w[(jj * W_TILE + r) * W_SPLIT + g] = acc;
        }
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            uint jj = e / hd;
            float vx = 0.0;
            if (j0 + jj < T) {
                vx = qkv[(b * T + j0 + jj) * 3u * d + 2u * d + h * hd + e % hd];
            }
            kv_w[e] = vx;
        }
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float acc = 0.0;
            for (uint gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_w[(jj * W_TILE + r) * W_SPLIT + gg];
            }
            s[jj] = acc * scale;
        }
        barrier();
        float bmax = s[0];
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            if (j0 + jj <= ic) { bmax = max(bmax, s[jj]); }
        }
        bool first = kb == 0u;
        float m_new = wgsl_select(max(m, bmax), bmax, first);
        float alpha = exp(wgsl_select(m - m_new, 0.0, first));
        float psum = 0.0;
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float pj = 0.0;
            if (j0 + jj <= ic) { pj = exp(s[jj] - m_new); }
            s[jj] = pj;
            psum = psum + pj;
        }
        l = l * alpha + psum;
        for (uint t = 0u; t < W_COLS; t = t + 1u) {
            uint c = g + W_SPLIT * t;
            if (c < hd) {
                float acc = o[t] * alpha;
                for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
                    acc = acc + s[jj] * kv_w[jj * hd + c];
                }
                o[t] = acc;
            }
        }
        m = m_new;
    }
    if (i < T) {
        uint o_off = (b * T + i) * d + h * hd;
        for (uint t = 0u; t < W_COLS; t = t + 1u) {
            uint c = g + W_SPLIT * t;
            if (c < hd) { out_[o_off + c] = o[t] / l; }
        }
        if (g == 0u) { lse[(b * H + h) * T + i] = m + log(l); }
    }
}
