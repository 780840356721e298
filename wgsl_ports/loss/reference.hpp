// CPU references of 04_loss.wgsl (softmax cross-entropy forward, mean, backward), pinned before
// the WGSL: the double-precision functions (double in, double out, for a CPU training reference
// to chain) and the f32 kernels' expected outputs with a bound per element. No Vulkan.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::loss {

// logits row-major [rows, vocab]; targets [rows]. A row is valid iff target < vocab and
// target != ignore_index (the kernels' ce_valid); ignored rows have loss 0 and dlogits 0.
struct Shape {
  uint32_t rows = 0;
  uint32_t vocab = 0;
  uint32_t ignore_index = 0xFFFFFFFFu;
};
inline bool valid_row(uint32_t target, const Shape& s) {
  return target < s.vocab && target != s.ignore_index;
}
// One workgroup per row (forward, backward); one workgroup for the mean.
uint64_t row_workgroups(const Shape& s);

namespace ref {

// ---- double precision: the algorithm -----------------------------------------------------------

// lse = max + log(sum exp(x - max)); loss = lse - x[target] for a valid row, 0 otherwise.
void ce_forward(std::span<const double> logits, std::span<const uint32_t> targets, Shape s,
                std::span<double> loss, std::span<double> lse);
// mean over valid rows (0 when none); n_valid out.
double ce_mean(std::span<const double> loss, std::span<const uint32_t> targets, Shape s,
               uint32_t* n_valid);
// dlogits = (exp(x - lse) - onehot(target)) * scale / n_valid for a valid row, 0 otherwise:
// the gradient of scale * mean loss.
void ce_backward(std::span<const double> logits, std::span<const uint32_t> targets,
                 std::span<const double> lse, double scale, uint32_t n_valid, Shape s,
                 std::span<double> dlogits);

// ---- what the f32 kernels must produce ---------------------------------------------------------

// Per element: value (double result rounded to f32), magnitude M, bound K: the kernel's value
// lies within K ULPs of max(|value|, M). NaN expected: any NaN; infinite: the same infinity.
using Expected = wgslvk::UlpExpected;  // value, magnitude, bound (wgslvk/numeric.hpp)

// cross_entropy_forward, per row (u = 2^-24, a_i = x_i - max <= 0, s = sum exp(a_i),
// n_t = ceil(vocab / 256) elements per thread):
// the absolute error of lse is at most
//   E = u (2 W + 7 n_t + 72)            relative error of s, which is the absolute error of log s:
//                                       W = sum (3 + 2|a_i|) exp(a_i) / s is WGSL's exp accuracy
//                                       (3 + 2|arg| ULP = 2u each) summed over the terms; n_t
//                                       sequential adds plus up to n_t rescales s * exp(m - v)
//                                       (3 ULP each after weighting: (3 + 2D) exp(-D) <= 3) and
//                                       8 tree levels of two products, an exp pair and an add
//     + max(2^-21, 3 ulp(log s))        WGSL's log (absolute 2^-21 on [0.5, 2], else 3 ULP)
//     + u |lse|                         m + log(s) rounded
// lse: E + 1/2 ulp (reference rounding) in ULPs of M = |lse|.
// loss: E + u |loss| + 1/2 ulp in ULPs of M = |lse| + |x[target]|; exactly 0 for ignored rows.
struct ForwardExpected {
  Expected loss, lse;
};
ForwardExpected forward_expected(std::span<const float> logits, std::span<const uint32_t> targets,
                                 Shape s);

// cross_entropy_mean on the f32 losses: stats[0] within ceil(rows/256) + 8 (the kernel's adds on
// any term's path: per-thread sequential, then a tree of 8) + 3 (the division's 2.5 ULP) + 1
// (reference rounding) ULPs of M = sum|loss_valid| / n_valid; stats[1] = n_valid exactly.
struct MeanExpected {
  float mean = 0;
  double magnitude = 0;
  double bound = 0;
  uint32_t n_valid = 0;
};
MeanExpected mean_expected(std::span<const float> loss, std::span<const uint32_t> targets, Shape s);

// cross_entropy_backward given the f32 lse (an input, taken exactly) and n_valid:
// with t = x - lse and p = exp(t): 14 + 5|t| ULPs of M = (p + onehot) |scale / n_valid|.
// x - lse rounds (u |t| relative error in p), exp has (3 + 2|t|) ULP (<= (6 + 4|t|) u), p - 1
// and the products round (3u), scale / n_valid has 2.5 ULP (5u), reference rounding. With
// logits of 1e4, |t| reaches 2e4 only where p underflows to 0. M is at least 2^-100: a device
// may flush subnormal results to zero (WGSL allows it). Ignored rows: exactly 0.
Expected backward_expected(std::span<const float> logits, std::span<const uint32_t> targets,
                           std::span<const float> lse, float scale, uint32_t n_valid, Shape s);

}  // namespace ref
}  // namespace wgslvk::loss
