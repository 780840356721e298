#version 450
// Port of chromium_experimental/subgroup_matrix_tiled8_n256.wgsl: sgmm_f16_tiled8_n256 (ours), line
// by line, with GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16_tiled8_d2.comp.
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

shared float16_t tile_a[6144];  // 2 x A [128][16 + 8]
shared float16_t tile_b[12288];  // 2 x B [256][16 + 8] (n, k)
shared float tile_c[2048];  // one [16][16] C tile per subgroup (edge blocks)

// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix, zeros outside it.
f16vec4 fetch_a(uint row, uint col, uint rows, uint ld) {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return ta_in[(row * ld + col) / 4u];
  }
  f16vec4 v = f16vec4(0.0);
  if (row < rows && col + 0u < ld) {
    const uint i0 = row * ld + col + 0u;
    v.x = ta_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    const uint i1 = row * ld + col + 1u;
    v.y = ta_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    const uint i2 = row * ld + col + 2u;
    v.z = ta_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    const uint i3 = row * ld + col + 3u;
    v.w = ta_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

f16vec4 fetch_b(uint row, uint col, uint rows, uint ld) {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return tb_in[(row * ld + col) / 4u];
  }
  f16vec4 v = f16vec4(0.0);
  if (row < rows && col + 0u < ld) {
    const uint i0 = row * ld + col + 0u;
    v.x = tb_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    const uint i1 = row * ld + col + 1u;
    v.y = tb_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    const uint i2 = row * ld + col + 2u;
    v.z = tb_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    const uint i3 = row * ld + col + 3u;
    v.w = tb_in[i3 / 4u][i3 % 4u];
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
  const uint gx = (N + 255u) / 256u;
  const uint gy = (M + 127u) / 128u;
  const uint pid = wid.y * gx + wid.x;
  const uint grow = (pid / (8u * gx)) * 8u;
  const uint rows_g = min(gy - grow, 8u);
  const uint inner = pid % (8u * gx);
  const uint row0 = (grow + inner % rows_g) * 128u;
  const uint col0 = (inner / rows_g) * 256u;

  const uint sg = lxy.y;  // this subgroup's 64x64 part of the block
  const uint srow = (sg / 4u) * 64u;
  const uint scol = (sg % 4u) * 64u;
  const uint cbase = sg * 256u;  // its C tile in workgroup memory
  const bool direct_c = row0 + 128u <= M && col0 + 256u <= N && N % 4u == 0u;
  const uint a_rows = (ta ? K : M);
  const uint a_ld = (ta ? M : K);
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
  RESULT c20 = RESULT(0.0);
  RESULT c21 = RESULT(0.0);
  RESULT c22 = RESULT(0.0);
  RESULT c23 = RESULT(0.0);
  RESULT c30 = RESULT(0.0);
  RESULT c31 = RESULT(0.0);
  RESULT c32 = RESULT(0.0);
  RESULT c33 = RESULT(0.0);
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
      coopMatLoadNV(c20, tc_out, (row0 + srow + 32u) * N + col0 + scol + 0u, N, false);
      coopMatLoadNV(c21, tc_out, (row0 + srow + 32u) * N + col0 + scol + 16u, N, false);
      coopMatLoadNV(c22, tc_out, (row0 + srow + 32u) * N + col0 + scol + 32u, N, false);
      coopMatLoadNV(c23, tc_out, (row0 + srow + 32u) * N + col0 + scol + 48u, N, false);
      coopMatLoadNV(c30, tc_out, (row0 + srow + 48u) * N + col0 + scol + 0u, N, false);
      coopMatLoadNV(c31, tc_out, (row0 + srow + 48u) * N + col0 + scol + 16u, N, false);
      coopMatLoadNV(c32, tc_out, (row0 + srow + 48u) * N + col0 + scol + 32u, N, false);
      coopMatLoadNV(c33, tc_out, (row0 + srow + 48u) * N + col0 + scol + 48u, N, false);
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
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 0u, M, N);
      barrier();
      coopMatLoadNV(c20, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 16u, M, N);
      barrier();
      coopMatLoadNV(c21, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 32u, M, N);
      barrier();
      coopMatLoadNV(c22, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 48u, M, N);
      barrier();
      coopMatLoadNV(c23, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 0u, M, N);
      barrier();
      coopMatLoadNV(c30, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 16u, M, N);
      barrier();
      coopMatLoadNV(c31, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 32u, M, N);
      barrier();
      coopMatLoadNV(c32, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 48u, M, N);
      barrier();
      coopMatLoadNV(c33, tile_c, cbase, 16u, false);
    }
  }

  const uint steps = (K + 15u) / 16u;
  f16vec4 ra0;
  f16vec4 ra1;
  f16vec4 ra2;
  f16vec4 ra3;
  f16vec4 rb0;
  f16vec4 rb1;
  f16vec4 rb2;
  f16vec4 rb3;
  f16vec4 ra0_1;
  f16vec4 ra1_1;
  f16vec4 ra2_1;
  f16vec4 ra3_1;
  f16vec4 rb0_1;
  f16vec4 rb1_1;
  f16vec4 rb2_1;
  f16vec4 rb3_1;
  // Tiles s + 2 are fetched into registers while step s multiplies, and stored into workgroup
  // memory after step s + 1 has multiplied: their loads have two steps to arrive.
  if (steps > 0u) {  // the first K step's tiles, and the second's into the other registers
    if (!ta) {  // stored [m][k]
      if (row0 + 128u <= a_rows && 0u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
        ra0 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + 0u + ((lid) & 3u) * 4u) / 4u];
        ra1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + 0u + ((lid + 256u) & 3u) * 4u) / 4u];
      } else {
        ra0 = fetch_a(row0 + ((lid) >> 2u), 0u + ((lid) & 3u) * 4u, a_rows, a_ld);
        ra1 = fetch_a(row0 + ((lid + 256u) >> 2u), 0u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
      }
    } else {  // stored [k][m]: 4x4 blocks
      if (lid < 128u) {  // 128 blocks
        const uint ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
        const uint ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
        if (0u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
          ra0 = ta_in[((0u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra1 = ta_in[((0u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra2 = ta_in[((0u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra3 = ta_in[((0u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
        } else {
          ra0 = fetch_a(0u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
          ra1 = fetch_a(0u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
          ra2 = fetch_a(0u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
          ra3 = fetch_a(0u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
        }
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 256u <= b_rows && 0u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + 0u + ((lid) & 3u) * 4u) / 4u];
        rb1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + 0u + ((lid + 256u) & 3u) * 4u) / 4u];
        rb2 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + 0u + ((lid + 512u) & 3u) * 4u) / 4u];
        rb3 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + 0u + ((lid + 768u) & 3u) * 4u) / 4u];
      } else {
        rb0 = fetch_b(col0 + ((lid) >> 2u), 0u + ((lid) & 3u) * 4u, b_rows, b_ld);
        rb1 = fetch_b(col0 + ((lid + 256u) >> 2u), 0u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
        rb2 = fetch_b(col0 + ((lid + 512u) >> 2u), 0u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
        rb3 = fetch_b(col0 + ((lid + 768u) >> 2u), 0u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
      }
    } else {  // stored [k][n]: 4x4 blocks
      const uint br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
      const uint bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
      if (0u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0 = tb_in[((0u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
        rb1 = tb_in[((0u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
        rb2 = tb_in[((0u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
        rb3 = tb_in[((0u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
      } else {
        rb0 = fetch_b(0u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
        rb1 = fetch_b(0u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
        rb2 = fetch_b(0u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
        rb3 = fetch_b(0u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
      }
    }
    if (!ta) {
      const uint oa0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra0.y;
      tile_a[oa0 + 2u] = ra0.z;
      tile_a[oa0 + 3u] = ra0.w;
      const uint oa1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
      tile_a[oa1] = ra1.x;
      tile_a[oa1 + 1u] = ra1.y;
      tile_a[oa1 + 2u] = ra1.z;
      tile_a[oa1 + 3u] = ra1.w;
    } else {
      if (lid < 128u) {
        const uint oa0 = (((((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 7u) * 4u + ((lid) & 3u)) * 4u;
        tile_a[oa0] = ra0.x;
        tile_a[oa0 + 1u] = ra1.x;
        tile_a[oa0 + 2u] = ra2.x;
        tile_a[oa0 + 3u] = ra3.x;
        tile_a[oa0 + 24u] = ra0.y;
        tile_a[oa0 + 25u] = ra1.y;
        tile_a[oa0 + 26u] = ra2.y;
        tile_a[oa0 + 27u] = ra3.y;
        tile_a[oa0 + 48u] = ra0.z;
        tile_a[oa0 + 49u] = ra1.z;
        tile_a[oa0 + 50u] = ra2.z;
        tile_a[oa0 + 51u] = ra3.z;
        tile_a[oa0 + 72u] = ra0.w;
        tile_a[oa0 + 73u] = ra1.w;
        tile_a[oa0 + 74u] = ra2.w;
        tile_a[oa0 + 75u] = ra3.w;
      }
    }
    if (tb) {
      const uint ob0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb0.y;
      tile_b[ob0 + 2u] = rb0.z;
      tile_b[ob0 + 3u] = rb0.w;
      const uint ob1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
      tile_b[ob1] = rb1.x;
      tile_b[ob1 + 1u] = rb1.y;
      tile_b[ob1 + 2u] = rb1.z;
      tile_b[ob1 + 3u] = rb1.w;
      const uint ob2 = ((lid + 512u) >> 2u) * 24u + ((lid + 512u) & 3u) * 4u;
      tile_b[ob2] = rb2.x;
      tile_b[ob2 + 1u] = rb2.y;
      tile_b[ob2 + 2u] = rb2.z;
      tile_b[ob2 + 3u] = rb2.w;
      const uint ob3 = ((lid + 768u) >> 2u) * 24u + ((lid + 768u) & 3u) * 4u;
      tile_b[ob3] = rb3.x;
      tile_b[ob3 + 1u] = rb3.y;
      tile_b[ob3 + 2u] = rb3.z;
      tile_b[ob3 + 3u] = rb3.w;
    } else {
      const uint ob0 = (((((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 8u) * 4u + ((lid) & 3u)) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb1.x;
      tile_b[ob0 + 2u] = rb2.x;
      tile_b[ob0 + 3u] = rb3.x;
      tile_b[ob0 + 24u] = rb0.y;
      tile_b[ob0 + 25u] = rb1.y;
      tile_b[ob0 + 26u] = rb2.y;
      tile_b[ob0 + 27u] = rb3.y;
      tile_b[ob0 + 48u] = rb0.z;
      tile_b[ob0 + 49u] = rb1.z;
      tile_b[ob0 + 50u] = rb2.z;
      tile_b[ob0 + 51u] = rb3.z;
      tile_b[ob0 + 72u] = rb0.w;
      tile_b[ob0 + 73u] = rb1.w;
      tile_b[ob0 + 74u] = rb2.w;
      tile_b[ob0 + 75u] = rb3.w;
    }
  }
  if (steps > 1u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 128u <= a_rows && 16u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
        ra0_1 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + 16u + ((lid) & 3u) * 4u) / 4u];
        ra1_1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + 16u + ((lid + 256u) & 3u) * 4u) / 4u];
      } else {
        ra0_1 = fetch_a(row0 + ((lid) >> 2u), 16u + ((lid) & 3u) * 4u, a_rows, a_ld);
        ra1_1 = fetch_a(row0 + ((lid + 256u) >> 2u), 16u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
      }
    } else {  // stored [k][m]: 4x4 blocks
      if (lid < 128u) {  // 128 blocks
        const uint ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
        const uint ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
        if (16u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
          ra0_1 = ta_in[((16u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra1_1 = ta_in[((16u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra2_1 = ta_in[((16u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra3_1 = ta_in[((16u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
        } else {
          ra0_1 = fetch_a(16u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
          ra1_1 = fetch_a(16u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
          ra2_1 = fetch_a(16u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
          ra3_1 = fetch_a(16u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
        }
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 256u <= b_rows && 16u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0_1 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + 16u + ((lid) & 3u) * 4u) / 4u];
        rb1_1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + 16u + ((lid + 256u) & 3u) * 4u) / 4u];
        rb2_1 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + 16u + ((lid + 512u) & 3u) * 4u) / 4u];
        rb3_1 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + 16u + ((lid + 768u) & 3u) * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(col0 + ((lid) >> 2u), 16u + ((lid) & 3u) * 4u, b_rows, b_ld);
        rb1_1 = fetch_b(col0 + ((lid + 256u) >> 2u), 16u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
        rb2_1 = fetch_b(col0 + ((lid + 512u) >> 2u), 16u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
        rb3_1 = fetch_b(col0 + ((lid + 768u) >> 2u), 16u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
      }
    } else {  // stored [k][n]: 4x4 blocks
      const uint br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
      const uint bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
      if (16u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0_1 = tb_in[((16u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
        rb1_1 = tb_in[((16u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
        rb2_1 = tb_in[((16u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
        rb3_1 = tb_in[((16u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(16u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
        rb1_1 = fetch_b(16u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
        rb2_1 = fetch_b(16u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
        rb3_1 = fetch_b(16u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
      }
    }
  }
  barrier();

  for (uint s = 0u; s < steps; s += 2u) {
    // even step s: buffer 0 holds its tiles, the registers _1 step s + 1's
    if (s + 2u < steps) {
      if (!ta) {  // stored [m][k]
        if (row0 + 128u <= a_rows && (s + 2u) * 16u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
          ra0 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + (s + 2u) * 16u + ((lid) & 3u) * 4u) / 4u];
          ra1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
        } else {
          ra0 = fetch_a(row0 + ((lid) >> 2u), (s + 2u) * 16u + ((lid) & 3u) * 4u, a_rows, a_ld);
          ra1 = fetch_a(row0 + ((lid + 256u) >> 2u), (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
        }
      } else {  // stored [k][m]: 4x4 blocks
        if (lid < 128u) {  // 128 blocks
          const uint ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
          const uint ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
          if ((s + 2u) * 16u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
            ra0 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
            ra1 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
            ra2 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
            ra3 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
          } else {
            ra0 = fetch_a((s + 2u) * 16u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
            ra1 = fetch_a((s + 2u) * 16u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
            ra2 = fetch_a((s + 2u) * 16u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
            ra3 = fetch_a((s + 2u) * 16u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
          }
        }
      }
      if (tb) {  // stored [n][k]
        if (col0 + 256u <= b_rows && (s + 2u) * 16u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
          rb0 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid) & 3u) * 4u) / 4u];
          rb1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
          rb2 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid + 512u) & 3u) * 4u) / 4u];
          rb3 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid + 768u) & 3u) * 4u) / 4u];
        } else {
          rb0 = fetch_b(col0 + ((lid) >> 2u), (s + 2u) * 16u + ((lid) & 3u) * 4u, b_rows, b_ld);
          rb1 = fetch_b(col0 + ((lid + 256u) >> 2u), (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
          rb2 = fetch_b(col0 + ((lid + 512u) >> 2u), (s + 2u) * 16u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
          rb3 = fetch_b(col0 + ((lid + 768u) >> 2u), (s + 2u) * 16u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
        }
      } else {  // stored [k][n]: 4x4 blocks
        const uint br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
        const uint bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
        if ((s + 2u) * 16u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
          rb0 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
          rb1 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
          rb2 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
          rb3 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
        } else {
          rb0 = fetch_b((s + 2u) * 16u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
          rb1 = fetch_b((s + 2u) * 16u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
          rb2 = fetch_b((s + 2u) * 16u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
          rb3 = fetch_b((s + 2u) * 16u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
        }
      }
    }
    {  // k 0 .. 15 of the step
      RIGHT b0;
      coopMatLoadNV(b0, tile_b, (scol + 0u) * 24u + 0u, 24u, true);
      RIGHT b1;
      coopMatLoadNV(b1, tile_b, (scol + 16u) * 24u + 0u, 24u, true);
      RIGHT b2;
      coopMatLoadNV(b2, tile_b, (scol + 32u) * 24u + 0u, 24u, true);
      RIGHT b3;
      coopMatLoadNV(b3, tile_b, (scol + 48u) * 24u + 0u, 24u, true);
      LEFT a0;
      coopMatLoadNV(a0, tile_a, (srow + 0u) * 24u + 0u, 24u, false);
      LEFT a1;
      coopMatLoadNV(a1, tile_a, (srow + 16u) * 24u + 0u, 24u, false);
      LEFT a2;
      coopMatLoadNV(a2, tile_a, (srow + 32u) * 24u + 0u, 24u, false);
      LEFT a3;
      coopMatLoadNV(a3, tile_a, (srow + 48u) * 24u + 0u, 24u, false);
      c00 = coopMatMulAddNV(a0, b0, c00);
      c01 = coopMatMulAddNV(a0, b1, c01);
      c02 = coopMatMulAddNV(a0, b2, c02);
      c03 = coopMatMulAddNV(a0, b3, c03);
      c10 = coopMatMulAddNV(a1, b0, c10);
      c11 = coopMatMulAddNV(a1, b1, c11);
      c12 = coopMatMulAddNV(a1, b2, c12);
      c13 = coopMatMulAddNV(a1, b3, c13);
      c20 = coopMatMulAddNV(a2, b0, c20);
      c21 = coopMatMulAddNV(a2, b1, c21);
      c22 = coopMatMulAddNV(a2, b2, c22);
      c23 = coopMatMulAddNV(a2, b3, c23);
      c30 = coopMatMulAddNV(a3, b0, c30);
      c31 = coopMatMulAddNV(a3, b1, c31);
      c32 = coopMatMulAddNV(a3, b2, c32);
      c33 = coopMatMulAddNV(a3, b3, c33);
    }
    if (s + 1u < steps) {  // into buffer 1, last read in step s - 1
      if (!ta) {
        const uint oa0 = 3072u + ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
        tile_a[oa0] = ra0_1.x;
        tile_a[oa0 + 1u] = ra0_1.y;
        tile_a[oa0 + 2u] = ra0_1.z;
        tile_a[oa0 + 3u] = ra0_1.w;
        const uint oa1 = 3072u + ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
        tile_a[oa1] = ra1_1.x;
        tile_a[oa1 + 1u] = ra1_1.y;
        tile_a[oa1 + 2u] = ra1_1.z;
        tile_a[oa1 + 3u] = ra1_1.w;
      } else {
        if (lid < 128u) {
          const uint oa0 = 3072u + (((((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 7u) * 4u + ((lid) & 3u)) * 4u;
          tile_a[oa0] = ra0_1.x;
          tile_a[oa0 + 1u] = ra1_1.x;
          tile_a[oa0 + 2u] = ra2_1.x;
          tile_a[oa0 + 3u] = ra3_1.x;
          tile_a[oa0 + 24u] = ra0_1.y;
          tile_a[oa0 + 25u] = ra1_1.y;
          tile_a[oa0 + 26u] = ra2_1.y;
          tile_a[oa0 + 27u] = ra3_1.y;
          tile_a[oa0 + 48u] = ra0_1.z;
          tile_a[oa0 + 49u] = ra1_1.z;
          tile_a[oa0 + 50u] = ra2_1.z;
          tile_a[oa0 + 51u] = ra3_1.z;
          tile_a[oa0 + 72u] = ra0_1.w;
          tile_a[oa0 + 73u] = ra1_1.w;
          tile_a[oa0 + 74u] = ra2_1.w;
          tile_a[oa0 + 75u] = ra3_1.w;
        }
      }
      if (tb) {
        const uint ob0 = 6144u + ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
        tile_b[ob0] = rb0_1.x;
        tile_b[ob0 + 1u] = rb0_1.y;
        tile_b[ob0 + 2u] = rb0_1.z;
        tile_b[ob0 + 3u] = rb0_1.w;
        const uint ob1 = 6144u + ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
        tile_b[ob1] = rb1_1.x;
        tile_b[ob1 + 1u] = rb1_1.y;
        tile_b[ob1 + 2u] = rb1_1.z;
        tile_b[ob1 + 3u] = rb1_1.w;
        const uint ob2 = 6144u + ((lid + 512u) >> 2u) * 24u + ((lid + 512u) & 3u) * 4u;
        tile_b[ob2] = rb2_1.x;
        tile_b[ob2 + 1u] = rb2_1.y;
        tile_b[ob2 + 2u] = rb2_1.z;
        tile_b[ob2 + 3u] = rb2_1.w;
        const uint ob3 = 6144u + ((lid + 768u) >> 2u) * 24u + ((lid + 768u) & 3u) * 4u;
        tile_b[ob3] = rb3_1.x;
        tile_b[ob3 + 1u] = rb3_1.y;
        tile_b[ob3 + 2u] = rb3_1.z;
        tile_b[ob3 + 3u] = rb3_1.w;
      } else {
        const uint ob0 = 6144u + (((((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 8u) * 4u + ((lid) & 3u)) * 4u;
        tile_b[ob0] = rb0_1.x;
        tile_b[ob0 + 1u] = rb1_1.x;
        tile_b[ob0 + 2u] = rb2_1.x;
        tile_b[ob0 + 3u] = rb3_1.x;
        tile_b[ob0 + 24u] = rb0_1.y;
        tile_b[ob0 + 25u] = rb1_1.y;
        tile_b[ob0 + 26u] = rb2_1.y;
        tile_b[ob0 + 27u] = rb3_1.y;
        tile_b[ob0 + 48u] = rb0_1.z;
        tile_b[ob0 + 49u] = rb1_1.z;
        tile_b[ob0 + 50u] = rb2_1.z;
        tile_b[ob0 + 51u] = rb3_1.z;
        tile_b[ob0 + 72u] = rb0_1.w;
        tile_b[ob0 + 73u] = rb1_1.w;
        tile_b[ob0 + 74u] = rb2_1.w;
        tile_b[ob0 + 75u] = rb3_1.w;
      }
    }
    barrier();
    if (s + 1u < steps) {  // odd step s + 1: buffer 1, the registers hold step s + 2's
      if (s + 3u < steps) {
        if (!ta) {  // stored [m][k]
          if (row0 + 128u <= a_rows && (s + 3u) * 16u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
            ra0_1 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + (s + 3u) * 16u + ((lid) & 3u) * 4u) / 4u];
            ra1_1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
          } else {
            ra0_1 = fetch_a(row0 + ((lid) >> 2u), (s + 3u) * 16u + ((lid) & 3u) * 4u, a_rows, a_ld);
            ra1_1 = fetch_a(row0 + ((lid + 256u) >> 2u), (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
          }
        } else {  // stored [k][m]: 4x4 blocks
          if (lid < 128u) {  // 128 blocks
            const uint ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
            const uint ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
            if ((s + 3u) * 16u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
              ra0_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
              ra1_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
              ra2_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
              ra3_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
              ra1_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
              ra2_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
              ra3_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
            }
          }
        }
        if (tb) {  // stored [n][k]
          if (col0 + 256u <= b_rows && (s + 3u) * 16u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
            rb0_1 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid) & 3u) * 4u) / 4u];
            rb1_1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
            rb2_1 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid + 512u) & 3u) * 4u) / 4u];
            rb3_1 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid + 768u) & 3u) * 4u) / 4u];
          } else {
            rb0_1 = fetch_b(col0 + ((lid) >> 2u), (s + 3u) * 16u + ((lid) & 3u) * 4u, b_rows, b_ld);
            rb1_1 = fetch_b(col0 + ((lid + 256u) >> 2u), (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
            rb2_1 = fetch_b(col0 + ((lid + 512u) >> 2u), (s + 3u) * 16u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
            rb3_1 = fetch_b(col0 + ((lid + 768u) >> 2u), (s + 3u) * 16u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
          }
        } else {  // stored [k][n]: 4x4 blocks
          const uint br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
          const uint bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
          if ((s + 3u) * 16u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
            rb0_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
            rb1_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
            rb2_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
            rb3_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
          } else {
            rb0_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
            rb1_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
            rb2_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
            rb3_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
          }
        }
      }
      {  // k 0 .. 15 of the step
        RIGHT b0;
        coopMatLoadNV(b0, tile_b, 6144u + (scol + 0u) * 24u + 0u, 24u, true);
        RIGHT b1;
        coopMatLoadNV(b1, tile_b, 6144u + (scol + 16u) * 24u + 0u, 24u, true);
        RIGHT b2;
        coopMatLoadNV(b2, tile_b, 6144u + (scol + 32u) * 24u + 0u, 24u, true);
        RIGHT b3;
        coopMatLoadNV(b3, tile_b, 6144u + (scol + 48u) * 24u + 0u, 24u, true);
        LEFT a0;
        coopMatLoadNV(a0, tile_a, 3072u + (srow + 0u) * 24u + 0u, 24u, false);
        LEFT a1;
        coopMatLoadNV(a1, tile_a, 3072u + (srow + 16u) * 24u + 0u, 24u, false);
        LEFT a2;
        coopMatLoadNV(a2, tile_a, 3072u + (srow + 32u) * 24u + 0u, 24u, false);
        LEFT a3;
        coopMatLoadNV(a3, tile_a, 3072u + (srow + 48u) * 24u + 0u, 24u, false);
        c00 = coopMatMulAddNV(a0, b0, c00);
        c01 = coopMatMulAddNV(a0, b1, c01);
        c02 = coopMatMulAddNV(a0, b2, c02);
        c03 = coopMatMulAddNV(a0, b3, c03);
        c10 = coopMatMulAddNV(a1, b0, c10);
        c11 = coopMatMulAddNV(a1, b1, c11);
        c12 = coopMatMulAddNV(a1, b2, c12);
        c13 = coopMatMulAddNV(a1, b3, c13);
        c20 = coopMatMulAddNV(a2, b0, c20);
        c21 = coopMatMulAddNV(a2, b1, c21);
        c22 = coopMatMulAddNV(a2, b2, c22);
        c23 = coopMatMulAddNV(a2, b3, c23);
        c30 = coopMatMulAddNV(a3, b0, c30);
        c31 = coopMatMulAddNV(a3, b1, c31);
        c32 = coopMatMulAddNV(a3, b2, c32);
        c33 = coopMatMulAddNV(a3, b3, c33);
      }
      if (s + 2u < steps) {  // into buffer 0, last read in step s
        if (!ta) {
          const uint oa0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
          tile_a[oa0] = ra0.x;
          tile_a[oa0 + 1u] = ra0.y;
          tile_a[oa0 + 2u] = ra0.z;
          tile_a[oa0 + 3u] = ra0.w;
          const uint oa1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
          tile_a[oa1] = ra1.x;
          tile_a[oa1 + 1u] = ra1.y;
          tile_a[oa1 + 2u] = ra1.z;
          tile_a[oa1 + 3u] = ra1.w;
        } else {
          if (lid < 128u) {
            const uint oa0 = (((((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 7u) * 4u + ((lid) & 3u)) * 4u;
            tile_a[oa0] = ra0.x;
            tile_a[oa0 + 1u] = ra1.x;
            tile_a[oa0 + 2u] = ra2.x;
            tile_a[oa0 + 3u] = ra3.x;
            tile_a[oa0 + 24u] = ra0.y;
            tile_a[oa0 + 25u] = ra1.y;
            tile_a[oa0 + 26u] = ra2.y;
            tile_a[oa0 + 27u] = ra3.y;
            tile_a[oa0 + 48u] = ra0.z;
            tile_a[oa0 + 49u] = ra1.z;
            tile_a[oa0 + 50u] = ra2.z;
            tile_a[oa0 + 51u] = ra3.z;
            tile_a[oa0 + 72u] = ra0.w;
            tile_a[oa0 + 73u] = ra1.w;
            tile_a[oa0 + 74u] = ra2.w;
            tile_a[oa0 + 75u] = ra3.w;
          }
        }
        if (tb) {
          const uint ob0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
          tile_b[ob0] = rb0.x;
          tile_b[ob0 + 1u] = rb0.y;
          tile_b[ob0 + 2u] = rb0.z;
          tile_b[ob0 + 3u] = rb0.w;
          const uint ob1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
          tile_b[ob1] = rb1.x;
          tile_b[ob1 + 1u] = rb1.y;
          tile_b[ob1 + 2u] = rb1.z;
          tile_b[ob1 + 3u] = rb1.w;
          const uint ob2 = ((lid + 512u) >> 2u) * 24u + ((lid + 512u) & 3u) * 4u;
          tile_b[ob2] = rb2.x;
          tile_b[ob2 + 1u] = rb2.y;
          tile_b[ob2 + 2u] = rb2.z;
          tile_b[ob2 + 3u] = rb2.w;
          const uint ob3 = ((lid + 768u) >> 2u) * 24u + ((lid + 768u) & 3u) * 4u;
          tile_b[ob3] = rb3.x;
          tile_b[ob3 + 1u] = rb3.y;
          tile_b[ob3 + 2u] = rb3.z;
          tile_b[ob3 + 3u] = rb3.w;
        } else {
          const uint ob0 = (((((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 8u) * 4u + ((lid) & 3u)) * 4u;
          tile_b[ob0] = rb0.x;
          tile_b[ob0 + 1u] = rb1.x;
          tile_b[ob0 + 2u] = rb2.x;
          tile_b[ob0 + 3u] = rb3.x;
          tile_b[ob0 + 24u] = rb0.y;
          tile_b[ob0 + 25u] = rb1.y;
          tile_b[ob0 + 26u] = rb2.y;
          tile_b[ob0 + 27u] = rb3.y;
          tile_b[ob0 + 48u] = rb0.z;
          tile_b[ob0 + 49u] = rb1.z;
          tile_b[ob0 + 50u] = rb2.z;
          tile_b[ob0 + 51u] = rb3.z;
          tile_b[ob0 + 72u] = rb0.w;
          tile_b[ob0 + 73u] = rb1.w;
          tile_b[ob0 + 74u] = rb2.w;
          tile_b[ob0 + 75u] = rb3.w;
        }
      }
      barrier();
    }
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
    coopMatStoreNV(c20, tc_out, (row0 + srow + 32u) * N + col0 + scol + 0u, N, false);
    coopMatStoreNV(c21, tc_out, (row0 + srow + 32u) * N + col0 + scol + 16u, N, false);
    coopMatStoreNV(c22, tc_out, (row0 + srow + 32u) * N + col0 + scol + 32u, N, false);
    coopMatStoreNV(c23, tc_out, (row0 + srow + 32u) * N + col0 + scol + 48u, N, false);
    coopMatStoreNV(c30, tc_out, (row0 + srow + 48u) * N + col0 + scol + 0u, N, false);
    coopMatStoreNV(c31, tc_out, (row0 + srow + 48u) * N + col0 + scol + 16u, N, false);
    coopMatStoreNV(c32, tc_out, (row0 + srow + 48u) * N + col0 + scol + 32u, N, false);
    coopMatStoreNV(c33, tc_out, (row0 + srow + 48u) * N + col0 + scol + 48u, N, false);
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
    barrier();
    coopMatStoreNV(c20, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 0u, M, N);
    barrier();
    coopMatStoreNV(c21, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 16u, M, N);
    barrier();
    coopMatStoreNV(c22, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 32u, M, N);
    barrier();
    coopMatStoreNV(c23, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 48u, M, N);
    barrier();
    coopMatStoreNV(c30, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 0u, M, N);
    barrier();
    coopMatStoreNV(c31, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 16u, M, N);
    barrier();
    coopMatStoreNV(c32, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 32u, M, N);
    barrier();
    coopMatStoreNV(c33, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 48u, M, N);
  }
}
