// Benchmarks of 12_optimizer.wgsl and optimizer_native.wgsl: every update kernel over a sweep of
// sizes against the copy roofline, the seed's CAS gradient norm and the two-level norm at their
// launch choices (each row the family's own sweep case from cases.cpp, checked and timed by
// wgslvk::bench::time_case), and the whole optimizer step through MultiTensorAdamW::record_step on
// the 111-tensor, 110M-parameter layout of shared/anchors.md (multi-tensor vs per-tensor, fp32 /
// f16 mirror / 8-bit state, atomic / deterministic norm), with the API's own phase profile.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "optimizer/adamw.hpp"
#include "optimizer/cases.hpp"
#include "optimizer/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/numeric.hpp"

namespace wgslvk::optimizer {
namespace {

using namespace wgslvk::bench;

// ---- the model of shared/anchors.md: 111 tensors, 110.1M parameters -----------------------------
struct TensorDesc {
  std::string name;
  uint64_t numel = 0;
  bool decay = true;  // matrices decay; norms (and biases, none here) do not
};

inline std::vector<TensorDesc> llm_layout(uint64_t vocab = 16384, uint64_t d = 768,
                                          uint64_t ff = 2048, int layers = 12) {
  std::vector<TensorDesc> t;
  t.push_back({"tok_embedding", vocab * d, true});
  for (int l = 0; l < layers; ++l) {
    std::string p = "layer" + std::to_string(l) + ".";
    t.push_back({p + "attn_norm", d, false});
    for (const char* n : {"wq", "wk", "wv", "wo"}) t.push_back({p + n, d * d, true});
    t.push_back({p + "ffn_norm", d, false});
    for (const char* n : {"w_gate", "w_up"}) t.push_back({p + n, d * ff, true});
    t.push_back({p + "w_down", ff * d, true});
  }
  t.push_back({"final_norm", d, false});
  t.push_back({"lm_head", vocab * d, true});
  return t;
}

// ---- minimum bytes through device memory (each input read once, each output written once) -------
// adamw_update: reads w, g, m, v; writes w, m, v and zeroes g: 8 x 4 B.
inline uint64_t bytes_adamw(uint64_t n) { return 32 * n; }
// adamw_update_f16: the same plus the f16 mirror write.
inline uint64_t bytes_adamw_f16(uint64_t n) { return 34 * n; }
// adamw_8bit_update: reads w, g (4 B each) and the int8 m, v codes (1 B each), writes the same
// 10 B back; per 256-element block each of m_scale, v_scale is read and written (4 B each way).
inline uint64_t bytes_adamw_8bit(uint64_t n) { return 20 * n + 16 * ((n + 255) / 256); }
// reduce_norm_sq: reads g once (4 B); the scalar result is noise.
inline uint64_t bytes_reduce(uint64_t n) { return 4 * n; }


// ---- optimizer kernels: the family's sweep cases (cases.hpp) through time_case ------------------
// Each row times the case cases.cpp builds at the row's size, after checking it as `wgslvk
// validate` does (the goldens' references and bounds; the update kernels' first kChecked elements,
// the reductions' whole result). --dump writes the case folders bench/peers/dawn_cases.mjs replays.

constexpr uint64_t kChecked = uint64_t(1) << 16;

std::vector<uint64_t> optimizer_sizes(const Ctx& c) {
  std::vector<uint64_t> s;
  if (c.options().quick) s = {uint64_t(1) << 16, uint64_t(1) << 18};
  else s = {uint64_t(1) << 20, uint64_t(1) << 22, uint64_t(1) << 24, uint64_t(1) << 25,
            uint64_t(1) << 26, uint64_t(1) << 27};
  if (c.options().max_elems) std::erase_if(s, [&](uint64_t n) { return n > c.options().max_elems; });
  return s;
}

uint32_t reduce_workgroups(uint64_t n, uint32_t cap) {
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(div_ceil(n, 256), cap)));
}

// Rows: for each size and partial count, the pair as one timed unit (one pass, two dispatches),
// and each kernel alone. Bytes: 4 B/elem for the pair and the reduce (g read once; the partials
// are noise), 4 B/partial for the finalize alone (its own read).
void run_norm_two_level(Ctx& c) {
  if (!c.selected("optimizer", "norm_two_level") && !c.options().only.count("grad_norm") &&
      !c.options().only.count("reduce_norm_sq_partials"))
    return;
  const std::vector<uint32_t> fixed = {512, 1024, 2048, 4096, 8192};
  for (uint64_t n : optimizer_sizes(c)) {
    if (!c.fits_binding(4 * n)) { c.note("norm_two_level n=" + std::to_string(n) + " over the binding limit"); continue; }
    std::vector<std::pair<std::string, uint32_t>> choices;
    choices.push_back({"", default_norm_workgroups(NormMode::Deterministic, n)});
    for (uint32_t w : fixed)
      if (w <= div_ceil(n, 256)) choices.push_back({"[" + std::to_string(w) + " wg]", w});
    for (auto& [suffix, wgs] : choices) {
      auto add = [&](const std::string& kernel, TwoLevelPart part, uint64_t bytes, const std::string& rule,
                     bool plot) {
        Row r;
        r.kernel = kernel + suffix;
        r.label = "n=" + human_count(n) + " wg=" + std::to_string(wgs);
        r.dims = {{"n", n}, {"workgroups", wgs}, {"partials", wgs}, {"size_derived", suffix.empty()}};
        r.bytes = bytes;
        r.bytes_rule = rule;
        r.plot = plot && suffix.empty();
        time_case(c, norm_two_level_sweep_case(n, wgs, part), std::move(r));
      };
      add("optimizer/norm_two_level", TwoLevelPart::Both, bytes_reduce(n),
          "4 B/elem: read g once (reduce_norm_sq_partials + finalize_grad_stats_partials, one pass)", true);
      add("optimizer/reduce_norm_sq_partials", TwoLevelPart::Reduce, bytes_reduce(n), "4 B/elem: read g once",
          false);
      add("optimizer/finalize_grad_stats_partials", TwoLevelPart::Finalize, 4 * uint64_t(wgs),
          "4 B/partial: read the partials once", false);
    }
  }
}

void run_optimizer_kernels(Ctx& c) {
  Device& d = c.device();
  // reduce_norm_sq launch: grid-stride over a bounded grid (the kernel's own comment); the
  // seed's ceil(n/256) launch is timed beside it to show what the bound buys.
  const uint32_t reduce_cap = 1024;
  c.out()["reduce_workgroups_cap"] = reduce_cap;

  struct Upd {
    const char* name;
    uint64_t (*bytes)(uint64_t);
    const char* rule;
  };
  const Upd upds[] = {
      {"optimizer/adamw_update", bytes_adamw, "32 B/elem: read w,g,m,v + write w,m,v,g (4 B each)"},
      {"optimizer/adamw_update_f16", bytes_adamw_f16, "34 B/elem: adamw_update + 2 B f16 mirror write"},
      {"optimizer/adamw_8bit_update", bytes_adamw_8bit,
       "20 B/elem + 16 B/256: read+write w,g (4 B) and m,v codes (1 B); scales 4 B r+w per block"},
  };

  if (c.selected("optimizer", "reduce_norm_sq") || c.options().only.count("grad_norm")) {
    for (uint64_t n : optimizer_sizes(c)) {
      if (!c.fits_binding(4 * n)) { c.note("reduce_norm_sq n=" + std::to_string(n) + " over the binding limit"); continue; }
      // 0: min(ceil(n/256), 1024) workgroups (the optimizer API's launch before the size-derived
      // rule); 1: the seed's ceil(n/256); 2, 3: smaller bounded grids (fewer CAS adds into the one
      // accumulator); 4: the API's size-derived default (default_norm_workgroups, Atomic:
      // ~sqrt(n/256))
      for (int variant : {0, 1, 2, 3, 4}) {
        uint32_t wgs = variant == 0 ? reduce_workgroups(n, reduce_cap)
                     : variant == 1 ? uint32_t(div_ceil(n, 256))
                     : variant == 4 ? default_norm_workgroups(NormMode::Atomic, n)
                     : reduce_workgroups(n, variant == 2 ? 256 : 64);
        if (variant == 1 && c.options().quick == false && n > (uint64_t(1) << 24)) continue;  // seconds
        Row r;
        r.kernel = variant == 0 ? "optimizer/reduce_norm_sq"
                 : variant == 1 ? "optimizer/reduce_norm_sq[seed grid]"
                 : variant == 4 ? "optimizer/reduce_norm_sq[size-derived]"
                 : variant == 2 ? "optimizer/reduce_norm_sq[256 wg]" : "optimizer/reduce_norm_sq[64 wg]";
        r.label = "n=" + human_count(n) + " wg=" + std::to_string(wgs);
        r.dims = {{"n", n}, {"workgroups", wgs}};
        r.bytes = bytes_reduce(n);
        r.bytes_rule = "4 B/elem: read g once";
        time_case(c, reduce_sweep_case(n, wgs), std::move(r));
      }
    }
  }

  run_norm_two_level(c);

  for (const Upd& u : upds) {
    if (!c.selected("optimizer", u.name) && !c.selected("optimizer", std::string(u.name).substr(10)))
      continue;
    if (kernel(u.name).needs_shader_f16 && !d.has_feature(Feature::ShaderF16)) {
      c.note(std::string(u.name) + ": device has no shader-f16: skipped");
      continue;
    }
    for (uint64_t n : optimizer_sizes(c)) {
      if (!c.fits_binding(4 * n)) { c.note(std::string(u.name) + " n=" + std::to_string(n) + " over the binding limit"); continue; }
      Row r;
      r.kernel = u.name;
      r.label = "n=" + human_count(n);
      r.dims = {{"n", n}};
      r.bytes = u.bytes(n);
      r.bytes_rule = u.rule;
      time_case(c, adamw_sweep_case(u.name, n, kChecked), std::move(r));
    }
  }
}

// ---- the whole optimizer step on the 111-tensor layout ------------------------------------------

struct StepRun {
  std::string variant, mode;
  int dispatches = 0;
  Stats t;
  std::vector<std::pair<std::string, std::pair<int, double>>> profile;  // kernel -> calls, ms
  bool profiled = false;
};

// The same step through the optimizer's host API (wgsl_ports/optimizer/adamw.hpp):
// MultiTensorAdamW::record_step with pass timestamps, multi-tensor and per-tensor, for each
// precision, atomic (seed) and deterministic norms, each with the API's default (size-derived)
// norm launch. The profile table comes from the API itself: record_step(encoder, query_set,
// base) writes timestamps between its phases (reduce, finalize, update decay, update no-decay).
void run_step_api(Ctx& c, const std::vector<TensorDesc>& tensors, json& jsteps) {
  namespace op = wgslvk::optimizer;
  Device& d = c.device();
  std::vector<op::ParamSpec> specs;
  for (const auto& t : tensors) specs.push_back({t.name, {t.numel}, t.decay});
  struct Var {
    const char* name;
    op::StatePrecision p;
    double bytes_per_param;
  };
  const Var vars[] = {{"fp32", op::StatePrecision::FP32, 36.0},
                      {"f16-mirror", op::StatePrecision::F16Mirror, 38.0},
                      {"8-bit", op::StatePrecision::Int8, 24.0 + 16.0 / 256}};
  std::printf("\n== optimizer step through MultiTensorAdamW::record_step (wgsl_ports/optimizer/adamw.hpp) ==\n");
  for (const Var& var : vars) {
    if (var.p == op::StatePrecision::F16Mirror && !d.has_feature(Feature::ShaderF16)) continue;
    for (auto [mode, norm] : {std::pair{op::UpdateMode::MultiTensor, op::NormMode::Atomic},
                              std::pair{op::UpdateMode::PerTensor, op::NormMode::Atomic},
                              std::pair{op::UpdateMode::MultiTensor, op::NormMode::Deterministic}}) {
      std::string mname = std::string(mode == op::UpdateMode::MultiTensor ? "multi-tensor" : "per-tensor") +
                          (norm == op::NormMode::Deterministic ? " deterministic-norm" : "");
      try {
        op::AdamWOptions o;
        o.precision = var.p;
        o.mode = mode;
        o.norm = norm;
        op::MultiTensorAdamW opt(d, specs, o);
        uint64_t params = 0;
        for (size_t i = 0; i < tensors.size(); ++i) {
          std::vector<float> w(tensors[i].numel), g(tensors[i].numel);
          for (uint64_t j = 0; j < w.size(); ++j) {
            w[j] = rand_sym(701 + uint32_t(i), j) * 0.1f;
            g[j] = rand_sym(801 + uint32_t(i), j) * 0.1f;
          }
          opt.set_weights(tensors[i].name, w);
          opt.set_grads(tensors[i].name, g);
          params += w.size();
        }
        // check one step: grads zeroed, weights moved and finite, clipping active
        const std::string probe = tensors.back().name;
        auto w0 = opt.read_weights(probe);
        opt.step();
        d.wait_idle();
        auto w1 = opt.read_weights(probe);
        auto g1 = opt.read_grads(probe);
        float clip = opt.read_clip_scale();
        uint64_t moved = 0, bad = 0;
        for (size_t j = 0; j < w1.size(); ++j) {
          moved += w1[j] != w0[j];
          bad += !is_finite_bits(w1[j]) || g1[j] != 0.0f;
        }
        if (bad || moved < w1.size() / 2 || !(clip > 0.0f && clip < 1.0f))
          throw std::runtime_error("check failed: " + std::to_string(bad) + " bad, " + std::to_string(moved) +
                                   " moved, clip " + std::to_string(clip));
        // time: warm-up steps, then one encoder of record_step calls with pass timestamps
        uint64_t step_bytes = uint64_t(var.bytes_per_param * double(params));
        auto [st, cr] = c.time_pair_encoder(
            [&](CommandEncoder& enc, std::optional<PassTimestampWrites> ts) {
              if (ts) opt.record_step(enc, *ts);
              else opt.record_step(enc);
            },
            step_bytes);
        double limit_ms = cr.gbps() > 0 ? double(step_bytes) / (cr.gbps() * 1e9) * 1e3 : 0;
        std::printf("api %s %s: step %.4f ms median [p10 %.4f, p90 %.4f]; %.2fx the byte limit %.4f ms\n",
                    var.name, mname.c_str(), st.median, st.p10, st.p90,
                    limit_ms > 0 ? st.median / limit_ms : 0.0, limit_ms);
        // Profile from the API's phase timestamps: `reps` steps in one submission (warm from the
        // timed run just before), median of each phase.
        json prof = json::array();
        const int reps = c.options().reps;
        {
          constexpr uint32_t K = op::MultiTensorAdamW::kStepTimestamps;
          QuerySet pq = d.create_query_set(uint32_t(K * reps), "api step phases");
          CommandEncoder pe = d.create_command_encoder("api step profile");
          for (int i = 0; i < reps; ++i) opt.record_step(pe, pq, uint32_t(K * i));
          d.submit(pe.finish());
          d.wait_idle();
          auto pts = d.read_timestamps(pq);
          std::vector<double> ph[K - 1], whole;
          for (int i = 0; i < reps; ++i) {
            const uint64_t* q = &pts[size_t(K) * i];
            bool mono = true;
            for (uint32_t k = 1; k < K; ++k) mono = mono && q[k] >= q[k - 1];
            if (!mono) continue;
            for (uint32_t k = 0; k + 1 < K; ++k) ph[k].push_back(double(q[k + 1] - q[k]) * 1e-6);
            whole.push_back(double(q[K - 1] - q[0]) * 1e-6);
          }
          if (!whole.empty()) {
            auto pd = opt.phase_dispatches();
            const bool det = norm == op::NormMode::Deterministic;
            std::string uname = var.p == op::StatePrecision::FP32        ? "adamw_update"
                                : var.p == op::StatePrecision::F16Mirror ? "adamw_update_f16"
                                                                         : "adamw_8bit_update";
            const std::pair<std::string, uint32_t> names[K - 1] = {
                {det ? "reduce_norm_sq_partials" : "reduce_norm_sq", pd.reduce},
                {det ? "finalize_grad_stats_partials" : "finalize_grad_stats", pd.finalize},
                {uname + " decay", pd.update_decay},
                {uname + " no-decay", pd.update_no_decay}};
            double sum = 0, med[K - 1];
            for (uint32_t k = 0; k + 1 < K; ++k) sum += med[k] = stats_of(ph[k]).median;
            for (uint32_t k = 0; k + 1 < K; ++k) {
              double share = sum > 0 ? med[k] / sum : 0;
              std::printf("  %-28s (x%4u) %9.4f ms  -> %5.1f%% step\n", names[k].first.c_str(),
                          names[k].second, med[k], 100 * share);
              prof.push_back({{"kernel", names[k].first}, {"calls", names[k].second}, {"ms", med[k]}, {"share", share}});
            }
            std::printf("  %-28s        %9.4f ms  (sum of phases; whole pass median %.4f ms)\n", "total", sum,
                        stats_of(whole).median);
          }
        }
        jsteps.push_back({{"source", "api"},
                          {"variant", var.name},
                          {"mode", mname},
                          {"update_dispatches", mode == op::UpdateMode::MultiTensor ? 2 : int(tensors.size())},
                          {"tensors", tensors.size()},
                          {"params", params},
                          {"padded_elems", opt.layout().total},
                          {"norm", norm == op::NormMode::Deterministic ? "deterministic" : "atomic"},
                          {"norm_workgroups", opt.norm_workgroups()},
                          {"median_ms", st.median},
                          {"p10_ms", st.p10},
                          {"p90_ms", st.p90},
                          {"reps", st.n},
                          {"bytes", step_bytes},
                          {"bytes_per_param", var.bytes_per_param},
                          {"copy_gbps", cr.gbps()},
                          {"byte_limit_ms", limit_ms},
                          {"vs_byte_limit", limit_ms > 0 ? st.median / limit_ms : 0.0},
                          {"profile", prof},
                          {"check", "one step: grads zeroed, weights moved and finite, clip " + std::to_string(clip)}});
      } catch (const std::exception& e) {
        std::printf("api %s %s: %s\n", var.name, mname.c_str(), e.what());
        c.note(std::string("api step ") + var.name + " " + mname + ": " + e.what());
      }
    }
  }
}

void bench_optimizer(Ctx& c) {
  run_optimizer_kernels(c);  // each kernel checks --only itself
  if (c.selected("optimizer", "step")) {
    std::vector<TensorDesc> tensors = c.quick() ? llm_layout(1024, 64, 128, 12) : llm_layout();
    std::printf("\n== optimizer step: %zu tensors, %s ==\n", tensors.size(),
                c.quick() ? "quick layout (vocab 1024, d 64, ff 128, 12 layers)"
                          : "vocab 16384, d 768, ff 2048, 12 layers");
    json jsteps = json::array();
    run_step_api(c, tensors, jsteps);
    c.out()["step"] = jsteps;
  }
}

}  // namespace

WGSLVK_REGISTER_BENCH("optimizer", bench_optimizer);

}  // namespace wgslvk::optimizer
