#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wgslvk::elementwise {
namespace {

constexpr double kK = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kC = 0.044715;

void expect_size(const char* fn, const char* what, size_t got, uint64_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("elementwise::ref::") + fn + ": " + what + " has " +
                                std::to_string(got) + " elements, expected " +
                                std::to_string(want));
}

double gelu_u(double x) { return kK * (x + kC * x * x * x); }

}  // namespace

uint64_t workgroups_for(uint64_t n) { return (n / 4 + 255) / 256; }

namespace ref {

double gelu(double x) {
  // Decision: +-inf -> +-inf (the kernels' x / (1 + exp(min(-2u, 80)))); PyTorch gives NaN for
  // -inf. Infinite activations are already a failed step; NaN stays NaN.
  if (std::isnan(x) || std::isinf(x)) return x;
  const double u = gelu_u(x);
  return x / (1.0 + std::exp(-2.0 * u));  // exp(+large) = inf: x / inf = +-0, the limit
}

double gelu_grad(double x) {
  if (std::isnan(x)) return x;
  const double u = gelu_u(x);
  const double e = std::exp(-2.0 * std::fabs(u));  // <= 1
  const double r = 1.0 / (1.0 + e);
  const double s = u >= 0 ? r : e * r;
  const double q = e * r * r;
  if (q == 0.0) return u > 0 ? 1.0 : 0.0;  // x^3 q: q underflowed long before x^3 overflows
  return s + x * q * 2.0 * kK * (1.0 + 3.0 * kC * x * x);
}

void gelu_forward(std::span<const double> x, std::span<double> y) {
  expect_size("gelu_forward", "y", y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = gelu(x[i]);
}
void gelu_backward(std::span<const double> x, std::span<const double> dy, std::span<double> dx) {
  expect_size("gelu_backward", "dy", dy.size(), x.size());
  expect_size("gelu_backward", "dx", dx.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) dx[i] = dy[i] * gelu_grad(x[i]);
}
void residual_add(std::span<const double> a, std::span<const double> b, std::span<double> out) {
  expect_size("residual_add", "b", b.size(), a.size());
  expect_size("residual_add", "out", out.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
}
void pos_embed_add(std::span<double> x, std::span<const double> pos, uint32_t rows, uint32_t T,
                   uint32_t d) {
  expect_size("pos_embed_add", "x", x.size(), uint64_t(rows) * d);
  if (T == 0 || pos.size() < uint64_t(T) * d)
    throw std::invalid_argument("elementwise::ref::pos_embed_add: pos has " +
                                std::to_string(pos.size()) + " elements, T * d needs " +
                                std::to_string(uint64_t(T) * d) + " (T > 0)");
  for (uint64_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < d; ++j) x[r * d + j] += pos[(r % T) * d + j];
}

double gelu_backward_bound(float x) {
  const double u = std::fabs(gelu_u(double(x)));
  if (std::isnan(u)) return kGeluBackwardUlpsBase;  // a NaN is matched by any NaN
  return kGeluBackwardUlpsBase + kGeluBackwardUlpsPerU * std::min(u, 40.0);
}

Expected gelu_forward_expected(std::span<const float> x) {
  Expected e;
  e.value.resize(x.size());
  e.magnitude.resize(x.size());
  e.bound.assign(x.size(), kGeluForwardUlps);
  for (size_t i = 0; i < x.size(); ++i) {
    e.value[i] = float(gelu(double(x[i])));
    e.magnitude[i] = std::isfinite(x[i]) ? std::fabs(double(x[i])) : 0.0;  // non-finite: exact
  }
  return e;
}

Expected gelu_backward_expected(std::span<const float> x, std::span<const float> dy) {
  expect_size("gelu_backward_expected", "dy", dy.size(), x.size());
  Expected e;
  e.value.resize(x.size());
  e.magnitude.resize(x.size());
  e.bound.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double xd = x[i];
    e.value[i] = float(double(dy[i]) * gelu_grad(xd));
    const double u = gelu_u(xd);
    const double ee = std::exp(-2.0 * std::fabs(u));
    const double r = 1.0 / (1.0 + ee);
    const double s = u >= 0 ? r : ee * r;
    const double t = std::fabs(xd * ee * r * r * 2.0 * kK * (1.0 + 3.0 * kC * xd * xd));
    // Past |u| = 40 the kernel returns exactly 0 or 1; the true value is within exp(-80)|x|^3 of
    // it, far below an ULP of |dy|, the magnitude there.
    e.magnitude[i] =
        std::fabs(u) > 40 ? std::fabs(double(dy[i])) : std::fabs(double(dy[i])) * (s + t);
    if (!std::isfinite(e.magnitude[i])) e.magnitude[i] = 0.0;  // NaN / inf expected: exact
    e.bound[i] = gelu_backward_bound(x[i]);
  }
  return e;
}

std::vector<float> residual_add_f32(std::span<const float> a, std::span<const float> b) {
  expect_size("residual_add_f32", "b", b.size(), a.size());
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

std::vector<float> pos_embed_add_f32(std::span<const float> x, std::span<const float> pos,
                                     uint32_t rows, uint32_t T, uint32_t d) {
  expect_size("pos_embed_add_f32", "x", x.size(), uint64_t(rows) * d);
  if (T == 0 || pos.size() < uint64_t(T) * d)
    throw std::invalid_argument("elementwise::ref::pos_embed_add_f32: pos too small");
  std::vector<float> out(x.begin(), x.end());
  for (uint64_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < d; ++j) out[r * d + j] += pos[(r % T) * d + j];
  return out;
}

}  // namespace ref
}  // namespace wgslvk::elementwise
