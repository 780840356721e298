// Port of attn_softmax_mat, attention_mat.wgsl (ours). Line by line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) buffer Att { float att[]; };

shared float red[256];

void main() {
    uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint T = p.seq;
    if (row >= p.batch * p.heads * T) { return; }
    uint lid = gl_LocalInvocationIndex;
    uint i = row % T;
    uint base = row * T;
    float scale = p.scale;
    float m = -3.4028234663852886e38;  // -FLT_MAX exactly: a literal above it is a shader-creation error
    for (uint j = lid; j <= i; j = j + WG) {
        m = max(m, scale * att[base + j]);
    }
    red[lid] = m;
    barrier();
    for (uint s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            red[lid] = max(red[lid], red[lid + s]);
        }
        barrier();
    }
    m = red[0];
    barrier();
    float l = 0.0;
    for (uint j = lid; j <= i; j = j + WG) {
        float e = exp(scale * att[base + j] - m);
        att[base + j] = e;
        l = l + e;
    }
    red[lid] = l;
    barrier();
    for (uint s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            red[lid] = red[lid] + red[lid + s];
        }
        barrier();
    }
    l = red[0];
    for (uint j = lid; j < T; j = j + WG) {
        float v = 0.0;
        if (j <= i) {
            v = att[base + j] / l;
        }
        att[base + j] = v;
    }
}
