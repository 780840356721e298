// Port of attn_dscores, attention.wgsl (TinyGPT's engineering log, the
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
layout(set = 0, binding = 4, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 5, std430) buffer Dscores { float dscores[]; };

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
        dscores[idx] = 0.0;
        return;
    }
    uint d = H * hd;
    uint g_off = (b * T + i) * d + h * hd;
    uint v_off = (b * T + j) * 3u * d + 2u * d + h * hd;
    float dp = 0.0;
    for (uint c = 0u; c < hd; c = c + 1u) {
        dp = dp + dout[g_off + c] * qkv[v_off + c];
    }
    dscores[idx] = att[idx] * (dp - dsum[row]);
}
