// CPU references of 04_elementwise.wgsl (GELU forward/backward, residual add, position-embedding
// add), pinned before the WGSL: the double-precision functions (double in, double out, for a CPU
// training reference to chain) and the f32 kernels' expected outputs with their bounds.
// No Vulkan, no runtime.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::elementwise {

// The kernels work on vec4s: element counts (and d) are multiples of 4. One vec4 per invocation,
// 256 per workgroup: ceil(n / 1024) workgroups (a 2-D grid past 65535, flat_id).
uint64_t workgroups_for(uint64_t n_floats);

namespace ref {

// ---- double precision: the algorithm -----------------------------------------------------------

// GPT-2's tanh approximation: gelu(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3),
// evaluated as x / (1 + exp(-2u)) (the same function; no overflow, no cancellation).
double gelu(double x);
// d gelu / dx = s + x s (1 - s) 2 sqrt(2/pi) (1 + 3 * 0.044715 x^2), s = sigmoid(2u).
double gelu_grad(double x);
void gelu_forward(std::span<const double> x, std::span<double> y);
void gelu_backward(std::span<const double> x, std::span<const double> dy, std::span<double> dx);
void residual_add(std::span<const double> a, std::span<const double> b, std::span<double> out);
// x[r, :] += pos[r % T, :] for r < rows, x [rows, d], pos [T, d] (at least).
void pos_embed_add(std::span<double> x, std::span<const double> pos, uint32_t rows, uint32_t T,
                   uint32_t d);

// ---- what the f32 kernels must produce ---------------------------------------------------------

// Per element: value (the double result rounded to f32), magnitude M, bound K: the kernel's value
// lies within K ULPs of max(|value|, M). NaN expected: any NaN; infinite: the same infinity.
using Expected = wgslvk::UlpExpected;  // value, magnitude, bound (wgslvk/numeric.hpp)

// gelu_forward: 12 ULPs of M = |x|. u = 2^-24. With e = exp(-2u) (clamped at exp(80)),
// gelu = x / (1 + e): WGSL's exp has (3 + 2|arg|) ULP = (3 + 4|u|) 2^-23 relative error, which
// moves gelu by |x| e/(1+e)^2 times that, and (3 + 4|u|) min(exp(-2|u|), 1/4) <= 1.44: <= 2.9
// ULPs of |x|; u itself is computed with ~7u relative error (5 operations, 2 rounded constants),
// which moves gelu by |x| 2 e/(1+e)^2 7u |u| <= 2.6 ULPs of |x|; 1 + e rounds (1); the division
// 2.5 ULP of |gelu| <= |x|; the reference rounding (0.5): 9.5, plus second-order terms.
// Inputs below 2^-125 may flush (not tested).
inline constexpr double kGeluForwardUlps = 12;
// gelu_backward: 28 + 22 min(|u|, 40) ULPs of M = |dy| (s + |x s (1-s) du|) (du = 2 sqrt(2/pi)
// (1 + 3 c x^2)): e = exp(-2|u|) carries (6 + 8|u|) u (WGSL exp) plus 14 |u| u from u's own
// error; s = e/(1+e) or 1/(1+e) and s(1-s) = e/(1+e)^2 inherit it at most once; the divisions
// (2.5 ULP), du (5 operations), the products, the add, dy * g and the reference rounding add
// about 20 u. For |u| > 40 the kernel returns 0 or 1 exactly (true value within exp(-80)|x|^3):
// there M = |dy|.
double gelu_backward_bound(float x);
inline constexpr double kGeluBackwardUlpsBase = 28;
inline constexpr double kGeluBackwardUlpsPerU = 22;

Expected gelu_forward_expected(std::span<const float> x);
Expected gelu_backward_expected(std::span<const float> x, std::span<const float> dy);

// residual_add, residual_add_inplace, pos_embed_add: one f32 add, correctly rounded in WGSL:
// bit exact against the f32 add (a + b in float on the CPU: SSE, round to nearest even; a
// device that flushes subnormal results could differ there: the inputs keep clear of them).
inline constexpr uint64_t kAddUlps = 0;
std::vector<float> residual_add_f32(std::span<const float> a, std::span<const float> b);
std::vector<float> pos_embed_add_f32(std::span<const float> x, std::span<const float> pos,
                                     uint32_t rows, uint32_t T, uint32_t d);

}  // namespace ref
}  // namespace wgslvk::elementwise
