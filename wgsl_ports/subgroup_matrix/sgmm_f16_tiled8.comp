#version 450
// Port of chromium_experimental/subgroup_matrix_tiled8.wgsl: sgmm_f16_tiled8 (ours), line by line, with
// GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16.comp.
// subgroup_matrix_left/right<f16, 16, 16> are LEFT/RIGHT, subgroup_matrix_result<f32, 16, 16>
// RESULT; subgroupMatrixLoad/Store are coopMatLoadNV/coopMatStoreNV (offset and stride in
// elements, the same column-major flag), subgroupMatrixMultiplyAccumulate is coopMatMulAddNV.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require

#define LEFT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define RIGHT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define RESULT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

layout(local_size_x = 32, local_size_y = 8, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer TA { f16vec4 ta_in[]; };
layout(set = 0, binding = 1, std430) readonly buffer TB { f16vec4 tb_in[]; };
layout(set = 0, binding = 2, std430) buffer TC { float tc_out[]; };
layout(set = 0, binding = 3, std140) uniform TDims { uvec4 tdims; };  // (M, N, K, flags)

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ACCUMULATE = 8u;
const uint TILE = 5120u;  // one buffer: [128][32 + 8] or [32][128 + 8] f16, as stored

shared float16_t tile_a[10240];  // two A tiles
shared float16_t tile_b[10240];  // two B tiles
shared float tile_c[2048];  // one [16][16] C tile per subgroup (edge blocks)

// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix, zeros outside it.
f16vec4 fetch_a(uint row, uint col, uint rows, uint ld) {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return ta_in[(row * ld + col) / 4u];
  }
  f16vec4 v = f16vec4(0.0);
  for (uint e = 0u; e < 4u; e++) {
    if (row < rows && col + e < ld) {
      const uint i = row * ld + col + e;
      v[e] = ta_in[i / 4u][i % 4u];
    }
  }
  return v;
}

f16vec4 fetch_b(uint row, uint col, uint rows, uint ld) {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return tb_in[(row * ld + col) / 4u];
  }
  f16vec4 v = f16vec4(0.0);
  for (uint e = 0u; e < 4u; e++) {
    if (row < rows && col + e < ld) {
      const uint i = row * ld + col + e;
      v[e] = tb_in[i / 4u][i % 4u];
    }
  }
  return v;
}

// Edge blocks: C tile (r, c) of this subgroup between the buffer and workgroup memory, inside C.
void c_in(uint base, uint lx, uint r, uint c, uint M, uint N) {
  for (uint e = lx; e < 256u; e += 32u) {
    const uint gr = r + e / 16u;
    const uint gc = c + e % 16u;
    tile_c[base + e] = 0.0;
    if (gr < M && gc < N) {
      tile_c[base + e] = tc_out[gr * N + gc];
    }
  }
}

void c_out(uint base, uint lx, uint r, uint c, uint M, uint N) {
  for (uint e = lx; e < 256u; e += 32u) {
    const uint gr = r + e / 16u;
    const uint gc = c + e % 16u;
    if (gr < M && gc < N) {
      tc_out[gr * N + gc] = tile_c[base + e];
    }
  }
}

void main() {
  const uvec3 wid = gl_WorkGroupID;
  const uvec3 lxy = gl_LocalInvocationID;
  const uint lid = gl_LocalInvocationIndex;
  const uint M = tdims.x;
  const uint N = tdims.y;
  const uint K = tdims.z;
  const uint flags = tdims.w;
  const bool ta = (flags & TRANS_A) != 0u;
  const bool tb = (flags & TRANS_B) != 0u;

  // The block: dispatch order walks 8 block rows per block column.
  const uint gx = (N + 127u) / 128u;
  const uint gy = (M + 127u) / 128u;
  const uint pid = wid.y * gx + wid.x;
  const uint grow = (pid / (8u * gx)) * 8u;
  const uint rows_g = min(gy - grow, 8u);
  const uint inner = pid % (8u * gx);
  const uint row0 = (grow + inner % rows_g) * 128u;
  const uint col0 = (inner / rows_g) * 128u;

  const uint sg = lxy.y;  // this subgroup's 32x64 part of the block
  const uint srow = (sg / 2u) * 32u;
  const uint scol = (sg % 2u) * 64u;
  const uint cbase = sg * 256u;  // its C tile in workgroup memory
  const bool direct_c = row0 + 128u <= M && col0 + 128u <= N && N % 4u == 0u;

  // The copy: the stored tile is [rows][cols] with 8 or 32 vec4s per row; invocation lid copies
  // vec4s lid + 256 i, i < 4.
  const uint a_shift = (ta ? 5u : 3u);
  const uint a_stride = (ta ? 136u : 40u);
  const uint a_rows = (ta ? K : M);
  const uint a_ld = (ta ? M : K);
  const uint b_shift = (tb ? 3u : 5u);
  const uint b_stride = (tb ? 40u : 136u);
  const uint b_rows = (tb ? N : K);
  const uint b_ld = (tb ? K : N);

  // The subgroup's result matrices, named (an array indexed in loops went to local memory).
  RESULT c00 = RESULT(0.0);
  RESULT c01 = RESULT(0.0);
  RESULT c02 = RESULT(0.0);
  RESULT c03 = RESULT(0.0);
  RESULT c10 = RESULT(0.0);
  RESULT c11 = RESULT(0.0);
  RESULT c12 = RESULT(0.0);
  RESULT c13 = RESULT(0.0);
  if ((flags & ACCUMULATE) != 0u) {
    if (direct_c) {
      coopMatLoadNV(c00, tc_out, (row0 + srow + 0u) * N + col0 + scol + 0u, N, false);
      coopMatLoadNV(c01, tc_out, (row0 + srow + 0u) * N + col0 + scol + 16u, N, false);
      coopMatLoadNV(c02, tc_out, (row0 + srow + 0u) * N + col0 + scol + 32u, N, false);
      coopMatLoadNV(c03, tc_out, (row0 + srow + 0u) * N + col0 + scol + 48u, N, false);
      coopMatLoadNV(c10, tc_out, (row0 + srow + 16u) * N + col0 + scol + 0u, N, false);
      coopMatLoadNV(c11, tc_out, (row0 + srow + 16u) * N + col0 + scol + 16u, N, false);
      coopMatLoadNV(c12, tc_out, (row0 + srow + 16u) * N + col0 + scol + 32u, N, false);
      coopMatLoadNV(c13, tc_out, (row0 + srow + 16u) * N + col0 + scol + 48u, N, false);
    } else {
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N);
      barrier();
      coopMatLoadNV(c00, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N);
      barrier();
      coopMatLoadNV(c01, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 32u, M, N);
      barrier();
      coopMatLoadNV(c02, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 48u, M, N);
      barrier();
      coopMatLoadNV(c03, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N);
      barrier();
      coopMatLoadNV(c10, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N);
      barrier();
      coopMatLoadNV(c11, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 32u, M, N);
      barrier();
      coopMatLoadNV(c12, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 48u, M, N);
      barrier();
      coopMatLoadNV(c13, tile_c, cbase, 16u, false);
    }
  }

  const uint steps = (K + 31u) / 32u;
  f16vec4 ra0;
  f16vec4 ra1;
  f16vec4 ra2;
  f16vec4 ra3;
  f16vec4 rb0;
  f16vec4 rb1;
  f16vec4 rb2;
  f16vec4 rb3;
  if (steps > 0u) {  // the first K step's tiles
    ra0 = fetch_a((ta ? 0u : row0) + ((lid) >> a_shift), (ta ? row0 : 0u) + (((lid) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb0 = fetch_b((tb ? col0 : 0u) + ((lid) >> b_shift), (tb ? 0u : col0) + (((lid) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    ra1 = fetch_a((ta ? 0u : row0) + ((lid + 256u) >> a_shift), (ta ? row0 : 0u) + (((lid + 256u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb1 = fetch_b((tb ? col0 : 0u) + ((lid + 256u) >> b_shift), (tb ? 0u : col0) + (((lid + 256u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    ra2 = fetch_a((ta ? 0u : row0) + ((lid + 512u) >> a_shift), (ta ? row0 : 0u) + (((lid + 512u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb2 = fetch_b((tb ? col0 : 0u) + ((lid + 512u) >> b_shift), (tb ? 0u : col0) + (((lid + 512u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    ra3 = fetch_a((ta ? 0u : row0) + ((lid + 768u) >> a_shift), (ta ? row0 : 0u) + (((lid + 768u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb3 = fetch_b((tb ? col0 : 0u) + ((lid + 768u) >> b_shift), (tb ? 0u : col0) + (((lid + 768u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    const uint oa0 = ((lid) >> a_shift) * a_stride + ((lid) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa0] = ra0.x;
    tile_a[oa0 + 1u] = ra0.y;
    tile_a[oa0 + 2u] = ra0.z;
    tile_a[oa0 + 3u] = ra0.w;
    const uint ob0 = ((lid) >> b_shift) * b_stride + ((lid) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob0] = rb0.x;
    tile_b[ob0 + 1u] = rb0.y;
    tile_b[ob0 + 2u] = rb0.z;
    tile_b[ob0 + 3u] = rb0.w;
    const uint oa1 = ((lid + 256u) >> a_shift) * a_stride + ((lid + 256u) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa1] = ra1.x;
    tile_a[oa1 + 1u] = ra1.y;
    tile_a[oa1 + 2u] = ra1.z;
    tile_a[oa1 + 3u] = ra1.w;
    const uint ob1 = ((lid + 256u) >> b_shift) * b_stride + ((lid + 256u) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob1] = rb1.x;
    tile_b[ob1 + 1u] = rb1.y;
    tile_b[ob1 + 2u] = rb1.z;
    tile_b[ob1 + 3u] = rb1.w;
    const uint oa2 = ((lid + 512u) >> a_shift) * a_stride + ((lid + 512u) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa2] = ra2.x;
    tile_a[oa2 + 1u] = ra2.y;
    tile_a[oa2 + 2u] = ra2.z;
    tile_a[oa2 + 3u] = ra2.w;
    const uint ob2 = ((lid + 512u) >> b_shift) * b_stride + ((lid + 512u) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob2] = rb2.x;
    tile_b[ob2 + 1u] = rb2.y;
    tile_b[ob2 + 2u] = rb2.z;
    tile_b[ob2 + 3u] = rb2.w;
    const uint oa3 = ((lid + 768u) >> a_shift) * a_stride + ((lid + 768u) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa3] = ra3.x;
    tile_a[oa3 + 1u] = ra3.y;
    tile_a[oa3 + 2u] = ra3.z;
    tile_a[oa3 + 3u] = ra3.w;
    const uint ob3 = ((lid + 768u) >> b_shift) * b_stride + ((lid + 768u) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob3] = rb3.x;
    tile_b[ob3 + 1u] = rb3.y;
    tile_b[ob3 + 2u] = rb3.z;
    tile_b[ob3 + 3u] = rb3.w;
  }
  barrier();

  for (uint s = 0u; s < steps; s++) {
    const uint cur = (s % 2u) * TILE;
    const uint nxt = TILE - cur;
    const bool more = s + 1u < steps;
    if (more) {  // the next K step's tiles into registers
      const uint k0 = (s + 1u) * 32u;
      ra0 = fetch_a((ta ? k0 : row0) + ((lid) >> a_shift), (ta ? row0 : k0) + (((lid) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb0 = fetch_b((tb ? col0 : k0) + ((lid) >> b_shift), (tb ? k0 : col0) + (((lid) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
      ra1 = fetch_a((ta ? k0 : row0) + ((lid + 256u) >> a_shift), (ta ? row0 : k0) + (((lid + 256u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb1 = fetch_b((tb ? col0 : k0) + ((lid + 256u) >> b_shift), (tb ? k0 : col0) + (((lid + 256u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
      ra2 = fetch_a((ta ? k0 : row0) + ((lid + 512u) >> a_shift), (ta ? row0 : k0) + (((lid + 512u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb2 = fetch_b((tb ? col0 : k0) + ((lid + 512u) >> b_shift), (tb ? k0 : col0) + (((lid + 512u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
      ra3 = fetch_a((ta ? k0 : row0) + ((lid + 768u) >> a_shift), (ta ? row0 : k0) + (((lid + 768u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb3 = fetch_b((tb ? col0 : k0) + ((lid + 768u) >> b_shift), (tb ? k0 : col0) + (((lid + 768u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    }
    {  // k 0 .. 15 of the step
      RIGHT b0;
      RIGHT b1;
      RIGHT b2;
      RIGHT b3;
      if (tb) {  // [n][k]: column-major
        coopMatLoadNV(b0, tile_b, cur + (scol + 0u) * 40u + 0u, 40u, true);
        coopMatLoadNV(b1, tile_b, cur + (scol + 16u) * 40u + 0u, 40u, true);
        coopMatLoadNV(b2, tile_b, cur + (scol + 32u) * 40u + 0u, 40u, true);
        coopMatLoadNV(b3, tile_b, cur + (scol + 48u) * 40u + 0u, 40u, true);
      } else {  // [k][n]
        coopMatLoadNV(b0, tile_b, cur + 0u + scol + 0u, 136u, false);
        coopMatLoadNV(b1, tile_b, cur + 0u + scol + 16u, 136u, false);
        coopMatLoadNV(b2, tile_b, cur + 0u + scol + 32u, 136u, false);
        coopMatLoadNV(b3, tile_b, cur + 0u + scol + 48u, 136u, false);
      }
      LEFT a;
      if (ta) {  // [k][m]: column-major
        coopMatLoadNV(a, tile_a, cur + 0u + srow + 0u, 136u, true);
      } else {  // [m][k]
        coopMatLoadNV(a, tile_a, cur + (srow + 0u) * 40u + 0u, 40u, false);
      }
      c00 = coopMatMulAddNV(a, b0, c00);
      c01 = coopMatMulAddNV(a, b1, c01);
      c02 = coopMatMulAddNV(a, b2, c02);
      c03 = coopMatMulAddNV(a, b3, c03);
      if (ta) {  // [k][m]: column-major
        coopMatLoadNV(a, tile_a, cur + 0u + srow + 16u, 136u, true);
      } else {  // [m][k]
        coopMatLoadNV(a, tile_a, cur + (srow + 16u) * 40u + 0u, 40u, false);
      }
      c10 = coopMatMulAddNV(a, b0, c10);
      c11 = coopMatMulAddNV(a, b1, c11);
      c12 = coopMatMulAddNV(a, b2, c12);
      c13 = coopMatMulAddNV(a, b3, c13);
    }
    {  // k 16 .. 31 of the step
      RIGHT b0;
      RIGHT b1;
      RIGHT b2;
      RIGHT b3;
      if (tb) {  // [n][k]: column-major
        coopMatLoadNV(b0, tile_b, cur + (scol + 0u) * 40u + 16u, 40u, true);
        coopMatLoadNV(b1, tile_b, cur + (scol + 16u) * 40u + 16u, 40u, true);
        coopMatLoadNV(b2, tile_b, cur + (scol + 32u) * 40u + 16u, 40u, true);
        coopMatLoadNV(b3, tile_b, cur + (scol + 48u) * 40u + 16u, 40u, true);
      } else {  // [k][n]
        coopMatLoadNV(b0, tile_b, cur + 2176u + scol + 0u, 136u, false);
        coopMatLoadNV(b1, tile_b, cur + 2176u + scol + 16u, 136u, false);
        coopMatLoadNV(b2, tile_b, cur + 2176u + scol + 32u, 136u, false);
        coopMatLoadNV(b3, tile_b, cur + 2176u + scol + 48u, 136u, false);
      }
      LEFT a;
      if (ta) {  // [k][m]: column-major
        coopMatLoadNV(a, tile_a, cur + 2176u + srow + 0u, 136u, true);
      } else {  // [m][k]
        coopMatLoadNV(a, tile_a, cur + (srow + 0u) * 40u + 16u, 40u, false);
      }
      c00 = coopMatMulAddNV(a, b0, c00);
      c01 = coopMatMulAddNV(a, b1, c01);
      c02 = coopMatMulAddNV(a, b2, c02);
      c03 = coopMatMulAddNV(a, b3, c03);
      if (ta) {  // [k][m]: column-major
        coopMatLoadNV(a, tile_a, cur + 2176u + srow + 16u, 136u, true);
      } else {  // [m][k]
        coopMatLoadNV(a, tile_a, cur + (srow + 16u) * 40u + 16u, 40u, false);
      }
      c10 = coopMatMulAddNV(a, b0, c10);
      c11 = coopMatMulAddNV(a, b1, c11);
      c12 = coopMatMulAddNV(a, b2, c12);
      c13 = coopMatMulAddNV(a, b3, c13);
    }
    if (more) {  // into the other buffer, last read in the step before this one
      const uint oa0 = nxt + ((lid) >> a_shift) * a_stride + ((lid) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra0.y;
      tile_a[oa0 + 2u] = ra0.z;
      tile_a[oa0 + 3u] = ra0.w;
      const uint ob0 = nxt + ((lid) >> b_shift) * b_stride + ((lid) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb0.y;
      tile_b[ob0 + 2u] = rb0.z;
      tile_b[ob0 + 3u] = rb0.w;
      const uint oa1 = nxt + ((lid + 256u) >> a_shift) * a_stride + ((lid + 256u) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa1] = ra1.x;
      tile_a[oa1 + 1u] = ra1.y;
      tile_a[oa1 + 2u] = ra1.z;
      tile_a[oa1 + 3u] = ra1.w;
      const uint ob1 = nxt + ((lid + 256u) >> b_shift) * b_stride + ((lid + 256u) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob1] = rb1.x;
      tile_b[ob1 + 1u] = rb1.y;
      tile_b[ob1 + 2u] = rb1.z;
      tile_b[ob1 + 3u] = rb1.w;
      const uint oa2 = nxt + ((lid + 512u) >> a_shift) * a_stride + ((lid + 512u) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa2] = ra2.x;
      tile_a[oa2 + 1u] = ra2.y;
      tile_a[oa2 + 2u] = ra2.z;
      tile_a[oa2 + 3u] = ra2.w;
      const uint ob2 = nxt + ((lid + 512u) >> b_shift) * b_stride + ((lid + 512u) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob2] = rb2.x;
      tile_b[ob2 + 1u] = rb2.y;
      tile_b[ob2 + 2u] = rb2.z;
      tile_b[ob2 + 3u] = rb2.w;
      const uint oa3 = nxt + ((lid + 768u) >> a_shift) * a_stride + ((lid + 768u) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa3] = ra3.x;
      tile_a[oa3 + 1u] = ra3.y;
      tile_a[oa3 + 2u] = ra3.z;
      tile_a[oa3 + 3u] = ra3.w;
      const uint ob3 = nxt + ((lid + 768u) >> b_shift) * b_stride + ((lid + 768u) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob3] = rb3.x;
      tile_b[ob3 + 1u] = rb3.y;
      tile_b[ob3 + 2u] = rb3.z;
      tile_b[ob3 + 3u] = rb3.w;
    }
    barrier();
  }

  if (direct_c) {
    coopMatStoreNV(c00, tc_out, (row0 + srow + 0u) * N + col0 + scol + 0u, N, false);
    coopMatStoreNV(c01, tc_out, (row0 + srow + 0u) * N + col0 + scol + 16u, N, false);
    coopMatStoreNV(c02, tc_out, (row0 + srow + 0u) * N + col0 + scol + 32u, N, false);
    coopMatStoreNV(c03, tc_out, (row0 + srow + 0u) * N + col0 + scol + 48u, N, false);
    coopMatStoreNV(c10, tc_out, (row0 + srow + 16u) * N + col0 + scol + 0u, N, false);
    coopMatStoreNV(c11, tc_out, (row0 + srow + 16u) * N + col0 + scol + 16u, N, false);
    coopMatStoreNV(c12, tc_out, (row0 + srow + 16u) * N + col0 + scol + 32u, N, false);
    coopMatStoreNV(c13, tc_out, (row0 + srow + 16u) * N + col0 + scol + 48u, N, false);
  } else {
    barrier();
    coopMatStoreNV(c00, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N);
    barrier();
    coopMatStoreNV(c01, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N);
    barrier();
    coopMatStoreNV(c02, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 32u, M, N);
    barrier();
    coopMatStoreNV(c03, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 48u, M, N);
    barrier();
    coopMatStoreNV(c10, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N);
    barrier();
    coopMatStoreNV(c11, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N);
    barrier();
    coopMatStoreNV(c12, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 32u, M, N);
    barrier();
    coopMatStoreNV(c13, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 48u, M, N);
  }
}
