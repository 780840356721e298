// Port of adafactor_multi_sq_sums, adafactor_multi.wgsl: wgslvk's own batched kernel (issue 13; the WGSL's header has
// the table, the tensor lookup and why the step is bitwise the per-tensor one), the body of
// adafactor.wgsl's adafactor_sq_sums for the workgroup's tensor. Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_multi_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MsTab { AfTensor ms_tab[]; };
layout(set = 0, binding = 1, std140) uniform MsHp { AF_HP_FIELDS } ms_hp;
layout(set = 0, binding = 2, std430) readonly buffer MsG { float ms_g[]; };
layout(set = 0, binding = 3, std430) readonly buffer MsW { float ms_w[]; };
layout(set = 0, binding = 4, std430) buffer MsPart { float ms_part[]; };

shared float sh_tile[2048];
shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    // var<workgroup> is zero-initialized in WGSL (R17)
    for (uint z = tid; z < 2048u; z += WG) { sh_tile[z] = 0.0; }
    sh_red[tid] = 0.0;
    barrier();

    uint lw = wid.y * nwg.x + wid.x;
    uint lo = 0u;
    uint hi = uint(ms_tab.length());
    for (;;) {
        if (hi - lo <= 1u) { break; }
        uint mid = (lo + hi) / 2u;
        if (ms_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    AfTensor t = ms_tab[lo];
    uint lt = lw - t.wg_a;
    if (lt >= t.nbx * t.nby) { return; }
    uint bx = lt % t.nbx;
    uint by = lt / t.nbx;

    uint rows = t.rows;
    uint cols = t.cols;
    uint tx = tid % TX;
    uint ty = tid / TX;
    uint c0 = bx * WC;
    uint r0 = by * WR;
    bool use_p = ms_hp.scale_param != 0.0;
    uint lane_row = tid / 8u;
    uint seg = tid % 8u;
    vec4 col_acc = vec4(0.0);
    float p_acc = 0.0;
    for (uint rb = 0u; rb < WR / SR; rb = rb + 1u) {
        float row_acc = 0.0;
        for (uint cb = 0u; cb < WC / TX; cb = cb + 1u) {
            uint c = c0 + cb * TX + tx;
            float part = 0.0;
            for (uint k = 0u; k < SR / TY; k = k + 1u) {
                uint lr = k * TY + ty;
                uint r = r0 + rb * SR + lr;
                float v = 0.0;
                if (r < rows && c < cols) {
                    uint i = t.w + r * cols + c;
                    float g = fin(ms_g[i]);
                    v = g * g;
                    if (use_p) {
                        float p = ms_w[i];
                        p_acc = p_acc + p * p;
                    }
                }
                sh_tile[lr * TX + tx] = v;
                part = part + v;
            }
            col_acc[cb] = col_acc[cb] + part;
            barrier();
            float s = 0.0;
            for (uint j = 0u; j < 8u; j = j + 1u) {
                s = s + sh_tile[lane_row * TX + seg * 8u + j];
            }
            row_acc = row_acc + s;
            barrier();
        }
        sh_red[tid] = row_acc;
        barrier();
        if (tid < SR) {
            float s = 0.0;
            for (uint j = 0u; j < 8u; j = j + 1u) {
                s = s + sh_red[tid * 8u + j];
            }
            uint r = r0 + rb * SR + tid;
            if (r < rows) { ms_part[t.row_part + bx * rows + r] = s; }
        }
        barrier();
    }
    for (uint cb = 0u; cb < WC / TX; cb = cb + 1u) {
        sh_red[tid] = col_acc[cb];
        barrier();
        if (tid < TX) {
            float s = (sh_red[tid] + sh_red[TX + tid]) + (sh_red[2u * TX + tid] + sh_red[3u * TX + tid]);
            uint c = c0 + cb * TX + tid;
            if (c < cols) { ms_part[t.col_part + by * cols + c] = s; }
        }
        barrier();
    }
    if (use_p) {
        sh_red[tid] = p_acc;
        barrier();
        uint s = WG / 2u;
        for (;;) {
            if (s == 0u) { break; }
            if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
            barrier();
            s = s >> 1u;
        }
        if (tid == 0u) { ms_part[t.p_part + by * t.nbx + bx] = sh_red[0]; }
    }
}
