// Port of matmul_naive, 04_matmul.wgsl (TinyGPT's engineering log, the naive column of
// its matmul table). Line-by-line; same group/binding/access as the WGSL (every storage binding
// read_write: the seed's production layout).
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

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint M = dims.x;
    uint N = dims.y;
    uint K = dims.z;
    if (i >= M * N) { return; }
    uint row = i / N;
    uint col = i % N;
    float acc = 0.0;
    for (uint k = 0u; k < K; k = k + 1u) {
        acc = acc + load_a(row, k) * load_b(k, col);
    }
    store_c(row, col, acc);
}
