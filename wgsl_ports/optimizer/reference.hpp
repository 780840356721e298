// CPU references of the optimizer kernels (12_optimizer.wgsl, from its llm.istanbul study;
// optimizer_native.wgsl, after the popcornAdamW_f32 specification), in double precision rounded to
// each output's type. Plain functions over spans: no Vulkan, no runtime. The tests and the
// golden-file generator call them for expected outputs. Next to every output is its comparison
// bound and the reason for it; the per-element absolute tolerances the references return are
// computed from those constants.
//
// Precision model the bounds rest on (wgsl_ports/RULES.md, "Precision"): + - * correctly
// rounded, contraction into fma allowed, x/y 2.5 ULP, inverseSqrt 2 ULP, sqrt = 1/inverseSqrt
// (so ~4.5 ULP), no subnormal guarantees. Inputs of the tests are normal numbers. "ULP of X" is
// the spacing of f32 at |X| (f32_ulp_of), which lies in (2^-24 |X|, 2^-23 |X|].
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::optimizer {

struct UlpBound {
  uint32_t ulp;     // how many ULPs ...
  const char* of;   // ... of which magnitude
  const char* why;  // the reason
};

// The update kernels' uniforms: hp = (lr, beta1, beta2, weight_decay),
// bias = (beta1^t, beta2^t, eps, t). t only matters to the 8-bit kernel (its rounding seed).
struct AdamWUniforms {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, weight_decay = 0.0f;
  float beta1_t = 0.9f, beta2_t = 0.999f, eps = 1e-8f;
  uint32_t t = 1;
};

// Spacing of f32 values at magnitude m (wgslvk/numeric.hpp).
using wgslvk::f32_ulp_of;

// ---- reduce_norm_sq / reduce_norm_sq_partials -----------------------------------------------------

// Sum of squares of the finite elements, in double.
double reduce_norm_sq_exact(std::span<const float> data);
// ... rounded to f32 (the accumulator's content after one reduce from 0).
float reduce_norm_sq_reference(std::span<const float> data);
// Bound in ULP of the result (no cancellation: every term is >= 0). The GPU sums in f32 along
// chains of at most k = ceil(n / threads) grid-stride adds, 8 tree levels and `workgroups`
// accumulator adds (CAS, or the partials' grid-stride + tree in finalize_grad_stats_partials);
// each add or square rounds by <= 2^-24 relative, so the relative error is <= (k + 8 +
// workgroups + 1) 2^-24 (first order) <= that many ULP of the result.
uint32_t reduce_norm_sq_ulp_bound(uint64_t n, uint64_t threads, uint64_t workgroups);
// Exactness case: if every element is an integer times a common power of two and the exact sum
// of squares fits in 24 bits of mantissa, every partial sum is exact in f32 in any order, so the
// kernel result is bit exact. The tests use this to catch a dropped or doubled element.
inline constexpr UlpBound kReduceIntegerBound{
    0, "the sum", "all partial sums are integers (times one power of two) below 2^24: exact"};

// ---- finalize_grad_stats / finalize_grad_stats_partials -------------------------------------------

struct GradStats {
  float grad_norm = 0;   // sqrt(sum)
  float clip_scale = 1;  // min(1, max_grad_norm / max(grad_norm, 1e-6))
};
// `sum`: the accumulator's f32 value (the finalize kernel's input, exact).
GradStats finalize_grad_stats_reference(float sum, float max_grad_norm);
inline constexpr UlpBound kGradNormBound{
    9, "grad_norm", "sqrt may be 1/inverseSqrt: 2 ULP (<= 4 2^-24 rel.) + a 2.5 ULP division"};
inline constexpr UlpBound kClipScaleBound{
    15, "clip_scale",
    "grad_norm's 9 ULP relative error passes through the 2.5 ULP division (exact 1.0 unless "
    "max_grad_norm / grad_norm is within that of 1)"};

// ---- adamw_update / adamw_update_f16 / adamw_8bit_update (weights) / adamw_one_call ---------------

// Expected outputs and per-element absolute tolerances (|got - expected| <= tol).
struct AdamWExpected {
  std::vector<float> w, m, v;               // f32(double result)
  std::vector<double> w_tol, m_tol, v_tol;  // from the bounds below
};

// m_new = beta1 m + (1 - beta1) grad has up to 4 roundings (clip multiply, two products, sum;
// (1 - beta1) is exact for beta1 in [0.5, 1]) of terms no larger than M1 =
// max(|beta1 m_old|, |(1 - beta1) grad|), and the sum may cancel, so the bound is in ULP of M1.
inline constexpr UlpBound kMBound{
    4, "max(|beta1*m_old|, |(1-beta1)*grad*clip|)",
    "clip multiply, two products and a sum, each <= 1/2 ULP of a term <= M1; the sum may cancel"};
// v_new: every term >= 0, no cancellation: the clip multiply (counts twice, squared), three
// products, one sum.
inline constexpr UlpBound kVBound{6, "v_new",
                                  "6 correctly rounded operations on non-negative terms"};
// w_new = w_old - lr * (m_hat / (sqrt(v_hat) + eps) + wd w_old). First order: the last
// subtraction and storing w cost <= 2 ULP of max(|w_old|, |w_new|); everything inside the
// parentheses is relative error on a step whose size before cancellation is
// S = b1_corr * (|beta1 m_old| + |(1-beta1) grad|) / denom + |wd w_old| (cancellation in m_new is
// absolute error in ULP of M1): m_new 4, b1_corr 1 - beta1_t and 1/x 3.5, m_hat 1, v_new 6 + b2_corr 3.5 + 1
// halved by sqrt, sqrt 4.5 (x2 for ULP/relative), + eps 1, the division 2.5 (x2), + wd w, * lr:
// <= 32 ULP of lr * S.
inline constexpr UlpBound kWOldBound{2, "max(|w_old|, |w_new|)", "final subtraction and rounding"};
inline constexpr UlpBound kWStepBound{
    32, "lr * (b1_corr * (|beta1*m_old| + |(1-beta1)*grad|) / (sqrt(v_hat) + eps) + |wd * w_old|)",
    "relative error of the Adam step: moments, bias corrections, sqrt and division (see above)"};
// g after the update: 0.0 exactly (a store of a constant).
inline constexpr UlpBound kGradZeroBound{0, "g", "the kernel stores the constant 0.0"};
// dst_w16 (adamw_update_f16): the f16 rounding of the kernel's own new f32 weight. The f32 -> f16
// conversion's rounding mode is implementation-defined in Vulkan (RNE or RTZ): within 1 f16 ULP
// of f32_to_f16_bits(w_new_gpu), and so also of f32_to_f16_bits(expected w) (w's tolerance is a
// few f32 ULP, 1/8192 of an f16 ULP).
inline constexpr UlpBound kMirrorBound{1, "f16(w_new)",
                                       "f32->f16 rounding mode is implementation-defined"};

// adamw_update: grad = finite(g) ? g : 0, times clip (grad_stats[1]); the seed's math.
AdamWExpected adamw_update_reference(std::span<const float> w, std::span<const float> g,
                                     std::span<const float> m, std::span<const float> v, float clip,
                                     const AdamWUniforms& u);

// adamw_one_call (seed 002): no finite guard, no clip, bc1/bc2 given, m_hat = m_new / bc1 (a
// division: 2.5 ULP instead of the reciprocal's 3.5 + 1; the same bounds cover it).
struct OneCallParams {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
  float bias_correction1 = 0.1f, bias_correction2 = 0.001f;
};
AdamWExpected adamw_one_call_reference(std::span<const float> param, std::span<const float> grad,
                                       std::span<const float> m, std::span<const float> v,
                                       const OneCallParams& p);

// ---- adamw_8bit_update: the quantization scheme (documented in 12_optimizer.wgsl) -----------------
// Bit-for-bit mirrors of the WGSL helpers.
inline constexpr uint32_t kQ8MTop = 15;  // m: E4M3 + sign
inline constexpr uint32_t kQ8VTop = 31;  // v: E5M3 unsigned
inline constexpr uint32_t kQ8Block = 256;
uint32_t q8_hash(uint32_t x);
uint32_t q8_block_exp(uint32_t max_bits);
uint32_t q8_encode(uint32_t bits, uint32_t emax, uint32_t top, uint32_t rnd);
float q8_decode(uint32_t code, uint32_t emax, uint32_t top);
// Whole-value helpers as the kernel applies them (sign, v's no-flush rule, hashed rounding).
uint32_t q8_encode_m(float m_new, uint32_t m_emax, uint32_t t);
uint32_t q8_encode_v(float v_new, uint32_t v_emax, uint32_t t);
float q8_decode_m(uint32_t code, float m_scale);
float q8_decode_v(uint32_t code, float v_scale);
// Byte i of a packed array (element i is byte i % 4 of word i / 4, LSB first).
inline uint32_t q8_code_at(std::span<const uint32_t> packed, size_t i) {
  return (packed[i / 4] >> (8 * (i % 4))) & 0xffu;
}

struct Q8Expected {
  AdamWExpected f32;  // w (with the adamw bounds), and m_new, v_new before requantization
  // The kernel's requantization of the f32-rounded m_new / v_new above: bit exact when the GPU's
  // m_new, v_new equal these (they may differ within m_tol, v_tol: see q8_check_block).
  std::vector<uint32_t> m_packed, v_packed;
  std::vector<float> m_scale, v_scale;
};
// Inputs: the packed state and scales (ceil(n/4) words, ceil(n/256) scales each).
Q8Expected adamw_8bit_update_reference(std::span<const float> w, std::span<const float> g,
                                       std::span<const uint32_t> m_packed,
                                       std::span<const uint32_t> v_packed,
                                       std::span<const float> m_scale,
                                       std::span<const float> v_scale, float clip,
                                       const AdamWUniforms& u);
// Codes and scales: the GPU's m_new may differ from the reference's by m_tol (and v by v_tol);
// a different f32 value gives a different hash and so possibly a neighbouring code, and a block
// maximum near a binade edge a different scale. So the check is: the block scale the GPU wrote
// is the block exponent of some maximum within tolerance of the reference's, and each code is
// the encoding, with that scale, of some f32 within tolerance of the reference value (every f32
// in [value - tol, value + tol] is tried; at most a few dozen). Returns an empty string when the
// block passes, else a message naming the element, the codes and the values.
std::string q8_check_block(const Q8Expected& ex, std::span<const uint32_t> got_m_packed,
                           std::span<const uint32_t> got_v_packed,
                           std::span<const float> got_m_scale, std::span<const float> got_v_scale,
                           size_t block, size_t n, uint32_t t);

}  // namespace wgslvk::optimizer
