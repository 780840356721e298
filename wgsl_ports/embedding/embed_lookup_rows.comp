// Port of embed_lookup_rows, embedding_native.wgsl (NOT from the browser engine: wgslvk's own
// row-wise lookup, issue 15). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#define ROWS_WG 64u

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer Table { vec4 table[]; };  // [vocab_size x d_model / 4]
layout(set = 0, binding = 2, std430) buffer Out { vec4 out_[]; };  // WGSL `out` (a GLSL keyword)
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, rows_per_wg)

void main() {
    uvec3 wid = gl_WorkGroupID;
    uint lid = gl_LocalInvocationIndex;
    uvec3 nwg = gl_NumWorkGroups;
    if ((dims.y & 3u) != 0u) { return; }
    uint seq_len = dims.x;
    uint d4 = dims.y / 4u;
    uint vocab_size = dims.z;
    uint rows_per_wg = clamp(dims.w, 1u, ROWS_WG);
    uint lanes = ROWS_WG / rows_per_wg;
    uint slot = lid / lanes;
    if (slot >= rows_per_wg) { return; }
    uint row = (wid.y * nwg.x + wid.x) * rows_per_wg + slot;
    if (row >= seq_len) { return; }
    uint lane = lid % lanes;

    uint t = tokens[row];
    uint dst = row * d4;
    if (t >= vocab_size) {
        for (uint c = lane; c < d4; c = c + lanes) {
            out_[dst + c] = vec4(0.0);
        }
        return;
    }
    uint src = t * d4;
    for (uint c0 = lane; c0 < d4; c0 = c0 + 4u * lanes) {
        uint c1 = c0 + lanes;
        uint c2 = c1 + lanes;
        uint c3 = c2 + lanes;
        vec4 v0 = table[src + c0];
        vec4 v1 = vec4(0.0);
        vec4 v2 = vec4(0.0);
        vec4 v3 = vec4(0.0);
        if (c1 < d4) { v1 = table[src + c1]; }
        if (c2 < d4) { v2 = table[src + c2]; }
        if (c3 < d4) { v3 = table[src + c3]; }
        out_[dst + c0] = v0;
        if (c1 < d4) { out_[dst + c1] = v1; }
        if (c2 < d4) { out_[dst + c2] = v2; }
        if (c3 < d4) { out_[dst + c3] = v3; }
    }
}
