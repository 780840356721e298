// Port of layernorm_backward_dparams, 04_norm.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "layernorm_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer LdPartials { float ld_partials[]; };  // [n_blocks][2][d]
layout(set = 0, binding = 1, std430) buffer LdDgamma { float ld_dgamma[]; };
layout(set = 0, binding = 2, std430) buffer LdDbeta { float ld_dbeta[]; };
layout(set = 0, binding = 3, std140) uniform Ld { LN_PARAMS_FIELDS } ld;

// 16 columns x 16 lanes per workgroup: ceil(d / 16) workgroups.
void main() {
    uint tid = gl_LocalInvocationIndex;
    zero_shared_ab(tid);
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint col = (wid.y * nwg.x + wid.x) * 16u + tid % 16u;
    uint lane = tid / 16u;
    uint n_blocks = (ld.rows + ld.rows_per_block - 1u) / ld.rows_per_block;
    bool valid = col < ld.d;
    float sg = 0.0;
    float sb = 0.0;
    if (valid) {
        for (uint b = lane; b < n_blocks; b = b + 16u) {
            sg = sg + ld_partials[b * 2u * ld.d + col];
            sb = sb + ld_partials[b * 2u * ld.d + ld.d + col];
        }
    }
    sh_a[tid] = sg;
    sh_b[tid] = sb;
    barrier();
    if (valid && lane == 0u) {
        float tg = sh_a[tid];
        float tb = sh_b[tid];
        for (uint l = 1u; l < 16u; l = l + 1u) {
            tg = tg + sh_a[l * 16u + tid];
            tb = tb + sh_b[l * 16u + tid];
        }
        ld_dgamma[col] = tg;
        ld_dbeta[col] = tb;
    }
}
