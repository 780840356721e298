// Shared by the norm_native.wgsl ports (wgslvk's own layernorm backward): the module-scope
// declarations and helper functions of the WGSL, line by line (LnParams, the workgroup arrays,
// hsum, lean_threads_per_row, the trees of 8).
#ifndef WGSLVK_NORM_NATIVE_COMMON
#define WGSLVK_NORM_NATIVE_COMMON

#define LN_PARAMS_FIELDS \
    uint rows;           \
    uint d;              \
    float eps;           \
    uint rows_per_block;

#define LEAN_M 2u
#define LEAN_R 1u  // rows per segment per row group step (the WGSL's LEAN_R)

shared vec4 fb_v[WG];
shared vec4 fb_w[WG];
shared vec2 lean_pair[256 * LEAN_R];  // per lane: (sum g, sum g xhat) of its columns
shared vec2 lean_group[32 * LEAN_R];  // per 8 lanes: the sum of their pairs

// var<workgroup> is zero-initialized in WGSL (R17)
void zero_native_shared(uint tid) {
    fb_v[tid] = vec4(0.0);
    fb_w[tid] = vec4(0.0);
    for (uint i = 0u; i < LEAN_R; i = i + 1u) {
        lean_pair[i * 256u + tid] = vec2(0.0);
        if (tid < 32u) { lean_group[i * 32u + tid] = vec2(0.0); }
    }
    barrier();
}

// WGSL integer division: x / 0 = x (R19).
uint wgsl_udiv(uint a, uint b) { return b == 0u ? a : a / b; }

float hsum(vec4 v) { return (v.x + v.y) + (v.z + v.w); }

uint lean_threads_per_row(uint d4) {
    uint t = 8u;
    for (;;) {
        if (t * LEAN_M >= d4 || t >= WG) { break; }
        t = t * 2u;
    }
    return t;
}

vec2 lean_pair_tree8(uint q) {
    return ((lean_pair[q] + lean_pair[q + 1u]) + (lean_pair[q + 2u] + lean_pair[q + 3u])) +
           ((lean_pair[q + 4u] + lean_pair[q + 5u]) + (lean_pair[q + 6u] + lean_pair[q + 7u]));
}

vec4 fb_v_tree8(uint q, uint st) {
    return ((fb_v[q] + fb_v[q + st]) + (fb_v[q + 2u * st] + fb_v[q + 3u * st])) +
           ((fb_v[q + 4u * st] + fb_v[q + 5u * st]) + (fb_v[q + 6u * st] + fb_v[q + 7u * st]));
}
vec4 fb_w_tree8(uint q, uint st) {
    return ((fb_w[q] + fb_w[q + st]) + (fb_w[q + 2u * st] + fb_w[q + 3u * st])) +
           ((fb_w[q + 4u * st] + fb_w[q + 5u * st]) + (fb_w[q + 6u * st] + fb_w[q + 7u * st]));
}

#endif
