// Port of adafactor_multi_row_rsqrt, adafactor_multi.wgsl: wgslvk's own batched kernel (issue 13; the WGSL's header has
// the table, the tensor lookup and why the step is bitwise the per-tensor one), the body of
// adafactor.wgsl's adafactor_row_rsqrt (workgroup k: 2-D tensor k) for the workgroup's tensor. Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_multi_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MrTab { AfTensor mr_tab[]; };
layout(set = 0, binding = 1, std140) uniform MrHp { AF_HP_FIELDS } mr_hp;
layout(set = 0, binding = 2, std430) readonly buffer MrState { float mr_state[]; };
layout(set = 0, binding = 3, std430) buffer MrFac { float mr_fac[]; };

shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    barrier();

    uint k = wid.y * nwg.x + wid.x;
    if (k >= uint(mr_tab.length())) { return; }
    AfTensor t = mr_tab[k];
    uint rows = t.rows;
    float acc = 0.0;
    for (uint q = tid; q < rows; q = q + WG) {
        acc = acc + mr_state[t.s0 + q];
    }
    sh_red[tid] = acc;
    barrier();
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
        barrier();
        s = s >> 1u;
    }
    float mean = sh_red[0] / float(rows);
    float denom = max(mean, mr_hp.eps1);
    for (uint q = tid; q < rows; q = q + WG) {
        mr_fac[t.rr + q] = inversesqrt(max(mr_state[t.s0 + q] / denom, TINY));
    }
}
