// Golden cases of 12_optimizer.wgsl (its llm.istanbul study's "Quick Checklist": zero-init moments at
// step 1, bias correction finite at step 1, NaN grads cleaned, mega-buffer sub-range binding with
// a decay and a no-decay block, clipping, the f16 mirror, the 8-bit state) and of the native
// kernels of optimizer_native.wgsl. Expected values and bounds: wgsl_ports/optimizer/reference.hpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "wgslvk/validate/case_builder.hpp"
#include "optimizer/cases.hpp"
#include "optimizer/reference.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update_vec4.hpp"
#include "wgslvk/kernels/optimizer/adamw_one_call.hpp"
#include "wgslvk/kernels/optimizer/adamw_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_update_f16.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats_partials.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq_partials.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/validate/compare.hpp"

namespace wgslvk::optimizer {
namespace {

// The kernels' dispatches, by their generated headers (wgslvk/kernels/optimizer/<entry>.hpp):
// named slots and the uniforms as the headers type them, shared by the golden and sweep cases.
namespace ko = wgslvk::kernels::optimizer;
using validate::CaseBuilder;
using validate::DispatchSpec;
using Vec4 = std::array<float, 4>;

// reduce_norm_sq (into the accumulator `out`) or reduce_norm_sq_partials (into "partials"),
// over all of buffer `data`, n elements.
DispatchSpec& reduce_dispatch(CaseBuilder& b, bool partials, const std::string& data,
                              const std::string& out, uint32_t n, const std::string& label = {}) {
  if (partials) {
    namespace k = ko::reduce_norm_sq_partials;
    auto& d = b.dispatch(k::Kernel{}, label);
    CaseBuilder::bind(d, k::binding::data_det, data);
    CaseBuilder::bind(d, k::binding::partials, out);
    CaseBuilder::bind_uniform(d, k::binding::n_det, n);
    return d;
  }
  namespace k = ko::reduce_norm_sq;
  auto& d = b.dispatch(k::Kernel{}, label);
  CaseBuilder::bind(d, k::binding::data, data);
  CaseBuilder::bind(d, k::binding::result, out);
  CaseBuilder::bind_uniform(d, k::binding::n, n);
  return d;
}

// finalize_grad_stats (from the accumulator `in`) or finalize_grad_stats_partials (from the
// partials `in`) into "grad_stats", one workgroup.
DispatchSpec& finalize_dispatch(CaseBuilder& b, bool partials, const std::string& in,
                                float max_norm, const std::string& label = {}) {
  if (partials) {
    namespace k = ko::finalize_grad_stats_partials;
    auto& d = b.dispatch(k::Kernel{}, label);
    CaseBuilder::bind(d, k::binding::partials_in, in);
    CaseBuilder::bind(d, k::binding::grad_stats_det, "grad_stats");
    CaseBuilder::bind_uniform(d, k::binding::max_grad_norm_det, max_norm);
    d.workgroups = std::array<uint32_t, 3>{1, 1, 1};
    return d;
  }
  namespace k = ko::finalize_grad_stats;
  auto& d = b.dispatch(k::Kernel{}, label);
  CaseBuilder::bind(d, k::binding::norm_sq_acc, in);
  CaseBuilder::bind(d, k::binding::grad_stats_out, "grad_stats");
  CaseBuilder::bind_uniform(d, k::binding::max_grad_norm, max_norm);
  d.workgroups = std::array<uint32_t, 3>{1, 1, 1};
  return d;
}

// adamw_update or adamw_update_f16 on buffers "w", "g", "m", "v" (n floats from element `lo`;
// whole buffers when `whole`), "grad_stats" and, for f16, the mirror "w16"; hp = (lr, beta1,
// beta2, weight_decay), bias = (beta1^t, beta2^t, eps, t).
DispatchSpec& update_dispatch(CaseBuilder& b, bool f16, uint64_t lo, uint32_t n, bool whole,
                              const Vec4& hp, const Vec4& bias, const std::string& label = {}) {
  const uint64_t off = whole ? 0 : lo * 4;
  const std::optional<uint64_t> size =
      whole ? std::nullopt : std::optional<uint64_t>(uint64_t(n) * 4);
  if (f16) {
    namespace k = ko::adamw_update_f16::binding;
    auto& d = b.dispatch(ko::adamw_update_f16::Kernel{}, label);
    CaseBuilder::bind(d, k::w_mp, "w", off, size);
    CaseBuilder::bind(d, k::g_mp, "g", off, size);
    CaseBuilder::bind(d, k::m_buf_mp, "m", off, size);
    CaseBuilder::bind(d, k::v_buf_mp, "v", off, size);
    CaseBuilder::bind(d, k::grad_stats_mp, "grad_stats");
    CaseBuilder::bind_uniform(d, k::size_mp, n);
    CaseBuilder::bind_uniform(d, k::hp_mp, hp);
    CaseBuilder::bind_uniform(d, k::bias_mp, bias);
    if (whole)
      CaseBuilder::bind(d, k::dst_w16, "w16");
    else
      CaseBuilder::bind(d, k::dst_w16, "w16", lo * 2, uint64_t(n) * 2);
    return d;
  }
  namespace k = ko::adamw_update::binding;
  auto& d = b.dispatch(ko::adamw_update::Kernel{}, label);
  CaseBuilder::bind(d, k::w, "w", off, size);
  CaseBuilder::bind(d, k::g, "g", off, size);
  CaseBuilder::bind(d, k::m_buf, "m", off, size);
  CaseBuilder::bind(d, k::v_buf, "v", off, size);
  CaseBuilder::bind(d, k::grad_stats, "grad_stats");
  CaseBuilder::bind_uniform(d, k::size, n);
  CaseBuilder::bind_uniform(d, k::hp, hp);
  CaseBuilder::bind_uniform(d, k::bias, bias);
  return d;
}

// adamw_8bit_update or adamw_8bit_update_vec4 on the whole buffers "w", "g", "m_packed",
// "v_packed", "m_scale", "v_scale", "grad_stats" (hp and bias as update_dispatch's).
DispatchSpec& q8_dispatch(CaseBuilder& b, bool vec4, uint32_t n, const Vec4& hp, const Vec4& bias) {
  if (vec4) {
    namespace k = ko::adamw_8bit_update_vec4::binding;
    auto& d = b.dispatch(ko::adamw_8bit_update_vec4::Kernel{});
    CaseBuilder::bind(d, k::w_v4, "w");
    CaseBuilder::bind(d, k::g_v4, "g");
    CaseBuilder::bind(d, k::m_packed_v4, "m_packed");
    CaseBuilder::bind(d, k::v_packed_v4, "v_packed");
    CaseBuilder::bind(d, k::m_scale_v4, "m_scale");
    CaseBuilder::bind(d, k::v_scale_v4, "v_scale");
    CaseBuilder::bind(d, k::grad_stats_v4, "grad_stats");
    CaseBuilder::bind_uniform(d, k::size_v4, n);
    CaseBuilder::bind_uniform(d, k::hp_v4, hp);
    CaseBuilder::bind_uniform(d, k::bias_v4, bias);
    return d;
  }
  namespace k = ko::adamw_8bit_update::binding;
  auto& d = b.dispatch(ko::adamw_8bit_update::Kernel{});
  CaseBuilder::bind(d, k::w_q8, "w");
  CaseBuilder::bind(d, k::g_q8, "g");
  CaseBuilder::bind(d, k::m_packed, "m_packed");
  CaseBuilder::bind(d, k::v_packed, "v_packed");
  CaseBuilder::bind(d, k::m_scale, "m_scale");
  CaseBuilder::bind(d, k::v_scale, "v_scale");
  CaseBuilder::bind(d, k::grad_stats_q8, "grad_stats");
  CaseBuilder::bind_uniform(d, k::size_q8, n);
  CaseBuilder::bind_uniform(d, k::hp_q8, hp);
  CaseBuilder::bind_uniform(d, k::bias_q8, bias);
  return d;
}

// The 8-bit state's exact checks (codes and block scales) of a case whose moments are exact in
// f32 by construction (`q` says why), shared by the golden and the bench cases.
void check_8bit_state(validate::CaseBuilder& b, const Q8Expected& e, const std::string& q) {
  using validate::Array;
  using validate::DType;
  b.check_exact("m_packed", Array::of(DType::U32, e.m_packed), q);
  b.check_exact("v_packed", Array::of(DType::U32, e.v_packed), q);
  b.check_exact("m_scale", Array::of(DType::F32, e.m_scale),
                q + "; block scales are powers of two");
  b.check_exact("v_scale", Array::of(DType::F32, e.v_scale),
                q + "; block scales are powers of two");
}
}  // namespace
}  // namespace wgslvk::optimizer

namespace wgslvk::validate {
namespace {

namespace oref = wgslvk::optimizer;
namespace ko = wgslvk::kernels::optimizer;
const float kPoison = std::bit_cast<float>(kPoison32);
bool finite(float x) { return is_finite_bits(x); }

// An f32 output buffer: expected values with a per-element absolute tolerance, expressed in the
// case as a bound in ULP of a stated magnitude (bound_i = tol_i / ulp(max(|expected_i|, mag_i)),
// rounded up to f32).
struct Out {
  std::vector<float> expected, mag, bound;
  explicit Out(size_t n) : expected(n, kPoison), mag(n, 0.0f), bound(n, 0.0f) {}
  void set(size_t i, float e, double tol, double magnitude) {
    expected[i] = e;
    mag[i] = float(magnitude);
    if (double(mag[i]) < magnitude) mag[i] = std::nextafter(mag[i], INFINITY);
    double b = tol / ulp_at(DType::F32, std::max(std::fabs(double(e)), double(mag[i])));
    bound[i] = float(b);
    if (double(bound[i]) < b) bound[i] = std::nextafter(bound[i], INFINITY);
  }
};

// Checks of `o` over `ranges` (ulp with the tolerance) and the padding between and after them
// (exact: poison unchanged).
void add_out_checks(CaseBuilder& b, const std::string& name, const Out& o,
                    const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                    const std::string& why) {
  Array e = Array::of(DType::F32, o.expected);
  bool uniform_bound = true;
  for (auto [lo, hi] : ranges)
    for (uint64_t i = lo; i < hi; ++i) uniform_bound &= o.bound[i] == o.bound[ranges[0].first];
  bool self_magnitude = true;  // the magnitude is the value itself: no magnitude file
  for (auto [lo, hi] : ranges)
    for (uint64_t i = lo; i < hi; ++i) self_magnitude &= o.mag[i] == std::fabs(o.expected[i]);
  uint64_t prev = 0;
  for (auto [lo, hi] : ranges) {
    if (lo > prev)
      b.check_exact(name, e, "padding between sub-range bindings: poison stays unchanged", prev,
                    lo);
    auto& k = b.check_ulp(name, e, o.bound[lo], why, lo, hi);
    if (!self_magnitude) CaseBuilder::magnitude(k, o.mag);
    if (!uniform_bound) CaseBuilder::per_element_bound(k, o.bound);
    prev = hi;
  }
  if (prev < o.expected.size())
    b.check_exact(name, e, "past the last bound range: poison stays unchanged", prev,
                  o.expected.size());
}

std::string bound_text(const oref::UlpBound& u) {
  return std::to_string(u.ulp) + " ULP of " + u.of + ": " + u.why;
}

std::vector<float> random_grads(Rng& r, size_t n, bool nonfinite) {
  std::vector<float> g(n);
  for (auto& x : g) x = r.log_uniform(-12, 0);
  if (nonfinite) {
    const float special[] = {std::bit_cast<float>(0x7fc00000u), INFINITY, -INFINITY,
                             std::bit_cast<float>(0xffc00001u), std::bit_cast<float>(0x7f800001u)};
    for (size_t k = 0; k < std::max<size_t>(5, n / 16); ++k) g[r.below(n)] = special[k % 5];
  }
  return g;
}

// ---- AdamW: adamw_update, adamw_update_f16, adamw_one_call ----------------------------------------

enum class Adam { Update, UpdateF16, OneCall };

struct Block {
  uint32_t n;
  float wd;
  const char* label;
};

struct AdamOpts {
  std::vector<Block> blocks;
  uint32_t t = 0;  // 0: random step
  bool zero_moments = false;
  bool nonfinite = false;
  float clip = 1.0f;  // grad_stats[1]
  const std::array<uint32_t, 3>* grid = nullptr;
  // The whole optimizer step in one case: reduce_norm_sq over the gradient mega-buffer (its NaN
  // poison padding skipped), finalize_grad_stats (clipping off), then the update dispatches
  // reading the grad_stats the GPU just wrote. Integer gradients keep the sum exact, so the
  // finalize bounds hold as stated and clip is exactly 1.0 for the update.
  bool full_step = false;
};

Case adam_case(uint64_t seed, Adam kind, AdamOpts o, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  // Blocks at 128-element (512-byte) offsets: 256-byte aligned for the f32 arrays and the f16
  // mirror alike; poison in between and after.
  std::vector<uint64_t> off;
  uint64_t total = 0;
  for (auto& bl : o.blocks) {
    off.push_back(total);
    total = align_up(total + bl.n, 128);
  }
  std::vector<float> w(total, kPoison), g(total, kPoison), m(total, kPoison), v(total, kPoison);
  for (size_t k = 0; k < o.blocks.size(); ++k)
    for (uint64_t i = off[k]; i < off[k] + o.blocks[k].n; ++i) {
      w[i] = r.log_uniform(-8, 1);
      m[i] = o.zero_moments ? 0.0f : r.log_uniform(-14, -2);
      v[i] = o.zero_moments ? 0.0f : std::fabs(r.log_uniform(-24, -6));
    }
  auto gr = random_grads(r, total, o.nonfinite);
  for (size_t k = 0; k < o.blocks.size(); ++k)
    for (uint64_t i = off[k]; i < off[k] + o.blocks[k].n; ++i)
      g[i] = o.full_step ? float(int(r.below(7)) - 3) : gr[i];

  uint32_t t = o.t ? o.t : 1 + r.below(400);  // beta1^t stays a normal f32
  oref::AdamWUniforms u;
  u.lr = r.uniform(1e-4, 3e-3);
  u.beta1 = 0.9f;
  u.beta2 = 0.999f;
  u.eps = 1e-8f;
  u.beta1_t = float(pow_int(double(u.beta1), t));
  u.beta2_t = float(pow_int(double(u.beta2), t));
  u.t = t;
  const float grad_norm = 3.75f;
  std::vector<float> stats = {grad_norm, o.clip};

  bool f16 = kind == Adam::UpdateF16, oc = kind == Adam::OneCall;
  oref::OneCallParams p;
  if (oc) {
    p.lr = u.lr;
    p.beta1 = u.beta1;
    p.beta2 = u.beta2;
    p.eps = u.eps;
    p.bias_correction1 = float(1.0 - pow_int(double(u.beta1), t));
    p.bias_correction2 = float(1.0 - pow_int(double(u.beta2), t));
  }
  b.input(oc ? "param" : "w", DType::F32, w);
  b.input(oc ? "grad" : "g", DType::F32, g);
  b.input("m", DType::F32, m);
  b.input("v", DType::F32, v);
  if (f16) b.output("w16", DType::F16, total);
  const float max_norm_off = 1e30f;
  oref::GradStats fin;
  if (o.full_step) {
    b.c.buffers.push_back({});
    auto& a = b.c.buffers.back();
    a.name = "norm_sq_acc";
    a.kind = BufferSpec::Kind::Fill;
    a.count = 1;
    a.poison = false;
    a.fill_value = 0.0;  // zeroed once at allocation
    b.output("grad_stats", DType::F32, 2);
    auto& red =
        oref::reduce_dispatch(b, false, "g", "norm_sq_acc", uint32_t(total), "gradient norm");
    red.workgroups_1d = ko::reduce_norm_sq::Kernel::workgroups(total);
    oref::finalize_dispatch(b, false, "norm_sq_acc", max_norm_off, "grad stats");
    fin = oref::finalize_grad_stats_reference(oref::reduce_norm_sq_reference(g), max_norm_off);
    if (fin.clip_scale != 1.0f) throw std::logic_error("full step: clipping must be off");
    o.clip = fin.clip_scale;
  } else if (!oc) {
    b.input("grad_stats", DType::F32, stats);
  }

  Out ow(total), om(total), ov(total);
  std::vector<float> g_after = g;
  std::vector<uint16_t> w16(total, kPoison16);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (size_t k = 0; k < o.blocks.size(); ++k) {
    const Block& bl = o.blocks[k];
    uint64_t lo = off[k], hi = off[k] + bl.n;
    ranges.push_back({lo, hi});
    auto sl = [&](std::vector<float>& x) { return std::span<const float>(x.data() + lo, bl.n); };
    oref::AdamWExpected e;
    if (oc) {
      p.weight_decay = bl.wd;
      e = oref::adamw_one_call_reference(sl(w), sl(g), sl(m), sl(v), p);
    } else {
      u.weight_decay = bl.wd;
      e = oref::adamw_update_reference(sl(w), sl(g), sl(m), sl(v), o.clip, u);
    }
    for (uint64_t j = 0; j < bl.n; ++j) {
      uint64_t i = lo + j;
      double grad = oc ? double(g[i]) : (finite(g[i]) ? double(g[i]) * o.clip : 0.0);
      double m1 = std::max(std::fabs(double(u.beta1) * m[i]), std::fabs((1.0 - u.beta1) * grad));
      ow.set(i, e.w[j], e.w_tol[j], std::max(std::fabs(double(w[i])), std::fabs(double(e.w[j]))));
      om.set(i, e.m[j], e.m_tol[j], m1);
      ov.set(i, e.v[j], e.v_tol[j], std::fabs(double(e.v[j])));
      if (!oc) g_after[i] = 0.0f;
      w16[i] = f32_to_f16_bits(e.w[j]);
    }
    DispatchSpec* dp;
    if (oc) {
      namespace k = ko::adamw_one_call::binding;
      auto& d = b.dispatch(ko::adamw_one_call::Kernel{}, bl.label);
      CaseBuilder::bind(d, k::param_oc, "param", lo * 4, bl.n * 4ull);
      CaseBuilder::bind(d, k::grad_oc, "grad", lo * 4, bl.n * 4ull);
      CaseBuilder::bind(d, k::m_oc, "m", lo * 4, bl.n * 4ull);
      CaseBuilder::bind(d, k::v_oc, "v", lo * 4, bl.n * 4ull);
      CaseBuilder::bind_uniform(d, k::size_oc, bl.n);
      CaseBuilder::bind_uniform(d, k::hp_oc, {p.lr, p.beta1, p.beta2, bl.wd});
      CaseBuilder::bind_uniform(d, k::bc_oc, {p.bias_correction1, p.bias_correction2, p.eps, 0.0f});
      dp = &d;
    } else {
      dp = &oref::update_dispatch(b, f16, lo, bl.n, false, {u.lr, u.beta1, u.beta2, bl.wd},
                                  {u.beta1_t, u.beta2_t, u.eps, float(t)}, bl.label);
    }
    DispatchSpec& d = *dp;
    if (o.grid)
      d.workgroups = *o.grid;
    else
      d.workgroups_1d = ko::adamw_update::Kernel::workgroups(bl.n);
  }
  add_out_checks(b, oc ? "param" : "w", ow, ranges,
                 bound_text(oref::kWOldBound) + "; plus " + bound_text(oref::kWStepBound) +
                     " (bound file: both, in ULP of the magnitude file)");
  add_out_checks(b, "m", om, ranges, bound_text(oref::kMBound));
  add_out_checks(b, "v", ov, ranges, bound_text(oref::kVBound));
  if (oc)
    b.check_exact(
        "grad", Array::of(DType::F32, g_after),
        "adamw_one_call reads grad only (seed 002: no zeroing): unchanged, poison included");
  else
    b.check_exact("g", Array::of(DType::F32, g_after),
                  std::string("gradients zeroed in the update pass: ") + oref::kGradZeroBound.why +
                      "; padding poison unchanged");
  if (o.full_step) {
    Array ex = Array::of(DType::F32, std::vector<float>{fin.grad_norm, fin.clip_scale});
    b.check_ulp("grad_stats", ex, oref::kGradNormBound.ulp,
                "gradNorm of the exact integer sum: " + bound_text(oref::kGradNormBound), 0, 1);
    b.check_ulp("grad_stats", ex, oref::kClipScaleBound.ulp,
                "clipScale (clipping off: 1.0): " + bound_text(oref::kClipScaleBound), 1, 2);
    b.check_exact("norm_sq_acc", Array::of(DType::F32, std::vector<float>{0.0f}),
                  "finalize reads the accumulator with atomicExchange(0): reset for the next step");
  }
  if (f16) {
    Array e16 = Array::of(DType::F16, w16);
    uint64_t prev = 0;
    for (auto [lo, hi] : ranges) {
      if (lo > prev)
        b.check_exact("w16", e16, "padding of the f16 mirror: poison unchanged", prev, lo);
      b.check_ulp("w16", e16, oref::kMirrorBound.ulp,
                  "f16 ULPs from f16(expected w): " + bound_text(oref::kMirrorBound), lo, hi);
      prev = hi;
    }
    if (prev < total)
      b.check_exact("w16", e16, "past the last range: poison unchanged", prev, total);
  }
  return b.c;
}

template <Adam K>
Case adam_basic(uint64_t seed) {
  Rng r(seed ^ 0x61);
  uint32_t n = 2 * (200 + r.below(1200));
  return adam_case(
      seed, K, {{{n, 0.01f, "all parameters"}}, 0, false, false, 1.0f, nullptr},
      "random weights, moments and gradients at a random step; clipping off (clip 1.0)");
}
template <Adam K>
Case adam_step1(uint64_t seed) {
  return adam_case(seed, K, {{{1000, 0.01f, "all parameters"}}, 1, true, false, 1.0f, nullptr},
                   "step 1: zero-initialized moments, beta^t = beta, so the bias corrections "
                   "1/(1-beta1) and 1/(1-beta2) are at their largest (and finite)");
}
template <Adam K>
Case adam_nonfinite(uint64_t seed) {
  return adam_case(seed, K, {{{1200, 0.01f, "all parameters"}}, 0, false, true, 1.0f, nullptr},
                   "NaN, +-inf and signalling-NaN gradients are treated as 0.0 (and zeroed)");
}
template <Adam K>
Case adam_clip_on(uint64_t seed) {
  return adam_case(
      seed, K, {{{1000, 0.01f, "all parameters"}}, 0, false, false, 0.2666666f, nullptr},
      "clipping on: grad_stats = [3.75, 0.2666666], every gradient scaled by the clip");
}
template <Adam K>
Case adam_blocks(uint64_t seed) {
  return adam_case(seed, K,
                   {{{1000, 0.01f, "decay block"}, {702, 0.0f, "no-decay block"}},
                    0,
                    false,
                    false,
                    1.0f,
                    nullptr},
                   "multi-tensor: one mega-buffer per state, a decay block (wd 0.01) and a "
                   "no-decay block (wd 0) bound as 256-byte-aligned sub-ranges, two dispatches; "
                   "the poisoned padding between and after them stays unchanged");
}
template <Adam K>
Case adam_full_step(uint64_t seed) {
  AdamOpts o{{{1000, 0.01f, "decay block"}, {702, 0.0f, "no-decay block"}},
             0,
             false,
             false,
             1.0f,
             nullptr};
  o.full_step = true;
  return adam_case(
      seed, K, o,
      "one optimizer step as the engine records it: reduce_norm_sq over the gradient "
      "mega-buffer (poison padding is NaN: skipped), finalize_grad_stats (clipping off), "
      "then the decay and no-decay update dispatches reading the grad_stats just written");
}
template <Adam K>
Case adam_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 3, 1};
  return adam_case(seed, K, {{{1400, 0.01f, "all parameters"}}, 0, false, false, 1.0f, &grid},
                   "a 2 x 3 workgroup grid: flat_id = gid.y * nwg.x * 256 + gid.x reaches rows "
                   "y = 1, 2; 136 surplus invocations exit on `i >= size`");
}

// ---- adamw_8bit_update ------------------------------------------------------------------------------

// Inputs chosen so that every f32 operation before requantization is exact (dyadic values with
// few significant bits, beta1 = 0.5, beta2 = 0.75, clip a power of two): m_new and v_new are then
// the same on every device whatever the rounding or contraction, and the requantization, integer
// work on their bits, is bit exact. (With general inputs the codes may differ where the GPU's m_new
// differs within tolerance; wgsl_ports/optimizer's tests check that with q8_check_block.)
// vec4: the same case for adamw_8bit_update_vec4 (optimizer_native.wgsl, ours), whose w and g are
// vec4 arrays: both padded to a multiple of 4 elements with poison that must come back unchanged
// (read past n, never written). grid: a 2-D workgroup grid (nullptr: one row of ceil(n/256)).
// The inputs (and so the expected outputs) do not depend on the kernel: the port's and the vec4
// kernel's goldens of one seed are the same numbers.
Case q8_case(uint64_t seed, uint32_t n, bool nonfinite, bool zero_block, const std::string& what,
             bool vec4 = false, const std::array<uint32_t, 3>* grid = nullptr) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  oref::AdamWUniforms u;
  u.lr = 1e-3f;
  u.beta1 = 0.5f;
  u.beta2 = 0.75f;
  u.weight_decay = 0.01f;
  u.t = 3 + r.below(100);
  u.beta1_t = float(pow_int(0.5, u.t));
  u.beta2_t = float(pow_int(0.75, u.t));
  u.eps = 1e-8f;
  const float clip = 0.5f;
  uint32_t words = div_ceil(n, 4), blocks = div_ceil(n, 256);
  std::vector<float> w(n), g(n), m_scale(blocks), v_scale(blocks);
  std::vector<uint32_t> mp(words, 0), vp(words, 0);
  for (uint32_t k = 0; k < blocks; ++k) {
    m_scale[k] = std::ldexp(1.0f, -2 - int(r.below(3)));
    v_scale[k] = std::ldexp(1.0f, -5 - int(r.below(3)));
  }
  auto exact = [](double x) { return double(float(x)) == x; };
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t blk = i / 256;
    w[i] = r.log_uniform(-6, 1);
    bool zero = zero_block && blk == 1;
    for (int tries = 0;; ++tries) {
      if (tries > 1000) throw std::logic_error("q8_case: no exact draw");
      uint32_t mc = zero ? 0 : ((r.below(2) << 7) | ((12 + r.below(4)) << 3) | r.below(8));
      uint32_t vc = zero ? 0 : (((28 + r.below(4)) << 3) | r.below(8));
      float gr = zero ? 0.0f
                      : float(std::ldexp(double(1 + r.below(127)) * (r.below(2) ? 1 : -1),
                                         -9 - int(r.below(4))));
      double mo = oref::q8_decode_m(mc, m_scale[blk]), vo = oref::q8_decode_v(vc, v_scale[blk]);
      double gc = double(gr) * clip, a = u.beta1 * mo, bb = (1.0 - u.beta1) * gc, mn = a + bb;
      double c = u.beta2 * vo, gg = gc * gc, d = (1.0 - u.beta2) * gg, vn = c + d;
      if (!(exact(gc) && exact(a) && exact(bb) && exact(mn) && exact(c) && exact(gg) && exact(d) &&
            exact(vn)))
        continue;
      mp[i / 4] |= mc << (8 * (i % 4));
      vp[i / 4] |= vc << (8 * (i % 4));
      g[i] = gr;
      break;
    }
  }
  if (nonfinite) {
    const float special[] = {std::bit_cast<float>(0x7fc00000u), INFINITY, -INFINITY};
    for (uint32_t k = 0; k < n / 16; ++k) g[r.below(n)] = special[k % 3];
  }
  std::vector<float> stats = {2.0f, clip};
  auto e = oref::adamw_8bit_update_reference(w, g, mp, vp, m_scale, v_scale, clip, u);
  const uint32_t padded = vec4 ? words * 4 : n;  // vec4: w, g hold ceil(n/4) vec4s
  std::vector<float> wpad(w), gpad(g);
  wpad.resize(padded, kPoison);
  gpad.resize(padded, kPoison);
  b.input("w", DType::F32, wpad);
  b.input("g", DType::F32, gpad);
  b.input("m_packed", DType::U32, mp);
  b.input("v_packed", DType::U32, vp);
  b.input("m_scale", DType::F32, m_scale);
  b.input("v_scale", DType::F32, v_scale);
  b.input("grad_stats", DType::F32, stats);
  auto& d = oref::q8_dispatch(b, vec4, n, {u.lr, u.beta1, u.beta2, u.weight_decay},
                              {u.beta1_t, u.beta2_t, u.eps, float(u.t)});
  if (grid)
    d.workgroups = *grid;
  else
    d.workgroups_1d = blocks;  // one workgroup per 256-element block (both kernels)
  Out ow(padded);
  for (uint32_t i = 0; i < n; ++i)
    ow.set(i, e.f32.w[i], e.f32.w_tol[i],
           std::max(std::fabs(double(w[i])), std::fabs(double(e.f32.w[i]))));
  add_out_checks(b, "w", ow, {{0, n}},
                 bound_text(oref::kWOldBound) + "; plus " + bound_text(oref::kWStepBound));
  std::vector<float> gz(padded, kPoison);
  std::fill(gz.begin(), gz.begin() + n, 0.0f);
  if (padded > n) {
    b.check_exact("g", Array::of(DType::F32, gz), oref::kGradZeroBound.why, 0, n);
    b.check_exact("g", Array::of(DType::F32, gz), "vec4 padding past n: read, never written", n,
                  padded);
  } else {
    b.check_exact("g", Array::of(DType::F32, gz), oref::kGradZeroBound.why);
  }
  const std::string q =
      "m_new and v_new are exact in f32 by construction (dyadic inputs, beta1 0.5, "
      "beta2 0.75, clip 0.5), so the requantization (integer work on their bits, "
      "mirrored bit for bit by the reference) is bit exact";
  oref::check_8bit_state(b, e, q);
  return b.c;
}

template <bool V4>
Case q8_basic(uint64_t seed) {
  Rng r(seed ^ 0x71);
  return q8_case(seed, 256 * (1 + r.below(4)) + r.below(256), false, false,
                 "8-bit state: random codes and power-of-two scales, whole and partial blocks", V4);
}
template <bool V4>
Case q8_nonfinite(uint64_t seed) {
  return q8_case(seed, 512, true, false, "8-bit state with NaN/+-inf gradients treated as 0.0", V4);
}
template <bool V4>
Case q8_blocks(uint64_t seed) {
  return q8_case(
      seed, 600, false, true,
      "three blocks: an all-zero block (scale 0, codes 0) and a partial last block of 88 "
      "elements (its words and scale written, nothing past size)",
      V4);
}
Case q8_v4_ragged(uint64_t seed) {
  return q8_case(seed, 1027, true, true,
                 "n = 1027 = 4 * 256 + 3: a last block of 3 elements in one partial vec4 (x, y, z "
                 "written, w and g's 4th component read as poison and left alone), an all-zero "
                 "block, NaN/+-inf gradients",
                 true);
}
Case q8_v4_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 3, 1};
  return q8_case(
      seed, 1400, false, false,
      "a 2 x 3 workgroup grid: word q = gid.y * nwg.x * 64 + gid.x reaches rows y = 1, 2; "
      "the last block holds 120 elements, 34 surplus invocations write nothing",
      true, &grid);
}

// ---- reduce_norm_sq, reduce_norm_sq_partials -----------------------------------------------------

Case reduce_case(uint64_t seed, bool partials, uint32_t n, uint32_t workgroups, bool integers,
                 bool nonfinite, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  std::vector<float> data(n);
  for (auto& x : data) x = integers ? float(int(r.below(7)) - 3) : r.log_uniform(-10, 2);
  if (nonfinite) {
    const float special[] = {std::bit_cast<float>(0x7fc00000u), INFINITY, -INFINITY,
                             std::bit_cast<float>(0x7f800001u)};
    for (uint32_t k = 0; k < n / 20; ++k) data[r.below(n)] = special[k % 4];
  }
  b.input("data", DType::F32, data);
  uint64_t threads = uint64_t(workgroups) * 256;
  if (partials) {
    b.output("partials", DType::F32, workgroups);
  } else {
    b.c.buffers.push_back({});
    auto& a = b.c.buffers.back();
    a.name = "result";
    a.kind = BufferSpec::Kind::Fill;
    a.dtype = DType::F32;
    a.count = 1;
    a.poison = false;
    a.fill_value = 0.0;  // the accumulator starts at 0 (finalize_grad_stats resets it)
  }
  auto& d = oref::reduce_dispatch(b, partials, "data", partials ? "partials" : "result", n);
  d.workgroups_1d = workgroups;
  std::string why = integers
                        ? std::string(oref::kReduceIntegerBound.why)
                        : "no cancellation; chains of k = ceil(n/threads) grid-stride adds, 8 tree "
                          "levels and the accumulator adds: reduce_norm_sq_ulp_bound(n, threads, "
                          "workgroups) ULP of the result";
  if (partials) {
    // Workgroup w holds the threads [256w, 256w + 256) of the grid-stride loop.
    std::vector<float> exp(workgroups);
    for (uint32_t w = 0; w < workgroups; ++w) {
      std::vector<float> mine;
      for (uint64_t i = 0; i < n; ++i)
        if ((i % threads) / 256 == w) mine.push_back(data[i]);
      exp[w] = oref::reduce_norm_sq_reference(mine);
    }
    if (integers)
      b.check_exact("partials", Array::of(DType::F32, exp), why);
    else
      b.check_ulp("partials", Array::of(DType::F32, exp),
                  oref::reduce_norm_sq_ulp_bound(n, threads, 1),
                  why + " (one workgroup's slot: workgroups = 1)");
  } else {
    std::vector<float> exp = {oref::reduce_norm_sq_reference(data)};
    if (integers)
      b.check_exact("result", Array::of(DType::F32, exp), why);
    else
      b.check_ulp("result", Array::of(DType::F32, exp),
                  oref::reduce_norm_sq_ulp_bound(n, threads, workgroups), why);
  }
  return b.c;
}

template <bool P>
Case reduce_basic(uint64_t seed) {
  Rng r(seed ^ 0x81);
  return reduce_case(seed, P, 1000 + r.below(20000), 1 + r.below(16), false, false,
                     "random magnitudes over 12 binades, a bounded grid-stride launch");
}
template <bool P>
Case reduce_nonfinite(uint64_t seed) {
  return reduce_case(seed, P, 5000, 4, false, true,
                     "NaN, +-inf and signalling NaN elements are skipped");
}
template <bool P>
Case reduce_integer(uint64_t seed) {
  return reduce_case(seed, P, 30000, 8, true, true,
                     "integer elements -3..3 (and non-finite ones, skipped): every partial sum is "
                     "exact, so the result is bit exact and a dropped or doubled element shows");
}

// More than 65535 workgroups: a 2-D grid. The 16.8M elements are generated procedurally
// (golden/README.md "generate"), integers so the sum is exact in any order.
Case reduce_grid_over_65535(uint64_t seed) {
  CaseBuilder b;
  const uint64_t wgs = 65537, n = wgs * 256;
  b.c.description =
      "65537 workgroups (grid_for_workgroups: a 2-D grid) over 16,777,472 generated "
      "elements in {0, +-1, NaN, +-inf}: each thread reads one element, rows y >= 1 "
      "included; the integer sum (< 2^24) is exact in any order";
  Generate g;
  g.kind = "choice";
  g.seed = seed;
  g.values = ojson::array({0, 1, -1, "nan", "inf", "-inf", 1, 0});
  b.generated("data", DType::F32, n, g);
  auto data_bytes = b.c.buffers.back().initial_bytes();
  std::vector<float> data(n);
  std::memcpy(data.data(), data_bytes.data(), n * 4);
  b.c.buffers.push_back({});
  auto& a = b.c.buffers.back();
  a.name = "result";
  a.kind = BufferSpec::Kind::Fill;
  a.count = 1;
  a.poison = false;
  a.fill_value = 0.0;
  auto& d = oref::reduce_dispatch(b, false, "data", "result", uint32_t(n));
  d.workgroups_1d = wgs;
  double exact = oref::reduce_norm_sq_exact(data);
  if (exact >= 0x1p24) throw std::logic_error("reduce_grid_over_65535: sum not below 2^24");
  b.check_exact("result", Array::of(DType::F32, std::vector<float>{float(exact)}),
                oref::kReduceIntegerBound.why);
  return b.c;
}

// ---- finalize_grad_stats, finalize_grad_stats_partials ---------------------------------------------

Case finalize_case(uint64_t seed, bool partials, float sum_hint, float max_norm,
                   const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  float sum;
  if (partials) {
    // Integer partials: their f32 sum is exact in any order, so the finalize bounds apply as stated.
    uint32_t count = 3 + r.below(300);
    std::vector<float> p(count);
    double s = 0;
    for (auto& x : p) s += (x = float(r.below(uint32_t(std::max(2.0f, 2 * sum_hint / count)))));
    sum = float(s);
    b.input("partials", DType::F32, p);
  } else {
    sum = sum_hint > 0 ? sum_hint * r.uniform(0.5, 1.5) : 0.0f;
    b.input("norm_sq_acc", DType::F32, std::vector<float>{sum});
  }
  b.output("grad_stats", DType::F32, 2);
  oref::finalize_dispatch(b, partials, partials ? "partials" : "norm_sq_acc", max_norm);
  auto e = oref::finalize_grad_stats_reference(sum, max_norm);
  Array ex = Array::of(DType::F32, std::vector<float>{e.grad_norm, e.clip_scale});
  b.check_ulp("grad_stats", ex, oref::kGradNormBound.ulp,
              "gradNorm: " + bound_text(oref::kGradNormBound), 0, 1);
  b.check_ulp("grad_stats", ex, oref::kClipScaleBound.ulp,
              "clipScale: " + bound_text(oref::kClipScaleBound), 1, 2);
  if (!partials)
    b.check_exact("norm_sq_acc", Array::of(DType::F32, std::vector<float>{0.0f}),
                  "finalize reads the accumulator with atomicExchange(0): reset for the next step");
  return b.c;
}

template <bool P>
Case finalize_basic(uint64_t seed) {
  Rng r(seed ^ 0x91);
  float sum = float(std::ldexp(1.0, int(r.below(30)) - 10));
  return finalize_case(seed, P, sum, r.uniform(0.25, 4.0),
                       "random sum of squares and max_grad_norm");
}
template <bool P>
Case finalize_clip_on(uint64_t seed) {
  return finalize_case(seed, P, 5000.0f, 1.0f,
                       "clipping on: gradNorm ~70 > max_grad_norm 1.0, clipScale ~1/70");
}
template <bool P>
Case finalize_clip_off(uint64_t seed) {
  return finalize_case(
      seed, P, 5000.0f, 1e30f,
      "clipping off: max_grad_norm 1e30 (the host's 'off'), clipScale exactly 1.0");
}
Case finalize_zero(uint64_t seed) {
  return finalize_case(seed, false, 0.0f, 1.0f,
                       "an all-zero gradient: sum 0, gradNorm 0, clipScale min(1, 1/1e-6) = 1");
}

}  // namespace

void register_optimizer(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/optimizer/cases.cpp";
  auto add = [&](std::string_view k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string(k), n, seed, rnd, f, src});
  };
  add(ko::reduce_norm_sq::name, "basic", 2001, true, reduce_basic<false>);
  add(ko::reduce_norm_sq::name, "nonfinite", 2002, false, reduce_nonfinite<false>);
  add(ko::reduce_norm_sq::name, "integer_exact", 2003, false, reduce_integer<false>);
  add(ko::reduce_norm_sq::name, "grid_over_65535", 2004, false, reduce_grid_over_65535);
  add(ko::finalize_grad_stats::name, "basic", 2101, true, finalize_basic<false>);
  add(ko::finalize_grad_stats::name, "clip_on", 2102, false, finalize_clip_on<false>);
  add(ko::finalize_grad_stats::name, "clip_off", 2103, false, finalize_clip_off<false>);
  add(ko::finalize_grad_stats::name, "zero_norm", 2104, false, finalize_zero);
  add(ko::adamw_update::name, "basic", 2201, true, adam_basic<Adam::Update>);
  add(ko::adamw_update::name, "step1_bias_correction", 2202, false, adam_step1<Adam::Update>);
  add(ko::adamw_update::name, "nonfinite_grads", 2203, false, adam_nonfinite<Adam::Update>);
  add(ko::adamw_update::name, "clip_on", 2204, false, adam_clip_on<Adam::Update>);
  add(ko::adamw_update::name, "decay_and_no_decay_blocks", 2205, false, adam_blocks<Adam::Update>);
  add(ko::adamw_update::name, "grid_2d", 2206, false, adam_grid_2d<Adam::Update>);
  add(ko::adamw_update::name, "full_step", 2207, false, adam_full_step<Adam::Update>);
  add(ko::adamw_update_f16::name, "basic", 2301, true, adam_basic<Adam::UpdateF16>);
  add(ko::adamw_update_f16::name, "step1_bias_correction", 2302, false,
      adam_step1<Adam::UpdateF16>);
  add(ko::adamw_update_f16::name, "nonfinite_grads", 2303, false, adam_nonfinite<Adam::UpdateF16>);
  add(ko::adamw_update_f16::name, "decay_and_no_decay_blocks", 2304, false,
      adam_blocks<Adam::UpdateF16>);
  add(ko::adamw_update_f16::name, "clip_on", 2305, false, adam_clip_on<Adam::UpdateF16>);
  add(ko::adamw_update_f16::name, "full_step", 2306, false, adam_full_step<Adam::UpdateF16>);
  add(ko::adamw_8bit_update::name, "basic", 2401, true, q8_basic<false>);
  add(ko::adamw_8bit_update::name, "nonfinite_grads", 2402, false, q8_nonfinite<false>);
  add(ko::adamw_8bit_update::name, "zero_and_partial_blocks", 2403, false, q8_blocks<false>);
  add(ko::reduce_norm_sq_partials::name, "basic", 2501, true, reduce_basic<true>);
  add(ko::reduce_norm_sq_partials::name, "integer_exact", 2502, false, reduce_integer<true>);
  add(ko::finalize_grad_stats_partials::name, "basic", 2601, true, finalize_basic<true>);
  add(ko::finalize_grad_stats_partials::name, "clip_on", 2602, false, finalize_clip_on<true>);
  add(ko::finalize_grad_stats_partials::name, "clip_off", 2603, false, finalize_clip_off<true>);
  add(ko::adamw_one_call::name, "basic", 2701, true, adam_basic<Adam::OneCall>);
  add(ko::adamw_one_call::name, "step1_bias_correction", 2702, false, adam_step1<Adam::OneCall>);
  add(ko::adamw_one_call::name, "decay_and_no_decay_blocks", 2703, false,
      adam_blocks<Adam::OneCall>);
  // ours: the same seeds as adamw_8bit_update's, so the same inputs and expected numbers
  add(ko::adamw_8bit_update_vec4::name, "basic", 2401, true, q8_basic<true>);
  add(ko::adamw_8bit_update_vec4::name, "nonfinite_grads", 2402, false, q8_nonfinite<true>);
  add(ko::adamw_8bit_update_vec4::name, "zero_and_partial_blocks", 2403, false, q8_blocks<true>);
  add(ko::adamw_8bit_update_vec4::name, "ragged_tail", 2801, false, q8_v4_ragged);
  add(ko::adamw_8bit_update_vec4::name, "grid_2d", 2802, false, q8_v4_grid_2d);
}

WGSLVK_REGISTER_GENERATORS(register_optimizer);

}  // namespace wgslvk::validate

// ---- sweep cases (cases.hpp): the bench's sizes, generated inputs, checked prefixes ---------------

namespace wgslvk::optimizer {
namespace {

using validate::Array;
using validate::Case;
using validate::CaseBuilder;
using validate::DType;
using validate::Generate;
using validate::ojson;

// A choice list of `k` values drawn by `draw`, then the non-finite `extra` ones ("nan", "inf", ...).
template <class F>
ojson value_list(size_t k, F draw, std::initializer_list<const char*> extra = {}) {
  ojson a = ojson::array();
  for (size_t i = 0; i < k; ++i) a.push_back(validate::json_f32(draw()));
  for (const char* e : extra) a.push_back(e);
  return a;
}

// A buffer of `count` zeros (not poison): the state a fresh optimizer starts from.
void zeros(CaseBuilder& b, const std::string& name, DType t, uint64_t count) {
  b.output(name, t, count);
  b.c.buffers.back().poison = false;
  b.c.buffers.back().fill_value = 0;
}

std::string sweep_name(const std::string& what, uint64_t n) {
  return what + "_n" + std::to_string(n);
}

}  // namespace

Case adamw_sweep_case(const std::string& kernel, uint64_t n, uint64_t checked) {
  const bool f16 = kernel == ko::adamw_update_f16::name;
  const bool q8v4 = kernel == ko::adamw_8bit_update_vec4::name;
  const bool q8 = kernel == ko::adamw_8bit_update::name || q8v4;
  if (!f16 && !q8 && kernel != ko::adamw_update::name)
    throw std::invalid_argument("adamw_sweep_case: kernel '" + kernel +
                                "' is not adamw_update, adamw_update_f16, adamw_8bit_update or "
                                "adamw_8bit_update_vec4");
  if (n == 0 || n > 0xffffffffull)
    throw std::invalid_argument("adamw_sweep_case: n = " + std::to_string(n) +
                                " is not in [1, 2^32)");
  uint64_t m = std::min(checked, n);
  if (q8) m = std::min(n, align_up(std::max<uint64_t>(m, 1), 256));
  validate::Rng r(0x5eed0 + n);
  CaseBuilder b;
  b.c.kernel = kernel;
  b.c.name = sweep_name("sweep", n);
  b.c.description = "bench sweep: " + std::to_string(n) + " generated elements, the first " +
                    std::to_string(m) + " checked";
  AdamWUniforms u;
  u.lr = 1e-3f;
  u.weight_decay = 0.01f;
  u.eps = 1e-8f;
  u.t = 10;
  float clip;
  if (q8) {
    // As q8_case: beta1 0.5, beta2 0.75, clip 0.5 and dyadic gradients with <= 7 significant bits
    // on a zero state make m_new and v_new exact in f32, so the requantization is bit exact.
    u.beta1 = 0.5f, u.beta2 = 0.75f, clip = 0.5f;
  } else {
    u.beta1 = 0.9f, u.beta2 = 0.999f, clip = 0.8f;
  }
  u.beta1_t = float(validate::pow_int(double(u.beta1), u.t));
  u.beta2_t = float(validate::pow_int(double(u.beta2), u.t));
  // adamw_8bit_update_vec4 reads w and g as ceil(n/4) vec4s: the generated buffers are padded
  const uint64_t wg_count = q8v4 ? align_up(n, 4) : n;
  auto w = b.generated_prefix<float>(
      "w", DType::F32, wg_count,
      CaseBuilder::choice(r.bits(), value_list(61, [&] { return r.log_uniform(-8, 1); })), m);
  ojson gv =
      q8 ? value_list(61,
                      [&] {
                        return float(std::ldexp(double(1 + r.below(127)) * (r.below(2) ? 1 : -1),
                                                -9 - int(r.below(4))));
                      },
                      {"nan", "inf", "-inf"})
         : value_list(61, [&] { return r.log_uniform(-12, 0); }, {"nan", "inf", "-inf"});
  auto g =
      b.generated_prefix<float>("g", DType::F32, wg_count, CaseBuilder::choice(r.bits(), gv), m);
  std::vector<float> mo, vo;
  if (q8) {
    zeros(b, "m_packed", DType::U32, div_ceil(n, 4));
    zeros(b, "v_packed", DType::U32, div_ceil(n, 4));
    zeros(b, "m_scale", DType::F32, div_ceil(n, 256));
    zeros(b, "v_scale", DType::F32, div_ceil(n, 256));
  } else {
    mo = b.generated_prefix<float>(
        "m", DType::F32, n,
        CaseBuilder::choice(r.bits(), value_list(61, [&] { return r.log_uniform(-14, -2); })), m);
    vo = b.generated_prefix<float>(
        "v", DType::F32, n,
        CaseBuilder::choice(r.bits(),
                            value_list(61, [&] { return std::fabs(r.log_uniform(-24, -6)); })),
        m);
  }
  b.input("grad_stats", DType::F32, std::vector<float>{q8 ? 2.0f : 1.5f, clip});
  if (f16) b.output("w16", DType::F16, n);
  const Vec4 hp{u.lr, u.beta1, u.beta2, u.weight_decay},
      bias{u.beta1_t, u.beta2_t, u.eps, float(u.t)};
  auto& d = q8 ? q8_dispatch(b, q8v4, uint32_t(n), hp, bias)
               : update_dispatch(b, f16, 0, uint32_t(n), true, hp, bias);
  d.workgroups_1d = div_ceil(n, 256);  // 256 elements per workgroup (the vec4 kernel: 64 x 4)

  const std::string wwhy =
      validate::bound_text(kWOldBound) + "; plus " + validate::bound_text(kWStepBound);
  validate::Out ow(m);
  if (q8) {
    const uint64_t words = div_ceil(m, 4), blocks = div_ceil(m, 256);
    std::vector<uint32_t> zp(words, 0);
    std::vector<float> zs(blocks, 0.0f);
    auto e = adamw_8bit_update_reference(w, g, zp, zp, zs, zs, clip, u);
    for (uint64_t i = 0; i < m; ++i)
      ow.set(i, e.f32.w[i], e.f32.w_tol[i],
             std::max(std::fabs(double(w[i])), std::fabs(double(e.f32.w[i]))));
    validate::add_out_checks(b, "w", ow, {{0, m}}, wwhy);
    const std::string q =
        "m_new and v_new are exact in f32 by construction (dyadic gradients, zero "
        "state, beta1 0.5, beta2 0.75, clip 0.5): the requantization is bit exact";
    check_8bit_state(b, e, q);
  } else {
    auto e = adamw_update_reference(w, g, mo, vo, clip, u);
    validate::Out om(m), ov(m);
    std::vector<uint16_t> w16(m);
    for (uint64_t i = 0; i < m; ++i) {
      double grad = is_finite_bits(g[i]) ? double(g[i]) * clip : 0.0;
      double m1 = std::max(std::fabs(double(u.beta1) * mo[i]), std::fabs((1.0 - u.beta1) * grad));
      ow.set(i, e.w[i], e.w_tol[i], std::max(std::fabs(double(w[i])), std::fabs(double(e.w[i]))));
      om.set(i, e.m[i], e.m_tol[i], m1);
      ov.set(i, e.v[i], e.v_tol[i], std::fabs(double(e.v[i])));
      w16[i] = f32_to_f16_bits(e.w[i]);
    }
    validate::add_out_checks(b, "w", ow, {{0, m}},
                             wwhy + " (bound file: both, in ULP of the magnitude file)");
    validate::add_out_checks(b, "m", om, {{0, m}}, validate::bound_text(kMBound));
    validate::add_out_checks(b, "v", ov, {{0, m}}, validate::bound_text(kVBound));
    if (f16)
      b.check_ulp("w16", Array::of(DType::F16, w16), kMirrorBound.ulp,
                  "f16 ULPs from f16(expected w): " + validate::bound_text(kMirrorBound));
  }
  b.check_exact("g", Array::of(DType::F32, std::vector<float>(m, 0.0f)),
                std::string("gradients zeroed in the update pass: ") + kGradZeroBound.why);
  return b.c;
}

namespace {
// n generated elements for the norm kernels: magnitudes over 12 binades and a few NaN, +-inf
// (skipped by the kernels), all of them on the host for the reference.
std::vector<float> norm_data(CaseBuilder& b, uint64_t n) {
  validate::Rng r(0x40c0 + n);
  return b.generated_prefix<float>(
      "data", DType::F32, n,
      CaseBuilder::choice(
          r.bits(), value_list(61, [&] { return r.log_uniform(-10, 2); }, {"nan", "inf", "-inf"})),
      n);
}
void check_n(uint64_t n) {
  if (n == 0 || n > 0xffffffffull)
    throw std::invalid_argument("norm sweep case: n = " + std::to_string(n) +
                                " is not in [1, 2^32)");
}
}  // namespace

Case reduce_sweep_case(uint64_t n, uint32_t workgroups) {
  check_n(n);
  CaseBuilder b;
  b.c.kernel = ko::reduce_norm_sq::name;
  b.c.name = sweep_name("sweep_wg" + std::to_string(workgroups), n);
  b.c.description = "bench sweep: " + std::to_string(n) + " generated elements on " +
                    std::to_string(workgroups) + " workgroups";
  auto data = norm_data(b, n);
  zeros(b, "result", DType::F32, 1);  // the accumulator starts at 0 (finalize resets it)
  auto& d = reduce_dispatch(b, false, "data", "result", uint32_t(n));
  d.workgroups_1d = workgroups;
  b.check_ulp("result", Array::of(DType::F32, std::vector<float>{reduce_norm_sq_reference(data)}),
              reduce_norm_sq_ulp_bound(n, uint64_t(workgroups) * 256, workgroups),
              "no cancellation; grid-stride chains, 8 tree levels and the accumulator adds: "
              "reduce_norm_sq_ulp_bound(n, threads, workgroups) ULP of the result");
  return b.c;
}

Case norm_two_level_sweep_case(uint64_t n, uint32_t workgroups, TwoLevelPart part) {
  check_n(n);
  if (workgroups == 0) throw std::invalid_argument("norm_two_level_sweep_case: 0 workgroups");
  const bool reduce = part != TwoLevelPart::Finalize, finalize = part != TwoLevelPart::Reduce;
  CaseBuilder b;
  b.c.kernel = reduce ? ko::reduce_norm_sq_partials::name : ko::finalize_grad_stats_partials::name;
  b.c.name = sweep_name(std::string(part == TwoLevelPart::Both ? "sweep_pair" : "sweep") + "_wg" +
                            std::to_string(workgroups),
                        n);
  b.c.description = "bench sweep: the two-level norm over " + std::to_string(n) + " elements, " +
                    std::to_string(workgroups) + " partials";
  const float max_norm = 1.0f;
  const uint64_t threads = uint64_t(workgroups) * 256;
  std::vector<float> data;
  if (reduce) {
    data = norm_data(b, n);
    b.output("partials", DType::F32, workgroups);
    auto& d = reduce_dispatch(b, true, "data", "partials", uint32_t(n));
    d.workgroups_1d = workgroups;
    // Workgroup w holds the threads [256w, 256w + 256) of the grid-stride loop.
    std::vector<std::vector<float>> mine(workgroups);
    for (uint64_t i = 0; i < n; ++i) mine[(i % threads) / 256].push_back(data[i]);
    std::vector<float> exp(workgroups);
    for (uint32_t w = 0; w < workgroups; ++w) exp[w] = reduce_norm_sq_reference(mine[w]);
    b.check_ulp(
        "partials", Array::of(DType::F32, exp), reduce_norm_sq_ulp_bound(n, threads, 1),
        "each workgroup's grid-stride chains and 8 tree levels: reduce_norm_sq_ulp_bound(n, "
        "threads, 1) ULP of its slot");
  }
  float sum = 0;
  uint32_t sum_ulp = 0;  // the f32 sum of squares the finalize sees, within sum_ulp ULP
  if (!reduce) {
    // Integer partials whose f32 sum is exact in any order (total < 2^24), as finalize_case.
    validate::Rng r(0xf1a + workgroups);
    std::vector<float> p(workgroups);
    double s = 0;
    for (auto& x : p) s += (x = float(r.below(std::max<uint32_t>(2, (1u << 24) / workgroups - 1))));
    sum = float(s);
    b.input("partials", DType::F32, p);
  } else {
    sum = reduce_norm_sq_reference(data);
    sum_ulp = reduce_norm_sq_ulp_bound(n, threads, workgroups);
  }
  if (finalize) {
    b.output("grad_stats", DType::F32, 2);
    finalize_dispatch(b, true, "partials", max_norm);
    auto e = finalize_grad_stats_reference(sum, max_norm);
    // A relative error of s ULP in the sum is s/2 (+1 for a binade edge) ULP after the sqrt,
    // and passes through clip_scale's division unchanged.
    const uint32_t from_sum = sum_ulp ? (sum_ulp + 1) / 2 + 1 : 0;
    Array ex = Array::of(DType::F32, std::vector<float>{e.grad_norm, e.clip_scale});
    const std::string via = sum_ulp
                                ? " plus " + std::to_string(from_sum) +
                                      " ULP from the sum's reduce_norm_sq_ulp_bound(n, threads, "
                                      "workgroups) through the sqrt"
                                : " (integer partials: an exact sum)";
    b.check_ulp("grad_stats", ex, kGradNormBound.ulp + from_sum,
                "gradNorm: " + validate::bound_text(kGradNormBound) + via, 0, 1);
    b.check_ulp("grad_stats", ex, kClipScaleBound.ulp + from_sum,
                "clipScale: " + validate::bound_text(kClipScaleBound) + via, 1, 2);
  }
  return b.c;
}

}  // namespace wgslvk::optimizer
