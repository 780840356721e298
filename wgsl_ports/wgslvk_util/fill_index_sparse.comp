// Port of fill_index_sparse, util.wgsl (wgslvk's own helper kernels). Same group/binding/access
// as the WGSL, including @binding(3), which is declared and deliberately never accessed.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer FillOut { uint fill_out[]; };
layout(set = 0, binding = 1, std140) uniform FillParams { uvec4 fill_params; };  // (n, _, _, _)
layout(set = 0, binding = 3, std430) readonly buffer SparseUnused { uint sparse_unused[]; };

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= fill_params.x) { return; }
    fill_out[i] = i;
}
