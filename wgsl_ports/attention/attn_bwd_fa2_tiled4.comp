// Port of attn_bwd_fa2_tiled4, attention_native.wgsl: wgslvk's own FA2 backward (not from the log;
// TinyGPT's engineering log, the FlashAttention-2 backward): attn_bwd_fa2_tiled with 64
// invocations per workgroup, each owning 4 x 4 blocks of the 32 x 32 products; head_dim <= 64.
// Line by line; same group/binding/access as the WGSL (and as attn_dscores_fa2).
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 64
#include "wgsl.glsl"
#include "attention_common.glsl"

#define BT_TILE 32u
#define BT_SLOT 1024u
#define B4_MAX_HD 64u
#define B4_CHUNKS 2u

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 3, std430) readonly buffer Lse { float lse[]; };
layout(set = 0, binding = 4, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 5, std430) buffer Dqkv { float dqkv[]; };

// Every element read in a step is written by that step first: no zeroing (R17).
shared float tiles_b4[4096];

uint bt_sw(uint r, uint c) {
    return r * BT_TILE + (c ^ r);
}

float b4_load(uint which, uint b, uint h, uint row, uint col) {
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
    if (hd > B4_MAX_HD) { return; }
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
    uint ty = t / 8u;
    uint tx = t % 8u;
    uint lr = t / BT_TILE;
    uint lc = t % BT_TILE;
    float scale = p.scale;
    uint row_base = (b * H + h) * T;

    float acc1_0[16];
    float acc1_1[16];
    float acc2_0[16];
    float acc2_1[16];
    // WGSL zero-initializes
    for (uint x = 0u; x < 16u; x = x + 1u) { acc1_0[x] = 0.0; acc1_1[x] = 0.0; acc2_0[x] = 0.0; acc2_1[x] = 0.0; }
    for (uint step = 0u; step < nb; step = step + 1u) {
        uint s0 = (first + step) * BT_TILE;
        float s[16] = float[16](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        float dp[16] = float[16](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (uint ch = 0u; ch < B4_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                barrier();
                for (uint u = 0u; u < 16u; u = u + 1u) {
                    uint x = bt_sw(lr + 2u * u, lc);
                    uint col = ch * BT_TILE + lc;
                    tiles_b4[x] = b4_load(f1w, b, h, f0 + lr + 2u * u, col);
                    tiles_b4[BT_SLOT + x] = b4_load(f2w, b, h, f0 + lr + 2u * u, col);
                    tiles_b4[2u * BT_SLOT + x] = b4_load(s1w, b, h, s0 + lr + 2u * u, col);
                    tiles_b4[3u * BT_SLOT + x] = b4_load(s2w, b, h, s0 + lr + 2u * u, col);
                }
                barrier();
                for (uint c = 0u; c < BT_TILE; c = c + 1u) {
                    float x[4] = float[4](0.0, 0.0, 0.0, 0.0);  // WGSL zero-initializes
                    float y[4] = float[4](0.0, 0.0, 0.0, 0.0);
                    for (uint a = 0u; a < 4u; a = a + 1u) {
                        x[a] = tiles_b4[bt_sw(ty + 8u * a, c)];
                        y[a] = tiles_b4[2u * BT_SLOT + bt_sw(tx + 8u * a, c)];
                    }
                    for (uint a = 0u; a < 4u; a = a + 1u) {
                        for (uint e = 0u; e < 4u; e = e + 1u) {
                            s[a * 4u + e] = s[a * 4u + e] + x[a] * y[e];
                        }
                    }
                    for (uint a = 0u; a < 4u; a = a + 1u) {
                        x[a] = tiles_b4[BT_SLOT + bt_sw(ty + 8u * a, c)];
                        y[a] = tiles_b4[3u * BT_SLOT + bt_sw(tx + 8u * a, c)];
                    }
                    for (uint a = 0u; a < 4u; a = a + 1u) {
                        for (uint e = 0u; e < 4u; e = e + 1u) {
                            dp[a * 4u + e] = dp[a * 4u + e] + x[a] * y[e];
                        }
                    }
                }
            }
        }
        barrier();
        for (uint a = 0u; a < 4u; a = a + 1u) {
            for (uint e = 0u; e < 4u; e = e + 1u) {
                uint rr = ty + 8u * a;
                uint cc = tx + 8u * e;
                uint qi = kv ? s0 + cc : f0 + rr;
                uint kj = kv ? f0 + rr : s0 + cc;
                float pv = 0.0;
                float dsv = 0.0;
                if (kj <= qi && qi < T) {
                    pv = exp(s[a * 4u + e] * scale - lse[row_base + qi]);
                    dsv = pv * (dp[a * 4u + e] - dsum[row_base + qi]);
                }
                tiles_b4[bt_sw(rr, cc)] = dsv;
                tiles_b4[BT_SLOT + bt_sw(rr, cc)] = pv;
            }
        }
        if (last == 1u) {
            barrier();
            for (uint j = 0u; j < BT_TILE; j = j + 1u) {
                float g[4] = float[4](0.0, 0.0, 0.0, 0.0);
                float z[4] = float[4](0.0, 0.0, 0.0, 0.0);
                for (uint a = 0u; a < 4u; a = a + 1u) {
                    g[a] = tiles_b4[bt_sw(ty + 8u * a, j)];
                    z[a] = tiles_b4[2u * BT_SLOT + bt_sw(j, tx + 8u * a)];
                }
                for (uint a = 0u; a < 4u; a = a + 1u) {
                    for (uint e = 0u; e < 4u; e = e + 1u) {
                        acc1_1[a * 4u + e] = acc1_1[a * 4u + e] + g[a] * z[e];
                    }
                }
            }
            if (kv) {
                for (uint j = 0u; j < BT_TILE; j = j + 1u) {
                    float g[4] = float[4](0.0, 0.0, 0.0, 0.0);
                    float z[4] = float[4](0.0, 0.0, 0.0, 0.0);
                    for (uint a = 0u; a < 4u; a = a + 1u) {
                        g[a] = tiles_b4[BT_SLOT + bt_sw(ty + 8u * a, j)];
                        z[a] = tiles_b4[3u * BT_SLOT + bt_sw(j, tx + 8u * a)];
                    }
                    for (uint a = 0u; a < 4u; a = a + 1u) {
                        for (uint e = 0u; e < 4u; e = e + 1u) {
                            acc2_1[a * 4u + e] = acc2_1[a * 4u + e] + g[a] * z[e];
                        }
                    }
                }
            }
            barrier();
            for (uint u = 0u; u < 16u; u = u + 1u) {
                uint x = bt_sw(lr + 2u * u, lc);
                tiles_b4[2u * BT_SLOT + x] = b4_load(s1w, b, h, s0 + lr + 2u * u, lc);
                tiles_b4[3u * BT_SLOT + x] = b4_load(s2w, b, h, s0 + lr + 2u * u, lc);
            }
        }
        barrier();
        for (uint j = 0u; j < BT_TILE; j = j + 1u) {
            float g[4] = float[4](0.0, 0.0, 0.0, 0.0);
            float z[4] = float[4](0.0, 0.0, 0.0, 0.0);
            for (uint a = 0u; a < 4u; a = a + 1u) {
                g[a] = tiles_b4[bt_sw(ty + 8u * a, j)];
                z[a] = tiles_b4[2u * BT_SLOT + bt_sw(j, tx + 8u * a)];
            }
            for (uint a = 0u; a < 4u; a = a + 1u) {
                for (uint e = 0u; e < 4u; e = e + 1u) {
                    acc1_0[a * 4u + e] = acc1_0[a * 4u + e] + g[a] * z[e];
                }
            }
        }
        if (kv) {
            for (uint j = 0u; j < BT_TILE; j = j + 1u) {
                float g[4] = float[4](0.0, 0.0, 0.0, 0.0);
                float z[4] = float[4](0.0, 0.0, 0.0, 0.0);
                for (uint a = 0u; a < 4u; a = a + 1u) {
                    g[a] = tiles_b4[BT_SLOT + bt_sw(ty + 8u * a, j)];
                    z[a] = tiles_b4[3u * BT_SLOT + bt_sw(j, tx + 8u * a)];
                }
                for (uint a = 0u; a < 4u; a = a + 1u) {
                    for (uint e = 0u; e < 4u; e = e + 1u) {
                        acc2_0[a * 4u + e] = acc2_0[a * 4u + e] + g[a] * z[e];
                    }
                }
            }
        }
    }
    for (uint a = 0u; a < 4u; a = a + 1u) {
        for (uint e = 0u; e < 4u; e = e + 1u) {
            uint row = f0 + ty + 8u * a;
            uint col = tx + 8u * e;
            uint x = a * 4u + e;
            if (row < T) {
                uint o = (b * T + row) * 3u * d + h * hd + col;
                if (col < hd) {
                    if (kv) {
                        dqkv[o + d] = acc1_0[x] * scale;
                        dqkv[o + 2u * d] = acc2_0[x];
                    } else {
                        dqkv[o] = acc1_0[x] * scale;
                    }
                }
                if (col + BT_TILE < hd) {
                    if (kv) {
                        dqkv[o + BT_TILE + d] = acc1_1[x] * scale;
                        dqkv[o + BT_TILE + 2u * d] = acc2_1[x];
                    } else {
                        dqkv[o + BT_TILE] = acc1_1[x] * scale;
                    }
                }
            }
        }
    }
}
