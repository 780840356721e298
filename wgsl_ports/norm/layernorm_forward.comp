// Port of layernorm_forward, 04_norm.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "layernorm_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer LfX { vec4 lf_x[]; };
layout(set = 0, binding = 1, std430) readonly buffer LfGamma { vec4 lf_gamma[]; };
layout(set = 0, binding = 2, std430) readonly buffer LfBeta { vec4 lf_beta[]; };
layout(set = 0, binding = 3, std430) buffer LfY { vec4 lf_y[]; };
layout(set = 0, binding = 4, std430) buffer LfMean { float lf_mean[]; };
layout(set = 0, binding = 5, std430) buffer LfRstd { float lf_rstd[]; };
layout(set = 0, binding = 6, std140) uniform Lf { LN_PARAMS_FIELDS } lf;

void main() {
    uint tid = gl_LocalInvocationIndex;
    zero_shared_ab(tid);
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint d4 = lf.d / 4u;
    uint tpr = threads_per_row(d4);
    uint lane = tid % tpr;
    uint row = (wid.y * nwg.x + wid.x) * (WG / tpr) + tid / tpr;
    bool valid = row < lf.rows;
    uint base = row * d4;
    float fd = float(lf.d);

    vec4 xv[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    vec4 acc = vec4(0.0);
    for (uint k = 0u; k < MAXV; k = k + 1u) {
        uint j = lane + k * tpr;
        if (valid && j < d4) {
            xv[k] = lf_x[base + j];
            acc = acc + xv[k];
        }
    }
    sh_a[tid] = hsum(acc);
    sh_b[tid] = 0.0;
    float mean = seg_reduce2(tid, lane, tpr).x / fd;

    vec4 acc2 = vec4(0.0);
    for (uint k = 0u; k < MAXV; k = k + 1u) {
        uint j = lane + k * tpr;
        if (valid && j < d4) {
            vec4 c = xv[k] - vec4(mean);
            acc2 = acc2 + c * c;
        }
    }
    sh_a[tid] = hsum(acc2);
    sh_b[tid] = 0.0;
    float variance = seg_reduce2(tid, lane, tpr).x / fd;
    float rstd = inversesqrt(variance + lf.eps);

    if (!valid) { return; }
    if (lane == 0u) {
        lf_mean[row] = mean;
        lf_rstd[row] = rstd;
    }
    for (uint k = 0u; k < MAXV; k = k + 1u) {
        uint j = lane + k * tpr;
        if (j < d4) {
            vec4 xhat = (xv[k] - vec4(mean)) * rstd;
            lf_y[base + j] = xhat * lf_gamma[j] + lf_beta[j];
        }
    }
}
