// Benchmarks of attention.wgsl: FA2 against the naive path (which keeps the attention matrix),
// forward and backward, at the GPT presets of TinyGPT's engineering log (d_model 96/128/192/256, hd = 32,
// T = 128 and 256, B = 4) and the log's "Mega" shape (B=4, H=8, T=512, hd=64, where FA2 "keeps ~67
// MB per layer per step on chip"). Each row is a case timed by time_case: checked once against the
// double reference on batch 0 (every batch runs the same code; the reference of all batches would
// dominate the run), then timed. Bytes are the minimum traffic through device memory; the naive
// rows add the attention matrix's traffic (and dscores' for the backward), which the rule names.
// Flops: forward 4 B H hd T^2 / 2 (two causal matmuls), backward 2.5x that (five causal
// matmuls: s, dP, dV, dQ, dK), what FLOP/s comparisons of attention conventionally count (the
// FA2 backward rows execute 7: dq's jobs recompute s and dP). Backward rows: attn_bwd_fa2 (the
// ported pair), attn_bwd_fa2_wide, attn_bwd_fa2_tiled, attn_bwd_fa2_tiled4 (hd <= 64; attention/
// host.hpp's variants, dispatched through fa2_backward_dispatches) and attn_naive_backward, each
// after attn_dsum.
#include <cstdio>
#include <string>

#include "attention/cases_common.hpp"
#include "attention/host.hpp"
#include "attention/reference.hpp"
#include "wgslvk/bench/bench.hpp"

namespace wgslvk::attention {
namespace {

using namespace wgslvk::bench;
using namespace wgslvk::attention::cases;
using wgslvk::validate::Case;
using wgslvk::validate::CaseBuilder;
using wgslvk::validate::DType;
using wgslvk::validate::Rng;

struct Preset {
  std::string name;
  Shape s;
};

std::vector<Preset> presets(const Ctx& c) {
  if (c.quick()) return {{"quick", make_shape(1, 64, 2, 32)}};
  std::vector<Preset> p;
  const std::pair<const char*, uint32_t> gpt[] = {
      {"Small d96", 96}, {"Medium d128", 128}, {"Large d192", 192}, {"XL d256", 256}};
  for (auto [name, dm] : gpt)
    for (uint32_t T : {128u, 256u}) p.push_back({name, make_shape(4, T, dm / 32, 32)});
  p.push_back({"Mega", make_shape(4, 512, 8, 64)});
  p.push_back({"gpt110m d768", make_shape(8, 256, 12, 64)});  // the trainer's gpt110m layer
  return p;
}

std::string label(const Preset& p) {
  return p.name + " B" + std::to_string(p.s.batch) + " T" + std::to_string(p.s.seq) + " H" +
         std::to_string(p.s.heads) + " hd" + std::to_string(p.s.head_dim);
}

// The inputs of all batches and the full forward in double (the backward kernels' inputs, rounded
// to f32), and the references and bounds of batch 0 (the checked subset: its rows come first in
// every layout).
struct Data {
  Shape s, s0;
  std::vector<float> qkv, dout, att, out, lse;  // all batches, f32
  std::vector<double> att0, out0, lse0, dsum0, dqkv0;
  ref::ForwardBounds fb0;
  ref::BackwardBounds bb0;

  Data(const Shape& shape, bool with_att) : s(shape), s0(shape) {
    s0.batch = 1;
    Rng r(0xa7 + s.seq * 31 + s.heads * 7 + s.head_dim);
    qkv = randn(r, s.qkv_size());
    dout = randn(r, s.out_size());
    const auto q64 = ref::widen(qkv);
    std::vector<double> o(s.out_size()), l(s.lse_size());
    if (with_att) {
      std::vector<double> a(s.att_size());
      ref::naive_forward(s, q64, a, o, l);
      att = ref::narrow(a);
    } else {
      ref::fa2_forward(s, q64, o, l);
    }
    out = ref::narrow(o), lse = ref::narrow(l);
    // Batch 0.
    const std::vector<double> q0(q64.begin(), q64.begin() + s0.qkv_size());
    const std::vector<double> g0 = ref::widen(std::span<const float>(dout.data(), s0.out_size()));
    att0.resize(s0.att_size()), out0.resize(s0.out_size()), lse0.resize(s0.lse_size());
    dsum0.resize(s0.lse_size()), dqkv0.resize(s0.qkv_size());
    ref::naive_forward(s0, q0, att0, out0, lse0);
    ref::dsum(s0, out0, g0, dsum0);
    ref::naive_backward(s0, q0, att0, out0, g0, dqkv0);
    fb0 = ref::forward_bounds(s0, q0, false);
    bb0 = ref::backward_bounds(s0, q0, g0, fb0, false);
  }
};

// `wide`: attn_fwd_fa2_wide (attention_native.wgsl, ours) in place of attn_fwd_fa2; `tiled`:
// attn_fwd_fa2_tiled (ours, its own grid: attention/host.hpp).
Case fwd_case(const Data& x, bool fa2, bool wide = false, bool tiled = false) {
  const Shape& s = x.s;
  CaseBuilder b;
  b.input("qkv", DType::F32, x.qkv);
  b.output("out", DType::F32, s.out_size());
  if (fa2) {
    b.output("lse", DType::F32, s.lse_size());
    auto& d = b.dispatch(std::string(tiled  ? ka::attn_fwd_fa2_tiled::name
                                     : wide ? ka::attn_fwd_fa2_wide::name
                                            : fwd::name));
    bind_params(d, fwd::binding::p_fwd, s);
    CaseBuilder::bind(d, fwd::binding::qkv_fwd, "qkv");
    CaseBuilder::bind(d, fwd::binding::out_fwd, "out");
    CaseBuilder::bind(d, fwd::binding::lse_fwd, "lse");
    d.workgroups = std::array<uint32_t, 3>{s.q_tiles(), s.heads, s.batch};
    if (tiled) {
      const KernelDispatch k = fa2_forward_tiled_dispatch(s);
      d.workgroups = std::array<uint32_t, 3>{k.x, k.y, k.z};
    }
    Out l(x.s0.lse_size());
    l.set_all(x.lse0, x.fb0.lse_err, x.fb0.lse_mag);
    l.check(b, "lse", kWhyLse);
  } else {
    b.output("att", DType::F32, s.att_size());
    auto& d1 = b.dispatch(sc::Kernel{});
    bind_params(d1, sc::binding::p_scores, s);
    CaseBuilder::bind(d1, sc::binding::qkv_scores, "qkv");
    CaseBuilder::bind(d1, sc::binding::att_scores, "att");
    d1.workgroups_1d = sc::Kernel::workgroups(s.att_size());
    auto& d2 = b.dispatch(sm::Kernel{});
    bind_params(d2, sm::binding::p_softmax, s);
    CaseBuilder::bind(d2, sm::binding::att_softmax, "att");
    d2.workgroups_1d = sm::Kernel::workgroups(s.lse_size());
    auto& d3 = b.dispatch(ws::Kernel{});
    bind_params(d3, ws::binding::p_wsum, s);
    CaseBuilder::bind(d3, ws::binding::qkv_wsum, "qkv");
    CaseBuilder::bind(d3, ws::binding::att_wsum, "att");
    CaseBuilder::bind(d3, ws::binding::out_wsum, "out");
    d3.workgroups_1d = ws::Kernel::workgroups(s.out_size());
  }
  Out o(x.s0.out_size());
  o.set_all(x.out0, x.fb0.out_err, x.fb0.out_mag);
  o.check(b, "out", std::string(kWhyOut) + " (batch 0)");
  return b.c;
}

// `v`: which FA2 backward runs after attn_dsum (attention/host.hpp: the ported pair, the wide
// pair, or attn_bwd_fa2_tiled), dispatched as the host API lists it.
Case bwd_case(const Data& x, bool fa2, Fa2Backward v = Fa2Backward::Ported) {
  const Shape& s = x.s;
  CaseBuilder b;
  b.input("qkv", DType::F32, x.qkv);
  b.input("dout", DType::F32, x.dout);
  b.input("out", DType::F32, x.out);
  b.output("dsum", DType::F32, s.lse_size());
  b.output("dqkv", DType::F32, s.qkv_size());
  auto& d0 = b.dispatch(dsu::Kernel{});
  bind_params(d0, dsu::binding::p_dsum, s);
  CaseBuilder::bind(d0, dsu::binding::out_dsum, "out");
  CaseBuilder::bind(d0, dsu::binding::dout_dsum, "dout");
  CaseBuilder::bind(d0, dsu::binding::dsum, "dsum");
  d0.workgroups_1d = dsu::Kernel::workgroups(s.lse_size());
  if (fa2) {
    b.input("lse", DType::F32, x.lse);
    for (const KernelDispatch& k : fa2_backward_dispatches(s, v)) {
      auto& d = b.dispatch(k.kernel);
      bind_params(d, bwd::binding::p_dsf, s);
      CaseBuilder::bind(d, bwd::binding::qkv_dsf, "qkv");
      CaseBuilder::bind(d, bwd::binding::dout_dsf, "dout");
      CaseBuilder::bind(d, bwd::binding::lse_dsf, "lse");
      CaseBuilder::bind(d, bwd::binding::dsum_dsf, "dsum");
      CaseBuilder::bind(d, bwd::binding::dqkv_dsf, "dqkv");
      d.workgroups = std::array<uint32_t, 3>{k.x, k.y, k.z};
    }
  } else {
    b.input("att", DType::F32, x.att);
    b.output("dscores", DType::F32, s.att_size());
    auto& d1 = b.dispatch(dsc::Kernel{});
    bind_params(d1, dsc::binding::p_dscores, s);
    CaseBuilder::bind(d1, dsc::binding::qkv_dscores, "qkv");
    CaseBuilder::bind(d1, dsc::binding::att_dscores, "att");
    CaseBuilder::bind(d1, dsc::binding::dout_dscores, "dout");
    CaseBuilder::bind(d1, dsc::binding::dsum_dscores, "dsum");
    CaseBuilder::bind(d1, dsc::binding::dscores, "dscores");
    d1.workgroups_1d = dsc::Kernel::workgroups(s.att_size());
    auto& d2 = b.dispatch(dq::Kernel{});
    bind_params(d2, dq::binding::p_dqkv, s);
    CaseBuilder::bind(d2, dq::binding::qkv_dqkv, "qkv");
    CaseBuilder::bind(d2, dq::binding::att_dqkv, "att");
    CaseBuilder::bind(d2, dq::binding::dout_dqkv, "dout");
    CaseBuilder::bind(d2, dq::binding::dscores_dqkv, "dscores");
    CaseBuilder::bind(d2, dq::binding::dqkv_naive, "dqkv");
    d2.workgroups_1d = dq::Kernel::workgroups(s.qkv_size());
  }
  Out o(x.s0.qkv_size());
  o.set_all(x.dqkv0, x.bb0.dqkv_err, x.bb0.dqkv_mag);
  o.check(b, "dqkv", std::string(kWhyDqkv) + " (batch 0)");
  Out ds(x.s0.lse_size());
  ds.set_all(x.dsum0, x.bb0.dsum_err, x.bb0.dsum_mag);
  ds.check(b, "dsum", std::string(kWhyDsum) + " (batch 0)");
  return b.c;
}

Row make_row(const char* kernel, const std::string& label, const Shape& s, uint64_t bytes,
             const std::string& rule, double flops) {
  Row r;
  r.kernel = kernel;
  r.label = label;
  r.dims = {{"B", s.batch}, {"T", s.seq}, {"H", s.heads}, {"hd", s.head_dim}};
  r.bytes = bytes;
  r.bytes_rule = rule;
  r.flops = flops;
  return r;
}

void bench_attention(Ctx& c) {
  for (const Preset& p : presets(c)) {
    const Shape& s = p.s;
    const uint64_t f = 4;  // bytes per f32
    const uint64_t qkv_b = f * s.qkv_size(), out_b = f * s.out_size(), row_b = f * s.lse_size(),
                   att_b = f * s.att_size();
    const double fwd_flops = 4.0 * s.batch * s.heads * double(s.seq) * s.seq * s.head_dim / 2;
    const bool any_fwd = c.selected("attention", "attn_fwd_fa2") ||
                         c.selected("attention", "attn_fwd_fa2_wide") ||
                         c.selected("attention", "attn_fwd_fa2_tiled") ||
                         c.selected("attention", "attn_naive_forward");
    const bool any_bwd = c.selected("attention", "attn_bwd_fa2") ||
                         c.selected("attention", "attn_bwd_fa2_wide") ||
                         c.selected("attention", "attn_bwd_fa2_tiled") ||
                         c.selected("attention", "attn_bwd_fa2_tiled4") ||
                         c.selected("attention", "attn_naive_backward");
    if (!any_fwd && !any_bwd) continue;
    Data x(s, true);
    double t_fa2 = 0, t_naive = 0, t_wide = 0;
    if (c.selected("attention", "attn_fwd_fa2")) {
      Row& r = time_case(c, fwd_case(x, true),
                         make_row("attn_fwd_fa2", label(p), s, qkv_b + out_b + row_b,
                                  "read qkv, write out and lse; no attention matrix", fwd_flops));
      t_fa2 = r.t.median;
    }
    if (c.selected("attention", "attn_fwd_fa2_wide")) {
      Row& r = time_case(c, fwd_case(x, true, true),
                         make_row("attn_fwd_fa2_wide", label(p), s, qkv_b + out_b + row_b,
                                  "read qkv, write out and lse; no attention matrix", fwd_flops));
      t_wide = r.t.median;
    }
    double t_ftiled = 0;
    if (c.selected("attention", "attn_fwd_fa2_tiled")) {
      Row& r = time_case(c, fwd_case(x, true, false, true),
                         make_row("attn_fwd_fa2_tiled", label(p), s, qkv_b + out_b + row_b,
                                  "read qkv, write out and lse; no attention matrix", fwd_flops));
      t_ftiled = r.t.median;
    }
    if (t_ftiled > 0 && t_wide > 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "attention forward %s: FA2 wide / tiled time = %.2f",
                    label(p).c_str(), t_wide / t_ftiled);
      c.note(buf);
    }
    if (c.selected("attention", "attn_naive_forward")) {
      Row& r = time_case(
          c, fwd_case(x, false),
          make_row("attn_naive_forward", label(p), s, qkv_b + out_b + 4 * att_b,
                   "read qkv, write out, plus the attention matrix (" + human_count(att_b) +
                       "B) written by scores, read and written by "
                       "softmax, read by the weighted sum (4x)",
                   fwd_flops));
      t_naive = r.t.median;
    }
    if (t_fa2 > 0 && t_naive > 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "attention forward %s: naive / FA2 time = %.2f",
                    label(p).c_str(), t_naive / t_fa2);
      c.note(buf);
    }
    if (t_wide > 0 && t_naive > 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "attention forward %s: naive / FA2 wide time = %.2f (FA2 / wide = %.2f)",
                    label(p).c_str(), t_naive / t_wide, t_fa2 > 0 ? t_fa2 / t_wide : 0.0);
      c.note(buf);
    }
    t_fa2 = t_naive = t_wide = 0;
    if (c.selected("attention", "attn_bwd_fa2")) {
      Row& r = time_case(c, bwd_case(x, true),
                         make_row("attn_bwd_fa2", label(p), s, 2 * qkv_b + 2 * out_b + 3 * row_b,
                                  "attn_dsum + attn_dscores_fa2 + attn_dv_fa2: read qkv, out, "
                                  "dout, lse; write dsum, dqkv; no attention matrix",
                                  2.5 * fwd_flops));
      t_fa2 = r.t.median;
    }
    if (c.selected("attention", "attn_bwd_fa2_wide")) {
      Row& r =
          time_case(c, bwd_case(x, true, Fa2Backward::Wide),
                    make_row("attn_bwd_fa2_wide", label(p), s, 2 * qkv_b + 2 * out_b + 3 * row_b,
                             "attn_dsum + attn_dscores_fa2_wide + attn_dv_fa2_wide: read qkv, "
                             "out, dout, lse; write dsum, dqkv; no attention matrix",
                             2.5 * fwd_flops));
      t_wide = r.t.median;
    }
    double t_tiled = 0;
    if (c.selected("attention", "attn_bwd_fa2_tiled")) {
      Row& r =
          time_case(c, bwd_case(x, true, Fa2Backward::Tiled),
                    make_row("attn_bwd_fa2_tiled", label(p), s, 2 * qkv_b + 2 * out_b + 3 * row_b,
                             "attn_dsum + attn_bwd_fa2_tiled: read qkv, out, dout, lse; "
                             "write dsum, dqkv; no attention matrix",
                             2.5 * fwd_flops));
      t_tiled = r.t.median;
    }
    if (s.head_dim <= kTiled4MaxHeadDim && c.selected("attention", "attn_bwd_fa2_tiled4")) {
      Row& r =
          time_case(c, bwd_case(x, true, Fa2Backward::Tiled4),
                    make_row("attn_bwd_fa2_tiled4", label(p), s, 2 * qkv_b + 2 * out_b + 3 * row_b,
                             "attn_dsum + attn_bwd_fa2_tiled4: read qkv, out, dout, lse; "
                             "write dsum, dqkv; no attention matrix",
                             2.5 * fwd_flops));
      if (t_tiled > 0) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "attention backward %s: FA2 tiled / tiled4 time = %.2f",
                      label(p).c_str(), t_tiled / r.t.median);
        c.note(buf);
      }
    }
    if (c.selected("attention", "attn_naive_backward")) {
      Row& r = time_case(
          c, bwd_case(x, false),
          make_row("attn_naive_backward", label(p), s,
                   2 * qkv_b + 2 * out_b + 2 * row_b + 4 * att_b,
                   "attn_dsum + attn_dscores + attn_dqkv: read qkv, out, dout; write dsum, "
                   "dqkv; plus att read twice, dscores written once and read once (4x " +
                       human_count(att_b) + "B)",
                   2.5 * fwd_flops));
      t_naive = r.t.median;
    }
    if (t_fa2 > 0 && t_naive > 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "attention backward %s: naive / FA2 time = %.2f",
                    label(p).c_str(), t_naive / t_fa2);
      c.note(buf);
    }
    if (t_wide > 0 && t_naive > 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "attention backward %s: naive / FA2 wide time = %.2f (FA2 / wide = %.2f)",
                    label(p).c_str(), t_naive / t_wide, t_fa2 > 0 ? t_fa2 / t_wide : 0.0);
      c.note(buf);
    }
    if (t_tiled > 0 && t_naive > 0) {
      char buf[240];
      std::snprintf(buf, sizeof buf,
                    "attention backward %s: naive / FA2 tiled time = %.2f (FA2 / tiled = %.2f, "
                    "wide / tiled = %.2f)",
                    label(p).c_str(), t_naive / t_tiled, t_fa2 > 0 ? t_fa2 / t_tiled : 0.0,
                    t_wide > 0 ? t_wide / t_tiled : 0.0);
      c.note(buf);
    }
  }
}

}  // namespace
}  // namespace wgslvk::attention

WGSLVK_REGISTER_BENCH("attention", wgslvk::attention::bench_attention);
