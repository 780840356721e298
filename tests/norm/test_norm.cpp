// wgsl_ports/norm: the double references' gradients against central finite differences of the
// forward (in double), the kernels on fresh random inputs through every golden generator of the
// family (new seed per run: wgslvk::wt::test_seed), run-to-run bitwise identity of the
// dgamma/dbeta reduction, and that the bounds are tight enough to catch plausible bugs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>

#include "norm/cases.hpp"
#include "norm/reference.hpp"
#include "support/family_cases.hpp"
#include "support/test_device.hpp"
#include "wgslvk/kernels/norm/layernorm_backward.hpp"
#include "wgslvk/kernels/norm/layernorm_backward_lean.hpp"
#include "wgslvk/kernels/norm/layernorm_forward.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/runner.hpp"

namespace {

using namespace wgslvk;
using namespace wgslvk::norm;
namespace v = wgslvk::validate;
namespace wt = wgslvk::testing;
namespace nk = wgslvk::kernels::norm;

std::vector<double> randn(std::mt19937_64& g, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> x(n);
  for (auto& e : x) e = u(g);
  return x;
}

// ---- the double references ----------------------------------------------------------------------

// L = sum(w * y): dL/dx, dL/dgamma, dL/dbeta from layernorm_backward(dy = w) against central
// differences. Step h = 1e-5 on O(1) inputs: truncation ~h^2 |f'''| ~ 1e-10, rounding
// ~1e-16 |L| / h ~ 1e-10: tolerance 1e-7 (|grad| + 1).
TEST(NormReference, BackwardMatchesFiniteDifferences) {
  auto g = wt::rng(1);
  for (Shape s : {Shape{3, 8}, Shape{2, 20}}) {
    const size_t n = size_t(s.rows) * s.d;
    auto x = randn(g, n, -2, 2), gamma = randn(g, s.d, 0.5, 1.5), beta = randn(g, s.d, -1, 1),
         w = randn(g, n, -1, 1);
    const double eps = 1e-5;
    auto loss = [&](const std::vector<double>& xx, const std::vector<double>& gg,
                    const std::vector<double>& bb) {
      std::vector<double> y(n), m(s.rows), r(s.rows);
      ref::layernorm_forward(xx, gg, bb, eps, s, y, m, r);
      double l = 0;
      for (size_t i = 0; i < n; ++i) l += w[i] * y[i];
      return l;
    };
    std::vector<double> y(n), m(s.rows), r(s.rows), dx(n), dg(s.d), db(s.d);
    ref::layernorm_forward(x, gamma, beta, eps, s, y, m, r);
    ref::layernorm_backward(x, gamma, w, m, r, s, dx, dg, db);
    const double h = 1e-5;
    auto fd = [&](std::vector<double>& p, size_t i) {
      const double keep = p[i];
      p[i] = keep + h;
      const double lp = loss(x, gamma, beta);
      p[i] = keep - h;
      const double lm = loss(x, gamma, beta);
      p[i] = keep;
      return (lp - lm) / (2 * h);
    };
    for (size_t i = 0; i < n; ++i) {
      const double want = fd(x, i);
      EXPECT_NEAR(dx[i], want, 1e-7 * (std::fabs(want) + 1)) << "dx " << i;
    }
    for (size_t j = 0; j < s.d; ++j) {
      double want = fd(gamma, j);
      EXPECT_NEAR(dg[j], want, 1e-7 * (std::fabs(want) + 1)) << "dgamma " << j;
      want = fd(beta, j);
      EXPECT_NEAR(db[j], want, 1e-7 * (std::fabs(want) + 1)) << "dbeta " << j;
    }
  }
}

TEST(NormReference, ForwardNormalizesEachRow) {
  auto g = wt::rng(2);
  const Shape s{4, 96};
  auto x = randn(g, 4 * 96, -3, 5);
  std::vector<double> gamma(96, 1.0), beta(96, 0.0), y(x.size()), m(4), r(4);
  ref::layernorm_forward(x, gamma, beta, 0.0, s, y, m, r);
  for (uint32_t row = 0; row < 4; ++row) {
    double s1 = 0, s2 = 0;
    for (uint32_t j = 0; j < 96; ++j)
      s1 += y[row * 96 + j], s2 += y[row * 96 + j] * y[row * 96 + j];
    EXPECT_NEAR(s1 / 96, 0.0, 1e-14);
    EXPECT_NEAR(s2 / 96, 1.0, 1e-14);
  }
}

TEST(NormReference, LaunchLayout) {
  EXPECT_EQ(threads_per_row(80), 8u);  // 20 vec4 columns: 3 per lane, the third for lanes < 4
  EXPECT_EQ(threads_per_row(96), 8u);
  EXPECT_EQ(threads_per_row(256), 16u);
  EXPECT_EQ(threads_per_row(512), 32u);
  EXPECT_EQ(threads_per_row(768), 64u);  // 48 vec4 columns: 3 per lane
  EXPECT_EQ(threads_per_row(1040), 128u);
  EXPECT_EQ(threads_per_row(4096), 256u);  // kMaxD: 4 per lane
  EXPECT_EQ(rows_per_workgroup(128), 32u);
  // The lean pair: 2 vec4s per lane (d / 8 lanes, a power of two in [8, 256]); past kLeanMaxD
  // the port's main kernel (its layout: 256 lanes, 1 row per workgroup).
  EXPECT_EQ(lean_threads_per_row(20), 8u);
  EXPECT_EQ(lean_threads_per_row(96), 16u);
  EXPECT_EQ(lean_threads_per_row(256), 32u);
  EXPECT_EQ(lean_threads_per_row(768), 128u);
  EXPECT_EQ(lean_threads_per_row(2048), 256u);
  EXPECT_EQ(lean_threads_per_row(4096), 256u);
  EXPECT_EQ(lean_main_kernel(2048), nk::layernorm_backward_lean::name);
  EXPECT_EQ(lean_main_kernel(2052), nk::layernorm_backward::name);
  EXPECT_EQ(lean_row_sum_depth(768), 2u + 2u + 3u + 16u);
  EXPECT_EQ(lean_row_sum_depth(4096), row_sum_depth(4096));
  EXPECT_EQ(lean_dparams_sum_depth({16384, 768}, 32), 16u + 1u + 2u + 8u);  // 512 blocks
  EXPECT_EQ(lean_dparams_workgroups({5, 768}), 192u);
  EXPECT_EQ(forward_workgroups({37, 80}), 2u);
  // The default block: a multiple of rows_per_workgroup, about kTargetBlocks blocks.
  for (Shape s : {Shape{4096, 768}, Shape{16384, 96}, Shape{7, 96}}) {
    const uint32_t rpb = default_rows_per_block(s);
    EXPECT_EQ(rpb % rows_per_workgroup(s.d), 0u);
    EXPECT_LE(backward_blocks(s, rpb), uint64_t(kTargetBlocks));
    const uint32_t lrpb = lean_rows_per_block(s);
    EXPECT_EQ(lrpb % lean_rows_per_workgroup(s.d), 0u);
    EXPECT_LE(backward_blocks(s, lrpb), uint64_t(kLeanTargetBlocks));
  }
}

// ---- the kernels ----------------------------------------------------------------------------------

using wt::generator;

TEST(NormKernels, EveryGeneratorPassesOnFreshInputs) {
  wt::expect_every_generator_passes("norm", 25u);
}

// dgamma/dbeta: no atomics, a fixed order of adds: two runs give the same bits.
TEST(NormKernels, BackwardIsBitwiseReproducible) {
  v::Runner runner(wt::device());
  v::Case c =
      v::generate(generator(std::string(nk::layernorm_backward::name), "d80_two_rows_per_segment"),
                  wt::test_seed());
  auto a = runner.run(c), b = runner.run(c);
  ASSERT_EQ(a.status, v::CaseResult::Status::Pass) << a.message;
  for (const char* out : {"dx", "dgamma", "dbeta"})
    EXPECT_EQ(a.outputs.at(out).bytes, b.outputs.at(out).bytes) << out;
}

// Replaces a check's expected values by f(value, index) and returns the run's status.
v::CaseResult::Status run_with(v::Case c, const std::string& buffer,
                               const std::function<float(float, size_t)>& f) {
  for (auto& k : c.checks) {
    if (k.buffer != buffer || k.mode != v::CheckSpec::Mode::Ulp) continue;
    std::vector<float> e(k.expected.count());
    std::memcpy(e.data(), k.expected.bytes.data(), e.size() * 4);
    for (size_t i = 0; i < e.size(); ++i) e[i] = f(e[i], i);
    k.expected = v::Array::of(v::DType::F32, e);
  }
  v::Runner runner(wt::device());
  return runner.run(c).status;
}

// The bounds catch the classic bugs: Bessel's correction (var / (d - 1)) in the forward, a
// backward that drops the xhat * mean(g xhat) term (seen through dgamma: one row left out).
TEST(NormKernels, BoundsCatchPlausibleBugs) {
  using S = v::CaseResult::Status;
  const uint64_t seed = wt::test_seed();
  v::Case fwd = v::generate(generator(std::string(nk::layernorm_forward::name), "d768"), seed);
  const double k = std::sqrt(768.0 / 767.0);
  EXPECT_EQ(run_with(fwd, "rstd", [&](float r, size_t) { return float(r * k); }), S::Fail);
  EXPECT_EQ(run_with(fwd, "mean", [](float m, size_t) { return m + 1e-2f; }), S::Fail);
  // Control: the untouched case passes.
  EXPECT_EQ(run_with(fwd, "rstd", [](float r, size_t) { return r; }), S::Pass);

  v::Case bwd =
      v::generate(generator(std::string(nk::layernorm_backward::name), "blocks_d96"), seed);
  EXPECT_EQ(run_with(bwd, "dgamma", [](float g, size_t) { return g * 0.999f; }), S::Fail);
  EXPECT_EQ(run_with(bwd, "dx", [](float g, size_t) { return g * (1 + 0x1p-10f); }), S::Fail);
}

// ---- norm_native.wgsl (ours): layernorm_backward_lean + layernorm_backward_lean_dparams ------

// Fixed order, no atomics: two runs give the same bits (d = 768: 16 groups of 8 lanes per row;
// 600 blocks: the finalize's lanes add 2 or 3 blocks; d = 4096: the port's main kernel).
TEST(NormLean, BitwiseReproducible) {
  v::Runner runner(wt::device());
  for (const char* name : {"d768", "blocks_600_d8", "d4096_port_main"}) {
    v::Case c = v::generate(generator(std::string(nk::layernorm_backward_lean::name), name),
                            wt::test_seed());
    auto a = runner.run(c), b = runner.run(c);
    ASSERT_EQ(a.status, v::CaseResult::Status::Pass) << name << ": " << a.message;
    for (const char* out : {"dx", "dgamma", "dbeta"})
      EXPECT_EQ(a.outputs.at(out).bytes, b.outputs.at(out).bytes) << name << " " << out;
  }
}

// More than 65535 rows on fresh inputs (row * d4 indexing; about 512 blocks of 129+ rows, so each
// segment walks several row groups and the finalize's lanes add 2 or 3 blocks).
TEST(NormLean, MoreThan65535Rows) {
  const Shape s{65600, 8};
  const uint32_t rpb = lean_rows_per_block(s);
  ASSERT_EQ(rpb, 160u);
  v::Runner runner(wt::device());
  auto r = runner.run(v::norm_lean_backward_case(wt::test_seed(), s, rpb));
  EXPECT_EQ(r.status, v::CaseResult::Status::Pass) << r.message;
}

// Deliberately wrong variants are caught: a finalize told one block fewer, expected values off
// by 0.1% (dgamma, dbeta) or 2^-10 (dx). Control: the right call passes.
TEST(NormLean, WrongVariantsFail) {
  using S = v::CaseResult::Status;
  const uint64_t seed = wt::test_seed();
  const Shape s{53, 96};
  v::Runner runner(wt::device());
  EXPECT_EQ(runner.run(v::norm_lean_backward_case(seed, s, 5)).status, S::Pass);
  EXPECT_EQ(runner.run(v::norm_lean_backward_case(seed, s, 5, 50)).status, S::Fail);
  v::Case c = v::generate(
      generator(std::string(nk::layernorm_backward_lean::name), "d100_partial_block"), seed);
  EXPECT_EQ(run_with(c, "dgamma", [](float g, size_t) { return g * 0.999f; }), S::Fail);
  EXPECT_EQ(run_with(c, "dbeta", [](float g, size_t) { return g * 0.999f; }), S::Fail);
  EXPECT_EQ(run_with(c, "dx", [](float g, size_t) { return g * (1 + 0x1p-10f); }), S::Fail);
  EXPECT_EQ(run_with(c, "dx", [](float g, size_t) { return g; }), S::Pass);
}

}  // namespace
