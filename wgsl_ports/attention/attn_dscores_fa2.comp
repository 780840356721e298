// Port of attn_dscores_fa2, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 backward: recomputes P from q, k and the saved L; here dq per Q tile). Line by
// line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 16
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 3, std430) readonly buffer Lse { float lse[]; };
layout(set = 0, binding = 4, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 5, std430) buffer Dqkv { float dqkv[]; };

shared float k_blk_ds[2048];  // written before read in every block step (R17: no zeroing)
shared float v_blk_ds[2048];

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
    uint g_off = (b * T + ic) * d + h * hd;
    float L = lse[(b * H + h) * T + ic];
    float Di = dsum[(b * H + h) * T + ic];
    float scale = p.scale;

    float dq[MAX_HD];
    for (uint c = 0u; c < MAX_HD; c = c + 1u) { dq[c] = 0.0; }  // WGSL zero-initializes
    float s[TILE];
    float dp[TILE];
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
            k_blk_ds[e] = kx;
            v_blk_ds[e] = vx;
        }
        barrier();

        for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
            s[jj] = 0.0;
            dp[jj] = 0.0;
        }
        for (uint c = 0u; c < hd; c = c + 1u) {
            float qc = qkv[q_off + c];
            float gc = dout[g_off + c];
            for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
                s[jj] = s[jj] + qc * k_blk_ds[jj * hd + c];
                dp[jj] = dp[jj] + gc * v_blk_ds[jj * hd + c];
            }
        }
        for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
            float ds = 0.0;
            if (j0 + jj <= ic) {
                float pij = exp(s[jj] * scale - L);
                ds = pij * (dp[jj] - Di);
            }
            s[jj] = ds;
        }
        for (uint c = 0u; c < MAX_HD; c = c + 1u) {
            if (c < hd) {
                float acc = dq[c];
                for (uint jj = 0u; jj < TILE; jj = jj + 1u) {
                    acc = acc + s[jj] * k_blk_ds[jj * hd + c];
                }
                dq[c] = acc;
            }
        }
    }
    if (i < T) {
        for (uint c = 0u; c < hd; c = c + 1u) {
            dqkv[q_off + c] = dq[c] * scale;
        }
    }
}
