// Benchmarks of 04_norm.wgsl and norm_native.wgsl's lean backward pair at GPT shapes: rows B*T = 4096 and 16384, d = 96, 128, 192, 256, 768.
// Bytes are the minimum traffic (each input read once, each output written once; the backward's
// per-block partials are not counted), so % of the copy roofline is meaningful. Each timed case
// is first checked against the reference (the first rows of the output: a cheap reference).
#include <algorithm>
#include <cmath>

#include "norm/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernels/norm/layernorm_backward.hpp"
#include "wgslvk/kernels/norm/layernorm_backward_dparams.hpp"
#include "wgslvk/kernels/norm/layernorm_backward_lean_dparams.hpp"
#include "wgslvk/kernels/norm/layernorm_forward.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace {

using namespace wgslvk;
using namespace wgslvk::validate;
namespace nref = wgslvk::norm::ref;
using wgslvk::norm::Shape;

constexpr float kEps = 1e-5f;
constexpr uint32_t kCheckRows = 64;

using wgslvk::bench::fast_uniform;

namespace lnf = wgslvk::kernels::norm::layernorm_forward;
// The lean main kernel has the port's bindings (names, LnParams): its slots are the port's.
namespace lnb = wgslvk::kernels::norm::layernorm_backward;
namespace lnd = wgslvk::kernels::norm::layernorm_backward_dparams;
namespace lnd_lean = wgslvk::kernels::norm::layernorm_backward_lean_dparams;

template <class P>
P params(Shape s, uint32_t rpb) {
  return P{.rows = s.rows, .d = s.d, .eps = kEps, .rows_per_block = rpb};
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
  auto& d = b.dispatch(lnf::Kernel{});
  CaseBuilder::bind(d, lnf::binding::lf_x, "x");
  CaseBuilder::bind(d, lnf::binding::lf_gamma, "gamma");
  CaseBuilder::bind(d, lnf::binding::lf_beta, "beta");
  CaseBuilder::bind(d, lnf::binding::lf_y, "y");
  CaseBuilder::bind(d, lnf::binding::lf_mean, "mean");
  CaseBuilder::bind(d, lnf::binding::lf_rstd, "rstd");
  CaseBuilder::bind_uniform(d, lnf::binding::lf, params<lnf::LnParams>(s, 1));
  d.workgroups_1d = norm::forward_workgroups(s);
  check_first(b, "y", e.y, e.y.value.size());
  check_first(b, "rstd", e.rstd, sub.rows);
  return b.c;
}

// The backward pairs timed beside each other (same ABI, same partials, same reference).
enum class Pair { Port, Lean };
// Which dispatches a case holds: the pair, the main kernel alone (dx checked), the finalize alone
// (on random partials).
enum class Part { Both, Main, Finalize };

const char* pair_name(Pair p) {
  switch (p) {
    case Pair::Port:
      return "layernorm_backward";
    case Pair::Lean:
      return "layernorm_backward_lean";
  }
  return "";
}
bool is_lean(Pair p) { return p == Pair::Lean; }
std::string main_kernel(Pair p, Shape s) {
  if (p == Pair::Lean) return norm::lean_main_kernel(s.d);
  return std::string(lnb::name);
}
uint64_t finalize_workgroups(Pair p, Shape s) {
  return is_lean(p) ? norm::lean_dparams_workgroups(s) : norm::dparams_workgroups(s);
}
// target 0: the pair's host default.
uint32_t rows_per_block(Pair p, Shape s, uint32_t target) {
  if (is_lean(p)) return norm::lean_rows_per_block(s, target ? target : norm::kLeanTargetBlocks);
  return norm::default_rows_per_block(s, target ? target : norm::kTargetBlocks);
}
double finalize_depth(Pair p, Shape s, uint32_t rpb) {
  const uint64_t nb = norm::backward_blocks(s, rpb);
  return is_lean(p) ? double(norm::lean_finalize_depth(s, rpb)) : double((nb + 15) / 16 + 15);
}

// The finalize dispatch over the case's "partials", writing and checking dgamma and dbeta.
template <class Expected>
void add_finalize(CaseBuilder& b, Shape s, uint32_t rpb, Pair p, const Expected& e) {
  b.output("dgamma", DType::F32, s.d);
  b.output("dbeta", DType::F32, s.d);
  if (is_lean(p)) {
    auto& f = b.dispatch(lnd_lean::Kernel{});
    CaseBuilder::bind(f, lnd_lean::binding::ld_partials, "partials");
    CaseBuilder::bind(f, lnd_lean::binding::ld_dgamma, "dgamma");
    CaseBuilder::bind(f, lnd_lean::binding::ld_dbeta, "dbeta");
    CaseBuilder::bind_uniform(f, lnd_lean::binding::ld, params<lnd_lean::LnParams>(s, rpb));
  } else {
    auto& f = b.dispatch(lnd::Kernel{});
    CaseBuilder::bind(f, lnd::binding::ld_partials, "partials");
    CaseBuilder::bind(f, lnd::binding::ld_dgamma, "dgamma");
    CaseBuilder::bind(f, lnd::binding::ld_dbeta, "dbeta");
    CaseBuilder::bind_uniform(f, lnd::binding::ld, params<lnd::LnParams>(s, rpb));
  }
  b.c.dispatches.back().workgroups_1d = finalize_workgroups(p, s);
  check_first(b, "dgamma", e.dgamma, s.d);
  check_first(b, "dbeta", e.dbeta, s.d);
}

Case finalize_case(Shape s, uint32_t rpb, Pair p) {
  CaseBuilder b;
  auto partials = fast_uniform(s.rows * 43 + s.d, norm::partials_count(s, rpb), -1, 1);
  auto e =
      nref::dparams_expected(partials, s, norm::backward_blocks(s, rpb), finalize_depth(p, s, rpb));
  b.input("partials", DType::F32, partials);
  add_finalize(b, s, rpb, p, e);
  return b.c;
}

Case backward_case(Shape s, uint32_t rpb, Pair p, Part part) {
  if (part == Part::Finalize) return finalize_case(s, rpb, p);
  CaseBuilder b;
  auto x = fast_uniform(s.rows * 37 + s.d, uint64_t(s.rows) * s.d, -2, 2);
  auto dy = fast_uniform(s.rows * 41 + s.d, x.size(), -1, 1);
  auto gamma = fast_uniform(9, s.d, 0.5, 1.5);
  std::vector<float> mean(s.rows), rstd(s.rows);
  nref::saved_row_stats(x, s, kEps, mean, rstd);
  // dgamma/dbeta are sums over every row: checked in full (one pass of double work).
  auto e = is_lean(p) ? nref::lean_backward_expected(x, gamma, dy, mean, rstd, s, rpb)
                      : nref::backward_expected(x, gamma, dy, mean, rstd, s, rpb);
  b.input("x", DType::F32, x);
  b.input("gamma", DType::F32, gamma);
  b.input("dy", DType::F32, dy);
  b.input("mean", DType::F32, mean);
  b.input("rstd", DType::F32, rstd);
  b.output("dx", DType::F32, x.size());
  b.output("partials", DType::F32, norm::partials_count(s, rpb));
  auto& d = b.dispatch(main_kernel(p, s));
  CaseBuilder::bind(d, lnb::binding::lb_x, "x");
  CaseBuilder::bind(d, lnb::binding::lb_gamma, "gamma");
  CaseBuilder::bind(d, lnb::binding::lb_dy, "dy");
  CaseBuilder::bind(d, lnb::binding::lb_mean, "mean");
  CaseBuilder::bind(d, lnb::binding::lb_rstd, "rstd");
  CaseBuilder::bind(d, lnb::binding::lb_dx, "dx");
  CaseBuilder::bind(d, lnb::binding::lb_partials, "partials");
  CaseBuilder::bind_uniform(d, lnb::binding::lb, params<lnb::LnParams>(s, rpb));
  d.workgroups_1d = norm::backward_blocks(s, rpb);
  check_first(b, "dx", e.dx, uint64_t(std::min(s.rows, kCheckRows)) * s.d);
  if (part == Part::Main) return b.c;
  add_finalize(b, s, rpb, p, e);
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
      // Each pair at its host default (about 512 blocks), both dispatches timed. Sweeps:
      // `--only <pair>_blocks` adds other block counts (4x more or fewer were slower for the
      // port on an H100: README.md); `--only layernorm_backward_split` times the port's and the
      // lean pair's main kernel alone and finalize alone (on random partials of the same size).
      const auto& only = c.options().only;
      for (Pair p : {Pair::Port, Pair::Lean}) {
        const std::string kname = pair_name(p);
        const bool sweep = only.count(kname + "_blocks") > 0;
        const bool split =
            only.count("layernorm_backward_split") > 0 && (p == Pair::Port || is_lean(p));
        const bool plain = c.selected("norm", kname);
        std::vector<uint32_t> done;  // rows_per_block already timed (small shapes clamp targets)
        for (uint32_t target : {0u, 2048u, 128u, 256u, 512u, 1024u}) {
          const bool dflt = target == 0;
          if (!dflt && !sweep) continue;
          if (dflt && !plain && !sweep && !split) continue;
          if (p == Pair::Port && (target == 256u || target == 1024u)) continue;
          const uint32_t rpb = rows_per_block(p, s, target);
          if (std::find(done.begin(), done.end(), rpb) != done.end()) continue;
          done.push_back(rpb);
          const std::string blocks = std::to_string(norm::backward_blocks(s, rpb)) + " blocks";
          for (Part part : {Part::Both, Part::Main, Part::Finalize}) {
            if (part == Part::Both && !(plain || sweep || !dflt)) continue;
            if (part != Part::Both && !(split && dflt)) continue;
            bench::Row row;
            row.kernel = kname + (part == Part::Main       ? "[main]"
                                  : part == Part::Finalize ? "[finalize]"
                                  : dflt                   ? ""
                                                           : "[" + blocks + "]");
            row.label = label;
            row.dims = dims;
            row.dims["rows_per_block"] = rpb;
            row.dims["blocks"] = norm::backward_blocks(s, rpb);
            const uint64_t partial_bytes = norm::partials_count(s, rpb) * 4;
            if (part == Part::Finalize) {
              row.bytes = partial_bytes + uint64_t(d) * 8;
              row.bytes_rule = "read the partials (2 x d x blocks), write dgamma, dbeta";
              row.flops = double(partial_bytes) / 4;
            } else {
              // The same byte count for every pair: x, dy read once, gamma once, mean and rstd
              // once (4 B per row each), dx written once, dgamma and dbeta written (4 B per
              // column each). The main kernel alone: the same minus dgamma and dbeta.
              row.bytes = n * 12 + uint64_t(d) * (part == Part::Main ? 4 : 12) + uint64_t(r) * 8;
              row.bytes_rule =
                  part == Part::Main
                      ? "read x, dy, gamma, mean, rstd; write dx (the partials, 2 x d x blocks, "
                        "not counted); the main dispatch alone"
                      : "read x, dy, gamma, mean, rstd; write dx, dgamma, dbeta (the per-block "
                        "partials, 2 x d x blocks written and read, not counted); both dispatches";
              row.flops = double(n) * 14;
            }
            bench::time_case(c, backward_case(s, rpb, p, part), row);
          }
        }
      }
    }
}

}  // namespace

WGSLVK_REGISTER_BENCH("norm", bench_norm);
