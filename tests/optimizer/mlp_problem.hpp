// The 8-bit convergence problem: a teacher-student regression with a one-hidden-layer tanh MLP.
// x ~ N(0, 1)^8, teacher y = W2t tanh(W1t x + b1t) + 0.3 + noise (sigma 0.1) with 64 hidden units,
// a smaller student (8 -> 24 -> 1, 241 parameters) that cannot fit it exactly, full-batch mean
// squared error over 512 samples. Non-convex and slow enough that the loss still moves after thousands of steps, so
// a worse optimizer state shows in the final loss. The gradient is computed on the CPU in double
// each step and uploaded into g; the optimizer under test owns the weights.
#pragma once

#include <cmath>
#include <random>
#include <vector>

namespace wgslvk::optimizer::testing {

struct MlpProblem {
  static constexpr int D = 8, H = 24, N = 512, HT = 64;  // student hidden H, teacher HT
  std::vector<double> x, y;                              // [N x D], [N]
  // parameter tensors in registry order: W1 [H x D] (decay), W2 [1 x H] (decay), b1 [H], b2 [1]
  std::vector<float> w1, w2, b1, b2;

  explicit MlpProblem(uint64_t seed) {
    std::mt19937_64 r(seed);
    std::normal_distribution<double> nd(0.0, 1.0);
    x.resize(N * D);
    for (auto& v : x) v = nd(r);
    std::vector<double> t1(HT * D), tb1(HT), t2(HT);
    for (auto& v : t1) v = nd(r) / std::sqrt(double(D));
    for (auto& v : tb1) v = 0.5 * nd(r);
    for (auto& v : t2) v = 2.0 * nd(r) / std::sqrt(double(HT));
    y.resize(N);
    for (int n = 0; n < N; ++n) {
      double o = 0.3;
      for (int h = 0; h < HT; ++h) {
        double a = tb1[h];
        for (int d = 0; d < D; ++d) a += t1[h * D + d] * x[n * D + d];
        o += t2[h] * std::tanh(a);
      }
      y[n] = o + 0.1 * nd(r);
    }
    w1.resize(H * D);
    w2.resize(H);
    b1.assign(H, 0.0f);
    b2.assign(1, 0.0f);
    for (auto& v : w1) v = float(nd(r) / std::sqrt(double(D)));
    for (auto& v : w2) v = float(nd(r) / std::sqrt(double(H)));
  }

  // Loss of the given weights; fills the gradients when the outputs are non-null.
  static double loss_grad(const MlpProblem& p, const std::vector<float>& w1,
                          const std::vector<float>& w2, const std::vector<float>& b1,
                          const std::vector<float>& b2, std::vector<float>* gw1 = nullptr,
                          std::vector<float>* gw2 = nullptr, std::vector<float>* gb1 = nullptr,
                          std::vector<float>* gb2 = nullptr) {
    std::vector<double> dw1(H * D, 0.0), dw2(H, 0.0), db1(H, 0.0);
    double db2 = 0.0, loss = 0.0;
    std::vector<double> act(H);
    for (int n = 0; n < N; ++n) {
      double o = b2[0];
      for (int h = 0; h < H; ++h) {
        double a = b1[h];
        for (int d = 0; d < D; ++d) a += double(w1[h * D + d]) * p.x[n * D + d];
        act[h] = std::tanh(a);
        o += double(w2[h]) * act[h];
      }
      double e = o - p.y[n];
      loss += 0.5 * e * e / N;
      double de = e / N;
      db2 += de;
      for (int h = 0; h < H; ++h) {
        dw2[h] += de * act[h];
        double da = de * double(w2[h]) * (1.0 - act[h] * act[h]);
        db1[h] += da;
        for (int d = 0; d < D; ++d) dw1[h * D + d] += da * p.x[n * D + d];
      }
    }
    if (gw1) {
      gw1->assign(dw1.begin(), dw1.end());
      gw2->assign(dw2.begin(), dw2.end());
      gb1->assign(db1.begin(), db1.end());
      gb2->assign(1, float(db2));
    }
    return loss;
  }
};

}  // namespace wgslvk::optimizer::testing
