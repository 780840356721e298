// Benchmarks of 04_norm.wgsl at GPT shapes: rows B*T = 4096 and 16384, d = 96, 128, 192, 256, 768.
// Bytes are the minimum traffic (each input read once, each output written once; the backward's
// per-block partials are not counted), so % of the copy roofline is meaningful. Each timed case
// is first checked against the reference (the first rows of the output: a cheap reference).
#include <algorithm>
#include <cmath>

#include "norm/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace {

using namespace wgslvk;
using namespace wgslvk::validate;
namespace nref = wgslvk::norm::ref;
using wgslvk::norm::Shape;

constexpr float kEps = 1e-5f;
constexpr uint32_t kCheckRows = 64;

using wgslvk::bench::fast_uniform;

ojson params(Shape s, uint32_t rpb) {
  ojson a = ojson::array();
  a.push_back(CaseBuilder::u32s({s.rows, s.d}));
  a.push_back(CaseBuilder::f32s({kEps}));
  a.push_back(CaseBuilder::u32s({rpb}));
  return a;
}

void check_first(CaseBuilder& b, const std::string& buf, const nref::Expected& e, uint64_t n) {
  std::vector<float> v(e.value.begin(), e.value.begin() + n),
      bound(e.bound.begin(), e.bound.begin() + n),
      mag(e.magnitude.begin(), e.magnitude.begin() + n);
  auto& k = b.check_ulp(buf, Array::of(DType::F32, v), 0, "reference.hpp bounds, first rows");
  CaseBuilder::per_element_bound(k, bound);
  CaseBuilder::magnitude(k, mag);
}

Case forward_case(Shape s) {
  CaseBuilder b;
  auto x = fast_uniform(s.rows * 31 + s.d, uint64_t(s.rows) * s.d, -2, 2);
  auto gamma = fast_uniform(7, s.d, 0.5, 1.5), beta = fast_uniform(8, s.d, -1, 1);
  const Shape sub{std::min(s.rows, kCheckRows), s.d};
  auto e =
      nref::forward_expected(std::span(x).first(uint64_t(sub.rows) * s.d), gamma, beta, kEps, sub);
  b.input("x", DType::F32, x);
  b.input("gamma", DType::F32, gamma);
  b.input("beta", DType::F32, beta);
  b.output("y", DType::F32, x.size());
  b.output("mean", DType::F32, s.rows);
  b.output("rstd", DType::F32, s.rows);
  auto& d = b.dispatch("norm/layernorm_forward");
  const char* names[] = {"x", "gamma", "beta", "y", "mean", "rstd"};
  for (uint32_t i = 0; i < 6; ++i) CaseBuilder::bind(d, i, names[i]);
  CaseBuilder::bind_values(d, 6, params(s, 1));
  d.workgroups_1d = norm::forward_workgroups(s);
  check_first(b, "y", e.y, e.y.value.size());
  check_first(b, "rstd", e.rstd, sub.rows);
  return b.c;
}

// main: "layernorm_backward" (04_norm.wgsl's pair) or one of norm_native's fused kernels
// ("layernorm_backward_fused", "layernorm_backward_fused_prefetch"), each with its finalize.
Case backward_case(Shape s, uint32_t rpb, const std::string& main) {
  const bool fused = main != "layernorm_backward";
  CaseBuilder b;
  auto x = fast_uniform(s.rows * 37 + s.d, uint64_t(s.rows) * s.d, -2, 2);
  auto dy = fast_uniform(s.rows * 41 + s.d, x.size(), -1, 1);
  auto gamma = fast_uniform(9, s.d, 0.5, 1.5);
  std::vector<float> mean(s.rows), rstd(s.rows);
  for (uint32_t r = 0; r < s.rows; ++r) {  // double row statistics, rounded: as the forward saves
    double m = 0, v = 0;
    for (uint32_t j = 0; j < s.d; ++j) m += x[uint64_t(r) * s.d + j];
    m /= s.d;
    for (uint32_t j = 0; j < s.d; ++j)
      v += (x[uint64_t(r) * s.d + j] - m) * (x[uint64_t(r) * s.d + j] - m);
    mean[r] = float(m);
    rstd[r] = float(1 / std::sqrt(v / s.d + kEps));
  }
  // dgamma/dbeta are sums over every row: checked in full (one pass of double work).
  auto e = fused ? nref::backward_expected(x, gamma, dy, mean, rstd, s,
                                           double(norm::fused_row_sum_depth(s.d)),
                                           double(norm::fused_dparams_sum_depth(s, rpb)))
                 : nref::backward_expected(x, gamma, dy, mean, rstd, s, rpb);
  b.input("x", DType::F32, x);
  b.input("gamma", DType::F32, gamma);
  b.input("dy", DType::F32, dy);
  b.input("mean", DType::F32, mean);
  b.input("rstd", DType::F32, rstd);
  b.output("dx", DType::F32, x.size());
  b.output("partials", DType::F32, norm::partials_count(s, rpb));
  b.output("dgamma", DType::F32, s.d);
  b.output("dbeta", DType::F32, s.d);
  auto& d = b.dispatch("norm/" + main);
  const char* names[] = {"x", "gamma", "dy", "mean", "rstd", "dx", "partials"};
  for (uint32_t i = 0; i < 7; ++i) CaseBuilder::bind(d, i, names[i]);
  CaseBuilder::bind_values(d, 7, params(s, rpb));
  d.workgroups_1d = norm::backward_blocks(s, rpb);
  auto& f = b.dispatch(fused ? "norm/layernorm_backward_fused_dparams"
                             : "norm/layernorm_backward_dparams");
  CaseBuilder::bind(f, 0, "partials");
  CaseBuilder::bind(f, 1, "dgamma");
  CaseBuilder::bind(f, 2, "dbeta");
  CaseBuilder::bind_values(f, 3, params(s, rpb));
  f.workgroups_1d = norm::dparams_workgroups(s);
  check_first(b, "dx", e.dx, uint64_t(std::min(s.rows, kCheckRows)) * s.d);
  check_first(b, "dgamma", e.dgamma, s.d);
  check_first(b, "dbeta", e.dbeta, s.d);
  return b.c;
}

void bench_norm(bench::Ctx& c) {
  std::vector<uint32_t> rows =
      c.quick() ? std::vector<uint32_t>{256} : std::vector<uint32_t>{4096, 16384};
  std::vector<uint32_t> ds =
      c.quick() ? std::vector<uint32_t>{96, 768} : std::vector<uint32_t>{96, 128, 192, 256, 768};
  for (uint32_t r : rows)
    for (uint32_t d : ds) {
      const Shape s{r, d};
      const std::string label = "rows=" + std::to_string(r) + " d=" + std::to_string(d);
      const nlohmann::json dims = {{"rows", r}, {"d", d}};
      const uint64_t n = uint64_t(r) * d;
      if (c.selected("norm", "layernorm_forward")) {
        bench::Row row;
        row.kernel = "layernorm_forward";
        row.label = label;
        row.dims = dims;
        row.bytes = n * 8 + uint64_t(d) * 8 + uint64_t(r) * 8;
        row.bytes_rule = "read x, gamma, beta; write y, mean, rstd (4 B each)";
        row.flops = double(n) * 8;
        bench::time_case(c, forward_case(s), row);
      }
      // The host default, about kTargetBlocks blocks. (4x more or fewer blocks were slower on an
      // H100: README.md.) `--only layernorm_backward_blocks` adds both for comparison;
      // `--only layernorm_backward_fused_blocks` the same for norm_native's fused pair (ours),
      // with 256 and 1024 blocks too; `layernorm_backward_fused_prefetch` (its next-row
      // prefetching build) only when named in --only (or its _blocks).
      for (const std::string kname : {"layernorm_backward", "layernorm_backward_fused",
                                      "layernorm_backward_fused_prefetch"}) {
        const bool fused = kname != "layernorm_backward";
        const bool sweep = c.options().only.count(kname + "_blocks") > 0;
        std::vector<uint32_t> done;  // rows_per_block already timed (small shapes clamp targets)
        for (uint32_t target : {norm::kTargetBlocks, 2048u, 128u, 256u, 1024u}) {
          if (target != norm::kTargetBlocks && !sweep) continue;
          if (!fused && (target == 256u || target == 1024u)) continue;
          if (!c.selected("norm", kname) && !sweep) continue;
          if (kname == "layernorm_backward_fused_prefetch" && !c.options().only.count(kname) &&
              !sweep)
            continue;
          const uint32_t rpb = norm::default_rows_per_block(s, target);
          if (std::find(done.begin(), done.end(), rpb) != done.end()) continue;
          done.push_back(rpb);
          bench::Row row;
          row.kernel =
              target == norm::kTargetBlocks
                  ? kname
                  : kname + "[" + std::to_string(norm::backward_blocks(s, rpb)) + " blocks]";
          row.label = label;
          row.dims = dims;
          row.dims["rows_per_block"] = rpb;
          // The same byte count for both pairs: x, dy read once, gamma once, mean and rstd once
          // (4 B per row each), dx written once, dgamma and dbeta written (4 B per column each).
          row.bytes = n * 12 + uint64_t(d) * 12 + uint64_t(r) * 8;
          row.bytes_rule =
              "read x, dy, gamma, mean, rstd; write dx, dgamma, dbeta (the per-block "
              "partials, 2 x d x blocks written and read, not counted); both dispatches";
          row.flops = double(n) * 14;
          bench::time_case(c, backward_case(s, rpb, kname), row);
        }
      }
    }
}

}  // namespace

WGSLVK_REGISTER_BENCH("norm", bench_norm);
