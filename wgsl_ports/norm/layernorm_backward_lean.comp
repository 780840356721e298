// Port of layernorm_backward_lean, norm_native.wgsl (wgslvk's own kernel). Line-by-line; same
// group/binding/access as the WGSL.
//
//
// LEAN_R (norm_native_common.glsl) = 1 row per segment per row group step, as the WGSL's LEAN_R:
// 2 (twice the loads per barrier pair) took 80 registers instead of 64 and was 1.3-1.6x slower on
// an H200 (README.md); gamma staged in workgroup memory instead of loaded per step gained nothing.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "norm_native_common.glsl"

#define LEAN_S (LEAN_M * LEAN_R)  // register slots per lane

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer LbX { vec4 lb_x[]; };
layout(set = 0, binding = 1, std430) readonly buffer LbGamma { vec4 lb_gamma[]; };
layout(set = 0, binding = 2, std430) readonly buffer LbDy { vec4 lb_dy[]; };
layout(set = 0, binding = 3, std430) readonly buffer LbMean { float lb_mean[]; };
layout(set = 0, binding = 4, std430) readonly buffer LbRstd { float lb_rstd[]; };
layout(set = 0, binding = 5, std430) buffer LbDx { vec4 lb_dx[]; };
// [n_blocks][2][d/4]: per block, the dgamma partial then the dbeta partial.
layout(set = 0, binding = 6, std430) buffer LbPartials { vec4 lb_partials[]; };
layout(set = 0, binding = 7, std140) uniform Lb { LN_PARAMS_FIELDS } lb;

void main() {
    uint tid = gl_LocalInvocationIndex;
    zero_native_shared(tid);
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint d4 = lb.d / 4u;
    uint tpr = lean_threads_per_row(d4);
    uint rpw = WG / tpr;
    uint lane = tid % tpr;
    uint seg = tid / tpr;
    uint gpr = tpr / 8u;  // groups of 8 lanes per row
    uint block = wid.y * nwg.x + wid.x;
    uint n_blocks = wgsl_udiv(lb.rows + lb.rows_per_block - 1u, lb.rows_per_block);
    if (block >= n_blocks) { return; }
    uint row0 = block * lb.rows_per_block;
    uint row_end = min(row0 + lb.rows_per_block, lb.rows);
    float fd = float(lb.d);
    vec4 zero = vec4(0.0);

    vec4 pg[2] = vec4[2](zero, zero);
    vec4 pb[2] = vec4[2](zero, zero);

    for (uint r = row0; r < row_end; r = r + rpw * LEAN_R) {
        bool valid[LEAN_R];
        uint base[LEAN_R];
        float mean[LEAN_R];
        float rstd[LEAN_R];
        vec4 xv[LEAN_S];
        vec4 dv[LEAN_S];
        for (uint i = 0u; i < LEAN_R; i = i + 1u) {
            uint row = r + i * rpw + seg;
            valid[i] = row < row_end;
            uint rc = min(row, row_end - 1u);  // in range for idle segments too
            base[i] = rc * d4;
            mean[i] = lb_mean[rc];
            rstd[i] = lb_rstd[rc];
            for (uint k = 0u; k < LEAN_M; k = k + 1u) {
                uint c = min(lane + k * tpr, d4 - 1u);
                xv[i * LEAN_M + k] = lb_x[base[i] + c];
                dv[i * LEAN_M + k] = lb_dy[base[i] + c];
            }
        }
        vec4 gm[2];
        for (uint k = 0u; k < LEAN_M; k = k + 1u) {
            gm[k] = lb_gamma[min(lane + k * tpr, d4 - 1u)];
        }
        vec4 xh[LEAN_S];
        vec4 g[LEAN_S];
        for (uint i = 0u; i < LEAN_R; i = i + 1u) {
            vec4 s1 = zero;
            vec4 s2 = zero;
            for (uint k = 0u; k < LEAN_M; k = k + 1u) {
                uint q = i * LEAN_M + k;
                bool use_k = valid[i] && lane + k * tpr < d4;
                vec4 dyk = wgsl_select(zero, dv[q], use_k);
                xh[q] = wgsl_select(zero, (xv[q] - vec4(mean[i])) * rstd[i], use_k);
                g[q] = dyk * gm[k];
                pg[k] = pg[k] + dyk * xh[q];
                pb[k] = pb[k] + dyk;
                s1 = s1 + g[q];
                s2 = s2 + g[q] * xh[q];
            }
            lean_pair[i * 256u + tid] = vec2(hsum(s1), hsum(s2));
        }
        barrier();
        if (tid % 8u == 0u) {
            for (uint i = 0u; i < LEAN_R; i = i + 1u) {
                lean_group[i * 32u + tid / 8u] = lean_pair_tree8(i * 256u + tid);
            }
        }
        barrier();
        for (uint i = 0u; i < LEAN_R; i = i + 1u) {
            vec2 sums = lean_group[i * 32u + seg * gpr];
            for (uint t = 1u; t < gpr; t = t + 1u) {
                sums = sums + lean_group[i * 32u + seg * gpr + t];
            }
            float c1 = sums.x / fd;
            float c2 = sums.y / fd;
            if (valid[i]) {
                for (uint k = 0u; k < LEAN_M; k = k + 1u) {
                    uint j = lane + k * tpr;
                    if (j < d4) {
                        lb_dx[base[i] + j] = (g[i * LEAN_M + k] - vec4(c1) - xh[i * LEAN_M + k] * c2) * rstd[i];
                    }
                }
            }
        }
    }

    // Segments' partials, added in segment order by segment 0.
    uint out_base = block * 2u * d4;
    for (uint k = 0u; k < LEAN_M; k = k + 1u) {
        fb_v[tid] = pg[k];
        fb_w[tid] = pb[k];
        barrier();
        uint j = lane + k * tpr;
        if (seg == 0u && j < d4) {
            vec4 sg = fb_v[lane];
            vec4 sb = fb_w[lane];
            for (uint s = 1u; s < rpw; s = s + 1u) {
                sg = sg + fb_v[s * tpr + lane];
                sb = sb + fb_w[s * tpr + lane];
            }
            lb_partials[out_base + j] = sg;
            lb_partials[out_base + d4 + j] = sb;
        }
        barrier();
    }
}
