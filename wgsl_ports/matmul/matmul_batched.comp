// Port of matmul_batched, matmul_batched.wgsl: wgslvk's own kernel, not from the browser engine
// (batched fp32 products inside wider matrices, issue 23). Line by line; same group/binding/access
// as the WGSL. `[[unroll]]` (GL_EXT_control_flow_attributes, a hint WGSL cannot spell) marks the
// constant-trip loop that the WGSL leaves to the driver, as matmul_native.comp does.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer BMA { vec4 bma[]; };
layout(set = 0, binding = 1, std430) readonly buffer BMB { vec4 bmb[]; };
layout(set = 0, binding = 2, std430) buffer BMC { float bmc[]; };
// WGSL: struct BmmDims { mnkf, ld, ab, cb, off: vec4<u32> } (the batch's layout: the WGSL's comment)
layout(set = 0, binding = 3, std140) uniform BmmDims {
    uvec4 mnkf;
    uvec4 ld;
    uvec4 ab;
    uvec4 cb;
    uvec4 off;
} bmdims;

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ACCUMULATE = 8u;
const uint CAUSAL_TILES = 16u;
const uint K_FROM_ROW = 32u;
const uint K_TO_ROW = 64u;

const uint BT = 64u;  // output tile rows and columns
const uint BK = 16u;  // K per stage
// Zero-initialized in WGSL (R17); every element of a stage is written before it is read.
shared vec4 bsa[512];  // [stage][k][16 vec4 along the 64 rows]
shared vec4 bsb[512];  // [stage][k][16 vec4 along the 64 columns]

uint bm_flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

void bm_store4(uint base, uint row, uint col, vec4 v) {
    if (row >= bmdims.mnkf.x || col >= bmdims.mnkf.y) { return; }
    uint idx = base + row * bmdims.ld.z + col;
    vec4 o = v;
    if ((bmdims.mnkf.w & ACCUMULATE) != 0u) {
        o = vec4(bmc[idx], bmc[idx + 1u], bmc[idx + 2u], bmc[idx + 3u]) + v;
    }
    bmc[idx] = o.x;
    bmc[idx + 1u] = o.y;
    bmc[idx + 2u] = o.z;
    bmc[idx + 3u] = o.w;
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = bmdims.mnkf.x;
    uint N = bmdims.mnkf.y;
    uint K = bmdims.mnkf.z;
    uint flags = bmdims.mnkf.w;
    uint H = max(bmdims.ld.w, 1u);
    uint fours = M | N | K | bmdims.ld.x | bmdims.ld.y | bmdims.ld.z | bmdims.ab.x | bmdims.ab.y |
                 bmdims.ab.z | bmdims.ab.w | bmdims.off.x | bmdims.off.y;
    if ((fours % 4u) != 0u) { return; }
    uint tiles_n = (N + BT - 1u) / BT;
    uint tiles_m = (M + BT - 1u) / BT;
    uint tile = bm_flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * BT;
    uint col0 = (tile % tiles_n) * BT;
    if ((flags & CAUSAL_TILES) != 0u && col0 > row0 + BT - 1u) { return; }
    uint o = gl_WorkGroupID.z / H;
    uint i = gl_WorkGroupID.z % H;
    uint base_a = bmdims.off.x + o * bmdims.ab.x + i * bmdims.ab.y;
    uint base_b = bmdims.off.y + o * bmdims.ab.z + i * bmdims.ab.w;
    uint base_c = bmdims.off.z + o * bmdims.cb.x + i * bmdims.cb.y;
    uint kbeg = 0u;
    uint kend = K;
    if ((flags & K_FROM_ROW) != 0u) { kbeg = min(K, row0); }
    if ((flags & K_TO_ROW) != 0u) { kend = min(K, row0 + BT); }
    uint ty = lid / 16u;
    uint tx = lid % 16u;

    vec4 r0 = vec4(0.0);
    vec4 r1 = vec4(0.0);
    vec4 r2 = vec4(0.0);
    vec4 r3 = vec4(0.0);
    uint steps = (kend - kbeg + BK - 1u) / BK;
    bool ta = (flags & TRANS_A) != 0u;
    bool tb = (flags & TRANS_B) != 0u;
    // The loads' work is done once here, not per stage (issue 23, as matmul_native_k16). A's vec4
    // for lid: [K][M] stored: k = lid / 16, m = row0 + (lid % 16) * 4 (4 rows of one k); [M][K]:
    // m = row0 + lid / 4, k = (lid % 4) * 4 (4 k of one row). Its index at stage t is ia + t * sa
    // (exact: the offsets, strides and k are multiples of 4); a load past M or K reads 0.
    uint am = wgsl_select(row0 + lid / 4u, row0 + (lid % 16u) * 4u, ta);
    uint ako = wgsl_select((lid % 4u) * 4u, lid / 16u, ta);
    bool aok = am < M;
    uint ia = wgsl_select((base_a + am * bmdims.ld.x + kbeg + ako) / 4u,
                          (base_a + (kbeg + ako) * bmdims.ld.x + am) / 4u, ta);
    uint sa = wgsl_select(BK / 4u, BK * bmdims.ld.x / 4u, ta);
    // B's: [N][K] stored: n = col0 + lid / 4, k = (lid % 4) * 4; [K][N]: k = lid / 16,
    // n = col0 + (lid % 16) * 4.
    uint bn = wgsl_select(col0 + (lid % 16u) * 4u, col0 + lid / 4u, tb);
    uint bko = wgsl_select(lid / 16u, (lid % 4u) * 4u, tb);
    bool bok = bn < N;
    uint ib = wgsl_select((base_b + (kbeg + bko) * bmdims.ld.y + bn) / 4u,
                          (base_b + bn * bmdims.ld.y + kbeg + bko) / 4u, tb);
    uint sb = wgsl_select(BK * bmdims.ld.y / 4u, BK / 4u, tb);
    // Workgroup stores as [k][row or column]: a vec4 along the tile's rows (A [K][M], B [K][N]) is
    // stored whole at lid; one along k (A [M][K], B [N][K]) goes to 4 scalars
    // [(k + j) * 16 + m / 4][m % 4], m = lid / 4, k = (lid % 4) * 4.
    uint q = (lid % 4u) * 4u * 16u + lid / 16u;
    uint qr = (lid / 4u) % 4u;

    vec4 va = vec4(0.0);
    vec4 vb = vec4(0.0);
    for (uint t = 0u; t <= steps; t = t + 1u) {
        // Iteration t loads stage t (t < steps; in flight during the math), computes stage t - 1
        // (t > 0) from its half of workgroup memory, then stores stage t in the other half, which
        // was last read in iteration t - 1, before the barrier that ended it.
        uint k0 = kbeg + t * BK;
        bool more = t < steps;
        if (more) {
            va = vec4(0.0);
            if (aok && k0 + ako < K) { va = bma[ia]; }
            ia = ia + sa;
            vb = vec4(0.0);
            if (bok && k0 + bko < K) { vb = bmb[ib]; }
            ib = ib + sb;
        }
        if (t > 0u) {
            uint sa0 = ((t - 1u) & 1u) * 256u + ty;
            uint sb0 = ((t - 1u) & 1u) * 256u + tx;
            [[unroll]] for (uint k = 0u; k < BK; k = k + 1u) {
                vec4 a = bsa[sa0 + k * 16u];
                vec4 b = bsb[sb0 + k * 16u];
                r0 = fma(vec4(a.x), b, r0);
                r1 = fma(vec4(a.y), b, r1);
                r2 = fma(vec4(a.z), b, r2);
                r3 = fma(vec4(a.w), b, r3);
            }
        }
        if (more) {
            uint s = (t & 1u) * 256u;
            if (ta) {
                bsa[s + lid] = va;
            } else {
                bsa[s + q][qr] = va.x;
                bsa[s + q + 16u][qr] = va.y;
                bsa[s + q + 32u][qr] = va.z;
                bsa[s + q + 48u][qr] = va.w;
            }
            if (tb) {
                bsb[s + q][qr] = vb.x;
                bsb[s + q + 16u][qr] = vb.y;
                bsb[s + q + 32u][qr] = vb.z;
                bsb[s + q + 48u][qr] = vb.w;
            } else {
                bsb[s + lid] = vb;
            }
        }
        barrier();
    }

    uint r = row0 + ty * 4u;
    uint c = col0 + tx * 4u;
    bm_store4(base_c, r, c, r0);
    bm_store4(base_c, r + 1u, c, r1);
    bm_store4(base_c, r + 2u, c, r2);
    bm_store4(base_c, r + 3u, c, r3);
}
