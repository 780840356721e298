// CPU references of adafactor.wgsl (wgslvk's own Adafactor after forgather's Triton Adafactor notes, with
// torch.optim.Adafactor's definitions): the double-precision step (the algorithm, for a CPU
// training reference to chain) and what each f32 kernel, and the whole chained step, must produce
// with a bound per element. No Vulkan.
//
// The step at t >= 1 for one tensor (torch/optim/_adafactor.py, _single_tensor_adafactor):
//   beta_w = t^beta2_decay                      (one_minus_beta2_t; beta2_t = 1 - t^-0.8)
//   rho    = relative_step ? min(lr, 1/sqrt(t)) : lr      (torch: always min(lr, 1/sqrt(t)))
//   alpha  = rho * (scale_parameter ? max(eps2, rms(w)) : 1)          (torch: always scaled)
//   w     *= 1 - lr * weight_decay              (after alpha: rms(w) is taken before the decay)
//   2-D [R, C] (torch: grad.dim() > 1):
//     row_var = lerp(row_var, sum_j g^2 / C, beta_w)    [R]   (torch: norm(g, dim=-1)^2 / C)
//     col_var = lerp(col_var, sum_i g^2 / R, beta_w)    [C]
//     var_ij  = max(row_var_i * col_var_j / max(mean(row_var), eps1), eps1^2)
//   1-D [n] (and scalars): v = lerp(v, g^2, beta_w); var_i = max(v_i, eps1^2)
//   u = g / sqrt(var);  w -= alpha / max(1, rms(u) / d) * u
// lerp is torch's (weight < 0.5: a + w (b - a), else b - (b - a)(1 - w)). A non-finite gradient
// element counts as 0 everywhere (AdamW's rule in this tree; torch would propagate it).
// The kernels compute u = g * min(rsqrt(row_var_i / max(mean, eps1)) * rsqrt(col_var_j), 1/eps1),
// the same value (rsqrt(max(x, e^2)) = min(rsqrt(x), 1/e)) without a per-element division and
// without underflow in row_var * col_var; rsqrt's argument is clamped to the smallest normal
// (WGSL's inverseSqrt(0) is indeterminate), which changes nothing once the 1/eps1 clamp applies
// (eps1 >= 1e-15, checked).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::adafactor {

constexpr uint32_t kWG = 256;
constexpr uint32_t kTileCols = 256;  // WC: columns per 2-D workgroup tile
constexpr uint32_t kTileRows = 128;  // WR: rows per 2-D workgroup tile

// torch.optim.Adafactor's arguments (defaults: lr 1e-2, beta2_decay -0.8, eps (None -> f32
// epsilon 2^-23, 1e-3), d 1.0, weight_decay 0) plus the seed's switches. relative_step = false is
// the seed's fixed learning rate; it equals torch while t < 1 / lr^2 (10^4 steps at lr 1e-2).
struct Hyper {
  double lr = 1e-2;
  double beta2_decay = -0.8;
  double eps1 = 0x1p-23;
  double eps2 = 1e-3;
  double d = 1.0;  // clip threshold
  double weight_decay = 0.0;
  bool relative_step = false;
  bool scale_parameter = true;
};
// Throws std::invalid_argument naming `who`, the field and its value: lr >= 0, beta2_decay <= 0,
// eps1 in [1e-15, 1), eps2 >= 0, d > 0, weight_decay >= 0, every value finite.
void check_hyper(const Hyper& h, const std::string& who);

// The AfHp uniform, f32 values computed in double (torch casts its scalars the same way).
struct Scalars {
  float beta_w = 1, eps1 = 0, eps1_sq = 0, inv_eps1 = 0, eps2 = 0, d = 1, rho = 0, decay = 1,
        scale_param = 1;
};
Scalars scalars(const Hyper& h, uint64_t t, bool decay);
std::array<float, 12> hp_words(const Scalars& s);

// AfDims. 2-D: the 256 x 128 tile grid (nbx = ceil(C/256), nby = ceil(R/128)) of sq_sums,
// update_rms and apply_2d; nparts = nbx * nby. 1-D: rows 1, cols n, nparts = the ema_1d grid.
struct Dims {
  uint32_t rows = 0, cols = 0, nbx = 0, nby = 0, nparts = 0, n = 0;
  bool factored = false;
};
Dims dims_2d(uint32_t rows, uint32_t cols);
Dims dims_1d(uint32_t n);
std::array<uint32_t, 8> dims_words(const Dims& d);
// ema_1d workgroups: clamp(ceil(n / 1024), 1, 1024) -- n only, so the partial sums' tree is fixed.
uint32_t ema_1d_workgroups(uint64_t n);
// factor_ema workgroups: ceil((R + C) / 256).
uint64_t factor_ema_workgroups(const Dims& d);

namespace ref {

using Expected = wgslvk::UlpExpected;

// ---- double precision: the algorithm -----------------------------------------------------------

struct State {
  std::vector<double> row_var, col_var, v;  // 2-D: R and C; 1-D: n. Zero before step 1.
};
State init_state(const Dims& d);
// One step in double, torch's formulas (var_ij as a product, then the eps1^2 clamp), with the
// uniform's values `s` taken exactly. w and st updated in place.
void step(const Dims& d, const Scalars& s, std::span<double> w, std::span<const double> g,
          State& st);
// rms of u and the step alpha / max(1, rms(u) / d) of the last call (for tests).
struct StepInfo {
  double rms_u = 0, rms_w = 0, alpha = 0, denom = 1;
};
StepInfo last_step_info();

// ---- what the f32 kernels must produce ---------------------------------------------------------
// Bounds: relative error budgets in units of u = 2^-24, derived in reference.cpp from each
// value's operation path (an add of non-negative terms or a product: 1 u; WGSL / Vulkan
// division 2.5 ULP = 5 u; inverseSqrt 2 ULP = 4 u; sqrt 4.5 ULP = 9 u; a sum of non-negative
// terms: 1 u per add on a term's path; lerp of non-negative values: the inputs' worst plus 6 u);
// a budget of r u is r + 1/2 ULPs of the value (ulp(x) >= u |x|, + reference rounding). The
// weights: in ULPs of M = |w * decay| + |step * u| (the two terms of the update).

struct SqSumsExpected {
  Expected row_part, col_part, p_part;  // [nbx][R], [nby][C], [nby * nbx] (empty: no scale_param)
};
SqSumsExpected sq_sums_expected(std::span<const float> g, std::span<const float> w, const Dims& d,
                                bool scale_param);
struct FactorEmaExpected {
  Expected row_var, col_var, rc;
};
FactorEmaExpected factor_ema_expected(std::span<const float> row_part,
                                      std::span<const float> col_part,
                                      std::span<const float> row_var,
                                      std::span<const float> col_var, const Dims& d,
                                      const Scalars& s);
Expected row_rsqrt_expected(std::span<const float> row_var, const Dims& d, const Scalars& s);
Expected update_rms_expected(std::span<const float> g, std::span<const float> rr,
                             std::span<const float> rc, const Dims& d, const Scalars& s);
Expected apply_2d_expected(std::span<const float> w, std::span<const float> g,
                           std::span<const float> rr, std::span<const float> rc,
                           std::span<const float> rms_part, std::span<const float> p_part,
                           const Dims& d, const Scalars& s);
struct Ema1dExpected {
  Expected v, rms_part, p_part;
};
Ema1dExpected ema_1d_expected(std::span<const float> g, std::span<const float> w,
                              std::span<const float> v, const Dims& d, const Scalars& s);
Expected apply_1d_expected(std::span<const float> w, std::span<const float> g,
                           std::span<const float> v, std::span<const float> rms_part,
                           std::span<const float> p_part, const Dims& d, const Scalars& s);

// The whole step (every dispatch chained) from its f32 inputs: the weights and the new state
// (2-D: row_var, col_var; 1-D: v), the budgets of the kernels above composed.
struct StepExpected {
  Expected w, row_var, col_var, v;
  double w_budget = 0;  // the weights' bound in ULPs of M (the largest, for reports)
};
StepExpected step_expected(std::span<const float> w, std::span<const float> g,
                           std::span<const float> row_var, std::span<const float> col_var,
                           std::span<const float> v, const Dims& d, const Scalars& s);

}  // namespace ref
}  // namespace wgslvk::adafactor
