// Port of matmul_native_k16, matmul_native.wgsl: wgslvk's own kernel, not from the browser engine
// (issue 23). Line-by-line; same group/binding/access as the WGSL (matmul_native's bindings);
// native_store4 and flat_wg as in matmul_native.comp. The WGSL's hand-unrolled statements are the
// same statements here; `[[unroll]]` (GL_EXT_control_flow_attributes, a hint WGSL cannot spell)
// marks the constant-trip loops the WGSL leaves to the driver. The tile sweep that chose this
// blocking (wgsl_ports/matmul/sweep/, configuration t128x64_k16_s1) runs the same statements.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define WG 128
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer NA { vec4 na[]; };
layout(set = 0, binding = 1, std430) readonly buffer NB { vec4 nb[]; };
layout(set = 0, binding = 2, std430) buffer NC { float nc[]; };
layout(set = 0, binding = 3, std430) readonly buffer NBias { float nbias[]; };
layout(set = 0, binding = 4, std140) uniform NDims { uvec4 ndims; };  // (M, N, K, flags)

uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ADD_BIAS = 4u;
const uint ACCUMULATE = 8u;

const uint NT = 128u;   // output tile rows
const uint KT = 64u;    // output tile columns
const uint KK = 16u;    // K per stage
const uint KWG = 128u;  // invocations
// Zero-initialized in WGSL (R17); every element is written before it is read in each stage.
shared vec4 ka[512];  // [k][32 vec4 along the 128 rows]
shared vec4 kb[256];  // [k][16 vec4 along the 64 columns]

// vec4 i (0..511) of the 128 x 16 A tile at k0.
vec4 k16_load_a(uint i, uint row0, uint k0) {
    uint M = ndims.x;
    uint K = ndims.z;
    if ((ndims.w & TRANS_A) != 0u) {  // stored [K, M]: 4 rows m of one k
        uint k = k0 + i / 32u;
        uint m = row0 + (i % 32u) * 4u;
        if (k < K && m < M) { return na[(k * M + m) / 4u]; }
    } else {                          // stored [M, K]: 4 k of one row m
        uint m = row0 + i / 4u;
        uint k = k0 + (i % 4u) * 4u;
        if (m < M && k < K) { return na[(m * K + k) / 4u]; }
    }
    return vec4(0.0);
}

// vec4 i (0..255) of the 16 x 64 B tile at k0.
vec4 k16_load_b(uint i, uint col0, uint k0) {
    uint N = ndims.y;
    uint K = ndims.z;
    if ((ndims.w & TRANS_B) != 0u) {  // stored [N, K]: 4 k of one column n
        uint n = col0 + i / 4u;
        uint k = k0 + (i % 4u) * 4u;
        if (n < N && k < K) { return nb[(n * K + k) / 4u]; }
    } else {                          // stored [K, N]: 4 columns n of one k
        uint k = k0 + i / 16u;
        uint n = col0 + (i % 16u) * 4u;
        if (k < K && n < N) { return nb[(k * N + n) / 4u]; }
    }
    return vec4(0.0);
}

// Writes vec4 i of the A tile (as loaded) into ka as [k][row].
void k16_store_a(uint i, vec4 v) {
    if ((ndims.w & TRANS_A) != 0u) {
        ka[i] = v;
    } else {
        uint m = i / 4u;
        uint k = (i % 4u) * 4u;
        ka[k * 32u + m / 4u][m % 4u] = v.x;
        ka[(k + 1u) * 32u + m / 4u][m % 4u] = v.y;
        ka[(k + 2u) * 32u + m / 4u][m % 4u] = v.z;
        ka[(k + 3u) * 32u + m / 4u][m % 4u] = v.w;
    }
}

// Writes vec4 i of the B tile (as loaded) into kb as [k][column].
void k16_store_b(uint i, vec4 v) {
    if ((ndims.w & TRANS_B) != 0u) {
        uint n = i / 4u;
        uint k = (i % 4u) * 4u;
        kb[k * 16u + n / 4u][n % 4u] = v.x;
        kb[(k + 1u) * 16u + n / 4u][n % 4u] = v.y;
        kb[(k + 2u) * 16u + n / 4u][n % 4u] = v.z;
        kb[(k + 3u) * 16u + n / 4u][n % 4u] = v.w;
    } else {
        kb[i] = v;
    }
}

// The epilogue of one row: up to 4 consecutive columns from col, bias and old C as flagged.
void native_store4(uint row, uint col, vec4 v) {
    uint M = ndims.x;
    uint N = ndims.y;
    if (row >= M) { return; }
    [[unroll]] for (uint q = 0u; q < 4u; q = q + 1u) {
        if (col + q < N) {
            float o = v[q];
            if ((ndims.w & ADD_BIAS) != 0u) { o = o + nbias[col + q]; }
            uint idx = row * N + col + q;
            if ((ndims.w & ACCUMULATE) != 0u) { o = nc[idx] + o; }
            nc[idx] = o;
        }
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = ndims.x;
    uint N = ndims.y;
    uint K = ndims.z;
    uint lda = wgsl_select(K, M, (ndims.w & TRANS_A) != 0u);
    uint ldb = wgsl_select(N, K, (ndims.w & TRANS_B) != 0u);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    uint tiles_n = (N + KT - 1u) / KT;
    uint tiles_m = (M + NT - 1u) / NT;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * NT;
    uint col0 = (tile % tiles_n) * KT;
    uint ty = lid / 8u;
    uint tx = lid % 8u;

    // Row r = 0..7 (rows ty*4 + r, r >= 4: 64 further), column half a (tx*4..) or b (32+tx*4..).
    vec4 r0a = vec4(0.0);
    vec4 r1a = vec4(0.0);
    vec4 r2a = vec4(0.0);
    vec4 r3a = vec4(0.0);
    vec4 r4a = vec4(0.0);
    vec4 r5a = vec4(0.0);
    vec4 r6a = vec4(0.0);
    vec4 r7a = vec4(0.0);
    vec4 r0b = vec4(0.0);
    vec4 r1b = vec4(0.0);
    vec4 r2b = vec4(0.0);
    vec4 r3b = vec4(0.0);
    vec4 r4b = vec4(0.0);
    vec4 r5b = vec4(0.0);
    vec4 r6b = vec4(0.0);
    vec4 r7b = vec4(0.0);
    uint steps = (K + KK - 1u) / KK;
    vec4 va0 = k16_load_a(lid, row0, 0u);
    vec4 va1 = k16_load_a(lid + KWG, row0, 0u);
    vec4 va2 = k16_load_a(lid + 2u * KWG, row0, 0u);
    vec4 va3 = k16_load_a(lid + 3u * KWG, row0, 0u);
    vec4 vb0 = k16_load_b(lid, col0, 0u);
    vec4 vb1 = k16_load_b(lid + KWG, col0, 0u);
    k16_store_a(lid, va0);
    k16_store_a(lid + KWG, va1);
    k16_store_a(lid + 2u * KWG, va2);
    k16_store_a(lid + 3u * KWG, va3);
    k16_store_b(lid, vb0);
    k16_store_b(lid + KWG, vb1);
    barrier();
    for (uint t = 0u; t < steps; t = t + 1u) {
        bool more = t + 1u < steps;
        if (more) {  // the next stage's global loads are in flight during this stage's math
            uint k0 = (t + 1u) * KK;
            va0 = k16_load_a(lid, row0, k0);
            va1 = k16_load_a(lid + KWG, row0, k0);
            va2 = k16_load_a(lid + 2u * KWG, row0, k0);
            va3 = k16_load_a(lid + 3u * KWG, row0, k0);
            vb0 = k16_load_b(lid, col0, k0);
            vb1 = k16_load_b(lid + KWG, col0, k0);
        }
        [[unroll]] for (uint k = 0u; k < KK; k = k + 1u) {
            vec4 a0 = ka[k * 32u + ty];
            vec4 a1 = ka[k * 32u + ty + 16u];
            vec4 b0 = kb[k * 16u + tx];
            vec4 b1 = kb[k * 16u + tx + 8u];
            r0a = fma(vec4(a0.x), b0, r0a);
            r1a = fma(vec4(a0.y), b0, r1a);
            r2a = fma(vec4(a0.z), b0, r2a);
            r3a = fma(vec4(a0.w), b0, r3a);
            r4a = fma(vec4(a1.x), b0, r4a);
            r5a = fma(vec4(a1.y), b0, r5a);
            r6a = fma(vec4(a1.z), b0, r6a);
            r7a = fma(vec4(a1.w), b0, r7a);
            r0b = fma(vec4(a0.x), b1, r0b);
            r1b = fma(vec4(a0.y), b1, r1b);
            r2b = fma(vec4(a0.z), b1, r2b);
            r3b = fma(vec4(a0.w), b1, r3b);
            r4b = fma(vec4(a1.x), b1, r4b);
            r5b = fma(vec4(a1.y), b1, r5b);
            r6b = fma(vec4(a1.z), b1, r6b);
            r7b = fma(vec4(a1.w), b1, r7b);
        }
        barrier();  // every invocation is done reading this stage
        if (more) {
            k16_store_a(lid, va0);
            k16_store_a(lid + KWG, va1);
            k16_store_a(lid + 2u * KWG, va2);
            k16_store_a(lid + 3u * KWG, va3);
            k16_store_b(lid, vb0);
            k16_store_b(lid + KWG, vb1);
        }
        barrier();
    }

    uint rlo = row0 + ty * 4u;  // rows r0..r3; r4..r7 are 64 further
    uint ca = col0 + tx * 4u;   // columns of the a half; the b half is 32 further
    native_store4(rlo, ca, r0a);
    native_store4(rlo + 1u, ca, r1a);
    native_store4(rlo + 2u, ca, r2a);
    native_store4(rlo + 3u, ca, r3a);
    native_store4(rlo + 64u, ca, r4a);
    native_store4(rlo + 65u, ca, r5a);
    native_store4(rlo + 66u, ca, r6a);
    native_store4(rlo + 67u, ca, r7a);
    native_store4(rlo, ca + 32u, r0b);
    native_store4(rlo + 1u, ca + 32u, r1b);
    native_store4(rlo + 2u, ca + 32u, r2b);
    native_store4(rlo + 3u, ca + 32u, r3b);
    native_store4(rlo + 64u, ca + 32u, r4b);
    native_store4(rlo + 65u, ca + 32u, r5b);
    native_store4(rlo + 66u, ca + 32u, r6b);
    native_store4(rlo + 67u, ca + 32u, r7b);
}
