// Shared by the norm_native.wgsl ports (wgslvk's own layernorm backward): the module-scope
// declarations and helper functions of the WGSL, line by line (LnParams, the workgroup arrays,
// threads_per_row, hsum, seg_sum8).
#ifndef WGSLVK_NORM_NATIVE_COMMON
#define WGSLVK_NORM_NATIVE_COMMON

#define LN_PARAMS_FIELDS \
    uint rows;           \
    uint d;              \
    float eps;           \
    uint rows_per_block;

#define MAXV 4u

shared vec2 fb_sum[512];  // 2 buffers x 256 lanes: (s1, s2)
shared vec4 fb_v[WG];
shared vec4 fb_w[WG];

// var<workgroup> is zero-initialized in WGSL (R17)
void zero_native_shared(uint tid) {
    fb_sum[tid] = vec2(0.0);
    fb_sum[tid + WG] = vec2(0.0);
    fb_v[tid] = vec4(0.0);
    fb_w[tid] = vec4(0.0);
    barrier();
}

// WGSL integer division: x / 0 = x (R19).
uint wgsl_udiv(uint a, uint b) { return b == 0u ? a : a / b; }

uint threads_per_row(uint d4) {
    uint t = 8u;
    for (;;) {
        if (t * MAXV >= d4 || t >= WG) { break; }
        t = t * 2u;
    }
    return t;
}

float hsum(vec4 v) { return (v.x + v.y) + (v.z + v.w); }

vec2 seg_sum8(uint p0, uint tpr) {
    vec2 a0 = vec2(0.0);
    vec2 a1 = vec2(0.0);
    vec2 a2 = vec2(0.0);
    vec2 a3 = vec2(0.0);
    vec2 a4 = vec2(0.0);
    vec2 a5 = vec2(0.0);
    vec2 a6 = vec2(0.0);
    vec2 a7 = vec2(0.0);
    for (uint i = 0u; i < tpr; i = i + 8u) {
        uint p = p0 + i;
        a0 = a0 + fb_sum[p];
        a1 = a1 + fb_sum[p + 1u];
        a2 = a2 + fb_sum[p + 2u];
        a3 = a3 + fb_sum[p + 3u];
        a4 = a4 + fb_sum[p + 4u];
        a5 = a5 + fb_sum[p + 5u];
        a6 = a6 + fb_sum[p + 6u];
        a7 = a7 + fb_sum[p + 7u];
    }
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

#endif
