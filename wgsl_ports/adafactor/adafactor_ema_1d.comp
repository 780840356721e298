// Port of adafactor_ema_1d, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "1D Step": state update and _compute_rms_1d_kernel in
// one pass). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer E1G { float e1_g[]; };
layout(set = 0, binding = 1, std430) readonly buffer E1W { float e1_w[]; };
layout(set = 0, binding = 2, std430) buffer E1V { float e1_v[]; };
layout(set = 0, binding = 3, std430) buffer E1RmsPart { float e1_rms_part[]; };
layout(set = 0, binding = 4, std430) buffer E1PPart { float e1_p_part[]; };
layout(set = 0, binding = 5, std140) uniform E1Dims { AF_DIMS_FIELDS } e1_dims;
layout(set = 0, binding = 6, std140) uniform E1Hp { AF_HP_FIELDS } e1_hp;

shared float sh_red[WG];
shared float sh_red2[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    sh_red2[tid] = 0.0;
    barrier();

    bool use_p = e1_hp.scale_param != 0.0;
    uint grid_size = nwg.x * nwg.y * WG;
    float acc = 0.0;
    float pacc = 0.0;
    uint i = flat_id(gl_GlobalInvocationID, nwg);
    for (;;) {
        if (i >= e1_dims.n) { break; }
        float g = fin(e1_g[i]);
        float v = lerp_t(e1_v[i], g * g, e1_hp.beta_w);
        e1_v[i] = v;
        float u = g * inversesqrt(max(v, e1_hp.eps1_sq));
        acc = acc + u * u;
        if (use_p) {
            float p = e1_w[i];
            pacc = pacc + p * p;
        }
        i = i + grid_size;
    }
    sh_red[tid] = acc;
    sh_red2[tid] = pacc;
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
    if (tid == 0u) {
        uint slot = wid.y * nwg.x + wid.x;
        e1_rms_part[slot] = sh_red[0];
        if (use_p) { e1_p_part[slot] = sh_red2[0]; }
    }
}
