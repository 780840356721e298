#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace wgslvk::adafactor {
namespace {

constexpr double kTiny = 1.17549435e-38;  // the kernels' TINY (smallest normal f32)

bool fin(float x) { return std::isfinite(x); }
double gz(float x) { return fin(x) ? double(x) : 0.0; }  // a non-finite gradient counts as 0

double lerp_t(double a, double b, double w) {
  return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1.0 - w);
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// value with a budget of r u: r + 1/2 ULPs of max(|value|, magnitude)
void push(ref::Expected& e, double value, double magnitude, double r) {
  e.value.push_back(float(value));
  e.magnitude.push_back(magnitude);
  e.bound.push_back(r + 0.5);
}

// adds on one term's path through the apply kernels' redundant finalize: per-thread sequential
// over ceil(nparts / 256) partials, then the 8-level tree
double finalize_adds(uint32_t nparts) { return double(ceil_div(nparts, kWG)) + 8; }

// sqrt(S / n) with S's budget rs: n as f32 (1 u), division (5 u), half of it through the sqrt,
// plus WGSL sqrt's 4.5 ULP (9 u)
double rms_budget(double rs) { return (rs + 6) / 2 + 9; }

struct StepScale {
  double step = 0, budget = 0;  // step = alpha / denom and its budget
};
// The step of the apply kernels from the partial sums (in double) with their budgets.
StepScale step_scale(double su, double su_budget, double sp, double sp_budget, uint32_t n,
                     const Scalars& s) {
  const double nf = double(n);
  const double rms = std::sqrt(su / nf);
  const double denom = std::max(1.0, rms / double(s.d));
  const double denom_budget = denom > 1.0 ? rms_budget(su_budget) + 5 : 0.0;
  double alpha = s.rho, alpha_budget = 0;
  if (s.scale_param != 0.0f) {
    const double rw = std::sqrt(sp / nf);
    alpha = double(s.rho) * std::max(double(s.eps2), rw);
    alpha_budget = (rw > s.eps2 ? rms_budget(sp_budget) : 0.0) + 1;
  }
  return {alpha / denom, alpha_budget + denom_budget + 5};
}

}  // namespace

void check_hyper(const Hyper& h, const std::string& who) {
  auto bad = [&](const char* field, double v, const char* rule) {
    std::ostringstream o;
    o << who << ": " << field << " = " << v << " (" << rule << ")";
    throw std::invalid_argument(o.str());
  };
  if (!(std::isfinite(h.lr) && h.lr >= 0)) bad("lr", h.lr, "finite and >= 0");
  if (!(std::isfinite(h.beta2_decay) && h.beta2_decay <= 0))
    bad("beta2_decay", h.beta2_decay, "finite and <= 0");
  if (!(std::isfinite(h.eps1) && h.eps1 >= 1e-15 && h.eps1 < 1))
    bad("eps1", h.eps1, "in [1e-15, 1)");
  if (!(std::isfinite(h.eps2) && h.eps2 >= 0)) bad("eps2", h.eps2, "finite and >= 0");
  if (!(std::isfinite(h.d) && h.d > 0)) bad("d (clip threshold)", h.d, "finite and > 0");
  if (!(std::isfinite(h.weight_decay) && h.weight_decay >= 0))
    bad("weight_decay", h.weight_decay, "finite and >= 0");
}

Scalars scalars(const Hyper& h, uint64_t t, bool decay) {
  Scalars s;
  const double td = double(t);
  s.beta_w = float(std::pow(td, h.beta2_decay));
  s.eps1 = float(h.eps1);
  s.eps1_sq = float(h.eps1 * h.eps1);
  s.inv_eps1 = float(1.0 / h.eps1);
  s.eps2 = float(h.eps2);
  s.d = float(h.d);
  s.rho = float(h.relative_step ? std::min(h.lr, 1.0 / std::sqrt(td)) : h.lr);
  s.decay = decay ? float(1.0 - h.lr * h.weight_decay) : 1.0f;
  s.scale_param = h.scale_parameter ? 1.0f : 0.0f;
  return s;
}

std::array<float, 12> hp_words(const Scalars& s) {
  return {s.beta_w, s.eps1,  s.eps1_sq,     s.inv_eps1, s.eps2, s.d,
          s.rho,    s.decay, s.scale_param, 0,          0,      0};
}

Dims dims_2d(uint32_t rows, uint32_t cols) {
  Dims d;
  d.rows = rows;
  d.cols = cols;
  d.nbx = uint32_t(ceil_div(cols, kTileCols));
  d.nby = uint32_t(ceil_div(rows, kTileRows));
  d.nparts = d.nbx * d.nby;
  d.n = rows * cols;
  d.factored = true;
  return d;
}

uint32_t ema_1d_workgroups(uint64_t n) {
  return uint32_t(std::clamp<uint64_t>(ceil_div(n, 1024), 1, 1024));
}

Dims dims_1d(uint32_t n) {
  Dims d;
  d.rows = 1;
  d.cols = n;
  d.nbx = 0;
  d.nby = 0;
  d.nparts = ema_1d_workgroups(n);
  d.n = n;
  d.factored = false;
  return d;
}

std::array<uint32_t, 8> dims_words(const Dims& d) {
  return {d.rows, d.cols, d.nbx, d.nby, d.nparts, d.n, 0, 0};
}

uint64_t factor_ema_workgroups(const Dims& d) { return ceil_div(uint64_t(d.rows) + d.cols, kWG); }

namespace ref {

namespace {
thread_local StepInfo g_last;
}

StepInfo last_step_info() { return g_last; }

State init_state(const Dims& d) {
  State s;
  if (d.factored) {
    s.row_var.assign(d.rows, 0.0);
    s.col_var.assign(d.cols, 0.0);
  } else {
    s.v.assign(d.n, 0.0);
  }
  return s;
}

void step(const Dims& d, const Scalars& s, std::span<double> w, std::span<const double> g,
          State& st) {
  const uint64_t n = d.n;
  auto gv = [&](uint64_t i) { return std::isfinite(g[i]) ? g[i] : 0.0; };
  double pw = 0;
  for (uint64_t i = 0; i < n; ++i) pw += w[i] * w[i];
  const double rms_w = std::sqrt(pw / double(n));
  const double alpha =
      double(s.rho) * (s.scale_param != 0.0f ? std::max(double(s.eps2), rms_w) : 1.0);
  const double bw = s.beta_w, e1 = s.eps1, e1sq = s.eps1_sq;
  std::vector<double> u(n);
  if (d.factored) {
    const uint32_t R = d.rows, C = d.cols;
    for (uint32_t r = 0; r < R; ++r) {
      double acc = 0;
      for (uint32_t c = 0; c < C; ++c) acc += gv(uint64_t(r) * C + c) * gv(uint64_t(r) * C + c);
      st.row_var[r] = lerp_t(st.row_var[r], acc / C, bw);
    }
    for (uint32_t c = 0; c < C; ++c) {
      double acc = 0;
      for (uint32_t r = 0; r < R; ++r) acc += gv(uint64_t(r) * C + c) * gv(uint64_t(r) * C + c);
      st.col_var[c] = lerp_t(st.col_var[c], acc / R, bw);
    }
    double mean = 0;
    for (double x : st.row_var) mean += x;
    mean = std::max(mean / R, e1);
    for (uint32_t r = 0; r < R; ++r)
      for (uint32_t c = 0; c < C; ++c) {
        const double var = std::max(st.row_var[r] * st.col_var[c] / mean, e1sq);
        u[uint64_t(r) * C + c] = gv(uint64_t(r) * C + c) / std::sqrt(var);
      }
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      st.v[i] = lerp_t(st.v[i], gv(i) * gv(i), bw);
      u[i] = gv(i) / std::sqrt(std::max(st.v[i], e1sq));
    }
  }
  double su = 0;
  for (double x : u) su += x * x;
  const double rms_u = std::sqrt(su / double(n));
  const double denom = std::max(1.0, rms_u / double(s.d));
  for (uint64_t i = 0; i < n; ++i) w[i] = w[i] * double(s.decay) - alpha / denom * u[i];
  g_last = {rms_u, rms_w, alpha, denom};
}

// ---- sq_sums ------------------------------------------------------------------------------------
// row partial: g*g (1 u), the 8-column segment (8 adds), 4 column sub-tiles (4), the 8 segments
// (8): 21 u. column partial: g*g, 8 rows of a sub-tile, 4 row sub-tiles, the 4 lanes as
// (a + b) + (c + d) (2): 15 u. w^2 partial: p*p, up to 128 per thread, the tree (8): 137 u.
SqSumsExpected sq_sums_expected(std::span<const float> g, std::span<const float> w, const Dims& d,
                                bool scale_param) {
  SqSumsExpected e;
  const uint32_t R = d.rows, C = d.cols;
  for (uint32_t bx = 0; bx < d.nbx; ++bx)
    for (uint32_t r = 0; r < R; ++r) {
      double s = 0;
      for (uint32_t c = bx * kTileCols; c < std::min(C, (bx + 1) * kTileCols); ++c) {
        double x = gz(g[uint64_t(r) * C + c]);
        s += x * x;
      }
      push(e.row_part, s, 0, 21);
    }
  for (uint32_t by = 0; by < d.nby; ++by)
    for (uint32_t c = 0; c < C; ++c) {
      double s = 0;
      for (uint32_t r = by * kTileRows; r < std::min(R, (by + 1) * kTileRows); ++r) {
        double x = gz(g[uint64_t(r) * C + c]);
        s += x * x;
      }
      push(e.col_part, s, 0, 15);
    }
  if (scale_param)
    for (uint32_t by = 0; by < d.nby; ++by)
      for (uint32_t bx = 0; bx < d.nbx; ++bx) {
        double s = 0;
        for (uint32_t r = by * kTileRows; r < std::min(R, (by + 1) * kTileRows); ++r)
          for (uint32_t c = bx * kTileCols; c < std::min(C, (bx + 1) * kTileCols); ++c) {
            double x = w[uint64_t(r) * C + c];
            s += x * x;
          }
        push(e.p_part, s, 0, 137);
      }
  return e;
}

// ---- factor_ema ---------------------------------------------------------------------------------
// row_var: nbx adds, / C (C as f32: 1 u; 5 u), lerp (+6 u): nbx + 12 u of the value (lerp of
// non-negative values has no cancellation beyond its inputs' errors). col_var: nby + 12.
// rc = inverseSqrt(max(col_var, TINY)): half the argument's budget + 4 u.
FactorEmaExpected factor_ema_expected(std::span<const float> row_part,
                                      std::span<const float> col_part,
                                      std::span<const float> row_var,
                                      std::span<const float> col_var, const Dims& d,
                                      const Scalars& s) {
  FactorEmaExpected e;
  const uint32_t R = d.rows, C = d.cols;
  for (uint32_t r = 0; r < R; ++r) {
    double acc = 0;
    for (uint32_t b = 0; b < d.nbx; ++b) acc += row_part[uint64_t(b) * R + r];
    push(e.row_var, lerp_t(row_var[r], acc / C, s.beta_w), 0, d.nbx + 12.0);
  }
  for (uint32_t c = 0; c < C; ++c) {
    double acc = 0;
    for (uint32_t b = 0; b < d.nby; ++b) acc += col_part[uint64_t(b) * C + c];
    const double cv = lerp_t(col_var[c], acc / R, s.beta_w);
    push(e.col_var, cv, 0, d.nby + 12.0);
    push(e.rc, 1.0 / std::sqrt(std::max(cv, kTiny)), 0, (d.nby + 12.0) / 2 + 4);
  }
  return e;
}

// ---- row_rsqrt ----------------------------------------------------------------------------------
// mean: ceil(R/256) per-thread adds + the tree (8), / R (6 u); row_var / denom (5 u);
// inverseSqrt: half of that + 4 u.
static double rr_budget(const Dims& d, double rv_budget) {
  const double mean = rv_budget + double(ceil_div(d.rows, kWG)) + 8 + 6;
  return (rv_budget + mean + 5) / 2 + 4;
}

static std::vector<double> rr_values(std::span<const double> rv, const Scalars& s) {
  double sum = 0;
  for (double x : rv) sum += x;
  const double denom = std::max(sum / double(rv.size()), double(s.eps1));
  std::vector<double> out(rv.size());
  for (size_t i = 0; i < rv.size(); ++i) out[i] = 1.0 / std::sqrt(std::max(rv[i] / denom, kTiny));
  return out;
}

Expected row_rsqrt_expected(std::span<const float> row_var, const Dims& d, const Scalars& s) {
  std::vector<double> rv(row_var.begin(), row_var.end());
  Expected e;
  for (double x : rr_values(rv, s)) push(e, x, 0, rr_budget(d, 0));
  return e;
}

// ---- update_rms ---------------------------------------------------------------------------------
// u = g * min(rr * rc, 1/eps1): 2 u (+ the factors' budgets); u^2: twice + 1; per thread
// min(R, 128) adds, tree 8.
static double u2_partial_budget(const Dims& d, double u_budget) {
  return 2 * u_budget + 1 + double(std::min(d.rows, kTileRows)) + 8;
}

static double u2d(std::span<const float> g, uint64_t i, double rr, double rc, const Scalars& s) {
  return gz(g[i]) * std::min(rr * rc, double(s.inv_eps1));
}

Expected update_rms_expected(std::span<const float> g, std::span<const float> rr,
                             std::span<const float> rc, const Dims& d, const Scalars& s) {
  Expected e;
  const uint32_t R = d.rows, C = d.cols;
  for (uint32_t by = 0; by < d.nby; ++by)
    for (uint32_t bx = 0; bx < d.nbx; ++bx) {
      double acc = 0;
      for (uint32_t r = by * kTileRows; r < std::min(R, (by + 1) * kTileRows); ++r)
        for (uint32_t c = bx * kTileCols; c < std::min(C, (bx + 1) * kTileCols); ++c) {
          double u = u2d(g, uint64_t(r) * C + c, rr[r], rc[c], s);
          acc += u * u;
        }
      push(e, acc, 0, u2_partial_budget(d, 2));
    }
  return e;
}

// ---- apply --------------------------------------------------------------------------------------
// w * decay (1 u), - step * u (1 u of the result), step * u: the step's and u's budgets + 1.
static void push_w(Expected& e, double wv, double decay, double step, double u, double su_budget) {
  const double a = wv * decay, b = step * u;
  push(e, a - b, std::fabs(a) + std::fabs(b), su_budget + 2);
}

static double sum_span(std::span<const float> p) {
  double s = 0;
  for (float x : p) s += x;
  return s;
}

Expected apply_2d_expected(std::span<const float> w, std::span<const float> g,
                           std::span<const float> rr, std::span<const float> rc,
                           std::span<const float> rms_part, std::span<const float> p_part,
                           const Dims& d, const Scalars& s) {
  const double fa = finalize_adds(d.nparts);
  const StepScale st =
      step_scale(sum_span(rms_part.first(d.nparts)), fa,
                 s.scale_param != 0 ? sum_span(p_part.first(d.nparts)) : 0, fa, d.n, s);
  Expected e;
  for (uint64_t i = 0; i < d.n; ++i) {
    const uint32_t r = uint32_t(i / d.cols), c = uint32_t(i % d.cols);
    push_w(e, w[i], s.decay, st.step, u2d(g, i, rr[r], rc[c], s), st.budget + 2 + 1);
  }
  return e;
}

// ---- 1-D ----------------------------------------------------------------------------------------
// v: g*g (1 u), lerp (6 u): 7 u. u = g * inverseSqrt(max(v, eps1_sq)): half of v's budget + 4 + 1.
// Partials: u^2 (2 u_budget + 1) or p*p (1), ceil(n / grid) adds per thread, the tree (8).
static uint64_t per_thread(const Dims& d) { return ceil_div(d.n, uint64_t(d.nparts) * kWG); }

Ema1dExpected ema_1d_expected(std::span<const float> g, std::span<const float> w,
                              std::span<const float> v, const Dims& d, const Scalars& s) {
  Ema1dExpected e;
  const uint64_t grid = uint64_t(d.nparts) * kWG;
  std::vector<double> su(d.nparts, 0.0), sp(d.nparts, 0.0);
  for (uint64_t i = 0; i < d.n; ++i) {
    const double gi = gz(g[i]);
    const double vn = lerp_t(v[i], gi * gi, s.beta_w);
    push(e.v, vn, 0, 7);
    const double u = gi / std::sqrt(std::max(vn, double(s.eps1_sq)));
    const uint64_t wg = (i % grid) / kWG;
    su[wg] += u * u;
    sp[wg] += double(w[i]) * double(w[i]);
  }
  const double adds = double(per_thread(d)) + 8;
  for (uint32_t k = 0; k < d.nparts; ++k) {
    push(e.rms_part, su[k], 0, 2 * (3.5 + 4 + 1) + 1 + adds);
    if (s.scale_param != 0.0f) push(e.p_part, sp[k], 0, 1 + adds);
  }
  return e;
}

Expected apply_1d_expected(std::span<const float> w, std::span<const float> g,
                           std::span<const float> v, std::span<const float> rms_part,
                           std::span<const float> p_part, const Dims& d, const Scalars& s) {
  const double fa = finalize_adds(d.nparts);
  const StepScale st =
      step_scale(sum_span(rms_part.first(d.nparts)), fa,
                 s.scale_param != 0 ? sum_span(p_part.first(d.nparts)) : 0, fa, d.n, s);
  Expected e;
  for (uint64_t i = 0; i < d.n; ++i) {
    const double u = gz(g[i]) / std::sqrt(std::max(double(v[i]), double(s.eps1_sq)));
    push_w(e, w[i], s.decay, st.step, u, st.budget + 5 + 1);
  }
  return e;
}

// ---- the whole step -----------------------------------------------------------------------------

StepExpected step_expected(std::span<const float> w, std::span<const float> g,
                           std::span<const float> row_var, std::span<const float> col_var,
                           std::span<const float> v, const Dims& d, const Scalars& s) {
  StepExpected e;
  const uint64_t n = d.n;
  double sp = 0;
  for (uint64_t i = 0; i < n; ++i) sp += double(w[i]) * double(w[i]);
  std::vector<double> u(n);
  double u_budget = 0, su_adds = 0, sp_adds = 0;
  if (d.factored) {
    const uint32_t R = d.rows, C = d.cols;
    std::vector<double> rv(R), cv(C), rc(C);
    const double rv_b = d.nbx + 21 + 12.0, cv_b = d.nby + 15 + 12.0;
    for (uint32_t r = 0; r < R; ++r) {
      double acc = 0;
      for (uint32_t c = 0; c < C; ++c)
        acc += gz(g[uint64_t(r) * C + c]) * gz(g[uint64_t(r) * C + c]);
      rv[r] = lerp_t(row_var[r], acc / C, s.beta_w);
      push(e.row_var, rv[r], 0, rv_b);
    }
    for (uint32_t c = 0; c < C; ++c) {
      double acc = 0;
      for (uint32_t r = 0; r < R; ++r)
        acc += gz(g[uint64_t(r) * C + c]) * gz(g[uint64_t(r) * C + c]);
      cv[c] = lerp_t(col_var[c], acc / R, s.beta_w);
      push(e.col_var, cv[c], 0, cv_b);
      rc[c] = 1.0 / std::sqrt(std::max(cv[c], kTiny));
    }
    const auto rr = rr_values(rv, s);
    u_budget = rr_budget(d, rv_b) + (cv_b / 2 + 4) + 2;
    for (uint64_t i = 0; i < n; ++i) u[i] = u2d(g, i, rr[i / C], rc[i % C], s);
    su_adds = u2_partial_budget(d, u_budget) - 2 * u_budget;  // 1 + per-thread adds + tree
    sp_adds = 137;
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      const double gi = gz(g[i]);
      const double vn = lerp_t(v[i], gi * gi, s.beta_w);
      push(e.v, vn, 0, 7);
      u[i] = gi / std::sqrt(std::max(vn, double(s.eps1_sq)));
    }
    u_budget = 3.5 + 4 + 1;
    su_adds = 1 + double(per_thread(d)) + 8;
    sp_adds = su_adds;
  }
  double su = 0;
  for (double x : u) su += x * x;
  const double fa = finalize_adds(d.nparts);
  const StepScale st = step_scale(su, 2 * u_budget + su_adds + fa, sp, sp_adds + fa, d.n, s);
  e.w_budget = st.budget + u_budget + 1 + 2.5;
  for (uint64_t i = 0; i < n; ++i)
    push_w(e.w, w[i], s.decay, st.step, u[i], st.budget + u_budget + 1);
  return e;
}

}  // namespace ref
}  // namespace wgslvk::adafactor
