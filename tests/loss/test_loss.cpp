// wgsl_ports/loss: the double backward reference against central finite differences of
// scale * mean(loss) (double), the kernels on fresh random inputs through every golden generator
// of the family, the three kernels chained on the device (stats from the mean feeding the
// backward), and bounds tight enough to catch a dropped element or a missing 1/n_valid.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "loss/reference.hpp"
#include "support/family_cases.hpp"
#include "support/test_device.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/case_builder.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/runner.hpp"
#include "wgslvk/kernels/loss/cross_entropy_backward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_forward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_mean.hpp"

namespace {

using namespace wgslvk;
using wgslvk::loss::Shape;
namespace lref = wgslvk::loss::ref;
namespace v = wgslvk::validate;
namespace wt = wgslvk::testing;
namespace ce_fwd = wgslvk::kernels::loss::cross_entropy_forward;
namespace ce_mean = wgslvk::kernels::loss::cross_entropy_mean;
namespace ce_bwd = wgslvk::kernels::loss::cross_entropy_backward;

// L = scale * mean over valid rows of the loss. Step h = 1e-6 on logits in [-3, 3]:
// truncation h^2 |L'''| < 1e-12, rounding 1e-16 |L| / h < 1e-9: tolerance 1e-8.
TEST(LossReference, BackwardMatchesFiniteDifferences) {
  auto g = wt::rng(3);
  std::uniform_real_distribution<double> u(-3, 3);
  const Shape s{5, 7, 2};  // ignore_index 2 inside the vocabulary
  std::vector<double> x(35);
  for (auto& e : x) e = u(g);
  const std::vector<uint32_t> targets = {0, 2, 6, 7, 4};  // row 1 ignored, row 3 out of range
  const double scale = 0.75;
  auto L = [&](const std::vector<double>& xx) {
    std::vector<double> loss(5), lse(5);
    lref::ce_forward(xx, targets, s, loss, lse);
    return scale * lref::ce_mean(loss, targets, s, nullptr);
  };
  std::vector<double> loss(5), lse(5), dl(35);
  lref::ce_forward(x, targets, s, loss, lse);
  uint32_t n_valid = 0;
  lref::ce_mean(loss, targets, s, &n_valid);
  EXPECT_EQ(n_valid, 3u);
  lref::ce_backward(x, targets, lse, scale, n_valid, s, dl);
  const double h = 1e-6;
  for (size_t i = 0; i < x.size(); ++i) {
    auto xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    EXPECT_NEAR(dl[i], (L(xp) - L(xm)) / (2 * h), 1e-8) << i;
  }
  for (size_t j = 7; j < 14; ++j) EXPECT_EQ(dl[j], 0.0);  // the ignored row
}

TEST(LossReference, ExtremeLogitsStayFinite) {
  const Shape s{2, 4, 0xFFFFFFFFu};
  std::vector<double> x = {1e4, -1e4, 0, 1e4, -1e4, -1e4, -1e4, -1e4}, loss(2), lse(2);
  lref::ce_forward(x, std::vector<uint32_t>{1, 0}, s, loss, lse);
  EXPECT_NEAR(loss[0], 2e4 + std::log(2.0), 1e-9);
  EXPECT_NEAR(lse[1], -1e4 + std::log(4.0), 1e-9);
  EXPECT_NEAR(loss[1], std::log(4.0), 1e-9);
}

using wt::generator;

TEST(LossKernels, EveryGeneratorPassesOnFreshInputs) {
  wt::expect_every_generator_passes("loss", 11u);
}

std::vector<float> floats(const v::Array& a) {
  std::vector<float> f(a.count());
  std::memcpy(f.data(), a.bytes.data(), f.size() * 4);
  return f;
}

// Forward -> mean -> backward on the device, as a trainer runs them: the backward reads n_valid
// from the mean's stats. Each output is checked against the reference on the device's own
// inputs (lse and stats read back), within the bounds of reference.hpp.
TEST(LossKernels, ChainedOnTheDevice) {
  auto g = wt::rng(4);
  std::uniform_real_distribution<double> u(-5, 5);
  const Shape s{37, 1003, 0xFFFFFFFFu};
  std::vector<float> x(size_t(s.rows) * s.vocab);
  for (auto& e : x) e = float(u(g));
  std::vector<uint32_t> t(s.rows);
  for (uint32_t r = 0; r < s.rows; ++r)
    t[r] = r % 6 == 1 ? s.ignore_index : uint32_t(g() % s.vocab);
  const float scale = 2.0f;

  v::CaseBuilder b;
  b.c.kernel = std::string(ce_fwd::name);
  b.c.name = "chained";
  b.input("logits", v::DType::F32, x);
  b.input("targets", v::DType::U32, t);
  b.output("loss", v::DType::F32, s.rows);
  b.output("lse", v::DType::F32, s.rows);
  b.output("stats", v::DType::F32, 2);
  b.output("dlogits", v::DType::F32, x.size());
  auto& f = b.dispatch(ce_fwd::Kernel{});
  v::CaseBuilder::bind(f, ce_fwd::binding::cf_logits, "logits");
  v::CaseBuilder::bind(f, ce_fwd::binding::cf_targets, "targets");
  v::CaseBuilder::bind(f, ce_fwd::binding::cf_loss, "loss");
  v::CaseBuilder::bind(f, ce_fwd::binding::cf_lse, "lse");
  v::CaseBuilder::bind_uniform(f, ce_fwd::binding::cf,
                               ce_fwd::CeParams{s.rows, s.vocab, s.ignore_index, scale});
  f.workgroups_1d = s.rows;
  auto& m = b.dispatch(ce_mean::Kernel{});
  v::CaseBuilder::bind(m, ce_mean::binding::cm_loss, "loss");
  v::CaseBuilder::bind(m, ce_mean::binding::cm_targets, "targets");
  v::CaseBuilder::bind(m, ce_mean::binding::cm_stats, "stats");
  v::CaseBuilder::bind_uniform(m, ce_mean::binding::cm,
                               ce_mean::CeParams{s.rows, s.vocab, s.ignore_index, scale});
  m.workgroups_1d = 1;
  auto& k = b.dispatch(ce_bwd::Kernel{});
  v::CaseBuilder::bind(k, ce_bwd::binding::cb_logits, "logits");
  v::CaseBuilder::bind(k, ce_bwd::binding::cb_targets, "targets");
  v::CaseBuilder::bind(k, ce_bwd::binding::cb_lse, "lse");
  v::CaseBuilder::bind(k, ce_bwd::binding::cb_stats, "stats");
  v::CaseBuilder::bind(k, ce_bwd::binding::cb_dlogits, "dlogits");
  v::CaseBuilder::bind_uniform(k, ce_bwd::binding::cb,
                               ce_bwd::CeParams{s.rows, s.vocab, s.ignore_index, scale});
  k.workgroups_1d = s.rows;
  // Read back everything (exact checks against themselves are not possible: compare below).
  for (const char* n : {"loss", "lse", "stats", "dlogits"})
    b.check_ulp(
        n,
        v::Array::of(v::DType::F32, std::vector<float>(n == std::string("stats")     ? 2
                                                       : n == std::string("dlogits") ? x.size()
                                                                                     : s.rows)),
        1e30, "read back only");
  v::Runner runner(wt::device());
  v::CaseResult r = runner.run(b.c);
  ASSERT_NE(r.status, v::CaseResult::Status::Error) << r.message;
  auto loss = floats(r.outputs.at("loss")), lse = floats(r.outputs.at("lse")),
       stats = floats(r.outputs.at("stats")), dl = floats(r.outputs.at("dlogits"));

  auto fe = lref::forward_expected(x, t, s);
  for (uint32_t i = 0; i < s.rows; ++i) {
    EXPECT_TRUE(fe.loss.within(i, loss[i])) << "loss row " << i << ": " << fe.loss.ulps(i, loss[i]);
    EXPECT_TRUE(fe.lse.within(i, lse[i])) << "lse row " << i;
  }
  auto me = lref::mean_expected(loss, t, s);  // on the device's losses
  EXPECT_EQ(stats[1], float(me.n_valid));
  EXPECT_LE(std::fabs(double(stats[0]) - me.mean), me.bound * f32_ulp_of(me.magnitude));
  auto be = lref::backward_expected(x, t, lse, scale, me.n_valid, s);  // on the device's lse
  size_t bad = 0;
  for (size_t i = 0; i < dl.size(); ++i) bad += !be.within(i, dl[i]);
  EXPECT_EQ(bad, 0u);
}

// Replaces a check's expected values by f(index, value).
v::CaseResult::Status run_with(v::Case c, const std::string& buffer,
                               const std::function<float(size_t, float)>& f) {
  for (auto& k : c.checks) {
    if (k.buffer != buffer || k.mode != v::CheckSpec::Mode::Ulp) continue;
    auto e = floats(k.expected);
    for (size_t i = 0; i < k.range_end(); ++i) e[i] = f(i, e[i]);
    k.expected = v::Array::of(v::DType::F32, e);
  }
  v::Runner runner(wt::device());
  return runner.run(c).status;
}

TEST(LossKernels, BoundsCatchPlausibleBugs) {
  using S = v::CaseResult::Status;
  const uint64_t seed = wt::test_seed();
  // A row loop that drops its last element: lse without exp(x[vocab - 1]) (vocab 50).
  v::Case fwd = v::generate(generator(std::string(ce_fwd::name), "vocab_below_workgroup"), seed);
  std::vector<float> x;
  for (auto& b : fwd.buffers)
    if (b.name == "logits") x = floats(b.data);
  const uint32_t V = 50;
  EXPECT_EQ(
      run_with(fwd, "lse",
               [&](size_t r, float l) {
                 return float(std::log(std::exp(double(l)) - std::exp(double(x[r * V + V - 1]))));
               }),
      S::Fail);
  EXPECT_EQ(run_with(fwd, "lse", [](size_t, float l) { return l; }), S::Pass);
  // A backward that forgets 1/n_valid (a sum instead of a mean).
  v::Case bwd = v::generate(generator(std::string(ce_bwd::name), "basic"), seed);
  float n_valid = 0;
  for (auto& b : bwd.buffers)
    if (b.name == "stats") n_valid = floats(b.data)[1];
  ASSERT_GT(n_valid, 1.0f);
  EXPECT_EQ(run_with(bwd, "dlogits", [&](size_t, float g) { return g * n_valid; }), S::Fail);
}

}  // namespace
