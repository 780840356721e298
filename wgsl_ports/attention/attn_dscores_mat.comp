// Port of attn_dscores_mat, attention_mat.wgsl (ours). Line by line; same group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "attention_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 1, std430) readonly buffer Att { float att[]; };
layout(set = 0, binding = 2, std430) readonly buffer Dsum { float dsum[]; };
layout(set = 0, binding = 3, std430) buffer Ds { float ds[]; };

void main() {
    uint idx = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint T = p.seq;
    if (idx >= p.batch * p.heads * T * T) { return; }
    uint row = idx / T;
    uint i = row % T;
    uint j = idx % T;
    float v = 0.0;
    if (j <= i) {
        v = p.scale * (att[idx] * (ds[idx] - dsum[row]));
    }
    ds[idx] = v;
}
