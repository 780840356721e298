// Shared by cases.cpp (golden generators) and bench.cpp (sweeps): inputs from the portable RNG,
// the AttnParams uniform of a shape, and an f32 output's expected values with per-element
// bounds in ULP of a magnitude (from reference.hpp's error formulas), with the reasons.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "attention/reference.hpp"
#include "wgslvk/kernels/attention/attn_dqkv.hpp"
#include "wgslvk/kernels/attention/attn_dscores.hpp"
#include "wgslvk/kernels/attention/attn_dscores_fa2.hpp"
#include "wgslvk/kernels/attention/attn_dsum.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2_wide.hpp"
#include "wgslvk/kernels/attention/attn_scores.hpp"
#include "wgslvk/kernels/attention/attn_softmax.hpp"
#include "wgslvk/kernels/attention/attn_weighted_sum.hpp"
#include "wgslvk/validate/case_builder.hpp"
#include "wgslvk/validate/compare.hpp"

namespace wgslvk::attention::cases {

using namespace wgslvk::validate;

// The kernels, by their generated headers (wgslvk/kernels/attention/<entry>.hpp).
namespace ka = wgslvk::kernels::attention;
namespace sc = ka::attn_scores;
namespace sm = ka::attn_softmax;
namespace ws = ka::attn_weighted_sum;
namespace fwd = ka::attn_fwd_fa2;  // attn_fwd_fa2_wide has its bindings
namespace dsu = ka::attn_dsum;
namespace dsc = ka::attn_dscores;
namespace dq = ka::attn_dqkv;
namespace bwd = ka::attn_dscores_fa2;  // every FA2 backward kernel has its bindings

inline const float kPoison = std::bit_cast<float>(kPoison32);

// Inputs: normal-ish values from the portable RNG (sum of uniforms), never 0.
inline std::vector<float> randn(Rng& r, uint64_t n, double scale = 1.0) {
  std::vector<float> v(n);
  for (auto& x : v) {
    double y = (r.unit() + r.unit() + r.unit() + r.unit() - 2.0) * 1.7320508 * scale;
    x = float(y == 0.0 ? scale : y);
  }
  return v;
}
// Integers in [-k, k] \ {0}: exact dot products in f32 (hd k^2 < 2^24), large scores.
inline std::vector<float> randi(Rng& r, uint64_t n, uint32_t k) {
  std::vector<float> v(n);
  for (auto& x : v) {
    int y = int(r.below(2 * k + 1)) - int(k);
    x = float(y == 0 ? 1 : y);
  }
  return v;
}
// qkv with v scaled by 0.01 (large-logit cases keep the values O(1)).
inline void shrink_v(const Shape& s, std::vector<float>& qkv) {
  for (uint64_t t = 0; t < s.rows(); ++t)
    for (uint64_t c = 0; c < s.d(); ++c) qkv[t * 3 * s.d() + 2 * s.d() + c] *= 0.01f;
}

// The AttnParams uniform of shape `s`, as kernel K's generated header declares it (every
// attention kernel has its own copy of the struct, with the same layout): bound with
// CaseBuilder::bind_uniform(d, K's params slot, attn_params<K's AttnParams>(s)).
template <class P>
P attn_params(const Shape& s) {
  return P{.batch = s.batch,
           .seq = s.seq,
           .heads = s.heads,
           .head_dim = s.head_dim,
           .scale = float(s.scale)};
}
// Binds kernel K's AttnParams slot to shape `s`'s values (a slot of another type does not compile).
template <class K, class P>
void bind_params(DispatchSpec& d, const BindingSlot<K, P>& slot, const Shape& s) {
  CaseBuilder::bind_uniform(d, slot, attn_params<P>(s));
}

// An f32 output: expected values and per-element bounds in ULP of a magnitude; elements not set
// stay poison, checked with bound 0 (an expected NaN matches only a NaN: the poison must stay).
struct Out {
  std::vector<float> expected, mag, bound;
  explicit Out(uint64_t n) : expected(n, kPoison), mag(n, 0.0f), bound(n, 0.0f) {}
  void set(uint64_t i, double value, double err, double magnitude) {
    const float e = float(value);
    expected[i] = e;
    mag[i] = float(magnitude);
    if (double(mag[i]) < magnitude) mag[i] = std::nextafter(mag[i], INFINITY);
    const double b = err / ulp_at(DType::F32, std::max(std::fabs(double(e)), double(mag[i])));
    bound[i] = float(b);
    if (double(bound[i]) < b) bound[i] = std::nextafter(bound[i], INFINITY);
  }
  void set_all(std::span<const double> v, std::span<const double> err, std::span<const double> m) {
    for (uint64_t i = 0; i < v.size(); ++i) set(i, v[i], err[i], m[i]);
  }
  void check(CaseBuilder& b, const std::string& name, const std::string& why) const {
    auto& k = b.check_ulp(name, Array::of(DType::F32, expected), 0, why);
    CaseBuilder::per_element_bound(k, bound);
    CaseBuilder::magnitude(k, mag);
  }
};

inline const char* kWhyOut =
    "forward_bounds: sum_j (P_ij w_ij + 2^-126)|v_jc| + M (W_i + 2 sigma_i + 7u), w = score error "
    "(hd+1)u S_ij + exp error (7(nb+1) + 5(m - s_ij))u; in ULP of M = sum_j P_ij |v_jc|";
inline const char* kWhyLse =
    "forward_bounds: W_i + sigma_i + 8u + 6u log l + 2u(|m| + log l) (scores, exp, l's sum, log "
    "abs 2^-21 in [0.5, 2] else 3 ULP, the add); in ULP of |m| + log l";
inline const char* kWhyAtt =
    "forward_bounds att_err: P_ij (w_ij + W_i + sigma_i + 7u) + 2^-126 (score and exp errors, the "
    "row sum, the 2.5 ULP division); in ULP of P_ij; exact 0.0 above the diagonal";
inline const char* kWhyDsum =
    "backward_bounds: sum_c |dout| out_err + (hd+1)u sum_c |dout out|; in ULP of "
    "sum_c |dout out|";
inline const char* kWhyDscores =
    "backward_bounds: dP (|G| + dG) + P (3u |G| + dG), G = dP - dsum, dG = hd u sum|dout v| + "
    "dsum's error, dP = P's error (att_err or recomputed exp); in ULP of P (|dP| + |dsum|); exact "
    "0.0 above the diagonal";
inline const char* kWhyDqkv =
    "backward_bounds: dq/dk = |scale| (sum dS_err |k or q| + (n + 2nb + 3)u sum |dS k or q|), dv = "
    "sum P_err |dout| + (n + 2nb + 3)u sum P |dout|; in ULP of |scale| sum P (|dP| + |dsum|) |k or "
    "q| (dq, dk) or sum P |dout| (dv)";

}  // namespace wgslvk::attention::cases
