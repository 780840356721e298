// Port of attn_scores, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 entry: the naive path that keeps the attention matrix). Line by line; same
// group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) buffer Att { float att[]; };

void main() {
    uint idx = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    if (idx >= p.batch * H * T * T) { return; }
    uint j = idx % T;
    uint row = idx / T;
    uint i = row % T;
    uint h = (row / T) % H;
    uint b = row / (T * H);
    if (j > i) {
        att[idx] = 0.0;
        return;
    }
    uint d = H * hd;
    uint q_off = (b * T + i) * 3u * d + h * hd;
    uint k_off = (b * T + j) * 3u * d + d + h * hd;
    float acc = 0.0;
    for (uint c = 0u; c < hd; c = c + 1u) {
        acc = acc + qkv[q_off + c] * qkv[k_off + c];
    }
    att[idx] = acc * p.scale;
}
