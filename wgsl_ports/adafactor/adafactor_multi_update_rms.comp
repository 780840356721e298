// Port of adafactor_multi_update_rms, adafactor_multi.wgsl: wgslvk's own batched kernel (issue 13; the WGSL's header has
// the table, the tensor lookup and why the step is bitwise the per-tensor one), the body of
// adafactor.wgsl's adafactor_update_rms for the workgroup's tensor. Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_multi_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MuTab { AfTensor mu_tab[]; };
layout(set = 0, binding = 1, std140) uniform MuHp { AF_HP_FIELDS } mu_hp;
layout(set = 0, binding = 2, std430) readonly buffer MuG { float mu_g[]; };
layout(set = 0, binding = 3, std430) readonly buffer MuFac { float mu_fac[]; };
layout(set = 0, binding = 4, std430) buffer MuPart { float mu_part[]; };

shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec3 wid = gl_WorkGroupID;
    uvec3 nwg = gl_NumWorkGroups;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    barrier();

    uint lw = wid.y * nwg.x + wid.x;
    uint lo = 0u;
    uint hi = uint(mu_tab.length());
    for (;;) {
        if (hi - lo <= 1u) { break; }
        uint mid = (lo + hi) / 2u;
        if (mu_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    AfTensor t = mu_tab[lo];
    uint lt = lw - t.wg_a;
    if (lt >= t.nbx * t.nby) { return; }
    uint bx = lt % t.nbx;
    uint by = lt / t.nbx;

    uint rows = t.rows;
    uint cols = t.cols;
    uint c = bx * WC + tid;
    uint r0 = by * WR;
    float acc = 0.0;
    if (c < cols) {
        float fc = mu_fac[t.rc + c];
        for (uint k = 0u; k < WR; k = k + 1u) {
            uint r = r0 + k;
            if (r >= rows) { break; }
            float g = fin(mu_g[t.w + r * cols + c]);
            float u = g * min(mu_fac[t.rr + r] * fc, mu_hp.inv_eps1);
            acc = acc + u * u;
        }
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
    if (tid == 0u) { mu_part[t.rms_part + by * t.nbx + bx] = sh_red[0]; }
}
