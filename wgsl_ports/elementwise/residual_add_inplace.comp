// Port of residual_add_inplace, 04_elementwise.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer RiA { vec4 ri_a[]; };
layout(set = 0, binding = 1, std430) readonly buffer RiB { vec4 ri_b[]; };
layout(set = 0, binding = 2, std140) uniform RiDims { uvec4 ri_dims; };  // (n4, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= ri_dims.x) { return; }
    ri_a[i] = ri_a[i] + ri_b[i];
}
