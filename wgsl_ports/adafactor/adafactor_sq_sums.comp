// Port of adafactor_sq_sums, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "Phase 1: Row/col reduction kernels", fused into one
// pass). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer SqG { float sq_g[]; };
layout(set = 0, binding = 1, std430) readonly buffer SqW { float sq_w[]; };
layout(set = 0, binding = 2, std430) buffer SqRowPart { float sq_row_part[]; };  // [nbx][R]
layout(set = 0, binding = 3, std430) buffer SqColPart { float sq_col_part[]; };  // [nby][C]
layout(set = 0, binding = 4, std430) buffer SqPPart { float sq_p_part[]; };      // [nby * nbx]
layout(set = 0, binding = 5, std140) uniform SqDims { AF_DIMS_FIELDS } sq_dims;
layout(set = 0, binding = 6, std140) uniform SqHp { AF_HP_FIELDS } sq_hp;

shared float sh_tile[2048];  // SR x TX
shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    // var<workgroup> is zero-initialized in WGSL (R17)
    for (uint z = tid; z < 2048u; z += WG) { sh_tile[z] = 0.0; }
    sh_red[tid] = 0.0;
    barrier();

    uint rows = sq_dims.rows;
    uint cols = sq_dims.cols;
    uint tx = tid % TX;
    uint ty = tid / TX;
    uint c0 = wid.x * WC;
    uint r0 = wid.y * WR;
    bool use_p = sq_hp.scale_param != 0.0;
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
                    uint i = r * cols + c;
                    float g = fin(sq_g[i]);
                    v = g * g;
                    if (use_p) {
                        float p = sq_w[i];
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
            if (r < rows) { sq_row_part[wid.x * rows + r] = s; }
        }
        barrier();
    }
    for (uint cb = 0u; cb < WC / TX; cb = cb + 1u) {
        sh_red[tid] = col_acc[cb];
        barrier();
        if (tid < TX) {
            float s = (sh_red[tid] + sh_red[TX + tid]) + (sh_red[2u * TX + tid] + sh_red[3u * TX + tid]);
            uint c = c0 + cb * TX + tid;
            if (c < cols) { sq_col_part[wid.y * cols + c] = s; }
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
        if (tid == 0u) { sq_p_part[wid.y * sq_dims.nbx + wid.x] = sh_red[0]; }
    }
}
