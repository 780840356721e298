// Port of attn_dv_fa2_wide, attention_native.wgsl: wgslvk's own variant of attn_dv_fa2 (not from
// the log; TinyGPT's engineering log, the FlashAttention-2 backward), 8 invocations
// per key row each owning the head columns g + 8t of dk and dv. Line by line; same group/binding/
// access as the WGSL (and as attn_dv_fa2).
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
    uint kt = gl_WorkGroupID.x;
    uint h = gl_WorkGroupID.y;
    uint b = gl_WorkGroupID.z;
    uint r = gl_LocalInvocationID.x / W_SPLIT;
    uint g = gl_LocalInvocationID.x % W_SPLIT;
    uint j = kt * W_TILE + r;
    uint jc = min(j, T - 1u);
    uint k_off = (b * T + jc) * 3u * d + d + h * hd;
    uint v_off = k_off + d;
    float scale = p.scale;
    uint n_tiles = (T + W_TILE - 1u) / W_TILE;

    float kr[W_COLS];
    float vr[W_COLS];
    float dk[W_COLS];
    float dv[W_COLS];
    float pw[W_TILE];
    float dp[W_TILE];
    // WGSL zero-initializes
    for (uint t = 0u; t < W_COLS; t = t + 1u) {
        kr[t] = 0.0; vr[t] = 0.0; dk[t] = 0.0; dv[t] = 0.0;
    }
    for (uint t = 0u; t < W_COLS; t = t + 1u) {
        uint c = g + W_SPLIT * t;
        if (c < hd) {
            kr[t] = qkv[k_off + c];
            vr[t] = qkv[v_off + c];
        }
    }
    for (uint qb = kt; qb < n_tiles; qb = qb + 1u) {
        uint i0 = qb * W_TILE;
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            uint ii = e / hd;
            float gx = 0.0;
            if (i0 + ii < T) { gx = dout[(b * T + i0 + ii) * d + h * hd + e % hd]; }
            kv_b[e] = gx;
        }
        barrier();
        for (uint ii = 0u; ii < W_TILE; ii = ii + 1u) {
            float acc = 0.0;
            for (uint t = 0u; t < W_COLS; t = t + 1u) {
                uint c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + kv_b[ii * hd + c] * vr[t]; }
            }
            part_b[(ii * W_TILE + r) * W_SPLIT + g] = acc;
        }
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < W_TILE * hd; e = e + W_TILE * W_SPLIT) {
            uint ii = e / hd;
            float qx = 0.0;
            if (i0 + ii < T) { qx = qkv[(b * T + i0 + ii) * 3u * d + h * hd + e % hd]; }
            kv_b[e] = qx;
        }
        for (uint ii = 0u; ii < W_TILE; ii = ii + 1u) {
            float acc = 0.0;
            for (uint gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(ii * W_TILE + r) * W_SPLIT + gg];
            }
            dp[ii] = acc;
        }
        barrier();
        for (uint ii = 0u; ii < W_TILE; ii = ii + 1u) {
            float acc = 0.0;
            for (uint t = 0u; t < W_COLS; t = t + 1u) {
                uint c = g + W_SPLIT * t;
                if (c < hd) { acc = acc + kv_b[ii * hd + c] * kr[t]; }
            }
            part_b[(ii * W_TILE + r) * W_SPLIT + g] = acc;
        }
        barrier();
        for (uint ii = 0u; ii < W_TILE; ii = ii + 1u) {
            float acc = 0.0;
            for (uint gg = 0u; gg < W_SPLIT; gg = gg + 1u) {
                acc = acc + part_b[(ii * W_TILE + r) * W_SPLIT + gg];
            }
            uint i = i0 + ii;
            float pij = 0.0;
            float ds = 0.0;
            if (i >= jc && i < T) {
                uint row = (b * H + h) * T + i;
                pij = exp(acc * scale - lse[row]);
                ds = pij * (dp[ii] - dsum[row]) * scale;
            }
            pw[ii] = pij;
            dp[ii] = ds;
        }
        for (uint t = 0u; t < W_COLS; t = t + 1u) {
            uint c = g + W_SPLIT * t;
            if (c < hd) {
                float ak = dk[t];
                float av = dv[t];
                for (uint ii = 0u; ii < W_TILE; ii = ii + 1u) {
                    ak = ak + dp[ii] * kv_b[ii * hd + c];
                    if (i0 + ii < T) {
                        av = av + pw[ii] * dout[(b * T + i0 + ii) * d + h * hd + c];
                    }
                }
                dk[t] = ak;
                dv[t] = av;
            }
        }
    }
    if (j < T) {
        for (uint t = 0u; t < W_COLS; t = t + 1u) {
            uint c = g + W_SPLIT * t;
            if (c < hd) {
                dqkv[k_off + c] = dk[t];
                dqkv[v_off + c] = dv[t];
            }
        }
    }
}
