// Port of residual_add, 04_elementwise.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer RaA { vec4 ra_a[]; };
layout(set = 0, binding = 1, std430) readonly buffer RaB { vec4 ra_b[]; };
layout(set = 0, binding = 2, std430) buffer RaOut { vec4 ra_out[]; };
layout(set = 0, binding = 3, std140) uniform RaDims { uvec4 ra_dims; };  // (n4, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= ra_dims.x) { return; }
    ra_out[i] = ra_a[i] + ra_b[i];
}
