// Port of attn_dqkv, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 entry: the naive backward that reads the cached attention matrix). Line by
// line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Qkv { float qkv[]; };
layout(set = 0, binding = 2, std430) readonly buffer Att { float att[]; };
layout(set = 0, binding = 3, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 4, std430) readonly buffer Dscores { float dscores[]; };
layout(set = 0, binding = 5, std430) buffer Dqkv { float dqkv[]; };

void main() {
    uint idx = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    uint d = H * hd;
    if (idx >= p.batch * T * 3u * d) { return; }
    uint r = idx / (3u * d);
    uint col3 = idx % (3u * d);
    uint part = col3 / d;
    uint col = col3 % d;
    uint h = col / hd;
    uint b = r / T;
    uint t = r % T;
    uint a_base = (b * H + h) * T;
    float acc = 0.0;
    if (part == 0u) {
        for (uint j = 0u; j <= t; j = j + 1u) {
            acc = acc + dscores[(a_base + t) * T + j] * qkv[(b * T + j) * 3u * d + d + col];
        }
        acc = acc * p.scale;
    } else if (part == 1u) {
        for (uint i = t; i < T; i = i + 1u) {
            acc = acc + dscores[(a_base + i) * T + t] * qkv[(b * T + i) * 3u * d + col];
        }
        acc = acc * p.scale;
    } else {
        for (uint i = t; i < T; i = i + 1u) {
            acc = acc + att[(a_base + i) * T + t] * dout[(b * T + i) * d + col];
        }
    }
    dqkv[idx] = acc;
}
