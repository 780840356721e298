// The attention references pinned before any WGSL (the log's lesson): the FA2 algorithm in double
// equals the naive algorithm in double, both backward references equal finite differences of the
// forward reference, and the bounds catch plausible kernel bugs (an off-by-one causal mask, a
// missing K block, a missing scale) instead of absorbing them. No device.
#include "attention_test_util.hpp"

namespace wgslvk::attention::testing {
namespace {

std::vector<double> randd(std::mt19937_64& r, size_t n, double scale = 1.0) {
  auto f = random_normal(r, n, scale);
  return ref::widen(f);
}

// Largest |a - b| / (|b| + floor).
double max_rel(std::span<const double> a, std::span<const double> b, double floor) {
  double w = 0;
  for (size_t i = 0; i < a.size(); ++i)
    w = std::max(w, std::fabs(a[i] - b[i]) / (std::fabs(b[i]) + floor));
  return w;
}

// Same double inputs, two algorithms that differ only in the order of the operations and the
// online rescaling: they agree to a few thousand units of 2^-53 (T <= 100 terms, exp/log of double
// are faithful); 1e-12 relative is ~4500 of them, far below any f32 effect (2^-24 = 6e-8).
constexpr double kDoubleAgree = 1e-12;

TEST(AttentionReference, Fa2ForwardEqualsNaive) {
  auto r = rng(1);
  for (Shape s : {make_shape(1, 1, 1, 8), make_shape(2, 15, 2, 32), make_shape(1, 17, 3, 80),
                  make_shape(2, 33, 1, 64), make_shape(1, 100, 2, 16)}) {
    auto qkv = randd(r, s.qkv_size());
    std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size());
    std::vector<double> out2(s.out_size()), lse2(s.lse_size());
    ref::naive_forward(s, qkv, att, out, lse);
    ref::fa2_forward(s, qkv, out2, lse2);
    EXPECT_LT(max_rel(out2, out, 1.0), kDoubleAgree) << shape_name(s);
    EXPECT_LT(max_rel(lse2, lse, 1.0), kDoubleAgree) << shape_name(s);
    // Rows of att are probability distributions over j <= i, zero above the diagonal.
    for (uint64_t row = 0; row < s.lse_size(); ++row) {
      const uint64_t i = row % s.seq;
      double sum = 0;
      for (uint64_t j = 0; j < s.seq; ++j) {
        const double a = att[row * s.seq + j];
        if (j > i)
          ASSERT_EQ(a, 0.0);
        else
          ASSERT_GT(a, 0.0);
        sum += a;
      }
      ASSERT_NEAR(sum, 1.0, 1e-13);
    }
  }
}

TEST(AttentionReference, Fa2BackwardEqualsNaive) {
  auto r = rng(2);
  for (Shape s : {make_shape(1, 1, 1, 8), make_shape(2, 15, 2, 32), make_shape(1, 17, 3, 80),
                  make_shape(1, 50, 2, 16)}) {
    auto qkv = randd(r, s.qkv_size());
    auto dout = randd(r, s.out_size());
    std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size()), D(s.lse_size());
    ref::naive_forward(s, qkv, att, out, lse);
    ref::dsum(s, out, dout, D);
    std::vector<double> g1(s.qkv_size()), g2(s.qkv_size(), -7.0);
    ref::naive_backward(s, qkv, att, out, dout, g1);
    ref::fa2_backward(s, qkv, dout, lse, D, g2);
    double scale = 0;
    for (double g : g1) scale = std::max(scale, std::fabs(g));
    EXPECT_LT(max_rel(g2, g1, scale), kDoubleAgree) << shape_name(s);
  }
}

// Loss = sum(out * dout): its gradient with respect to qkv is what the backward computes.
// Central differences with step h: truncation ~h^2 |f'''| and rounding ~2^-53 |loss| / h; with
// h = 1e-5 and |loss| ~ 10 both are below 1e-9, so 1e-6 of the largest gradient is a safe bound
// that a wrong term (a missing scale, a wrong mask, a dropped dsum) exceeds by orders of magnitude.
TEST(AttentionReference, BackwardMatchesFiniteDifferences) {
  auto r = rng(3);
  for (Shape s : {make_shape(1, 19, 2, 4), make_shape(2, 5, 1, 3)}) {
    auto qkv = randd(r, s.qkv_size());
    auto dout = randd(r, s.out_size());
    auto loss = [&](const std::vector<double>& x) {
      std::vector<double> att(s.att_size()), out(s.out_size());
      ref::naive_forward(s, x, att, out);
      double l = 0;
      for (size_t i = 0; i < out.size(); ++i) l += out[i] * dout[i];
      return l;
    };
    std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size()), D(s.lse_size());
    ref::naive_forward(s, qkv, att, out, lse);
    ref::dsum(s, out, dout, D);
    std::vector<double> gn(s.qkv_size()), gf(s.qkv_size());
    ref::naive_backward(s, qkv, att, out, dout, gn);
    ref::fa2_backward(s, qkv, dout, lse, D, gf);
    double gmax = 0;
    for (double g : gn) gmax = std::max(gmax, std::fabs(g));
    ASSERT_GT(gmax, 0.01);
    const double h = 1e-5;
    size_t bad = 0;
    for (size_t i = 0; i < qkv.size(); ++i) {
      auto xp = qkv, xm = qkv;
      xp[i] += h, xm[i] -= h;
      const double fd = (loss(xp) - loss(xm)) / (2 * h);
      if (std::fabs(fd - gn[i]) > 1e-6 * gmax || std::fabs(fd - gf[i]) > 1e-6 * gmax)
        if (bad++ < 5)
          ADD_FAILURE() << shape_name(s) << " qkv[" << i << "]: finite difference " << fd
                        << ", naive " << gn[i] << ", fa2 " << gf[i];
    }
    EXPECT_EQ(bad, 0u);
  }
}

// Scores of +-1e4: the max-subtracted softmax neither overflows nor loses the winner.
TEST(AttentionReference, LargeLogitsStayFinite) {
  auto r = rng(4);
  Shape s = make_shape(1, 40, 2, 64);  // scale 1/8 exact
  auto f = random_ints(r, s.qkv_size(), 100);
  auto qkv = ref::widen(f);
  std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size()), out2(s.out_size()),
      lse2(s.lse_size());
  ref::naive_forward(s, qkv, att, out, lse);
  ref::fa2_forward(s, qkv, out2, lse2);
  double smax = 0;
  for (double l : lse) smax = std::max(smax, std::fabs(l));
  EXPECT_GT(smax, 3000.0);  // the case does reach large scores
  for (double x : out) ASSERT_TRUE(std::isfinite(x));
  EXPECT_LT(max_rel(out2, out, 1.0), kDoubleAgree);
  EXPECT_LT(max_rel(lse2, lse, 1.0), kDoubleAgree);
}

// The bounds are tight enough to catch the bugs a kernel would plausibly have: each mutation of
// the double reference (an off-by-one causal mask, the first K block skipped, the scale missing
// from dq) moves most rows outside the bound.
TEST(AttentionReference, BoundsCatchPlausibleBugs) {
  auto r = rng(5);
  Shape s = make_shape(1, 40, 2, 32);
  auto qkv = randd(r, s.qkv_size());
  auto dout = randd(r, s.out_size());
  auto fb = ref::forward_bounds(s, qkv, false);
  auto bb = ref::backward_bounds(s, qkv, dout, fb, false);
  std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size());
  ref::naive_forward(s, qkv, att, out, lse);

  auto outside = [](std::span<const double> a, std::span<const double> b,
                    std::span<const double> err) {
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) n += std::fabs(a[i] - b[i]) > err[i];
    return double(n) / double(a.size());
  };
  // Off-by-one mask: key j < i only (the diagonal dropped; row 0 then sees key 0 still).
  {
    std::vector<double> bad = out;

    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 1; i < s.seq; ++i) {
        double m = -INFINITY, l = 0;
        std::vector<double> sc(i);
        for (uint64_t j = 0; j < i; ++j) {
          double acc = 0;
          for (uint64_t c = 0; c < s.head_dim; ++c)
            acc += qkv[i * 3 * s.d() + h * s.head_dim + c] *
                   qkv[j * 3 * s.d() + s.d() + h * s.head_dim + c];
          sc[j] = acc * s.scale, m = std::max(m, sc[j]);
        }
        for (auto& x : sc) l += (x = std::exp(x - m));
        for (uint64_t c = 0; c < s.head_dim; ++c) {
          double acc = 0;
          for (uint64_t j = 0; j < i; ++j)
            acc += sc[j] / l * qkv[j * 3 * s.d() + 2 * s.d() + h * s.head_dim + c];
          bad[i * s.d() + h * s.head_dim + c] = acc;
        }
      }

    EXPECT_GT(outside(bad, out, fb.out_err), 0.9);
  }
  // Missing scale on dq (the q columns of dqkv).
  {
    std::vector<double> g(s.qkv_size());
    ref::naive_backward(s, qkv, att, out, dout, g);
    std::vector<double> bad = g;
    size_t nq = 0, outq = 0;
    for (uint64_t t = 0; t < s.seq; ++t)
      for (uint64_t c = 0; c < s.d(); ++c) {
        const uint64_t e = t * 3 * s.d() + c;
        bad[e] = g[e] / s.scale;
        ++nq, outq += std::fabs(bad[e] - g[e]) > bb.dqkv_err[e];
      }
    EXPECT_GT(double(outq) / double(nq), 0.9);
  }
  // A wrong lse (log(l) dropped) feeds the FA2 backward: dv off almost everywhere.
  {
    std::vector<double> D(s.lse_size()), m_only(s.lse_size()), g(s.qkv_size()), g2(s.qkv_size());
    ref::dsum(s, out, dout, D);
    ref::fa2_backward(s, qkv, dout, lse, D, g);
    for (uint64_t row = 0; row < s.lse_size(); ++row) {
      const uint64_t i = row % s.seq, h = row / s.seq;
      double m = -INFINITY;
      for (uint64_t j = 0; j <= i; ++j) {
        double acc = 0;
        for (uint64_t c = 0; c < s.head_dim; ++c)
          acc += qkv[i * 3 * s.d() + h * s.head_dim + c] *
                 qkv[j * 3 * s.d() + s.d() + h * s.head_dim + c];
        m = std::max(m, acc * s.scale);
      }
      m_only[row] = m;
    }
    ref::fa2_backward(s, qkv, dout, m_only, D, g2);
    EXPECT_GT(outside(g2, g, bb.dqkv_err), 0.5);
  }
}

// The bound formulas' outputs are what the golden checks store: counts in ULP of the magnitude.
TEST(AttentionReference, BoundSizes) {
  auto r = rng(6);
  Shape s = make_shape(2, 33, 2, 64);
  auto qkv = randd(r, s.qkv_size());
  auto dout = randd(r, s.out_size());
  auto fb = ref::forward_bounds(s, qkv, true);
  auto bb = ref::backward_bounds(s, qkv, dout, fb, true);
  // Largest and median counts; every count finite (a bound of a finite error in ULP of a finite
  // magnitude). Their size depends on the data (a magnitude near 0 makes a large count), so they
  // are printed, not asserted.
  auto stats = [](std::span<const double> e, std::span<const double> m, const char* what) {
    auto c = ref::ulp_counts(e, m);
    for (float x : c) EXPECT_TRUE(std::isfinite(x)) << what;
    std::sort(c.begin(), c.end());
    std::printf("  %s: median %g, max %g ULP of its magnitude\n", what, c[c.size() / 2], c.back());
  };
  std::printf("bounds, %s:\n", shape_name(s).c_str());
  stats(fb.out_err, fb.out_mag, "out");
  stats(fb.lse_err, fb.lse_mag, "lse");
  stats(bb.dsum_err, bb.dsum_mag, "dsum");
  stats(bb.dqkv_err, bb.dqkv_mag, "dqkv");
}

}  // namespace
}  // namespace wgslvk::attention::testing
