// Port of adafactor_factor_ema, adafactor.wgsl: wgslvk's own kernel, not from the browser engine
// (forgather's Triton Adafactor notes, "Phase 2: EMA state update", "Precompute ... rsqrt").
// Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer FeRowPart { float fe_row_part[]; };
layout(set = 0, binding = 1, std430) readonly buffer FeColPart { float fe_col_part[]; };
layout(set = 0, binding = 2, std430) buffer FeRowVar { float fe_row_var[]; };
layout(set = 0, binding = 3, std430) buffer FeColVar { float fe_col_var[]; };
layout(set = 0, binding = 4, std430) buffer FeRc { float fe_rc[]; };
layout(set = 0, binding = 5, std140) uniform FeDims { AF_DIMS_FIELDS } fe_dims;
layout(set = 0, binding = 6, std140) uniform FeHp { AF_HP_FIELDS } fe_hp;

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint rows = fe_dims.rows;
    uint cols = fe_dims.cols;
    if (i < rows) {
        float s = 0.0;
        for (uint b = 0u; b < fe_dims.nbx; b = b + 1u) {
            s = s + fe_row_part[b * rows + i];
        }
        float mean = s / float(cols);
        fe_row_var[i] = lerp_t(fe_row_var[i], mean, fe_hp.beta_w);
    } else if (i < rows + cols) {
        uint j = i - rows;
        float s = 0.0;
        for (uint b = 0u; b < fe_dims.nby; b = b + 1u) {
            s = s + fe_col_part[b * cols + j];
        }
        float mean = s / float(rows);
        float cv = lerp_t(fe_col_var[j], mean, fe_hp.beta_w);
        fe_col_var[j] = cv;
        fe_rc[j] = inversesqrt(max(cv, TINY));
    }
}
