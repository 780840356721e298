// Port of gelu_backward, 04_elementwise.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "gelu_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer GbX { vec4 gb_x[]; };
layout(set = 0, binding = 1, std430) readonly buffer GbDy { vec4 gb_dy[]; };
layout(set = 0, binding = 2, std430) buffer GbDx { vec4 gb_dx[]; };
layout(set = 0, binding = 3, std140) uniform GbDims { uvec4 gb_dims; };  // (n4, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= gb_dims.x) { return; }
    gb_dx[i] = gb_dy[i] * gelu_grad(gb_x[i]);
}
