// Port of embed_backward_deterministic, embedding_native.wgsl: wgslvk's own native kernel, not
// from the browser engine (the llm.istanbul study of 01_embedding.wgsl, "Line by Line —
// embed_backward" is the kernel it makes deterministic). Line-by-line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer GradOut { float grad_out[]; };
layout(set = 0, binding = 2, std430) buffer GradTable { float grad_table[]; };
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, n_segments)
layout(set = 0, binding = 4, std430) readonly buffer Order { uint order[]; };
layout(set = 0, binding = 5, std430) readonly buffer SegStart { uint seg_start[]; };

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint d_model = dims.y;
    uint vocab_size = dims.z;
    uint n_segments = dims.w;
    uint total = n_segments * d_model;
    if (i >= total) { return; }

    uint g = i / d_model;
    uint d = i % d_model;

    uint begin = seg_start[g];
    uint end = seg_start[g + 1u];
    uint t = tokens[order[begin]];
    if (t >= vocab_size) { return; }  // the host leaves such positions out; defensive only
    uint dst_idx = t * d_model + d;

    float acc = grad_table[dst_idx];
    for (uint k = begin; k < end; k = k + 1u) {
        float val = grad_out[order[k] * d_model + d];
        if (val == 0.0 || !is_finite(val)) { continue; }
        acc = acc + val;
    }
    grad_table[dst_idx] = acc;
}
