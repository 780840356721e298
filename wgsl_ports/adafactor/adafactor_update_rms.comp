// Port of adafactor_update_rms, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "Phase A: Each block computes partial update^2 sum",
// here per-workgroup partials instead of an atomic add). Line-by-line; same group/binding/access
// as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer UrG { float ur_g[]; };
layout(set = 0, binding = 1, std430) readonly buffer UrRr { float ur_rr[]; };
layout(set = 0, binding = 2, std430) readonly buffer UrRc { float ur_rc[]; };
layout(set = 0, binding = 3, std430) buffer UrPart { float ur_part[]; };
layout(set = 0, binding = 4, std140) uniform UrDims { AF_DIMS_FIELDS } ur_dims;
layout(set = 0, binding = 5, std140) uniform UrHp { AF_HP_FIELDS } ur_hp;

shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    barrier();

    uint rows = ur_dims.rows;
    uint cols = ur_dims.cols;
    uint c = wid.x * WC + tid;
    uint r0 = wid.y * WR;
    float acc = 0.0;
    if (c < cols) {
        float fc = ur_rc[c];
        for (uint k = 0u; k < WR; k = k + 1u) {
            uint r = r0 + k;
            if (r >= rows) { break; }
            float g = fin(ur_g[r * cols + c]);
            float u = g * min(ur_rr[r] * fc, ur_hp.inv_eps1);
            acc = acc + u * u;
        }
    }
    sh_red[tid] = acc;
    barrier();
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
        barrier();
        s = s >> 1u;
    }
    if (tid == 0u) { ur_part[wid.y * ur_dims.nbx + wid.x] = sh_red[0]; }
}
