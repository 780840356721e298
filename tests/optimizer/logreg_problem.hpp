// The 8-bit convergence problem: logistic regression, 1024 samples x 255 features plus a bias
// (x ~ N(0, 1), features scaled 1/(1 + j/16) so the curvature is ill-conditioned), labels drawn
// from a teacher with 10% of them flipped (not separable, so the optimum is finite). Full-batch
// mean cross-entropy; the gradient is computed on the CPU in double each step and uploaded into
// g; the optimizer under test owns the weights. Convex, so fp32 and 8-bit AdamW head for the same
// optimum and a worse optimizer state shows as a higher loss at the same step.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace wgslvk::optimizer::testing {

struct LogRegProblem {
  static constexpr int D = 255, N = 1024;
  std::vector<double> x;  // [N x D]
  std::vector<double> y;  // 0 / 1
  std::vector<float> w0;  // initial weights [D]; the bias starts at 0

  explicit LogRegProblem(uint64_t seed) {
    std::mt19937_64 r(seed);
    std::normal_distribution<double> nd(0.0, 1.0);
    std::uniform_real_distribution<double> ud(0.0, 1.0);
    std::vector<double> teacher(D);
    for (auto& v : teacher) v = nd(r);
    x.resize(size_t(N) * D);
    y.resize(N);
    for (int n = 0; n < N; ++n) {
      double z = 0.2;
      for (int j = 0; j < D; ++j) {
        double v = nd(r) / (1.0 + j / 16.0);
        x[size_t(n) * D + j] = v;
        z += teacher[j] * v;
      }
      double label = z > 0 ? 1.0 : 0.0;
      if (ud(r) < 0.1) label = 1.0 - label;
      y[n] = label;
    }
    w0.resize(D);
    for (auto& v : w0) v = float(0.1 * nd(r));
  }

  // Mean cross-entropy; fills the gradients when gw is non-null.
  double loss_grad(const std::vector<float>& w, float b, std::vector<float>* gw = nullptr,
                   float* gb = nullptr) const {
    std::vector<double> dw(D, 0.0);
    double db = 0.0, loss = 0.0;
    for (int n = 0; n < N; ++n) {
      double z = b;
      const double* xn = &x[size_t(n) * D];
      for (int j = 0; j < D; ++j) z += double(w[j]) * xn[j];
      // log(1 + e^z) - y z, stably
      loss += (z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z))) - y[n] * z;
      double p = 1.0 / (1.0 + std::exp(-z));
      double d = (p - y[n]) / N;
      db += d;
      for (int j = 0; j < D; ++j) dw[j] += d * xn[j];
    }
    if (gw) {
      gw->assign(dw.begin(), dw.end());
      *gb = float(db);
    }
    return loss / N;
  }
};

}  // namespace wgslvk::optimizer::testing
