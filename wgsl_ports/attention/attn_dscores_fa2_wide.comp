// Port of attn_dscores_fa2_wide, attention_native.wgsl: wgslvk's own variant of attn_dscores_fa2
// (not from the log; TinyGPT's engineering log, the FlashAttention-2 backward), 8
// invocations per Q row each owning the head columns g + 8t. Line by line; same group/binding/
// access as the WGSL (and as attn_dscores_fa2).
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
layout(set = 0, binding = 2, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 3, std430) readonly buffer Lse { float lse[]; };
layout(set = 0, binding = 4, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 5, std430) buffer Dqkv { float dqkv[]; };

// Every element read in a step is written by that step's load first: no zeroing (R17).
shared float kv_b[2048];
shared float part_b[2048];

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
    uint g_off = (b * T + ic) * d + h * hd;
    float L = lse[(b * H + h) * T + ic];
    float Di = dsum[(b * H + h) * T + ic];
    float scale = p.scale;

    float q[W_COLS];
    float go[W_COLS];
    float dq[W_COLS];
    float s[W_TILE];
    float dp[W_TILE];
    // WGSL zero-initializes
    for (uint t = 0u; t < W_COLS; t = t + 1u) { q[t] = 0.0; go[t] = 0.0; dq[t] = 0.0; }
    for (uint t = 0u; t < W_COLS; t = t + 1u) {
        uint c = g + W_SPLIT * t;
        if (c < hd) {
            q[t] = qkv[q_off + c];
            go[t] = dout[g_off + c];
        }
    }
    for (uint kb = 0u; kb <= qt; kb = kb + 1u) {
        uint j0 = kb * W_TILE;
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            uint jj = e / hd;
            float vx = 0.0;
            if (j0 + jj < T) {
                vx = qkv[(b * T + j0 + jj) * 3u * d + 2u * d + h * hd + e % hd];
            }
            kv_b[e] = vx;
        }
        barrier();
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float acc = 0.0;
            for (uint t = 0u; t < W_COLS; t = t + 1u) {
                uint c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + go[t] * kv_b[jj * hd + c]; }
            }
            part_b[(jj * W_TILE + r) * W_SPLIT + g] = acc;
        }
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            uint jj = e / hd;
            float kx = 0.0;
            if (j0 + jj < T) {
                kx = qkv[(b * T + j0 + jj) * 3u * d + d + h * hd + e % hd];
            }
            kv_b[e] = kx;
        }
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float acc = 0.0;
            for (uint gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(jj * W_TILE + r) * W_SPLIT + gg];
            }
            dp[jj] = acc;
        }
        barrier();
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float acc = 0.0;
            for (uint t = 0u; t < W_COLS; t = t + 1u) {
                uint c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + q[t] * kv_b[jj * hd + c]; }
            }
            part_b[(jj * W_TILE + r) * W_SPLIT + g] = acc;
        }
        barrier();
        for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
            float acc = 0.0;
            for (uint gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(jj * W_TILE + r) * W_SPLIT + gg];
            }
            float ds = 0.0;
            if (j0 + jj <= ic) {
                float pij = exp(acc * scale - L);
                ds = pij * (dp[jj] - Di);
            }
            s[jj] = ds;
        }
        for (uint t = 0u; t < W_COLS; t = t + 1u) {
            uint c = g + W_SPLIT * t;
            if (c < hd) {
                float acc = dq[t];
                for (uint jj = 0u; jj < W_TILE; jj = jj + 1u) {
                    acc = acc + s[jj] * kv_b[jj * hd + c];
                }
                dq[t] = acc;
            }
        }
    }
    if (i < T) {
        for (uint t = 0u; t < W_COLS; t = t + 1u) {
            uint c = g + W_SPLIT * t;
            if (c < hd) { dqkv[q_off + c] = dq[t] * scale; }
        }
    }
}
