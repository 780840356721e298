// Measurement-only body of the wide-invocation sweep (issue 23, session 14; README.md here):
// matmul_native's algorithm, ABI, fma order and epilogue with 8 x 16 outputs per invocation
// (W_TM * W_TN / 128 invocations: rows ty*4.. and W_TM/2 + ty*4..; columns tx*4 + J*W_TN/4..,
// J = 0..3). sweep.py --wide writes one .comp per blocking (#version, the defines, then #include
// this). W_TM, W_TN: output tile; W_BK: K per stage; W_STAGES: 2 (double-buffered workgroup memory,
// one barrier per stage) or 1 (one buffer, two barriers); W_STAGES * W_BK * (W_TM + W_TN) * 4
// bytes of workgroup memory (<= 16 KB). w128x64_k8_s2 was briefly a shipped kernel,
// matmul_native_w (7865932): slower than matmul_native_k16 at every gpt110m product and in the
// trainer (bench/results/h200-2026-11-27p-wide).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define WG (W_TM * W_TN / 128)  // invocations of 8 x 16 outputs
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

const uint WM = W_TM;                // output tile rows
const uint WN = W_TN;                // output tile columns
const uint WK = W_BK;                // K per stage
const uint WS = W_STAGES;            // 2: double-buffered, one barrier per stage; 1: two
const uint WWG = WM * WN / 128u;     // invocations
const uint WMV = WM / 4u;            // vec4 per k row of the A tile
const uint WNV = WN / 4u;            // vec4 per k row of the B tile
const uint WTX = WN / 16u;           // invocations along a row of the tile
// Zero-initialized in WGSL (R17); every element is written before it is read in each stage.
shared vec4 wa[WS * WK * WMV];  // [stage][k][WM / 4 vec4 along the rows]
shared vec4 wb[WS * WK * WNV];  // [stage][k][WN / 4 vec4 along the columns]

// vec4 i (0..WK*WMV) of the WM x WK A tile at k0.
vec4 w_load_a(uint i, uint row0, uint k0) {
    uint M = ndims.x;
    uint K = ndims.z;
    if ((ndims.w & TRANS_A) != 0u) {  // stored [K, M]: 4 rows m of one k
        uint k = k0 + i / WMV;
        uint m = row0 + (i % WMV) * 4u;
        if (k < K && m < M) { return na[(k * M + m) / 4u]; }
    } else {                          // stored [M, K]: 4 k of one row m
        uint m = row0 + i / (WK / 4u);
        uint k = k0 + (i % (WK / 4u)) * 4u;
        if (m < M && k < K) { return na[(m * K + k) / 4u]; }
    }
    return vec4(0.0);
}

// vec4 i (0..WK*WNV) of the WK x WN B tile at k0.
vec4 w_load_b(uint i, uint col0, uint k0) {
    uint N = ndims.y;
    uint K = ndims.z;
    if ((ndims.w & TRANS_B) != 0u) {  // stored [N, K]: 4 k of one column n
        uint n = col0 + i / (WK / 4u);
        uint k = k0 + (i % (WK / 4u)) * 4u;
        if (n < N && k < K) { return nb[(n * K + k) / 4u]; }
    } else {                          // stored [K, N]: 4 columns n of one k
        uint k = k0 + i / WNV;
        uint n = col0 + (i % WNV) * 4u;
        if (k < K && n < N) { return nb[(k * N + n) / 4u]; }
    }
    return vec4(0.0);
}

// Writes vec4 i of the A tile (as loaded) into stage s of wa as [k][row].
void w_store_a(uint i, uint s, vec4 v) {
    uint base = s * WK * WMV;
    if ((ndims.w & TRANS_A) != 0u) {
        wa[base + i] = v;
    } else {
        uint m = i / (WK / 4u);
        uint k = (i % (WK / 4u)) * 4u;
        wa[base + k * WMV + m / 4u][m % 4u] = v.x;
        wa[base + (k + 1u) * WMV + m / 4u][m % 4u] = v.y;
        wa[base + (k + 2u) * WMV + m / 4u][m % 4u] = v.z;
        wa[base + (k + 3u) * WMV + m / 4u][m % 4u] = v.w;
    }
}

// Writes vec4 i of the B tile (as loaded) into stage s of wb as [k][column].
void w_store_b(uint i, uint s, vec4 v) {
    uint base = s * WK * WNV;
    if ((ndims.w & TRANS_B) != 0u) {
        uint n = i / (WK / 4u);
        uint k = (i % (WK / 4u)) * 4u;
        wb[base + k * WNV + n / 4u][n % 4u] = v.x;
        wb[base + (k + 1u) * WNV + n / 4u][n % 4u] = v.y;
        wb[base + (k + 2u) * WNV + n / 4u][n % 4u] = v.z;
        wb[base + (k + 3u) * WNV + n / 4u][n % 4u] = v.w;
    } else {
        wb[base + i] = v;
    }
}

// The epilogue of one row: up to 4 consecutive columns from col, bias and old C as flagged.
void native_store4(uint row, uint col, vec4 v) {
    uint M = ndims.x;
    uint N = ndims.y;
    if (row >= M) { return; }
    [[unroll]] for (uint q = 0u; q < 4u; q = q + 1u) {
        if (col + q < N) {
            float o = v[q];
            if ((ndims.w & ADD_BIAS) != 0u) { o = o + nbias[col + q]; }
            uint idx = row * N + col + q;
            if ((ndims.w & ACCUMULATE) != 0u) { o = nc[idx] + o; }
            nc[idx] = o;
        }
    }
}

// The next stage's loads, held in registers while the current stage is multiplied: W_LA vec4
// of A and W_LB of B per invocation (named, not an array: the driver keeps them in registers).
#define W_LA (32 * W_BK / W_TN)
#define W_LB (32 * W_BK / W_TM)
vec4 pa0, pa1, pa2, pa3, pa4, pa5, pa6, pa7, pb0, pb1, pb2, pb3;

void w_fetch(uint lid, uint row0, uint col0, uint k0) {
    pa0 = w_load_a(lid, row0, k0);
    pa1 = w_load_a(lid + WWG, row0, k0);
#if W_LA > 2
    pa2 = w_load_a(lid + 2u * WWG, row0, k0);
    pa3 = w_load_a(lid + 3u * WWG, row0, k0);
#endif
#if W_LA > 4
    pa4 = w_load_a(lid + 4u * WWG, row0, k0);
    pa5 = w_load_a(lid + 5u * WWG, row0, k0);
    pa6 = w_load_a(lid + 6u * WWG, row0, k0);
    pa7 = w_load_a(lid + 7u * WWG, row0, k0);
#endif
    pb0 = w_load_b(lid, col0, k0);
    pb1 = w_load_b(lid + WWG, col0, k0);
#if W_LB > 2
    pb2 = w_load_b(lid + 2u * WWG, col0, k0);
    pb3 = w_load_b(lid + 3u * WWG, col0, k0);
#endif
}

void w_put(uint lid, uint s) {
    w_store_a(lid, s, pa0);
    w_store_a(lid + WWG, s, pa1);
#if W_LA > 2
    w_store_a(lid + 2u * WWG, s, pa2);
    w_store_a(lid + 3u * WWG, s, pa3);
#endif
#if W_LA > 4
    w_store_a(lid + 4u * WWG, s, pa4);
    w_store_a(lid + 5u * WWG, s, pa5);
    w_store_a(lid + 6u * WWG, s, pa6);
    w_store_a(lid + 7u * WWG, s, pa7);
#endif
    w_store_b(lid, s, pb0);
    w_store_b(lid + WWG, s, pb1);
#if W_LB > 2
    w_store_b(lid + 2u * WWG, s, pb2);
    w_store_b(lid + 3u * WWG, s, pb3);
#endif
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint M = ndims.x;
    uint N = ndims.y;
    uint K = ndims.z;
    uint lda = wgsl_select(K, M, (ndims.w & TRANS_A) != 0u);
    uint ldb = wgsl_select(N, K, (ndims.w & TRANS_B) != 0u);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    uint tiles_n = (N + WN - 1u) / WN;
    uint tiles_m = (M + WM - 1u) / WM;
    uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
    if (tile >= tiles_m * tiles_n) { return; }
    uint row0 = (tile / tiles_n) * WM;
    uint col0 = (tile % tiles_n) * WN;
    uint ty = lid / WTX;
    uint tx = lid % WTX;

    // cRJ: row R = 0..7 (rows ty*4 + R, R >= 4: WM/2 further), column group J = 0..3 (columns
    // tx*4 + J*WN/4 ..+3). One fma chain per element in k order, as matmul_native.
    vec4 c00 = vec4(0.0);
    vec4 c01 = vec4(0.0);
    vec4 c02 = vec4(0.0);
    vec4 c03 = vec4(0.0);
    vec4 c10 = vec4(0.0);
    vec4 c11 = vec4(0.0);
    vec4 c12 = vec4(0.0);
    vec4 c13 = vec4(0.0);
    vec4 c20 = vec4(0.0);
    vec4 c21 = vec4(0.0);
    vec4 c22 = vec4(0.0);
    vec4 c23 = vec4(0.0);
    vec4 c30 = vec4(0.0);
    vec4 c31 = vec4(0.0);
    vec4 c32 = vec4(0.0);
    vec4 c33 = vec4(0.0);
    vec4 c40 = vec4(0.0);
    vec4 c41 = vec4(0.0);
    vec4 c42 = vec4(0.0);
    vec4 c43 = vec4(0.0);
    vec4 c50 = vec4(0.0);
    vec4 c51 = vec4(0.0);
    vec4 c52 = vec4(0.0);
    vec4 c53 = vec4(0.0);
    vec4 c60 = vec4(0.0);
    vec4 c61 = vec4(0.0);
    vec4 c62 = vec4(0.0);
    vec4 c63 = vec4(0.0);
    vec4 c70 = vec4(0.0);
    vec4 c71 = vec4(0.0);
    vec4 c72 = vec4(0.0);
    vec4 c73 = vec4(0.0);
    uint steps = (K + WK - 1u) / WK;
    w_fetch(lid, row0, col0, 0u);
    w_put(lid, 0u);
    barrier();
    for (uint t = 0u; t < steps; t = t + 1u) {
        uint cur = (t % WS);
        bool more = t + 1u < steps;
        if (more) { w_fetch(lid, row0, col0, (t + 1u) * WK); }
        uint ba = cur * WK * WMV + ty;
        uint bb = cur * WK * WNV + tx;
        [[unroll]] for (uint k = 0u; k < WK; k = k + 1u) {
            vec4 a0 = wa[ba + k * WMV];
            vec4 a1 = wa[ba + k * WMV + WMV / 2u];
            vec4 b0 = wb[bb + k * WNV];
            vec4 b1 = wb[bb + k * WNV + WTX];
            vec4 b2 = wb[bb + k * WNV + 2u * WTX];
            vec4 b3 = wb[bb + k * WNV + 3u * WTX];
            c00 = fma(vec4(a0.x), b0, c00);
            c01 = fma(vec4(a0.x), b1, c01);
            c02 = fma(vec4(a0.x), b2, c02);
            c03 = fma(vec4(a0.x), b3, c03);
            c10 = fma(vec4(a0.y), b0, c10);
            c11 = fma(vec4(a0.y), b1, c11);
            c12 = fma(vec4(a0.y), b2, c12);
            c13 = fma(vec4(a0.y), b3, c13);
            c20 = fma(vec4(a0.z), b0, c20);
            c21 = fma(vec4(a0.z), b1, c21);
            c22 = fma(vec4(a0.z), b2, c22);
            c23 = fma(vec4(a0.z), b3, c23);
            c30 = fma(vec4(a0.w), b0, c30);
            c31 = fma(vec4(a0.w), b1, c31);
            c32 = fma(vec4(a0.w), b2, c32);
            c33 = fma(vec4(a0.w), b3, c33);
            c40 = fma(vec4(a1.x), b0, c40);
            c41 = fma(vec4(a1.x), b1, c41);
            c42 = fma(vec4(a1.x), b2, c42);
            c43 = fma(vec4(a1.x), b3, c43);
            c50 = fma(vec4(a1.y), b0, c50);
            c51 = fma(vec4(a1.y), b1, c51);
            c52 = fma(vec4(a1.y), b2, c52);
            c53 = fma(vec4(a1.y), b3, c53);
            c60 = fma(vec4(a1.z), b0, c60);
            c61 = fma(vec4(a1.z), b1, c61);
            c62 = fma(vec4(a1.z), b2, c62);
            c63 = fma(vec4(a1.z), b3, c63);
            c70 = fma(vec4(a1.w), b0, c70);
            c71 = fma(vec4(a1.w), b1, c71);
            c72 = fma(vec4(a1.w), b2, c72);
            c73 = fma(vec4(a1.w), b3, c73);
        }
        if (WS == 2u) {  // the next stage goes to the other buffer: one barrier
            if (more) { w_put(lid, 1u - cur); }
            barrier();
        } else {         // one buffer: every invocation is done reading it first
            barrier();
            if (more) { w_put(lid, 0u); }
            barrier();
        }
    }

    uint r = row0 + ty * 4u;  // rows c0J..c3J; c4J..c7J are WM/2 further
    uint h = WM / 2u;
    uint c = col0 + tx * 4u;  // columns of group 0; group J is J*WN/4 further
    uint g = WN / 4u;
    native_store4(r, c, c00);
    native_store4(r, c + g, c01);
    native_store4(r, c + 2u * g, c02);
    native_store4(r, c + 3u * g, c03);
    native_store4(r + 1u, c, c10);
    native_store4(r + 1u, c + g, c11);
    native_store4(r + 1u, c + 2u * g, c12);
    native_store4(r + 1u, c + 3u * g, c13);
    native_store4(r + 2u, c, c20);
    native_store4(r + 2u, c + g, c21);
    native_store4(r + 2u, c + 2u * g, c22);
    native_store4(r + 2u, c + 3u * g, c23);
    native_store4(r + 3u, c, c30);
    native_store4(r + 3u, c + g, c31);
    native_store4(r + 3u, c + 2u * g, c32);
    native_store4(r + 3u, c + 3u * g, c33);
    native_store4(r + h, c, c40);
    native_store4(r + h, c + g, c41);
    native_store4(r + h, c + 2u * g, c42);
    native_store4(r + h, c + 3u * g, c43);
    native_store4(r + h + 1u, c, c50);
    native_store4(r + h + 1u, c + g, c51);
    native_store4(r + h + 1u, c + 2u * g, c52);
    native_store4(r + h + 1u, c + 3u * g, c53);
    native_store4(r + h + 2u, c, c60);
    native_store4(r + h + 2u, c + g, c61);
    native_store4(r + h + 2u, c + 2u * g, c62);
    native_store4(r + h + 2u, c + 3u * g, c63);
    native_store4(r + h + 3u, c, c70);
    native_store4(r + h + 3u, c + g, c71);
    native_store4(r + h + 3u, c + 2u * g, c72);
    native_store4(r + h + 3u, c + 3u * g, c73);
}
