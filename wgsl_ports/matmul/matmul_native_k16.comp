// Port of matmul_native_k16, matmul_native.wgsl: wgslvk's own kernel, not from the browser engine
// (issue 23). Line-by-line; same group/binding/access as the WGSL (matmul_native's bindings);
// native_store4 and flat_wg as in matmul_native.comp. The WGSL's hand-unrolled statements are the
// same statements here; `[[unroll]]` (GL_EXT_control_flow_attributes, a hint WGSL cannot spell)
// marks the constant-trip loops the WGSL leaves to the driver. The tile sweep that chose this
// blocking (wgsl_ports/matmul/sweep/, configuration t128x64_k16_s1) runs the same tile and math
// with the loads' index and bounds work inside the K loop (this kernel before session 14).
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
// Workgroup tiles as [k][row] (ka, 32 vec4 along the 128 rows) and [k][column] (kb, 16 vec4),
// each group of 4 k rows followed by 2 vec4 of padding: k row k starts at (k / 4) * KA_G +
// (k % 4) * 32 (kb: KB_G, 16). The transposing scalar stores' 32 lanes write 4 k rows 4 apart:
// unpadded (rows 512 floats apart) they hit 8 banks, 4-way conflicted; with 8 floats more per
// group, 32 banks. The math's vec4 reads (one k row for all lanes) stay aligned.
const uint KA_G = 130u;  // vec4 per 4 k rows of ka: 4 * 32 + 2
const uint KB_G = 66u;   // vec4 per 4 k rows of kb: 4 * 16 + 2
shared vec4 ka[520];  // 4 * KA_G
shared vec4 kb[264];  // 4 * KB_G

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
    bool ta = (ndims.w & TRANS_A) != 0u;
    bool tb = (ndims.w & TRANS_B) != 0u;
    // Load c of A is vec4 i = lid + c * KWG of the 128 x 16 tile: [K, M] stored: k = i / 32,
    // m = row0 + (i % 32) * 4 (4 rows of one k); [M, K]: m = row0 + i / 4, k = (i % 4) * 4 (4 k
    // of one row). Its index at stage t is ia + t * sa (exact: M, K, m and k are multiples of 4
    // where a load happens); a load past M or K reads 0.
    uint ia[4];
    uint kao[4];
    bool oka[4];
    [[unroll]] for (uint c = 0u; c < 4u; c = c + 1u) {
        uint i = lid + c * KWG;
        uint m = wgsl_select(row0 + i / 4u, row0 + (i % 32u) * 4u, ta);
        kao[c] = wgsl_select((i % 4u) * 4u, i / 32u, ta);
        oka[c] = m < M;
        ia[c] = wgsl_select((m * K + kao[c]) / 4u, (kao[c] * M + m) / 4u, ta);
    }
    uint sa = wgsl_select(KK / 4u, KK * M / 4u, ta);
    // Load c of B, vec4 i = lid + c * KWG of the 16 x 64 tile: [N, K] stored: n = col0 + i / 4,
    // k = (i % 4) * 4; [K, N]: k = i / 16, n = col0 + (i % 16) * 4.
    uint ib[2];
    uint kbo[2];
    bool okb[2];
    [[unroll]] for (uint c = 0u; c < 2u; c = c + 1u) {
        uint i = lid + c * KWG;
        uint n = wgsl_select(col0 + (i % 16u) * 4u, col0 + i / 4u, tb);
        kbo[c] = wgsl_select(i / 16u, (i % 4u) * 4u, tb);
        okb[c] = n < N;
        ib[c] = wgsl_select((kbo[c] * N + n) / 4u, (n * K + kbo[c]) / 4u, tb);
    }
    uint sb = wgsl_select(KK * N / 4u, KK / 4u, tb);
    // Workgroup stores: a vec4 along the tile's rows (A [K, M], B [K, N]) is stored whole, vec4 i
    // at k row i / 32 (kb: 16), place i % 32; one along k (A [M, K], B [N, K]) goes to 4 scalars
    // ka[(k / 4) * KA_G + j * 32 + m / 4][m % 4], m = i / 4, k = (i % 4) * 4 (kb: KB_G, 16, n).
    uint qa = (lid % 4u) * KA_G + (lid / 4u) / 4u;  // c adds 32 rows: 8 vec4 of a k row
    uint ra = (lid / 4u) % 4u;
    uint qb = (lid % 4u) * KB_G + (lid / 4u) / 4u;  // c adds 32 columns: 8 vec4
    uint rb = (lid / 4u) % 4u;
    uint pb = (lid / 64u) * KB_G + lid % 64u;  // c adds 8 k rows: 2 groups

    vec4 va[4];
    vec4 vb[2];
    for (uint t = 0u; t <= steps; t = t + 1u) {
        // Iteration t loads stage t (t < steps; in flight during the math), computes stage t - 1
        // (t > 0) from workgroup memory, then stores stage t there.
        uint k0 = t * KK;
        bool more = t < steps;
        if (more) {
            [[unroll]] for (uint c = 0u; c < 4u; c = c + 1u) {
                va[c] = vec4(0.0);
                if (oka[c] && k0 + kao[c] < K) { va[c] = na[ia[c]]; }
                ia[c] = ia[c] + sa;
            }
            [[unroll]] for (uint c = 0u; c < 2u; c = c + 1u) {
                vb[c] = vec4(0.0);
                if (okb[c] && k0 + kbo[c] < K) { vb[c] = nb[ib[c]]; }
                ib[c] = ib[c] + sb;
            }
        }
        if (t > 0u) {
            [[unroll]] for (uint k = 0u; k < KK; k = k + 1u) {
                vec4 a0 = ka[(k / 4u) * KA_G + (k % 4u) * 32u + ty];
                vec4 a1 = ka[(k / 4u) * KA_G + (k % 4u) * 32u + ty + 16u];
                vec4 b0 = kb[(k / 4u) * KB_G + (k % 4u) * 16u + tx];
                vec4 b1 = kb[(k / 4u) * KB_G + (k % 4u) * 16u + tx + 8u];
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
            barrier();  // every invocation is done reading the previous stage
        }
        if (more) {
            if (ta) {
                [[unroll]] for (uint c = 0u; c < 4u; c = c + 1u) { ka[c * KA_G + lid] = va[c]; }
            } else {
                [[unroll]] for (uint c = 0u; c < 4u; c = c + 1u) {
                    ka[qa + c * 8u][ra] = va[c].x;
                    ka[qa + c * 8u + 32u][ra] = va[c].y;
                    ka[qa + c * 8u + 64u][ra] = va[c].z;
                    ka[qa + c * 8u + 96u][ra] = va[c].w;
                }
            }
            if (tb) {
                [[unroll]] for (uint c = 0u; c < 2u; c = c + 1u) {
                    kb[qb + c * 8u][rb] = vb[c].x;
                    kb[qb + c * 8u + 16u][rb] = vb[c].y;
                    kb[qb + c * 8u + 32u][rb] = vb[c].z;
                    kb[qb + c * 8u + 48u][rb] = vb[c].w;
                }
            } else {
                [[unroll]] for (uint c = 0u; c < 2u; c = c + 1u) { kb[pb + c * 2u * KB_G] = vb[c]; }
            }
            barrier();
        }
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
