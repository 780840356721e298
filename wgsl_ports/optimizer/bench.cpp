// Benchmarks of 12_optimizer.wgsl and optimizer_native.wgsl: every update kernel over a sweep of
// sizes against the copy roofline, the seed's CAS gradient norm and the two-level norm at their
// launch choices (each row the family's own sweep case from cases.cpp, checked and timed by
// wgslvk::bench::time_case), and the whole optimizer step through MultiTensorAdamW::record_step on
// a synthetic LLM layout of 111 tensors, 110M parameters (multi-tensor vs per-tensor, fp32 /
// f16 mirror / 8-bit state, atomic / deterministic norm), with the API's own phase profile.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "optimizer/adamw.hpp"
#include "optimizer/cases.hpp"
#include "optimizer/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update_vec4.hpp"
#include "wgslvk/kernels/optimizer/adamw_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_update_f16.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats_partials.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq_partials.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::optimizer {
namespace {

using namespace wgslvk::bench;
// The kernels, by their generated headers (wgslvk/kernels/optimizer/<entry>.hpp).
namespace ko = wgslvk::kernels::optimizer;

// ---- a synthetic LLM: 111 tensors, 110.1M parameters (vocab 16384, d 768, ff 2048) ---------------
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
  if (c.options().quick)
    s = {uint64_t(1) << 16, uint64_t(1) << 18};
  else
    s = {uint64_t(1) << 20, uint64_t(1) << 22, uint64_t(1) << 24,
         uint64_t(1) << 25, uint64_t(1) << 26, uint64_t(1) << 27};
  if (c.options().max_elems)
    std::erase_if(s, [&](uint64_t n) { return n > c.options().max_elems; });
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
    if (!c.fits_binding(4 * n)) {
      c.note("norm_two_level n=" + std::to_string(n) + " over the binding limit");
      continue;
    }
    std::vector<std::pair<std::string, uint32_t>> choices;
    choices.push_back({"", default_norm_workgroups(NormMode::Deterministic, n)});
    for (uint32_t w : fixed)
      if (w <= div_ceil(n, 256)) choices.push_back({"[" + std::to_string(w) + " wg]", w});
    for (auto& [suffix, wgs] : choices) {
      auto add = [&](const std::string& kernel, TwoLevelPart part, uint64_t bytes,
                     const std::string& rule, bool plot) {
        Row r;
        r.kernel = kernel + suffix;
        r.label = "n=" + human_count(n) + " wg=" + std::to_string(wgs);
        r.dims = {
            {"n", n}, {"workgroups", wgs}, {"partials", wgs}, {"size_derived", suffix.empty()}};
        r.bytes = bytes;
        r.bytes_rule = rule;
        r.plot = plot && suffix.empty();
        time_case(c, norm_two_level_sweep_case(n, wgs, part), std::move(r));
      };
      add("optimizer/norm_two_level", TwoLevelPart::Both, bytes_reduce(n),
          "4 B/elem: read g once (reduce_norm_sq_partials + finalize_grad_stats_partials, one "
          "pass)",
          true);
      add(std::string(ko::reduce_norm_sq_partials::name), TwoLevelPart::Reduce, bytes_reduce(n),
          "4 B/elem: read g once", false);
      add(std::string(ko::finalize_grad_stats_partials::name), TwoLevelPart::Finalize,
          4 * uint64_t(wgs), "4 B/partial: read the partials once", false);
    }
  }
}

// adamw_8bit_update_vec4 against the seed's adamw_8bit_update on the device being benchmarked:
// general inputs (beta1 0.9, beta2 0.999, t 1000, random non-dyadic w and g with NaN/+-inf,
// random codes under random power-of-two scales, all-zero blocks, a ragged n), the same buffers
// given to both, every output compared bit for bit. The sweep cases' dyadic inputs make m_new
// exact, which would hide a difference in f32 rounding or contraction between the two kernels;
// these do not. Printed, kept in the JSON ("q8_vec4_vs_seed"), a note when anything differs.
void check_q8_vec4_against_seed(Ctx& c) {
  Device& d = c.device();
  auto rand_bits = [](uint32_t seed, uint64_t i) {
    return hash32(uint32_t(i) * 0x9e3779b9u + seed * 0x85ebca6bu + uint32_t(i >> 32));
  };
  const uint64_t n = c.quick() ? 70001 : (uint64_t(1) << 22) + 3;
  const uint64_t words = div_ceil(n, 4), blocks = div_ceil(n, 256);
  std::vector<float> w(words * 4), g(words * 4), ms(blocks), vs(blocks);
  std::vector<uint32_t> mp(words), vp(words);
  for (uint64_t i = 0; i < w.size(); ++i) {
    w[i] = rand_sym(901, i);
    float gi = rand_sym(902, i) * std::ldexp(1.0f, -int(rand_bits(903, i) % 20));
    uint32_t sp = rand_bits(904, i) % 4096;
    g[i] = sp == 0   ? std::numeric_limits<float>::quiet_NaN()
           : sp == 1 ? INFINITY
           : sp == 2 ? -INFINITY
                     : gi;
  }
  for (uint64_t k = 0; k < words; ++k) {
    bool zero = (k / 64) % 17 == 5;  // every 17th block all zero
    mp[k] = zero ? 0 : rand_bits(905, k);
    vp[k] = zero ? 0 : rand_bits(906, k);
  }
  if (n % 4) {  // the kernels' contract: code bytes past n are 0
    mp.back() &= (1u << (8 * (n % 4))) - 1u;
    vp.back() &= (1u << (8 * (n % 4))) - 1u;
  }
  for (uint64_t b = 0; b < blocks; ++b) {
    bool zero = b % 17 == 5;
    ms[b] = zero ? 0.0f : std::bit_cast<float>((100 + rand_bits(907, b) % 40) << 23);
    vs[b] = zero ? 0.0f : std::bit_cast<float>((80 + rand_bits(908, b) % 40) << 23);
  }
  const float hp[4] = {1e-3f, 0.9f, 0.999f, 0.01f};
  const float bias[4] = {float(std::pow(0.9, 1000.0)), float(std::pow(0.999, 1000.0)), 1e-8f,
                         1000.0f};
  const float stats[2] = {3.0f, 0.37f};
  const uint32_t nn = uint32_t(n);
  std::vector<std::vector<uint8_t>> out[2];
  for (int k = 0; k < 2; ++k) {
    Buffer bw = utils::make_buffer_from(d, "w", w), bg = utils::make_buffer_from(d, "g", g);
    Buffer bmp = utils::make_buffer_from(d, "m_packed", mp),
           bvp = utils::make_buffer_from(d, "v_packed", vp);
    Buffer bms = utils::make_buffer_from(d, "m_scale", ms),
           bvs = utils::make_buffer_from(d, "v_scale", vs);
    Buffer bst = utils::make_buffer_from(d, "grad_stats", std::vector<float>(stats, stats + 2));
    Buffer usz = utils::make_uniform(d, "size", nn), uhp = utils::make_uniform(d, "hp", hp, 16),
           ubi = utils::make_uniform(d, "bias", bias, 16);
    const uint64_t wg_bytes = (k == 0 ? n : words * 4) * 4;
    // The same buffers at each kernel's own slots (its generated header).
    std::vector<BindGroupEntry> e;
    if (k == 0) {
      namespace q = ko::adamw_8bit_update::binding;
      e = {wgslvk::bind(q::w_q8, bw, 0, wg_bytes),
           wgslvk::bind(q::g_q8, bg, 0, wg_bytes),
           wgslvk::bind(q::m_packed, bmp, 0, words * 4),
           wgslvk::bind(q::v_packed, bvp, 0, words * 4),
           wgslvk::bind(q::m_scale, bms, 0, blocks * 4),
           wgslvk::bind(q::v_scale, bvs, 0, blocks * 4),
           wgslvk::bind(q::grad_stats_q8, bst, 0, 8),
           wgslvk::bind(q::size_q8, usz, 0, 16),
           wgslvk::bind(q::hp_q8, uhp, 0, 16),
           wgslvk::bind(q::bias_q8, ubi, 0, 16)};
    } else {
      namespace q = ko::adamw_8bit_update_vec4::binding;
      e = {wgslvk::bind(q::w_v4, bw, 0, wg_bytes),
           wgslvk::bind(q::g_v4, bg, 0, wg_bytes),
           wgslvk::bind(q::m_packed_v4, bmp, 0, words * 4),
           wgslvk::bind(q::v_packed_v4, bvp, 0, words * 4),
           wgslvk::bind(q::m_scale_v4, bms, 0, blocks * 4),
           wgslvk::bind(q::v_scale_v4, bvs, 0, blocks * 4),
           wgslvk::bind(q::grad_stats_v4, bst, 0, 8),
           wgslvk::bind(q::size_v4, usz, 0, 16),
           wgslvk::bind(q::hp_v4, uhp, 0, 16),
           wgslvk::bind(q::bias_v4, ubi, 0, 16)};
    }
    const KernelInfo& ker =
        k == 0 ? ko::adamw_8bit_update::Kernel::info() : ko::adamw_8bit_update_vec4::Kernel::info();
    utils::run_dispatch(d, ker, std::move(e), grid_for_workgroups(blocks, d.limits()));
    for (const Buffer* b : {&bw, &bg, &bmp, &bvp, &bms, &bvs}) out[k].push_back(d.read_buffer(*b));
  }
  const char* names[6] = {"w", "g", "m_packed", "v_packed", "m_scale", "v_scale"};
  json j = {{"n", n},
            {"inputs",
             "beta1 0.9, beta2 0.999, t 1000, clip 0.37, random w/g (1/4096 each NaN, +inf, -inf), "
             "random codes and power-of-two scales, every 17th block zero"}};
  std::string diff;
  for (int b = 0; b < 6; ++b) {
    uint64_t words32 = out[0][b].size() / 4, bad = 0;
    for (uint64_t i = 0; i < words32; ++i)
      bad += std::memcmp(&out[0][b][4 * i], &out[1][b][4 * i], 4) != 0;
    j[std::string(names[b]) + "_words_differing"] = bad;
    if (bad) diff += std::string(diff.empty() ? "" : ", ") + names[b] + " " + std::to_string(bad);
  }
  j["bit_identical"] = diff.empty();
  std::printf("adamw_8bit_update_vec4 vs adamw_8bit_update, n=%llu, general inputs: %s\n",
              (unsigned long long)n,
              diff.empty() ? "bit-identical (w, g, codes, scales)" : ("DIFFER: " + diff).c_str());
  if (!diff.empty())
    c.note("adamw_8bit_update_vec4 differs from adamw_8bit_update (words): " + diff);
  c.out()["q8_vec4_vs_seed"] = j;
}

void run_optimizer_kernels(Ctx& c) {
  Device& d = c.device();
  // reduce_norm_sq launch: grid-stride over a bounded grid (the kernel's own comment); the
  // seed's ceil(n/256) launch is timed beside it to show what the bound buys.
  const uint32_t reduce_cap = 1024;
  c.out()["reduce_workgroups_cap"] = reduce_cap;

  struct Upd {
    std::string_view name;
    uint64_t (*bytes)(uint64_t);
    const char* rule;
  };
  const Upd upds[] = {
      {ko::adamw_update::name, bytes_adamw, "32 B/elem: read w,g,m,v + write w,m,v,g (4 B each)"},
      {ko::adamw_update_f16::name, bytes_adamw_f16,
       "34 B/elem: adamw_update + 2 B f16 mirror write"},
      {ko::adamw_8bit_update::name, bytes_adamw_8bit,
       "20 B/elem + 16 B/256: read+write w,g (4 B) and m,v codes (1 B); scales 4 B r+w per block"},
      {ko::adamw_8bit_update_vec4::name, bytes_adamw_8bit,
       "20 B/elem + 16 B/256 (as adamw_8bit_update: the same bytes, restructured kernel, ours)"},
  };

  if (c.selected("optimizer", "reduce_norm_sq") || c.options().only.count("grad_norm")) {
    for (uint64_t n : optimizer_sizes(c)) {
      if (!c.fits_binding(4 * n)) {
        c.note("reduce_norm_sq n=" + std::to_string(n) + " over the binding limit");
        continue;
      }
      // 0: min(ceil(n/256), 1024) workgroups (the optimizer API's launch before the size-derived
      // rule); 1: the seed's ceil(n/256); 2, 3: smaller bounded grids (fewer CAS adds into the one
      // accumulator); 4: the API's size-derived default (default_norm_workgroups, Atomic:
      // ~sqrt(n/256))
      for (int variant : {0, 1, 2, 3, 4}) {
        uint32_t wgs = variant == 0   ? reduce_workgroups(n, reduce_cap)
                       : variant == 1 ? uint32_t(div_ceil(n, 256))
                       : variant == 4 ? default_norm_workgroups(NormMode::Atomic, n)
                                      : reduce_workgroups(n, variant == 2 ? 256 : 64);
        if (variant == 1 && c.options().quick == false && n > (uint64_t(1) << 24))
          continue;  // seconds
        Row r;
        r.kernel = std::string(ko::reduce_norm_sq::name) + (variant == 0   ? ""
                                                            : variant == 1 ? "[seed grid]"
                                                            : variant == 4 ? "[size-derived]"
                                                            : variant == 2 ? "[256 wg]"
                                                                           : "[64 wg]");
        r.label = "n=" + human_count(n) + " wg=" + std::to_string(wgs);
        r.dims = {{"n", n}, {"workgroups", wgs}};
        r.bytes = bytes_reduce(n);
        r.bytes_rule = "4 B/elem: read g once";
        time_case(c, reduce_sweep_case(n, wgs), std::move(r));
      }
    }
  }

  run_norm_two_level(c);

  if (c.selected("optimizer", ko::adamw_8bit_update_vec4::name) ||
      c.selected("optimizer", "adamw_8bit_update_vec4"))
    check_q8_vec4_against_seed(c);

  for (const Upd& u : upds) {
    if (!c.selected("optimizer", u.name) &&
        !c.selected("optimizer", std::string(u.name).substr(10)))
      continue;
    if (kernel(u.name).needs_shader_f16 && !d.has_feature(Feature::ShaderF16)) {
      c.note(std::string(u.name) + ": device has no shader-f16: skipped");
      continue;
    }
    for (uint64_t n : optimizer_sizes(c)) {
      if (!c.fits_binding(4 * n)) {
        c.note(std::string(u.name) + " n=" + std::to_string(n) + " over the binding limit");
        continue;
      }
      Row r;
      r.kernel = u.name;
      r.label = "n=" + human_count(n);
      r.dims = {{"n", n}};
      r.bytes = u.bytes(n);
      r.bytes_rule = u.rule;
      time_case(c, adamw_sweep_case(std::string(u.name), n, kChecked), std::move(r));
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
    op::Int8Update q8 = op::Int8Update::Vec4;
  };
  // "8-bit": the API's default 8-bit update (adamw_8bit_update_vec4, ours); "8-bit seed-update":
  // the seed's adamw_8bit_update (Int8Update::Seed), the kernel of the earlier runs' "8-bit" rows.
  const Var vars[] = {{"fp32", op::StatePrecision::FP32, 36.0},
                      {"f16-mirror", op::StatePrecision::F16Mirror, 38.0},
                      {"8-bit", op::StatePrecision::Float8Blocks, 24.0 + 16.0 / 256},
                      {"8-bit seed-update", op::StatePrecision::Float8Blocks, 24.0 + 16.0 / 256,
                       op::Int8Update::Seed}};
  std::printf(
      "\n== optimizer step through MultiTensorAdamW::record_step (wgsl_ports/optimizer/adamw.hpp) "
      "==\n");
  for (const Var& var : vars) {
    if (var.p == op::StatePrecision::F16Mirror && !d.has_feature(Feature::ShaderF16)) continue;
    for (auto [mode, norm] :
         {std::pair{op::UpdateMode::MultiTensor, op::NormMode::Atomic},
          std::pair{op::UpdateMode::PerTensor, op::NormMode::Atomic},
          std::pair{op::UpdateMode::MultiTensor, op::NormMode::Deterministic}}) {
      std::string mname =
          std::string(mode == op::UpdateMode::MultiTensor ? "multi-tensor" : "per-tensor") +
          (norm == op::NormMode::Deterministic ? " deterministic-norm" : "");
      try {
        op::AdamWOptions o;
        o.precision = var.p;
        o.mode = mode;
        o.norm = norm;
        o.int8_update = var.q8;
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
        // Every step below (warm-up, timed, profiled) starts from the same fresh gradients,
        // copied back outside its timed passes: a step zeroes g, and steps on zero gradients
        // decay the moments into faster paths of the 8-bit update (time_case.cpp says more).
        Buffer g_keep = d.create_buffer(
            {"api step pristine g", opt.g().size(), BufferUsage::CopySrc | BufferUsage::CopyDst});
        auto refill_g = [&](CommandEncoder& enc) {
          enc.copy_buffer_to_buffer(g_keep, 0, opt.g(), 0, opt.g().size());
        };
        {
          CommandEncoder e = d.create_command_encoder({"api step keep g"});
          e.copy_buffer_to_buffer(opt.g(), 0, g_keep, 0, opt.g().size());
          d.queue().submit(e.finish());
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
          throw std::runtime_error("check failed: " + std::to_string(bad) + " bad, " +
                                   std::to_string(moved) + " moved, clip " + std::to_string(clip));
        // time: warm-up steps, then one encoder of record_step calls with pass timestamps
        uint64_t step_bytes = uint64_t(var.bytes_per_param * double(params));
        auto [st, cr] = c.time_pair_encoder(
            [&](CommandEncoder& enc, std::optional<PassTimestampWrites> ts) {
              refill_g(enc);
              if (ts)
                opt.record_step(enc, *ts);
              else
                opt.record_step(enc);
            },
            step_bytes);
        double limit_ms = cr.gbps() > 0 ? double(step_bytes) / (cr.gbps() * 1e9) * 1e3 : 0;
        std::printf(
            "api %s %s: step %.4f ms median [p10 %.4f, p90 %.4f]; %.2fx the byte limit %.4f ms\n",
            var.name, mname.c_str(), st.median, st.p10, st.p90,
            limit_ms > 0 ? st.median / limit_ms : 0.0, limit_ms);
        // Profile from the API's phase timestamps: `reps` steps in one submission (warm from the
        // timed run just before), median of each phase.
        json prof = json::array();
        const int reps = c.options().reps;
        {
          constexpr uint32_t K = op::MultiTensorAdamW::kStepTimestamps;
          QuerySet pq =
              d.create_query_set({.label = "api step phases", .count = uint32_t(K * reps)});
          CommandEncoder pe = d.create_command_encoder({"api step profile"});
          for (int i = 0; i < reps; ++i) {
            refill_g(pe);
            opt.record_step(pe, pq, uint32_t(K * i));
          }
          d.queue().submit(pe.finish());
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
                                : var.q8 == op::Int8Update::Vec4         ? "adamw_8bit_update_vec4"
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
              prof.push_back({{"kernel", names[k].first},
                              {"calls", names[k].second},
                              {"ms", med[k]},
                              {"share", share}});
            }
            std::printf("  %-28s        %9.4f ms  (sum of phases; whole pass median %.4f ms)\n",
                        "total", sum, stats_of(whole).median);
          }
        }
        jsteps.push_back(
            {{"source", "api"},
             {"variant", var.name},
             {"mode", mname},
             {"update_dispatches", mode == op::UpdateMode::MultiTensor ? 2 : int(tensors.size())},
             {"tensors", tensors.size()},
             {"params", params},
             {"padded_elems", opt.layout().total},
             {"norm", norm == op::NormMode::Deterministic ? "deterministic" : "atomic"},
             {"int8_update", var.p != op::StatePrecision::Float8Blocks ? "-"
                             : var.q8 == op::Int8Update::Vec4          ? "adamw_8bit_update_vec4"
                                                                       : "adamw_8bit_update"},
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
             {"check",
              "one step: grads zeroed, weights moved and finite, clip " + std::to_string(clip)}});
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
