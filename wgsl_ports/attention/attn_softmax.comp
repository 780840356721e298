// Port of attn_softmax, attention.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 entry: the naive path). Line by line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) buffer Att { float att[]; };

void main() {
    uint row = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint T = p.seq;
    if (row >= p.batch * p.heads * T) { return; }
    uint i = row % T;
    uint base = row * T;
    float m = att[base];
    for (uint j = 1u; j <= i; j = j + 1u) {
        m = max(m, att[base + j]);
    }
    float l = 0.0;
    for (uint j = 0u; j <= i; j = j + 1u) {
        float e = exp(att[base + j] - m);
        att[base + j] = e;
        l = l + e;
    }
    for (uint j = 0u; j <= i; j = j + 1u) {
        att[base + j] = att[base + j] / l;
    }
}
