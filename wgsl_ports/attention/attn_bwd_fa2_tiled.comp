// Port of attn_bwd_fa2_tiled, attention_native.wgsl: wgslvk's own FA2 backward (not from the log;
// TinyGPT's engineering log, the FlashAttention-2 backward): dk/dv jobs per K tile
// and dq jobs per Q tile in one dispatch, each output accumulated by one invocation from 32 x 32
// workgroup tiles. Line by line; same group/binding/access as the WGSL (and as attn_dscores_fa2).
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

#define W_MAX_HD 128u
#define BT_TILE 32u
#define BT_CHUNKS 4u
#define BT_SLOT 1024u

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 3, std430) readonly buffer Lse { float lse[]; };
layout(set = 0, binding = 4, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 5, std430) buffer Dqkv { float dqkv[]; };

// Every element read in a step is written by that step first: no zeroing (R17).
shared float tiles_bt[4096];

uint bt_sw(uint r, uint c) {
    return r * BT_TILE + (c ^ r);
}

float bt_load(uint which, uint b, uint h, uint row, uint col) {
    uint T = p.seq;
    uint hd = p.head_dim;
    uint d = p.heads * hd;
    if (row >= T || col >= hd) { return 0.0; }
    if (which == 3u) { return dout[(b * T + row) * d + h * hd + col]; }
    return qkv[(b * T + row) * 3u * d + which * d + h * hd + col];
}

void main() {
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    if (hd > W_MAX_HD) { return; }
    uint d = H * hd;
    uint b = gl_WorkGroupID.x / H;
    uint h = gl_WorkGroupID.x % H;
    uint nt = (T + BT_TILE - 1u) / BT_TILE;
    bool kv = (gl_WorkGroupID.y % 2u) == 0u;
    uint tile = kv ? gl_WorkGroupID.y / 2u : nt - 1u - gl_WorkGroupID.y / 2u;
    uint f0 = tile * BT_TILE;
    uint f1w = kv ? 1u : 0u;
    uint f2w = kv ? 2u : 3u;
    uint s1w = kv ? 0u : 1u;
    uint s2w = kv ? 3u : 2u;
    uint first = kv ? tile : 0u;
    uint nb = kv ? nt - tile : tile + 1u;
    uint last = (hd - 1u) / BT_TILE;
    uint t = gl_LocalInvocationID.x;
    uint ty = t / 16u;
    uint tx = t % 16u;
    uint lr = t / BT_TILE;
    uint lc = t % BT_TILE;
    float scale = p.scale;
    uint row_base = (b * H + h) * T;

    float f1[16];
    float f2[16];
    float acc1[16];
    float acc2[16];
    // WGSL zero-initializes
    for (uint x = 0u; x < 16u; x = x + 1u) { f1[x] = 0.0; f2[x] = 0.0; acc1[x] = 0.0; acc2[x] = 0.0; }
    for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
        for (uint u = 0u; u < 4u; u = u + 1u) {
            f1[ch * 4u + u] = bt_load(f1w, b, h, f0 + lr + 8u * u, ch * BT_TILE + lc);
            f2[ch * 4u + u] = bt_load(f2w, b, h, f0 + lr + 8u * u, ch * BT_TILE + lc);
        }
    }
    for (uint step = 0u; step < nb; step = step + 1u) {
        uint s0 = (first + step) * BT_TILE;
        float s[4] = float[4](0.0, 0.0, 0.0, 0.0);
        float dp[4] = float[4](0.0, 0.0, 0.0, 0.0);
        for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                barrier();
                for (uint u = 0u; u < 4u; u = u + 1u) {
                    uint x = bt_sw(lr + 8u * u, lc);
                    tiles_bt[x] = f1[ch * 4u + u];
                    tiles_bt[BT_SLOT + x] = f2[ch * 4u + u];
                    tiles_bt[2u * BT_SLOT + x] = bt_load(s1w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                    tiles_bt[3u * BT_SLOT + x] = bt_load(s2w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                }
                barrier();
                for (uint c = 0u; c < BT_TILE; c = c + 1u) {
                    float x0 = tiles_bt[bt_sw(ty, c)];
                    float x1 = tiles_bt[bt_sw(ty + 16u, c)];
                    float y0 = tiles_bt[2u * BT_SLOT + bt_sw(tx, c)];
                    float y1 = tiles_bt[2u * BT_SLOT + bt_sw(tx + 16u, c)];
                    s[0] = s[0] + x0 * y0;
                    s[1] = s[1] + x0 * y1;
                    s[2] = s[2] + x1 * y0;
                    s[3] = s[3] + x1 * y1;
                    float v0 = tiles_bt[BT_SLOT + bt_sw(ty, c)];
                    float v1 = tiles_bt[BT_SLOT + bt_sw(ty + 16u, c)];
                    float w0 = tiles_bt[3u * BT_SLOT + bt_sw(tx, c)];
                    float w1 = tiles_bt[3u * BT_SLOT + bt_sw(tx + 16u, c)];
                    dp[0] = dp[0] + v0 * w0;
                    dp[1] = dp[1] + v0 * w1;
                    dp[2] = dp[2] + v1 * w0;
                    dp[3] = dp[3] + v1 * w1;
                }
            }
        }
        barrier();
        for (uint a = 0u; a < 2u; a = a + 1u) {
            for (uint e = 0u; e < 2u; e = e + 1u) {
                uint rr = ty + 16u * a;
                uint cc = tx + 16u * e;
                uint qi = kv ? s0 + cc : f0 + rr;
                uint kj = kv ? f0 + rr : s0 + cc;
                float pv = 0.0;
                float dsv = 0.0;
                if (kj <= qi && qi < T) {
                    pv = exp(s[a * 2u + e] * scale - lse[row_base + qi]);
                    dsv = pv * (dp[a * 2u + e] - dsum[row_base + qi]);
                }
                tiles_bt[bt_sw(rr, cc)] = dsv;
                tiles_bt[BT_SLOT + bt_sw(rr, cc)] = pv;
            }
        }
        for (uint k = 0u; k < BT_CHUNKS; k = k + 1u) {
            uint ch = BT_CHUNKS - 1u - k;
            if (ch <= last) {
                if (ch != last) {
                    barrier();
                    for (uint u = 0u; u < 4u; u = u + 1u) {
                        uint x = bt_sw(lr + 8u * u, lc);
                        tiles_bt[2u * BT_SLOT + x] = bt_load(s1w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                        tiles_bt[3u * BT_SLOT + x] = bt_load(s2w, b, h, s0 + lr + 8u * u, ch * BT_TILE + lc);
                    }
                }
                barrier();
                for (uint j = 0u; j < BT_TILE; j = j + 1u) {
                    float g0 = tiles_bt[bt_sw(ty, j)];
                    float g1 = tiles_bt[bt_sw(ty + 16u, j)];
                    float z0 = tiles_bt[2u * BT_SLOT + bt_sw(j, tx)];
                    float z1 = tiles_bt[2u * BT_SLOT + bt_sw(j, tx + 16u)];
                    acc1[ch * 4u] = acc1[ch * 4u] + g0 * z0;
                    acc1[ch * 4u + 1u] = acc1[ch * 4u + 1u] + g0 * z1;
                    acc1[ch * 4u + 2u] = acc1[ch * 4u + 2u] + g1 * z0;
                    acc1[ch * 4u + 3u] = acc1[ch * 4u + 3u] + g1 * z1;
                }
                if (kv) {
                    for (uint j = 0u; j < BT_TILE; j = j + 1u) {
                        float p0 = tiles_bt[BT_SLOT + bt_sw(ty, j)];
                        float p1 = tiles_bt[BT_SLOT + bt_sw(ty + 16u, j)];
                        float o0 = tiles_bt[3u * BT_SLOT + bt_sw(j, tx)];
                        float o1 = tiles_bt[3u * BT_SLOT + bt_sw(j, tx + 16u)];
                        acc2[ch * 4u] = acc2[ch * 4u] + p0 * o0;
                        acc2[ch * 4u + 1u] = acc2[ch * 4u + 1u] + p0 * o1;
                        acc2[ch * 4u + 2u] = acc2[ch * 4u + 2u] + p1 * o0;
                        acc2[ch * 4u + 3u] = acc2[ch * 4u + 3u] + p1 * o1;
                    }
                }
            }
        }
    }
    for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
        for (uint a = 0u; a < 2u; a = a + 1u) {
            for (uint e = 0u; e < 2u; e = e + 1u) {
                uint row = f0 + ty + 16u * a;
                uint col = ch * BT_TILE + tx + 16u * e;
                if (row < T && col < hd) {
                    uint o = (b * T + row) * 3u * d + h * hd + col;
                    uint x = ch * 4u + a * 2u + e;
                    if (kv) {
                        dqkv[o + d] = acc1[x] * scale;
                        dqkv[o + 2u * d] = acc2[x];
                    } else {
                        dqkv[o] = acc1[x] * scale;
                    }
                }
            }
        }
    }
}
