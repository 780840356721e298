// Benchmarks of adafactor.wgsl: the seed's shapes (2-D 256x256 ... 4096x11008, 1-D 512 ... 8192;
// small ones with --quick), each as one tensor's whole step (every dispatch of the step, as
// MultiTensorAdafactor records it) and the fused row+column reduction alone; then the whole
// multi-tensor step of a 110M-parameter model's tensors through MultiTensorAdafactor::record_step,
// batched (multi_tensor_step, the default: 7 dispatches), per tensor (multi_tensor_step_per_tensor) and
// batched in L2-sized groups (multi_tensor_step_l2_groups: options.group_bytes = 16 MB).
// Bytes are the byte floor of issue 13: the gradient and the parameter read once, the parameter
// written once (12 B per element; the factored state and the partials are negligible and not
// counted); the reduction alone: the gradient read once (4 B), plus w once with scale_parameter.
// Each timed case is first checked against the reference (the whole-step bound of reference.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "adafactor/adafactor.hpp"
#include "adafactor/reference.hpp"
#include "adafactor/step_case.hpp"
#include "wgslvk/bench/stats.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace {

using namespace wgslvk;
using namespace wgslvk::validate;
namespace af = wgslvk::adafactor;
namespace aref = wgslvk::adafactor::ref;

using wgslvk::bench::fast_uniform;

// One tensor's step (t = 1, torch defaults, d = 1): `sums_only` keeps the first dispatch (2-D:
// sq_sums; 1-D: ema_1d) and checks its outputs instead.
Case step_case(uint32_t rows, uint32_t cols, bool sums_only) {
  CaseBuilder b;
  const bool fac = rows > 0;
  const af::Dims d = fac ? af::dims_2d(rows, cols) : af::dims_1d(cols);
  const af::Scalars s = af::scalars(af::Hyper{}, 1, true);
  auto w = fast_uniform(uint64_t(rows) * 7919 + cols, d.n, -0.5f, 0.5f);
  auto g = fast_uniform(uint64_t(rows) * 104729 + cols + 1, d.n, -1.0f, 1.0f);
  b.input("w", DType::F32, w);
  b.input("g", DType::F32, g);
  std::vector<float> rv(fac ? d.rows : 0, 0.0f), cv(fac ? d.cols : 0, 0.0f), v(fac ? 0 : d.n, 0.0f);
  af::add_step(b, d, s, rv, cv, v, sums_only);
  if (fac && sums_only) {
    auto e = aref::sq_sums_expected(g, w, d, true);
    b.check_expected("row_part", e.row_part, 0, "reference.hpp bound", "");
    b.check_expected("col_part", e.col_part, 0, "reference.hpp bound", "");
    return b.c;
  }
  // the case's first run is checked (the repeats re-apply the update to w: timing only)
  auto e = aref::step_expected(w, g, rv, cv, v, d, s);
  b.check_expected("w", e.w, 0, "reference.hpp whole-step bound", "");
  if (fac) b.check_expected("row_var", e.row_var, 0, "reference.hpp bound", "");
  return b.c;
}

struct Shape2 {
  std::string name;
  std::vector<uint64_t> shape;
  bool decay;
};

// A 110M-parameter model's tensors (the optimizer bench's llm_layout with shapes: vocab 16384,
// d 768, ffn 2048, 12 layers; 110.1M parameters, 111 tensors), torch's [out, in] weights.
std::vector<Shape2> model_110m(bool quick) {
  const uint64_t vocab = quick ? 1024 : 16384, d = quick ? 64 : 768, ff = quick ? 128 : 2048;
  const int layers = quick ? 2 : 12;
  std::vector<Shape2> t;
  t.push_back({"tok_embedding", {vocab, d}, true});
  for (int l = 0; l < layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + ".";
    t.push_back({p + "attn_norm", {d}, false});
    for (const char* n : {"wq", "wk", "wv", "wo"}) t.push_back({p + n, {d, d}, true});
    t.push_back({p + "ffn_norm", {d}, false});
    for (const char* n : {"w_gate", "w_up"}) t.push_back({p + n, {ff, d}, true});
    t.push_back({p + "w_down", {d, ff}, true});
  }
  t.push_back({"final_norm", {d}, false});
  t.push_back({"lm_head", {vocab, d}, true});
  return t;
}

// per_tensor: options.per_tensor (adafactor.wgsl once per tensor: 480 dispatches for the 110M model);
// otherwise the default batched step (adafactor_multi.wgsl: 7 dispatches).
void run_model_step(bench::Ctx& c, bool per_tensor, uint64_t group_bytes = 0) {
  Device& dev = c.device();
  std::vector<optimizer::ParamSpec> specs;
  for (const auto& t : model_110m(c.quick())) specs.push_back({t.name, t.shape, t.decay});
  af::AdafactorOptions o;
  o.hyper.weight_decay = 0.01;
  o.per_tensor = per_tensor;
  o.group_bytes = group_bytes;
  af::MultiTensorAdafactor opt(dev, specs, o);
  uint64_t params = 0;
  for (size_t i = 0; i < opt.tensors().size(); ++i) {
    const auto& t = opt.tensors()[i];
    opt.set_weights(t.p.name, fast_uniform(701 + i, t.p.count, -0.1f, 0.1f));
    opt.set_grads(t.p.name, fast_uniform(801 + i, t.p.count, -0.1f, 0.1f));
    params += t.p.count;
  }
  // check one step: every weight finite, most moved
  const std::string probe = opt.tensors().front().p.name;
  auto w0 = opt.read_weights(probe);
  opt.step();
  dev.wait_idle();
  auto w1 = opt.read_weights(probe);
  uint64_t moved = 0, bad = 0;
  for (size_t j = 0; j < w1.size(); ++j) moved += w1[j] != w0[j], bad += !std::isfinite(w1[j]);
  bench::Row r;
  r.kernel = per_tensor    ? "multi_tensor_step_per_tensor"
             : group_bytes ? "multi_tensor_step_l2_groups"
                           : "multi_tensor_step";
  char lab[64];
  std::snprintf(lab, sizeof lab, "%.1fM params, %zu tensors", params / 1e6, opt.tensors().size());
  r.label = lab;
  r.dims = {{"params", params},
            {"tensors", opt.tensors().size()},
            {"dispatches", opt.dispatches_per_step()},
            {"binding_groups", opt.binding_groups()},
            {"state_bytes", opt.state_bytes()},
            {"scratch_bytes", opt.scratch_bytes()}};
  r.bytes = 12 * params;
  r.bytes_rule = "byte floor: g and w read once, w written once (state and partials not counted)";
  if (bad || moved < w1.size() / 2) {
    r.check =
        "check failed: " + std::to_string(bad) + " non-finite, " + std::to_string(moved) + " moved";
    c.add_row(r);
    return;
  }
  r.check = "ok: finite, moved";
  std::tie(r.t, r.copy) = c.time_pair_encoder(
      [&](CommandEncoder& enc, std::optional<PassTimestampWrites> ts) { opt.record_step(enc, ts); },
      r.bytes);
  c.add_row(r);
  const double floor_ms = r.copy.gbps() > 0 ? double(r.bytes) / (r.copy.gbps() * 1e9) * 1e3 : 0;
  std::printf(
      "adafactor multi-tensor step (%s): %.4f ms median, %.2fx the byte floor %.4f ms (copy "
      "roofline); "
      "%llu dispatches per step (%llu binding groups), state %.2f MB (AdamW fp32 would hold %.1f "
      "MB), scratch %.2f MB\n",
      per_tensor    ? "per tensor"
      : group_bytes ? "batched, L2-sized groups"
                    : "batched",
      r.t.median, floor_ms > 0 ? r.t.median / floor_ms : 0.0, floor_ms,
      (unsigned long long)opt.dispatches_per_step(), (unsigned long long)opt.binding_groups(),
      opt.state_bytes() / 1e6, params * 8 / 1e6, opt.scratch_bytes() / 1e6);
}

void bench_adafactor(bench::Ctx& c) {
  using P = std::pair<uint32_t, uint32_t>;
  const std::vector<P> mats =
      c.quick() ? std::vector<P>{{256, 256}, {300, 520}}
                : std::vector<P>{{256, 256},   {512, 512},   {1024, 1024}, {1024, 4096},
                                 {2048, 2048}, {4096, 4096}, {4096, 11008}};
  const std::vector<uint32_t> vecs = c.quick() ? std::vector<uint32_t>{512, 4096}
                                               : std::vector<uint32_t>{512, 1024, 2048, 4096, 8192};
  for (auto [rr, cc] : mats) {
    const uint64_t n = uint64_t(rr) * cc;
    if (c.options().max_elems && n > c.options().max_elems) continue;
    const std::string label = std::to_string(rr) + "x" + std::to_string(cc);
    const nlohmann::json dims = {{"rows", rr}, {"cols", cc}};
    if (c.selected("adafactor", "step_2d")) {
      bench::Row w;
      w.kernel = "step_2d";
      w.label = label;
      w.dims = dims;
      w.bytes = 12 * n;
      w.bytes_rule = "byte floor: g and w read once, w written once";
      bench::time_case(c, step_case(rr, cc, false), w);
    }
    if (c.selected("adafactor", "adafactor_sq_sums")) {
      bench::Row w;
      w.kernel = "adafactor_sq_sums";
      w.label = label;
      w.dims = dims;
      w.bytes = 8 * n;
      w.bytes_rule =
          "g read once (row and column sums together), w once (rms(w) for scale_parameter)";
      bench::time_case(c, step_case(rr, cc, true), w);
    }
  }
  for (uint32_t n : vecs)
    if (c.selected("adafactor", "step_1d")) {
      bench::Row w;
      w.kernel = "step_1d";
      w.label = "n=" + std::to_string(n);
      w.dims = {{"n", n}};
      w.bytes = 12ull * n;
      w.bytes_rule = "byte floor: g and w read once, w written once (v not counted)";
      bench::time_case(c, step_case(0, n, false), w);
    }
  if (c.selected("adafactor", "multi_tensor_step")) run_model_step(c, false);
  if (c.selected("adafactor", "multi_tensor_step_per_tensor")) run_model_step(c, true);
  // groups of <= 16 MB of w (g + w <= 32 MB, within an H100/H200's 50 MB L2): 7 dispatches each
  if (c.selected("adafactor", "multi_tensor_step_l2_groups"))
    run_model_step(c, false, uint64_t(16) << 20);
}

}  // namespace

WGSLVK_REGISTER_BENCH("adafactor", bench_adafactor);
