// Port of matmul_splitk_reduce, matmul_native.wgsl (ours): C = the S split-K partials of
// matmul_native_splitk added in ascending slice order, then the bias, then old C first.
// Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer RkPart { float rk_part[]; };
layout(set = 0, binding = 1, std430) buffer RkC { float rk_c[]; };
layout(set = 0, binding = 2, std430) readonly buffer RkBias { float rk_bias[]; };
layout(set = 0, binding = 3, std140) uniform RkDims { uvec4 rk_dims; };  // (M, N, S, flags)

uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

const uint ADD_BIAS = 4u;
const uint ACCUMULATE = 8u;

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = rk_dims.x;
    uint N = rk_dims.y;
    uint S = rk_dims.z;
    uint mn = M * N;
    uint idx = flat_wg(gl_WorkGroupID, gl_NumWorkGroups) * uint(WG) + lid;
    if (idx >= mn || S == 0u) { return; }
    float o = rk_part[idx];
    for (uint p = 1u; p < S; p = p + 1u) {
        o = o + rk_part[p * mn + idx];
    }
    if ((rk_dims.w & ADD_BIAS) != 0u) { o = o + rk_bias[idx % N]; }
    if ((rk_dims.w & ACCUMULATE) != 0u) { o = rk_c[idx] + o; }
    rk_c[idx] = o;
}
