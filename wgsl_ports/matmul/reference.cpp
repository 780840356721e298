// CPU references of the matmul family; see reference.hpp for the bounds and their reasons.
#include "matmul/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace wgslvk::matmul {

std::string_view kernel_name(Kernel k) {
  switch (k) {
    case Kernel::Naive:
      return "matmul_naive";
    case Kernel::Tiled:
      return "matmul_tiled";
    case Kernel::Blocked4:
      return "matmul_blocked4";
    case Kernel::Vec4:
      return "matmul_vec4";
    case Kernel::Vec4Readonly:
      return "matmul_vec4_readonly";
    case Kernel::Blocked8:
      return "matmul_blocked8";
    case Kernel::TiledF16:
      return "matmul_tiled_f16";
    case Kernel::Native:
      return "matmul_native";
  }
  return "?";
}

std::string qualified_name(Kernel k) { return "matmul/" + std::string(kernel_name(k)); }

uint32_t tile_edge(Kernel k) {
  switch (k) {
    case Kernel::Naive:
      return 0;
    case Kernel::Tiled:
    case Kernel::TiledF16:
      return 16;
    case Kernel::Blocked4:
    case Kernel::Vec4:
    case Kernel::Vec4Readonly:
      return 64;
    case Kernel::Blocked8:
    case Kernel::Native:
      return 128;
  }
  return 0;
}

uint64_t workgroups(Kernel k, const Dims& d) {
  if (k == Kernel::Naive) return (d.c_count() + 255) / 256;
  uint64_t t = tile_edge(k);
  return ((d.M + t - 1) / t) * ((d.N + t - 1) / t);
}

bool vec4_aligned(const Dims& d) { return d.lda() % 4 == 0 && d.ldb() % 4 == 0; }

bool supports(Kernel k, const Dims& d) {
  if (k == Kernel::Vec4 || k == Kernel::Vec4Readonly || k == Kernel::Native) return vec4_aligned(d);
  return true;
}

Kernel vec4_or_fallback(const Dims& d) { return vec4_aligned(d) ? Kernel::Vec4 : Kernel::Blocked4; }

uint64_t native_n64_workgroups(const Dims& d) {
  return uint64_t((d.M + 127) / 128) * ((d.N + 63) / 64);
}

uint64_t native_k16_workgroups(const Dims& d) {
  return uint64_t((d.M + 127) / 128) * ((d.N + 63) / 64);
}

bool bias_grad_lanes_valid(uint32_t lanes) {
  return lanes == 0 || lanes == 4 || lanes == 8 || lanes == 16 || lanes == 32 || lanes == 64;
}

uint64_t bias_grad_workgroups(uint32_t N, uint32_t lanes) {
  const uint32_t cols = 256 / (lanes == 0 ? 4 : lanes);
  return (uint64_t(N) + cols - 1) / cols;
}

uint32_t bias_grad_lanes(uint32_t M, uint32_t N) {
  uint32_t lanes = 4;
  while (lanes < 64 && uint64_t(lanes) * 2 * 8 <= M &&
         (N <= 4096 || uint64_t(N) * lanes * 2 <= (uint64_t(1) << 17)))
    lanes *= 2;
  return lanes;
}

uint32_t splitk_chunk(uint32_t K, uint32_t splits) {
  if (splits == 0) return 0;
  const uint32_t stages = (K + 7) / 8;
  return ((stages + splits - 1) / splits) * 8;
}

uint64_t splitk_workgroups(const Dims& d, uint32_t splits) {
  return workgroups(Kernel::Native, d) * splits;
}

uint64_t splitk_partial_floats(const Dims& d, uint32_t splits) { return d.c_count() * splits; }

uint64_t splitk_reduce_workgroups(const Dims& d) { return (d.c_count() + 255) / 256; }

uint32_t splitk_flags(const Dims& d, uint32_t splits) {
  return (d.flags & (kTransA | kTransB)) | (splits << kSplitKShift);
}

bool splitk_supported(const Dims& d, uint32_t splits) {
  if (!supports(Kernel::Native, d) || splits < 2 || splits > kMaxSplits) return false;
  // every slice non-empty: the last one starts below K
  if (uint64_t(splitk_chunk(d.K, splits)) * (splits - 1) >= d.K) return false;
  return splitk_partial_floats(d, splits) < (uint64_t(1) << 32);
}

NativePlan native_plan(const Dims& d) {
  // Measured on an H200 (132 SMs). Alone (bench/results/h200-2026-11-26-matmul, split-K as
  // translated from the WGSL against matmul_native translated the same way) every product of
  // fewer than 200 128x128 tiles gained from split-K (96 tiles: 1.2-1.5x at S = 4; 36 tiles:
  // 2.9x; 12 tiles: 5.8x; 192 tiles: 1.1-1.3x at S = 2..4); the 256-tile 2048^3 lost 5%. In the
  // trainer's step (bench/results/h200-2026-11-26-train-splitk), where a layer's dX and dW
  // products run side by side, splitting every product under 200 tiles made xl (all its splits
  // <= 32 tiles) 35% faster but gpt110m (splits of 96-144 tiles) 0.8% slower: two 96-tile
  // products together already fill most SMs. So: split below 66 tiles (half the SMs), S enough
  // slices for ~384 workgroups (about three per SM), each slice >= 192 of K (24 stages of 8;
  // shorter slices gained nothing: K = 256 at S = 2 ran as fast as native).
  constexpr uint64_t kSplitBelowTiles = 66, kTargetWorkgroups = 384;
  constexpr uint32_t kMinChunk = 192, kMaxPlanSplits = 16;
  //
  // From 66 tiles up: matmul_native_k16 (128 x 64 tiles, 128 invocations, K stages of 16) where
  // K >= 512 and its grid fills the GPU's resident workgroups better than native's, native
  // otherwise (bench/results/h200-2026-11-27b-matmul-k16). Resident on the H200 (driver
  // statistics): native 128 registers x 256 invocations + 16 KB -> 2 per SM, 264 in all; k16 139
  // registers x 128 invocations + 12 KB -> 3 per SM, 396. Fill = workgroups / (waves x resident),
  // waves rounded up. Alone, k16 / native: 108 tiles 1.06x, 144 1.32x, 384 1.25-1.27x (fill
  // 0.55-0.97 vs 0.41-0.73); 96 tiles 0.99-1.04x and 288 0.99x (washes); 256 tiles 0.76x and 1024
  // 0.97x, where native fills 0.97 and k16 0.65 / 0.86 (native picked). In the trainer's step
  // gpt110m (its k16 products all K >= 768) went 64.40 -> 60.67 ms, but xl, whose would-be k16
  // products (96-128 tiles) all have K = 256 (16 stages), went 7.56 -> 7.97 ms: hence K >= 512
  // (between the two measured K; not tuned further), which leaves xl's plan as it was.
  constexpr uint64_t kNativeResident = 264, kK16Resident = 396;
  constexpr uint32_t kK16MinK = 512;
  const uint64_t tiles = workgroups(Kernel::Native, d);
  NativePlan p;
  if (tiles == 0) return p;
  if (tiles >= kSplitBelowTiles) {
    if (!supports(Kernel::Native, d)) return p;  // neither kernel runs it: the host falls back
    auto fill = [](uint64_t wgs, uint64_t resident) {
      const uint64_t waves = (wgs + resident - 1) / resident;
      return double(wgs) / double(waves * resident);
    };
    if (d.K >= kK16MinK &&
        fill(native_k16_workgroups(d), kK16Resident) > fill(tiles, kNativeResident))
      p.variant = NativePlan::Variant::K16;
    return p;
  }
  uint32_t want =
      uint32_t(std::min<uint64_t>(kMaxPlanSplits, (kTargetWorkgroups + tiles - 1) / tiles));
  uint32_t best = 1;
  for (uint32_t s = 2; s <= want; ++s) {
    if (!splitk_supported(d, s) || splitk_chunk(d.K, s) < kMinChunk) break;
    best = s;
  }
  if (best > 1) return {NativePlan::Variant::SplitK, best};
  return p;
}

std::string native_plan_name(const NativePlan& p) {
  switch (p.variant) {
    case NativePlan::Variant::Native:
      return "native";
    case NativePlan::Variant::N64:
      return "n64";
    case NativePlan::Variant::SplitK:
      return "splitk" + std::to_string(p.splits);
    case NativePlan::Variant::K16:
      return "k16";
  }
  return "?";
}

uint32_t f16_row_words(const Dims& d) { return (d.ldb() + 1) / 2; }
uint64_t f16_words(const Dims& d) {
  uint64_t rows = d.trans_b() ? d.N : d.K;
  return rows * f16_row_words(d);
}

std::vector<uint32_t> pack_b_f16(std::span<const float> b, const Dims& d) {
  if (b.size() != d.b_count()) throw std::invalid_argument("pack_b_f16: b has the wrong size");
  const uint64_t rows = d.trans_b() ? d.N : d.K, len = d.ldb(), rw = f16_row_words(d);
  std::vector<uint32_t> w(rows * rw, 0u);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t i = 0; i < len; ++i) {
      uint32_t h = f32_to_f16_bits(b[r * len + i]);
      w[r * rw + i / 2] |= h << (16 * (i & 1));
    }
  return w;
}

std::vector<float> unpack_b_f16(std::span<const uint32_t> words, const Dims& d) {
  if (words.size() != f16_words(d)) throw std::invalid_argument("unpack_b_f16: wrong word count");
  const uint64_t rows = d.trans_b() ? d.N : d.K, len = d.ldb(), rw = f16_row_words(d);
  std::vector<float> b(rows * len);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t i = 0; i < len; ++i)
      b[r * len + i] = f16_bits_to_f32(uint16_t(words[r * rw + i / 2] >> (16 * (i & 1))));
  return b;
}

namespace ref {

double bound_ulps(uint32_t n) {
  if (n > (1u << 20)) throw std::invalid_argument("matmul bound: more than 2^20 terms");
  return double(n) * 17.0 / 16.0 + 1.0;
}
double bound_vs_naive_ulps(uint32_t n) { return 2.0 * (bound_ulps(n) - 1.0); }
double bound_vs_f32_weights_ulps(uint32_t n) { return bound_ulps(n) + 8192.0; }

namespace {

void check_sizes(size_t a, size_t b, size_t bias, size_t c, const Dims& d, bool c_needed,
                 const char* who) {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument(std::string(who) + ": " + what + " for M=" + std::to_string(d.M) +
                                " N=" + std::to_string(d.N) + " K=" + std::to_string(d.K));
  };
  if (a != d.a_count()) bad("A has " + std::to_string(a) + " elements, not M*K");
  if (b != d.b_count()) bad("B has " + std::to_string(b) + " elements, not K*N");
  if (d.bias() && bias != d.N) bad("bias has " + std::to_string(bias) + " elements, not N");
  if (c_needed && c != d.c_count()) bad("C has " + std::to_string(c) + " elements, not M*N");
}

// Row `i` of op(A) and column `j` of op(B), element k, whatever the storage.
template <class T>
T at_a(std::span<const T> a, const Dims& d, uint64_t i, uint64_t k) {
  return d.trans_a() ? a[k * d.M + i] : a[i * d.K + k];
}
template <class T>
T at_b(std::span<const T> b, const Dims& d, uint64_t k, uint64_t j) {
  return d.trans_b() ? b[j * d.K + k] : b[k * d.N + j];
}

}  // namespace

void matmul(std::span<const double> a, std::span<const double> b, std::span<const double> bias,
            std::span<double> c, const Dims& d, uint32_t row_begin, uint32_t row_end) {
  check_sizes(a.size(), b.size(), bias.size(), c.size(), d, true, "matmul::ref::matmul");
  if (row_end == 0) row_end = d.M;
  for (uint64_t i = row_begin; i < row_end; ++i)
    for (uint64_t j = 0; j < d.N; ++j) {
      double s = 0.0;
      for (uint64_t k = 0; k < d.K; ++k) s += at_a(a, d, i, k) * at_b(b, d, k, j);
      if (d.bias()) s += bias[j];
      double& out = c[i * d.N + j];
      out = d.accumulate() ? out + s : s;
    }
}

void bias_grad(std::span<const double> dy, std::span<double> db, uint32_t M, uint32_t N,
               bool accumulate) {
  if (dy.size() != uint64_t(M) * N || db.size() != N)
    throw std::invalid_argument("matmul::ref::bias_grad: dy must be M*N and db N elements");
  for (uint64_t j = 0; j < N; ++j) {
    double s = 0.0;
    for (uint64_t i = 0; i < M; ++i) s += dy[i * N + j];
    db[j] = accumulate ? db[j] + s : s;
  }
}

Expected matmul(std::span<const float> a, std::span<const float> b, std::span<const float> bias,
                std::span<const float> c_old, const Dims& d, uint32_t row_begin, uint32_t row_end) {
  check_sizes(a.size(), b.size(), bias.size(), c_old.size(), d, d.accumulate(),
              "matmul::ref::matmul (f32)");
  if (row_end == 0) row_end = d.M;
  if (row_begin > row_end || row_end > d.M)
    throw std::invalid_argument("matmul::ref::matmul: bad row range");
  Expected e;
  e.bound = bound_ulps(terms(d));
  const uint64_t n = uint64_t(row_end - row_begin) * d.N;
  e.value.resize(n);
  e.magnitude.resize(n);
  std::vector<double> arow(d.K);
  for (uint64_t i = row_begin; i < row_end; ++i) {
    for (uint64_t k = 0; k < d.K; ++k) arow[k] = at_a(a, d, i, k);
    for (uint64_t j = 0; j < d.N; ++j) {
      // f32 * f32 is exact in double (48 significant bits).
      double s = 0.0, m = 0.0;
      for (uint64_t k = 0; k < d.K; ++k) {
        double p = arow[k] * double(at_b(b, d, k, j));
        s += p;
        m += std::abs(p);
      }
      if (d.bias()) {
        s += bias[j];
        m += std::abs(double(bias[j]));
      }
      if (d.accumulate()) {
        double old = c_old[i * d.N + j];
        s = old + s;
        m += std::abs(old);
      }
      uint64_t o = (i - row_begin) * d.N + j;
      e.value[o] = float(s);
      e.magnitude[o] = m;
    }
  }
  return e;
}

Expected bias_grad(std::span<const float> dy, std::span<const float> db_old, uint32_t M, uint32_t N,
                   bool accumulate) {
  if (dy.size() != uint64_t(M) * N || (accumulate && db_old.size() != N))
    throw std::invalid_argument("matmul::ref::bias_grad (f32): dy must be M*N, db_old N elements");
  Expected e;
  e.bound = bound_ulps(M + (accumulate ? 1 : 0));
  e.value.resize(N);
  e.magnitude.resize(N);
  for (uint64_t j = 0; j < N; ++j) {
    double s = 0.0, m = 0.0;
    for (uint64_t i = 0; i < M; ++i) {
      s += dy[i * N + j];
      m += std::abs(double(dy[i * N + j]));
    }
    if (accumulate) {
      s = double(db_old[j]) + s;
      m += std::abs(double(db_old[j]));
    }
    e.value[j] = float(s);
    e.magnitude[j] = m;
  }
  return e;
}

std::vector<float> bias_grad_kernel_order(std::span<const float> dy, std::span<const float> db_old,
                                          uint32_t M, uint32_t N, bool accumulate, uint32_t lanes) {
  if (!bias_grad_lanes_valid(lanes))
    throw std::invalid_argument("matmul::ref::bias_grad_kernel_order: lanes = " +
                                std::to_string(lanes) + " (4, 8, 16, 32 or 64; 0 reads as 4)");
  const uint32_t L = lanes == 0 ? 4 : lanes;
  std::vector<float> out(N);
  std::vector<float> p(L);
  for (uint64_t j = 0; j < N; ++j) {
    for (uint64_t lane = 0; lane < L; ++lane) {
      p[lane] = 0.0f;
      for (uint64_t i = lane; i < M; i += L) p[lane] = p[lane] + dy[i * N + j];
    }
    for (uint32_t w = L; w > 1; w /= 2)
      for (uint32_t k = 0; k < w / 2; ++k) p[k] = p[2 * k] + p[2 * k + 1];
    float total = p[0];
    if (accumulate) total = db_old[j] + total;
    out[j] = total;
  }
  return out;
}

double ulps_of_magnitude(float got, float expected, double magnitude) {
  if (std::isnan(expected)) return std::isnan(got) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(expected)) return got == expected ? 0.0 : std::numeric_limits<double>::infinity();
  if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
  double m = std::max(std::abs(double(expected)), std::isnan(magnitude) ? 0.0 : magnitude);
  // The golden runner measures against the f32 magnitude (README): round it the same way.
  double ulp = f32_ulp_of(double(float(m)));
  return std::abs(double(got) - double(expected)) / ulp;
}

}  // namespace ref
}  // namespace wgslvk::matmul
