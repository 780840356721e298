// Port of matmul_bias_grad, matmul_native.wgsl: wgslvk's own kernel, not from the browser engine
// (the bias gradient of the family of TinyGPT's engineering log). Line-by-line; same
// group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer DY { float dy[]; };
layout(set = 0, binding = 1, std430) buffer DB { float db[]; };
layout(set = 0, binding = 2, std140) uniform BgDims { uvec4 bg_dims; };  // (M rows, N columns, flags, L)

uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

const uint ACCUMULATE = 8u;

// Zero-initialized in WGSL (R17); every element is written before the barrier that precedes its read.
shared float bg_part[256];  // [lane][column]

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = bg_dims.x;
    uint N = bg_dims.y;
    uint L = bg_dims.w == 0u ? 4u : bg_dims.w;  // WGSL select(bg_dims.w, 4u, bg_dims.w == 0u)
    if (L != 4u && L != 8u && L != 16u && L != 32u && L != 64u) { return; }
    uint C = uint(WG) / L;
    uint group_ = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);  // WGSL `group`
    if (group_ >= (N + C - 1u) / C) { return; }
    uint lane = lid / C;
    uint c = lid % C;
    uint col = group_ * C + c;
    float s = 0.0;
    if (col < N) {
        for (uint row = lane; row < M; row = row + L) {
            s = s + dy[row * N + col];
        }
    }
    bg_part[lid] = s;
    barrier();
    for (uint w = L; w > 1u; w = w / 2u) {
        uint h = w / 2u;
        float v = 0.0;
        if (lane < h) { v = bg_part[2u * lane * C + c] + bg_part[(2u * lane + 1u) * C + c]; }
        barrier();
        if (lane < h) { bg_part[lane * C + c] = v; }
        barrier();
    }
    if (lane == 0u && col < N) {
        float total = bg_part[c];
        if ((bg_dims.z & ACCUMULATE) != 0u) { total = db[col] + total; }
        db[col] = total;
    }
}
