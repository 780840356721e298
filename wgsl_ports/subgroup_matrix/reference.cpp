#include "subgroup_matrix/reference.hpp"

#include <cmath>
#include <stdexcept>

namespace wgslvk::subgroup_matrix {

std::array<uint32_t, 3> workgroups(const Dims& d) { return {(d.N + 63) / 64, (d.M + 63) / 64, 1}; }
std::array<uint32_t, 3> workgroups_tiled(const Dims& d) {
  return {(d.N + 127) / 128, (d.M + 127) / 128, 1};
}
std::array<uint32_t, 3> workgroups_n256(const Dims& d) {
  return {(d.N + 255) / 256, (d.M + 127) / 128, 1};
}
Plan plan(const Dims& d) {
  // 2026-11-27g on an H200 (README.md, "Which kernel for which product"): below 64 blocks of
  // 128x128 (e.g. 768x768 or the 256-wide LM head: 36 / 32 / 12 blocks on 132 SMs) the 64x64
  // kernel's four times as many blocks win; sgmm_f16_tiled8_d4's deeper prefetch wins at K >= 4096
  // and on the long-K dW products (TRANS_A, K = 2048 rows), and is no faster elsewhere.
  const uint64_t blocks = (uint64_t(d.M) + 127) / 128 * ((uint64_t(d.N) + 127) / 128);
  if (blocks < 64) return {"subgroup_matrix/sgmm_f16_tiled4_d4", workgroups(d), 24576};
  // 2026-11-27l (README.md, "sgmm_f16_tiled8_n256"): the 128x256 blocks win alone where the grid
  // is large and K long (4096^3, 2048^3; also gpt110m's 768 x 3072 dW products, 144 blocks, K
  // 2048, but there the trainer's step was 2.3% slower with them: not given to them), and lose at
  // 108 blocks and at K 768 (up to 384 blocks).
  if (blocks >= 256 && d.K >= 2048)
    return {"subgroup_matrix/sgmm_f16_tiled8_n256", workgroups_n256(d), 45056};
  if (d.K >= 4096 || ((d.flags & TRANS_A) && d.K >= 2048))
    return {"subgroup_matrix/sgmm_f16_tiled8_d4", workgroups_tiled(d), 49152};
  return {"subgroup_matrix/sgmm_f16_tiled8_d2", workgroups_tiled(d), 49152};
}
uint64_t a_elements(const Dims& d) { return uint64_t(d.M) * d.K; }
uint64_t b_elements(const Dims& d) { return uint64_t(d.K) * d.N; }
uint64_t c_elements(const Dims& d) { return uint64_t(d.M) * d.N; }

double bound_ulps(uint32_t K, bool accumulate) {
  const double n = double(K) + (accumulate ? 1.0 : 0.0);
  return 2.0 * (17.0 / 16.0) * n + 1.0;
}

UlpExpected reference(const Dims& d, std::span<const uint16_t> a, std::span<const uint16_t> b,
                      std::span<const float> c_old) {
  const bool ta = d.flags & TRANS_A, tb = d.flags & TRANS_B, acc = d.flags & ACCUMULATE;
  if (a.size() < a_elements(d) || b.size() < b_elements(d) || (acc && c_old.size() < c_elements(d)))
    throw std::invalid_argument("subgroup_matrix::reference: an operand is smaller than its shape");
  std::vector<double> af(a_elements(d)), bf(b_elements(d));
  for (size_t i = 0; i < af.size(); ++i) af[i] = f16_bits_to_f32(a[i]);
  for (size_t i = 0; i < bf.size(); ++i) bf[i] = f16_bits_to_f32(b[i]);
  UlpExpected e;
  const size_t n = c_elements(d);
  e.value.resize(n);
  e.magnitude.resize(n);
  e.bound.assign(n, bound_ulps(d.K, acc));
  for (uint32_t i = 0; i < d.M; ++i)
    for (uint32_t j = 0; j < d.N; ++j) {
      double s = 0, m = 0;
      for (uint32_t k = 0; k < d.K; ++k) {
        const double x = af[ta ? size_t(k) * d.M + i : size_t(i) * d.K + k];
        const double y = bf[tb ? size_t(j) * d.K + k : size_t(k) * d.N + j];
        s += x * y;
        m += std::fabs(x * y);
      }
      if (acc) {
        s += c_old[size_t(i) * d.N + j];
        m += std::fabs(double(c_old[size_t(i) * d.N + j]));
      }
      e.value[size_t(i) * d.N + j] = float(s);
      e.magnitude[size_t(i) * d.N + j] = m;
    }
  return e;
}

}  // namespace wgslvk::subgroup_matrix
