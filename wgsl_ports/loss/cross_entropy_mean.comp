// Port of cross_entropy_mean, 04_loss.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "ce_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer CmLoss { float cm_loss[]; };
layout(set = 0, binding = 1, std430) readonly buffer CmTargets { uint cm_targets[]; };
layout(set = 0, binding = 2, std430) buffer CmStats { float cm_stats[]; };  // (mean, f32(n_valid))
layout(set = 0, binding = 3, std140) uniform Cm { CE_PARAMS_FIELDS } cm;

shared float sh_s[WG];
shared uint sh_c[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    if (wid.x + wid.y + wid.z != 0u) { return; }  // one workgroup does the work
    float s = 0.0;
    uint c = 0u;
    for (uint r = tid; r < cm.rows; r = r + WG) {
        if (ce_valid(cm_targets[r], cm.vocab, cm.ignore_index)) {
            s = s + cm_loss[r];
            c = c + 1u;
        }
    }
    // (every slot is written before the first read: no zero-init needed, R17)
    sh_s[tid] = s;
    sh_c[tid] = c;
    barrier();
    uint st = WG / 2u;
    for (;;) {
        if (st == 0u) { break; }
        if (tid < st) {
            sh_s[tid] = sh_s[tid] + sh_s[tid + st];
            sh_c[tid] = sh_c[tid] + sh_c[tid + st];
        }
        barrier();
        st = st >> 1u;
    }
    if (tid == 0u) {
        uint n = sh_c[0];
        float mean = 0.0;
        if (n > 0u) { mean = sh_s[0] / float(n); }
        cm_stats[0] = mean;
        cm_stats[1] = float(n);
    }
}
