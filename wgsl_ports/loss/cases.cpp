// Golden cases of 04_loss.wgsl: cross-entropy forward (odd rows, vocab not a multiple of 256,
// logits of +-1e4, ignored and out-of-range targets, an ignore_index inside the vocabulary, a 2-D
// grid), the deterministic mean (more rows than threads, nothing valid) and the backward.
// Expected values and bounds: wgsl_ports/loss/reference.hpp.
#include <algorithm>
#include <cmath>

#include "loss/reference.hpp"
#include "wgslvk/kernels/loss/cross_entropy_backward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_forward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_mean.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

namespace lref = wgslvk::loss::ref;

using wgslvk::loss::Shape;

constexpr uint32_t kTail = 4;

namespace ce_fwd = wgslvk::kernels::loss::cross_entropy_forward;
namespace ce_mean = wgslvk::kernels::loss::cross_entropy_mean;
namespace ce_bwd = wgslvk::kernels::loss::cross_entropy_backward;

// CeParams (each kernel's header has its own copy of 04_loss.wgsl's struct).
template <class P>
P ce_params(Shape s, float scale) {
  return P{.rows = s.rows, .vocab = s.vocab, .ignore_index = s.ignore_index, .scale = scale};
}

void check(CaseBuilder& b, const std::string& buf, const lref::Expected& e, uint64_t tail,
           const std::string& reason) {
  b.check_expected(buf, e, tail, reason, "rows past `rows` write nothing: the poison stays");
}

struct Data {
  std::vector<float> logits;
  std::vector<uint32_t> targets;
};

// Logits: uniform(-4, 4) times a per-row scale in {1/4 .. 4}; with `extreme`, rows of +-1e4:
// one dominant 1e4 logit (target on it, or elsewhere: loss ~1e4 or 2e4), a row of -1e4 with one
// 0, a row of all -1e4. Targets uniform; with `ignore`, ignored rows (ignore_index) and an
// out-of-range target (vocab), which also counts as ignored.
Data make_data(Rng& r, Shape s, bool extreme, bool ignore) {
  Data d;
  d.logits.resize(uint64_t(s.rows) * s.vocab);
  d.targets.resize(s.rows);
  for (uint32_t row = 0; row < s.rows; ++row) {
    const double scale = std::ldexp(1.0, int(r.below(5)) - 2);
    float* x = d.logits.data() + uint64_t(row) * s.vocab;
    for (uint32_t j = 0; j < s.vocab; ++j) x[j] = float(scale * (8 * r.unit() - 4));
    d.targets[row] = r.below(s.vocab);
  }
  if (extreme && s.rows >= 6) {
    auto row = [&](uint32_t k) { return d.logits.data() + uint64_t(k) * s.vocab; };
    row(0)[d.targets[0]] = 1e4f;                  // confident and right: loss ~0
    row(1)[(d.targets[1] + 1) % s.vocab] = 1e4f;  // confident and wrong: loss ~1e4
    row(1)[d.targets[1]] = -1e4f;                 // ... and the target at -1e4: ~2e4
    std::fill_n(row(2), s.vocab, -1e4f);          // all -1e4 but one
    row(2)[s.vocab / 2] = 0.0f;
    std::fill_n(row(3), s.vocab, -1e4f);  // all equal: lse = -1e4 + log(vocab)
    for (uint32_t j = 0; j < s.vocab; j += 3) row(4)[j] = j % 2 ? 1e4f : -1e4f;
  }
  if (ignore && s.rows >= 8) {
    for (uint32_t k = 5; k < s.rows; k += 4) d.targets[k] = s.ignore_index;
    d.targets[s.rows - 2] = s.vocab;      // out of range: ignored too
    d.targets[s.rows - 3] = s.vocab - 1;  // the last valid id
  }
  return d;
}

Case forward_case(uint64_t seed, Shape s, bool extreme, bool ignore,
                  const std::array<uint32_t, 3>* grid, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  auto d = make_data(r, s, extreme, ignore);
  auto e = lref::forward_expected(d.logits, d.targets, s);
  b.input("logits", DType::F32, d.logits);
  b.input("targets", DType::U32, d.targets);
  b.output("loss", DType::F32, s.rows + kTail);
  b.output("lse", DType::F32, s.rows + kTail);
  auto& k = b.dispatch(ce_fwd::Kernel{});
  CaseBuilder::bind(k, ce_fwd::binding::cf_logits, "logits");
  CaseBuilder::bind(k, ce_fwd::binding::cf_targets, "targets");
  CaseBuilder::bind(k, ce_fwd::binding::cf_loss, "loss");
  CaseBuilder::bind(k, ce_fwd::binding::cf_lse, "lse");
  CaseBuilder::bind_uniform(k, ce_fwd::binding::cf, ce_params<ce_fwd::CeParams>(s, 1.0f));
  if (grid)
    k.workgroups = *grid;
  else
    k.workgroups_1d = wgslvk::loss::row_workgroups(s);
  check(b, "loss", e.loss, kTail,
        "lse - x[target] within E/ulp + 1/2 ULPs of |lse| + |x[target]| (E: the online sum's "
        "exp and add errors, WGSL log's, reference.hpp); exactly 0 for ignored rows");
  check(b, "lse", e.lse, kTail, "lse within E/ulp + 1/2 ULPs of |lse|");
  return b.c;
}

Case mean_case(uint64_t seed, Shape s, bool none_valid, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  std::vector<float> loss(s.rows);
  std::vector<uint32_t> targets(s.rows);
  for (uint32_t k = 0; k < s.rows; ++k) {
    targets[k] =
        none_valid ? s.ignore_index : (r.below(5) == 0 ? s.ignore_index : r.below(s.vocab));
    loss[k] = float(12 * r.unit());
    if (!wgslvk::loss::valid_row(targets[k], s)) loss[k] = 0.0f;  // as the forward writes them
  }
  auto e = lref::mean_expected(loss, targets, s);
  b.input("loss", DType::F32, loss);
  b.input("targets", DType::U32, targets);
  b.output("stats", DType::F32, 2 + kTail);
  auto& k = b.dispatch(ce_mean::Kernel{});
  CaseBuilder::bind(k, ce_mean::binding::cm_loss, "loss");
  CaseBuilder::bind(k, ce_mean::binding::cm_targets, "targets");
  CaseBuilder::bind(k, ce_mean::binding::cm_stats, "stats");
  CaseBuilder::bind_uniform(k, ce_mean::binding::cm, ce_params<ce_mean::CeParams>(s, 1.0f));
  k.workgroups_1d = 1;
  std::vector<float> v = {e.mean, float(e.n_valid)};
  v.resize(2 + kTail, f32_bits(kPoison32));
  auto arr = Array::of(DType::F32, v);
  auto& m = b.check_ulp("stats", arr, e.bound,
                        "mean within ceil(rows/256) + 12 ULPs of sum|loss|/n_valid (a fixed order "
                        "of adds: per-thread then a tree of 8; the division)",
                        0, 1);
  m.magnitude = CheckSpec::Magnitude::Scalar;
  m.magnitude_scalar = e.magnitude;
  b.check_exact("stats", arr, "stats[1] = f32(n_valid): exact", 1, 2);
  b.check_exact("stats", arr, "nothing past stats[1] is written", 2, 2 + kTail);
  return b.c;
}

Case backward_case(uint64_t seed, Shape s, float scale, bool extreme, bool ignore,
                   const std::array<uint32_t, 3>* grid, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  auto d = make_data(r, s, extreme, ignore);
  std::vector<double> xd(d.logits.begin(), d.logits.end()), loss(s.rows), lse(s.rows);
  lref::ce_forward(xd, d.targets, s, loss, lse);
  std::vector<float> lse_f(lse.begin(), lse.end());
  uint32_t n_valid = 0;
  const double mean = lref::ce_mean(loss, d.targets, s, &n_valid);
  auto e = lref::backward_expected(d.logits, d.targets, lse_f, scale, n_valid, s);
  b.input("logits", DType::F32, d.logits);
  b.input("targets", DType::U32, d.targets);
  b.input("lse", DType::F32, lse_f);
  b.input("stats", DType::F32, std::vector<float>{float(mean), float(n_valid)});
  b.output("dlogits", DType::F32, uint64_t(s.rows) * s.vocab + kTail);
  auto& k = b.dispatch(ce_bwd::Kernel{});
  CaseBuilder::bind(k, ce_bwd::binding::cb_logits, "logits");
  CaseBuilder::bind(k, ce_bwd::binding::cb_targets, "targets");
  CaseBuilder::bind(k, ce_bwd::binding::cb_lse, "lse");
  CaseBuilder::bind(k, ce_bwd::binding::cb_stats, "stats");
  CaseBuilder::bind(k, ce_bwd::binding::cb_dlogits, "dlogits");
  CaseBuilder::bind_uniform(k, ce_bwd::binding::cb, ce_params<ce_bwd::CeParams>(s, scale));
  if (grid)
    k.workgroups = *grid;
  else
    k.workgroups_1d = wgslvk::loss::row_workgroups(s);
  check(b, "dlogits", e, kTail,
        "(exp(x - lse) - onehot) * scale / n_valid within 14 + 5|x - lse| ULPs of (p + onehot) "
        "|scale / n_valid| (WGSL exp's 3 + 2|arg| ULP; x - lse rounded; reference.hpp); ignored "
        "rows exactly 0");
  return b.c;
}

Case fwd_basic(uint64_t seed) {
  Rng r(seed ^ 0x7c1);
  Shape s{8 + r.below(10), 257 + r.below(600), 0xFFFFFFFFu};
  return forward_case(seed, s, false, true, nullptr,
                      "random logits, vocab " + std::to_string(s.vocab) + ", rows " +
                          std::to_string(s.rows) + ", ignored and out-of-range targets");
}
Case fwd_extreme(uint64_t seed) {
  return forward_case(seed, {10, 1001, 0xFFFFFFFFu}, true, true, nullptr,
                      "logits of +-1e4: confident right (loss ~0), confident wrong with the target "
                      "at -1e4 (loss ~2e4), rows of -1e4, alternating +-1e4; no overflow");
}
Case fwd_ignore_in_vocab(uint64_t seed) {
  return forward_case(seed, {13, 777, 3}, false, true, nullptr,
                      "ignore_index = 3, inside the vocabulary (a pad id): rows with target 3 are "
                      "ignored, vocab 777");
}
Case fwd_small_vocab(uint64_t seed) {
  return forward_case(seed, {9, 50, 0xFFFFFFFFu}, false, false, nullptr,
                      "vocab 50 < 256: most threads hold no element (m = lowest f32, s = 0)");
}
Case fwd_grid(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{3, 3, 1};
  return forward_case(seed, {7, 513, 0xFFFFFFFFu}, false, false, &grid,
                      "a 3 x 3 grid for 7 rows: row = wid.y * nwg.x + wid.x, two surplus exit");
}
Case mean_basic(uint64_t seed) {
  Rng r(seed ^ 0x7c2);
  return mean_case(seed, {1 + r.below(2000), 1000, 0xFFFFFFFFu}, false,
                   "random per-row losses, ~1 in 5 rows ignored");
}
Case mean_many_rows(uint64_t seed) {
  return mean_case(seed, {4099, 1000, 0xFFFFFFFFu}, false,
                   "4099 rows: each thread adds 16-17 rows in order before the tree");
}
Case mean_none_valid(uint64_t seed) {
  return mean_case(seed, {37, 1000, 0xFFFFFFFFu}, true,
                   "every row ignored: mean 0 and n_valid 0 (no division)");
}
Case bwd_basic(uint64_t seed) {
  Rng r(seed ^ 0x7c3);
  Shape s{8 + r.below(8), 257 + r.below(500), 0xFFFFFFFFu};
  return backward_case(
      seed, s, 1.0f, false, true, nullptr,
      "random logits, vocab " + std::to_string(s.vocab) + ", ignored rows (all-zero gradients)");
}
Case bwd_extreme(uint64_t seed) {
  return backward_case(seed, {10, 601, 0xFFFFFFFFu}, 0.5f, true, true, nullptr,
                       "logits of +-1e4 with dloss_scale 0.5: probabilities of exactly 0 and 1, "
                       "the target at -1e4 (gradient -scale/n)");
}
Case bwd_grid(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 3, 1};
  return backward_case(seed, {5, 257, 0xFFFFFFFFu}, 1.0f, false, false, &grid,
                       "a 2 x 3 grid for 5 rows of vocab 257");
}

}  // namespace

void register_loss(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/loss/cases.cpp";
  auto add = [&](const char* k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string("loss/") + k, n, seed, rnd, f, src});
  };
  add("cross_entropy_forward", "basic", 4701, true, fwd_basic);
  add("cross_entropy_forward", "logits_1e4", 4702, false, fwd_extreme);
  add("cross_entropy_forward", "ignore_index_in_vocab", 4703, false, fwd_ignore_in_vocab);
  add("cross_entropy_forward", "vocab_below_workgroup", 4704, false, fwd_small_vocab);
  add("cross_entropy_forward", "grid_2d", 4705, false, fwd_grid);
  add("cross_entropy_mean", "basic", 4801, true, mean_basic);
  add("cross_entropy_mean", "many_rows", 4802, false, mean_many_rows);
  add("cross_entropy_mean", "none_valid", 4803, false, mean_none_valid);
  add("cross_entropy_backward", "basic", 4901, true, bwd_basic);
  add("cross_entropy_backward", "logits_1e4", 4902, false, bwd_extreme);
  add("cross_entropy_backward", "grid_2d", 4903, false, bwd_grid);
}
WGSLVK_REGISTER_GENERATORS(register_loss);

}  // namespace wgslvk::validate
