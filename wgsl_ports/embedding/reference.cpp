#include "reference.hpp"

#include "wgslvk/numeric.hpp"  // header-only, no Vulkan

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wgslvk::embedding::ref {
namespace {

void expect_size(const char* fn, const char* what, size_t got, uint64_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("embedding::ref::") + fn + ": " + what + " has " +
                                std::to_string(got) + " elements, the dims need " +
                                std::to_string(want));
}

// The kernels' skip test: `val == 0.0 || !is_finite(val)` (exponent bits, R15).
bool skipped(float v) { return v == 0.0f || !wgslvk::is_finite_bits(v); }

template <class T, class Conv>
void lookup_impl(const char* fn, std::span<const uint32_t> tokens, std::span<const T> table,
                 std::span<float> out, Dims dims, Conv conv) {
  const uint64_t d_model = dims.d_model;
  expect_size(fn, "tokens", tokens.size(), dims.seq_len);
  expect_size(fn, "table", table.size(), uint64_t(dims.vocab_size) * d_model);
  expect_size(fn, "out", out.size(), uint64_t(dims.seq_len) * d_model);
  for (uint64_t s = 0; s < dims.seq_len; ++s) {
    const uint32_t t = tokens[s];
    for (uint64_t d = 0; d < d_model; ++d)
      out[s * d_model + d] = t >= dims.vocab_size ? 0.0f : conv(table[t * d_model + d]);
  }
}

}  // namespace

void lookup(std::span<const uint32_t> tokens, std::span<const float> table, std::span<float> out,
            Dims dims) {
  lookup_impl("lookup", tokens, table, out, dims, [](float v) { return v; });
}

void lookup_w16(std::span<const uint32_t> tokens, std::span<const uint16_t> table_w16,
                std::span<float> out, Dims dims) {
  lookup_impl("lookup_w16", tokens, table_w16, out, dims, wgslvk::f16_bits_to_f32);
}

double BackwardExpected::tolerance(size_t i) const {
  return double(kBackwardUlpsPerTerm) * double(terms[i]) * f32_ulp_of(magnitude[i]);
}

bool BackwardExpected::within(size_t i, float got) const {
  if (std::isnan(value[i])) return std::isnan(got);
  if (std::isinf(value[i])) return got == value[i];
  return std::isfinite(got) && std::fabs(double(got) - double(value[i])) <= tolerance(i);
}

double BackwardExpected::ulps_of_m(size_t i, float got) const {
  return std::fabs(double(got) - double(value[i])) / f32_ulp_of(magnitude[i]);
}

BackwardExpected backward(std::span<const uint32_t> tokens, std::span<const float> grad_out,
                          std::span<const float> grad_table_initial, Dims dims) {
  const uint64_t d_model = dims.d_model;
  const uint64_t n_table = uint64_t(dims.vocab_size) * d_model;
  expect_size("backward", "tokens", tokens.size(), dims.seq_len);
  expect_size("backward", "grad_out", grad_out.size(), uint64_t(dims.seq_len) * d_model);
  expect_size("backward", "grad_table_initial", grad_table_initial.size(), n_table);

  std::vector<double> sum(n_table);
  BackwardExpected e;
  e.terms.assign(n_table, 1);
  e.magnitude.resize(n_table);
  for (uint64_t j = 0; j < n_table; ++j) {
    sum[j] = grad_table_initial[j];
    e.magnitude[j] = std::fabs(double(grad_table_initial[j]));
  }
  for (uint64_t s = 0; s < dims.seq_len; ++s) {
    const uint32_t t = tokens[s];
    if (t >= dims.vocab_size) continue;  // the kernel returns before reading grad_out
    for (uint64_t d = 0; d < d_model; ++d) {
      const float v = grad_out[s * d_model + d];
      if (skipped(v)) continue;
      const uint64_t j = t * d_model + d;
      sum[j] += double(v);
      e.magnitude[j] += std::fabs(double(v));
      ++e.terms[j];
    }
  }
  e.value.resize(n_table);
  for (uint64_t j = 0; j < n_table; ++j) e.value[j] = float(sum[j]);
  return e;
}

std::vector<float> backward_sequential_f32(std::span<const uint32_t> tokens,
                                           std::span<const float> grad_out,
                                           std::span<const float> grad_table_initial, Dims dims) {
  const uint64_t d_model = dims.d_model;
  expect_size("backward_sequential_f32", "tokens", tokens.size(), dims.seq_len);
  expect_size("backward_sequential_f32", "grad_out", grad_out.size(),
              uint64_t(dims.seq_len) * d_model);
  expect_size("backward_sequential_f32", "grad_table_initial", grad_table_initial.size(),
              uint64_t(dims.vocab_size) * d_model);
  std::vector<float> acc(grad_table_initial.begin(), grad_table_initial.end());
  for (uint64_t s = 0; s < dims.seq_len; ++s) {  // position order: the kernel's order per element
    const uint32_t t = tokens[s];
    if (t >= dims.vocab_size) continue;
    for (uint64_t d = 0; d < d_model; ++d) {
      const float v = grad_out[s * d_model + d];
      if (!skipped(v)) acc[t * d_model + d] += v;  // one f32 add, rounded like the GPU's
    }
  }
  return acc;
}

Segments deterministic_segments(std::span<const uint32_t> tokens, uint32_t vocab_size) {
  Segments s;
  s.order.reserve(tokens.size());
  for (uint32_t p = 0; p < tokens.size(); ++p)
    if (tokens[p] < vocab_size) s.order.push_back(p);
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](uint32_t a, uint32_t b) { return tokens[a] < tokens[b]; });
  s.seg_start.push_back(0);
  for (uint32_t k = 1; k < s.order.size(); ++k)
    if (tokens[s.order[k]] != tokens[s.order[k - 1]]) s.seg_start.push_back(k);
  s.seg_start.push_back(uint32_t(s.order.size()));
  return s;
}

}  // namespace wgslvk::embedding::ref
