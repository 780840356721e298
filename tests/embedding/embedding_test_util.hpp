// Shared by the embedding suites (test_embedding, test_embedding_grid): random inputs, poisoned
// outputs, bit-exact and bound comparisons against wgsl_ports/embedding/reference.hpp, and runs
// through the host API. Inputs are fresh per run (WGSLVK_TEST_SEED replays).
#pragma once

#include <algorithm>
#include <cstdio>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "embedding/embedding.hpp"
#include "embedding/reference.hpp"
#include "support/test_device.hpp"

namespace wgslvk::embedding_test {

using embedding::BackwardVariant;
using embedding::Dims;
using embedding::Embedding;
using embedding::OovReport;
namespace ref = embedding::ref;
using testing::device;
using testing::poison_f32;
using testing::rng;
using testing::upload;

// Deterministic: embed_backward_rows where d_model % 4 == 0, else embed_backward_deterministic;
// DeterministicPerElement: always the latter, so shapes with d_model % 4 == 0 run both kernels.
inline constexpr BackwardVariant kAllVariants[] = {
    BackwardVariant::Cas, BackwardVariant::FloatAtomics, BackwardVariant::Deterministic,
    BackwardVariant::DeterministicPerElement};

inline bool supported(BackwardVariant v) {
  return v != BackwardVariant::FloatAtomics || device().has_feature(Feature::Float32AtomicAdd);
}

// ---- inputs -------------------------------------------------------------------------------------

// Normal values, none zero (a zero table or gradient would hide a kernel that writes nothing).
inline std::vector<float> random_floats(std::mt19937_64& g, size_t n, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) {
    do x = dist(g);
    while (x == 0.0f);
  }
  return v;
}

inline std::vector<uint32_t> random_tokens(std::mt19937_64& g, size_t n, uint32_t vocab) {
  std::uniform_int_distribution<uint32_t> dist(0, vocab - 1);
  std::vector<uint32_t> v(n);
  for (auto& t : v) t = dist(g);
  return v;
}

inline std::vector<float> poisoned(size_t n) { return std::vector<float>(n, poison_f32()); }

// ---- comparisons --------------------------------------------------------------------------------

// Bit-for-bit equality (kLookupUlps, kLookupW16Ulps, kDeterministicUlps are 0), with the first
// mismatches named.
inline void expect_bits_equal(const std::vector<float>& got, const std::vector<float>& want,
                              const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i])) continue;
    if (++bad <= 5)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << " (0x" << std::hex
                    << std::bit_cast<uint32_t>(got[i]) << "), expected " << want[i] << " (0x"
                    << std::bit_cast<uint32_t>(want[i]) << std::dec << ")";
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ";
}

// Within the CAS bound of reference.hpp: kBackwardUlpsPerTerm * n ULPs of M per element.
// Returns the largest distance seen, in ULPs of M.
inline double expect_within_backward_bound(const std::vector<float>& got,
                                           const ref::BackwardExpected& want,
                                           const std::string& what) {
  EXPECT_EQ(got.size(), want.value.size()) << what;
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size() && i < want.value.size(); ++i) {
    if (std::isfinite(got[i])) worst = std::max(worst, want.ulps_of_m(i, got[i]));
    if (want.within(i, got[i])) continue;
    if (++bad <= 5)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected "
                    << want.value[i] << " within " << ref::kBackwardUlpsPerTerm
                    << " x n = " << want.terms[i] << " ULPs of M = " << want.magnitude[i]
                    << ", off by " << want.ulps_of_m(i, got[i]) << " ULPs of M";
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " elements outside the bound";
  return worst;
}

// ---- runs ---------------------------------------------------------------------------------------

inline std::vector<float> run_lookup(Embedding& emb, const std::vector<uint32_t>& tokens,
                                     const std::vector<float>& table, Dims dims,
                                     OovReport* report) {
  Device& dev = device();
  Buffer tb = upload(dev, table, "table");
  Buffer ob = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model), "out");
  OovReport r = emb.lookup(tokens, tb, ob, dims);
  if (report) *report = r;
  return read<float>(dev, ob);
}

inline std::vector<float> run_backward(Embedding& emb, const std::vector<uint32_t>& tokens,
                                       const std::vector<float>& grad_out,
                                       const std::vector<float>& table_init, Dims dims,
                                       BackwardVariant v, OovReport* report = nullptr) {
  Device& dev = device();
  Buffer gb = upload(dev, grad_out, "grad_out");
  Buffer tb = upload(dev, table_init, "grad_table");
  OovReport r = emb.backward(tokens, gb, tb, dims, v);
  if (report) *report = r;
  return read<float>(dev, tb);
}

// Checks one backward run of variant v against the reference that variant is held to.
inline void check_backward(Embedding& emb, const std::vector<uint32_t>& tokens,
                           const std::vector<float>& grad_out, const std::vector<float>& table_init,
                           Dims dims, BackwardVariant v, const std::string& what) {
  auto got = run_backward(emb, tokens, grad_out, table_init, dims, v);
  const std::string name = what + " [" + std::string(embedding::variant_name(v)) + "]";
  if (embedding::is_deterministic(v)) {
    expect_bits_equal(got, ref::backward_sequential_f32(tokens, grad_out, table_init, dims), name);
  } else {
    double worst =
        expect_within_backward_bound(got, ref::backward(tokens, grad_out, table_init, dims), name);
    std::printf("%s: largest error %.3g ULPs of M\n", name.c_str(), worst);
  }
}

}  // namespace wgslvk::embedding_test
