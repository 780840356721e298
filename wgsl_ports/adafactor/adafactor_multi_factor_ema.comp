// Port of adafactor_multi_factor_ema, adafactor_multi.wgsl: wgslvk's own batched kernel (issue 13; the WGSL's header has
// the table, the tensor lookup and why the step is bitwise the per-tensor one), the body of
// adafactor.wgsl's adafactor_factor_ema for the workgroup's tensor. Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_multi_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MfTab { AfTensor mf_tab[]; };
layout(set = 0, binding = 1, std140) uniform MfHp { AF_HP_FIELDS } mf_hp;
layout(set = 0, binding = 2, std430) readonly buffer MfPart { float mf_part[]; };
layout(set = 0, binding = 3, std430) buffer MfState { float mf_state[]; };
layout(set = 0, binding = 4, std430) buffer MfFac { float mf_fac[]; };

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    uint lw = wid.y * nwg.x + wid.x;
    uint lo = 0u;
    uint hi = uint(mf_tab.length());
    for (;;) {
        if (hi - lo <= 1u) { break; }
        uint mid = (lo + hi) / 2u;
        if (mf_tab[mid].wg_b <= lw) { lo = mid; } else { hi = mid; }
    }
    AfTensor t = mf_tab[lo];
    uint i = (lw - t.wg_b) * WG + tid;
    uint rows = t.rows;
    uint cols = t.cols;
    if (i < rows) {
        float s = 0.0;
        for (uint b = 0u; b < t.nbx; b = b + 1u) {
            s = s + mf_part[t.row_part + b * rows + i];
        }
        float mean = s / float(cols);
        mf_state[t.s0 + i] = lerp_t(mf_state[t.s0 + i], mean, mf_hp.beta_w);
    } else if (i < rows + cols) {
        uint j = i - rows;
        float s = 0.0;
        for (uint b = 0u; b < t.nby; b = b + 1u) {
            s = s + mf_part[t.col_part + b * cols + j];
        }
        float mean = s / float(rows);
        float cv = lerp_t(mf_state[t.s1 + j], mean, mf_hp.beta_w);
        mf_state[t.s1 + j] = cv;
        mf_fac[t.rc + j] = inversesqrt(max(cv, TINY));
    }
}
