// CPU references of the embedding kernels (the llm.istanbul study of 01_embedding.wgsl, "Mathematical
// Definition"), in double precision rounded to the output type. Plain functions over spans: no
// Vulkan, no runtime; the tests and the golden-file generator call them for expected outputs.
// Each output's comparison bound is a constant below, with its reason.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::embedding {

// The kernels' `dims` uniform: (seq_len, d_model, vocab_size, _). Tables are row-major
// [vocab_size x d_model], activations and gradients [seq_len x d_model].
struct Dims {
  uint32_t seq_len = 0;
  uint32_t d_model = 0;
  uint32_t vocab_size = 0;
};

namespace ref {

// ---- comparison bounds --------------------------------------------------------------------------

// embed_lookup: every output is a copy of a table element or the constant 0.0: bit exact.
inline constexpr uint64_t kLookupUlps = 0;
// embed_lookup_w16: f32(f16) is exact (every f16 is an f32), so bit exact against lookup_w16()
// below, which is embed_lookup on the f32 copy of the f16 table.
inline constexpr uint64_t kLookupW16Ulps = 0;
// embed_lookup_rows / embed_lookup_w16_rows (ours): the same copy / widening by rows of vec4, held
// to kLookupUlps / kLookupW16Ulps against lookup() / lookup_w16() (unpack2x16float is exact).
// embed_backward_deterministic: bit exact against backward_sequential_f32(), the f32 sum in
// position order starting from the table's value, which is the kernel's own order of adds.
// (Assumes round-to-nearest-even f32 adds without subnormal flushing, as on lavapipe and NVIDIA;
// run-to-run identity does not depend on it.)
inline constexpr uint64_t kDeterministicUlps = 0;
// embed_backward (CAS) and embed_backward_atomic_float: one table element receives
// n f32 terms (its initial value plus every non-skipped contribution) added in an order the
// atomics choose. Any order of recursive f32 summation has n - 1 roundings; with
// round-to-nearest-even each is at most half an ULP of the partial sum, and every partial sum is
// at most M = |initial| + sum |contribution| (plus the error so far, which may reach the next
// binade: hence a whole ULP of M per add). The reference is the double sum (error ~n 2^-53 M)
// rounded to f32 (half an ULP of M). So |got - expected| <= (n - 1 + 1/2 + tiny) ulp(M)
// <= n ulp(M): the bound is kBackwardUlpsPerTerm * n ULPs of M, where ulp(M) is the spacing of
// f32 at the magnitude M (f32_ulp_of below). An element that receives nothing (n = 1) is exact.
inline constexpr uint64_t kBackwardUlpsPerTerm = 1;

// Spacing of f32 values at magnitude m (wgslvk/numeric.hpp).
using wgslvk::f32_ulp_of;

// ---- references ---------------------------------------------------------------------------------

// out[s*d_model + d] = table[tokens[s]*d_model + d], or 0.0 when tokens[s] >= vocab_size.
// Sizes: tokens seq_len, table vocab_size*d_model, out seq_len*d_model (checked: throws
// std::invalid_argument on a mismatch).
void lookup(std::span<const uint32_t> tokens, std::span<const float> table, std::span<float> out,
            Dims dims);

// The same with the table given as f16 bit patterns, converted exactly to f32.
void lookup_w16(std::span<const uint32_t> tokens, std::span<const uint16_t> table_w16,
                std::span<float> out, Dims dims);

// embed_backward: grad_table[t, d] = initial[t, d] + sum over positions s with tokens[s] == t
// (t < vocab_size) of grad_out[s, d], skipping contributions that are 0.0 (either sign) or not
// finite (the kernel's `val == 0.0 || !is_finite(val)`). Summed in double, rounded to f32.
struct BackwardExpected {
  std::vector<float> value;       // f32(double sum), vocab_size*d_model
  std::vector<uint32_t> terms;    // n: the initial value plus the non-skipped contributions
  std::vector<double> magnitude;  // M: |initial| + sum of |non-skipped contributions|

  // Allowed |got - value[i]|: kBackwardUlpsPerTerm * n ULPs of M (see above).
  double tolerance(size_t i) const;
  // got within tolerance(i) of value[i]; a NaN expected value needs a NaN.
  bool within(size_t i, float got) const;
  // How many ULPs of M `got` is away from value[i] (for messages).
  double ulps_of_m(size_t i, float got) const;
};
BackwardExpected backward(std::span<const uint32_t> tokens, std::span<const float> grad_out,
                          std::span<const float> grad_table_initial, Dims dims);

// The deterministic variant's exact result: for each table element, starting from its initial
// value, add its non-skipped contributions one at a time in f32, in increasing position order.
std::vector<float> backward_sequential_f32(std::span<const uint32_t> tokens,
                                           std::span<const float> grad_out,
                                           std::span<const float> grad_table_initial, Dims dims);

// The host's part of embed_backward_deterministic (embedding_native.wgsl): the in-vocabulary
// positions stably sorted by token id (so in position order within a token), cut into one segment
// per distinct token; seg_start holds each segment's first index into order, then order.size().
struct Segments {
  std::vector<uint32_t> order, seg_start;
  uint32_t count() const { return uint32_t(seg_start.size() - 1); }
};
Segments deterministic_segments(std::span<const uint32_t> tokens, uint32_t vocab_size);

}  // namespace ref
}  // namespace wgslvk::embedding
