// Port of adafactor_apply_1d, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "_apply_update_1d_kernel", clip_scale from device
// memory). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer A1W { float a1_w[]; };
layout(set = 0, binding = 1, std430) readonly buffer A1G { float a1_g[]; };
layout(set = 0, binding = 2, std430) readonly buffer A1V { float a1_v[]; };
layout(set = 0, binding = 3, std430) readonly buffer A1RmsPart { float a1_rms_part[]; };
layout(set = 0, binding = 4, std430) readonly buffer A1PPart { float a1_p_part[]; };
layout(set = 0, binding = 5, std140) uniform A1Dims { AF_DIMS_FIELDS } a1_dims;
layout(set = 0, binding = 6, std140) uniform A1Hp { AF_HP_FIELDS } a1_hp;

shared float sh_red[WG];
shared float sh_red2[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    sh_red2[tid] = 0.0;
    barrier();

    bool use_p = a1_hp.scale_param != 0.0;
    float su = 0.0;
    float sp = 0.0;
    for (uint k = tid; k < a1_dims.nparts; k = k + WG) {
        su = su + a1_rms_part[k];
        if (use_p) { sp = sp + a1_p_part[k]; }
    }
    sh_red[tid] = su;
    sh_red2[tid] = sp;
    barrier();
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_red[tid] = sh_red[tid] + sh_red[tid + s];
            sh_red2[tid] = sh_red2[tid] + sh_red2[tid + s];
        }
        barrier();
        s = s >> 1u;
    }
    float nf = float(a1_dims.n);
    float denom = max(1.0, sqrt(sh_red[0] / nf) / a1_hp.d);
    float alpha = a1_hp.rho;
    if (use_p) { alpha = alpha * max(a1_hp.eps2, sqrt(sh_red2[0] / nf)); }
    float step_ = alpha / denom;

    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i < a1_dims.n) {
        float g = fin(a1_g[i]);
        float u = g * inversesqrt(max(a1_v[i], a1_hp.eps1_sq));
        float wd = a1_w[i] * a1_hp.decay;
        a1_w[i] = wd - step_ * u;
    }
}
