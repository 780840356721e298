// Port of gelu_forward, 04_elementwise.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "gelu_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer GfX { vec4 gf_x[]; };
layout(set = 0, binding = 1, std430) buffer GfY { vec4 gf_y[]; };
layout(set = 0, binding = 2, std140) uniform GfDims { uvec4 gf_dims; };  // (n4, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= gf_dims.x) { return; }
    gf_y[i] = gelu_value(gf_x[i]);
}
