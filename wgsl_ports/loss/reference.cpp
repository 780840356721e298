#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wgslvk::loss {
namespace {

constexpr double kU = 0x1p-24;

void expect_size(const char* fn, const char* what, size_t got, uint64_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("loss::ref::") + fn + ": " + what + " has " +
                                std::to_string(got) + " elements, the shape needs " +
                                std::to_string(want));
}

}  // namespace

uint64_t row_workgroups(const Shape& s) { return s.rows; }

namespace ref {

void ce_forward(std::span<const double> logits, std::span<const uint32_t> targets, Shape s,
                std::span<double> loss, std::span<double> lse) {
  expect_size("ce_forward", "logits", logits.size(), uint64_t(s.rows) * s.vocab);
  expect_size("ce_forward", "targets", targets.size(), s.rows);
  expect_size("ce_forward", "loss", loss.size(), s.rows);
  expect_size("ce_forward", "lse", lse.size(), s.rows);
  for (uint64_t r = 0; r < s.rows; ++r) {
    const double* x = logits.data() + r * s.vocab;
    double m = -INFINITY;
    for (uint32_t j = 0; j < s.vocab; ++j) m = std::max(m, x[j]);
    double sum = 0;
    for (uint32_t j = 0; j < s.vocab; ++j) sum += std::exp(x[j] - m);
    lse[r] = m + std::log(sum);
    loss[r] = valid_row(targets[r], s) ? lse[r] - x[targets[r]] : 0.0;
  }
}

double ce_mean(std::span<const double> loss, std::span<const uint32_t> targets, Shape s,
               uint32_t* n_valid) {
  expect_size("ce_mean", "loss", loss.size(), s.rows);
  expect_size("ce_mean", "targets", targets.size(), s.rows);
  double sum = 0;
  uint32_t n = 0;
  for (uint64_t r = 0; r < s.rows; ++r)
    if (valid_row(targets[r], s)) sum += loss[r], ++n;
  if (n_valid) *n_valid = n;
  return n ? sum / n : 0.0;
}

void ce_backward(std::span<const double> logits, std::span<const uint32_t> targets,
                 std::span<const double> lse, double scale, uint32_t n_valid, Shape s,
                 std::span<double> dlogits) {
  expect_size("ce_backward", "logits", logits.size(), uint64_t(s.rows) * s.vocab);
  expect_size("ce_backward", "targets", targets.size(), s.rows);
  expect_size("ce_backward", "lse", lse.size(), s.rows);
  expect_size("ce_backward", "dlogits", dlogits.size(), uint64_t(s.rows) * s.vocab);
  for (uint64_t r = 0; r < s.rows; ++r) {
    const bool v = valid_row(targets[r], s);
    for (uint32_t j = 0; j < s.vocab; ++j) {
      const uint64_t i = r * s.vocab + j;
      dlogits[i] = v ? (std::exp(logits[i] - lse[r]) - (j == targets[r] ? 1.0 : 0.0)) * scale /
                           double(n_valid)
                     : 0.0;
    }
  }
}

ForwardExpected forward_expected(std::span<const float> logits, std::span<const uint32_t> targets,
                                 Shape s) {
  const uint64_t n = uint64_t(s.rows) * s.vocab;
  expect_size("forward_expected", "logits", logits.size(), n);
  std::vector<double> xd(logits.begin(), logits.end()), loss(s.rows), lse(s.rows);
  ce_forward(xd, targets, s, loss, lse);
  const double nt = double((s.vocab + 255) / 256);
  ForwardExpected e;
  for (Expected* p : {&e.loss, &e.lse}) {
    p->value.resize(s.rows);
    p->magnitude.resize(s.rows);
    p->bound.resize(s.rows);
  }
  for (uint64_t r = 0; r < s.rows; ++r) {
    const double* x = xd.data() + r * s.vocab;
    double m = -INFINITY;
    for (uint32_t j = 0; j < s.vocab; ++j) m = std::max(m, x[j]);
    double sum = 0, w = 0;
    for (uint32_t j = 0; j < s.vocab; ++j) {
      const double t = std::exp(x[j] - m);
      sum += t;
      w += (3 + 2 * std::fabs(x[j] - m)) * t;
    }
    w /= sum;
    const double logs = std::log(sum);
    const double err = kU * (2 * w + 7 * nt + 72) + std::max(0x1p-21, 3 * f32_ulp_of(logs)) +
                       kU * std::fabs(lse[r]);
    const double mlse = std::fabs(lse[r]);
    e.lse.value[r] = float(lse[r]);
    e.lse.magnitude[r] = mlse;
    e.lse.bound[r] = err / f32_ulp_of(mlse) + 0.5;
    const bool v = valid_row(targets[r], s);
    e.loss.value[r] = float(loss[r]);
    if (v) {
      const double ml = mlse + std::fabs(x[targets[r]]);
      e.loss.magnitude[r] = ml;
      e.loss.bound[r] = (err + kU * std::fabs(loss[r])) / f32_ulp_of(ml) + 0.5;
    } else {
      e.loss.magnitude[r] = 0;
      e.loss.bound[r] = 0;  // exactly 0.0
    }
  }
  return e;
}

MeanExpected mean_expected(std::span<const float> loss, std::span<const uint32_t> targets,
                           Shape s) {
  std::vector<double> ld(loss.begin(), loss.end());
  MeanExpected e;
  const double mean = ce_mean(ld, targets, s, &e.n_valid);
  double mag = 0;
  for (uint64_t r = 0; r < s.rows; ++r)
    if (valid_row(targets[r], s)) mag += std::fabs(ld[r]);
  e.mean = float(mean);
  e.magnitude = e.n_valid ? mag / e.n_valid : 0.0;
  e.bound = double((s.rows + 255) / 256 + 8 + 3 + 1);
  return e;
}

Expected backward_expected(std::span<const float> logits, std::span<const uint32_t> targets,
                           std::span<const float> lse, float scale, uint32_t n_valid, Shape s) {
  const uint64_t n = uint64_t(s.rows) * s.vocab;
  std::vector<double> xd(logits.begin(), logits.end()), ld(lse.begin(), lse.end()), out(n);
  ce_backward(xd, targets, ld, double(scale), n_valid, s, out);
  Expected e;
  e.value.resize(n);
  e.magnitude.resize(n);
  e.bound.resize(n);
  const double sc = std::fabs(double(scale) / double(n_valid));
  for (uint64_t r = 0; r < s.rows; ++r) {
    const bool v = valid_row(targets[r], s);
    for (uint32_t j = 0; j < s.vocab; ++j) {
      const uint64_t i = r * s.vocab + j;
      e.value[i] = float(out[i]);
      if (!v) {
        e.magnitude[i] = 0;
        e.bound[i] = 0;
        continue;
      }
      const double t = xd[i] - ld[r];
      // Floor 2^-100: a device may flush subnormal results (exp of t < -87) to zero, as WGSL
      // allows; 14 ULPs of 2^-100 (2^-119) cover that.
      e.magnitude[i] = std::max((std::exp(t) + (j == targets[r] ? 1.0 : 0.0)) * sc, 0x1p-100);
      e.bound[i] = 14 + 5 * std::fabs(t);
    }
  }
  return e;
}

}  // namespace ref
}  // namespace wgslvk::loss
