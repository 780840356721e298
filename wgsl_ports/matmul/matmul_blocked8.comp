// Port of matmul_blocked8, 04_matmul.wgsl (TinyGPT's engineering log, "8x8 register
// block": its documented negative result). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#define MATMUL_LOAD_A
#define MATMUL_LOAD_B

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer ABuf { float a[]; };
layout(set = 0, binding = 1, std430) buffer BBuf { float b[]; };
layout(set = 0, binding = 2, std430) buffer CBuf { float c[]; };
layout(set = 0, binding = 3, std430) buffer BiasBuf { float bias[]; };
layout(set = 0, binding = 4, std140) uniform Dims { uvec4 dims; };  // (M, N, K, flags)

#include "matmul_common.glsl"

const uint B8 = 128u;
const uint B8K = 16u;
// Zero-initialized in WGSL (R17); every element is written before it is read in each K step.
shared float b8_a[2048];  // [k][m], 16 x 128
shared float b8_b[2048];  // [k][n], 16 x 128

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = dims.x;
    uint N = dims.y;
    uint K = dims.z;
    uint tiles_n = (N + B8 - 1u) / B8;
    uint tiles_m = (M + B8 - 1u) / B8;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * B8;
    uint col0 = (tile % tiles_n) * B8;
    uint ty = lid / 16u;
    uint tx = lid % 16u;
    float acc[64];
    for (uint i = 0u; i < 64u; i = i + 1u) { acc[i] = 0.0; }  // WGSL `var` is zero-initialized
    float av[8];
    float bv[8];
    uint steps = (K + B8K - 1u) / B8K;
    for (uint t = 0u; t < steps; t = t + 1u) {
        uint k0 = t * B8K;
        for (uint i = 0u; i < 8u; i = i + 1u) {
            uint e = lid + i * WG;
            uint am = e / B8K;
            uint ak = e % B8K;
            b8_a[ak * B8 + am] = load_a(row0 + am, k0 + ak);
            uint bk = e / B8;
            uint bn = e % B8;
            b8_b[bk * B8 + bn] = load_b(k0 + bk, col0 + bn);
        }
        barrier();
        for (uint k = 0u; k < B8K; k = k + 1u) {
            for (uint i = 0u; i < 8u; i = i + 1u) {
                av[i] = b8_a[k * B8 + ty * 8u + i];
                bv[i] = b8_b[k * B8 + tx * 8u + i];
            }
            for (uint i = 0u; i < 8u; i = i + 1u) {
                for (uint j = 0u; j < 8u; j = j + 1u) {
                    acc[i * 8u + j] = acc[i * 8u + j] + av[i] * bv[j];
                }
            }
        }
        barrier();
    }
    for (uint i = 0u; i < 8u; i = i + 1u) {
        for (uint j = 0u; j < 8u; j = j + 1u) {
            uint row = row0 + ty * 8u + i;
            uint col = col0 + tx * 8u + j;
            if (row < M && col < N) { store_c(row, col, acc[i * 8u + j]); }
        }
    }
}
