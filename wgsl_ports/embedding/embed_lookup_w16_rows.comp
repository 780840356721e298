// Port of embed_lookup_w16_rows, embedding_native.wgsl (NOT from the browser engine: wgslvk's own
// row-wise f16-table lookup, issue 15). Line-by-line; same group/binding/access as the WGSL.
// unpackHalf2x16 is WGSL's unpack2x16float (x = low half); no 16-bit types, so no "shader-f16".
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#define ROWS_WG 64u

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer TableW16 { uvec2 table_w16[]; };  // [vocab_size x d_model / 4]
layout(set = 0, binding = 2, std430) buffer OutW16 { vec4 out_w16[]; };  // [seq_len x d_model / 4]
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, rows_per_wg)

vec4 widen4(uvec2 p) {
    return vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y));
}

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
            out_w16[dst + c] = vec4(0.0);
        }
        return;
    }
    uint src = t * d4;
    for (uint c0 = lane; c0 < d4; c0 = c0 + 4u * lanes) {
        uint c1 = c0 + lanes;
        uint c2 = c1 + lanes;
        uint c3 = c2 + lanes;
        uvec2 p0 = table_w16[src + c0];
        uvec2 p1 = uvec2(0u);
        uvec2 p2 = uvec2(0u);
        uvec2 p3 = uvec2(0u);
        if (c1 < d4) { p1 = table_w16[src + c1]; }
        if (c2 < d4) { p2 = table_w16[src + c2]; }
        if (c3 < d4) { p3 = table_w16[src + c3]; }
        out_w16[dst + c0] = widen4(p0);
        if (c1 < d4) { out_w16[dst + c1] = widen4(p1); }
        if (c2 < d4) { out_w16[dst + c2] = widen4(p2); }
        if (c3 < d4) { out_w16[dst + c3] = widen4(p3); }
    }
}
