// Port of layernorm_backward_fused_dparams, norm_native.wgsl (wgslvk's own kernel). Line-by-line;
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

// 4 vec4 columns x 64 lanes per workgroup: ceil(d / 16) workgroups.
void main() {
    uint tid = gl_LocalInvocationIndex;
    zero_native_shared(tid);
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint d4 = ld.d / 4u;
    uint c = (wid.y * nwg.x + wid.x) * 4u + tid % 4u;
    uint lane = tid / 4u;
    uint n_blocks = wgsl_udiv(ld.rows + ld.rows_per_block - 1u, ld.rows_per_block);
    bool valid = c < d4;
    vec4 sg = vec4(0.0);
    vec4 sb = vec4(0.0);
    if (valid) {
        for (uint b = lane; b < n_blocks; b = b + 64u) {
            sg = sg + ld_partials[b * 2u * d4 + c];
            sb = sb + ld_partials[b * 2u * d4 + d4 + c];
        }
    }
    fb_v[tid] = sg;
    fb_w[tid] = sb;
    uint s = 32u;
    for (;;) {
        barrier();
        if (s == 0u) { break; }
        if (lane < s) {
            fb_v[tid] = fb_v[tid] + fb_v[tid + 4u * s];
            fb_w[tid] = fb_w[tid] + fb_w[tid + 4u * s];
        }
        s = s >> 1u;
    }
    if (valid && lane == 0u) {
        ld_dgamma[c] = fb_v[tid];
        ld_dbeta[c] = fb_w[tid];
    }
}
