// CPU references of 04_norm.wgsl (layernorm forward and backward), pinned before the WGSL: the
// double-precision algorithm (double in, double out, for a CPU training reference to chain), and
// the f32 kernels' expected outputs with a bound per output element, each with its reason.
// No Vulkan, no runtime.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::norm {

// Row-major [rows, d]; d a multiple of 4 for the kernels (vec4 bindings).
struct Shape {
  uint32_t rows = 0;
  uint32_t d = 0;
};

// ---- the kernels' launch layout (04_norm.wgsl), for hosts, cases and bounds --------------------

// Threads per row: the smallest power of two >= d/16, clamped to [8, 256] (each lane holds at
// most 4 vec4 columns of its row: d <= kMaxD).
uint32_t threads_per_row(uint32_t d);
// Rows per 256-thread workgroup: 256 / threads_per_row(d).
uint32_t rows_per_workgroup(uint32_t d);
// layernorm_forward: ceil(rows / rows_per_workgroup(d)) workgroups.
uint64_t forward_workgroups(Shape s);
// layernorm_backward's rows_per_block (the `rows_per_block` uniform): the host's default, a
// multiple of rows_per_workgroup(d) giving about kTargetBlocks blocks (fewer blocks: less partial
// traffic; more: more workgroups in flight). The result depends on the shape only, so dgamma and
// dbeta are reproducible for a shape.
inline constexpr uint32_t kTargetBlocks = 512;
uint32_t default_rows_per_block(Shape s, uint32_t target_blocks = kTargetBlocks);
// layernorm_backward: one workgroup per block, ceil(rows / rows_per_block).
uint64_t backward_blocks(Shape s, uint32_t rows_per_block);
// layernorm_backward_dparams: ceil(d / 16) workgroups.
uint64_t dparams_workgroups(Shape s);
// Floats in the partials buffer: n_blocks * 2 * d.
uint64_t partials_count(Shape s, uint32_t rows_per_block);
// The largest d the kernels handle (4 vec4 columns per lane, 256 lanes).
inline constexpr uint32_t kMaxD = 4096;

// Depth h of a row sum in the kernels: each lane adds its m = ceil(d/4 / tpr) vec4 columns one at
// a time, then (x + y) + (z + w), then a tree over the tpr lanes: h = m + 2 + log2(tpr) adds
// on any term's path (a bound of h u sum|terms| on the error, u = 2^-24).
uint32_t row_sum_depth(uint32_t d);
// Depth H of dgamma/dbeta sums over rows: ceil(rows_per_block / rpw) adds per segment, rpw - 1
// adds over segments, ceil(n_blocks / 16) adds per lane in the finalize, 15 over lanes.
uint32_t dparams_sum_depth(Shape s, uint32_t rows_per_block);

// norm_native.wgsl's lean pair (ours): layernorm_backward_lean holds LEAN_M = 2 vec4 columns per
// lane, so lean_threads_per_row(d) = the smallest power of two >= d/8 in [8, 256] (d <= kLeanMaxD);
// past kLeanMaxD the host runs the port's layernorm_backward (4 columns per lane, 256 lanes: the
// same partials layout) and finalizes with layernorm_backward_lean_dparams (lean_main_kernel).
inline constexpr uint32_t kLeanMaxD = 2048;
uint32_t lean_threads_per_row(uint32_t d);
uint32_t lean_rows_per_workgroup(uint32_t d);
// "norm/layernorm_backward_lean" for d <= kLeanMaxD, else "norm/layernorm_backward".
const char* lean_main_kernel(uint32_t d);
// The lean pair's rows_per_block: a multiple of lean_rows_per_workgroup(d), about target blocks.
inline constexpr uint32_t kLeanTargetBlocks = 512;
uint32_t lean_rows_per_block(Shape s, uint32_t target_blocks = kLeanTargetBlocks);
// layernorm_backward_lean_dparams: one vec4 column per workgroup, d / 4 workgroups.
uint64_t lean_dparams_workgroups(Shape s);
// Depths: row sums 2 (the lane's 2 columns) + 2 (hsum) + 3 (a tree of 8 lanes) + tpr/8 (the
// segment's group sums in order); past kLeanMaxD the port's row_sum_depth. dgamma/dbeta:
// ceil(rpb / rpw) per segment + (rpw - 1) over segments + ceil(n_blocks / 256) per finalize lane
// + 8 (trees of 8, 8 and 4 over its 256 lanes).
uint32_t lean_row_sum_depth(uint32_t d);
uint32_t lean_dparams_sum_depth(Shape s, uint32_t rows_per_block);
// The finalize alone: ceil(n_blocks / 256) + 8.
uint32_t lean_finalize_depth(Shape s, uint32_t rows_per_block);

namespace ref {

// ---- double precision: the algorithm -----------------------------------------------------------

// mean = sum(x)/d, var = sum((x - mean)^2)/d, rstd = 1/sqrt(var + eps),
// y = (x - mean) * rstd * gamma + beta. Sizes checked (std::invalid_argument).
void layernorm_forward(std::span<const double> x, std::span<const double> gamma,
                       std::span<const double> beta, double eps, Shape s, std::span<double> y,
                       std::span<double> mean, std::span<double> rstd);
// With xhat = (x - mean) * rstd and g = dy * gamma (mean, rstd as saved by the forward):
// dx = rstd * (g - mean_row(g) - xhat * mean_row(g * xhat)); dgamma = sum_rows dy * xhat;
// dbeta = sum_rows dy. All overwritten.
void layernorm_backward(std::span<const double> x, std::span<const double> gamma,
                        std::span<const double> dy, std::span<const double> mean,
                        std::span<const double> rstd, Shape s, std::span<double> dx,
                        std::span<double> dgamma, std::span<double> dbeta);

// ---- what the f32 kernels must produce ---------------------------------------------------------

// Per element: the double result rounded to f32, a magnitude M and a bound K: the kernel's value
// must lie within K ULPs of max(|value|, M) (the golden "ulp" compare with a magnitude file).
// NaN expected: any NaN; infinite expected: the same infinity.
using Expected = wgslvk::UlpExpected;  // value, magnitude, bound (wgslvk/numeric.hpp)

// layernorm_forward (u = 2^-24; h = row_sum_depth(d); A = sum|x|/d of the row):
//  mean: h + 6 ULPs of A: the sum's h u sum|x|, the division's 2.5 ULP (<= 5u A), rounding the
//        reference (+1).
//  rstd: h/2 + 10 + q/u ULPs of rstd: var is a sum of positive terms (h u), each (x - mean)^2
//        rounded three times (3u), divided (5u); + eps (u); inverseSqrt 2 ULP (4u); the square
//        root halves the first part; q = dm^2 / (2 (var + eps)) with dm = (h + 5) u A is what
//        the error of the mean adds to the variance (var' = var + dm^2 exactly).
//  y:    1.5 h + 19 + q/u ULPs of M = |gamma| rstd (|x - mean| + A) + |beta|: dm rstd |gamma|
//        ((h + 5) u M), |x - mean| rstd |gamma| times rstd's relative error, the subtraction and
//        two roundings (xhat * gamma, + beta), rounding the reference.
struct ForwardExpected {
  Expected y, mean, rstd;
};
ForwardExpected forward_expected(std::span<const float> x, std::span<const float> gamma,
                                 std::span<const float> beta, float eps, Shape s);

// layernorm_backward + layernorm_backward_dparams, given the f32 mean and rstd (inputs, taken
// exactly; xhat = (x - mean) rstd has 2u relative error):
//  dx:     h + 15 ULPs of M = rstd (|g| + G1 + |xhat| G2), G1 = mean|g|, G2 = mean|g xhat|: the
//          two row sums (h + 1 and h + 4 u of their |terms|), the divisions (5u), the
//          subtractions and the final product, rounding the reference.
//  dgamma: H + 5 ULPs of sum_rows |dy xhat| (H = dparams_sum_depth; each term has 3u).
//  dbeta:  H + 2 ULPs of sum_rows |dy|.
struct BackwardExpected {
  Expected dx, dgamma, dbeta;
};
BackwardExpected backward_expected(std::span<const float> x, std::span<const float> gamma,
                                   std::span<const float> dy, std::span<const float> mean,
                                   std::span<const float> rstd, Shape s, uint32_t rows_per_block);
// norm_native.wgsl's lean pair: the same with lean_row_sum_depth and lean_dparams_sum_depth.
BackwardExpected lean_backward_expected(std::span<const float> x, std::span<const float> gamma,
                                        std::span<const float> dy, std::span<const float> mean,
                                        std::span<const float> rstd, Shape s,
                                        uint32_t rows_per_block);
// The same with the summation depths given: h for the row sums (dx), H for dgamma/dbeta (the
// overloads above pass the port's and the lean pair's depths).
BackwardExpected backward_expected(std::span<const float> x, std::span<const float> gamma,
                                   std::span<const float> dy, std::span<const float> mean,
                                   std::span<const float> rstd, Shape s, double h, double H);

// mean and rstd of each row as the forward saves them: the double statistics rounded to f32.
void saved_row_stats(std::span<const float> x, Shape s, float eps, std::span<float> mean,
                     std::span<float> rstd);

// A finalize alone on given partials [n_blocks][2][d]: dgamma/dbeta = the sums over blocks,
// within depth + 1 ULPs (the reference's rounding) of the sums of |partials|.
struct DparamsExpected {
  Expected dgamma, dbeta;
};
DparamsExpected dparams_expected(std::span<const float> partials, Shape s, uint64_t n_blocks,
                                 double depth);

}  // namespace ref
}  // namespace wgslvk::norm
