// Port of attn_dv_fa2, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 backward: recomputes P from q, k and the saved L; here dk and dv per K tile).
// Line by line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 32
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 3, std430) readonly buffer Lse { float lse[]; };
layout(set = 0, binding = 4, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 5, std430) buffer Dqkv { float dqkv[]; };

shared float q_blk_dv[2048];  // written before read in every block step (R17: no zeroing)
shared float g_blk_dv[2048];

void main() {
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    if (hd > MAX_HD) { return; }
    uint d = H * hd;
    uint kt = gl_WorkGroupID.x;
    uint h = gl_WorkGroupID.y;
    uint b = gl_WorkGroupID.z;
    uint r = gl_LocalInvocationID.x % TILE;
    bool is_dk = gl_LocalInvocationID.x >= TILE;
    uint j = kt * TILE + r;
    uint jc = min(j, T - 1u);
    uint k_off = (b * T + jc) * 3u * d + d + h * hd;
    uint v_off = k_off + d;
    float scale = p.scale;
    uint n_tiles = (T + TILE - 1u) / TILE;

    float acc[MAX_HD];
    for (uint c = 0u; c < MAX_HD; c = c + 1u) { acc[c] = 0.0; }  // WGSL zero-initializes
    float s[TILE];
    float dp[TILE];
    for (uint qb = kt; qb < n_tiles; qb = qb + 1u) {
        uint i0 = qb * TILE;
        barrier();
        for (uint e = gl_LocalInvocationID.x; e < TILE * hd; e = e + 2u * TILE) {
            uint ii = e / hd;
            uint c = e % hd;
            float qx = 0.0;
            float gx = 0.0;
            if (i0 + ii < T) {
                qx = qkv[(b * T + i0 + ii) * 3u * d + h * hd + c];
                gx = dout[(b * T + i0 + ii) * d + h * hd + c];
            }
            q_blk_dv[e] = qx;
            g_blk_dv[e] = gx;
        }
        barrier();

        for (uint ii = 0u; ii < TILE; ii = ii + 1u) {
            s[ii] = 0.0;
            dp[ii] = 0.0;
        }
        for (uint c = 0u; c < hd; c = c + 1u) {
            float kc = qkv[k_off + c];
            float vc = qkv[v_off + c];
            for (uint ii = 0u; ii < TILE; ii = ii + 1u) {
                s[ii] = s[ii] + q_blk_dv[ii * hd + c] * kc;
                dp[ii] = dp[ii] + g_blk_dv[ii * hd + c] * vc;
            }
        }
        for (uint ii = 0u; ii < TILE; ii = ii + 1u) {
            uint i = i0 + ii;
            float w = 0.0;
            if (i >= jc && i < T) {
                uint row = (b * H + h) * T + i;
                float pij = exp(s[ii] * scale - lse[row]);
                float ds = pij * (dp[ii] - dsum[row]);
                w = wgsl_select(pij, ds * scale, is_dk);
            }
            s[ii] = w;
        }
        for (uint c = 0u; c < MAX_HD; c = c + 1u) {
            if (c < hd) {
                float a = acc[c];
                for (uint ii = 0u; ii < TILE; ii = ii + 1u) {
                    a = a + s[ii] * wgsl_select(g_blk_dv[ii * hd + c], q_blk_dv[ii * hd + c], is_dk);
                }
                acc[c] = a;
            }
        }
    }
    if (j < T) {
        uint dst = wgsl_select(v_off, k_off, is_dk);
        for (uint c = 0u; c < hd; c = c + 1u) {
            dqkv[dst + c] = acc[c];
        }
    }
}
