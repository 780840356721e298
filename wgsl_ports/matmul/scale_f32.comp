// Port of scale_f32, matmul_f16in.wgsl (ours, issue 24). Line-by-line; same group/binding/access as
// the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer Sx { vec4 sx[]; };
layout(set = 0, binding = 1, std140) uniform SDims { uvec4 sdims; };  // (n4, bits of s, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= sdims.x) { return; }
    sx[i] = sx[i] * uintBitsToFloat(sdims.y);
}
