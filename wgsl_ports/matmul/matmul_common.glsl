// Shared by the GLSL ports of 04_matmul.wgsl (TinyGPT's engineering log): the WGSL
// module-scope constants and helper functions, line by line. Included after the port defines WG
// and declares its bindings: c, bias and dims always; a (f32) when it defines MATMUL_LOAD_A, b (f32)
// when it defines MATMUL_LOAD_B.
#ifndef WGSLVK_MATMUL_COMMON_GLSL
#define WGSLVK_MATMUL_COMMON_GLSL

#include "wgsl.glsl"

// WGSL: fn flat_wg(wid, nwg) = wid.y * nwg.x + wid.x  (flat_id(gid, nwg) / WG)
uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

const uint TRANS_A = 1u;     // A is stored [K, M]
const uint TRANS_B = 2u;     // B is stored [N, K]
const uint ADD_BIAS = 4u;    // C += bias[col]
const uint ACCUMULATE = 8u;  // C = old C + result

#ifdef MATMUL_LOAD_A
// op(A)[row, k], 0.0 outside the M x K operand.
float load_a(uint row, uint k) {
    uint M = dims.x;
    uint K = dims.z;
    if (row >= M || k >= K) { return 0.0; }
    if ((dims.w & TRANS_A) != 0u) { return a[k * M + row]; }
    return a[row * K + k];
}
#endif

#ifdef MATMUL_LOAD_B
// op(B)[k, col], 0.0 outside the K x N operand.
float load_b(uint k, uint col) {
    uint N = dims.y;
    uint K = dims.z;
    if (k >= K || col >= N) { return 0.0; }
    if ((dims.w & TRANS_B) != 0u) { return b[col * K + k]; }
    return b[k * N + col];
}
#endif

// The epilogue of every kernel: (row, col) is inside C.
void store_c(uint row, uint col, float acc) {
    float v = acc;
    if ((dims.w & ADD_BIAS) != 0u) { v = v + bias[col]; }
    uint idx = row * dims.y + col;
    if ((dims.w & ACCUMULATE) != 0u) { v = c[idx] + v; }
    c[idx] = v;
}

#endif
