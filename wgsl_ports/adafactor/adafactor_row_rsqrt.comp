// Port of adafactor_row_rsqrt, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "rsqrt(row / row_sum)"). Line-by-line; same
// group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer RsRowVar { float rs_row_var[]; };
layout(set = 0, binding = 1, std430) buffer RsRr { float rs_rr[]; };
layout(set = 0, binding = 2, std140) uniform RsDims { AF_DIMS_FIELDS } rs_dims;
layout(set = 0, binding = 3, std140) uniform RsHp { AF_HP_FIELDS } rs_hp;

shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    barrier();

    uint rows = rs_dims.rows;
    float acc = 0.0;
    for (uint k = tid; k < rows; k = k + WG) {
        acc = acc + rs_row_var[k];
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
    float mean = sh_red[0] / float(rows);
    float denom = max(mean, rs_hp.eps1);
    for (uint k = tid; k < rows; k = k + WG) {
        rs_rr[k] = inversesqrt(max(rs_row_var[k] / denom, TINY));
    }
}
