// Port of matmul_tiled_f16, 04_matmul.wgsl (TinyGPT's engineering log, "f16-packed
// storage — store weights as two f16 per u32 via pack2x16float"). Line-by-line; same
// group/binding/access as the WGSL. unpackHalf2x16 is WGSL's unpack2x16float (x = low half); no
// 16-bit types, so no "shader-f16".
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#define MATMUL_LOAD_A

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer ABuf { float a[]; };
layout(set = 0, binding = 1, std430) buffer BF16Buf { uint b_f16[]; };
layout(set = 0, binding = 2, std430) buffer CBuf { float c[]; };
layout(set = 0, binding = 3, std430) buffer BiasBuf { float bias[]; };
layout(set = 0, binding = 4, std140) uniform Dims { uvec4 dims; };  // (M, N, K, flags)

#include "matmul_common.glsl"

// op(B)[k, col] from the packed words, 0.0 outside the K x N operand.
float load_b_f16(uint k, uint col) {
    uint N = dims.y;
    uint K = dims.z;
    if (k >= K || col >= N) { return 0.0; }
    if ((dims.w & TRANS_B) != 0u) {
        vec2 h = unpackHalf2x16(b_f16[col * ((K + 1u) / 2u) + k / 2u]);
        return wgsl_select(h.x, h.y, (k & 1u) != 0u);
    }
    vec2 h = unpackHalf2x16(b_f16[k * ((N + 1u) / 2u) + col / 2u]);
    return wgsl_select(h.x, h.y, (col & 1u) != 0u);
}

const uint TS = 16u;
// Zero-initialized in WGSL (R17); every element is written before it is read in each K step.
shared float tile_a[256];  // [ty][k]
shared float tile_b[256];  // [k][tx]

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = dims.x;
    uint N = dims.y;
    uint K = dims.z;
    uint tiles_n = (N + TS - 1u) / TS;
    uint tiles_m = (M + TS - 1u) / TS;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint ty = lid / TS;
    uint tx = lid % TS;
    uint row = (tile / tiles_n) * TS + ty;
    uint col = (tile % tiles_n) * TS + tx;
    float acc = 0.0;
    uint steps = (K + TS - 1u) / TS;
    for (uint t = 0u; t < steps; t = t + 1u) {
        tile_a[ty * TS + tx] = load_a(row, t * TS + tx);
        tile_b[ty * TS + tx] = load_b_f16(t * TS + ty, col);
        barrier();
        for (uint k = 0u; k < TS; k = k + 1u) {
            acc = acc + tile_a[ty * TS + k] * tile_b[k * TS + tx];
        }
        barrier();
    }
    if (row < M && col < N) { store_c(row, col, acc); }
}
