// wgsl_ports/elementwise: the GELU reference against GPT-2's tanh formula and its gradient
// against central finite differences (double), the kernels on fresh random inputs through every
// golden generator of the family, and bounds tight enough to tell the tanh GELU from the erf one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "elementwise/reference.hpp"
#include "support/family_cases.hpp"
#include "support/test_device.hpp"
#include "wgslvk/kernels/elementwise/gelu_backward.hpp"
#include "wgslvk/kernels/elementwise/gelu_forward.hpp"
#include "wgslvk/kernels/elementwise/residual_add.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/runner.hpp"

namespace {

using namespace wgslvk;
namespace eref = wgslvk::elementwise::ref;
namespace v = wgslvk::validate;
namespace wt = wgslvk::testing;
namespace ek = wgslvk::kernels::elementwise;

double gelu_tanh_form(double x) {
  const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + std::tanh(u));
}

// x / (1 + exp(-2u)) is 0.5 x (1 + tanh u): equal to double rounding. Where 1 + tanh(u) cancels
// (x << 0) the tanh form itself loses ~1e-16 |x| absolute: tolerance 1e-14 |x| + 1e-300.
TEST(ElementwiseReference, GeluIsGpt2TanhApproximation) {
  for (double x = -12; x <= 12; x += 0.01)
    EXPECT_NEAR(eref::gelu(x), gelu_tanh_form(x), 1e-14 * std::fabs(x) + 1e-300) << x;
  EXPECT_NEAR(eref::gelu(1.0), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(eref::gelu(-1.0), -0.15880800939172324, 1e-15);
  EXPECT_EQ(eref::gelu(1e4), 1e4);
  EXPECT_EQ(eref::gelu(-1e4), 0.0);  // -0
  EXPECT_EQ(eref::gelu(INFINITY), INFINITY);
  EXPECT_EQ(eref::gelu(-INFINITY), -INFINITY);  // decision, reference.cpp
  EXPECT_TRUE(std::isnan(eref::gelu(NAN)));
}

// Central differences with h = 1e-6 on |x| <= 12: truncation h^2 |gelu'''| / 6 < 1e-12,
// rounding 1e-16 |gelu| / h < 2e-9: tolerance 1e-8.
TEST(ElementwiseReference, GeluGradMatchesFiniteDifferences) {
  const double h = 1e-6;
  for (double x = -12; x <= 12; x += 0.037) {
    const double fd = (eref::gelu(x + h) - eref::gelu(x - h)) / (2 * h);
    EXPECT_NEAR(eref::gelu_grad(x), fd, 1e-8) << x;
  }
  EXPECT_EQ(eref::gelu_grad(1e4), 1.0);
  EXPECT_EQ(eref::gelu_grad(-1e4), 0.0);
  // gelu_backward = dy * gelu'
  std::vector<double> x = {0.3, -2.0}, dy = {2.0, -0.5}, dx(2);
  eref::gelu_backward(x, dy, dx);
  EXPECT_DOUBLE_EQ(dx[0], 2.0 * eref::gelu_grad(0.3));
  EXPECT_DOUBLE_EQ(dx[1], -0.5 * eref::gelu_grad(-2.0));
}

TEST(ElementwiseReference, AddsArePlainAdds) {
  std::vector<double> x = {1, 2, 3, 4, 5, 6}, pos = {10, 20, 30, 40};
  eref::pos_embed_add(x, pos, 3, 2, 2);  // rows 0, 1, 2 take pos rows 0, 1, 0
  EXPECT_EQ(x, (std::vector<double>{11, 22, 33, 44, 15, 26}));
  EXPECT_THROW(eref::pos_embed_add(x, pos, 3, 3, 2), std::invalid_argument);
}

using wt::generator;

TEST(ElementwiseKernels, EveryGeneratorPassesOnFreshInputs) {
  wt::expect_every_generator_passes("elementwise", 11u);
}

// Expected values replaced by f(input x, expected) for every ulp/exact check of `buffer`.
v::CaseResult::Status run_with(v::Case c, const std::string& buffer,
                               const std::function<float(float, float, float)>& f) {
  std::vector<float> x, dy;
  for (auto& b : c.buffers) {
    if (b.name == "x" || b.name == "dy") {
      auto& dst = b.name == "x" ? x : dy;
      dst.resize(b.data.count());
      std::memcpy(dst.data(), b.data.bytes.data(), dst.size() * 4);
    }
  }
  for (auto& k : c.checks) {
    if (k.buffer != buffer || k.begin != 0) continue;
    std::vector<float> e(k.expected.count());
    std::memcpy(e.data(), k.expected.bytes.data(), e.size() * 4);
    for (size_t i = 0; i < k.range_end(); ++i)
      e[i] = f(i < x.size() ? x[i] : 0.0f, i < dy.size() ? dy[i] : 0.0f, e[i]);
    k.expected = v::Array::of(v::DType::F32, e);
  }
  v::Runner runner(wt::device());
  return runner.run(c).status;
}

// The erf GELU (PyTorch's default approximate='none') differs from the tanh one by up to ~2e-4
// relative: far outside 12 ULPs. A residual add one ULP off is caught (exact compare).
TEST(ElementwiseKernels, BoundsTellTanhGeluFromErfGelu) {
  using S = v::CaseResult::Status;
  const uint64_t seed = wt::test_seed();
  v::Case fwd = v::generate(generator(std::string(ek::gelu_forward::name), "basic"), seed);
  auto erf_gelu = [](float x, float, float) {
    return float(0.5 * double(x) * (1.0 + std::erf(double(x) / std::sqrt(2.0))));
  };
  EXPECT_EQ(run_with(fwd, "y", erf_gelu), S::Fail);
  EXPECT_EQ(run_with(fwd, "y", [](float, float, float e) { return e; }), S::Pass);
  v::Case bwd = v::generate(generator(std::string(ek::gelu_backward::name), "basic"), seed);
  auto erf_grad = [](float x, float dy, float) {
    const double xd = x;
    const double g = 0.5 * (1 + std::erf(xd / std::sqrt(2.0))) +
                     xd * std::exp(-0.5 * xd * xd) / std::sqrt(2 * M_PI);
    return float(dy * g);
  };
  EXPECT_EQ(run_with(bwd, "dx", erf_grad), S::Fail);
  v::Case add = v::generate(generator(std::string(ek::residual_add::name), "basic"), seed);
  EXPECT_EQ(run_with(add, "out", [](float, float, float e) { return std::nextafter(e, INFINITY); }),
            S::Fail);
}

}  // namespace
