// Port of matmul_native, matmul_native.wgsl: wgslvk's own kernel, not from the browser engine
// (a tuned fp32 GEMM for the family of TinyGPT's engineering log). Line-by-line;
// same group/binding/access as the WGSL. The WGSL's hand-unrolled per-row statements are the
// same statements here; `[[unroll]]` (GL_EXT_control_flow_attributes, a hint WGSL cannot spell)
// marks the constant-trip loops that the WGSL leaves to the driver.
//
// With NATIVE_BN=64 (a native-only measurement variant, `matmul_native_n64`, ABI of
// matmul_native, not in the WGSL) the tile is 128 x 64 and each invocation owns 8 x 4 outputs;
// its dispatch is ceil(M/128) * ceil(N/64) workgroups (bench.cpp computes it).
//
// With NATIVE_SPLITK=1 it is the port of matmul_native_splitk (in the WGSL; ABI of matmul_native):
// workgroup split * tiles + tile sums K slice `split` of tile `tile` and stores the raw partial in
// slice `split` of binding 2 (splitk_chunk, splitk_store4 below); matmul_splitk_reduce.comp adds
// the slices.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define WG 256
#include "wgsl.glsl"

#ifndef NATIVE_BN
#define NATIVE_BN 128
#endif
#ifndef NATIVE_SPLITK
#define NATIVE_SPLITK 0
#endif

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer NA { vec4 na[]; };
layout(set = 0, binding = 1, std430) readonly buffer NB { vec4 nb[]; };
layout(set = 0, binding = 2, std430) buffer NC { float nc[]; };
#if !NATIVE_SPLITK  // (matmul_native_splitk does not use the bias: the reduce adds it)
layout(set = 0, binding = 3, std430) readonly buffer NBias { float nbias[]; };
#endif
layout(set = 0, binding = 4, std140) uniform NDims { uvec4 ndims; };  // (M, N, K, flags)

uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ADD_BIAS = 4u;
const uint ACCUMULATE = 8u;

const uint NT = 128u;          // output tile rows (and columns)
const uint NTN = NATIVE_BN;    // output tile columns (128; 64 in the n64 variant)
const uint NK = 8u;            // K per stage
const uint NBR = NTN / 4u;     // vec4 per k row of the B tile
// Zero-initialized in WGSL (R17); every element of a stage is written before it is read.
shared vec4 sa[512];           // [stage][k][32 vec4 along the 128 rows]
shared vec4 sb[2u * NK * NBR]; // [stage][k][NBR vec4 along the columns]

vec4 native_load_a(uint lid, uint row0, uint k0) {
    uint M = ndims.x;
    uint K = ndims.z;
    if ((ndims.w & TRANS_A) != 0u) {  // stored [K, M]: 4 rows m of one k
        uint k = k0 + lid / 32u;
        uint m = row0 + (lid % 32u) * 4u;
        if (k < K && m < M) { return na[(k * M + m) / 4u]; }
    } else {                          // stored [M, K]: 4 k of one row m
        uint m = row0 + lid / 2u;
        uint k = k0 + (lid % 2u) * 4u;
        if (m < M && k < K) { return na[(m * K + k) / 4u]; }
    }
    return vec4(0.0);
}

// Invocations lid < 2 * NTN load the B tile (all 256 when NTN = 128; in the n64 variant the
// others compute an unused value, and native_store_stage drops it).
vec4 native_load_b(uint lid, uint col0, uint k0) {
    uint N = ndims.y;
    uint K = ndims.z;
    if ((ndims.w & TRANS_B) != 0u) {  // stored [N, K]: 4 k of one column n
        uint n = col0 + lid / 2u;
        uint k = k0 + (lid % 2u) * 4u;
        if (n < N && k < K) { return nb[(n * K + k) / 4u]; }
    } else {                          // stored [K, N]: 4 columns n of one k
        uint k = k0 + lid / NBR;
        uint n = col0 + (lid % NBR) * 4u;
        if (k < K && n < N) { return nb[(k * N + n) / 4u]; }
    }
    return vec4(0.0);
}

// Writes the vec4s loaded by native_load_a/_b into stage s, as [k][row or column].
void native_store_stage(uint lid, uint s, vec4 va, vec4 vb) {
    uint base_a = s * 256u;
    if ((ndims.w & TRANS_A) != 0u) {
        sa[base_a + lid] = va;
    } else {
        uint m = lid / 2u;
        uint k = (lid % 2u) * 4u;
        sa[base_a + k * 32u + m / 4u][m % 4u] = va.x;
        sa[base_a + (k + 1u) * 32u + m / 4u][m % 4u] = va.y;
        sa[base_a + (k + 2u) * 32u + m / 4u][m % 4u] = va.z;
        sa[base_a + (k + 3u) * 32u + m / 4u][m % 4u] = va.w;
    }
#if NATIVE_BN != 128
    if (lid >= NTN * 2u) { return; }  // the n64 variant: 128 invocations load the B tile
#endif
    uint base_b = s * NK * NBR;
    if ((ndims.w & TRANS_B) != 0u) {
        uint n = lid / 2u;
        uint k = (lid % 2u) * 4u;
        sb[base_b + k * NBR + n / 4u][n % 4u] = vb.x;
        sb[base_b + (k + 1u) * NBR + n / 4u][n % 4u] = vb.y;
        sb[base_b + (k + 2u) * NBR + n / 4u][n % 4u] = vb.z;
        sb[base_b + (k + 3u) * NBR + n / 4u][n % 4u] = vb.w;
    } else {
        sb[base_b + lid] = vb;
    }
}

#if !NATIVE_SPLITK
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
#endif

#if NATIVE_SPLITK
const uint SPLITK_SHIFT = 16u;

uint splitk_chunk(uint K, uint S) {
    uint stages = (K + NK - 1u) / NK;
    return ((stages + S - 1u) / S) * NK;
}

// The raw partial of one row: up to 4 consecutive columns from col, into slice `split`.
void splitk_store4(uint split, uint row, uint col, vec4 v) {
    uint M = ndims.x;
    uint N = ndims.y;
    if (row >= M) { return; }
    [[unroll]] for (uint q = 0u; q < 4u; q = q + 1u) {
        if (col + q < N) {
            nc[split * M * N + row * N + col + q] = v[q];
        }
    }
}
#define NATIVE_STORE4(row, col, v) splitk_store4(split, row, col, v)
#else
#define NATIVE_STORE4(row, col, v) native_store4(row, col, v)
#endif

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = ndims.x;
    uint N = ndims.y;
    uint K = ndims.z;
    uint lda = wgsl_select(K, M, (ndims.w & TRANS_A) != 0u);
    uint ldb = wgsl_select(N, K, (ndims.w & TRANS_B) != 0u);
#if NATIVE_SPLITK
    uint S = (ndims.w >> SPLITK_SHIFT) & 255u;
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u || S == 0u) { return; }
    uint tiles_n = (N + NTN - 1u) / NTN;
    uint tiles_m = (M + NT - 1u) / NT;
    uint tiles = tiles_m * tiles_n;
    uint wg_index = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (wg_index >= tiles * S) { return; }
    uint split = wg_index / tiles;
    uint tile = wg_index % tiles;
    uint row0 = (tile / tiles_n) * NT;
    uint col0 = (tile % tiles_n) * NTN;
    uint chunk = splitk_chunk(K, S);
    uint kbeg = min(K, split * chunk);
    uint kend = min(K, kbeg + chunk);
#else
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    uint tiles_n = (N + NTN - 1u) / NTN;
    uint tiles_m = (M + NT - 1u) / NT;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * NT;
    uint col0 = (tile % tiles_n) * NTN;
    uint kbeg = 0u;  // (the WGSL's matmul_native loads from 0u and NK steps; the same values)
    uint kend = K;
#endif
    uint ty = lid / 16u;
    uint tx = lid % 16u;

    // Accumulators as 16 separate vec4 (row r = 0..7, column half a = tx*4.., b = 64+tx*4..):
    // never an indexed array, so nothing can be demoted to local memory.
    vec4 r0a = vec4(0.0);
    vec4 r1a = vec4(0.0);
    vec4 r2a = vec4(0.0);
    vec4 r3a = vec4(0.0);
    vec4 r4a = vec4(0.0);
    vec4 r5a = vec4(0.0);
    vec4 r6a = vec4(0.0);
    vec4 r7a = vec4(0.0);
#if NATIVE_BN == 128
    vec4 r0b = vec4(0.0);
    vec4 r1b = vec4(0.0);
    vec4 r2b = vec4(0.0);
    vec4 r3b = vec4(0.0);
    vec4 r4b = vec4(0.0);
    vec4 r5b = vec4(0.0);
    vec4 r6b = vec4(0.0);
    vec4 r7b = vec4(0.0);
#endif
    uint steps = (kend - kbeg + NK - 1u) / NK;
    vec4 va = native_load_a(lid, row0, kbeg);
    vec4 vb = native_load_b(lid, col0, kbeg);
    native_store_stage(lid, 0u, va, vb);
    barrier();
    for (uint t = 0u; t < steps; t = t + 1u) {
        uint cur = t & 1u;
        bool more = t + 1u < steps;
        if (more) {  // the next stage's global loads are in flight during this stage's math
            va = native_load_a(lid, row0, kbeg + (t + 1u) * NK);
            vb = native_load_b(lid, col0, kbeg + (t + 1u) * NK);
        }
        uint base_a = cur * 256u + ty;
        uint base_b = cur * NK * NBR + tx;
        [[unroll]] for (uint k = 0u; k < NK; k = k + 1u) {
            vec4 a0 = sa[base_a + k * 32u];
            vec4 a1 = sa[base_a + k * 32u + 16u];
            vec4 b0 = sb[base_b + k * NBR];
            r0a = fma(vec4(a0.x), b0, r0a);
            r1a = fma(vec4(a0.y), b0, r1a);
            r2a = fma(vec4(a0.z), b0, r2a);
            r3a = fma(vec4(a0.w), b0, r3a);
            r4a = fma(vec4(a1.x), b0, r4a);
            r5a = fma(vec4(a1.y), b0, r5a);
            r6a = fma(vec4(a1.z), b0, r6a);
            r7a = fma(vec4(a1.w), b0, r7a);
#if NATIVE_BN == 128
            vec4 b1 = sb[base_b + k * NBR + 16u];
            r0b = fma(vec4(a0.x), b1, r0b);
            r1b = fma(vec4(a0.y), b1, r1b);
            r2b = fma(vec4(a0.z), b1, r2b);
            r3b = fma(vec4(a0.w), b1, r3b);
            r4b = fma(vec4(a1.x), b1, r4b);
            r5b = fma(vec4(a1.y), b1, r5b);
            r6b = fma(vec4(a1.z), b1, r6b);
            r7b = fma(vec4(a1.w), b1, r7b);
#endif
        }
        // The other stage was last read in step t - 1, before the barrier that ended it.
        if (more) { native_store_stage(lid, 1u - cur, va, vb); }
        barrier();
    }

    uint rlo = row0 + ty * 4u;       // rows r0..r3; r4..r7 are 64 further
    uint ca = col0 + tx * 4u;        // columns of the a half; the b half is 64 further
    NATIVE_STORE4(rlo, ca, r0a);
    NATIVE_STORE4(rlo + 1u, ca, r1a);
    NATIVE_STORE4(rlo + 2u, ca, r2a);
    NATIVE_STORE4(rlo + 3u, ca, r3a);
    NATIVE_STORE4(rlo + 64u, ca, r4a);
    NATIVE_STORE4(rlo + 65u, ca, r5a);
    NATIVE_STORE4(rlo + 66u, ca, r6a);
    NATIVE_STORE4(rlo + 67u, ca, r7a);
#if NATIVE_BN == 128
    NATIVE_STORE4(rlo, ca + 64u, r0b);
    NATIVE_STORE4(rlo + 1u, ca + 64u, r1b);
    NATIVE_STORE4(rlo + 2u, ca + 64u, r2b);
    NATIVE_STORE4(rlo + 3u, ca + 64u, r3b);
    NATIVE_STORE4(rlo + 64u, ca + 64u, r4b);
    NATIVE_STORE4(rlo + 65u, ca + 64u, r5b);
    NATIVE_STORE4(rlo + 66u, ca + 64u, r6b);
    NATIVE_STORE4(rlo + 67u, ca + 64u, r7b);
#endif
}
