// Golden cases of attention.wgsl and attention_native.wgsl (TinyGPT's engineering log, the
// FlashAttention-2 entry): each kernel alone on inputs from the double reference (rounded to
// f32), and chains (naive forward, FA2 backward) where a kernel's input is another's output.
// T not a multiple of 16 (1, 15, 17, 33, 100), head dims 32/64/80, B*H > 1, causal masking at tile
// edges, scores of +-1e4, and the naive scores kernel on a grid of more than 65535 workgroups.
// Expected values and bounds: wgsl_ports/attention/reference.hpp (each output's bound is a
// per-element count of ULPs of a named magnitude, from the reference's error formulas).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "attention/reference.hpp"
#include "wgslvk/kernels/attention/attn_dscores_mat.hpp"
#include "wgslvk/kernels/attention/attn_softmax_mat.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/validate/case_builder.hpp"
#include "wgslvk/validate/compare.hpp"
#include "attention/cases_common.hpp"
#include "attention/host.hpp"

namespace wgslvk::validate {
namespace {

namespace aref = wgslvk::attention::ref;
using namespace wgslvk::attention::cases;
using wgslvk::attention::make_shape;
using wgslvk::attention::Shape;

struct Problem {
  Shape s;
  std::vector<float> qkv, dout;
  std::vector<double> q64, g64;  // widened
  std::vector<double> scores, att, out, lse, dsum, dscores, dqkv;
  aref::ForwardBounds fb;
  aref::BackwardBounds bb;
  Problem(const Shape& shape, std::vector<float> q, std::vector<float> g, bool backward)
      : s(shape), qkv(std::move(q)), dout(std::move(g)) {
    q64 = aref::widen(qkv);
    scores.resize(s.att_size()), att.resize(s.att_size()), out.resize(s.out_size());
    lse.resize(s.lse_size());
    aref::naive_scores(s, q64, scores);
    aref::naive_softmax(s, scores, att, lse);
    aref::naive_weighted_sum(s, q64, att, out);
    fb = aref::forward_bounds(s, q64, true);
    if (!backward) return;
    g64 = aref::widen(dout);
    dsum.resize(s.lse_size()), dscores.resize(s.att_size()), dqkv.resize(s.qkv_size());
    aref::dsum(s, out, g64, dsum);
    aref::naive_dscores(s, q64, att, g64, dsum, dscores);
    aref::naive_dqkv(s, q64, att, g64, dscores, dqkv);
    bb = aref::backward_bounds(s, q64, g64, fb, true);
  }
};

Problem random_problem(uint64_t seed, const Shape& s, bool backward, bool large = false) {
  Rng r(seed);
  auto q = large ? randi(r, s.qkv_size(), 100) : randn(r, s.qkv_size());
  if (large) shrink_v(s, q);
  auto g = backward ? randn(r, s.out_size()) : std::vector<float>{};
  return Problem(s, std::move(q), std::move(g), backward);
}

std::string shape_text(const Shape& s) {
  return "B=" + std::to_string(s.batch) + " T=" + std::to_string(s.seq) +
         " H=" + std::to_string(s.heads) + " hd=" + std::to_string(s.head_dim);
}

// A random small shape (goldens stay small): hd one of 32/64/80, B*H one of 1/2, T in [5, 48]
// for hd = 32 and [5, 24] otherwise (mostly not a multiple of 16; T = 1 has its own case).
Shape random_shape(uint64_t seed) {
  Rng r(seed ^ 0xa77e);
  const uint32_t hds[] = {32, 64, 80};
  const uint32_t hd = hds[r.below(3)];
  const uint32_t bh = 1 + r.below(2), two_heads = r.below(2);
  const uint32_t T = 5 + r.below(hd == 32 ? 44 : 20);
  return make_shape(two_heads ? 1 : bh, T, two_heads ? bh : 1, hd);
}

// ---- naive forward, kernel by kernel ------------------------------------------------------------

Case scores_case(const Problem& p, const std::string& what) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("qkv", DType::F32, p.qkv);
  b.output("att", DType::F32, p.s.att_size());
  auto& d = b.dispatch(sc::Kernel{});
  bind_params(d, sc::binding::p_scores, p.s);
  CaseBuilder::bind(d, sc::binding::qkv_scores, "qkv");
  CaseBuilder::bind(d, sc::binding::att_scores, "att");
  d.workgroups_1d = sc::Kernel::workgroups(p.s.att_size());
  std::vector<double> err(p.s.att_size()), mag(p.s.att_size());
  aref::scores_bounds(p.s, p.q64, err, mag);
  Out o(p.s.att_size());
  o.set_all(p.scores, err, mag);
  o.check(b, "att",
          "scores_bounds: an hd-term dot and the scale multiply, (hd + 2)u S in ULP of S = |scale| "
          "sum |q k|; exact 0.0 above the diagonal");
  return b.c;
}
Case scores_basic(uint64_t seed) {
  return scores_case(random_problem(seed, random_shape(seed), false),
                     "scaled scores q.k/sqrt(hd) below the diagonal, 0.0 above");
}

Case softmax_case(const Problem& p, const std::string& what) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("att", DType::F32, aref::narrow(p.scores));  // the scores kernel's output, in place
  auto& d = b.dispatch(sm::Kernel{});
  bind_params(d, sm::binding::p_softmax, p.s);
  CaseBuilder::bind(d, sm::binding::att_softmax, "att");
  d.workgroups_1d = sm::Kernel::workgroups(p.s.lse_size());
  std::vector<double> sc32 = aref::widen(aref::narrow(p.scores)), att(p.s.att_size());
  aref::naive_softmax(p.s, sc32, att);
  Out o(p.s.att_size());
  o.set_all(att, p.fb.att_err, att);
  o.check(b, "att", kWhyAtt);
  return b.c;
}
Case softmax_basic(uint64_t seed) {
  return softmax_case(random_problem(seed, random_shape(seed), false),
                      "max-subtracted causal softmax in place over f32 scores");
}
Case softmax_large_logits(uint64_t seed) {
  return softmax_case(random_problem(seed, make_shape(1, 33, 2, 64), false, true),
                      "scores of +-1e4 (integer q, k; exact): no overflow, no NaN; the winner "
                      "takes almost all the weight, tiny weights underflow to 0");
}

Case wsum_case(const Problem& p, const std::string& what) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("qkv", DType::F32, p.qkv);
  b.input("att", DType::F32, aref::narrow(p.att));
  b.output("out", DType::F32, p.s.out_size());
  auto& d = b.dispatch(ws::Kernel{});
  bind_params(d, ws::binding::p_wsum, p.s);
  CaseBuilder::bind(d, ws::binding::qkv_wsum, "qkv");
  CaseBuilder::bind(d, ws::binding::att_wsum, "att");
  CaseBuilder::bind(d, ws::binding::out_wsum, "out");
  d.workgroups_1d = ws::Kernel::workgroups(p.s.out_size());
  std::vector<double> out(p.s.out_size());
  aref::naive_weighted_sum(p.s, p.q64, aref::widen(aref::narrow(p.att)), out);
  Out o(p.s.out_size());
  o.set_all(out, p.fb.out_err, p.fb.out_mag);
  o.check(b, "out", kWhyOut);
  return b.c;
}
Case wsum_basic(uint64_t seed) {
  return wsum_case(random_problem(seed, random_shape(seed), false),
                   "att @ v into the heads-concatenated output");
}

// The three naive kernels chained, with qkv from a `generate` buffer: B*H*T*T = 4 * 2048^2
// elements, 65536 workgroups of attn_scores (a 2-D grid). hd = 1 keeps the checked output (out,
// 8192 floats) small while every att element still feeds it.
Case naive_grid_2d(uint64_t seed) {
  const Shape s = make_shape(4, 2048, 1, 1);
  CaseBuilder b;
  b.c.description =
      "attn_scores -> attn_softmax -> attn_weighted_sum at B=4 T=2048 H=1 hd=1: the scores "
      "kernel runs 65536 workgroups on a 2-D grid (flat_id); out depends on every att element";
  Generate g;
  g.kind = "uniform";
  g.seed = seed;
  g.lo = -3.0;
  g.hi = 3.0;
  b.generated("qkv", DType::F32, s.qkv_size(), g);
  const auto bytes = b.c.buffers.back().initial_bytes();
  std::vector<float> qkv(s.qkv_size());
  std::memcpy(qkv.data(), bytes.data(), qkv.size() * 4);
  Problem p(s, qkv, {}, false);
  b.output("att", DType::F32, s.att_size());
  b.output("out", DType::F32, s.out_size());
  auto& d1 = b.dispatch(sc::Kernel{}, "scores");
  bind_params(d1, sc::binding::p_scores, s);
  CaseBuilder::bind(d1, sc::binding::qkv_scores, "qkv");
  CaseBuilder::bind(d1, sc::binding::att_scores, "att");
  d1.workgroups_1d = sc::Kernel::workgroups(s.att_size());
  auto& d2 = b.dispatch(sm::Kernel{}, "softmax");
  bind_params(d2, sm::binding::p_softmax, s);
  CaseBuilder::bind(d2, sm::binding::att_softmax, "att");
  d2.workgroups_1d = sm::Kernel::workgroups(s.lse_size());
  auto& d3 = b.dispatch(ws::Kernel{}, "weighted sum");
  bind_params(d3, ws::binding::p_wsum, s);
  CaseBuilder::bind(d3, ws::binding::qkv_wsum, "qkv");
  CaseBuilder::bind(d3, ws::binding::att_wsum, "att");
  CaseBuilder::bind(d3, ws::binding::out_wsum, "out");
  d3.workgroups_1d = ws::Kernel::workgroups(s.out_size());
  Out o(s.out_size());
  o.set_all(p.out, p.fb.out_err, p.fb.out_mag);
  o.check(b, "out", kWhyOut);
  return b.c;
}

// ---- FA2 forward --------------------------------------------------------------------------------

// `kernel`: attn_fwd_fa2 or its wide variant attn_fwd_fa2_wide (the same ABI and dispatch), or
// attn_fwd_fa2_tiled (the same ABI, its own grid).
Case fwd_fa2_case(const Problem& p, const std::string& what,
                  std::string_view kernel = fwd::Kernel::name) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("qkv", DType::F32, p.qkv);
  b.output("out", DType::F32, p.s.out_size());
  b.output("lse", DType::F32, p.s.lse_size());
  auto& d = b.dispatch(std::string(kernel));
  bind_params(d, fwd::binding::p_fwd, p.s);
  CaseBuilder::bind(d, fwd::binding::qkv_fwd, "qkv");
  CaseBuilder::bind(d, fwd::binding::out_fwd, "out");
  CaseBuilder::bind(d, fwd::binding::lse_fwd, "lse");
  if (kernel == ka::attn_fwd_fa2_tiled::name) {  // (B * H, ceil(T / 32), 1): the host API's
    const auto k = wgslvk::attention::fa2_forward_tiled_dispatch(p.s);
    d.workgroups = std::array<uint32_t, 3>{k.x, k.y, k.z};
  } else {
    d.workgroups = std::array<uint32_t, 3>{p.s.q_tiles(), p.s.heads, p.s.batch};
  }
  Out o(p.s.out_size()), l(p.s.lse_size());
  o.set_all(p.out, p.fb.out_err, p.fb.out_mag);
  l.set_all(p.lse, p.fb.lse_err, p.fb.lse_mag);
  o.check(b, "out", kWhyOut);
  l.check(b, "lse", kWhyLse);
  return b.c;
}
Case fwd_fa2_basic(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, random_shape(seed), false),
                      "online softmax over K/V blocks of 16, equal to the naive reference");
}
Case fwd_fa2_t1(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(2, 1, 2, 32), false),
                      "T = 1: one row, one key, 15 idle rows in the tile; out = v_0, lse = s_00");
}
Case fwd_fa2_tile_edges(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(1, 33, 1, 80), false),
                      "T = 33: tiles of 16, 16, 1 rows; the diagonal block's mask at rows 15/16 "
                      "and 31/32/33; hd = 80 (not a power of two)");
}
Case fwd_fa2_t100(uint64_t seed) {
  return fwd_fa2_case(
      random_problem(seed, make_shape(2, 100, 2, 4), false),
      "T = 100, B*H = 4, hd = 4: 7 tiles, the last of 4 rows; 7 rescales of (m, l, O)");
}
Case fwd_fa2_large_logits(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(1, 40, 1, 64), false, true),
                      "scores of +-1e4: the running max rescales by exp(m - m') without overflow");
}

// ---- attn_dsum, naive backward --------------------------------------------------------------------

Case dsum_case(const Problem& p, const std::string& what) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("out", DType::F32, aref::narrow(p.out));
  b.input("dout", DType::F32, p.dout);
  b.output("dsum", DType::F32, p.s.lse_size());
  auto& d = b.dispatch(dsu::Kernel{});
  bind_params(d, dsu::binding::p_dsum, p.s);
  CaseBuilder::bind(d, dsu::binding::out_dsum, "out");
  CaseBuilder::bind(d, dsu::binding::dout_dsum, "dout");
  CaseBuilder::bind(d, dsu::binding::dsum, "dsum");
  d.workgroups_1d = dsu::Kernel::workgroups(p.s.lse_size());
  Out o(p.s.lse_size());
  o.set_all(p.dsum, p.bb.dsum_err, p.bb.dsum_mag);
  o.check(b, "dsum", kWhyDsum);
  return b.c;
}
Case dsum_basic(uint64_t seed) {
  return dsum_case(random_problem(seed, random_shape(seed), true),
                   "rowsum(dout * out) per (b, h, i)");
}

Case dscores_case(const Problem& p, const std::string& what) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("qkv", DType::F32, p.qkv);
  b.input("att", DType::F32, aref::narrow(p.att));
  b.input("dout", DType::F32, p.dout);
  b.input("dsum", DType::F32, aref::narrow(p.dsum));
  b.output("dscores", DType::F32, p.s.att_size());
  auto& d = b.dispatch(dsc::Kernel{});
  bind_params(d, dsc::binding::p_dscores, p.s);
  CaseBuilder::bind(d, dsc::binding::qkv_dscores, "qkv");
  CaseBuilder::bind(d, dsc::binding::att_dscores, "att");
  CaseBuilder::bind(d, dsc::binding::dout_dscores, "dout");
  CaseBuilder::bind(d, dsc::binding::dsum_dscores, "dsum");
  CaseBuilder::bind(d, dsc::binding::dscores, "dscores");
  d.workgroups_1d = dsc::Kernel::workgroups(p.s.att_size());
  Out o(p.s.att_size());
  o.set_all(p.dscores, p.bb.dscores_err, p.bb.dscores_mag);
  o.check(b, "dscores", kWhyDscores);
  return b.c;
}
Case dscores_basic(uint64_t seed) {
  return dscores_case(random_problem(seed, random_shape(seed), true),
                      "att * (dout . v - dsum) from the cached attention matrix");
}

Case dqkv_case(const Problem& p, const std::string& what) {
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(p.s) + ")";
  b.input("qkv", DType::F32, p.qkv);
  b.input("att", DType::F32, aref::narrow(p.att));
  b.input("dout", DType::F32, p.dout);
  b.input("dscores", DType::F32, aref::narrow(p.dscores));
  b.output("dqkv", DType::F32, p.s.qkv_size());
  auto& d = b.dispatch(dq::Kernel{});
  bind_params(d, dq::binding::p_dqkv, p.s);
  CaseBuilder::bind(d, dq::binding::qkv_dqkv, "qkv");
  CaseBuilder::bind(d, dq::binding::att_dqkv, "att");
  CaseBuilder::bind(d, dq::binding::dout_dqkv, "dout");
  CaseBuilder::bind(d, dq::binding::dscores_dqkv, "dscores");
  CaseBuilder::bind(d, dq::binding::dqkv_naive, "dqkv");
  d.workgroups_1d = dq::Kernel::workgroups(p.s.qkv_size());
  Out o(p.s.qkv_size());
  o.set_all(p.dqkv, p.bb.dqkv_err, p.bb.dqkv_mag);
  o.check(b, "dqkv", kWhyDqkv);
  return b.c;
}
Case dqkv_basic(uint64_t seed) {
  return dqkv_case(random_problem(seed, random_shape(seed), true),
                   "dq, dk, dv in the packed qkv layout from att and dscores");
}

// ---- FA2 backward ---------------------------------------------------------------------------------

enum class Fa2Bwd { Dq, DkDv, Both, AllGivenDsum };

// Inputs are the reference's f32 out/lse/dsum (within the forward bounds the backward's bound
// assumes). Dq: only the q columns are written (k and v stay poison); DkDv: the k and v columns;
// Both: attn_dsum, attn_dscores_fa2 and attn_dv_fa2 chained, all of dqkv; AllGivenDsum: all of
// dqkv from the reference's dsum (attn_bwd_fa2_tiled alone).
// `v`: the variant (attention/host.hpp): the ported pair, the *_wide pair (the same ABI and
// dispatch) or attn_bwd_fa2_tiled (one kernel, the same bindings; Both or AllGivenDsum only).
Case bwd_fa2_case(const Problem& p, Fa2Bwd which, const std::string& what,
                  wgslvk::attention::Fa2Backward v = wgslvk::attention::Fa2Backward::Ported) {
  const Shape& s = p.s;
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(s) + ")";
  b.input("qkv", DType::F32, p.qkv);
  b.input("dout", DType::F32, p.dout);
  b.input("lse", DType::F32, aref::narrow(p.lse));
  if (which == Fa2Bwd::Both) {
    b.input("out", DType::F32, aref::narrow(p.out));
    b.output("dsum", DType::F32, s.lse_size());
    auto& d = b.dispatch(dsu::Kernel{}, "dsum");
    bind_params(d, dsu::binding::p_dsum, s);
    CaseBuilder::bind(d, dsu::binding::out_dsum, "out");
    CaseBuilder::bind(d, dsu::binding::dout_dsum, "dout");
    CaseBuilder::bind(d, dsu::binding::dsum, "dsum");
    d.workgroups_1d = dsu::Kernel::workgroups(s.lse_size());
  } else {
    b.input("dsum", DType::F32, aref::narrow(p.dsum));
  }
  b.output("dqkv", DType::F32, s.qkv_size());
  for (const auto& k : wgslvk::attention::fa2_backward_dispatches(s, v)) {
    const bool dq_kernel =
        k.kernel == ka::attn_dscores_fa2::name || k.kernel == ka::attn_dscores_fa2_wide::name;
    const bool dkdv_kernel =
        k.kernel == ka::attn_dv_fa2::name || k.kernel == ka::attn_dv_fa2_wide::name;
    if ((dq_kernel && which == Fa2Bwd::DkDv) || (dkdv_kernel && which == Fa2Bwd::Dq)) continue;
    const std::string name = k.kernel.substr(k.kernel.find('/') + 1);
    auto& d = b.dispatch(k.kernel, name);
    bind_params(d, bwd::binding::p_dsf, s);
    CaseBuilder::bind(d, bwd::binding::qkv_dsf, "qkv");
    CaseBuilder::bind(d, bwd::binding::dout_dsf, "dout");
    CaseBuilder::bind(d, bwd::binding::lse_dsf, "lse");
    CaseBuilder::bind(d, bwd::binding::dsum_dsf, "dsum");
    CaseBuilder::bind(d, bwd::binding::dqkv_dsf, "dqkv");
    d.workgroups = std::array<uint32_t, 3>{k.x, k.y, k.z};
  }
  Out o(s.qkv_size());
  for (uint64_t t = 0; t < s.rows(); ++t)
    for (uint64_t c = 0; c < 3 * s.d(); ++c) {
      const uint64_t part = c / s.d(), e = t * 3 * s.d() + c;
      if ((part == 0 && which == Fa2Bwd::DkDv) || (part > 0 && which == Fa2Bwd::Dq)) continue;
      o.set(e, p.dqkv[e], p.bb.dqkv_err[e], p.bb.dqkv_mag[e]);
    }
  o.check(b, "dqkv",
          std::string(kWhyDqkv) + (which == Fa2Bwd::Dq     ? "; k and v columns stay poison"
                                   : which == Fa2Bwd::DkDv ? "; q columns stay poison"
                                                           : ""));
  if (which == Fa2Bwd::Both) {
    Out ds(s.lse_size());
    ds.set_all(p.dsum, p.bb.dsum_err, p.bb.dsum_mag);
    ds.check(b, "dsum", kWhyDsum);
  }
  return b.c;
}
Case dscores_fa2_basic(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, random_shape(seed), true), Fa2Bwd::Dq,
                      "dq per Q tile, P recomputed from q, k and lse");
}
Case dv_fa2_basic(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, random_shape(seed), true), Fa2Bwd::DkDv,
                      "dk and dv per K tile, walking Q blocks from the diagonal");
}
Case bwd_fa2_tile_edges(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 17, 1, 80), true), Fa2Bwd::Both,
                      "attn_dsum -> attn_dscores_fa2 -> attn_dv_fa2 at T = 17 (a one-row last "
                      "tile), hd = 80");
}
Case bwd_fa2_t100(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 100, 2, 8), true), Fa2Bwd::Both,
                      "the FA2 backward chain at T = 100, H = 2, hd = 8: 7 Q and K tiles");
}
Case bwd_fa2_t15_b2(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(2, 15, 1, 32), true), Fa2Bwd::Both,
                      "the FA2 backward chain at T = 15 (one partial tile), B = 2");
}
Case bwd_fa2_large_logits(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 33, 1, 64), true, true), Fa2Bwd::Both,
                      "scores of +-1e4: exp(s - L) recomputed without overflow");
}

// ---- the *_wide FA2 variants (attention_native.wgsl, ours) -------------------------------------
// The same cases as the ported kernels' (same expected values and bounds: the variants compute
// the same sums in another order), on the wide kernels. Kept small (the family's goldens stay
// under 1.5 MB): one head, T in [5, 20] for the randomized cases; large logits, T = 100 and the
// other shapes are covered on the device by tests/attention/test_attention_variants.cpp.

Shape random_shape_wide(uint64_t seed) {
  Rng r(seed ^ 0x3a1d);
  const uint32_t hds[] = {32, 64, 80};
  return make_shape(1, 5 + r.below(16), 1, hds[r.below(3)]);
}

Case fwd_fa2_wide_basic(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, random_shape_wide(seed), false),
                      "attn_fwd_fa2_wide: 8 invocations per Q row, each owning head columns "
                      "g + 8t; scores from 8 partial dots",
                      ka::attn_fwd_fa2_wide::name);
}
Case fwd_fa2_wide_t17_hd128(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(1, 17, 1, 128), false),
                      "attn_fwd_fa2_wide at hd = 128 (16 columns per invocation, the block "
                      "buffer full) and T = 17 (a one-row last tile)",
                      ka::attn_fwd_fa2_wide::name);
}
Case dscores_fa2_wide_basic(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, random_shape_wide(seed), true), Fa2Bwd::Dq,
                      "attn_dscores_fa2_wide: dq per Q tile, 8 invocations per row",
                      wgslvk::attention::Fa2Backward::Wide);
}
Case dv_fa2_wide_basic(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, random_shape_wide(seed), true), Fa2Bwd::DkDv,
                      "attn_dv_fa2_wide: dk and dv per K tile, 8 invocations per key row",
                      wgslvk::attention::Fa2Backward::Wide);
}
Case bwd_fa2_wide_t17(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 17, 1, 32), true), Fa2Bwd::Both,
                      "attn_dsum -> attn_dscores_fa2_wide -> attn_dv_fa2_wide at T = 17 (a "
                      "one-row last tile)",
                      wgslvk::attention::Fa2Backward::Wide);
}

// ---- attn_bwd_fa2_tiled (attention_native.wgsl, ours) -------------------------------------------
// The whole FA2 backward in one dispatch (dk/dv jobs per K tile of 32, dq jobs per Q tile of 32):
// the same expected values and bounds as every backward path. Small (0.3 MB: T <= 40, hd 80 only
// at T = 33); T = 100, B*H = 4, other head dims and large logits beside the chain are covered on the
// device by tests/attention/test_attention_variants.cpp.

Case bwd_fa2_tiled_basic(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, random_shape_wide(seed), true), Fa2Bwd::AllGivenDsum,
                      "attn_bwd_fa2_tiled: dk, dv per K tile and dq per Q tile of 32 rows, one "
                      "dispatch, 2 x 2 outputs per invocation from 32 x 32 workgroup tiles",
                      wgslvk::attention::Fa2Backward::Tiled);
}
Case bwd_fa2_tiled_t33_hd80(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 33, 1, 80), true), Fa2Bwd::Both,
                      "attn_dsum -> attn_bwd_fa2_tiled at T = 33 (tiles of 32 and 1 rows: the "
                      "diagonal block's mask and a one-row last tile), hd = 80 (chunks of 32, 32 "
                      "and 16 columns)",
                      wgslvk::attention::Fa2Backward::Tiled);
}
Case bwd_fa2_tiled_b2h2(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(2, 40, 2, 4), true), Fa2Bwd::Both,
                      "attn_dsum -> attn_bwd_fa2_tiled at B = 2, H = 2, T = 40 (2 tiles, 4 jobs "
                      "per head: grid x = B*H = 4), hd = 4",
                      wgslvk::attention::Fa2Backward::Tiled);
}
Case bwd_fa2_tiled_large_logits(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 40, 1, 32), true, true),
                      Fa2Bwd::AllGivenDsum,
                      "attn_bwd_fa2_tiled with scores of +-1e4: exp(s - L) recomputed without "
                      "overflow",
                      wgslvk::attention::Fa2Backward::Tiled);
}

// ---- attn_bwd_fa2_tiled4 (attention_native.wgsl, ours) ------------------------------------------
// attn_bwd_fa2_tiled with 4 x 4 blocks per invocation (head_dim <= 64): the same expected values
// and bounds. Small, as the tiled backward's; its other shapes are on the device in
// tests/attention/test_attention_variants.cpp.

Shape random_shape_tiled4(uint64_t seed) {
  Rng r(seed ^ 0x7e44);
  const uint32_t hds[] = {32, 48, 64};
  return make_shape(1, 5 + r.below(30), 1, hds[r.below(3)]);
}
Case bwd_fa2_tiled4_basic(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, random_shape_tiled4(seed), true), Fa2Bwd::AllGivenDsum,
                      "attn_bwd_fa2_tiled4: attn_bwd_fa2_tiled's jobs and tiles, 4 x 4 outputs "
                      "per invocation (64 invocations), head_dim <= 64",
                      wgslvk::attention::Fa2Backward::Tiled4);
}
Case bwd_fa2_tiled4_t33_hd64(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 33, 1, 64), true), Fa2Bwd::Both,
                      "attn_dsum -> attn_bwd_fa2_tiled4 at T = 33 (tiles of 32 and 1 rows), "
                      "hd = 64 (two chunks of 32 columns)",
                      wgslvk::attention::Fa2Backward::Tiled4);
}
Case bwd_fa2_tiled4_b2h2(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(2, 40, 2, 13), true), Fa2Bwd::Both,
                      "attn_dsum -> attn_bwd_fa2_tiled4 at B = 2, H = 2, T = 40 (grid x = B*H = "
                      "4), hd = 13 (a padded chunk)",
                      wgslvk::attention::Fa2Backward::Tiled4);
}
Case bwd_fa2_tiled4_large_logits(uint64_t seed) {
  return bwd_fa2_case(random_problem(seed, make_shape(1, 40, 1, 32), true, true),
                      Fa2Bwd::AllGivenDsum,
                      "attn_bwd_fa2_tiled4 with scores of +-1e4: exp(s - L) recomputed without "
                      "overflow",
                      wgslvk::attention::Fa2Backward::Tiled4);
}

// ---- attn_fwd_fa2_tiled (attention_native.wgsl, ours) -------------------------------------------
// The FA2 forward on 32 x 32 register tiles (Q tiles of 32 rows, K/V blocks of 32 keys): the same
// expected values and bounds as every forward path. Small, as the tiled backward's.

Case fwd_fa2_tiled_basic(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, random_shape_wide(seed), false),
                      "attn_fwd_fa2_tiled: a Q tile of 32 rows per workgroup, K/V blocks of 32, "
                      "2 x 2 scores and outputs per invocation from 32 x 32 workgroup tiles",
                      ka::attn_fwd_fa2_tiled::name);
}
Case fwd_fa2_tiled_t33_hd80(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(1, 33, 1, 80), false),
                      "attn_fwd_fa2_tiled at T = 33 (tiles of 32 and 1 rows: the diagonal "
                      "block's mask, a one-row last tile), hd = 80 (chunks of 32, 32 and 16)",
                      ka::attn_fwd_fa2_tiled::name);
}
Case fwd_fa2_tiled_b2h2(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(2, 70, 2, 4), false),
                      "attn_fwd_fa2_tiled at B = 2, H = 2, T = 70 (3 Q tiles, 3 blocks and 2 "
                      "rescales for the last; grid x = B*H = 4), hd = 4",
                      ka::attn_fwd_fa2_tiled::name);
}
Case fwd_fa2_tiled_large_logits(uint64_t seed) {
  return fwd_fa2_case(random_problem(seed, make_shape(1, 40, 1, 32), false, true),
                      "attn_fwd_fa2_tiled with scores of +-1e4: the running max rescales by "
                      "exp(m - m') without overflow",
                      ka::attn_fwd_fa2_tiled::name);
}

// ---- attention_mat.wgsl: the f32 passes between the tensor-core products ----------------------

namespace smat = ka::attn_softmax_mat;
namespace dsmat = ka::attn_dscores_mat;

// Element (b,h,i,j) of the [B H][T][T] matrices, q / k / v rows of qkv, and rows of dout.
uint64_t att_at(const Shape& s, uint64_t b, uint64_t h, uint64_t i, uint64_t j) {
  return ((b * s.heads + h) * s.seq + i) * s.seq + j;
}
uint64_t qkv_at(const Shape& s, uint64_t b, uint64_t t, uint64_t h, uint32_t part) {
  return (b * s.seq + t) * 3 * s.d() + part * s.d() + h * s.head_dim;
}

// attn_softmax_mat's input is the raw dot products q.k of every (i, j) (the product S = Q K^T
// writes them above the diagonal too): the reference's exact scaled scores divided by the scale,
// rounded to f32. Expected: the causal softmax of scale * S (those f32 values, in double), 0.0
// above the diagonal.
Case softmax_mat_case(const Problem& p, const std::string& what) {
  const Shape& s = p.s;
  std::vector<float> raw(s.att_size());
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        for (uint64_t j = 0; j < s.seq; ++j) {
          double acc = 0;
          for (uint64_t c = 0; c < s.head_dim; ++c)
            acc += p.q64[qkv_at(s, b, i, h, 0) + c] * p.q64[qkv_at(s, b, j, h, 1) + c];
          raw[att_at(s, b, h, i, j)] = float(acc);
        }
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(s) + ")";
  b.input("att", DType::F32, raw);
  auto& d = b.dispatch(smat::Kernel{});
  bind_params(d, smat::binding::p_smat, s);
  CaseBuilder::bind(d, smat::binding::att_smat, "att");
  d.workgroups_1d = s.lse_size();  // a workgroup per row
  std::vector<double> scaled(s.att_size()), att(s.att_size());
  for (uint64_t k = 0; k < raw.size(); ++k) scaled[k] = s.scale * double(raw[k]);
  aref::naive_softmax(s, scaled, att);
  Out o(s.att_size());
  o.set_all(att, p.fb.att_err, att);
  o.check(b, "att",
          std::string(kWhyAtt) +
              " (its score error (hd+1)u S covers this kernel's one rounding of scale * S; the "
              "tree sums' error, log2(256)u, is within the row sum's (T-1)u)");
  return b.c;
}
Case softmax_mat_basic(uint64_t seed) {
  return softmax_mat_case(random_problem(seed, random_shape(seed), false),
                          "causal softmax of scale * S in place, a workgroup per row, 0.0 above "
                          "the diagonal");
}
Case softmax_mat_t300(uint64_t seed) {
  return softmax_mat_case(random_problem(seed, make_shape(1, 300, 1, 8), false),
                          "T = 300: rows longer than the workgroup (two strides of 256)");
}
Case softmax_mat_large_logits(uint64_t seed) {
  return softmax_mat_case(random_problem(seed, make_shape(1, 33, 2, 64), false, true),
                          "scores of +-1e4 (integer q, k): no overflow, no NaN");
}

// attn_dscores_mat: inputs P (the reference's attention, rounded to f32), dP = dout . v of every
// (i, j) (rounded to f32) and dsum; expected scale P (dP - dsum) from those f32 values in double,
// 0.0 above the diagonal.
Case dscores_mat_case(const Problem& p, const std::string& what) {
  const Shape& s = p.s;
  std::vector<float> att = aref::narrow(p.att), dsum = aref::narrow(p.dsum), dp(s.att_size());
  for (uint64_t b = 0; b < s.batch; ++b)
    for (uint64_t h = 0; h < s.heads; ++h)
      for (uint64_t i = 0; i < s.seq; ++i)
        for (uint64_t j = 0; j < s.seq; ++j) {
          double acc = 0;
          for (uint64_t c = 0; c < s.head_dim; ++c)
            acc += p.g64[(b * s.seq + i) * s.d() + h * s.head_dim + c] *
                   p.q64[qkv_at(s, b, j, h, 2) + c];
          dp[att_at(s, b, h, i, j)] = float(acc);
        }
  CaseBuilder b;
  b.c.description = what + " (" + shape_text(s) + ")";
  b.input("att", DType::F32, att);
  b.input("dsum", DType::F32, dsum);
  b.input("ds", DType::F32, dp);
  auto& d = b.dispatch(dsmat::Kernel{});
  bind_params(d, dsmat::binding::p_dsmat, s);
  CaseBuilder::bind(d, dsmat::binding::att_dsmat, "att");
  CaseBuilder::bind(d, dsmat::binding::dsum_dsmat, "dsum");
  CaseBuilder::bind(d, dsmat::binding::ds_dsmat, "ds");
  d.workgroups_1d = dsmat::Kernel::workgroups(s.att_size());
  Out o(s.att_size());
  for (uint64_t k = 0; k < dp.size(); ++k) {
    const uint64_t row = k / s.seq, i = row % s.seq, j = k % s.seq;
    if (j > i) {
      o.set(k, 0.0, 0.0, 0.0);
      continue;
    }
    const double P = att[k], g = double(dp[k]) - double(dsum[row]);
    const double mag =
        std::fabs(s.scale) * P * (std::fabs(double(dp[k])) + std::fabs(double(dsum[row])));
    o.set(k, s.scale * P * g, 0x1p-22 * mag + 0x1p-149, mag);
  }
  o.check(b, "ds",
          "three roundings (dP - dsum, times P, times scale), each <= u = 2^-24 of a magnitude "
          "<= |scale| P (|dP| + |dsum|): 2 ULP (4u) of that, plus a subnormal ULP; exact 0.0 above "
          "the diagonal");
  return b.c;
}
Case dscores_mat_basic(uint64_t seed) {
  return dscores_mat_case(random_problem(seed, random_shape(seed), true),
                          "dS = scale P (dP - dsum) in place over dP, 0.0 above the diagonal");
}

}  // namespace

void register_attention(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/attention/cases.cpp";
  auto add = [&](std::string_view k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string(k), n, seed, rnd, f, src});
  };
  add(ka::attn_scores::name, "basic", 11001, true, scores_basic);
  add(ka::attn_scores::name, "grid_2d_65536_workgroups", 11002, false, naive_grid_2d);
  add(ka::attn_softmax::name, "basic", 11101, true, softmax_basic);
  add(ka::attn_softmax::name, "large_logits", 11102, false, softmax_large_logits);
  add(ka::attn_weighted_sum::name, "basic", 11201, true, wsum_basic);
  add(ka::attn_dscores::name, "basic", 11301, true, dscores_basic);
  add(ka::attn_dqkv::name, "basic", 11401, true, dqkv_basic);
  add(ka::attn_fwd_fa2::name, "basic", 11501, true, fwd_fa2_basic);
  add(ka::attn_fwd_fa2::name, "t1", 11502, false, fwd_fa2_t1);
  add(ka::attn_fwd_fa2::name, "tile_edges_t33_hd80", 11503, false, fwd_fa2_tile_edges);
  add(ka::attn_fwd_fa2::name, "t100_bh4_hd4", 11504, false, fwd_fa2_t100);
  add(ka::attn_fwd_fa2::name, "large_logits", 11505, false, fwd_fa2_large_logits);
  add(ka::attn_dscores_fa2::name, "basic", 11601, true, dscores_fa2_basic);
  add(ka::attn_dv_fa2::name, "basic", 11701, true, dv_fa2_basic);
  add(ka::attn_dv_fa2::name, "chain_t17_hd80", 11702, false, bwd_fa2_tile_edges);
  add(ka::attn_dv_fa2::name, "chain_t100_h2_hd8", 11703, false, bwd_fa2_t100);
  add(ka::attn_dv_fa2::name, "chain_t15_b2", 11704, false, bwd_fa2_t15_b2);
  add(ka::attn_dv_fa2::name, "chain_large_logits", 11705, false, bwd_fa2_large_logits);
  add(ka::attn_dsum::name, "basic", 11801, true, dsum_basic);
  add(ka::attn_fwd_fa2_wide::name, "basic", 11901, true, fwd_fa2_wide_basic);
  add(ka::attn_fwd_fa2_wide::name, "t17_hd128", 11902, false, fwd_fa2_wide_t17_hd128);
  add(ka::attn_dscores_fa2_wide::name, "basic", 12001, true, dscores_fa2_wide_basic);
  add(ka::attn_dv_fa2_wide::name, "basic", 12101, true, dv_fa2_wide_basic);
  add(ka::attn_dv_fa2_wide::name, "chain_t17", 12102, false, bwd_fa2_wide_t17);
  add(ka::attn_bwd_fa2_tiled::name, "basic", 12201, true, bwd_fa2_tiled_basic);
  add(ka::attn_bwd_fa2_tiled::name, "chain_t33_hd80", 12202, false, bwd_fa2_tiled_t33_hd80);
  add(ka::attn_bwd_fa2_tiled::name, "chain_b2_h2_t40", 12203, false, bwd_fa2_tiled_b2h2);
  add(ka::attn_bwd_fa2_tiled::name, "large_logits", 12204, false, bwd_fa2_tiled_large_logits);
  add(ka::attn_fwd_fa2_tiled::name, "basic", 12301, true, fwd_fa2_tiled_basic);
  add(ka::attn_fwd_fa2_tiled::name, "t33_hd80", 12302, false, fwd_fa2_tiled_t33_hd80);
  add(ka::attn_fwd_fa2_tiled::name, "b2_h2_t70", 12303, false, fwd_fa2_tiled_b2h2);
  add(ka::attn_fwd_fa2_tiled::name, "large_logits", 12304, false, fwd_fa2_tiled_large_logits);
  add(ka::attn_bwd_fa2_tiled4::name, "basic", 12401, true, bwd_fa2_tiled4_basic);
  add(ka::attn_bwd_fa2_tiled4::name, "chain_t33_hd64", 12402, false, bwd_fa2_tiled4_t33_hd64);
  add(ka::attn_bwd_fa2_tiled4::name, "chain_b2_h2_t40_hd13", 12403, false, bwd_fa2_tiled4_b2h2);
  add(ka::attn_bwd_fa2_tiled4::name, "large_logits", 12404, false, bwd_fa2_tiled4_large_logits);
  add(smat::name, "basic", 12501, true, softmax_mat_basic);
  add(smat::name, "t300", 12502, false, softmax_mat_t300);
  add(smat::name, "large_logits", 12503, false, softmax_mat_large_logits);
  add(dsmat::name, "basic", 12601, true, dscores_mat_basic);
}
WGSLVK_REGISTER_GENERATORS(register_attention);

}  // namespace wgslvk::validate
