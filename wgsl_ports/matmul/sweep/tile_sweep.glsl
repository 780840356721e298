// Measurement-only body of matmul_native's tile sweep (issue 23; wgsl_ports/matmul/sweep/README.md):
// matmul_native's algorithm and ABI with the tile shape, K step, stage count and thread layout as
// parameters. sweep.py writes one .comp per configuration (the #defines, then #include this);
// `wgslvk bench --cases --port X.comp:matmul_native.wgsl --abi-of matmul_native` times them.
//   TM, TN   output tile rows, columns (64 or 128); WGN = TM * TN / 64 invocations, 8 x 8 outputs
//            each: rows ty*4..+3 and TM/2 + ty*4..+3, columns tx*4..+3 and TN/2 + tx*4..+3
//   BK       K per stage (8 or 16); STAGES 1 (two barriers per stage) or 2 (double-buffered, one)
//   WARP_TILED 1: a subgroup of 32 owns a 32 x 64 block of invocations' outputs (4 ty x 8 tx)
//            instead of 2 ty x 16 tx (only differs where TN = 128)
//   workgroup memory: STAGES * BK * (TM + TN) * 4 bytes (<= 16 KB: WebGPU's default limit)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define WGN (TM * TN / 64)
layout(local_size_x = WGN, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer NA { vec4 na[]; };
layout(set = 0, binding = 1, std430) readonly buffer NB { vec4 nb[]; };
layout(set = 0, binding = 2, std430) buffer NC { float nc[]; };
layout(set = 0, binding = 3, std430) readonly buffer NBias { float nbias[]; };
layout(set = 0, binding = 4, std140) uniform NDims { uvec4 ndims; };

const uint UTM = TM;
const uint UTN = TN;
const uint UBK = BK;
const uint UWGN = WGN;

uint flat_wg(uvec3 wid, uvec3 nwg) { return wid.y * nwg.x + wid.x; }
const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ADD_BIAS = 4u;
const uint ACCUMULATE = 8u;

const uint TMV = UTM / 4u;   // vec4 per k row of the A tile
const uint TNV = UTN / 4u;   // vec4 per k row of the B tile
const uint SA = UBK * TMV;   // vec4 per stage of A
const uint SB = UBK * TNV;
#define LA (16 * BK / TN)   // vec4 of A each invocation loads per stage (SA / WGN)
#define LB (16 * BK / TM)
shared vec4 sa[STAGES * SA];  // [stage][k][UTM/4]
shared vec4 sb[STAGES * SB];  // [stage][k][UTN/4]

// vec4 i (0..SA) of the A tile at k0: stored [M, K]: 4 k of one row; [K, M]: 4 rows of one k.
vec4 load_a(uint i, uint row0, uint k0) {
  uint M = ndims.x;
  uint K = ndims.z;
  if ((ndims.w & TRANS_A) != 0u) {
    uint k = k0 + i / TMV;
    uint m = row0 + (i % TMV) * 4u;
    if (k < K && m < M) { return na[(k * M + m) / 4u]; }
  } else {
    uint m = row0 + i / (UBK / 4u);
    uint k = k0 + (i % (UBK / 4u)) * 4u;
    if (m < M && k < K) { return na[(m * K + k) / 4u]; }
  }
  return vec4(0.0);
}
vec4 load_b(uint i, uint col0, uint k0) {
  uint N = ndims.y;
  uint K = ndims.z;
  if ((ndims.w & TRANS_B) != 0u) {
    uint n = col0 + i / (UBK / 4u);
    uint k = k0 + (i % (UBK / 4u)) * 4u;
    if (n < N && k < K) { return nb[(n * K + k) / 4u]; }
  } else {
    uint k = k0 + i / TNV;
    uint n = col0 + (i % TNV) * 4u;
    if (k < K && n < N) { return nb[(k * N + n) / 4u]; }
  }
  return vec4(0.0);
}
void store_a(uint i, uint s, vec4 v) {
  uint base = s * SA;
  if ((ndims.w & TRANS_A) != 0u) {
    sa[base + i] = v;
  } else {
    uint m = i / (UBK / 4u);
    uint k = (i % (UBK / 4u)) * 4u;
    sa[base + k * TMV + m / 4u][m % 4u] = v.x;
    sa[base + (k + 1u) * TMV + m / 4u][m % 4u] = v.y;
    sa[base + (k + 2u) * TMV + m / 4u][m % 4u] = v.z;
    sa[base + (k + 3u) * TMV + m / 4u][m % 4u] = v.w;
  }
}
void store_b(uint i, uint s, vec4 v) {
  uint base = s * SB;
  if ((ndims.w & TRANS_B) != 0u) {
    uint n = i / (UBK / 4u);
    uint k = (i % (UBK / 4u)) * 4u;
    sb[base + k * TNV + n / 4u][n % 4u] = v.x;
    sb[base + (k + 1u) * TNV + n / 4u][n % 4u] = v.y;
    sb[base + (k + 2u) * TNV + n / 4u][n % 4u] = v.z;
    sb[base + (k + 3u) * TNV + n / 4u][n % 4u] = v.w;
  } else {
    sb[base + i] = v;
  }
}
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

vec4 va0, va1, va2, va3, vb0, vb1, vb2, vb3;
void fetch(uint lid, uint row0, uint col0, uint k0) {
  va0 = load_a(lid, row0, k0);
#if LA > 1
  va1 = load_a(lid + UWGN, row0, k0);
#endif
#if LA > 2
  va2 = load_a(lid + 2u * UWGN, row0, k0);
  va3 = load_a(lid + 3u * UWGN, row0, k0);
#endif
  vb0 = load_b(lid, col0, k0);
#if LB > 1
  vb1 = load_b(lid + UWGN, col0, k0);
#endif
#if LB > 2
  vb2 = load_b(lid + 2u * UWGN, col0, k0);
  vb3 = load_b(lid + 3u * UWGN, col0, k0);
#endif
}
void put(uint lid, uint s) {
  store_a(lid, s, va0);
#if LA > 1
  store_a(lid + UWGN, s, va1);
#endif
#if LA > 2
  store_a(lid + 2u * UWGN, s, va2);
  store_a(lid + 3u * UWGN, s, va3);
#endif
  store_b(lid, s, vb0);
#if LB > 1
  store_b(lid + UWGN, s, vb1);
#endif
#if LB > 2
  store_b(lid + 2u * UWGN, s, vb2);
  store_b(lid + 3u * UWGN, s, vb3);
#endif
}

void main() {
  uint lid = gl_LocalInvocationIndex;
  uint M = ndims.x;
  uint N = ndims.y;
  uint K = ndims.z;
  uint lda = ((ndims.w & TRANS_A) != 0u) ? M : K;
  uint ldb = ((ndims.w & TRANS_B) != 0u) ? K : N;
  if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
  uint tiles_n = (N + UTN - 1u) / UTN;
  uint tiles_m = (M + UTM - 1u) / UTM;
  uint tile = flat_wg(gl_WorkGroupID, gl_NumWorkGroups);
  if (tile >= tiles_m * tiles_n) { return; }
  uint row0 = (tile / tiles_n) * UTM;
  uint col0 = (tile % tiles_n) * UTN;
#if WARP_TILED && TN == 128
  uint w = lid / 32u;
  uint lane = lid % 32u;
  uint tx = (w % 2u) * 8u + lane % 8u;
  uint ty = (w / 2u) * 4u + lane / 8u;
#else
  uint ty = lid / (UTN / 8u);
  uint tx = lid % (UTN / 8u);
#endif
  vec4 r0a = vec4(0.0), r1a = vec4(0.0), r2a = vec4(0.0), r3a = vec4(0.0);
  vec4 r4a = vec4(0.0), r5a = vec4(0.0), r6a = vec4(0.0), r7a = vec4(0.0);
  vec4 r0b = vec4(0.0), r1b = vec4(0.0), r2b = vec4(0.0), r3b = vec4(0.0);
  vec4 r4b = vec4(0.0), r5b = vec4(0.0), r6b = vec4(0.0), r7b = vec4(0.0);
  uint steps = (K + UBK - 1u) / UBK;
  fetch(lid, row0, col0, 0u);
  put(lid, 0u);
  barrier();
  for (uint t = 0u; t < steps; t = t + 1u) {
#if STAGES == 2
    uint cur = t & 1u;
#else
    uint cur = 0u;
#endif
    bool more = t + 1u < steps;
    if (more) { fetch(lid, row0, col0, (t + 1u) * UBK); }
    uint base_a = cur * SA + ty;
    uint base_b = cur * SB + tx;
    [[unroll]] for (uint k = 0u; k < UBK; k = k + 1u) {
      vec4 a0 = sa[base_a + k * TMV];
      vec4 a1 = sa[base_a + k * TMV + TMV / 2u];
      vec4 b0 = sb[base_b + k * TNV];
      vec4 b1 = sb[base_b + k * TNV + TNV / 2u];
      r0a = fma(vec4(a0.x), b0, r0a);
      r1a = fma(vec4(a0.y), b0, r1a);
      r2a = fma(vec4(a0.z), b0, r2a);
      r3a = fma(vec4(a0.w), b0, r3a);
      r4a = fma(vec4(a1.x), b0, r4a);
      r5a = fma(vec4(a1.y), b0, r5a);
      r6a = fma(vec4(a1.z), b0, r6a);
      r7a = fma(vec4(a1.w), b0, r7a);
      r0b = fma(vec4(a0.x), b1, r0b);
      r1b = fma(vec4(a0.y), b1, r1b);
      r2b = fma(vec4(a0.z), b1, r2b);
      r3b = fma(vec4(a0.w), b1, r3b);
      r4b = fma(vec4(a1.x), b1, r4b);
      r5b = fma(vec4(a1.y), b1, r5b);
      r6b = fma(vec4(a1.z), b1, r6b);
      r7b = fma(vec4(a1.w), b1, r7b);
    }
#if STAGES == 2
    if (more) { put(lid, 1u - cur); }
    barrier();
#else
    barrier();
    if (more) { put(lid, 0u); }
    barrier();
#endif
  }
  uint rlo = row0 + ty * 4u;
  uint ca = col0 + tx * 4u;
  const uint HM = UTM / 2u;
  const uint HN = UTN / 2u;
  native_store4(rlo, ca, r0a);
  native_store4(rlo + 1u, ca, r1a);
  native_store4(rlo + 2u, ca, r2a);
  native_store4(rlo + 3u, ca, r3a);
  native_store4(rlo + HM, ca, r4a);
  native_store4(rlo + HM + 1u, ca, r5a);
  native_store4(rlo + HM + 2u, ca, r6a);
  native_store4(rlo + HM + 3u, ca, r7a);
  native_store4(rlo, ca + HN, r0b);
  native_store4(rlo + 1u, ca + HN, r1b);
  native_store4(rlo + 2u, ca + HN, r2b);
  native_store4(rlo + 3u, ca + HN, r3b);
  native_store4(rlo + HM, ca + HN, r4b);
  native_store4(rlo + HM + 1u, ca + HN, r5b);
  native_store4(rlo + HM + 2u, ca + HN, r6b);
  native_store4(rlo + HM + 3u, ca + HN, r7b);
}
