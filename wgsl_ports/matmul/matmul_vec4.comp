// Port of matmul_vec4 and, with WGSLVK_VEC4_READONLY defined, of matmul_vec4_readonly,
// 04_matmul.wgsl (TinyGPT's engineering log, "vec4 global loads — broke once, then
// root-caused"). Line-by-line; same group/binding/access as the WGSL: matmul_vec4 declares every
// storage binding writable (the seed's fix), matmul_vec4_readonly declares A and B readonly (the
// seed's first integration, which the runtime refuses under an all-"storage" layout: R9).
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

#ifdef WGSLVK_VEC4_READONLY
layout(set = 0, binding = 0, std430) readonly buffer A4Buf { vec4 a4[]; };  // WGSL a4_ro
layout(set = 0, binding = 1, std430) readonly buffer B4Buf { vec4 b4[]; };  // WGSL b4_ro
#else
layout(set = 0, binding = 0, std430) buffer A4Buf { vec4 a4[]; };
layout(set = 0, binding = 1, std430) buffer B4Buf { vec4 b4[]; };
#endif
layout(set = 0, binding = 2, std430) buffer CBuf { float c[]; };
layout(set = 0, binding = 3, std430) buffer BiasBuf { float bias[]; };
layout(set = 0, binding = 4, std140) uniform Dims { uvec4 dims; };  // (M, N, K, flags)

#include "matmul_common.glsl"

const uint B4 = 64u;
const uint B4K = 8u;
// Zero-initialized in WGSL (R17); every element is written before it is read in each K step.
shared float b4_a[512];  // [k][m], 8 x 64
shared float b4_b[512];  // [k][n], 8 x 64

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = dims.x;
    uint N = dims.y;
    uint K = dims.z;
    bool trans_a = (dims.w & TRANS_A) != 0u;
    bool trans_b = (dims.w & TRANS_B) != 0u;
    uint lda = wgsl_select(K, M, trans_a);
    uint ldb = wgsl_select(N, K, trans_b);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    uint tiles_n = (N + B4 - 1u) / B4;
    uint tiles_m = (M + B4 - 1u) / B4;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * B4;
    uint col0 = (tile % tiles_n) * B4;
    uint ty = lid / 16u;
    uint tx = lid % 16u;
    float acc[16];
    for (uint i = 0u; i < 16u; i = i + 1u) { acc[i] = 0.0; }  // WGSL `var` is zero-initialized
    float av[4];
    float bv[4];
    uint steps = (K + B4K - 1u) / B4K;
    for (uint t = 0u; t < steps; t = t + 1u) {
        uint k0 = t * B4K;
        if (lid < 128u) {
            if (trans_a) {
                uint k = lid / 16u;
                uint m = (lid % 16u) * 4u;
                vec4 v = vec4(0.0);
                if (k0 + k < K && row0 + m < M) { v = a4[((k0 + k) * M + row0 + m) / 4u]; }
                for (uint q = 0u; q < 4u; q = q + 1u) { b4_a[k * B4 + m + q] = v[q]; }
            } else {
                uint m = lid / 2u;
                uint k = (lid % 2u) * 4u;
                vec4 v = vec4(0.0);
                if (row0 + m < M && k0 + k < K) { v = a4[((row0 + m) * K + k0 + k) / 4u]; }
                for (uint q = 0u; q < 4u; q = q + 1u) { b4_a[(k + q) * B4 + m] = v[q]; }
            }
        } else {
            uint e = lid - 128u;
            if (trans_b) {
                uint n = e / 2u;
                uint k = (e % 2u) * 4u;
                vec4 v = vec4(0.0);
                if (col0 + n < N && k0 + k < K) { v = b4[((col0 + n) * K + k0 + k) / 4u]; }
                for (uint q = 0u; q < 4u; q = q + 1u) { b4_b[(k + q) * B4 + n] = v[q]; }
            } else {
                uint k = e / 16u;
                uint n = (e % 16u) * 4u;
                vec4 v = vec4(0.0);
                if (k0 + k < K && col0 + n < N) { v = b4[((k0 + k) * N + col0 + n) / 4u]; }
                for (uint q = 0u; q < 4u; q = q + 1u) { b4_b[k * B4 + n + q] = v[q]; }
            }
        }
        barrier();
        for (uint k = 0u; k < B4K; k = k + 1u) {
            for (uint i = 0u; i < 4u; i = i + 1u) {
                av[i] = b4_a[k * B4 + ty * 4u + i];
                bv[i] = b4_b[k * B4 + tx * 4u + i];
            }
            for (uint i = 0u; i < 4u; i = i + 1u) {
                for (uint j = 0u; j < 4u; j = j + 1u) {
                    acc[i * 4u + j] = acc[i * 4u + j] + av[i] * bv[j];
                }
            }
        }
        barrier();
    }
    for (uint i = 0u; i < 4u; i = i + 1u) {
        for (uint j = 0u; j < 4u; j = j + 1u) {
            uint row = row0 + ty * 4u + i;
            uint col = col0 + tx * 4u + j;
            if (row < M && col < N) { store_c(row, col, acc[i * 4u + j]); }
        }
    }
}
