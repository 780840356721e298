// CPU references of the matmul family (04_matmul.wgsl from TinyGPT's engineering log,
// and our matmul_native.wgsl), in double precision, plus the kernels' shape rules (which kernel
// takes which shape, how many workgroups). Plain functions over spans: no Vulkan, no runtime; the
// tests, the golden generators and the bench call them, and a CPU training reference can chain
// the double-in/double-out forms. Each output's comparison bound is below, with its reason.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::matmul {

// The kernels' flags (dims.w).
enum Flags : uint32_t {
  kTransA = 1,      // A is stored [K, M] row-major: the kernel reads A^T (dW = X^T dY)
  kTransB = 2,      // B is stored [N, K] row-major: the kernel reads B^T (dX = dY W^T)
  kAddBias = 4,     // C[i, j] += bias[j]                                  (y = x W + b)
  kAccumulate = 8,  // C = old C + result                      (gradient accumulation)
};

// The `dims` uniform (M, N, K, flags): C[M, N] = op(A)[M, K] * op(B)[K, N] (+ bias) (+ old C).
// Everything is row-major; indices are u32 in the kernels, so M*N, M*K and K*N stay below 2^32.
struct Dims {
  uint32_t M = 0, N = 0, K = 0, flags = 0;
  bool trans_a() const { return flags & kTransA; }
  bool trans_b() const { return flags & kTransB; }
  bool bias() const { return flags & kAddBias; }
  bool accumulate() const { return flags & kAccumulate; }
  uint64_t a_count() const { return uint64_t(M) * K; }
  uint64_t b_count() const { return uint64_t(K) * N; }
  uint64_t c_count() const { return uint64_t(M) * N; }
  uint32_t lda() const { return trans_a() ? M : K; }  // stored row length of A
  uint32_t ldb() const { return trans_b() ? K : N; }  // stored row length of B
  // A GPT layer's three products for y = x W (+ b), x [rows, d_in], W [d_in, d_out]:
  static Dims forward(uint32_t rows, uint32_t d_in, uint32_t d_out, bool bias = false) {
    return {rows, d_out, d_in, bias ? uint32_t(kAddBias) : 0u};
  }
  static Dims grad_input(uint32_t rows, uint32_t d_in, uint32_t d_out) {  // dX = dY W^T
    return {rows, d_in, d_out, kTransB};
  }
  static Dims grad_weight(uint32_t rows, uint32_t d_in, uint32_t d_out, bool accumulate = false) {
    return {d_in, d_out, rows, kTransA | (accumulate ? uint32_t(kAccumulate) : 0u)};  // dW = X^T dY
  }
};

// ---- kernels and their shape rules --------------------------------------------------------------

enum class Kernel { Naive, Tiled, Blocked4, Vec4, Vec4Readonly, Blocked8, TiledF16, Native };
inline constexpr Kernel kAllKernels[] = {Kernel::Naive,    Kernel::Tiled,        Kernel::Blocked4,
                                         Kernel::Vec4,     Kernel::Vec4Readonly, Kernel::Blocked8,
                                         Kernel::TiledF16, Kernel::Native};
std::string_view kernel_name(Kernel k);  // "matmul_naive"
std::string qualified_name(Kernel k);    // "matmul/matmul_naive"
// Output tile edge per workgroup (naive: one element per invocation, 256 per workgroup).
uint32_t tile_edge(Kernel k);
// Workgroups of one dispatch (laid out by grid_for_workgroups: 2-D above 65535).
uint64_t workgroups(Kernel k, const Dims& d);
// vec4, vec4_readonly and native read A and B as vec4: lda and ldb must be multiples of 4
// (otherwise those kernels write nothing). The others take any shape.
bool vec4_aligned(const Dims& d);
bool supports(Kernel k, const Dims& d);
// The host's choice where vec4 does not apply: matmul_blocked4 (same algorithm, scalar loads).
Kernel vec4_or_fallback(const Dims& d);

// ---- matmul_native's variants and the host's per-shape choice (issue 23) ------------------------
//
// matmul_native_n64 (matmul_native.comp with NATIVE_BN=64, ABI of matmul_native): 128 x 64 tiles,
// ceil(M/128) * ceil(N/64) workgroups. matmul_native_splitk (matmul_native's bindings without the
// bias, binding 3; S in bits 16..23 of the flags; bias and accumulate are the reduce's) writes S
// raw partial products
// part[s][M][N] over NK-aligned K slices of splitk_chunk(K, S), ceil(M/128) * ceil(N/128) * S
// workgroups; matmul_splitk_reduce (part, C, bias, (M, N, S, flags)) adds them in slice order, then
// the bias, then old C, one invocation per element of C. Both are vec4 kernels: supports(Native).
// A different summation order from matmul_native (S fma chains, then S - 1 adds): different bits,
// the same bound_ulps(terms(d)) against the double reference.
inline constexpr uint32_t kSplitKShift = 16;
inline constexpr uint32_t kMaxSplits = 255;
uint64_t native_n64_workgroups(const Dims& d);
// matmul_native_k16 (in matmul_native.wgsl, matmul_native's bindings and flags): 128 x 64 tiles,
// K step 16, 128 invocations; ceil(M/128) * ceil(N/64) workgroups. The same summation order as
// matmul_native (one fma chain per element in k order), the same bound. A vec4 kernel:
// supports(Native).
uint64_t native_k16_workgroups(const Dims& d);
uint32_t splitk_chunk(uint32_t K, uint32_t splits);  // ceil(ceil(K / 8) / S) * 8
uint64_t splitk_workgroups(const Dims& d, uint32_t splits);
uint64_t splitk_partial_floats(const Dims& d, uint32_t splits);  // S * M * N
uint64_t splitk_reduce_workgroups(const Dims& d);                // ceil(M * N / 256)
// The splitk kernel's flags: d's TRANS bits and S (ADD_BIAS / ACCUMULATE dropped: the reduce's).
uint32_t splitk_flags(const Dims& d, uint32_t splits);
// Whether splitk with `splits` slices is valid for d: supports(Native, d), 2 <= S <= kMaxSplits,
// every slice non-empty and S * M * N below 2^32 (u32 indices).
bool splitk_supported(const Dims& d, uint32_t splits);

// matmul_bias_grad's row lanes per column L (dims.w): 4, 8, 16, 32 or 64; 0 reads as 4 (the
// kernel's first form); any other value makes the kernel write nothing. A workgroup owns 256 / L
// columns: ceil(N / (256 / L)) workgroups. The lanes fix the summation order (lane r sums rows
// r, r+L, ...; then an adjacent-pair tree over the L partials): another L, other bits, the same
// bound (any order).
bool bias_grad_lanes_valid(uint32_t lanes);
uint64_t bias_grad_workgroups(uint32_t N, uint32_t lanes);
// The host's choice for dY [M, N]: the most lanes (up to 64) with at least 8 rows per lane and,
// past N = 4096, N * L <= 2^17; at least 4. Measured on an H200 at M = 2048 (bench rows
// matmul_bias_grad_lL, bench/results/h200-2026-11-27d-h2-kernels): 64 lanes fastest at N = 768,
// 2304 and 3072 (0.013 / 0.021 / 0.027 ms vs 0.089 / 0.139 / 0.191 with the first form's 4).
uint32_t bias_grad_lanes(uint32_t M, uint32_t N);

// What a host runs for a product that matmul_native supports (the trainer's default choice):
struct NativePlan {
  enum class Variant { Native, N64, SplitK, K16 } variant = Variant::Native;
  uint32_t splits = 1;  // SplitK only
};
NativePlan native_plan(const Dims& d);
std::string native_plan_name(const NativePlan& p);  // "native", "n64", "splitk4", "k16"

// matmul_tiled_f16's B: two f16 per u32, low half first, along the stored row (N, or K with
// TRANS_B), each stored row padded to whole words (the pad half is 0).
uint32_t f16_row_words(const Dims& d);  // (ldb + 1) / 2
uint64_t f16_words(const Dims& d);      // stored rows x f16_row_words
// Rounds B to f16 (nearest even, as pack2x16float may; values above 65504 become inf) and packs.
std::vector<uint32_t> pack_b_f16(std::span<const float> b, const Dims& d);
// The f16-rounded B back in f32 (exact), in B's stored layout: what matmul_tiled_f16 multiplies.
std::vector<float> unpack_b_f16(std::span<const uint32_t> words, const Dims& d);

namespace ref {

// ---- comparison bounds --------------------------------------------------------------------------
//
// C[i, j] is a sum of n = K + (bias ? 1 : 0) + (accumulate ? 1 : 0) terms: the K products
// a_ik * b_kj, the bias and the old C. A kernel adds them in f32 in any order (a tile order,
// a tree, with or without FMA contraction: WGSL allows all of them). With round-to-nearest every
// product and add is exact to a relative 2^-24, so for any order (Higham, Accuracy and Stability,
// 3.1) |got - exact| <= gamma_n * S with gamma_n = n u / (1 - n u), u = 2^-24, and
// S = sum_k |a_ik b_kj| + |bias_j| + |old C_ij| (the magnitude). ulp(S) > S * 2^-24 (S lies in
// [2^e, 2^(e+1)), ulp(S) = 2^(e-23)), so gamma_n * S < n / (1 - n u) ulp(S) <= n * 17/16 ulp(S)
// while n <= 2^20. The reference is exact up to its double sum (n 2^-53 S, negligible) and rounded
// once to f32 (half an ULP of |C| <= S). So:
//   |got - expected| <= (n * 17/16 + 1) ULPs of S   (bound_ulps(n), against magnitude S).
// Assumes no product or partial sum is subnormal (a device may flush them: WGSL allows it) and
// no f32 overflow; the tests' and goldens' inputs keep every |a b| >= 2^-60 and far from 2^127.
// A lost or doubled term moves C by about S / K: millions of ULPs of S at our sizes.
double bound_ulps(uint32_t terms);
// Two kernels on the same inputs (the seed's lesson: every variant against the naive kernel on
// non-square shapes): each within gamma_n S of the exact value, so at most 2 n 17/16 ULPs of S
// apart.
double bound_vs_naive_ulps(uint32_t terms);
// matmul_tiled_f16 is held to bound_ulps against the reference run on the f16-rounded weights
// (unpack_b_f16): unpack2x16float widens exactly, so the only extra error is the rounding of B,
// which belongs to the stored weights, not to the kernel. Against the f32 weights before rounding
// add |b - f16(b)| <= 2^-11 |b| per term (normal halves), so 2^-11 S <= 2^13 ulp(S):
double bound_vs_f32_weights_ulps(uint32_t terms);
// matmul_bias_grad: M terms (+ the old db): bound_ulps(terms) against sum_i |dy_ij| (+ |old db|),
// and bit exact against bias_grad_kernel_order() (its own fixed order; f32 adds, no contraction
// possible, round-to-nearest-even without flushing, as on lavapipe and NVIDIA).
inline uint32_t terms(const Dims& d) {
  return d.K + (d.bias() ? 1u : 0u) + (d.accumulate() ? 1u : 0u);
}

// ---- references ---------------------------------------------------------------------------------

// Double in, double out (for a CPU training reference). Sizes: a d.a_count(), b d.b_count(),
// bias d.N when d.bias() (else ignored, may be empty), c d.c_count(): read as the old C when
// d.accumulate(), then overwritten with the result. Throws std::invalid_argument on a size
// mismatch. Only rows [row_begin, row_end) of C are computed (row_end 0: all), for the large cases
// that check a subset.
void matmul(std::span<const double> a, std::span<const double> b, std::span<const double> bias,
            std::span<double> c, const Dims& d, uint32_t row_begin = 0, uint32_t row_end = 0);
// db[j] = sum_i dy[i, j] (+ old db[j] when accumulate); dy is [M, N].
void bias_grad(std::span<const double> dy, std::span<double> db, uint32_t M, uint32_t N,
               bool accumulate);

// The f32 forms the tests and generators use: expected value (double result rounded once to f32)
// and magnitude S per element, for rows [row_begin, row_end) of C (the first element is that of
// row_begin). c_old is read only with accumulate (may be empty otherwise).
struct Expected {
  std::vector<float> value;
  std::vector<double> magnitude;
  double bound = 0;  // bound_ulps(terms(d))
};
Expected matmul(std::span<const float> a, std::span<const float> b, std::span<const float> bias,
                std::span<const float> c_old, const Dims& d, uint32_t row_begin = 0,
                uint32_t row_end = 0);
Expected bias_grad(std::span<const float> dy, std::span<const float> db_old, uint32_t M, uint32_t N,
                   bool accumulate);
// matmul_bias_grad's own order in f32 with L = `lanes` (0 reads as 4): lane r (0..L-1) sums rows
// r, r+L, ... from 0.0, then the partials pairwise, p'[j] = p[2j] + p[2j+1] until one is left
// (L = 4: (p0 + p1) + (p2 + p3)), then old db + that. Throws on an invalid L.
std::vector<float> bias_grad_kernel_order(std::span<const float> dy, std::span<const float> db_old,
                                          uint32_t M, uint32_t N, bool accumulate,
                                          uint32_t lanes = 4);

// |got - expected| in ULPs of max(|expected|, magnitude) (the golden "ulp" comparison with a
// magnitude): 0 for equal values, infinity for a non-finite value against a finite one or a
// finite against a non-finite one; an expected NaN matches any NaN, an infinity only itself.
double ulps_of_magnitude(float got, float expected, double magnitude);

using wgslvk::f32_ulp_of;

}  // namespace ref
}  // namespace wgslvk::matmul
