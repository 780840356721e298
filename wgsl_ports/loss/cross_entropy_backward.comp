// Port of cross_entropy_backward, 04_loss.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "ce_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer CbLogits { float cb_logits[]; };
layout(set = 0, binding = 1, std430) readonly buffer CbTargets { uint cb_targets[]; };
layout(set = 0, binding = 2, std430) readonly buffer CbLse { float cb_lse[]; };
layout(set = 0, binding = 3, std430) readonly buffer CbStats { float cb_stats[]; };  // cross_entropy_mean's output
layout(set = 0, binding = 4, std430) buffer CbDlogits { float cb_dlogits[]; };
layout(set = 0, binding = 5, std140) uniform Cb { CE_PARAMS_FIELDS } cb;

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint row = wid.y * nwg.x + wid.x;
    if (row >= cb.rows) { return; }
    uint base = row * cb.vocab;
    uint t = cb_targets[row];
    if (!ce_valid(t, cb.vocab, cb.ignore_index)) {
        for (uint j = tid; j < cb.vocab; j = j + WG) {
            cb_dlogits[base + j] = 0.0;
        }
        return;
    }
    float scale = cb.scale / cb_stats[1];
    float lse = cb_lse[row];
    for (uint j = tid; j < cb.vocab; j = j + WG) {
        float p = exp(cb_logits[base + j] - lse);
        cb_dlogits[base + j] = (p - wgsl_select(0.0, 1.0, j == t)) * scale;
    }
}
