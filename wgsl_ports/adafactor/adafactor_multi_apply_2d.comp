// Port of adafactor_multi_apply_2d, adafactor_multi.wgsl: wgslvk's own batched kernel (issue 13; the WGSL's header has
// the table, the tensor lookup and why the step is bitwise the per-tensor one), the body of
// adafactor.wgsl's adafactor_apply_2d for the workgroup's tensor. Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"
#include "adafactor_multi_common.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MaTab { AfTensor ma_tab[]; };
layout(set = 0, binding = 1, std140) uniform MaHp { AF_HP_FIELDS } ma_hp;
layout(set = 0, binding = 2, std430) buffer MaW { float ma_w[]; };
layout(set = 0, binding = 3, std430) readonly buffer MaG { float ma_g[]; };
layout(set = 0, binding = 4, std430) readonly buffer MaFac { float ma_fac[]; };
layout(set = 0, binding = 5, std430) readonly buffer MaPart { float ma_part[]; };

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
    uint hi = uint(ma_tab.length());
    for (;;) {
        if (hi - lo <= 1u) { break; }
        uint mid = (lo + hi) / 2u;
        if (ma_tab[mid].wg_a <= lw) { lo = mid; } else { hi = mid; }
    }
    AfTensor t = ma_tab[lo];
    uint lt = lw - t.wg_a;
    if (lt >= t.nbx * t.nby) { return; }
    uint bx = lt % t.nbx;
    uint by = lt / t.nbx;

    bool use_p = ma_hp.scale_param != 0.0;
    float su = 0.0;
    float sp = 0.0;
    for (uint k = tid; k < t.nparts; k = k + WG) {
        su = su + ma_part[t.rms_part + k];
        if (use_p) { sp = sp + ma_part[t.p_part + k]; }
    }
    sh_red[tid] = su;
    sh_red2[tid] = sp;
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
    float nf = float(t.n);
    float denom = max(1.0, sqrt(sh_red[0] / nf) / ma_hp.d);
    float alpha = ma_hp.rho;
    if (use_p) { alpha = alpha * max(ma_hp.eps2, sqrt(sh_red2[0] / nf)); }
    float step_ = alpha / denom;
    float decay = wgsl_select(1.0, ma_hp.decay, t.decay_on != 0u);

    uint rows = t.rows;
    uint cols = t.cols;
    uint c = bx * WC + tid;
    uint r0 = by * WR;
    if (c < cols) {
        float fc = ma_fac[t.rc + c];
        for (uint k = 0u; k < WR; k = k + 1u) {
            uint r = r0 + k;
            if (r >= rows) { break; }
            uint i = t.w + r * cols + c;
            float g = fin(ma_g[i]);
            float u = g * min(ma_fac[t.rr + r] * fc, ma_hp.inv_eps1);
            float wd = ma_w[i] * decay;
            ma_w[i] = wd - step_ * u;
        }
    }
}
