// Port of adafactor_apply_2d, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "Phase B: Compute clip_scale, apply clipped update";
// the RMS comes through device memory, see the WGSL's header). Line-by-line; same
// group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer A2W { float a2_w[]; };
layout(set = 0, binding = 1, std430) readonly buffer A2G { float a2_g[]; };
layout(set = 0, binding = 2, std430) readonly buffer A2Rr { float a2_rr[]; };
layout(set = 0, binding = 3, std430) readonly buffer A2Rc { float a2_rc[]; };
layout(set = 0, binding = 4, std430) readonly buffer A2RmsPart { float a2_rms_part[]; };
layout(set = 0, binding = 5, std430) readonly buffer A2PPart { float a2_p_part[]; };
layout(set = 0, binding = 6, std140) uniform A2Dims { AF_DIMS_FIELDS } a2_dims;
layout(set = 0, binding = 7, std140) uniform A2Hp { AF_HP_FIELDS } a2_hp;

shared float sh_red[WG];
shared float sh_red2[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    sh_red2[tid] = 0.0;
    barrier();

    bool use_p = a2_hp.scale_param != 0.0;
    float su = 0.0;
    float sp = 0.0;
    for (uint k = tid; k < a2_dims.nparts; k = k + WG) {
        su = su + a2_rms_part[k];
        if (use_p) { sp = sp + a2_p_part[k]; }
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
    float nf = float(a2_dims.n);
    float denom = max(1.0, sqrt(sh_red[0] / nf) / a2_hp.d);
    float alpha = a2_hp.rho;
    if (use_p) { alpha = alpha * max(a2_hp.eps2, sqrt(sh_red2[0] / nf)); }
    float step_ = alpha / denom;

    uint rows = a2_dims.rows;
    uint cols = a2_dims.cols;
    uint c = wid.x * WC + tid;
    uint r0 = wid.y * WR;
    if (c < cols) {
        float fc = a2_rc[c];
        for (uint k = 0u; k < WR; k = k + 1u) {
            uint r = r0 + k;
            if (r >= rows) { break; }
            uint i = r * cols + c;
            float g = fin(a2_g[i]);
            float u = g * min(a2_rr[r] * fc, a2_hp.inv_eps1);
            float wd = a2_w[i] * a2_hp.decay;
            a2_w[i] = wd - step_ * u;
        }
    }
}
