// Port of fill_index, util.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer FillOut { uint fill_out[]; };
layout(set = 0, binding = 1, std140) uniform FillParams { uvec4 fill_params; };  // (n, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= fill_params.x) { return; }
    fill_out[i] = i;
}
