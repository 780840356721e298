// Benchmarks of 04_loss.wgsl at GPT shapes: rows B*T = 4096 and 16384, vocab 16384 and 50304.
// Bytes are the minimum traffic: the forward reads the logits once (and targets) and writes loss
// and lse; the backward reads the logits once and writes dlogits once. Each timed case is first
// checked against the reference on its first rows (a cheap reference). The largest shape moves
// 3.3 GB of logits: it needs the adapter's large bindings, which `wgslvk bench` requests.
#include <algorithm>
#include <cmath>

#include "loss/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernels/loss/cross_entropy_backward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_forward.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace {

using namespace wgslvk;
using namespace wgslvk::validate;
namespace lref = wgslvk::loss::ref;
using wgslvk::loss::Shape;

constexpr uint32_t kCheckRows = 4;

using wgslvk::bench::fast_uniform;

namespace ce_fwd = wgslvk::kernels::loss::cross_entropy_forward;
namespace ce_bwd = wgslvk::kernels::loss::cross_entropy_backward;

// CeParams (each kernel's header has its own copy of 04_loss.wgsl's struct).
template <class P>
P ce_params(Shape s, float scale) {
  return P{.rows = s.rows, .vocab = s.vocab, .ignore_index = s.ignore_index, .scale = scale};
}

void check_first(CaseBuilder& b, const std::string& buf, const lref::Expected& e) {
  std::vector<float> bound(e.bound.begin(), e.bound.end()),
      mag(e.magnitude.begin(), e.magnitude.end());
  auto& k = b.check_ulp(buf, Array::of(DType::F32, e.value), 0, "reference.hpp bound, first rows");
  CaseBuilder::per_element_bound(k, bound);
  CaseBuilder::magnitude(k, mag);
}

std::vector<uint32_t> targets_for(Shape s) {
  std::vector<uint32_t> t(s.rows);
  for (uint32_t r = 0; r < s.rows; ++r) t[r] = uint32_t((uint64_t(r) * 2654435761u) % s.vocab);
  return t;
}

Case forward_case(Shape s) {
  CaseBuilder b;
  auto x = fast_uniform(s.rows + s.vocab, uint64_t(s.rows) * s.vocab, -4, 4);
  auto t = targets_for(s);
  const Shape sub{kCheckRows, s.vocab, s.ignore_index};
  auto e = lref::forward_expected(std::span(x).first(uint64_t(kCheckRows) * s.vocab),
                                  std::span(t).first(kCheckRows), sub);
  b.input("logits", DType::F32, x);
  b.input("targets", DType::U32, t);
  b.output("loss", DType::F32, s.rows);
  b.output("lse", DType::F32, s.rows);
  auto& d = b.dispatch(ce_fwd::Kernel{});
  CaseBuilder::bind(d, ce_fwd::binding::cf_logits, "logits");
  CaseBuilder::bind(d, ce_fwd::binding::cf_targets, "targets");
  CaseBuilder::bind(d, ce_fwd::binding::cf_loss, "loss");
  CaseBuilder::bind(d, ce_fwd::binding::cf_lse, "lse");
  CaseBuilder::bind_uniform(d, ce_fwd::binding::cf, ce_params<ce_fwd::CeParams>(s, 1.0f));
  d.workgroups_1d = s.rows;
  check_first(b, "loss", e.loss);
  check_first(b, "lse", e.lse);
  return b.c;
}

Case backward_case(Shape s) {
  CaseBuilder b;
  auto x = fast_uniform(s.rows + s.vocab + 1, uint64_t(s.rows) * s.vocab, -4, 4);
  auto t = targets_for(s);
  // lse: exact (double, rounded) for the checked rows; for the others the expectation for
  // uniform(-4, 4) logits, log(vocab) + log(sinh(4) / 4): a realistic value, not checked.
  std::vector<float> lse(s.rows, float(std::log(double(s.vocab)) + std::log(std::sinh(4.0) / 4.0)));
  const Shape sub{kCheckRows, s.vocab, s.ignore_index};
  {
    std::vector<double> xd(x.begin(), x.begin() + uint64_t(kCheckRows) * s.vocab), loss(kCheckRows),
        l(kCheckRows);
    lref::ce_forward(xd, std::span(t).first(kCheckRows), sub, loss, l);
    for (uint32_t r = 0; r < kCheckRows; ++r) lse[r] = float(l[r]);
  }
  auto e = lref::backward_expected(std::span(x).first(uint64_t(kCheckRows) * s.vocab),
                                   std::span(t).first(kCheckRows), std::span(lse).first(kCheckRows),
                                   1.0f, s.rows, sub);
  b.input("logits", DType::F32, x);
  b.input("targets", DType::U32, t);
  b.input("lse", DType::F32, lse);
  b.input("stats", DType::F32, std::vector<float>{0.0f, float(s.rows)});
  b.output("dlogits", DType::F32, x.size());
  auto& d = b.dispatch(ce_bwd::Kernel{});
  CaseBuilder::bind(d, ce_bwd::binding::cb_logits, "logits");
  CaseBuilder::bind(d, ce_bwd::binding::cb_targets, "targets");
  CaseBuilder::bind(d, ce_bwd::binding::cb_lse, "lse");
  CaseBuilder::bind(d, ce_bwd::binding::cb_stats, "stats");
  CaseBuilder::bind(d, ce_bwd::binding::cb_dlogits, "dlogits");
  CaseBuilder::bind_uniform(d, ce_bwd::binding::cb, ce_params<ce_bwd::CeParams>(s, 1.0f));
  d.workgroups_1d = s.rows;
  check_first(b, "dlogits", e);
  return b.c;
}

void bench_loss(bench::Ctx& c) {
  std::vector<uint32_t> rows =
      c.quick() ? std::vector<uint32_t>{64} : std::vector<uint32_t>{4096, 16384};
  std::vector<uint32_t> vocabs =
      c.quick() ? std::vector<uint32_t>{1000} : std::vector<uint32_t>{16384, 50304};
  for (uint32_t r : rows)
    for (uint32_t v : vocabs) {
      const uint64_t n = uint64_t(r) * v;
      if (c.options().max_elems && n > c.options().max_elems) continue;
      const Shape s{r, v, 0xFFFFFFFFu};
      const std::string label = "rows=" + std::to_string(r) + " vocab=" + std::to_string(v);
      const nlohmann::json dims = {{"rows", r}, {"vocab", v}};
      if (c.selected("loss", "cross_entropy_forward")) {
        bench::Row w;
        w.kernel = "cross_entropy_forward";
        w.label = label;
        w.dims = dims;
        w.bytes = n * 4 + uint64_t(r) * 12;
        w.bytes_rule = "read logits and targets once, write loss and lse";
        bench::time_case(c, forward_case(s), w);
      }
      if (c.selected("loss", "cross_entropy_backward")) {
        bench::Row w;
        w.kernel = "cross_entropy_backward";
        w.label = label;
        w.dims = dims;
        w.bytes = n * 8 + uint64_t(r) * 8 + 8;
        w.bytes_rule = "read logits once, write dlogits once; targets, lse, stats";
        bench::time_case(c, backward_case(s), w);
      }
    }
}

}  // namespace

WGSLVK_REGISTER_BENCH("loss", bench_loss);
