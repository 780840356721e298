// Port of attn_dsum, attention_native.wgsl: wgslvk's own helper, not from the browser engine
// (TinyGPT's engineering log, the FlashAttention-2 backward needs its D_i). Line by
// line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Out { float out_[]; };
layout(set = 0, binding = 2, std430) readonly buffer Dout { float dout[]; };
layout(set = 0, binding = 3, std430) buffer Dsum { float dsum[]; };

void main() {
    uint row = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint T = p.seq;
    uint H = p.heads;
    uint hd = p.head_dim;
    if (row >= p.batch * H * T) { return; }
    uint i = row % T;
    uint h = (row / T) % H;
    uint b = row / (T * H);
    uint off = (b * T + i) * H * hd + h * hd;
    float acc = 0.0;
    for (uint c = 0u; c < hd; c = c + 1u) {
        acc = acc + dout[off + c] * out_[off + c];
    }
    dsum[row] = acc;
}
