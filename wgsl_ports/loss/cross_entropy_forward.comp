// Port of cross_entropy_forward, 04_loss.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "ce_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer CfLogits { float cf_logits[]; };
layout(set = 0, binding = 1, std430) readonly buffer CfTargets { uint cf_targets[]; };
layout(set = 0, binding = 2, std430) buffer CfLoss { float cf_loss[]; };
layout(set = 0, binding = 3, std430) buffer CfLse { float cf_lse[]; };
layout(set = 0, binding = 4, std140) uniform Cf { CE_PARAMS_FIELDS } cf;

shared float sh_m[WG];
shared float sh_s[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint row = wid.y * nwg.x + wid.x;
    if (row >= cf.rows) { return; }
    uint base = row * cf.vocab;

    float m = NEG_BIG;
    float s = 0.0;
    for (uint j = tid; j < cf.vocab; j = j + WG) {
        float v = cf_logits[base + j];
        if (v > m) {
            s = s * exp(m - v) + 1.0;
            m = v;
        } else {
            s = s + exp(v - m);
        }
    }
    // (every slot is written before the first read: no zero-init needed, R17)
    sh_m[tid] = m;
    sh_s[tid] = s;
    barrier();
    uint st = WG / 2u;
    for (;;) {
        if (st == 0u) { break; }
        if (tid < st) {
            float m1 = sh_m[tid];
            float m2 = sh_m[tid + st];
            float mm = max(m1, m2);
            sh_s[tid] = sh_s[tid] * exp(m1 - mm) + sh_s[tid + st] * exp(m2 - mm);
            sh_m[tid] = mm;
        }
        barrier();
        st = st >> 1u;
    }
    if (tid == 0u) {
        float lse = sh_m[0] + log(sh_s[0]);
        cf_lse[row] = lse;
        uint t = cf_targets[row];
        float loss = 0.0;
        if (ce_valid(t, cf.vocab, cf.ignore_index)) {
            loss = lse - cf_logits[base + t];
        }
        cf_loss[row] = loss;
    }
}
