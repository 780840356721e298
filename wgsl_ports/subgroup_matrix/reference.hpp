// subgroup_matrix: the double-precision reference of sgmm_f16 and its bound (README.md,
// "Bounds"). No Vulkan here.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::subgroup_matrix {

// The uniform (M, N, K, flags), the matmul family's convention: C[M,N] (+)= op(A)[M,K] op(B)[K,N]
// row-major; TRANS_A: A stored [K, M]; TRANS_B: B stored [N, K]; ACCUMULATE: add the old C.
enum Flags : uint32_t { TRANS_A = 1, TRANS_B = 2, ACCUMULATE = 8 };
struct Dims {
  uint32_t M = 0, N = 0, K = 0, flags = 0;
  std::array<uint32_t, 4> uniform() const { return {M, N, K, flags}; }
  // y = x W (x [rows, d_in] f16, W [d_in, d_out] f16)
  static Dims forward(uint32_t rows, uint32_t d_in, uint32_t d_out) {
    return {rows, d_out, d_in, 0};
  }
  // dX = dY W^T on the forward's W buffer
  static Dims grad_input(uint32_t rows, uint32_t d_in, uint32_t d_out) {
    return {rows, d_in, d_out, TRANS_B};
  }
  // dW (+)= x^T dY
  static Dims grad_weight(uint32_t rows, uint32_t d_in, uint32_t d_out, bool accumulate) {
    return {d_in, d_out, rows, TRANS_A | (accumulate ? ACCUMULATE : 0u)};
  }
};

// Workgroups of 32 (one subgroup), each a 64x64 block of C: (ceil(N/64), ceil(M/64), 1).
std::array<uint32_t, 3> workgroups(const Dims& d);
// sgmm_f16_tiled8, sgmm_f16_tiled8_d2 and sgmm_f16_tiled8_d4: workgroups of (32, 8, 1), each a
// 128x128 block of C:
// (ceil(N/128), ceil(M/128), 1). Their A and B buffers hold whole vec4<f16>s: a_elements /
// b_elements rounded up to 4.
std::array<uint32_t, 3> workgroups_tiled(const Dims& d);
// sgmm_f16_tiled8_n256: workgroups of (32, 8, 1), each a 128x256 block of C:
// (ceil(N/256), ceil(M/128), 1).
std::array<uint32_t, 3> workgroups_n256(const Dims& d);
// The kernel for a product, all with sgmm_f16_tiled8_d2's bindings, flags and bound, and its
// grid (README.md, "Which kernel for which product", measured on an H200 with 132 SMs, where a
// 128x128 kernel runs one workgroup an SM): sgmm_f16_tiled4_d4 (64x64 blocks, grid
// workgroups()) where the product has fewer than 64 blocks of 128x128; else sgmm_f16_tiled8_n256
// (128x256 blocks, grid workgroups_n256()) where it has at least 256 blocks of 128x128 and
// K >= 2048; else sgmm_f16_tiled8_d4 (128x128, tiles fetched four K steps ahead) where K >= 4096,
// or K >= 2048 with TRANS_A (the trainer's dW += x^T dY); else sgmm_f16_tiled8_d2. Every choice
// gives the same bits.
struct Plan {
  const char* kernel;  // "subgroup_matrix/sgmm_f16_..."
  std::array<uint32_t, 3> workgroups;
  uint32_t workgroup_bytes;  // its workgroup memory (the device limit it needs)
};
Plan plan(const Dims& d);
// Elements each operand must hold: A M*K, B K*N, C M*N.
uint64_t a_elements(const Dims& d);
uint64_t b_elements(const Dims& d);
uint64_t c_elements(const Dims& d);

// The exact result in double (f16 products are exact in double; a sum of K <= 2^20 of them is
// exact to 2^-32 relative, far below the bound), rounded to f32, with the magnitude
// S = sum_k |a_ik b_kj| + |C_old_ij| and the bound in ULPs of S for each element.
UlpExpected reference(const Dims& d, std::span<const uint16_t> a_f16,
                      std::span<const uint16_t> b_f16, std::span<const float> c_old);

// ULPs of S that a result may be from the exact sum: n = K (+1 with ACCUMULATE) terms, each
// product exact in f32 (11-bit significands), summed in any order and grouping by steps that each
// lose at most one f32 ULP of the magnitude they handle (round to nearest, or truncation as
// tensor cores align and truncate), so |got - exact| <= n 2^-23 S (1 + O(n u)) <= 2 (17/16) n
// ULPs of S for n <= 2^20, plus half an ULP for the reference's own rounding: 2.125 n + 1.
double bound_ulps(uint32_t K, bool accumulate);

}  // namespace wgslvk::subgroup_matrix
