#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wgslvk::attention {

float default_scale(uint32_t head_dim) { return float(1.0 / std::sqrt(double(head_dim))); }

Shape make_shape(uint32_t batch, uint32_t seq, uint32_t heads, uint32_t head_dim) {
  return Shape{batch, seq, heads, head_dim, double(default_scale(head_dim))};
}

namespace ref {
namespace {

void expect_size(const char* fn, const char* what, size_t got, uint64_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("attention::ref::") + fn + ": " + what + " has " +
                                std::to_string(got) + " elements, the shape needs " +
                                std::to_string(want));
}

void check_shape(const char* fn, const Shape& s) {
  if (!s.batch || !s.seq || !s.heads || !s.head_dim)
    throw std::invalid_argument(std::string("attention::ref::") + fn +
                                ": batch, seq, heads and head_dim must be non-zero");
}

// Element addresses of the layouts (reference.hpp).
struct Idx {
  const Shape& s;
  uint64_t d = s.d(), hd = s.head_dim, T = s.seq;
  uint64_t q(uint64_t b, uint64_t i, uint64_t h) const { return (b * T + i) * 3 * d + h * hd; }
  uint64_t k(uint64_t b, uint64_t i, uint64_t h) const { return q(b, i, h) + d; }
  uint64_t v(uint64_t b, uint64_t i, uint64_t h) const { return q(b, i, h) + 2 * d; }
  uint64_t o(uint64_t b, uint64_t i, uint64_t h) const { return (b * T + i) * d + h * hd; }
  uint64_t row(uint64_t b, uint64_t h, uint64_t i) const { return (b * s.heads + h) * T + i; }
  uint64_t att(uint64_t b, uint64_t h, uint64_t i, uint64_t j) const {
    return row(b, h, i) * T + j;
  }
};

double dot(const double* a, const double* b, uint64_t n) {
  double acc = 0;
  for (uint64_t c = 0; c < n; ++c) acc += a[c] * b[c];
  return acc;
}
double absdot(const double* a, const double* b, uint64_t n) {
  double acc = 0;
  for (uint64_t c = 0; c < n; ++c) acc += std::fabs(a[c] * b[c]);
  return acc;
}

}  // namespace

std::vector<double> widen(std::span<const float> x) { return {x.begin(), x.end()}; }
std::vector<float> narrow(std::span<const double> x) {
  std::vector<float> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) r[i] = float(x[i]);
  return r;
}

// ---- naive ----------------------------------------------------------------------------------------

void naive_scores(const Shape& s, std::span<const double> qkv, std::span<double> scores) {
  check_shape("naive_scores", s);
  expect_size("naive_scores", "qkv", qkv.size(), s.qkv_size());
  expect_size("naive_scores", "scores", scores.size(), s.att_size());
  Idx x{s};
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        for (uint64_t j = 0; j < s.seq; ++j)
          scores[x.att(b, h, i, j)] =
              j <= i ? s.scale * dot(&qkv[x.q(b, i, h)], &qkv[x.k(b, j, h)], s.head_dim) : 0.0;
}

void naive_softmax(const Shape& s, std::span<const double> scores, std::span<double> att,
                   std::span<double> lse) {
  check_shape("naive_softmax", s);
  expect_size("naive_softmax", "scores", scores.size(), s.att_size());
  expect_size("naive_softmax", "att", att.size(), s.att_size());
  if (!lse.empty()) expect_size("naive_softmax", "lse", lse.size(), s.lse_size());
  const uint64_t T = s.seq;
  for (uint64_t row = 0; row < s.lse_size(); ++row) {
    const uint64_t i = row % T;
    const double* sc = &scores[row * T];
    double* a = &att[row * T];
    double m = sc[0];
    for (uint64_t j = 1; j <= i; ++j) m = std::max(m, sc[j]);
    double l = 0;
    for (uint64_t j = 0; j <= i; ++j) l += std::exp(sc[j] - m);
    for (uint64_t j = 0; j < T; ++j) a[j] = j <= i ? std::exp(sc[j] - m) / l : 0.0;
    if (!lse.empty()) lse[row] = m + std::log(l);
  }
}

void naive_weighted_sum(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                        std::span<double> out) {
  check_shape("naive_weighted_sum", s);
  expect_size("naive_weighted_sum", "qkv", qkv.size(), s.qkv_size());
  expect_size("naive_weighted_sum", "att", att.size(), s.att_size());
  expect_size("naive_weighted_sum", "out", out.size(), s.out_size());
  Idx x{s};
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        for (uint64_t c = 0; c < s.head_dim; ++c) {
          double acc = 0;
          for (uint64_t j = 0; j <= i; ++j) acc += att[x.att(b, h, i, j)] * qkv[x.v(b, j, h) + c];
          out[x.o(b, i, h) + c] = acc;
        }
}

void naive_forward(const Shape& s, std::span<const double> qkv, std::span<double> att,
                   std::span<double> out, std::span<double> lse) {
  check_shape("naive_forward", s);
  expect_size("naive_forward", "att", att.size(), s.att_size());
  std::vector<double> scores(s.att_size());
  naive_scores(s, qkv, scores);
  naive_softmax(s, scores, att, lse);
  naive_weighted_sum(s, qkv, att, out);
}

void dsum(const Shape& s, std::span<const double> out, std::span<const double> dout,
          std::span<double> dsum_out) {
  check_shape("dsum", s);
  expect_size("dsum", "out", out.size(), s.out_size());
  expect_size("dsum", "dout", dout.size(), s.out_size());
  expect_size("dsum", "dsum", dsum_out.size(), s.lse_size());
  Idx x{s};
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        dsum_out[x.row(b, h, i)] = dot(&out[x.o(b, i, h)], &dout[x.o(b, i, h)], s.head_dim);
}

void naive_dscores(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                   std::span<const double> dout, std::span<const double> dsum_in,
                   std::span<double> dscores) {
  check_shape("naive_dscores", s);
  expect_size("naive_dscores", "qkv", qkv.size(), s.qkv_size());
  expect_size("naive_dscores", "att", att.size(), s.att_size());
  expect_size("naive_dscores", "dout", dout.size(), s.out_size());
  expect_size("naive_dscores", "dsum", dsum_in.size(), s.lse_size());
  expect_size("naive_dscores", "dscores", dscores.size(), s.att_size());
  Idx x{s};
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        for (uint64_t j = 0; j < s.seq; ++j) {
          double g = 0;
          if (j <= i) {
            double dp = dot(&dout[x.o(b, i, h)], &qkv[x.v(b, j, h)], s.head_dim);
            g = att[x.att(b, h, i, j)] * (dp - dsum_in[x.row(b, h, i)]);
          }
          dscores[x.att(b, h, i, j)] = g;
        }
}

void naive_dqkv(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                std::span<const double> dout, std::span<const double> dscores,
                std::span<double> dqkv) {
  check_shape("naive_dqkv", s);
  expect_size("naive_dqkv", "qkv", qkv.size(), s.qkv_size());
  expect_size("naive_dqkv", "att", att.size(), s.att_size());
  expect_size("naive_dqkv", "dout", dout.size(), s.out_size());
  expect_size("naive_dqkv", "dscores", dscores.size(), s.att_size());
  expect_size("naive_dqkv", "dqkv", dqkv.size(), s.qkv_size());
  Idx x{s};
  const uint64_t T = s.seq;
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t t = 0; t < T; ++t)
        for (uint64_t c = 0; c < s.head_dim; ++c) {
          double dq = 0, dk = 0, dv = 0;
          for (uint64_t j = 0; j <= t; ++j)
            dq += dscores[x.att(b, h, t, j)] * qkv[x.k(b, j, h) + c];
          for (uint64_t i = t; i < T; ++i) {
            dk += dscores[x.att(b, h, i, t)] * qkv[x.q(b, i, h) + c];
            dv += att[x.att(b, h, i, t)] * dout[x.o(b, i, h) + c];
          }
          dqkv[x.q(b, t, h) + c] = s.scale * dq;
          dqkv[x.k(b, t, h) + c] = s.scale * dk;
          dqkv[x.v(b, t, h) + c] = dv;
        }
}

void naive_backward(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                    std::span<const double> out, std::span<const double> dout,
                    std::span<double> dqkv) {
  std::vector<double> D(s.lse_size()), dS(s.att_size());
  dsum(s, out, dout, D);
  naive_dscores(s, qkv, att, dout, D, dS);
  naive_dqkv(s, qkv, att, dout, dS, dqkv);
}

// ---- FA2 ------------------------------------------------------------------------------------------

void fa2_forward(const Shape& s, std::span<const double> qkv, std::span<double> out,
                 std::span<double> lse) {
  check_shape("fa2_forward", s);
  expect_size("fa2_forward", "qkv", qkv.size(), s.qkv_size());
  expect_size("fa2_forward", "out", out.size(), s.out_size());
  expect_size("fa2_forward", "lse", lse.size(), s.lse_size());
  Idx x{s};
  const uint64_t T = s.seq, hd = s.head_dim;
  std::vector<double> o(hd);
  double sc[kTile], p[kTile];
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t qt = 0; qt < s.q_tiles(); ++qt)  // one workgroup
        for (uint64_t r = 0; r < kTile; ++r) {       // one invocation per Q row
          const uint64_t i = qt * kTile + r;
          if (i >= T) break;
          double m = 0, l = 0;
          std::fill(o.begin(), o.end(), 0.0);
          for (uint64_t kb = 0; kb <= qt; ++kb) {  // K/V blocks up to the diagonal
            const uint64_t j0 = kb * kTile;
            double bmax = -INFINITY;
            for (uint64_t jj = 0; jj < kTile; ++jj) {
              const uint64_t j = j0 + jj;
              if (j > i) break;  // causal mask (also j >= T)
              sc[jj] = s.scale * dot(&qkv[x.q(b, i, h)], &qkv[x.k(b, j, h)], hd);
              bmax = std::max(bmax, sc[jj]);
            }
            const double m_new = kb == 0 ? bmax : std::max(m, bmax);
            const double alpha = kb == 0 ? 1.0 : std::exp(m - m_new);
            double psum = 0;
            for (uint64_t jj = 0; jj < kTile; ++jj) {
              p[jj] = j0 + jj <= i ? std::exp(sc[jj] - m_new) : 0.0;
              psum += p[jj];
            }
            l = l * alpha + psum;
            for (uint64_t c = 0; c < hd; ++c) {
              double acc = o[c] * alpha;
              for (uint64_t jj = 0; jj < kTile && j0 + jj <= i; ++jj)
                acc += p[jj] * qkv[x.v(b, j0 + jj, h) + c];
              o[c] = acc;
            }
            m = m_new;
          }
          for (uint64_t c = 0; c < hd; ++c) out[x.o(b, i, h) + c] = o[c] / l;
          lse[x.row(b, h, i)] = m + std::log(l);
        }
}

void fa2_backward(const Shape& s, std::span<const double> qkv, std::span<const double> dout,
                  std::span<const double> lse, std::span<const double> dsum_in,
                  std::span<double> dqkv) {
  check_shape("fa2_backward", s);
  expect_size("fa2_backward", "qkv", qkv.size(), s.qkv_size());
  expect_size("fa2_backward", "dout", dout.size(), s.out_size());
  expect_size("fa2_backward", "lse", lse.size(), s.lse_size());
  expect_size("fa2_backward", "dsum", dsum_in.size(), s.lse_size());
  expect_size("fa2_backward", "dqkv", dqkv.size(), s.qkv_size());
  Idx x{s};
  const uint64_t T = s.seq, hd = s.head_dim, nt = s.q_tiles();
  std::vector<double> acc(hd), acc2(hd);
  double ds[kTile], p[kTile];
  // P, dS of one (i, j) pair, as both kernels recompute them.
  auto pair = [&](uint64_t b, uint64_t h, uint64_t i, uint64_t j, double& P, double& dS) {
    const double sij = s.scale * dot(&qkv[x.q(b, i, h)], &qkv[x.k(b, j, h)], hd);
    P = std::exp(sij - lse[x.row(b, h, i)]);
    const double dp = dot(&dout[x.o(b, i, h)], &qkv[x.v(b, j, h)], hd);
    dS = P * (dp - dsum_in[x.row(b, h, i)]);
  };
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h) {
      // attn_dscores_fa2: one workgroup per Q tile, one invocation per row i: dq_i.
      for (uint64_t qt = 0; qt < nt; ++qt)
        for (uint64_t r = 0; r < kTile; ++r) {
          const uint64_t i = qt * kTile + r;
          if (i >= T) break;
          std::fill(acc.begin(), acc.end(), 0.0);
          for (uint64_t kb = 0; kb <= qt; ++kb) {
            const uint64_t j0 = kb * kTile;
            for (uint64_t jj = 0; jj < kTile; ++jj)
              if (j0 + jj <= i)
                pair(b, h, i, j0 + jj, p[jj], ds[jj]);
              else
                ds[jj] = 0.0;
            for (uint64_t c = 0; c < hd; ++c)
              for (uint64_t jj = 0; jj < kTile && j0 + jj <= i; ++jj)
                acc[c] += ds[jj] * qkv[x.k(b, j0 + jj, h) + c];
          }
          for (uint64_t c = 0; c < hd; ++c) dqkv[x.q(b, i, h) + c] = s.scale * acc[c];
        }
      // attn_dv_fa2: one workgroup per K tile, per key row j: dk_j and dv_j, walking Q blocks
      // from the diagonal block to the last.
      for (uint64_t kt = 0; kt < nt; ++kt)
        for (uint64_t r = 0; r < kTile; ++r) {
          const uint64_t j = kt * kTile + r;
          if (j >= T) break;
          std::fill(acc.begin(), acc.end(), 0.0);    // dk
          std::fill(acc2.begin(), acc2.end(), 0.0);  // dv
          for (uint64_t qb = kt; qb < nt; ++qb) {
            const uint64_t i0 = qb * kTile;
            for (uint64_t ii = 0; ii < kTile; ++ii) {
              const uint64_t i = i0 + ii;
              if (i >= j && i < T)
                pair(b, h, i, j, p[ii], ds[ii]);
              else
                p[ii] = ds[ii] = 0.0;
            }
            for (uint64_t c = 0; c < hd; ++c)
              for (uint64_t ii = 0; ii < kTile && i0 + ii < T; ++ii) {
                acc[c] += s.scale * ds[ii] * qkv[x.q(b, i0 + ii, h) + c];
                acc2[c] += p[ii] * dout[x.o(b, i0 + ii, h) + c];
              }
          }
          for (uint64_t c = 0; c < hd; ++c) {
            dqkv[x.k(b, j, h) + c] = acc[c];
            dqkv[x.v(b, j, h) + c] = acc2[c];
          }
        }
    }
}

// ---- bounds ---------------------------------------------------------------------------------------
namespace {

// The exact forward quantities of one (b, h) and the per-pair error terms of README "Bounds".
struct HeadTables {
  uint64_t T;
  std::vector<double> sc, S, P;  // T x T (j <= i): scaled score, |scale| sum |q k|, probability
  std::vector<double> w;         // T x T: relative error of the unnormalized weight
  std::vector<double> m, l, W, sigma;  // per row
  std::vector<double> nb;              // per row: K blocks walked

  HeadTables(const Shape& s, std::span<const double> qkv, uint64_t b, uint64_t h) : T(s.seq) {
    Idx x{s};
    const uint64_t hd = s.head_dim;
    sc.assign(T * T, 0.0), S = sc, P = sc, w = sc;
    m.resize(T), l.resize(T), W.resize(T), sigma.resize(T), nb.resize(T);
    for (uint64_t i = 0; i < T; ++i) {
      double mx = -INFINITY;
      for (uint64_t j = 0; j <= i; ++j) {
        const double* q = &qkv[x.q(b, i, h)];
        const double* k = &qkv[x.k(b, j, h)];
        sc[i * T + j] = s.scale * dot(q, k, hd);
        S[i * T + j] = std::fabs(s.scale) * absdot(q, k, hd);
        mx = std::max(mx, sc[i * T + j]);
      }
      double sum = 0;
      for (uint64_t j = 0; j <= i; ++j) sum += std::exp(sc[i * T + j] - mx);
      m[i] = mx, l[i] = sum;
      nb[i] = double(i / kTile + 1);
      const double n = double(i + 1);
      sigma[i] = (n + 2 * nb[i] + 2) * kU;  // n products and adds, 2 nb rescales, slack
      double Wi = 0;
      for (uint64_t j = 0; j <= i; ++j) {
        const double xij = mx - sc[i * T + j];
        P[i * T + j] = std::exp(-xij) / sum;
        // score: hd-term dot (gamma_hd) and the scale multiply; exp: (3 + 2|x|) ULP <=
        // (6 + 4|x|) u, its argument's subtraction u|x|, up to nb rescales by alpha (each an exp
        // (6 + 4|x_a|) u, a subtraction and a multiply), sum |x_a| <= x_ij.
        w[i * T + j] = double(hd + 1) * kU * S[i * T + j] + (7 * (nb[i] + 1) + 5 * xij) * kU;
        Wi += P[i * T + j] * w[i * T + j];
      }
      W[i] = Wi;
    }
  }
  // Absolute error of a stored probability att_ij (naive: p / l, l's sum, the division 2.5 ULP,
  // the store) and the flush floor.
  double att_err(uint64_t i, uint64_t j) const {
    const uint64_t e = i * T + j;
    return P[e] * (w[e] + W[i] + sigma[i] + 7 * kU) + kFlush;
  }
  double lse_mag(uint64_t i) const { return std::fabs(m[i]) + std::log(l[i]); }
};

}  // namespace

void scores_bounds(const Shape& s, std::span<const double> qkv, std::span<double> err,
                   std::span<double> mag) {
  check_shape("scores_bounds", s);
  expect_size("scores_bounds", "qkv", qkv.size(), s.qkv_size());
  expect_size("scores_bounds", "err", err.size(), s.att_size());
  expect_size("scores_bounds", "mag", mag.size(), s.att_size());
  Idx x{s};
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        for (uint64_t j = 0; j < s.seq; ++j) {
          const double S = j <= i ? std::fabs(s.scale) *
                                        absdot(&qkv[x.q(b, i, h)], &qkv[x.k(b, j, h)], s.head_dim)
                                  : 0.0;
          err[x.att(b, h, i, j)] = double(s.head_dim + 2) * kU * S;
          mag[x.att(b, h, i, j)] = S;
        }
}

ForwardBounds forward_bounds(const Shape& s, std::span<const double> qkv, bool with_att) {
  check_shape("forward_bounds", s);
  expect_size("forward_bounds", "qkv", qkv.size(), s.qkv_size());
  Idx x{s};
  const uint64_t T = s.seq, hd = s.head_dim;
  ForwardBounds fb;
  fb.out_err.assign(s.out_size(), 0.0), fb.out_mag = fb.out_err;
  fb.lse_err.assign(s.lse_size(), 0.0), fb.lse_mag = fb.lse_err;
  if (with_att) fb.att_err.assign(s.att_size(), 0.0);
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h) {
      HeadTables t(s, qkv, b, h);
      for (uint64_t i = 0; i < T; ++i) {
        const double logl = std::log(t.l[i]);
        // lse: sum_j P_j (score + exp errors), l's sum, log (abs 2^-21 = 8u in [0.5, 2], else
        // 3 ULP <= 6u log l), the final add and the expected's rounding (u each of |m| + log l).
        fb.lse_err[x.row(b, h, i)] =
            t.W[i] + t.sigma[i] + 8 * kU + 6 * kU * logl + 2 * kU * t.lse_mag(i);
        fb.lse_mag[x.row(b, h, i)] = t.lse_mag(i);
        if (with_att)
          for (uint64_t j = 0; j <= i; ++j) fb.att_err[x.att(b, h, i, j)] = t.att_err(i, j);
        for (uint64_t c = 0; c < hd; ++c) {
          double err = 0, mag = 0;
          for (uint64_t j = 0; j <= i; ++j) {
            const double av = std::fabs(qkv[x.v(b, j, h) + c]);
            const uint64_t e = i * T + j;
            err += (t.P[e] * t.w[e] + kFlush) * av;
            mag += t.P[e] * av;
          }
          // normalization by l (W: its weights' error; sigma: its sum), o's sum (sigma), the
          // division (5u: 2.5 ULP) or naive's att rounding, the expected's rounding.
          err += mag * (t.W[i] + 2 * t.sigma[i] + 7 * kU);
          fb.out_err[x.o(b, i, h) + c] = err;
          fb.out_mag[x.o(b, i, h) + c] = mag;
        }
      }
    }
  return fb;
}

BackwardBounds backward_bounds(const Shape& s, std::span<const double> qkv,
                               std::span<const double> dout, const ForwardBounds& fb,
                               bool with_dscores) {
  check_shape("backward_bounds", s);
  expect_size("backward_bounds", "qkv", qkv.size(), s.qkv_size());
  expect_size("backward_bounds", "dout", dout.size(), s.out_size());
  expect_size("backward_bounds", "out_err", fb.out_err.size(), s.out_size());
  expect_size("backward_bounds", "lse_err", fb.lse_err.size(), s.lse_size());
  Idx x{s};
  const uint64_t T = s.seq, hd = s.head_dim, nt = s.q_tiles();
  const double asc = std::fabs(s.scale);
  BackwardBounds bb;
  bb.dqkv_err.assign(s.qkv_size(), 0.0), bb.dqkv_mag = bb.dqkv_err;
  bb.dsum_err.assign(s.lse_size(), 0.0), bb.dsum_mag = bb.dsum_err;
  if (with_dscores) bb.dscores_err.assign(s.att_size(), 0.0), bb.dscores_mag = bb.dscores_err;
  std::vector<double> out(s.out_size()), lse(s.lse_size());
  {
    std::vector<double> att(s.att_size());
    naive_forward(s, qkv, att, out, lse);
  }
  std::vector<double> D(s.lse_size());
  dsum(s, out, dout, D);
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h) {
      HeadTables t(s, qkv, b, h);
      std::vector<double> Pabs(T * T, 0.0), dS(T * T, 0.0), dSerr(T * T, 0.0), dSmag(T * T, 0.0);
      std::vector<double> Dall(T), Derr(T);
      for (uint64_t i = 0; i < T; ++i) {
        const uint64_t r = x.row(b, h, i);
        const double* go = &dout[x.o(b, i, h)];
        double dd = 0, de = 0;
        for (uint64_t c = 0; c < hd; ++c) {
          dd += std::fabs(go[c] * out[x.o(b, i, h) + c]);
          de += std::fabs(go[c]) * fb.out_err[x.o(b, i, h) + c];
        }
        // dsum: hd-term dot of dout with an out that is off by out_err, the expected's rounding.
        Derr[i] = de + double(hd + 1) * kU * dd;
        Dall[i] = D[r];
        bb.dsum_err[r] = Derr[i];
        bb.dsum_mag[r] = dd;
        for (uint64_t j = 0; j <= i; ++j) {
          const uint64_t e = i * T + j;
          const double P = t.P[e];
          const double y = lse[r] - t.sc[e];
          // The P a backward kernel uses: FA2 recomputes exp(s - L) (score error, L's error,
          // exp (6 + 4y) u and the subtraction u y); naive reads att (att_err).
          Pabs[e] = std::max(
              P * (double(hd + 1) * kU * t.S[e] + fb.lse_err[r] + (6 + 5 * y) * kU) + kFlush,
              t.att_err(i, j));
          const double* v = &qkv[x.v(b, j, h)];
          const double dp = dot(go, v, hd), DP = absdot(go, v, hd);
          const double G = dp - D[r];
          const double dGerr = double(hd) * kU * DP + Derr[i];  // dP's dot, dsum's error
          dS[e] = P * G;
          // first order: dP x G + P x dG, the subtraction, multiply and a store (3u |P G|).
          dSerr[e] = Pabs[e] * (std::fabs(G) + dGerr) + P * (3 * kU * std::fabs(G) + dGerr);
          dSmag[e] = P * (std::fabs(dp) + std::fabs(D[r]));
          if (with_dscores) {
            bb.dscores_err[x.att(b, h, i, j)] = dSerr[e];
            bb.dscores_mag[x.att(b, h, i, j)] = dSmag[e];
          }
        }
      }
      for (uint64_t t0 = 0; t0 < T; ++t0) {
        // dq_t: sum over keys j <= t (n = t + 1 terms, t/16 + 1 blocks).
        const double nq = double(t0 + 1), nbq = double(t0 / kTile + 1);
        // dk_t, dv_t: sum over queries i >= t (n = T - t terms, nt - t/16 blocks).
        const double nk = double(T - t0), nbk = double(nt - t0 / kTile);
        for (uint64_t c = 0; c < hd; ++c) {
          double qe = 0, qsum = 0, qm = 0;
          for (uint64_t j = 0; j <= t0; ++j) {
            const uint64_t e = t0 * T + j;
            const double ak = std::fabs(qkv[x.k(b, j, h) + c]);
            qe += dSerr[e] * ak, qsum += std::fabs(dS[e]) * ak, qm += dSmag[e] * ak;
          }
          double ke = 0, ksum = 0, km = 0, ve = 0, vm = 0;
          for (uint64_t i = t0; i < T; ++i) {
            const uint64_t e = i * T + t0;
            const double aq = std::fabs(qkv[x.q(b, i, h) + c]);
            const double ag = std::fabs(dout[x.o(b, i, h) + c]);
            ke += dSerr[e] * aq, ksum += std::fabs(dS[e]) * aq, km += dSmag[e] * aq;
            ve += Pabs[e] * ag, vm += t.P[e] * ag;
          }
          // the sums' roundings (n adds, products, 2 nb block boundaries), the scale multiply
          // and the expected's rounding: (n + 2 nb + 3) u of the sum of |terms|.
          bb.dqkv_err[x.q(b, t0, h) + c] = asc * (qe + (nq + 2 * nbq + 3) * kU * qsum);
          bb.dqkv_mag[x.q(b, t0, h) + c] = asc * qm;
          bb.dqkv_err[x.k(b, t0, h) + c] = asc * (ke + (nk + 2 * nbk + 3) * kU * ksum);
          bb.dqkv_mag[x.k(b, t0, h) + c] = asc * km;
          bb.dqkv_err[x.v(b, t0, h) + c] = ve + (nk + 2 * nbk + 3) * kU * vm;
          bb.dqkv_mag[x.v(b, t0, h) + c] = vm;
        }
      }
    }
  return bb;
}

std::vector<float> ulp_counts(std::span<const double> err, std::span<const double> mag) {
  if (err.size() != mag.size())
    throw std::invalid_argument("attention::ref::ulp_counts: err and mag sizes differ");
  std::vector<float> r(err.size());
  for (size_t i = 0; i < err.size(); ++i) {
    // The check divides by ulp(max(|expected|, f32(mag))) >= ulp(mag) (|expected| <= mag, and
    // rounding mag to f32 never crosses a power of two downwards): err / ulp(mag) is a bound.
    const double ulp = f32_ulp_of(mag[i]);
    r[i] = float(std::ceil(err[i] / ulp));
  }
  return r;
}

}  // namespace ref
}  // namespace wgslvk::attention
