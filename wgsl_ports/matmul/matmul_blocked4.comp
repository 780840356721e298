// Port of matmul_blocked4, 04_matmul.wgsl (TinyGPT's engineering log, "Thread-level
// register blocking (4x4)"). Line-by-line; same group/binding/access as the WGSL.
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
        for (uint i = 0u; i < 2u; i = i + 1u) {
            uint e = lid + i * WG;
            uint am = e / B4K;
            uint ak = e % B4K;
            b4_a[ak * B4 + am] = load_a(row0 + am, k0 + ak);
            uint bk = e / B4;
            uint bn = e % B4;
            b4_b[bk * B4 + bn] = load_b(k0 + bk, col0 + bn);
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
