// Port of matmul_native, matmul_native.wgsl: wgslvk's own kernel, not from the browser engine
// (a tuned fp32 GEMM for the family of shared/seeds/004_dfbf477a7f89ef8c.txt). Line-by-line;
// same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer NA { vec4 na[]; };
layout(set = 0, binding = 1, std430) readonly buffer NB { vec4 nb[]; };
layout(set = 0, binding = 2, std430) buffer NC { float nc[]; };
layout(set = 0, binding = 3, std430) readonly buffer NBias { float nbias[]; };
layout(set = 0, binding = 4, std140) uniform NDims { uvec4 ndims; };  // (M, N, K, flags)

uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ADD_BIAS = 4u;
const uint ACCUMULATE = 8u;

const uint NT = 128u;
const uint NK = 8u;
// Zero-initialized in WGSL (R17); every element of a stage is written before it is read.
shared vec4 sa[512];
shared vec4 sb[512];

vec4 native_load_a(uint lid, uint row0, uint k0) {
    uint M = ndims.x;
    uint K = ndims.z;
    if ((ndims.w & TRANS_A) != 0u) {
        uint k = k0 + lid / 32u;
        uint m = row0 + (lid % 32u) * 4u;
        if (k < K && m < M) { return na[(k * M + m) / 4u]; }
    } else {
        uint m = row0 + lid / 2u;
        uint k = k0 + (lid % 2u) * 4u;
        if (m < M && k < K) { return na[(m * K + k) / 4u]; }
    }
    return vec4(0.0);
}

vec4 native_load_b(uint lid, uint col0, uint k0) {
    uint N = ndims.y;
    uint K = ndims.z;
    if ((ndims.w & TRANS_B) != 0u) {
        uint n = col0 + lid / 2u;
        uint k = k0 + (lid % 2u) * 4u;
        if (n < N && k < K) { return nb[(n * K + k) / 4u]; }
    } else {
        uint k = k0 + lid / 32u;
        uint n = col0 + (lid % 32u) * 4u;
        if (k < K && n < N) { return nb[(k * N + n) / 4u]; }
    }
    return vec4(0.0);
}

void native_store_stage(uint lid, uint s, vec4 va, vec4 vb) {
    uint base = s * 256u;
    if ((ndims.w & TRANS_A) != 0u) {
        sa[base + (lid / 32u) * 32u + lid % 32u] = va;
    } else {
        uint m = lid / 2u;
        uint k = (lid % 2u) * 4u;
        for (uint q = 0u; q < 4u; q = q + 1u) {
            sa[base + (k + q) * 32u + m / 4u][m % 4u] = va[q];
        }
    }
    if ((ndims.w & TRANS_B) != 0u) {
        uint n = lid / 2u;
        uint k = (lid % 2u) * 4u;
        for (uint q = 0u; q < 4u; q = q + 1u) {
            sb[base + (k + q) * 32u + n / 4u][n % 4u] = vb[q];
        }
    } else {
        sb[base + (lid / 32u) * 32u + lid % 32u] = vb;
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = ndims.x;
    uint N = ndims.y;
    uint K = ndims.z;
    uint lda = wgsl_select(K, M, (ndims.w & TRANS_A) != 0u);
    uint ldb = wgsl_select(N, K, (ndims.w & TRANS_B) != 0u);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    uint tiles_n = (N + NT - 1u) / NT;
    uint tiles_m = (M + NT - 1u) / NT;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * NT;
    uint col0 = (tile % tiles_n) * NT;
    uint ty = lid / 16u;
    uint tx = lid % 16u;

    vec4 acc[16];
    for (uint i = 0u; i < 16u; i = i + 1u) { acc[i] = vec4(0.0); }  // WGSL `var` is zero-initialized
    uint steps = (K + NK - 1u) / NK;
    vec4 va = native_load_a(lid, row0, 0u);
    vec4 vb = native_load_b(lid, col0, 0u);
    native_store_stage(lid, 0u, va, vb);
    barrier();
    for (uint t = 0u; t < steps; t = t + 1u) {
        uint cur = t & 1u;
        bool more = t + 1u < steps;
        if (more) {
            va = native_load_a(lid, row0, (t + 1u) * NK);
            vb = native_load_b(lid, col0, (t + 1u) * NK);
        }
        uint base = cur * 256u;
        for (uint k = 0u; k < NK; k = k + 1u) {
            vec4 a0 = sa[base + k * 32u + ty];
            vec4 a1 = sa[base + k * 32u + 16u + ty];
            vec4 b0 = sb[base + k * 32u + tx];
            vec4 b1 = sb[base + k * 32u + 16u + tx];
            for (uint r = 0u; r < 4u; r = r + 1u) {
                acc[r * 2u] = fma(vec4(a0[r]), b0, acc[r * 2u]);
                acc[r * 2u + 1u] = fma(vec4(a0[r]), b1, acc[r * 2u + 1u]);
                acc[(r + 4u) * 2u] = fma(vec4(a1[r]), b0, acc[(r + 4u) * 2u]);
                acc[(r + 4u) * 2u + 1u] = fma(vec4(a1[r]), b1, acc[(r + 4u) * 2u + 1u]);
            }
        }
        if (more) { native_store_stage(lid, 1u - cur, va, vb); }
        barrier();
    }

    bool add_bias = (ndims.w & ADD_BIAS) != 0u;
    bool accumulate = (ndims.w & ACCUMULATE) != 0u;
    for (uint r = 0u; r < 8u; r = r + 1u) {
        uint row = row0 + (r / 4u) * 64u + ty * 4u + r % 4u;
        if (row >= M) { continue; }
        for (uint h = 0u; h < 2u; h = h + 1u) {
            vec4 v = acc[r * 2u + h];
            for (uint q = 0u; q < 4u; q = q + 1u) {
                uint col = col0 + h * 64u + tx * 4u + q;
                if (col < N) {
                    float o = v[q];
                    if (add_bias) { o = o + nbias[col]; }
                    uint idx = row * N + col;
                    if (accumulate) { o = nc[idx] + o; }
                    nc[idx] = o;
                }
            }
        }
    }
}
