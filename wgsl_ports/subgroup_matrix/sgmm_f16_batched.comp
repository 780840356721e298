#version 450
// Port of chromium_experimental/subgroup_matrix_batched.wgsl: sgmm_f16_batched (ours), line by line,
// with GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16_tiled4_d4.comp.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require

#define LEFT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define RIGHT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define RESULT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

layout(local_size_x = 32, local_size_y = 4, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer TA { f16vec4 ta_in[]; };
layout(set = 0, binding = 1, std430) readonly buffer TB { f16vec4 tb_in[]; };
layout(set = 0, binding = 2, std430) buffer TC { float tc_out[]; };
// WGSL: struct BatchDims { mnkf, ld, ab, cb, off: vec4<u32> } (the batch's layout: the WGSL's comment)
layout(set = 0, binding = 3, std140) uniform BatchDims {
  uvec4 mnkf;
  uvec4 ld;
  uvec4 ab;
  uvec4 cb;
  uvec4 off;
} tdims;

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ACCUMULATE = 8u;

shared float16_t tile_a[5120];  // 2 x A [64][32 + 8]
shared float16_t tile_b[5120];  // 2 x B [64][32 + 8] (n, k)
shared float tile_c[1024];  // one [16][16] C tile per subgroup (edge blocks)

// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix whose row r starts at
// element base + r * rs of the buffer, zeros outside it.
f16vec4 fetch_a(uint base, uint row, uint col, uint rows, uint ld, uint rs) {
  const uint i = base + row * rs + col;
  if (row < rows && col + 4u <= ld && i % 4u == 0u) {
    return ta_in[i / 4u];
  }
  f16vec4 v = f16vec4(0.0);
  if (row < rows && col + 0u < ld) {
    const uint i0 = i + 0u;
    v.x = ta_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    const uint i1 = i + 1u;
    v.y = ta_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    const uint i2 = i + 2u;
    v.z = ta_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    const uint i3 = i + 3u;
    v.w = ta_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

f16vec4 fetch_b(uint base, uint row, uint col, uint rows, uint ld, uint rs) {
  const uint i = base + row * rs + col;
  if (row < rows && col + 4u <= ld && i % 4u == 0u) {
    return tb_in[i / 4u];
  }
  f16vec4 v = f16vec4(0.0);
  if (row < rows && col + 0u < ld) {
    const uint i0 = i + 0u;
    v.x = tb_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    const uint i1 = i + 1u;
    v.y = tb_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    const uint i2 = i + 2u;
    v.z = tb_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    const uint i3 = i + 3u;
    v.w = tb_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

// Edge blocks: C tile (r, c) of this subgroup between the buffer and workgroup memory, inside C.
void c_in(uint base, uint lx, uint r, uint c, uint M, uint N, uint cb, uint ldc) {
  for (uint e = lx; e < 256u; e += 32u) {
    const uint gr = r + e / 16u;
    const uint gc = c + e % 16u;
    tile_c[base + e] = 0.0;
    if (gr < M && gc < N) {
      tile_c[base + e] = tc_out[cb + gr * ldc + gc];
    }
  }
}

void c_out(uint base, uint lx, uint r, uint c, uint M, uint N, uint cb, uint ldc) {
  for (uint e = lx; e < 256u; e += 32u) {
    const uint gr = r + e / 16u;
    const uint gc = c + e % 16u;
    if (gr < M && gc < N) {
      tc_out[cb + gr * ldc + gc] = tile_c[base + e];
    }
  }
}

void main() {
  const uvec3 wid = gl_WorkGroupID;
  const uvec3 lxy = gl_LocalInvocationID;
  const uint lid = gl_LocalInvocationIndex;
  const uint M = tdims.mnkf.x;
  const uint N = tdims.mnkf.y;
  const uint K = tdims.mnkf.z;
  const uint flags = tdims.mnkf.w;
  const bool ta = (flags & TRANS_A) != 0u;
  const bool tb = (flags & TRANS_B) != 0u;

  // This workgroup's product of the batch: z = outer index * inner count + inner index.
  const uint bo = wid.z / tdims.ld.w;
  const uint bi = wid.z % tdims.ld.w;
  const uint a_base = tdims.off.x + bo * tdims.ab.x + bi * tdims.ab.y;
  const uint b_base = tdims.off.y + bo * tdims.ab.z + bi * tdims.ab.w;
  const uint c_base = tdims.off.z + bo * tdims.cb.x + bi * tdims.cb.y;
  const uint a_rs = tdims.ld.x;
  const uint b_rs = tdims.ld.y;
  const uint ldc = tdims.ld.z;
  const bool a_al = a_rs % 4u == 0u && a_base % 4u == 0u;  // rows of whole vec4<f16>s
  const bool b_al = b_rs % 4u == 0u && b_base % 4u == 0u;

  // The block: dispatch order walks 8 block rows per block column.
  const uint gx = (N + 63u) / 64u;
  const uint gy = (M + 63u) / 64u;
  const uint pid = wid.y * gx + wid.x;
  const uint grow = (pid / (8u * gx)) * 8u;
  const uint rows_g = min(gy - grow, 8u);
  const uint inner = pid % (8u * gx);
  const uint row0 = (grow + inner % rows_g) * 64u;
  const uint col0 = (inner / rows_g) * 64u;

  const uint sg = lxy.y;  // this subgroup's 32x32 part of the block
  const uint srow = (sg / 2u) * 32u;
  const uint scol = (sg % 2u) * 32u;
  const uint cbase = sg * 256u;  // its C tile in workgroup memory
  const bool direct_c = row0 + 64u <= M && col0 + 64u <= N && ldc % 4u == 0u && c_base % 4u == 0u;
  const uint a_rows = (ta ? K : M);
  const uint a_ld = (ta ? M : K);
  const uint b_rows = (tb ? N : K);
  const uint b_ld = (tb ? K : N);

  // The subgroup's result matrices, named (an array indexed in loops went to local memory).
  RESULT c00 = RESULT(0.0);
  RESULT c01 = RESULT(0.0);
  RESULT c10 = RESULT(0.0);
  RESULT c11 = RESULT(0.0);
  if ((flags & ACCUMULATE) != 0u) {
    if (direct_c) {
      coopMatLoadNV(c00, tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 0u, ldc, false);
      coopMatLoadNV(c01, tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 16u, ldc, false);
      coopMatLoadNV(c10, tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 0u, ldc, false);
      coopMatLoadNV(c11, tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 16u, ldc, false);
    } else {
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N, c_base, ldc);
      barrier();
      coopMatLoadNV(c00, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N, c_base, ldc);
      barrier();
      coopMatLoadNV(c01, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N, c_base, ldc);
      barrier();
      coopMatLoadNV(c10, tile_c, cbase, 16u, false);
      barrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N, c_base, ldc);
      barrier();
      coopMatLoadNV(c11, tile_c, cbase, 16u, false);
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
  f16vec4 ra0_1;
  f16vec4 ra1_1;
  f16vec4 ra2_1;
  f16vec4 ra3_1;
  f16vec4 rb0_1;
  f16vec4 rb1_1;
  f16vec4 rb2_1;
  f16vec4 rb3_1;
  f16vec4 ra0_2;
  f16vec4 ra1_2;
  f16vec4 ra2_2;
  f16vec4 ra3_2;
  f16vec4 rb0_2;
  f16vec4 rb1_2;
  f16vec4 rb2_2;
  f16vec4 rb3_2;
  f16vec4 ra0_3;
  f16vec4 ra1_3;
  f16vec4 ra2_3;
  f16vec4 ra3_3;
  f16vec4 rb0_3;
  f16vec4 rb1_3;
  f16vec4 rb2_3;
  f16vec4 rb3_3;
  // Tiles s + 4 are fetched into registers while step s multiplies, and stored into
  // workgroup memory after step s + 3 has multiplied.
  if (steps > 0u) {  // the first K step's tiles, and the next ones' into the other registers
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 0u + 32u <= a_ld && a_al) {  // inside
        ra0 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 0u + ((lid) & 7u) * 4u) / 4u];
        ra1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 0u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 0u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 0u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0 = fetch_a(a_base, row0 + ((lid) >> 3u), 0u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 0u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 0u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 0u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (0u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0 = ta_in[(a_base + (0u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1 = ta_in[(a_base + (0u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2 = ta_in[(a_base + (0u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3 = ta_in[(a_base + (0u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0 = fetch_a(a_base, 0u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1 = fetch_a(a_base, 0u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2 = fetch_a(a_base, 0u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3 = fetch_a(a_base, 0u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 0u + 32u <= b_ld && b_al) {  // inside
        rb0 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 0u + ((lid) & 7u) * 4u) / 4u];
        rb1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 0u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 0u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 0u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0 = fetch_b(b_base, col0 + ((lid) >> 3u), 0u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 0u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 0u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 0u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (0u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0 = tb_in[(b_base + (0u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1 = tb_in[(b_base + (0u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2 = tb_in[(b_base + (0u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3 = tb_in[(b_base + (0u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0 = fetch_b(b_base, 0u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1 = fetch_b(b_base, 0u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2 = fetch_b(b_base, 0u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3 = fetch_b(b_base, 0u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
    if (!ta) {
      const uint oa0 = ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra0.y;
      tile_a[oa0 + 2u] = ra0.z;
      tile_a[oa0 + 3u] = ra0.w;
      const uint oa1 = ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
      tile_a[oa1] = ra1.x;
      tile_a[oa1 + 1u] = ra1.y;
      tile_a[oa1 + 2u] = ra1.z;
      tile_a[oa1 + 3u] = ra1.w;
      const uint oa2 = ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
      tile_a[oa2] = ra2.x;
      tile_a[oa2 + 1u] = ra2.y;
      tile_a[oa2 + 2u] = ra2.z;
      tile_a[oa2 + 3u] = ra2.w;
      const uint oa3 = ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
      tile_a[oa3] = ra3.x;
      tile_a[oa3 + 1u] = ra3.y;
      tile_a[oa3 + 2u] = ra3.z;
      tile_a[oa3 + 3u] = ra3.w;
    } else {
      const uint oa0 = (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra1.x;
      tile_a[oa0 + 2u] = ra2.x;
      tile_a[oa0 + 3u] = ra3.x;
      tile_a[oa0 + 40u] = ra0.y;
      tile_a[oa0 + 41u] = ra1.y;
      tile_a[oa0 + 42u] = ra2.y;
      tile_a[oa0 + 43u] = ra3.y;
      tile_a[oa0 + 80u] = ra0.z;
      tile_a[oa0 + 81u] = ra1.z;
      tile_a[oa0 + 82u] = ra2.z;
      tile_a[oa0 + 83u] = ra3.z;
      tile_a[oa0 + 120u] = ra0.w;
      tile_a[oa0 + 121u] = ra1.w;
      tile_a[oa0 + 122u] = ra2.w;
      tile_a[oa0 + 123u] = ra3.w;
    }
    if (tb) {
      const uint ob0 = ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb0.y;
      tile_b[ob0 + 2u] = rb0.z;
      tile_b[ob0 + 3u] = rb0.w;
      const uint ob1 = ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
      tile_b[ob1] = rb1.x;
      tile_b[ob1 + 1u] = rb1.y;
      tile_b[ob1 + 2u] = rb1.z;
      tile_b[ob1 + 3u] = rb1.w;
      const uint ob2 = ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
      tile_b[ob2] = rb2.x;
      tile_b[ob2 + 1u] = rb2.y;
      tile_b[ob2 + 2u] = rb2.z;
      tile_b[ob2 + 3u] = rb2.w;
      const uint ob3 = ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
      tile_b[ob3] = rb3.x;
      tile_b[ob3 + 1u] = rb3.y;
      tile_b[ob3 + 2u] = rb3.z;
      tile_b[ob3 + 3u] = rb3.w;
    } else {
      const uint ob0 = (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb1.x;
      tile_b[ob0 + 2u] = rb2.x;
      tile_b[ob0 + 3u] = rb3.x;
      tile_b[ob0 + 40u] = rb0.y;
      tile_b[ob0 + 41u] = rb1.y;
      tile_b[ob0 + 42u] = rb2.y;
      tile_b[ob0 + 43u] = rb3.y;
      tile_b[ob0 + 80u] = rb0.z;
      tile_b[ob0 + 81u] = rb1.z;
      tile_b[ob0 + 82u] = rb2.z;
      tile_b[ob0 + 83u] = rb3.z;
      tile_b[ob0 + 120u] = rb0.w;
      tile_b[ob0 + 121u] = rb1.w;
      tile_b[ob0 + 122u] = rb2.w;
      tile_b[ob0 + 123u] = rb3.w;
    }
  }
  if (steps > 1u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 32u + 32u <= a_ld && a_al) {  // inside
        ra0_1 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 32u + ((lid) & 7u) * 4u) / 4u];
        ra1_1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 32u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2_1 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 32u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3_1 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 32u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0_1 = fetch_a(a_base, row0 + ((lid) >> 3u), 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1_1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2_1 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3_1 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0_1 = ta_in[(a_base + (32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1_1 = ta_in[(a_base + (32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2_1 = ta_in[(a_base + (32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3_1 = ta_in[(a_base + (32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0_1 = fetch_a(a_base, 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1_1 = fetch_a(a_base, 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2_1 = fetch_a(a_base, 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3_1 = fetch_a(a_base, 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 32u + 32u <= b_ld && b_al) {  // inside
        rb0_1 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 32u + ((lid) & 7u) * 4u) / 4u];
        rb1_1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 32u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2_1 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 32u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3_1 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 32u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(b_base, col0 + ((lid) >> 3u), 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1_1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2_1 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3_1 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0_1 = tb_in[(b_base + (32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1_1 = tb_in[(b_base + (32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2_1 = tb_in[(b_base + (32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3_1 = tb_in[(b_base + (32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(b_base, 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1_1 = fetch_b(b_base, 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2_1 = fetch_b(b_base, 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3_1 = fetch_b(b_base, 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
  }
  if (steps > 2u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 64u + 32u <= a_ld && a_al) {  // inside
        ra0_2 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 64u + ((lid) & 7u) * 4u) / 4u];
        ra1_2 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 64u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2_2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 64u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3_2 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 64u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0_2 = fetch_a(a_base, row0 + ((lid) >> 3u), 64u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1_2 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 64u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2_2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 64u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3_2 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 64u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (64u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0_2 = ta_in[(a_base + (64u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1_2 = ta_in[(a_base + (64u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2_2 = ta_in[(a_base + (64u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3_2 = ta_in[(a_base + (64u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0_2 = fetch_a(a_base, 64u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1_2 = fetch_a(a_base, 64u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2_2 = fetch_a(a_base, 64u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3_2 = fetch_a(a_base, 64u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 64u + 32u <= b_ld && b_al) {  // inside
        rb0_2 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 64u + ((lid) & 7u) * 4u) / 4u];
        rb1_2 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 64u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2_2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 64u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3_2 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 64u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0_2 = fetch_b(b_base, col0 + ((lid) >> 3u), 64u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1_2 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 64u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2_2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 64u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3_2 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 64u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (64u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0_2 = tb_in[(b_base + (64u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1_2 = tb_in[(b_base + (64u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2_2 = tb_in[(b_base + (64u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3_2 = tb_in[(b_base + (64u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0_2 = fetch_b(b_base, 64u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1_2 = fetch_b(b_base, 64u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2_2 = fetch_b(b_base, 64u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3_2 = fetch_b(b_base, 64u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
  }
  if (steps > 3u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 96u + 32u <= a_ld && a_al) {  // inside
        ra0_3 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 96u + ((lid) & 7u) * 4u) / 4u];
        ra1_3 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 96u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2_3 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 96u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3_3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 96u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0_3 = fetch_a(a_base, row0 + ((lid) >> 3u), 96u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1_3 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 96u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2_3 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 96u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3_3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 96u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (96u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0_3 = ta_in[(a_base + (96u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1_3 = ta_in[(a_base + (96u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2_3 = ta_in[(a_base + (96u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3_3 = ta_in[(a_base + (96u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0_3 = fetch_a(a_base, 96u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1_3 = fetch_a(a_base, 96u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2_3 = fetch_a(a_base, 96u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3_3 = fetch_a(a_base, 96u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 96u + 32u <= b_ld && b_al) {  // inside
        rb0_3 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 96u + ((lid) & 7u) * 4u) / 4u];
        rb1_3 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 96u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2_3 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 96u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3_3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 96u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0_3 = fetch_b(b_base, col0 + ((lid) >> 3u), 96u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1_3 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 96u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2_3 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 96u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3_3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 96u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (96u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0_3 = tb_in[(b_base + (96u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1_3 = tb_in[(b_base + (96u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2_3 = tb_in[(b_base + (96u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3_3 = tb_in[(b_base + (96u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0_3 = fetch_b(b_base, 96u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1_3 = fetch_b(b_base, 96u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2_3 = fetch_b(b_base, 96u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3_3 = fetch_b(b_base, 96u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
  }
  barrier();

  for (uint s = 0u; s < steps; s += 4u) {
    {  // step s + 0: its tiles in buffer (s + 0) % 2, register set 1 holds step s + 1's
      const uint cur0 = (s + 0u) % 2u;
      if (s + 4u < steps) {
        if (!ta) {  // stored [m][k]
          if (row0 + 64u <= a_rows && (s + 4u) * 32u + 32u <= a_ld && a_al) {  // inside
            ra0 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid) & 7u) * 4u) / 4u];
            ra1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
            ra2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
            ra3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
          } else {
            ra0 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 4u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
            ra1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
            ra2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
            ra3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
          }
        } else {  // stored [k][m]: 4x4 blocks
          const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
          const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
          if ((s + 4u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
            ra0 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
            ra1 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
            ra2 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
            ra3 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
          } else {
            ra0 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            ra1 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            ra2 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            ra3 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
          }
        }
        if (tb) {  // stored [n][k]
          if (col0 + 64u <= b_rows && (s + 4u) * 32u + 32u <= b_ld && b_al) {  // inside
            rb0 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid) & 7u) * 4u) / 4u];
            rb1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
            rb2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
            rb3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
          } else {
            rb0 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 4u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
            rb1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
            rb2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
            rb3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
          }
        } else {  // stored [k][n]: 4x4 blocks
          const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
          const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
          if ((s + 4u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
            rb0 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
            rb1 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
            rb2 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
            rb3 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
          } else {
            rb0 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            rb1 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            rb2 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            rb3 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
          }
        }
      }
      {  // k 0 .. 15 of the step
        RIGHT b0;
        coopMatLoadNV(b0, tile_b, cur0 * 2560u + (scol + 0u) * 40u + 0u, 40u, true);
        RIGHT b1;
        coopMatLoadNV(b1, tile_b, cur0 * 2560u + (scol + 16u) * 40u + 0u, 40u, true);
        LEFT a0;
        coopMatLoadNV(a0, tile_a, cur0 * 2560u + (srow + 0u) * 40u + 0u, 40u, false);
        LEFT a1;
        coopMatLoadNV(a1, tile_a, cur0 * 2560u + (srow + 16u) * 40u + 0u, 40u, false);
        c00 = coopMatMulAddNV(a0, b0, c00);
        c01 = coopMatMulAddNV(a0, b1, c01);
        c10 = coopMatMulAddNV(a1, b0, c10);
        c11 = coopMatMulAddNV(a1, b1, c11);
      }
      {  // k 16 .. 31 of the step
        RIGHT b0;
        coopMatLoadNV(b0, tile_b, cur0 * 2560u + (scol + 0u) * 40u + 16u, 40u, true);
        RIGHT b1;
        coopMatLoadNV(b1, tile_b, cur0 * 2560u + (scol + 16u) * 40u + 16u, 40u, true);
        LEFT a0;
        coopMatLoadNV(a0, tile_a, cur0 * 2560u + (srow + 0u) * 40u + 16u, 40u, false);
        LEFT a1;
        coopMatLoadNV(a1, tile_a, cur0 * 2560u + (srow + 16u) * 40u + 16u, 40u, false);
        c00 = coopMatMulAddNV(a0, b0, c00);
        c01 = coopMatMulAddNV(a0, b1, c01);
        c10 = coopMatMulAddNV(a1, b0, c10);
        c11 = coopMatMulAddNV(a1, b1, c11);
      }
      if (s + 1u < steps) {
        if (!ta) {
          const uint oa0 = (1u - cur0) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
          tile_a[oa0] = ra0_1.x;
          tile_a[oa0 + 1u] = ra0_1.y;
          tile_a[oa0 + 2u] = ra0_1.z;
          tile_a[oa0 + 3u] = ra0_1.w;
          const uint oa1 = (1u - cur0) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
          tile_a[oa1] = ra1_1.x;
          tile_a[oa1 + 1u] = ra1_1.y;
          tile_a[oa1 + 2u] = ra1_1.z;
          tile_a[oa1 + 3u] = ra1_1.w;
          const uint oa2 = (1u - cur0) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
          tile_a[oa2] = ra2_1.x;
          tile_a[oa2 + 1u] = ra2_1.y;
          tile_a[oa2 + 2u] = ra2_1.z;
          tile_a[oa2 + 3u] = ra2_1.w;
          const uint oa3 = (1u - cur0) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
          tile_a[oa3] = ra3_1.x;
          tile_a[oa3 + 1u] = ra3_1.y;
          tile_a[oa3 + 2u] = ra3_1.z;
          tile_a[oa3 + 3u] = ra3_1.w;
        } else {
          const uint oa0 = (1u - cur0) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
          tile_a[oa0] = ra0_1.x;
          tile_a[oa0 + 1u] = ra1_1.x;
          tile_a[oa0 + 2u] = ra2_1.x;
          tile_a[oa0 + 3u] = ra3_1.x;
          tile_a[oa0 + 40u] = ra0_1.y;
          tile_a[oa0 + 41u] = ra1_1.y;
          tile_a[oa0 + 42u] = ra2_1.y;
          tile_a[oa0 + 43u] = ra3_1.y;
          tile_a[oa0 + 80u] = ra0_1.z;
          tile_a[oa0 + 81u] = ra1_1.z;
          tile_a[oa0 + 82u] = ra2_1.z;
          tile_a[oa0 + 83u] = ra3_1.z;
          tile_a[oa0 + 120u] = ra0_1.w;
          tile_a[oa0 + 121u] = ra1_1.w;
          tile_a[oa0 + 122u] = ra2_1.w;
          tile_a[oa0 + 123u] = ra3_1.w;
        }
        if (tb) {
          const uint ob0 = (1u - cur0) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
          tile_b[ob0] = rb0_1.x;
          tile_b[ob0 + 1u] = rb0_1.y;
          tile_b[ob0 + 2u] = rb0_1.z;
          tile_b[ob0 + 3u] = rb0_1.w;
          const uint ob1 = (1u - cur0) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
          tile_b[ob1] = rb1_1.x;
          tile_b[ob1 + 1u] = rb1_1.y;
          tile_b[ob1 + 2u] = rb1_1.z;
          tile_b[ob1 + 3u] = rb1_1.w;
          const uint ob2 = (1u - cur0) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
          tile_b[ob2] = rb2_1.x;
          tile_b[ob2 + 1u] = rb2_1.y;
          tile_b[ob2 + 2u] = rb2_1.z;
          tile_b[ob2 + 3u] = rb2_1.w;
          const uint ob3 = (1u - cur0) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
          tile_b[ob3] = rb3_1.x;
          tile_b[ob3 + 1u] = rb3_1.y;
          tile_b[ob3 + 2u] = rb3_1.z;
          tile_b[ob3 + 3u] = rb3_1.w;
        } else {
          const uint ob0 = (1u - cur0) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
          tile_b[ob0] = rb0_1.x;
          tile_b[ob0 + 1u] = rb1_1.x;
          tile_b[ob0 + 2u] = rb2_1.x;
          tile_b[ob0 + 3u] = rb3_1.x;
          tile_b[ob0 + 40u] = rb0_1.y;
          tile_b[ob0 + 41u] = rb1_1.y;
          tile_b[ob0 + 42u] = rb2_1.y;
          tile_b[ob0 + 43u] = rb3_1.y;
          tile_b[ob0 + 80u] = rb0_1.z;
          tile_b[ob0 + 81u] = rb1_1.z;
          tile_b[ob0 + 82u] = rb2_1.z;
          tile_b[ob0 + 83u] = rb3_1.z;
          tile_b[ob0 + 120u] = rb0_1.w;
          tile_b[ob0 + 121u] = rb1_1.w;
          tile_b[ob0 + 122u] = rb2_1.w;
          tile_b[ob0 + 123u] = rb3_1.w;
        }
      }
      barrier();
    }
    if (s + 1u < steps) {
      {  // step s + 1: its tiles in buffer (s + 1) % 2, register set 2 holds step s + 2's
        const uint cur1 = (s + 1u) % 2u;
        if (s + 5u < steps) {
          if (!ta) {  // stored [m][k]
            if (row0 + 64u <= a_rows && (s + 5u) * 32u + 32u <= a_ld && a_al) {  // inside
              ra0_1 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid) & 7u) * 4u) / 4u];
              ra1_1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              ra2_1 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              ra3_1 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              ra0_1 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 5u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra1_1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra2_1 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra3_1 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
            }
          } else {  // stored [k][m]: 4x4 blocks
            const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 5u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
              ra0_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra1_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra2_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra3_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra1_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra2_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra3_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            }
          }
          if (tb) {  // stored [n][k]
            if (col0 + 64u <= b_rows && (s + 5u) * 32u + 32u <= b_ld && b_al) {  // inside
              rb0_1 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid) & 7u) * 4u) / 4u];
              rb1_1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              rb2_1 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              rb3_1 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              rb0_1 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 5u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb1_1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb2_1 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb3_1 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
            }
          } else {  // stored [k][n]: 4x4 blocks
            const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 5u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
              rb0_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
              rb1_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
              rb2_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
              rb3_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
            } else {
              rb0_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb1_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb2_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb3_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            }
          }
        }
        {  // k 0 .. 15 of the step
          RIGHT b0;
          coopMatLoadNV(b0, tile_b, cur1 * 2560u + (scol + 0u) * 40u + 0u, 40u, true);
          RIGHT b1;
          coopMatLoadNV(b1, tile_b, cur1 * 2560u + (scol + 16u) * 40u + 0u, 40u, true);
          LEFT a0;
          coopMatLoadNV(a0, tile_a, cur1 * 2560u + (srow + 0u) * 40u + 0u, 40u, false);
          LEFT a1;
          coopMatLoadNV(a1, tile_a, cur1 * 2560u + (srow + 16u) * 40u + 0u, 40u, false);
          c00 = coopMatMulAddNV(a0, b0, c00);
          c01 = coopMatMulAddNV(a0, b1, c01);
          c10 = coopMatMulAddNV(a1, b0, c10);
          c11 = coopMatMulAddNV(a1, b1, c11);
        }
        {  // k 16 .. 31 of the step
          RIGHT b0;
          coopMatLoadNV(b0, tile_b, cur1 * 2560u + (scol + 0u) * 40u + 16u, 40u, true);
          RIGHT b1;
          coopMatLoadNV(b1, tile_b, cur1 * 2560u + (scol + 16u) * 40u + 16u, 40u, true);
          LEFT a0;
          coopMatLoadNV(a0, tile_a, cur1 * 2560u + (srow + 0u) * 40u + 16u, 40u, false);
          LEFT a1;
          coopMatLoadNV(a1, tile_a, cur1 * 2560u + (srow + 16u) * 40u + 16u, 40u, false);
          c00 = coopMatMulAddNV(a0, b0, c00);
          c01 = coopMatMulAddNV(a0, b1, c01);
          c10 = coopMatMulAddNV(a1, b0, c10);
          c11 = coopMatMulAddNV(a1, b1, c11);
        }
        if (s + 2u < steps) {
          if (!ta) {
            const uint oa0 = (1u - cur1) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_a[oa0] = ra0_2.x;
            tile_a[oa0 + 1u] = ra0_2.y;
            tile_a[oa0 + 2u] = ra0_2.z;
            tile_a[oa0 + 3u] = ra0_2.w;
            const uint oa1 = (1u - cur1) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_a[oa1] = ra1_2.x;
            tile_a[oa1 + 1u] = ra1_2.y;
            tile_a[oa1 + 2u] = ra1_2.z;
            tile_a[oa1 + 3u] = ra1_2.w;
            const uint oa2 = (1u - cur1) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_a[oa2] = ra2_2.x;
            tile_a[oa2 + 1u] = ra2_2.y;
            tile_a[oa2 + 2u] = ra2_2.z;
            tile_a[oa2 + 3u] = ra2_2.w;
            const uint oa3 = (1u - cur1) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_a[oa3] = ra3_2.x;
            tile_a[oa3 + 1u] = ra3_2.y;
            tile_a[oa3 + 2u] = ra3_2.z;
            tile_a[oa3 + 3u] = ra3_2.w;
          } else {
            const uint oa0 = (1u - cur1) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_a[oa0] = ra0_2.x;
            tile_a[oa0 + 1u] = ra1_2.x;
            tile_a[oa0 + 2u] = ra2_2.x;
            tile_a[oa0 + 3u] = ra3_2.x;
            tile_a[oa0 + 40u] = ra0_2.y;
            tile_a[oa0 + 41u] = ra1_2.y;
            tile_a[oa0 + 42u] = ra2_2.y;
            tile_a[oa0 + 43u] = ra3_2.y;
            tile_a[oa0 + 80u] = ra0_2.z;
            tile_a[oa0 + 81u] = ra1_2.z;
            tile_a[oa0 + 82u] = ra2_2.z;
            tile_a[oa0 + 83u] = ra3_2.z;
            tile_a[oa0 + 120u] = ra0_2.w;
            tile_a[oa0 + 121u] = ra1_2.w;
            tile_a[oa0 + 122u] = ra2_2.w;
            tile_a[oa0 + 123u] = ra3_2.w;
          }
          if (tb) {
            const uint ob0 = (1u - cur1) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_b[ob0] = rb0_2.x;
            tile_b[ob0 + 1u] = rb0_2.y;
            tile_b[ob0 + 2u] = rb0_2.z;
            tile_b[ob0 + 3u] = rb0_2.w;
            const uint ob1 = (1u - cur1) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_b[ob1] = rb1_2.x;
            tile_b[ob1 + 1u] = rb1_2.y;
            tile_b[ob1 + 2u] = rb1_2.z;
            tile_b[ob1 + 3u] = rb1_2.w;
            const uint ob2 = (1u - cur1) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_b[ob2] = rb2_2.x;
            tile_b[ob2 + 1u] = rb2_2.y;
            tile_b[ob2 + 2u] = rb2_2.z;
            tile_b[ob2 + 3u] = rb2_2.w;
            const uint ob3 = (1u - cur1) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_b[ob3] = rb3_2.x;
            tile_b[ob3 + 1u] = rb3_2.y;
            tile_b[ob3 + 2u] = rb3_2.z;
            tile_b[ob3 + 3u] = rb3_2.w;
          } else {
            const uint ob0 = (1u - cur1) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_b[ob0] = rb0_2.x;
            tile_b[ob0 + 1u] = rb1_2.x;
            tile_b[ob0 + 2u] = rb2_2.x;
            tile_b[ob0 + 3u] = rb3_2.x;
            tile_b[ob0 + 40u] = rb0_2.y;
            tile_b[ob0 + 41u] = rb1_2.y;
            tile_b[ob0 + 42u] = rb2_2.y;
            tile_b[ob0 + 43u] = rb3_2.y;
            tile_b[ob0 + 80u] = rb0_2.z;
            tile_b[ob0 + 81u] = rb1_2.z;
            tile_b[ob0 + 82u] = rb2_2.z;
            tile_b[ob0 + 83u] = rb3_2.z;
            tile_b[ob0 + 120u] = rb0_2.w;
            tile_b[ob0 + 121u] = rb1_2.w;
            tile_b[ob0 + 122u] = rb2_2.w;
            tile_b[ob0 + 123u] = rb3_2.w;
          }
        }
        barrier();
      }
    }
    if (s + 2u < steps) {
      {  // step s + 2: its tiles in buffer (s + 2) % 2, register set 3 holds step s + 3's
        const uint cur2 = (s + 2u) % 2u;
        if (s + 6u < steps) {
          if (!ta) {  // stored [m][k]
            if (row0 + 64u <= a_rows && (s + 6u) * 32u + 32u <= a_ld && a_al) {  // inside
              ra0_2 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid) & 7u) * 4u) / 4u];
              ra1_2 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              ra2_2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              ra3_2 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              ra0_2 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 6u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra1_2 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra2_2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra3_2 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
            }
          } else {  // stored [k][m]: 4x4 blocks
            const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 6u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
              ra0_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra1_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra2_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra3_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra1_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra2_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra3_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            }
          }
          if (tb) {  // stored [n][k]
            if (col0 + 64u <= b_rows && (s + 6u) * 32u + 32u <= b_ld && b_al) {  // inside
              rb0_2 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid) & 7u) * 4u) / 4u];
              rb1_2 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              rb2_2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              rb3_2 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              rb0_2 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 6u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb1_2 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb2_2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb3_2 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
            }
          } else {  // stored [k][n]: 4x4 blocks
            const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 6u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
              rb0_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
              rb1_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
              rb2_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
              rb3_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
            } else {
              rb0_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb1_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb2_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb3_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            }
          }
        }
        {  // k 0 .. 15 of the step
          RIGHT b0;
          coopMatLoadNV(b0, tile_b, cur2 * 2560u + (scol + 0u) * 40u + 0u, 40u, true);
          RIGHT b1;
          coopMatLoadNV(b1, tile_b, cur2 * 2560u + (scol + 16u) * 40u + 0u, 40u, true);
          LEFT a0;
          coopMatLoadNV(a0, tile_a, cur2 * 2560u + (srow + 0u) * 40u + 0u, 40u, false);
          LEFT a1;
          coopMatLoadNV(a1, tile_a, cur2 * 2560u + (srow + 16u) * 40u + 0u, 40u, false);
          c00 = coopMatMulAddNV(a0, b0, c00);
          c01 = coopMatMulAddNV(a0, b1, c01);
          c10 = coopMatMulAddNV(a1, b0, c10);
          c11 = coopMatMulAddNV(a1, b1, c11);
        }
        {  // k 16 .. 31 of the step
          RIGHT b0;
          coopMatLoadNV(b0, tile_b, cur2 * 2560u + (scol + 0u) * 40u + 16u, 40u, true);
          RIGHT b1;
          coopMatLoadNV(b1, tile_b, cur2 * 2560u + (scol + 16u) * 40u + 16u, 40u, true);
          LEFT a0;
          coopMatLoadNV(a0, tile_a, cur2 * 2560u + (srow + 0u) * 40u + 16u, 40u, false);
          LEFT a1;
          coopMatLoadNV(a1, tile_a, cur2 * 2560u + (srow + 16u) * 40u + 16u, 40u, false);
          c00 = coopMatMulAddNV(a0, b0, c00);
          c01 = coopMatMulAddNV(a0, b1, c01);
          c10 = coopMatMulAddNV(a1, b0, c10);
          c11 = coopMatMulAddNV(a1, b1, c11);
        }
        if (s + 3u < steps) {
          if (!ta) {
            const uint oa0 = (1u - cur2) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_a[oa0] = ra0_3.x;
            tile_a[oa0 + 1u] = ra0_3.y;
            tile_a[oa0 + 2u] = ra0_3.z;
            tile_a[oa0 + 3u] = ra0_3.w;
            const uint oa1 = (1u - cur2) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_a[oa1] = ra1_3.x;
            tile_a[oa1 + 1u] = ra1_3.y;
            tile_a[oa1 + 2u] = ra1_3.z;
            tile_a[oa1 + 3u] = ra1_3.w;
            const uint oa2 = (1u - cur2) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_a[oa2] = ra2_3.x;
            tile_a[oa2 + 1u] = ra2_3.y;
            tile_a[oa2 + 2u] = ra2_3.z;
            tile_a[oa2 + 3u] = ra2_3.w;
            const uint oa3 = (1u - cur2) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_a[oa3] = ra3_3.x;
            tile_a[oa3 + 1u] = ra3_3.y;
            tile_a[oa3 + 2u] = ra3_3.z;
            tile_a[oa3 + 3u] = ra3_3.w;
          } else {
            const uint oa0 = (1u - cur2) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_a[oa0] = ra0_3.x;
            tile_a[oa0 + 1u] = ra1_3.x;
            tile_a[oa0 + 2u] = ra2_3.x;
            tile_a[oa0 + 3u] = ra3_3.x;
            tile_a[oa0 + 40u] = ra0_3.y;
            tile_a[oa0 + 41u] = ra1_3.y;
            tile_a[oa0 + 42u] = ra2_3.y;
            tile_a[oa0 + 43u] = ra3_3.y;
            tile_a[oa0 + 80u] = ra0_3.z;
            tile_a[oa0 + 81u] = ra1_3.z;
            tile_a[oa0 + 82u] = ra2_3.z;
            tile_a[oa0 + 83u] = ra3_3.z;
            tile_a[oa0 + 120u] = ra0_3.w;
            tile_a[oa0 + 121u] = ra1_3.w;
            tile_a[oa0 + 122u] = ra2_3.w;
            tile_a[oa0 + 123u] = ra3_3.w;
          }
          if (tb) {
            const uint ob0 = (1u - cur2) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_b[ob0] = rb0_3.x;
            tile_b[ob0 + 1u] = rb0_3.y;
            tile_b[ob0 + 2u] = rb0_3.z;
            tile_b[ob0 + 3u] = rb0_3.w;
            const uint ob1 = (1u - cur2) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_b[ob1] = rb1_3.x;
            tile_b[ob1 + 1u] = rb1_3.y;
            tile_b[ob1 + 2u] = rb1_3.z;
            tile_b[ob1 + 3u] = rb1_3.w;
            const uint ob2 = (1u - cur2) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_b[ob2] = rb2_3.x;
            tile_b[ob2 + 1u] = rb2_3.y;
            tile_b[ob2 + 2u] = rb2_3.z;
            tile_b[ob2 + 3u] = rb2_3.w;
            const uint ob3 = (1u - cur2) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_b[ob3] = rb3_3.x;
            tile_b[ob3 + 1u] = rb3_3.y;
            tile_b[ob3 + 2u] = rb3_3.z;
            tile_b[ob3 + 3u] = rb3_3.w;
          } else {
            const uint ob0 = (1u - cur2) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_b[ob0] = rb0_3.x;
            tile_b[ob0 + 1u] = rb1_3.x;
            tile_b[ob0 + 2u] = rb2_3.x;
            tile_b[ob0 + 3u] = rb3_3.x;
            tile_b[ob0 + 40u] = rb0_3.y;
            tile_b[ob0 + 41u] = rb1_3.y;
            tile_b[ob0 + 42u] = rb2_3.y;
            tile_b[ob0 + 43u] = rb3_3.y;
            tile_b[ob0 + 80u] = rb0_3.z;
            tile_b[ob0 + 81u] = rb1_3.z;
            tile_b[ob0 + 82u] = rb2_3.z;
            tile_b[ob0 + 83u] = rb3_3.z;
            tile_b[ob0 + 120u] = rb0_3.w;
            tile_b[ob0 + 121u] = rb1_3.w;
            tile_b[ob0 + 122u] = rb2_3.w;
            tile_b[ob0 + 123u] = rb3_3.w;
          }
        }
        barrier();
      }
    }
    if (s + 3u < steps) {
      {  // step s + 3: its tiles in buffer (s + 3) % 2, register set 0 holds step s + 4's
        const uint cur3 = (s + 3u) % 2u;
        if (s + 7u < steps) {
          if (!ta) {  // stored [m][k]
            if (row0 + 64u <= a_rows && (s + 7u) * 32u + 32u <= a_ld && a_al) {  // inside
              ra0_3 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid) & 7u) * 4u) / 4u];
              ra1_3 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              ra2_3 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              ra3_3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              ra0_3 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 7u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra1_3 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra2_3 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra3_3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
            }
          } else {  // stored [k][m]: 4x4 blocks
            const uint ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            const uint ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 7u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
              ra0_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra1_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra2_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra3_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra1_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra2_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra3_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            }
          }
          if (tb) {  // stored [n][k]
            if (col0 + 64u <= b_rows && (s + 7u) * 32u + 32u <= b_ld && b_al) {  // inside
              rb0_3 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid) & 7u) * 4u) / 4u];
              rb1_3 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              rb2_3 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              rb3_3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              rb0_3 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 7u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb1_3 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb2_3 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb3_3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
            }
          } else {  // stored [k][n]: 4x4 blocks
            const uint br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            const uint bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 7u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
              rb0_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
              rb1_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
              rb2_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
              rb3_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
            } else {
              rb0_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb1_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb2_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb3_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            }
          }
        }
        {  // k 0 .. 15 of the step
          RIGHT b0;
          coopMatLoadNV(b0, tile_b, cur3 * 2560u + (scol + 0u) * 40u + 0u, 40u, true);
          RIGHT b1;
          coopMatLoadNV(b1, tile_b, cur3 * 2560u + (scol + 16u) * 40u + 0u, 40u, true);
          LEFT a0;
          coopMatLoadNV(a0, tile_a, cur3 * 2560u + (srow + 0u) * 40u + 0u, 40u, false);
          LEFT a1;
          coopMatLoadNV(a1, tile_a, cur3 * 2560u + (srow + 16u) * 40u + 0u, 40u, false);
          c00 = coopMatMulAddNV(a0, b0, c00);
          c01 = coopMatMulAddNV(a0, b1, c01);
          c10 = coopMatMulAddNV(a1, b0, c10);
          c11 = coopMatMulAddNV(a1, b1, c11);
        }
        {  // k 16 .. 31 of the step
          RIGHT b0;
          coopMatLoadNV(b0, tile_b, cur3 * 2560u + (scol + 0u) * 40u + 16u, 40u, true);
          RIGHT b1;
          coopMatLoadNV(b1, tile_b, cur3 * 2560u + (scol + 16u) * 40u + 16u, 40u, true);
          LEFT a0;
          coopMatLoadNV(a0, tile_a, cur3 * 2560u + (srow + 0u) * 40u + 16u, 40u, false);
          LEFT a1;
          coopMatLoadNV(a1, tile_a, cur3 * 2560u + (srow + 16u) * 40u + 16u, 40u, false);
          c00 = coopMatMulAddNV(a0, b0, c00);
          c01 = coopMatMulAddNV(a0, b1, c01);
          c10 = coopMatMulAddNV(a1, b0, c10);
          c11 = coopMatMulAddNV(a1, b1, c11);
        }
        if (s + 4u < steps) {
          if (!ta) {
            const uint oa0 = (1u - cur3) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_a[oa0] = ra0.x;
            tile_a[oa0 + 1u] = ra0.y;
            tile_a[oa0 + 2u] = ra0.z;
            tile_a[oa0 + 3u] = ra0.w;
            const uint oa1 = (1u - cur3) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_a[oa1] = ra1.x;
            tile_a[oa1 + 1u] = ra1.y;
            tile_a[oa1 + 2u] = ra1.z;
            tile_a[oa1 + 3u] = ra1.w;
            const uint oa2 = (1u - cur3) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_a[oa2] = ra2.x;
            tile_a[oa2 + 1u] = ra2.y;
            tile_a[oa2 + 2u] = ra2.z;
            tile_a[oa2 + 3u] = ra2.w;
            const uint oa3 = (1u - cur3) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_a[oa3] = ra3.x;
            tile_a[oa3 + 1u] = ra3.y;
            tile_a[oa3 + 2u] = ra3.z;
            tile_a[oa3 + 3u] = ra3.w;
          } else {
            const uint oa0 = (1u - cur3) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_a[oa0] = ra0.x;
            tile_a[oa0 + 1u] = ra1.x;
            tile_a[oa0 + 2u] = ra2.x;
            tile_a[oa0 + 3u] = ra3.x;
            tile_a[oa0 + 40u] = ra0.y;
            tile_a[oa0 + 41u] = ra1.y;
            tile_a[oa0 + 42u] = ra2.y;
            tile_a[oa0 + 43u] = ra3.y;
            tile_a[oa0 + 80u] = ra0.z;
            tile_a[oa0 + 81u] = ra1.z;
            tile_a[oa0 + 82u] = ra2.z;
            tile_a[oa0 + 83u] = ra3.z;
            tile_a[oa0 + 120u] = ra0.w;
            tile_a[oa0 + 121u] = ra1.w;
            tile_a[oa0 + 122u] = ra2.w;
            tile_a[oa0 + 123u] = ra3.w;
          }
          if (tb) {
            const uint ob0 = (1u - cur3) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_b[ob0] = rb0.x;
            tile_b[ob0 + 1u] = rb0.y;
            tile_b[ob0 + 2u] = rb0.z;
            tile_b[ob0 + 3u] = rb0.w;
            const uint ob1 = (1u - cur3) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_b[ob1] = rb1.x;
            tile_b[ob1 + 1u] = rb1.y;
            tile_b[ob1 + 2u] = rb1.z;
            tile_b[ob1 + 3u] = rb1.w;
            const uint ob2 = (1u - cur3) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_b[ob2] = rb2.x;
            tile_b[ob2 + 1u] = rb2.y;
            tile_b[ob2 + 2u] = rb2.z;
            tile_b[ob2 + 3u] = rb2.w;
            const uint ob3 = (1u - cur3) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_b[ob3] = rb3.x;
            tile_b[ob3 + 1u] = rb3.y;
            tile_b[ob3 + 2u] = rb3.z;
            tile_b[ob3 + 3u] = rb3.w;
          } else {
            const uint ob0 = (1u - cur3) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_b[ob0] = rb0.x;
            tile_b[ob0 + 1u] = rb1.x;
            tile_b[ob0 + 2u] = rb2.x;
            tile_b[ob0 + 3u] = rb3.x;
            tile_b[ob0 + 40u] = rb0.y;
            tile_b[ob0 + 41u] = rb1.y;
            tile_b[ob0 + 42u] = rb2.y;
            tile_b[ob0 + 43u] = rb3.y;
            tile_b[ob0 + 80u] = rb0.z;
            tile_b[ob0 + 81u] = rb1.z;
            tile_b[ob0 + 82u] = rb2.z;
            tile_b[ob0 + 83u] = rb3.z;
            tile_b[ob0 + 120u] = rb0.w;
            tile_b[ob0 + 121u] = rb1.w;
            tile_b[ob0 + 122u] = rb2.w;
            tile_b[ob0 + 123u] = rb3.w;
          }
        }
        barrier();
      }
    }
  }

  if (direct_c) {
    coopMatStoreNV(c00, tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 0u, ldc, false);
    coopMatStoreNV(c01, tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 16u, ldc, false);
    coopMatStoreNV(c10, tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 0u, ldc, false);
    coopMatStoreNV(c11, tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 16u, ldc, false);
  } else {
    barrier();
    coopMatStoreNV(c00, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N, c_base, ldc);
    barrier();
    coopMatStoreNV(c01, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N, c_base, ldc);
    barrier();
    coopMatStoreNV(c10, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N, c_base, ldc);
    barrier();
    coopMatStoreNV(c11, tile_c, cbase, 16u, false);
    barrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N, c_base, ldc);
  }
}
