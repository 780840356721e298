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

namespace wgslvk::attention::testing {

using namespace wgslvk::testing;

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

inline Buffer params_buffer(Device& d, const Shape& s) {
  uint32_t w[8] = {s.batch, s.seq, s.heads, s.head_dim, std::bit_cast<uint32_t>(float(s.scale)),
                   0,       0,     0};
  Buffer b = d.create_buffer({"attn params", 32, BufferUsage::Uniform | BufferUsage::CopyDst});
  d.queue().write_buffer(b, 0, w, sizeof w);
  return b;
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

struct Dispatch {
  std::string kernel;
  std::vector<BindGroupEntry> entries;
  uint32_t x = 1, y = 1, z = 1;
};

// Runs the dispatches in order, one compute pass each, in one submission; waits.
inline void run(Device& d, const std::vector<Dispatch>& ds) {
  CommandEncoder enc = d.create_command_encoder({"attention test"});
  std::vector<ComputePipeline> keep;
  std::vector<BindGroup> keep_bg;
  for (auto& x : ds) {
    ComputePipeline p = d.create_compute_pipeline({"", &kernel(x.kernel), {}, false});
    BindGroup bg = d.create_bind_group({x.kernel, p.get_bind_group_layout(0), x.entries});
    ComputePass pass = enc.begin_compute_pass();
    pass.set_pipeline(p);
    pass.set_bind_group(0, bg);
    pass.dispatch_workgroups(x.x, x.y, x.z);
    pass.end();
    keep.push_back(p);
    keep_bg.push_back(bg);
  }
  d.queue().submit(enc.finish());
  d.wait_idle();
}

// A 1-D count of 256-invocation workgroups on flat_id's grid.
inline Dispatch elementwise(Device& d, const std::string& k, std::vector<BindGroupEntry> e,
                            uint64_t n) {
  Grid g = grid_for_workgroups(div_ceil(n, 256), d.limits());
  return {k, std::move(e), g.x, g.y, 1};
}

// Every kernel of the family on one input, on the device.
struct Gpu {
  Device& d;
  Shape s;
  Buffer params;
  Gpu(Device& dev, const Shape& shape) : d(dev), s(shape), params(params_buffer(dev, shape)) {}

  struct Fwd {
    std::vector<float> att, out, lse;
  };
  Fwd naive_forward(const std::vector<float>& qkv) {
    Buffer q = in_buffer(d, qkv, "qkv"), att = out_buffer(d, s.att_size(), "att"),
           out = out_buffer(d, s.out_size(), "out");
    run(d, {elementwise(d, "attention/attn_scores", {{0, params}, {1, q}, {2, att}}, s.att_size()),
            elementwise(d, "attention/attn_softmax", {{0, params}, {1, att}}, s.lse_size()),
            elementwise(d, "attention/attn_weighted_sum", {{0, params}, {1, q}, {2, att}, {3, out}},
                        s.out_size())});
    return {read_out(d, att, s.att_size(), "att"), read_out(d, out, s.out_size(), "out"), {}};
  }
  Fwd fa2_forward(const std::vector<float>& qkv) {
    Buffer q = in_buffer(d, qkv, "qkv"), out = out_buffer(d, s.out_size(), "out"),
           lse = out_buffer(d, s.lse_size(), "lse");
    run(d, {{"attention/attn_fwd_fa2",
             {{0, params}, {1, q}, {2, out}, {3, lse}},
             s.q_tiles(),
             s.heads,
             s.batch}});
    return {{}, read_out(d, out, s.out_size(), "out"), read_out(d, lse, s.lse_size(), "lse")};
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
    run(d, {elementwise(d, "attention/attn_dsum", {{0, params}, {1, o}, {2, g}, {3, ds}},
                        s.lse_size()),
            elementwise(d, "attention/attn_dscores",
                        {{0, params}, {1, q}, {2, a}, {3, g}, {4, ds}, {5, dsc}}, s.att_size()),
            elementwise(d, "attention/attn_dqkv",
                        {{0, params}, {1, q}, {2, a}, {3, g}, {4, dsc}, {5, dq}}, s.qkv_size())});
    return {read_out(d, ds, s.lse_size(), "dsum"), read_out(d, dsc, s.att_size(), "dscores"),
            read_out(d, dq, s.qkv_size(), "dqkv")};
  }
  Bwd fa2_backward(const std::vector<float>& qkv, const std::vector<float>& out,
                   const std::vector<float>& lse, const std::vector<float>& dout) {
    Buffer q = in_buffer(d, qkv, "qkv"), o = in_buffer(d, out, "out"), l = in_buffer(d, lse, "lse"),
           g = in_buffer(d, dout, "dout");
    Buffer ds = out_buffer(d, s.lse_size(), "dsum"), dq = out_buffer(d, s.qkv_size(), "dqkv");
    run(d, {elementwise(d, "attention/attn_dsum", {{0, params}, {1, o}, {2, g}, {3, ds}},
                        s.lse_size()),
            {"attention/attn_dscores_fa2",
             {{0, params}, {1, q}, {2, g}, {3, l}, {4, ds}, {5, dq}},
             s.q_tiles(),
             s.heads,
             s.batch},
            {"attention/attn_dv_fa2",
             {{0, params}, {1, q}, {2, g}, {3, l}, {4, ds}, {5, dq}},
             s.q_tiles(),
             s.heads,
             s.batch}});
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
