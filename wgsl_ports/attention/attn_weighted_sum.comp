// Port of attn_weighted_sum, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 entry: the naive path). Line by line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) readonly buffer Att { float att[]; };
layout(set = 0, binding = 3, std430) buffer Out { float out_[]; };

void main() {
    uint idx = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    uint d = H * hd;
    if (idx >= p.batch * T * d) { return; }
    uint r = idx / d;
    uint col = idx % d;
    uint h = col / hd;
    uint b = r / T;
    uint i = r % T;
    uint a_off = ((b * H + h) * T + i) * T;
    float acc = 0.0;
    for (uint j = 0u; j <= i; j = j + 1u) {
        acc = acc + att[a_off + j] * qkv[(b * T + j) * 3u * d + 2u * d + col];
    }
    out_[idx] = acc;
}
