// Port of layernorm_backward_lean_dparams, norm_native.wgsl (wgslvk's own kernel). Line-by-line;
// same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "norm_native_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer LdPartials { vec4 ld_partials[]; };  // [n_blocks][2][d/4]
layout(set = 0, binding = 1, std430) buffer LdDgamma { vec4 ld_dgamma[]; };
layout(set = 0, binding = 2, std430) buffer LdDbeta { vec4 ld_dbeta[]; };
layout(set = 0, binding = 3, std140) uniform Ld { LN_PARAMS_FIELDS } ld;

// One vec4 column per workgroup: d / 4 workgroups (2-D past 65535 is never needed: d <= 4096).
void main() {
    uint tid = gl_LocalInvocationIndex;
    zero_native_shared(tid);
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint d4 = ld.d / 4u;
    uint c = wid.y * nwg.x + wid.x;
    if (c >= d4) { return; }
    uint n_blocks = wgsl_udiv(ld.rows + ld.rows_per_block - 1u, ld.rows_per_block);
    vec4 sg = vec4(0.0);
    vec4 sb = vec4(0.0);
    for (uint b = tid; b < n_blocks; b = b + WG) {
        sg = sg + ld_partials[b * 2u * d4 + c];
        sb = sb + ld_partials[b * 2u * d4 + d4 + c];
    }
    fb_v[tid] = sg;
    fb_w[tid] = sb;
    barrier();
    if (tid < 32u) {  // 32 sums of 8 lanes, each into its first slot
        vec4 v = fb_v_tree8(tid * 8u, 1u);
        vec4 w = fb_w_tree8(tid * 8u, 1u);
        fb_v[tid * 8u] = v;
        fb_w[tid * 8u] = w;
    }
    barrier();
    if (tid < 4u) {  // 4 sums of 8 of those
        vec4 v = fb_v_tree8(tid * 64u, 8u);
        vec4 w = fb_w_tree8(tid * 64u, 8u);
        fb_v[tid * 64u] = v;
        fb_w[tid * 64u] = w;
    }
    barrier();
    if (tid == 0u) {
        ld_dgamma[c] = (fb_v[0] + fb_v[64]) + (fb_v[128] + fb_v[192]);
        ld_dbeta[c] = (fb_w[0] + fb_w[64]) + (fb_w[128] + fb_w[192]);
    }
}
