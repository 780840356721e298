// Port of copy_vec4, util.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { vec4 src[]; };
layout(set = 0, binding = 1, std430) buffer Dst { vec4 dst[]; };
layout(set = 0, binding = 2, std140) uniform CopyParams { uvec4 copy_params; };  // (n, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= copy_params.x) { return; }
    dst[i] = src[i];
}
