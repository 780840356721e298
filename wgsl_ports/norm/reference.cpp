#include "reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wgslvk::norm {
namespace {

constexpr double kU = 0x1p-24;  // unit roundoff of f32

void expect_size(const char* fn, const char* what, size_t got, uint64_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("norm::ref::") + fn + ": " + what + " has " +
                                std::to_string(got) + " elements, the shape needs " +
                                std::to_string(want));
}

uint32_t log2u(uint32_t v) { return uint32_t(std::bit_width(v) - 1); }

}  // namespace

uint32_t threads_per_row(uint32_t d) {
  const uint32_t d4 = d / 4;
  uint32_t t = 8;
  while (t * 4 < d4 && t < 256) t *= 2;
  return t;
}
uint32_t rows_per_workgroup(uint32_t d) { return 256 / threads_per_row(d); }
uint64_t forward_workgroups(Shape s) {
  const uint32_t rpw = rows_per_workgroup(s.d);
  return (uint64_t(s.rows) + rpw - 1) / rpw;
}
uint32_t default_rows_per_block(Shape s, uint32_t target_blocks) {
  const uint32_t rpw = rows_per_workgroup(s.d);
  const uint64_t per = (uint64_t(s.rows) + target_blocks - 1) / target_blocks;
  return uint32_t(std::max<uint64_t>(1, (per + rpw - 1) / rpw) * rpw);
}
uint64_t backward_blocks(Shape s, uint32_t rpb) { return (uint64_t(s.rows) + rpb - 1) / rpb; }
uint64_t dparams_workgroups(Shape s) { return (uint64_t(s.d) + 15) / 16; }
uint64_t partials_count(Shape s, uint32_t rpb) { return backward_blocks(s, rpb) * 2 * s.d; }

uint32_t row_sum_depth(uint32_t d) {
  const uint32_t tpr = threads_per_row(d);
  const uint32_t m = std::max<uint32_t>(1, (d / 4 + tpr - 1) / tpr);
  return m + 2 + log2u(tpr);
}
uint32_t dparams_sum_depth(Shape s, uint32_t rpb) {
  const uint32_t rpw = rows_per_workgroup(s.d);
  const uint64_t nb = backward_blocks(s, rpb);
  return uint32_t((rpb + rpw - 1) / rpw + (rpw - 1) + (nb + 15) / 16 + 15);
}

uint32_t lean_threads_per_row(uint32_t d) {
  if (d > kLeanMaxD) return threads_per_row(d);
  const uint32_t d4 = d / 4;
  uint32_t t = 8;
  while (t * 2 < d4 && t < 256) t *= 2;
  return t;
}
uint32_t lean_rows_per_workgroup(uint32_t d) { return 256 / lean_threads_per_row(d); }
const char* lean_main_kernel(uint32_t d) {
  return d <= kLeanMaxD ? "norm/layernorm_backward_lean" : "norm/layernorm_backward";
}
uint32_t lean_rows_per_block(Shape s, uint32_t target_blocks) {
  const uint32_t rpw = lean_rows_per_workgroup(s.d);
  const uint64_t per = (uint64_t(s.rows) + target_blocks - 1) / target_blocks;
  return uint32_t(std::max<uint64_t>(1, (per + rpw - 1) / rpw) * rpw);
}
uint64_t lean_dparams_workgroups(Shape s) { return s.d / 4; }
uint32_t lean_row_sum_depth(uint32_t d) {
  if (d > kLeanMaxD) return row_sum_depth(d);
  return 2 + 2 + 3 + lean_threads_per_row(d) / 8;
}
uint32_t lean_finalize_depth(Shape s, uint32_t rpb) {
  return uint32_t((backward_blocks(s, rpb) + 255) / 256 + 8);
}
uint32_t lean_dparams_sum_depth(Shape s, uint32_t rpb) {
  const uint32_t rpw = lean_rows_per_workgroup(s.d);
  return (rpb + rpw - 1) / rpw + (rpw - 1) + lean_finalize_depth(s, rpb);
}

namespace ref {

void layernorm_forward(std::span<const double> x, std::span<const double> gamma,
                       std::span<const double> beta, double eps, Shape s, std::span<double> y,
                       std::span<double> mean, std::span<double> rstd) {
  const uint64_t n = uint64_t(s.rows) * s.d;
  expect_size("layernorm_forward", "x", x.size(), n);
  expect_size("layernorm_forward", "gamma", gamma.size(), s.d);
  expect_size("layernorm_forward", "beta", beta.size(), s.d);
  expect_size("layernorm_forward", "y", y.size(), n);
  expect_size("layernorm_forward", "mean", mean.size(), s.rows);
  expect_size("layernorm_forward", "rstd", rstd.size(), s.rows);
  for (uint64_t r = 0; r < s.rows; ++r) {
    const double* xr = x.data() + r * s.d;
    double sum = 0;
    for (uint32_t j = 0; j < s.d; ++j) sum += xr[j];
    const double m = sum / s.d;
    double var = 0;
    for (uint32_t j = 0; j < s.d; ++j) var += (xr[j] - m) * (xr[j] - m);
    var /= s.d;
    const double rs = 1.0 / std::sqrt(var + eps);
    mean[r] = m;
    rstd[r] = rs;
    for (uint32_t j = 0; j < s.d; ++j) y[r * s.d + j] = (xr[j] - m) * rs * gamma[j] + beta[j];
  }
}

void layernorm_backward(std::span<const double> x, std::span<const double> gamma,
                        std::span<const double> dy, std::span<const double> mean,
                        std::span<const double> rstd, Shape s, std::span<double> dx,
                        std::span<double> dgamma, std::span<double> dbeta) {
  const uint64_t n = uint64_t(s.rows) * s.d;
  expect_size("layernorm_backward", "x", x.size(), n);
  expect_size("layernorm_backward", "gamma", gamma.size(), s.d);
  expect_size("layernorm_backward", "dy", dy.size(), n);
  expect_size("layernorm_backward", "mean", mean.size(), s.rows);
  expect_size("layernorm_backward", "rstd", rstd.size(), s.rows);
  expect_size("layernorm_backward", "dx", dx.size(), n);
  expect_size("layernorm_backward", "dgamma", dgamma.size(), s.d);
  expect_size("layernorm_backward", "dbeta", dbeta.size(), s.d);
  std::fill(dgamma.begin(), dgamma.end(), 0.0);
  std::fill(dbeta.begin(), dbeta.end(), 0.0);
  for (uint64_t r = 0; r < s.rows; ++r) {
    double s1 = 0, s2 = 0;
    for (uint32_t j = 0; j < s.d; ++j) {
      const uint64_t i = r * s.d + j;
      const double xh = (x[i] - mean[r]) * rstd[r];
      const double g = dy[i] * gamma[j];
      s1 += g;
      s2 += g * xh;
      dgamma[j] += dy[i] * xh;
      dbeta[j] += dy[i];
    }
    const double c1 = s1 / s.d, c2 = s2 / s.d;
    for (uint32_t j = 0; j < s.d; ++j) {
      const uint64_t i = r * s.d + j;
      const double xh = (x[i] - mean[r]) * rstd[r];
      dx[i] = rstd[r] * (dy[i] * gamma[j] - c1 - xh * c2);
    }
  }
}

namespace {
void resize(Expected& e, size_t n) {
  e.value.resize(n);
  e.magnitude.resize(n);
  e.bound.resize(n);
}
std::vector<double> widen(std::span<const float> v) { return {v.begin(), v.end()}; }
}  // namespace

ForwardExpected forward_expected(std::span<const float> x, std::span<const float> gamma,
                                 std::span<const float> beta, float eps, Shape s) {
  const uint64_t n = uint64_t(s.rows) * s.d;
  std::vector<double> xd = widen(x), gd = widen(gamma), bd = widen(beta), y(n), mean(s.rows),
                      rstd(s.rows);
  layernorm_forward(xd, gd, bd, double(eps), s, y, mean, rstd);
  const double h = row_sum_depth(s.d);
  ForwardExpected e;
  resize(e.y, n);
  resize(e.mean, s.rows);
  resize(e.rstd, s.rows);
  for (uint64_t r = 0; r < s.rows; ++r) {
    double a = 0;
    for (uint32_t j = 0; j < s.d; ++j) a += std::fabs(xd[r * s.d + j]);
    a /= s.d;
    const double var = 1.0 / (rstd[r] * rstd[r]);  // var + eps
    const double dm = (h + 5) * kU * a;
    const double q = dm * dm / (2 * var);
    e.mean.value[r] = float(mean[r]);
    e.mean.magnitude[r] = a;
    e.mean.bound[r] = h + 6;
    e.rstd.value[r] = float(rstd[r]);
    e.rstd.magnitude[r] = rstd[r];
    e.rstd.bound[r] = h / 2 + 10 + q / kU;
    for (uint32_t j = 0; j < s.d; ++j) {
      const uint64_t i = r * s.d + j;
      e.y.value[i] = float(y[i]);
      e.y.magnitude[i] =
          std::fabs(gd[j]) * rstd[r] * (std::fabs(xd[i] - mean[r]) + a) + std::fabs(bd[j]);
      e.y.bound[i] = 1.5 * h + 19 + q / kU;
    }
  }
  return e;
}

BackwardExpected backward_expected(std::span<const float> x, std::span<const float> gamma,
                                   std::span<const float> dy, std::span<const float> mean,
                                   std::span<const float> rstd, Shape s, uint32_t rpb) {
  return backward_expected(x, gamma, dy, mean, rstd, s, double(row_sum_depth(s.d)),
                           double(dparams_sum_depth(s, rpb)));
}

BackwardExpected lean_backward_expected(std::span<const float> x, std::span<const float> gamma,
                                        std::span<const float> dy, std::span<const float> mean,
                                        std::span<const float> rstd, Shape s, uint32_t rpb) {
  return backward_expected(x, gamma, dy, mean, rstd, s, double(lean_row_sum_depth(s.d)),
                           double(lean_dparams_sum_depth(s, rpb)));
}

BackwardExpected backward_expected(std::span<const float> x, std::span<const float> gamma,
                                   std::span<const float> dy, std::span<const float> mean,
                                   std::span<const float> rstd, Shape s, double h, double H) {
  const uint64_t n = uint64_t(s.rows) * s.d;
  std::vector<double> xd = widen(x), gd = widen(gamma), dyd = widen(dy), md = widen(mean),
                      rd = widen(rstd), dx(n), dg(s.d), db(s.d);
  layernorm_backward(xd, gd, dyd, md, rd, s, dx, dg, db);
  BackwardExpected e;
  resize(e.dx, n);
  resize(e.dgamma, s.d);
  resize(e.dbeta, s.d);
  std::vector<double> mg(s.d, 0.0), mb(s.d, 0.0);
  for (uint64_t r = 0; r < s.rows; ++r) {
    double g1 = 0, g2 = 0;
    for (uint32_t j = 0; j < s.d; ++j) {
      const uint64_t i = r * s.d + j;
      const double xh = (xd[i] - md[r]) * rd[r];
      g1 += std::fabs(dyd[i] * gd[j]);
      g2 += std::fabs(dyd[i] * gd[j] * xh);
      mg[j] += std::fabs(dyd[i] * xh);
      mb[j] += std::fabs(dyd[i]);
    }
    g1 /= s.d;
    g2 /= s.d;
    for (uint32_t j = 0; j < s.d; ++j) {
      const uint64_t i = r * s.d + j;
      const double xh = (xd[i] - md[r]) * rd[r];
      e.dx.value[i] = float(dx[i]);
      e.dx.magnitude[i] = std::fabs(rd[r]) * (std::fabs(dyd[i] * gd[j]) + g1 + std::fabs(xh) * g2);
      e.dx.bound[i] = h + 15;
    }
  }
  for (uint32_t j = 0; j < s.d; ++j) {
    e.dgamma.value[j] = float(dg[j]);
    e.dgamma.magnitude[j] = mg[j];
    e.dgamma.bound[j] = H + 5;
    e.dbeta.value[j] = float(db[j]);
    e.dbeta.magnitude[j] = mb[j];
    e.dbeta.bound[j] = H + 2;
  }
  return e;
}

void saved_row_stats(std::span<const float> x, Shape s, float eps, std::span<float> mean,
                     std::span<float> rstd) {
  expect_size("saved_row_stats", "x", x.size(), uint64_t(s.rows) * s.d);
  expect_size("saved_row_stats", "mean", mean.size(), s.rows);
  expect_size("saved_row_stats", "rstd", rstd.size(), s.rows);
  for (uint64_t r = 0; r < s.rows; ++r) {
    const float* xr = x.data() + r * s.d;
    double m = 0, v = 0;
    for (uint32_t j = 0; j < s.d; ++j) m += xr[j];
    m /= s.d;
    for (uint32_t j = 0; j < s.d; ++j) v += (xr[j] - m) * (xr[j] - m);
    mean[r] = float(m);
    rstd[r] = float(1 / std::sqrt(v / s.d + eps));
  }
}

DparamsExpected dparams_expected(std::span<const float> partials, Shape s, uint64_t n_blocks,
                                 double depth) {
  expect_size("dparams_expected", "partials", partials.size(), n_blocks * 2 * s.d);
  DparamsExpected e;
  for (Expected* x : {&e.dgamma, &e.dbeta}) {
    resize(*x, s.d);
    std::fill(x->magnitude.begin(), x->magnitude.end(), 0.0);
    std::fill(x->bound.begin(), x->bound.end(), depth + 1);
  }
  for (uint32_t j = 0; j < s.d; ++j) {
    double sg = 0, sb = 0;
    for (uint64_t k = 0; k < n_blocks; ++k) {
      const double g = partials[k * 2 * s.d + j], b = partials[k * 2 * s.d + s.d + j];
      sg += g;
      sb += b;
      e.dgamma.magnitude[j] += std::fabs(g);
      e.dbeta.magnitude[j] += std::fabs(b);
    }
    e.dgamma.value[j] = float(sg);
    e.dbeta.value[j] = float(sb);
  }
  return e;
}

}  // namespace ref
}  // namespace wgslvk::norm
