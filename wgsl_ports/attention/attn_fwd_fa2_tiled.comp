// Port of attn_fwd_fa2_tiled, attention_native.wgsl: wgslvk's own FA2 forward (not from the log;
// TinyGPT's engineering log, the FlashAttention-2 forward): a Q tile of 32 rows per workgroup
// walking K/V blocks of 32 keys, each score and output accumulated by one invocation from 32 x 32
// workgroup tiles. Line by line; same group/binding/access as the WGSL (and as attn_fwd_fa2).
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
layout(set = 0, binding = 2, std430) buffer Out { float out_[]; };
layout(set = 0, binding = 3, std430) buffer Lse { float lse[]; };

// Every element read in a block is written by that block first: no zeroing (R17).
shared float tiles_ft[4096];

uint bt_sw(uint r, uint c) {
    return r * BT_TILE + (c ^ r);
}

float ft_load(uint which, uint b, uint h, uint row, uint col) {
    uint T = p.seq;
    uint hd = p.head_dim;
    uint d = p.heads * hd;
    if (row >= T || col >= hd) { return 0.0; }
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
    uint qt = nt - 1u - gl_WorkGroupID.y;
    uint f0 = qt * BT_TILE;
    uint t = gl_LocalInvocationID.x;
    uint ty = t / 16u;
    uint tx = t % 16u;
    uint lr = t / BT_TILE;
    uint lc = t % BT_TILE;
    float scale = p.scale;

    float fq[16];
    float acc[16];
    // WGSL zero-initializes
    for (uint x = 0u; x < 16u; x = x + 1u) { fq[x] = 0.0; acc[x] = 0.0; }
    float m[2] = float[2](0.0, 0.0);
    float l[2] = float[2](0.0, 0.0);
    for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
        for (uint u = 0u; u < 4u; u = u + 1u) {
            fq[ch * 4u + u] = ft_load(0u, b, h, f0 + lr + 8u * u, ch * BT_TILE + lc);
        }
    }
    for (uint kb = 0u; kb <= qt; kb = kb + 1u) {
        uint j0 = kb * BT_TILE;
        float s[4] = float[4](0.0, 0.0, 0.0, 0.0);
        // A. scores over the chunks of hd.
        for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                barrier();
                for (uint u = 0u; u < 4u; u = u + 1u) {
                    uint x = bt_sw(lr + 8u * u, lc);
                    tiles_ft[x] = fq[ch * 4u + u];
                    tiles_ft[BT_SLOT + x] = ft_load(1u, b, h, j0 + lr + 8u * u, ch * BT_TILE + lc);
                }
                barrier();
                for (uint c = 0u; c < BT_TILE; c = c + 1u) {
                    float x0 = tiles_ft[bt_sw(ty, c)];
                    float x1 = tiles_ft[bt_sw(ty + 16u, c)];
                    float y0 = tiles_ft[BT_SLOT + bt_sw(tx, c)];
                    float y1 = tiles_ft[BT_SLOT + bt_sw(tx + 16u, c)];
                    s[0] = s[0] + x0 * y0;
                    s[1] = s[1] + x0 * y1;
                    s[2] = s[2] + x1 * y0;
                    s[3] = s[3] + x1 * y1;
                }
            }
        }
        // B. the scaled scores into tile 3.
        for (uint a = 0u; a < 2u; a = a + 1u) {
            for (uint e = 0u; e < 2u; e = e + 1u) {
                s[a * 2u + e] = s[a * 2u + e] * scale;
                tiles_ft[3u * BT_SLOT + bt_sw(ty + 16u * a, tx + 16u * e)] = s[a * 2u + e];
            }
        }
        barrier();
        bool first = kb == 0u;
        float alpha[2] = float[2](1.0, 1.0);
        for (uint a = 0u; a < 2u; a = a + 1u) {
            uint rr = ty + 16u * a;
            uint i = f0 + rr;
            float bmax = tiles_ft[3u * BT_SLOT + bt_sw(rr, 0u)];
            for (uint jj = 1u; jj < BT_TILE; jj = jj + 1u) {
                if (j0 + jj <= i) { bmax = max(bmax, tiles_ft[3u * BT_SLOT + bt_sw(rr, jj)]); }
            }
            float m_new = wgsl_select(max(m[a], bmax), bmax, first);
            alpha[a] = exp(wgsl_select(m[a] - m_new, 0.0, first));
            m[a] = m_new;
            for (uint e = 0u; e < 2u; e = e + 1u) {
                uint cc = tx + 16u * e;
                float pj = 0.0;
                if (j0 + cc <= i) { pj = exp(s[a * 2u + e] - m_new); }
                tiles_ft[BT_SLOT + bt_sw(rr, cc)] = pj;
            }
        }
        for (uint u = 0u; u < 4u; u = u + 1u) {
            tiles_ft[2u * BT_SLOT + bt_sw(lr + 8u * u, lc)] = ft_load(2u, b, h, j0 + lr + 8u * u, lc);
        }
        barrier();
        for (uint a = 0u; a < 2u; a = a + 1u) {
            uint rr = ty + 16u * a;
            float psum = 0.0;
            for (uint jj = 0u; jj < BT_TILE; jj = jj + 1u) {
                psum = psum + tiles_ft[BT_SLOT + bt_sw(rr, jj)];
            }
            l[a] = l[a] * alpha[a] + psum;
        }
        for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
            if (ch * BT_TILE < hd) {
                if (ch != 0u) {
                    barrier();
                    for (uint u = 0u; u < 4u; u = u + 1u) {
                        tiles_ft[2u * BT_SLOT + bt_sw(lr + 8u * u, lc)] =
                            ft_load(2u, b, h, j0 + lr + 8u * u, ch * BT_TILE + lc);
                    }
                    barrier();
                }
                float o0 = acc[ch * 4u] * alpha[0];
                float o1 = acc[ch * 4u + 1u] * alpha[0];
                float o2 = acc[ch * 4u + 2u] * alpha[1];
                float o3 = acc[ch * 4u + 3u] * alpha[1];
                for (uint jj = 0u; jj < BT_TILE; jj = jj + 1u) {
                    float p0 = tiles_ft[BT_SLOT + bt_sw(ty, jj)];
                    float p1 = tiles_ft[BT_SLOT + bt_sw(ty + 16u, jj)];
                    float v0 = tiles_ft[2u * BT_SLOT + bt_sw(jj, tx)];
                    float v1 = tiles_ft[2u * BT_SLOT + bt_sw(jj, tx + 16u)];
                    o0 = o0 + p0 * v0;
                    o1 = o1 + p0 * v1;
                    o2 = o2 + p1 * v0;
                    o3 = o3 + p1 * v1;
                }
                acc[ch * 4u] = o0;
                acc[ch * 4u + 1u] = o1;
                acc[ch * 4u + 2u] = o2;
                acc[ch * 4u + 3u] = o3;
            }
        }
    }
    for (uint a = 0u; a < 2u; a = a + 1u) {
        uint i = f0 + ty + 16u * a;
        if (i < T) {
            for (uint ch = 0u; ch < BT_CHUNKS; ch = ch + 1u) {
                for (uint e = 0u; e < 2u; e = e + 1u) {
                    uint col = ch * BT_TILE + tx + 16u * e;
                    if (col < hd) { out_[(b * T + i) * d + h * hd + col] = acc[ch * 4u + a * 2u + e] / l[a]; }
                }
            }
            if (tx == 0u) { lse[(b * H + h) * T + i] = m[a] + log(l[a]); }
        }
    }
}
