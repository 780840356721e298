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

vec4 bm_load_a(uint lid, uint base, uint row0, uint k0) {
    uint M = bmdims.mnkf.x;
    uint K = bmdims.mnkf.z;
    uint ld = bmdims.ld.x;
    if ((bmdims.mnkf.w & TRANS_A) != 0u) {  // stored [K][M]: 4 rows m of one k
        uint k = k0 + lid / 16u;
        uint m = row0 + (lid % 16u) * 4u;
        if (k < K && m < M) { return bma[(base + k * ld + m) / 4u]; }
    } else {                                // stored [M][K]: 4 k of one row m
        uint m = row0 + lid / 4u;
        uint k = k0 + (lid % 4u) * 4u;
        if (m < M && k < K) { return bma[(base + m * ld + k) / 4u]; }
    }
    return vec4(0.0);
}

vec4 bm_load_b(uint lid, uint base, uint col0, uint k0) {
    uint N = bmdims.mnkf.y;
    uint K = bmdims.mnkf.z;
    uint ld = bmdims.ld.y;
    if ((bmdims.mnkf.w & TRANS_B) != 0u) {  // stored [N][K]: 4 k of one column n
        uint n = col0 + lid / 4u;
        uint k = k0 + (lid % 4u) * 4u;
        if (n < N && k < K) { return bmb[(base + n * ld + k) / 4u]; }
    } else {                                // stored [K][N]: 4 columns n of one k
        uint k = k0 + lid / 16u;
        uint n = col0 + (lid % 16u) * 4u;
        if (k < K && n < N) { return bmb[(base + k * ld + n) / 4u]; }
    }
    return vec4(0.0);
}

void bm_store_stage(uint lid, uint s, vec4 va, vec4 vb) {
    uint base = s * 256u;
    if ((bmdims.mnkf.w & TRANS_A) != 0u) {
        bsa[base + lid] = va;
    } else {
        uint m = lid / 4u;
        uint k = (lid % 4u) * 4u;
        bsa[base + k * 16u + m / 4u][m % 4u] = va.x;
        bsa[base + (k + 1u) * 16u + m / 4u][m % 4u] = va.y;
        bsa[base + (k + 2u) * 16u + m / 4u][m % 4u] = va.z;
        bsa[base + (k + 3u) * 16u + m / 4u][m % 4u] = va.w;
    }
    if ((bmdims.mnkf.w & TRANS_B) != 0u) {
        uint n = lid / 4u;
        uint k = (lid % 4u) * 4u;
        bsb[base + k * 16u + n / 4u][n % 4u] = vb.x;
        bsb[base + (k + 1u) * 16u + n / 4u][n % 4u] = vb.y;
        bsb[base + (k + 2u) * 16u + n / 4u][n % 4u] = vb.z;
        bsb[base + (k + 3u) * 16u + n / 4u][n % 4u] = vb.w;
    } else {
        bsb[base + lid] = vb;
    }
}

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
    vec4 va = bm_load_a(lid, base_a, row0, kbeg);
    vec4 vb = bm_load_b(lid, base_b, col0, kbeg);
    bm_store_stage(lid, 0u, va, vb);
    barrier();
    for (uint t = 0u; t < steps; t = t + 1u) {
        uint cur = t & 1u;
        bool more = t + 1u < steps;
        if (more) {  // the next stage's global loads are in flight during this stage's math
            va = bm_load_a(lid, base_a, row0, kbeg + (t + 1u) * BK);
            vb = bm_load_b(lid, base_b, col0, kbeg + (t + 1u) * BK);
        }
        uint sa0 = cur * 256u + ty;
        uint sb0 = cur * 256u + tx;
        [[unroll]] for (uint k = 0u; k < BK; k = k + 1u) {
            vec4 a = bsa[sa0 + k * 16u];
            vec4 b = bsb[sb0 + k * 16u];
            r0 = fma(vec4(a.x), b, r0);
            r1 = fma(vec4(a.y), b, r1);
            r2 = fma(vec4(a.z), b, r2);
            r3 = fma(vec4(a.w), b, r3);
        }
        // The other stage was last read in step t - 1, before the barrier that ended it.
        if (more) { bm_store_stage(lid, 1u - cur, va, vb); }
        barrier();
    }

    uint r = row0 + ty * 4u;
    uint c = col0 + tx * 4u;
    bm_store4(base_c, r, c, r0);
    bm_store4(base_c, r + 1u, c, r1);
    bm_store4(base_c, r + 2u, c, r2);
    bm_store4(base_c, r + 3u, c, r3);
}
