// Port of pos_embed_add, 04_elementwise.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer PeX { vec4 pe_x[]; };  // [B*T, d]
layout(set = 0, binding = 1, std430) readonly buffer PePos { vec4 pe_pos[]; };  // [T, d] (at least)
layout(set = 0, binding = 2, std140) uniform PeDims { uvec4 pe_dims; };  // (n4 = B*T*d/4, d4, T, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= pe_dims.x) { return; }
    uint d4 = pe_dims.y;
    uint row = i / d4;
    uint t = row % pe_dims.z;
    pe_x[i] = pe_x[i] + pe_pos[t * d4 + i % d4];
}
