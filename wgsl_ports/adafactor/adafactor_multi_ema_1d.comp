// Port of adafactor_multi_ema_1d, adafactor_multi.wgsl: wgslvk's own batched kernel (issue 13; the WGSL's header has
// the table, the tensor lookup and why the step is bitwise the per-tensor one), the body of
// adafactor.wgsl's adafactor_ema_1d (grid stride: the tensor's nparts workgroups) for the workgroup's tensor. Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_multi_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MeTab { AfTensor me_tab[]; };
layout(set = 0, binding = 1, std140) uniform MeHp { AF_HP_FIELDS } me_hp;
layout(set = 0, binding = 2, std430) readonly buffer MeG { float me_g[]; };
layout(set = 0, binding = 3, std430) readonly buffer MeW { float me_w[]; };
layout(set = 0, binding = 4, std430) buffer MeState { float me_state[]; };
layout(set = 0, binding = 5, std430) buffer MePart { float me_part[]; };

shared float sh_red[WG];
shared float sh_red2[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    sh_red2[tid] = 0.0;
    barrier();

    uint lw = wid.y * nwg.x + wid.x;
    uint lo = 0u;
    uint hi = uint(me_tab.length());
    for (;;) {
        if (hi - lo <= 1u) { break; }
        uint mid = (lo + hi) / 2u;
        if (me_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    AfTensor t = me_tab[lo];
    uint lt = lw - t.wg_a;
    if (lt >= t.nparts) { return; }

    bool use_p = me_hp.scale_param != 0.0;
    uint grid_size = t.nparts * WG;
    float acc = 0.0;
    float pacc = 0.0;
    uint i = lt * WG + tid;
    for (;;) {
        if (i >= t.n) { break; }
        float g = fin(me_g[t.w + i]);
        float v = lerp_t(me_state[t.s0 + i], g * g, me_hp.beta_w);
        me_state[t.s0 + i] = v;
        float u = g * inversesqrt(max(v, me_hp.eps1_sq));
        acc = acc + u * u;
        if (use_p) {
            float p = me_w[t.w + i];
            pacc = pacc + p * p;
        }
        i = i + grid_size;
    }
    sh_red[tid] = acc;
    sh_red2[tid] = pacc;
    barrier();
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) {
            sh_red[tid] = sh_red[tid] + sh_red[tid + s];
            sh_red2[tid] = sh_red2[tid] + sh_red2[tid + s];
        }
        barrier();
        s = s >> 1u;
    }
    if (tid == 0u) {
        me_part[t.rms_part + lt] = sh_red[0];
        if (use_p) { me_part[t.p_part + lt] = sh_red2[0]; }
    }
}
