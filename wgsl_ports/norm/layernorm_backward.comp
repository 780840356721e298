// Port of layernorm_backward, 04_norm.wgsl (wgslvk's reconstruction for the GPT block of
// TinyGPT's engineering log). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "layernorm_common.glsl"

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

shared vec4 sh_v[WG];
shared vec4 sh_w[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_v[tid] = vec4(0.0);
    sh_w[tid] = vec4(0.0);
    zero_shared_ab(tid);
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint d4 = lb.d / 4u;
    uint tpr = threads_per_row(d4);
    uint rpw = WG / tpr;
    uint lane = tid % tpr;
    uint seg = tid / tpr;
    uint block = wid.y * nwg.x + wid.x;
    uint n_blocks = (lb.rows + lb.rows_per_block - 1u) / lb.rows_per_block;
    if (block >= n_blocks) { return; }
    uint row0 = block * lb.rows_per_block;
    uint row_end = min(row0 + lb.rows_per_block, lb.rows);
    float fd = float(lb.d);

    vec4 pg[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    vec4 pb[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));

    for (uint r = row0; r < row_end; r = r + rpw) {
        uint row = r + seg;
        bool valid = row < row_end;
        uint base = row * d4;
        float mean = 0.0;
        float rstd = 0.0;
        if (valid) {
            mean = lb_mean[row];
            rstd = lb_rstd[row];
        }
        vec4 xh[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        vec4 dy[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        vec4 s1 = vec4(0.0);
        vec4 s2 = vec4(0.0);
        for (uint k = 0u; k < MAXV; k = k + 1u) {
            uint j = lane + k * tpr;
            if (valid && j < d4) {
                xh[k] = (lb_x[base + j] - vec4(mean)) * rstd;
                dy[k] = lb_dy[base + j];
                vec4 g = dy[k] * lb_gamma[j];
                s1 = s1 + g;
                s2 = s2 + g * xh[k];
            }
        }
        sh_a[tid] = hsum(s1);
        sh_b[tid] = hsum(s2);
        vec2 sums = seg_reduce2(tid, lane, tpr);
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
        sh_v[tid] = pg[k];
        sh_w[tid] = pb[k];
        barrier();
        uint j = lane + k * tpr;
        if (seg == 0u && j < d4) {
            vec4 sg = sh_v[lane];
            vec4 sb = sh_w[lane];
            for (uint s = 1u; s < rpw; s = s + 1u) {
                sg = sg + sh_v[s * tpr + lane];
                sb = sb + sh_w[s * tpr + lane];
            }
            lb_partials[out_base + j] = sg;
            lb_partials[out_base + d4 + j] = sb;
        }
        barrier();
    }
}
