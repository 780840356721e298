// Helpers of the attention tests: random inputs, the kernels run directly on the test device
// (each output poisoned, with a poisoned tail that must come back unchanged), and comparisons
// against the double references within the bounds of wgsl_ports/attention/reference.hpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attention/reference.hpp"
#include "support/test_device.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/attention/attn_dqkv.hpp"
#include "wgslvk/kernels/attention/attn_dscores.hpp"
#include "wgslvk/kernels/attention/attn_dscores_fa2.hpp"
#include "wgslvk/kernels/attention/attn_dsum.hpp"
#include "wgslvk/kernels/attention/attn_dv_fa2.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2.hpp"
#include "wgslvk/kernels/attention/attn_scores.hpp"
#include "wgslvk/kernels/attention/attn_softmax.hpp"
#include "wgslvk/kernels/attention/attn_weighted_sum.hpp"

namespace wgslvk::attention::testing {

using namespace wgslvk::testing;
namespace ak = wgslvk::kernels::attention;
// Every FA2 forward kernel (attn_fwd_fa2, _wide, _tiled) binds attn_fwd_fa2's slots and every FA2
// backward kernel (attn_dscores_fa2, attn_dv_fa2, their _wide forms, attn_bwd_fa2_tiled and
// _tiled4) attn_dscores_fa2's: entries_for checks each binding's kind and WGSL type against the
// kernel in use.
namespace fwd = ak::attn_fwd_fa2;
namespace bwd = ak::attn_dscores_fa2;

inline constexpr size_t kTail = 32;  // poisoned floats past every output

// Normal values times `scale`; never zero.
inline std::vector<float> random_normal(std::mt19937_64& r, size_t n, double scale = 1.0) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<float> v(n);
  for (auto& x : v) {
    double y = nd(r) * scale;
    x = float(y == 0.0 ? scale : y);
  }
  return v;
}

// Integers in [-k, k] (never 0): q . k is exact in f32 when hd * k^2 < 2^24, and with
// scale = 2^-n the scaled score too, so scores of +-1e4 carry no rounding.
inline std::vector<float> random_ints(std::mt19937_64& r, size_t n, int k) {
  std::uniform_int_distribution<int> u(-k, k);
  std::vector<float> v(n);
  for (auto& x : v) {
    int y = u(r);
    x = float(y == 0 ? 1 : y);
  }
  return v;
}

inline bool is_poison(float f) { return std::bit_cast<uint32_t>(f) == kPoisonBits; }

// The AttnParams uniform every kernel of the family binds at 0 (the same WGSL struct in all).
inline Buffer params_buffer(Device& d, const Shape& s) {
  return make_uniform(d, fwd::binding::p_fwd,
                      fwd::AttnParams{.batch = s.batch,
                                      .seq = s.seq,
                                      .heads = s.heads,
                                      .head_dim = s.head_dim,
                                      .scale = float(s.scale)},
                      "attn params");
}

// An input (exact contents) or an output (poisoned), each followed by kTail poisoned floats.
inline Buffer in_buffer(Device& d, const std::vector<float>& v, const std::string& label) {
  std::vector<float> x = v;
  x.resize(v.size() + kTail, poison_f32());
  return upload(d, x, label);
}
inline Buffer out_buffer(Device& d, size_t n, const std::string& label) {
  return upload(d, std::vector<float>(n + kTail, poison_f32()), label);
}

// Reads n elements and checks the tail stayed poisoned.
inline std::vector<float> read_out(Device& d, const Buffer& b, size_t n, const std::string& what) {
  auto all = read<float>(d, b);
  for (size_t i = n; i < all.size(); ++i)
    if (!is_poison(all[i])) {
      ADD_FAILURE() << what << "[" << i << "] past the " << n << " outputs was written";
      break;
    }
  all.resize(n);
  return all;
}

// Runs the dispatches (bind.hpp's record) in order, one compute pass each, in one submission;
// waits.
inline void run(Device& d, const std::vector<Dispatch>& ds) {
  CommandEncoder enc = d.create_command_encoder({"attention test"});
  for (const Dispatch& x : ds) {
    ComputePass pass = enc.begin_compute_pass();
    x.record(pass);
    pass.end();
  }
  d.queue().submit(enc.finish());
  d.wait_idle();
}

// The FA2 forward slots (qkv, out, lse after the params) for `k`, an FA2 forward kernel.
inline std::vector<BindGroupEntry> fwd_entries(const KernelInfo& k, const Buffer& params,
                                               const Buffer& qkv, const Buffer& out,
                                               const Buffer& lse) {
  using namespace fwd::binding;
  return entries_for(
      k, {bind(p_fwd, params), bind(qkv_fwd, qkv), bind(out_fwd, out), bind(lse_fwd, lse)});
}
// The FA2 backward slots (qkv, dout, lse, dsum, dqkv after the params) for `k`, an FA2 backward
// kernel.
inline std::vector<BindGroupEntry> bwd_entries(const KernelInfo& k, const Buffer& params,
                                               const Buffer& qkv, const Buffer& dout,
                                               const Buffer& lse, const Buffer& dsum,
                                               const Buffer& dqkv) {
  using namespace bwd::binding;
  return entries_for(k, {bind(p_dsf, params), bind(qkv_dsf, qkv), bind(dout_dsf, dout),
                         bind(lse_dsf, lse), bind(dsum_dsf, dsum), bind(dqkv_dsf, dqkv)});
}

// Every kernel of the family on one input, on the device.
struct Gpu {
  Device& d;
  Shape s;
  Buffer params;
  PipelineCache pipes;
  Gpu(Device& dev, const Shape& shape)
      : d(dev), s(shape), params(params_buffer(dev, shape)), pipes(dev) {}

  // A kernel of the generated headers over flat_id's grid of `n` invocations.
  template <class K>
  Dispatch flat(K k, std::initializer_list<KernelEntry<K>> e, uint64_t n) {
    return make_dispatch(d, pipes, k, e, K::grid(n, d.limits()));
  }
  // `k` (an FA2 kernel, by the registry's name: the host API's KernelDispatch) on (x, y, z).
  Dispatch on(const KernelInfo& k, std::vector<BindGroupEntry> e, uint32_t x, uint32_t y,
              uint32_t z) {
    return make_dispatch(d, pipes, k, std::move(e), std::array<uint32_t, 3>{x, y, z});
  }
  // The FA2 grid: (query tiles, heads, batch).
  Dispatch fa2_grid(const KernelInfo& k, std::vector<BindGroupEntry> e) {
    return on(k, std::move(e), s.q_tiles(), s.heads, s.batch);
  }

  struct Fwd {
    std::vector<float> att, out, lse;
  };
  Fwd naive_forward(const std::vector<float>& qkv) {
    Buffer q = in_buffer(d, qkv, "qkv"), att = out_buffer(d, s.att_size(), "att"),
           out = out_buffer(d, s.out_size(), "out");
    using namespace ak;
    run(d, {flat(attn_scores::Kernel{},
                 {bind(attn_scores::binding::p_scores, params),
                  bind(attn_scores::binding::qkv_scores, q),
                  bind(attn_scores::binding::att_scores, att)},
                 s.att_size()),
            flat(attn_softmax::Kernel{},
                 {bind(attn_softmax::binding::p_softmax, params),
                  bind(attn_softmax::binding::att_softmax, att)},
                 s.lse_size()),
            flat(attn_weighted_sum::Kernel{},
                 {bind(attn_weighted_sum::binding::p_wsum, params),
                  bind(attn_weighted_sum::binding::qkv_wsum, q),
                  bind(attn_weighted_sum::binding::att_wsum, att),
                  bind(attn_weighted_sum::binding::out_wsum, out)},
                 s.out_size())});
    return {read_out(d, att, s.att_size(), "att"), read_out(d, out, s.out_size(), "out"), {}};
  }
  Fwd fa2_forward(const std::vector<float>& qkv) {
    Buffer q = in_buffer(d, qkv, "qkv"), out = out_buffer(d, s.out_size(), "out"),
           lse = out_buffer(d, s.lse_size(), "lse");
    run(d, {fa2_grid(fwd::Kernel::info(), fwd_entries(fwd::Kernel::info(), params, q, out, lse))});
    return {{}, read_out(d, out, s.out_size(), "out"), read_out(d, lse, s.lse_size(), "lse")};
  }

  // attn_dsum: dsum from out and dout.
  Dispatch dsum(const Buffer& out, const Buffer& dout, const Buffer& ds) {
    namespace k = ak::attn_dsum;
    return flat(k::Kernel{},
                {bind(k::binding::p_dsum, params), bind(k::binding::out_dsum, out),
                 bind(k::binding::dout_dsum, dout), bind(k::binding::dsum, ds)},
                s.lse_size());
  }

  struct Bwd {
    std::vector<float> dsum, dscores, dqkv;
  };
  Bwd naive_backward(const std::vector<float>& qkv, const std::vector<float>& att,
                     const std::vector<float>& out, const std::vector<float>& dout) {
    Buffer q = in_buffer(d, qkv, "qkv"), a = in_buffer(d, att, "att"), o = in_buffer(d, out, "out"),
           g = in_buffer(d, dout, "dout");
    Buffer ds = out_buffer(d, s.lse_size(), "dsum"), dsc = out_buffer(d, s.att_size(), "dscores"),
           dq = out_buffer(d, s.qkv_size(), "dqkv");
    using namespace ak;
    run(d, {dsum(o, g, ds),
            flat(attn_dscores::Kernel{},
                 {bind(attn_dscores::binding::p_dscores, params),
                  bind(attn_dscores::binding::qkv_dscores, q),
                  bind(attn_dscores::binding::att_dscores, a),
                  bind(attn_dscores::binding::dout_dscores, g),
                  bind(attn_dscores::binding::dsum_dscores, ds),
                  bind(attn_dscores::binding::dscores, dsc)},
                 s.att_size()),
            flat(attn_dqkv::Kernel{},
                 {bind(attn_dqkv::binding::p_dqkv, params), bind(attn_dqkv::binding::qkv_dqkv, q),
                  bind(attn_dqkv::binding::att_dqkv, a), bind(attn_dqkv::binding::dout_dqkv, g),
                  bind(attn_dqkv::binding::dscores_dqkv, dsc),
                  bind(attn_dqkv::binding::dqkv_naive, dq)},
                 s.qkv_size())});
    return {read_out(d, ds, s.lse_size(), "dsum"), read_out(d, dsc, s.att_size(), "dscores"),
            read_out(d, dq, s.qkv_size(), "dqkv")};
  }
  Bwd fa2_backward(const std::vector<float>& qkv, const std::vector<float>& out,
                   const std::vector<float>& lse, const std::vector<float>& dout) {
    Buffer q = in_buffer(d, qkv, "qkv"), o = in_buffer(d, out, "out"), l = in_buffer(d, lse, "lse"),
           g = in_buffer(d, dout, "dout");
    Buffer ds = out_buffer(d, s.lse_size(), "dsum"), dq = out_buffer(d, s.qkv_size(), "dqkv");
    const KernelInfo &dsc = bwd::Kernel::info(), &dv = ak::attn_dv_fa2::Kernel::info();
    run(d, {dsum(o, g, ds), fa2_grid(dsc, bwd_entries(dsc, params, q, g, l, ds, dq)),
            fa2_grid(dv, bwd_entries(dv, params, q, g, l, ds, dq))});
    return {read_out(d, ds, s.lse_size(), "dsum"), {}, read_out(d, dq, s.qkv_size(), "dqkv")};
  }
};

// Inputs of a shape: normal q, k, v and dout, or (`large_logits`) integer q, k up to +-100 with
// v and dout kept O(1), so that only the scores are large.
struct Inputs {
  std::vector<float> qkv, dout;
};
inline Inputs random_inputs(std::mt19937_64& r, const Shape& s, bool large_logits = false) {
  Inputs in;
  in.qkv = large_logits ? random_ints(r, s.qkv_size(), 100) : random_normal(r, s.qkv_size());
  in.dout = random_normal(r, s.out_size());
  if (large_logits)  // keep v and dout O(1): only the scores are large
    for (uint64_t t = 0; t < s.rows(); ++t)
      for (uint64_t c = 0; c < s.d(); ++c) in.qkv[t * 3 * s.d() + 2 * s.d() + c] *= 0.01f;
  return in;
}

// Scores of +-1e4 (integer q, k: exact dot products; scale 1/8 exact), checked to reach them.
inline Inputs large_logit_inputs(std::mt19937_64& r, const Shape& s) {
  Inputs in = random_inputs(r, s, true);
  std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size());
  ref::naive_forward(s, ref::widen(in.qkv), att, out, lse);
  double big = 0;
  for (double l : lse) big = std::max(big, std::fabs(l));
  EXPECT_GT(big, 5000.0) << "inputs do not reach large scores";
  return in;
}

// All logits equal per row (q = 0): uniform attention; m - m_new = 0 rescales and ties of the max.
inline Inputs tied_score_inputs(std::mt19937_64& r, const Shape& s) {
  Inputs in = random_inputs(r, s);
  for (uint64_t t = 0; t < s.rows(); ++t)
    for (uint64_t c = 0; c < s.d(); ++c) in.qkv[t * 3 * s.d() + c] = 0.0f;
  return in;
}

// Every output's double reference on `in` (the naive forward, dsum, the naive backward) and the
// bounds of wgsl_ports/attention/reference.hpp; `with_att`: the att and dscores bounds too (the
// naive kernels' outputs), which the FA2-only checks do not need.
struct Expected {
  std::vector<double> att, out, lse, D, dS, dqkv;
  ref::ForwardBounds fb;
  ref::BackwardBounds bb;
};
inline Expected expected_of(const Shape& s, const Inputs& in, bool with_att) {
  const auto qkv = ref::widen(in.qkv), dout = ref::widen(in.dout);
  Expected e;
  e.att.resize(s.att_size()), e.out.resize(s.out_size()), e.lse.resize(s.lse_size());
  e.D.resize(s.lse_size()), e.dS.resize(s.att_size()), e.dqkv.resize(s.qkv_size());
  ref::naive_forward(s, qkv, e.att, e.out, e.lse);
  ref::dsum(s, e.out, dout, e.D);
  ref::naive_dscores(s, qkv, e.att, dout, e.D, e.dS);
  ref::naive_dqkv(s, qkv, e.att, dout, e.dS, e.dqkv);
  e.fb = ref::forward_bounds(s, qkv, with_att);
  e.bb = ref::backward_bounds(s, qkv, dout, e.fb, with_att);
  return e;
}

inline std::string shape_name(const Shape& s) {
  std::ostringstream o;
  o << "B" << s.batch << " T" << s.seq << " H" << s.heads << " hd" << s.head_dim;
  return o.str();
}

// |got_i - f32(want_i)| <= k * err_i for every i; reports the first few failures and the worst
// error in ULPs of mag (mag may be empty: then in ULPs of err's own scale is not printed).
struct Cmp {
  double worst_ratio = 0;  // max |diff| / err
  double worst_ulps = 0;   // max |diff| / ulp(mag)
  size_t bad = 0;
};
inline Cmp expect_within(const std::vector<float>& got, std::span<const double> want,
                         std::span<const double> err, std::span<const double> mag,
                         const std::string& what, double k = 1.0) {
  Cmp c;
  EXPECT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double e = float(want[i]);
    const double diff = std::fabs(double(got[i]) - e);
    const double tol = k * err[i];
    const bool ok = std::isfinite(got[i]) && diff <= tol;
    if (tol > 0) c.worst_ratio = std::max(c.worst_ratio, diff / tol);
    if (!mag.empty()) c.worst_ulps = std::max(c.worst_ulps, diff / f32_ulp_of(mag[i]));
    if (!ok && c.bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", expected " << e << " within "
                    << tol << " (" << (mag.empty() ? 0.0 : tol / f32_ulp_of(mag[i]))
                    << " ULP of the magnitude " << (mag.empty() ? 0.0 : mag[i]) << "), off by "
                    << diff;
  }
  EXPECT_EQ(c.bad, 0u) << what << ": elements outside the bound";
  return c;
}

// The same between two f32 results (FA2 vs naive on the device): within 2 err (each is within err
// of the reference).
inline void expect_close(const std::vector<float>& a, const std::vector<float>& b,
                         std::span<const double> err, const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(double(a[i]) - double(b[i]));
    if (!(diff <= 2 * err[i]) && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: " << a[i] << " vs " << b[i] << ", allowed "
                    << 2 * err[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

}  // namespace wgslvk::attention::testing
