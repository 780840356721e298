// Golden cases of adafactor.wgsl (wgslvk's own Adafactor). Per kernel: a randomized case from
// that kernel's own inputs. The whole step (every dispatch of one tensor chained in one case, as
// MultiTensorAdafactor records it): shapes 1 x n, n x 1, odd sizes over several tiles both ways,
// zero rows and a zero column, NaN/Inf gradients (counted as 0), clipping on (d = 0.25) and off
// (d = 1e30), weight decay on and off, scale_parameter off, a later step (t = 7: lerp's other
// branch, non-zero state), the 1-D path (and a scalar). Expected values and bounds:
// wgsl_ports/adafactor/reference.hpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "adafactor/reference.hpp"
#include "adafactor/step_case.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_apply_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_apply_2d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_ema_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_factor_ema.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_row_rsqrt.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_sq_sums.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_update_rms.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

namespace af = wgslvk::adafactor;
namespace aref = wgslvk::adafactor::ref;

void check(CaseBuilder& b, const std::string& buf, const aref::Expected& e,
           const std::string& reason) {
  b.check_expected(buf, e, 0, reason, "");
}

// Gradients: uniform(-1, 1) times a per-row scale 2^k, k in [-3, 3], times a per-column scale
// 2^j, j in [-2, 2]: the factors differ along both axes.
std::vector<float> grads(Rng& r, uint32_t rows, uint32_t cols) {
  std::vector<double> rs(rows), cs(cols);
  for (auto& x : rs) x = std::ldexp(1.0, int(r.below(7)) - 3);
  for (auto& x : cs) x = std::ldexp(1.0, int(r.below(5)) - 2);
  std::vector<float> g(uint64_t(rows) * cols);
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t j = 0; j < cols; ++j)
      g[uint64_t(i) * cols + j] = float(rs[i] * cs[j] * (2 * r.unit() - 1));
  return g;
}
std::vector<float> uniform(Rng& r, uint64_t n, double lo, double hi) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.uniform(lo, hi);
  return v;
}

struct StepSpec {
  uint32_t rows = 0, cols = 0;  // factored when rows > 0 (rows x cols), else 1-D of cols
  af::Hyper h;
  uint64_t t = 1;
  bool zero_rows = false, nonfinite = false, prior_state = false;
};

Case step_case(uint64_t seed, const StepSpec& sp, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  const bool fac = sp.rows > 0;
  const af::Dims d = fac ? af::dims_2d(sp.rows, sp.cols) : af::dims_1d(sp.cols);
  const af::Scalars sc = af::scalars(sp.h, sp.t, true);
  auto g = grads(r, fac ? sp.rows : 1, sp.cols);
  auto w = uniform(r, d.n, -0.5, 0.5);
  if (sp.zero_rows && fac) {
    for (uint32_t i = 0; i < sp.rows; i += 5)
      std::fill_n(g.begin() + uint64_t(i) * sp.cols, sp.cols, 0.0f);
    for (uint32_t i = 0; i < sp.rows; ++i)
      g[uint64_t(i) * sp.cols + sp.cols / 2] = 0.0f;  // a zero column
  }
  if (sp.nonfinite) {
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity()};
    for (int k = 0; k < 9; ++k) g[r.below(d.n)] = bad[k % 3];
  }
  std::vector<float> rv, cv, v;
  if (fac) {
    rv.assign(d.rows, 0.0f);
    cv.assign(d.cols, 0.0f);
    if (sp.prior_state) {
      for (auto& x : rv) x = float(0.3 * r.unit() + 0.01);
      for (auto& x : cv) x = float(0.3 * r.unit() + 0.01);
    }
  } else {
    v.assign(d.n, 0.0f);
    if (sp.prior_state)
      for (auto& x : v) x = float(0.3 * r.unit());
  }
  auto e = aref::step_expected(w, g, rv, cv, v, d, sc);
  b.input("w", DType::F32, w);
  b.input("g", DType::F32, g);
  const std::string wr =
      "w * decay - step * u within " + std::to_string(int(std::ceil(e.w_budget))) +
      " ULPs of |w * decay| + |step * u| (the composed budgets of every kernel's "
      "rounding, reference.hpp)";
  af::add_step(b, d, sc, rv, cv, v);
  check(b, "w", e.w, wr);
  if (fac) {
    check(b, "row_var", e.row_var,
          "lerp(row_var, rowmean(g^2), t^-0.8) within nbx + 33.5 ULPs of itself");
    check(b, "col_var", e.col_var,
          "lerp(col_var, colmean(g^2), t^-0.8) within nby + 27.5 ULPs of itself");
  } else {
    check(b, "v", e.v, "lerp(v, g^2, t^-0.8) within 7.5 ULPs of itself");
  }
  return b.c;
}

af::Hyper hyper(double d = 1.0, double wd = 0.0, bool scale = true) {
  af::Hyper h;
  h.d = d;
  h.weight_decay = wd;
  h.scale_parameter = scale;
  return h;
}

Case step_odd(uint64_t s) {
  Rng r(s ^ 0xaf1);
  StepSpec sp{129 + r.below(8), 257 + r.below(8), hyper(), 1};
  return step_case(s, sp,
                   "one step, " + std::to_string(sp.rows) + " x " + std::to_string(sp.cols) +
                       " (several tiles both ways, partial tiles), t = 1");
}
Case step_1xn(uint64_t s) {
  return step_case(s, {1, 777, hyper(), 1}, "1 x 777: one row (mean(row_var) = row_var)");
}
Case step_nx1(uint64_t s) {
  return step_case(s, {900, 1, hyper(), 1}, "900 x 1: one column, 8 row tiles");
}
Case step_zero_rows(uint64_t s) {
  StepSpec sp{131, 97, hyper(), 1};
  sp.zero_rows = true;
  return step_case(
      s, sp,
      "every 5th row and one column of zero gradient: row_var 0, rsqrt clamped, u = 0 there");
}
Case step_nonfinite(uint64_t s) {
  StepSpec sp{70, 90, hyper(), 1};
  sp.nonfinite = true;
  return step_case(
      s, sp,
      "NaN, +Inf, -Inf gradient elements: counted as 0 in the sums and the update (AdamW's rule)");
}
Case step_clip_on(uint64_t s) {
  return step_case(s, {64, 200, hyper(0.25), 1},
                   "clip threshold d = 0.25: rms(u) ~ 1, the step divided by rms(u) / d");
}
Case step_clip_off(uint64_t s) {
  StepSpec sp{64, 200, hyper(1e30), 3};
  sp.prior_state = true;
  return step_case(s, sp, "d = 1e30: no clipping (denominator 1), t = 3 with prior state");
}
Case step_wd(uint64_t s) {
  StepSpec sp{50, 333, hyper(1.0, 0.5), 2};
  sp.prior_state = true;
  return step_case(s, sp, "weight decay 0.5 (w *= 1 - lr * wd = 0.995 before the update), t = 2");
}
Case step_no_scale(uint64_t s) {
  StepSpec sp{40, 130, hyper(1.0, 0.0, false), 1};
  sp.h.lr = 1e-3;
  return step_case(s, sp, "scale_parameter off: alpha = lr (the seed's fixed step), lr 1e-3");
}
Case step_late(uint64_t s) {
  StepSpec sp{100, 200, hyper(), 7};
  sp.prior_state = true;
  sp.h.relative_step = true;
  sp.h.lr = 0.5;
  return step_case(s, sp,
                   "t = 7 (beta_w = 7^-0.8 < 0.5: lerp from the start), prior state, relative_step "
                   "(rho = min(0.5, 1/sqrt(7)))");
}
Case step_1d(uint64_t s) {
  Rng r(s ^ 0xaf2);
  StepSpec sp{0, 3000 + r.below(3000), hyper(), 1};
  return step_case(s, sp, "1-D, n = " + std::to_string(sp.cols) + ": full second moment");
}
Case step_1d_mixed(uint64_t s) {
  StepSpec sp{0, 9001, hyper(0.5, 0.1), 4};
  sp.prior_state = true;
  sp.nonfinite = true;
  return step_case(s, sp,
                   "1-D n = 9001 (9 workgroups of partials), t = 4, prior state, weight decay 0.1, "
                   "d = 0.5, NaN/Inf gradients");
}
Case step_scalar(uint64_t s) {
  return step_case(s, {0, 1, hyper(), 1}, "a scalar (n = 1): u = g / |g| = +-1");
}

// ---- the batched step (adafactor_multi.wgsl): every phase over a multi-tensor layout --------------

struct MultiTensorSpec {
  uint32_t rows, cols;  // rows 0: 1-D of cols
  bool decay;
};
struct MultiSpec {
  std::vector<MultiTensorSpec> tensors;
  af::Hyper h;
  uint64_t t = 1;
  bool nonfinite = false, prior_state = false;
};

void push_expected(aref::Expected& all, const aref::Expected& e) {
  all.value.insert(all.value.end(), e.value.begin(), e.value.end());
  all.magnitude.insert(all.magnitude.end(), e.magnitude.begin(), e.magnitude.end());
  all.bound.insert(all.bound.end(), e.bound.begin(), e.bound.end());
}

// One batched step over the tensors, packed back to back in w / g / state / part / fac (a case
// needs no alignment: every binding is a whole buffer), the two AfTensor tables as the host
// builds them (MultiTensorAdafactor::build_batched), all seven dispatches in the host's order.
// Expected: each tensor's whole-step reference (step_expected, the per-tensor kernels' bounds:
// the batched kernels compute the same bits, tested in tests/adafactor).
Case multi_step_case(uint64_t seed, const MultiSpec& sp, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = "batched step (adafactor_multi.wgsl), " + what;
  std::vector<float> w, g, state;
  std::vector<uint32_t> tab2, tab1;
  uint64_t part = 0, fac = 0, tiles = 0, fe = 0, e1 = 0, a1 = 0, n2 = 0, n1 = 0;
  aref::Expected ew, es;
  double budget = 0;
  const af::Scalars hp = af::scalars(sp.h, sp.t, true);
  for (const auto& ts : sp.tensors) {
    const bool fac2 = ts.rows > 0;
    const af::Dims d = fac2 ? af::dims_2d(ts.rows, ts.cols) : af::dims_1d(ts.cols);
    const af::Scalars sc = af::scalars(sp.h, sp.t, ts.decay);
    auto gt = grads(r, fac2 ? ts.rows : 1, ts.cols);
    auto wt = uniform(r, d.n, -0.5, 0.5);
    if (sp.nonfinite) {
      const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity()};
      for (int k = 0; k < 3; ++k) gt[r.below(d.n)] = bad[k];
    }
    std::vector<float> rv, cv, v;
    auto st = [&](uint64_t n, bool row) {
      std::vector<float> x(n, 0.0f);
      if (sp.prior_state)
        for (auto& e : x) e = float(0.3 * r.unit() + (row || fac2 ? 0.01 : 0.0));
      return x;
    };
    if (fac2)
      rv = st(d.rows, true), cv = st(d.cols, false);
    else
      v = st(d.n, false);
    auto e = aref::step_expected(wt, gt, rv, cv, v, d, sc);
    budget = std::max(budget, e.w_budget);
    push_expected(ew, e.w);
    std::array<uint32_t, 20> words{};
    words[2] = ts.decay ? 1 : 0;
    words[3] = uint32_t(w.size());
    words[4] = d.rows, words[5] = d.cols, words[6] = d.nbx, words[7] = d.nby, words[8] = d.nparts,
    words[9] = d.n;
    w.insert(w.end(), wt.begin(), wt.end());
    g.insert(g.end(), gt.begin(), gt.end());
    if (fac2) {
      words[0] = uint32_t(tiles), words[1] = uint32_t(fe);
      tiles += uint64_t(d.nbx) * d.nby;
      fe += af::factor_ema_workgroups(d);
      words[10] = uint32_t(state.size());
      state.insert(state.end(), rv.begin(), rv.end());
      words[11] = uint32_t(state.size());
      state.insert(state.end(), cv.begin(), cv.end());
      push_expected(es, e.row_var);
      push_expected(es, e.col_var);
      words[12] = uint32_t(part);
      part += uint64_t(d.nbx) * d.rows;
      words[13] = uint32_t(part);
      part += uint64_t(d.nby) * d.cols;
      words[16] = uint32_t(fac);
      fac += d.rows;
      words[17] = uint32_t(fac);
      fac += d.cols;
    } else {
      words[0] = uint32_t(e1), words[1] = uint32_t(a1);
      e1 += d.nparts;
      a1 += (d.n + af::kWG - 1) / af::kWG;
      words[10] = uint32_t(state.size());
      state.insert(state.end(), v.begin(), v.end());
      push_expected(es, e.v);
    }
    words[14] = uint32_t(part);
    part += d.nparts;
    words[15] = uint32_t(part);
    part += d.nparts;
    auto& tab = fac2 ? tab2 : tab1;
    tab.insert(tab.end(), words.begin(), words.end());
    ++(fac2 ? n2 : n1);
  }
  b.input("w", DType::F32, w);
  b.input("g", DType::F32, g);
  b.input("state", DType::F32, state);
  b.output("part", DType::F32, std::max<uint64_t>(part, 1));
  b.output("fac", DType::F32, std::max<uint64_t>(fac, 1));
  if (n2) b.input("tab2", DType::U32, tab2);
  if (n1) b.input("tab1", DType::U32, tab1);
  // A multi-tensor kernel by its generated header: its table, its AfHp, then its buffers, each at
  // its named slot (a slot of another kernel does not compile).
  auto k = [&]<class K, class H>(
               K, const BindingSlot<K, void>& tab_slot, const char* tab,
               const BindingSlot<K, H>& hp_slot,
               std::initializer_list<std::pair<BindingSlot<K, float>, const char*>> bufs,
               uint64_t wgs) {
    auto& x = b.dispatch(K{});
    CaseBuilder::bind(x, tab_slot, tab);
    af::bind_uniform_array(x, hp_slot, std::bit_cast<H>(af::hp_words(hp)));
    for (const auto& [slot, name] : bufs) CaseBuilder::bind(x, slot, name);
    x.workgroups_1d = wgs;
  };
  namespace kaf = wgslvk::kernels::adafactor;
  if (n2) {
    namespace m = kaf::adafactor_multi_sq_sums;
    k(m::Kernel{}, m::binding::ms_tab, "tab2", m::binding::ms_hp,
      {{m::binding::ms_g, "g"}, {m::binding::ms_w, "w"}, {m::binding::ms_part, "part"}}, tiles);
  }
  if (n1) {
    namespace m = kaf::adafactor_multi_ema_1d;
    k(m::Kernel{}, m::binding::me_tab, "tab1", m::binding::me_hp,
      {{m::binding::me_g, "g"},
       {m::binding::me_w, "w"},
       {m::binding::me_state, "state"},
       {m::binding::me_part, "part"}},
      e1);
  }
  if (n2) {
    {
      namespace m = kaf::adafactor_multi_factor_ema;
      k(m::Kernel{}, m::binding::mf_tab, "tab2", m::binding::mf_hp,
        {{m::binding::mf_part, "part"},
         {m::binding::mf_state, "state"},
         {m::binding::mf_fac, "fac"}},
        fe);
    }
    {
      namespace m = kaf::adafactor_multi_row_rsqrt;
      k(m::Kernel{}, m::binding::mr_tab, "tab2", m::binding::mr_hp,
        {{m::binding::mr_state, "state"}, {m::binding::mr_fac, "fac"}}, n2);
    }
    {
      namespace m = kaf::adafactor_multi_update_rms;
      k(m::Kernel{}, m::binding::mu_tab, "tab2", m::binding::mu_hp,
        {{m::binding::mu_g, "g"}, {m::binding::mu_fac, "fac"}, {m::binding::mu_part, "part"}},
        tiles);
    }
    {
      namespace m = kaf::adafactor_multi_apply_2d;
      k(m::Kernel{}, m::binding::ma_tab, "tab2", m::binding::ma_hp,
        {{m::binding::ma_w, "w"},
         {m::binding::ma_g, "g"},
         {m::binding::ma_fac, "fac"},
         {m::binding::ma_part, "part"}},
        tiles);
    }
  }
  if (n1) {
    namespace m = kaf::adafactor_multi_apply_1d;
    k(m::Kernel{}, m::binding::mb_tab, "tab1", m::binding::mb_hp,
      {{m::binding::mb_w, "w"},
       {m::binding::mb_g, "g"},
       {m::binding::mb_state, "state"},
       {m::binding::mb_part, "part"}},
      a1);
  }
  check(b, "w", ew,
        "each tensor's w * decay - step * u within its composed budget (worst " +
            std::to_string(int(std::ceil(budget))) +
            " ULPs) of |w * decay| + |step * u| (reference.hpp step_expected)");
  check(b, "state", es,
        "each tensor's row_var / col_var (nbx or nby + 33.5 ULPs) or v (7.5 ULPs) of itself");
  return b.c;
}

std::vector<MultiTensorSpec> mixed_layout() {
  return {{40, 300, true},   // 2 column tiles
          {0, 777, false},   // 1-D
          {129, 257, true},  // 2 x 2 tiles, one row and one column over
          {1, 1000, false},  // 1 x n
          {1000, 1, true},   // n x 1: 8 row tiles
          {0, 3001, true},   // 3 ema_1d workgroups of 256 threads: the grid stride
          {0, 1, false},     // a scalar
          {64, 64, false}};
}
// smaller (the golden folder's size): one multi-tile 2-D tensor, 1-D, 1 x n, n x 1, a scalar
std::vector<MultiTensorSpec> small_layout() {
  return {{40, 300, true}, {0, 777, false}, {1, 300, false},
          {300, 1, true},  {0, 1, false},   {20, 20, false}};
}
Case multi_mixed(uint64_t s) {
  MultiSpec sp{mixed_layout(), hyper(1.0, 0.1), 1};
  return multi_step_case(
      s, sp, "8 tensors (2-D, 1-D, 1 x n, n x 1, odd, scalar), weight decay 0.1 on some, t = 1");
}
Case multi_late(uint64_t s) {
  MultiSpec sp{small_layout(), hyper(1.0, 0.1), 7};
  sp.prior_state = true;
  sp.h.relative_step = true;
  sp.h.lr = 0.5;
  return multi_step_case(s, sp, "small layout, t = 7, prior state, relative_step");
}
Case multi_nonfinite(uint64_t s) {
  MultiSpec sp{mixed_layout(), hyper(), 1};
  sp.nonfinite = true;
  return multi_step_case(
      s, sp, "mixed layout, NaN/+Inf/-Inf gradient elements in every tensor (counted as 0)");
}
Case multi_clip_on(uint64_t s) {
  return multi_step_case(s, {small_layout(), hyper(0.25), 1},
                         "small layout, clip threshold d = 0.25");
}
Case multi_no_scale(uint64_t s) {
  MultiSpec sp{small_layout(), hyper(1.0, 0.2, false), 2};
  sp.prior_state = true;
  sp.h.lr = 1e-3;
  return multi_step_case(s, sp,
                         "small layout, scale_parameter off, lr 1e-3, weight decay 0.2, t = 2");
}
Case multi_1d_only(uint64_t s) {
  MultiSpec sp{
      {{0, 513, true}, {0, 9001, false}, {0, 1, true}, {0, 2048, false}}, hyper(0.5, 0.1), 4};
  sp.prior_state = true;
  return multi_step_case(s, sp, "1-D tensors only (no 2-D phases), t = 4, prior state, d = 0.5");
}
Case multi_clip_off(uint64_t s) {
  MultiSpec sp{{{300, 40, true}, {7, 513, false}, {0, 100, true}}, hyper(1e30), 3};
  sp.prior_state = true;
  return multi_step_case(s, sp, "3 tensors, d = 1e30 (no clipping), t = 3, prior state");
}

// ---- one kernel each, from its own random inputs ----------------------------------------------

af::Dims rand_dims(Rng& r) { return af::dims_2d(1 + r.below(200), 1 + r.below(400)); }
af::Scalars rand_scalars(Rng& r, bool decay) {
  af::Hyper h;
  h.d = r.below(2) ? 1.0 : 0.25;
  h.weight_decay = 0.1;
  return af::scalars(h, 1 + r.below(20), decay);
}

Case k_sq_sums(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = rand_dims(r);
  const af::Scalars sc = rand_scalars(r, true);
  b.c.description = "row/column partial sums of g^2 and the w^2 partials, " +
                    std::to_string(d.rows) + " x " + std::to_string(d.cols);
  auto g = grads(r, d.rows, d.cols);
  auto w = uniform(r, d.n, -1, 1);
  auto e = aref::sq_sums_expected(g, w, d, true);
  b.input("g", DType::F32, g);
  b.input("w", DType::F32, w);
  b.output("row_part", DType::F32, uint64_t(d.nbx) * d.rows);
  b.output("col_part", DType::F32, uint64_t(d.nby) * d.cols);
  b.output("p_part", DType::F32, d.nparts);
  auto& k = af::sq_sums_dispatch(b, d, sc);
  k.workgroups = std::array<uint32_t, 3>{d.nbx, d.nby, 1};
  check(b, "row_part", e.row_part,
        "sum of g^2 over a 256-column tile: 21 adds/products on a term's path");
  check(b, "col_part", e.col_part, "sum of g^2 over a 128-row tile: 15 on a term's path");
  check(b, "p_part", e.p_part,
        "sum of w^2 over a tile: 137 on a term's path (128 per thread, tree 8)");
  return b.c;
}

Case k_factor_ema(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = rand_dims(r);
  const af::Scalars sc = rand_scalars(r, true);
  b.c.description = "finish the sums, EMA of row/column state (beta_w " +
                    std::to_string(sc.beta_w) + "), rsqrt(col_var), " + std::to_string(d.rows) +
                    " x " + std::to_string(d.cols);
  auto rp = uniform(r, uint64_t(d.nbx) * d.rows, 0, 50),
       cp = uniform(r, uint64_t(d.nby) * d.cols, 0, 30);
  auto rv = uniform(r, d.rows, 0, 0.5), cv = uniform(r, d.cols, 0, 0.5);
  rv[0] = 0.0f;
  rp[0] = 0.0f;  // a zero row: row_var stays 0
  auto e = aref::factor_ema_expected(rp, cp, rv, cv, d, sc);
  b.input("row_part", DType::F32, rp);
  b.input("col_part", DType::F32, cp);
  b.input("row_var", DType::F32, rv);
  b.input("col_var", DType::F32, cv);
  b.output("rc", DType::F32, d.cols);
  auto& k = af::factor_ema_dispatch(b, d, sc);
  k.workgroups_1d = af::factor_ema_workgroups(d);
  check(b, "row_var", e.row_var, "nbx adds, / C, lerp: nbx + 12.5 ULPs");
  check(b, "col_var", e.col_var, "nby adds, / R, lerp: nby + 12.5 ULPs");
  check(b, "rc", e.rc, "inverseSqrt (2 ULP) of col_var: (nby + 12) / 2 + 4.5 ULPs");
  return b.c;
}

Case k_row_rsqrt(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = af::dims_2d(1 + r.below(3000), 7);
  const af::Scalars sc = rand_scalars(r, true);
  b.c.description = "mean(row_var) in one workgroup, rsqrt(row_var / max(mean, eps1)), R = " +
                    std::to_string(d.rows);
  auto rv = uniform(r, d.rows, 0, 2);
  for (uint32_t i = 0; i < d.rows; i += 7) rv[i] = 0.0f;  // zero rows: clamped to TINY
  auto e = aref::row_rsqrt_expected(rv, d, sc);
  b.input("row_var", DType::F32, rv);
  b.output("rr", DType::F32, d.rows);
  auto& k = af::row_rsqrt_dispatch(b, d, sc);
  k.workgroups_1d = 1;
  check(b, "rr", e,
        "the mean's adds, two divisions, inverseSqrt: (ceil(R/256) + 19) / 2 + 4.5 ULPs");
  return b.c;
}

Case k_update_rms(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = rand_dims(r);
  const af::Scalars sc = rand_scalars(r, true);
  b.c.description = "partial sums of u^2, u = g * min(rr * rc, 1/eps1), " + std::to_string(d.rows) +
                    " x " + std::to_string(d.cols) + ", some factors clamped";
  auto g = grads(r, d.rows, d.cols);
  auto rr = uniform(r, d.rows, 0.25, 4), rc = uniform(r, d.cols, 1, 100);
  rc[0] = 1e20f;  // clamped to 1/eps1
  auto e = aref::update_rms_expected(g, rr, rc, d, sc);
  b.input("g", DType::F32, g);
  b.input("rr", DType::F32, rr);
  b.input("rc", DType::F32, rc);
  b.output("rms_part", DType::F32, d.nparts);
  auto& k = af::update_rms_dispatch(b, d, sc);
  k.workgroups = std::array<uint32_t, 3>{d.nbx, d.nby, 1};
  check(b, "rms_part", e, "u^2 (5), min(R, 128) per-thread adds, tree 8");
  return b.c;
}

Case k_apply_2d(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = rand_dims(r);
  const af::Scalars sc = rand_scalars(r, r.below(2) == 0);
  b.c.description = "clip scale from the partials (redundant per workgroup), decay " +
                    std::to_string(sc.decay) + ", d " + std::to_string(sc.d) + ", update, " +
                    std::to_string(d.rows) + " x " + std::to_string(d.cols);
  auto w = uniform(r, d.n, -1, 1);
  auto g = grads(r, d.rows, d.cols);
  auto rr = uniform(r, d.rows, 0.25, 4), rc = uniform(r, d.cols, 1, 10);
  const double mean_u2 = 2.0;  // partials consistent with rms(u) ~ sqrt(2): clipping at d < 1.4
  auto rp = uniform(r, d.nparts, 0, 2 * mean_u2 * d.n / d.nparts);
  auto pp = uniform(r, d.nparts, 0, 2.0 / 3 * d.n / d.nparts);
  auto e = aref::apply_2d_expected(w, g, rr, rc, rp, pp, d, sc);
  b.input("w", DType::F32, w);
  b.input("g", DType::F32, g);
  b.input("rr", DType::F32, rr);
  b.input("rc", DType::F32, rc);
  b.input("rms_part", DType::F32, rp);
  b.input("p_part", DType::F32, pp);
  auto& k = af::apply_2d_dispatch(b, d, sc);
  k.workgroups = std::array<uint32_t, 3>{d.nbx, d.nby, 1};
  check(
      b, "w", e,
      "w * decay - step * u within the step's and u's budgets + 2.5 ULPs of |w decay| + |step u|");
  return b.c;
}

Case k_ema_1d(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = af::dims_1d(1 + r.below(12000));
  const af::Scalars sc = rand_scalars(r, true);
  b.c.description =
      "1-D: v = lerp(v, g^2, beta_w), partial sums of u^2 and w^2, n = " + std::to_string(d.n);
  auto g = grads(r, 1, d.n);
  auto w = uniform(r, d.n, -1, 1);
  auto v = uniform(r, d.n, 0, 0.3);
  auto e = aref::ema_1d_expected(g, w, v, d, sc);
  b.input("g", DType::F32, g);
  b.input("w", DType::F32, w);
  b.input("v", DType::F32, v);
  b.output("rms_part", DType::F32, d.nparts);
  b.output("p_part", DType::F32, d.nparts);
  auto& k = af::ema_1d_dispatch(b, d, sc);
  k.workgroups_1d = d.nparts;
  check(b, "v", e.v, "g^2 and lerp: 7.5 ULPs");
  check(b, "rms_part", e.rms_part, "u^2 (18), ceil(n / grid) adds per thread, tree 8");
  check(b, "p_part", e.p_part, "w^2 (1), ceil(n / grid) adds per thread, tree 8");
  return b.c;
}

Case k_apply_1d(uint64_t s) {
  Rng r(s);
  CaseBuilder b;
  const af::Dims d = af::dims_1d(1 + r.below(12000));
  const af::Scalars sc = rand_scalars(r, r.below(2) == 0);
  b.c.description = "1-D apply: clip scale from the partials, decay " + std::to_string(sc.decay) +
                    ", n = " + std::to_string(d.n);
  auto w = uniform(r, d.n, -1, 1);
  auto g = grads(r, 1, d.n);
  auto v = uniform(r, d.n, 0.01, 0.3);
  auto rp = uniform(r, d.nparts, 0, 4.0 * d.n / d.nparts);
  auto pp = uniform(r, d.nparts, 0, 2.0 / 3 * d.n / d.nparts);
  auto e = aref::apply_1d_expected(w, g, v, rp, pp, d, sc);
  b.input("w", DType::F32, w);
  b.input("g", DType::F32, g);
  b.input("v", DType::F32, v);
  b.input("rms_part", DType::F32, rp);
  b.input("p_part", DType::F32, pp);
  auto& k = af::apply_1d_dispatch(b, d, sc);
  k.workgroups_1d = (d.n + af::kWG - 1) / af::kWG;
  check(
      b, "w", e,
      "w * decay - step * u within the step's and u's budgets + 2.5 ULPs of |w decay| + |step u|");
  return b.c;
}

}  // namespace

void register_adafactor(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/adafactor/cases.cpp";
  namespace kaf = wgslvk::kernels::adafactor;
  auto add = [&](std::string_view k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string(k), n, seed, rnd, f, src});
  };
  add(kaf::adafactor_sq_sums::name, "basic", 13001, true, k_sq_sums);
  add(kaf::adafactor_factor_ema::name, "basic", 13002, true, k_factor_ema);
  add(kaf::adafactor_row_rsqrt::name, "basic", 13003, true, k_row_rsqrt);
  add(kaf::adafactor_update_rms::name, "basic", 13004, true, k_update_rms);
  add(kaf::adafactor_apply_2d::name, "basic", 13005, true, k_apply_2d);
  add(kaf::adafactor_apply_2d::name, "step_odd", 13011, true, step_odd);
  add(kaf::adafactor_apply_2d::name, "step_1xn", 13012, false, step_1xn);
  add(kaf::adafactor_apply_2d::name, "step_nx1", 13013, false, step_nx1);
  add(kaf::adafactor_apply_2d::name, "step_zero_rows", 13014, false, step_zero_rows);
  add(kaf::adafactor_apply_2d::name, "step_nonfinite", 13015, false, step_nonfinite);
  add(kaf::adafactor_apply_2d::name, "step_clip_on", 13016, false, step_clip_on);
  add(kaf::adafactor_apply_2d::name, "step_clip_off", 13017, false, step_clip_off);
  add(kaf::adafactor_apply_2d::name, "step_weight_decay", 13018, false, step_wd);
  add(kaf::adafactor_apply_2d::name, "step_no_scale_parameter", 13019, false, step_no_scale);
  add(kaf::adafactor_apply_2d::name, "step_t7_relative_step", 13020, false, step_late);
  add(kaf::adafactor_ema_1d::name, "basic", 13006, true, k_ema_1d);
  add(kaf::adafactor_apply_1d::name, "basic", 13007, true, k_apply_1d);
  add(kaf::adafactor_apply_1d::name, "step_1d", 13021, true, step_1d);
  add(kaf::adafactor_apply_1d::name, "step_1d_mixed", 13022, false, step_1d_mixed);
  add(kaf::adafactor_apply_1d::name, "step_scalar", 13023, false, step_scalar);
  // the batched kernels: each case is a whole batched step (all seven phases)
  add(kaf::adafactor_multi_sq_sums::name, "step_mixed", 13031, true, multi_mixed);
  add(kaf::adafactor_multi_factor_ema::name, "step_t7_relative_step", 13032, false, multi_late);
  add(kaf::adafactor_multi_row_rsqrt::name, "step_nonfinite", 13033, false, multi_nonfinite);
  add(kaf::adafactor_multi_update_rms::name, "step_clip_on", 13034, false, multi_clip_on);
  add(kaf::adafactor_multi_apply_2d::name, "step_no_scale_parameter", 13035, false, multi_no_scale);
  add(kaf::adafactor_multi_ema_1d::name, "step_1d_only", 13036, false, multi_1d_only);
  add(kaf::adafactor_multi_apply_1d::name, "step_clip_off", 13037, false, multi_clip_off);
}
WGSLVK_REGISTER_GENERATORS(register_adafactor);

}  // namespace wgslvk::validate
