// Shared by the 04_norm.wgsl ports: the module-scope declarations and helper functions of the
// WGSL, line by line (threads_per_row, seg_reduce2, hsum; LnParams; the workgroup arrays).
#ifndef WGSLVK_LAYERNORM_COMMON
#define WGSLVK_LAYERNORM_COMMON

#define LN_PARAMS_FIELDS \
    uint rows;           \
    uint d;              \
    float eps;           \
    uint rows_per_block;

shared float sh_a[WG];
shared float sh_b[WG];

// var<workgroup> is zero-initialized in WGSL (R17)
void zero_shared_ab(uint tid) {
    sh_a[tid] = 0.0;
    sh_b[tid] = 0.0;
    barrier();
}

#define MAXV 4u  // vec4 columns per lane: d <= 4 * 256 * MAXV = 4096

uint threads_per_row(uint d4) {
    uint t = 8u;
    for (;;) {
        if (t * MAXV >= d4 || t >= WG) { break; }
        t = t * 2u;
    }
    return t;
}

vec2 seg_reduce2(uint tid, uint lane, uint tpr) {
    barrier();
    uint s = tpr / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (lane < s) {
            sh_a[tid] = sh_a[tid] + sh_a[tid + s];
            sh_b[tid] = sh_b[tid] + sh_b[tid + s];
        }
        barrier();
        s = s >> 1u;
    }
    vec2 r = vec2(sh_a[tid - lane], sh_b[tid - lane]);
    barrier();  // every segment has read before sh_a / sh_b are written again
    return r;
}

float hsum(vec4 v) { return (v.x + v.y) + (v.z + v.w); }

#endif
