// Port of embed_backward_rows, embedding_native.wgsl (NOT from the browser engine: wgslvk's own
// row-wise deterministic backward, issue 15). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#define ROWS_WG 64u

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer GradOut { vec4 grad_out4[]; };  // [seq_len x d_model / 4]
layout(set = 0, binding = 2, std430) buffer GradTable { vec4 grad_table4[]; };  // [vocab_size x d_model / 4]
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, n_segments)
layout(set = 0, binding = 4, std430) readonly buffer Order { uint order[]; };
layout(set = 0, binding = 5, std430) readonly buffer SegStart { uint seg_start[]; };

// acc + v per component where embed_backward_deterministic adds (v != 0 and finite), else acc.
vec4 add_kept(vec4 acc, vec4 v) {
    bvec4 finite = notEqual(floatBitsToUint(v) & uvec4(0x7f800000u), uvec4(0x7f800000u));
    bvec4 keep = bvec4(uvec4(notEqual(v, vec4(0.0))) & uvec4(finite));
    return mix(acc, acc + v, keep);
}

void main() {
    uvec3 wid = gl_WorkGroupID;
    uint lid = gl_LocalInvocationIndex;
    uvec3 nwg = gl_NumWorkGroups;
    if ((dims.y & 3u) != 0u) { return; }
    uint d4 = dims.y / 4u;
    uint vocab_size = dims.z;
    uint n_segments = dims.w;
    uint lanes = 1u;
    while (lanes < d4 && lanes < ROWS_WG) { lanes = lanes * 2u; }
    uint chunk = lanes * 4u;
    uint chunks = (d4 + chunk - 1u) / chunk;
    uint w = wid.y * nwg.x + wid.x;
    uint g = (w / chunks) * (ROWS_WG / lanes) + lid / lanes;
    if (g >= n_segments) { return; }
    uint c0 = (w % chunks) * chunk + lid % lanes;
    uint c1 = c0 + lanes;
    uint c2 = c1 + lanes;
    uint c3 = c2 + lanes;

    uint begin = seg_start[g];
    uint end = seg_start[g + 1u];
    uint t = tokens[order[begin]];
    if (t >= vocab_size) { return; }  // the host leaves such positions out; defensive only
    if (c0 >= d4) { return; }
    uint dst = t * d4;

    vec4 a0 = grad_table4[dst + c0];
    vec4 a1 = vec4(0.0);
    vec4 a2 = vec4(0.0);
    vec4 a3 = vec4(0.0);
    if (c1 < d4) { a1 = grad_table4[dst + c1]; }
    if (c2 < d4) { a2 = grad_table4[dst + c2]; }
    if (c3 < d4) { a3 = grad_table4[dst + c3]; }
    uint k = begin;
    for (; k + 1u < end; k = k + 2u) {
        uint p = order[k] * d4;
        uint q = order[k + 1u] * d4;
        vec4 u0 = grad_out4[p + c0];
        vec4 v0 = grad_out4[q + c0];
        vec4 u1 = vec4(0.0);
        vec4 v1 = vec4(0.0);
        vec4 u2 = vec4(0.0);
        vec4 v2 = vec4(0.0);
        vec4 u3 = vec4(0.0);
        vec4 v3 = vec4(0.0);
        if (c1 < d4) { u1 = grad_out4[p + c1]; v1 = grad_out4[q + c1]; }
        if (c2 < d4) { u2 = grad_out4[p + c2]; v2 = grad_out4[q + c2]; }
        if (c3 < d4) { u3 = grad_out4[p + c3]; v3 = grad_out4[q + c3]; }
        a0 = add_kept(add_kept(a0, u0), v0);
        a1 = add_kept(add_kept(a1, u1), v1);
        a2 = add_kept(add_kept(a2, u2), v2);
        a3 = add_kept(add_kept(a3, u3), v3);
    }
    if (k < end) {
        uint p = order[k] * d4;
        a0 = add_kept(a0, grad_out4[p + c0]);
        if (c1 < d4) { a1 = add_kept(a1, grad_out4[p + c1]); }
        if (c2 < d4) { a2 = add_kept(a2, grad_out4[p + c2]); }
        if (c3 < d4) { a3 = add_kept(a3, grad_out4[p + c3]); }
    }
    grad_table4[dst + c0] = a0;
    if (c1 < d4) { grad_table4[dst + c1] = a1; }
    if (c2 < d4) { grad_table4[dst + c2] = a2; }
    if (c3 < d4) { grad_table4[dst + c3] = a3; }
}
