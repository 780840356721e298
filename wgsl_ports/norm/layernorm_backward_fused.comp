// Port of layernorm_backward_fused, norm_native.wgsl (wgslvk's own kernel). Line-by-line; same
// group/binding/access as the WGSL.
//
// With NORM_PREFETCH=1 (a native-only measurement variant, `layernorm_backward_fused_prefetch`,
// ABI of layernorm_backward_fused, not in the WGSL): each segment's next row (x, dy, mean, rstd)
// is loaded into registers before the current row's barrier, so a workgroup keeps loads in
// flight while it waits. The arithmetic and its order are the same as the port's (same bounds).
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "norm_native_common.glsl"

#ifndef NORM_PREFETCH
#define NORM_PREFETCH 0
#endif

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
    uint tpr = threads_per_row(d4);
    uint rpw = WG / tpr;
    uint lane = tid % tpr;
    uint seg = tid / tpr;
    uint block = wid.y * nwg.x + wid.x;
    uint n_blocks = wgsl_udiv(lb.rows + lb.rows_per_block - 1u, lb.rows_per_block);
    if (block >= n_blocks) { return; }
    uint row0 = block * lb.rows_per_block;
    uint row_end = min(row0 + lb.rows_per_block, lb.rows);
    float fd = float(lb.d);

    vec4 pg[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    vec4 pb[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    uint buf = 0u;

#if NORM_PREFETCH
    vec4 nx[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    vec4 ndy[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    float nmean = 0.0;
    float nrstd = 0.0;
    {
        uint row = row0 + seg;
        if (row < row_end) {
            nmean = lb_mean[row];
            nrstd = lb_rstd[row];
            for (uint k = 0u; k < MAXV; k = k + 1u) {
                uint j = lane + k * tpr;
                if (j < d4) {
                    nx[k] = lb_x[row * d4 + j];
                    ndy[k] = lb_dy[row * d4 + j];
                }
            }
        }
    }
#endif

    for (uint r = row0; r < row_end; r = r + rpw) {
        uint row = r + seg;
        bool valid = row < row_end;
        uint base = row * d4;
#if NORM_PREFETCH
        float mean = nmean;
        float rstd = nrstd;
        vec4 cx[4] = nx;
        vec4 cdy[4] = ndy;
        {
            uint nrow = row + rpw;
            if (nrow < row_end) {
                nmean = lb_mean[nrow];
                nrstd = lb_rstd[nrow];
                for (uint k = 0u; k < MAXV; k = k + 1u) {
                    uint j = lane + k * tpr;
                    if (j < d4) {
                        nx[k] = lb_x[nrow * d4 + j];
                        ndy[k] = lb_dy[nrow * d4 + j];
                    }
                }
            }
        }
#else
        float mean = 0.0;
        float rstd = 0.0;
        if (valid) {
            mean = lb_mean[row];
            rstd = lb_rstd[row];
        }
#endif
        vec4 xh[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        vec4 dy[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        vec4 s1 = vec4(0.0);
        vec4 s2 = vec4(0.0);
        for (uint k = 0u; k < MAXV; k = k + 1u) {
            uint j = lane + k * tpr;
            if (valid && j < d4) {
#if NORM_PREFETCH
                xh[k] = (cx[k] - vec4(mean)) * rstd;
                dy[k] = cdy[k];
#else
                xh[k] = (lb_x[base + j] - vec4(mean)) * rstd;
                dy[k] = lb_dy[base + j];
#endif
                vec4 g = dy[k] * lb_gamma[j];
                s1 = s1 + g;
                s2 = s2 + g * xh[k];
            }
        }
        fb_sum[buf * WG + tid] = vec2(hsum(s1), hsum(s2));
        barrier();
        vec2 sums = seg_sum8(buf * WG + seg * tpr, tpr);
        buf = 1u - buf;
        float c1 = sums.x / fd;
        float c2 = sums.y / fd;
        for (uint k = 0u; k < MAXV; k = k + 1u) {
            uint j = lane + k * tpr;
            if (valid && j < d4) {
                vec4 g = dy[k] * lb_gamma[j];
                lb_dx[base + j] = (g - vec4(c1) - xh[k] * c2) * rstd;
                pg[k] = pg[k] + dy[k] * xh[k];
                pb[k] = pb[k] + dy[k];
            }
        }
    }

    // Segments' partials, added in segment order by segment 0.
    uint out_base = block * 2u * d4;
    for (uint k = 0u; k < MAXV; k = k + 1u) {
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
