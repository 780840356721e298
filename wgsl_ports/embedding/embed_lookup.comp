// Port of embed_lookup, 01_embedding.wgsl (its llm.istanbul study,
// "Line by Line — embed_lookup"). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer Table { float table[]; };
layout(set = 0, binding = 2, std430) buffer Out { float out_[]; };  // WGSL `out` (a GLSL keyword)
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint seq_len = dims.x;
    uint d_model = dims.y;
    uint vocab_size = dims.z;
    uint total = seq_len * d_model;
    if (i >= total) { return; }

    uint s = i / d_model;
    uint d = i % d_model;

    uint t = tokens[s];
    if (t >= vocab_size) {
        out_[i] = 0.0;
        return;
    }

    out_[i] = table[t * d_model + d];
}
