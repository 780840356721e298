#version 450
// Port of chromium_experimental/subgroup_matrix.wgsl: sgmm_f16 (ours), line by line, with GL_NV_cooperative_matrix:
// Debian 12's glslang 12 has no GL_KHR_cooperative_matrix, so the build validates the NV module
// and rewrites it to SPV_KHR_cooperative_matrix (translator/src/coopmat.hpp; README "Toolchain").
// subgroup_matrix_left/right<f16, 16, 16> are LEFT/RIGHT, subgroup_matrix_result<f32, 16, 16>
// RESULT; subgroupMatrixLoad/Store are coopMatLoadNV/coopMatStoreNV (offset and stride in
// elements, the same column-major flag), subgroupMatrixMultiplyAccumulate is coopMatMulAddNV.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require

#define LEFT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define RIGHT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define RESULT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer SA { float16_t sa_in[]; };
layout(set = 0, binding = 1, std430) readonly buffer SB { float16_t sb_in[]; };
layout(set = 0, binding = 2, std430) buffer SC { float sc_out[]; };
layout(set = 0, binding = 3, std140) uniform SDims { uvec4 sdims; };  // (M, N, K, flags)

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ACCUMULATE = 8u;

shared float16_t stage_a[1024];  // A block, row-major [64][16]
shared float16_t stage_b[1024];  // B block, row-major [16][64]
shared float stage_c[256];       // one C tile, row-major [16][16]

void main() {
  const uvec3 wid = gl_WorkGroupID;
  const uint lid = gl_LocalInvocationIndex;
  const uint M = sdims.x;
  const uint N = sdims.y;
  const uint K = sdims.z;
  const uint flags = sdims.w;
  const uint row0 = wid.y * 64u;
  const uint col0 = wid.x * 64u;
  const bool ta = (flags & TRANS_A) != 0u;
  const bool tb = (flags & TRANS_B) != 0u;
  const uint lda = ta ? M : K;  // stored row length of A
  const uint ldb = tb ? K : N;  // stored row length of B
  const bool inside = row0 + 64u <= M && col0 + 64u <= N;
  const bool aligned = lda % 8u == 0u && ldb % 8u == 0u;
  const bool direct_c = inside && N % 4u == 0u;

  RESULT acc[16];
  [[unroll]] for (uint t = 0u; t < 16u; t++) acc[t] = RESULT(0.0);  // WGSL's zero value
  if ((flags & ACCUMULATE) != 0u) {
    [[unroll]] for (uint t = 0u; t < 16u; t++) {
      const uint r = row0 + (t / 4u) * 16u;
      const uint c = col0 + (t % 4u) * 16u;
      if (direct_c) {
        coopMatLoadNV(acc[t], sc_out, r * N + c, N, false);
      } else {
        barrier();
        for (uint e = lid; e < 256u; e += 32u) {
          const uint gr = r + e / 16u;
          const uint gc = c + e % 16u;
          stage_c[e] = 0.0;
          if (gr < M && gc < N) {
            stage_c[e] = sc_out[gr * N + gc];
          }
        }
        barrier();
        coopMatLoadNV(acc[t], stage_c, 0u, 16u, false);
      }
    }
  }

  for (uint k0 = 0u; k0 < K; k0 += 16u) {
    if (inside && aligned && k0 + 16u <= K) {
      RIGHT b0, b1, b2, b3;
      if (tb) {  // B stored [N][K]: element (k, n) at n * K + k, column-major
        coopMatLoadNV(b0, sb_in, (col0 + 0u) * ldb + k0, ldb, true);
        coopMatLoadNV(b1, sb_in, (col0 + 16u) * ldb + k0, ldb, true);
        coopMatLoadNV(b2, sb_in, (col0 + 32u) * ldb + k0, ldb, true);
        coopMatLoadNV(b3, sb_in, (col0 + 48u) * ldb + k0, ldb, true);
      } else {
        coopMatLoadNV(b0, sb_in, k0 * ldb + col0 + 0u, ldb, false);
        coopMatLoadNV(b1, sb_in, k0 * ldb + col0 + 16u, ldb, false);
        coopMatLoadNV(b2, sb_in, k0 * ldb + col0 + 32u, ldb, false);
        coopMatLoadNV(b3, sb_in, k0 * ldb + col0 + 48u, ldb, false);
      }
      [[unroll]] for (uint i = 0u; i < 4u; i++) {
        LEFT a;
        if (ta) {  // A stored [K][M]: element (m, k) at k * M + m, column-major
          coopMatLoadNV(a, sa_in, k0 * lda + row0 + i * 16u, lda, true);
        } else {
          coopMatLoadNV(a, sa_in, (row0 + i * 16u) * lda + k0, lda, false);
        }
        acc[i * 4u + 0u] = coopMatMulAddNV(a, b0, acc[i * 4u + 0u]);
        acc[i * 4u + 1u] = coopMatMulAddNV(a, b1, acc[i * 4u + 1u]);
        acc[i * 4u + 2u] = coopMatMulAddNV(a, b2, acc[i * 4u + 2u]);
        acc[i * 4u + 3u] = coopMatMulAddNV(a, b3, acc[i * 4u + 3u]);
      }
    } else {
      barrier();  // the previous staged step's loads are done
      for (uint e = lid; e < 1024u; e += 32u) {
        const uint gr = row0 + e / 16u;
        const uint gk = k0 + e % 16u;
        const uint ia = ta ? gk * lda + gr : gr * lda + gk;
        stage_a[e] = (gr < M && gk < K) ? sa_in[min(ia, uint(sa_in.length()) - 1u)]
                                        : float16_t(0.0);
        const uint bk = k0 + e / 64u;
        const uint bc = col0 + e % 64u;
        const uint ib = tb ? bc * ldb + bk : bk * ldb + bc;
        stage_b[e] = (bk < K && bc < N) ? sb_in[min(ib, uint(sb_in.length()) - 1u)]
                                        : float16_t(0.0);
      }
      barrier();
      RIGHT b0, b1, b2, b3;
      coopMatLoadNV(b0, stage_b, 0u, 64u, false);
      coopMatLoadNV(b1, stage_b, 16u, 64u, false);
      coopMatLoadNV(b2, stage_b, 32u, 64u, false);
      coopMatLoadNV(b3, stage_b, 48u, 64u, false);
      [[unroll]] for (uint i = 0u; i < 4u; i++) {
        LEFT a;
        coopMatLoadNV(a, stage_a, i * 256u, 16u, false);
        acc[i * 4u + 0u] = coopMatMulAddNV(a, b0, acc[i * 4u + 0u]);
        acc[i * 4u + 1u] = coopMatMulAddNV(a, b1, acc[i * 4u + 1u]);
        acc[i * 4u + 2u] = coopMatMulAddNV(a, b2, acc[i * 4u + 2u]);
        acc[i * 4u + 3u] = coopMatMulAddNV(a, b3, acc[i * 4u + 3u]);
      }
    }
  }

  [[unroll]] for (uint t = 0u; t < 16u; t++) {
    const uint r = row0 + (t / 4u) * 16u;
    const uint c = col0 + (t % 4u) * 16u;
    if (direct_c) {
      coopMatStoreNV(acc[t], sc_out, r * N + c, N, false);
    } else {
      barrier();
      coopMatStoreNV(acc[t], stage_c, 0u, 16u, false);
      barrier();
      for (uint e = lid; e < 256u; e += 32u) {
        const uint gr = r + e / 16u;
        const uint gc = c + e % 16u;
        if (gr < M && gc < N) {
          sc_out[gr * N + gc] = stage_c[e];
        }
      }
    }
  }
}
