// Benchmarks of 12_optimizer.wgsl and optimizer_native.wgsl: every update kernel over a sweep of
// sizes against the copy roofline, the seed's CAS gradient norm and the two-level norm at their
// launch choices, and the whole optimizer step through MultiTensorAdamW::record_step on the
// 111-tensor, 110M-parameter layout of shared/anchors.md (multi-tensor vs per-tensor, fp32 / f16
// mirror / 8-bit state, atomic / deterministic norm), with the API's own phase profile.
// Binding numbers are the seed's ABI tables (12_optimizer.wgsl).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "optimizer/adamw.hpp"
#include "optimizer/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/bench/sweep_helpers.hpp"
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


// ---- optimizer kernels -----------------------------------------------------------------------

struct AdamHp {
  float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, wd = 0.01f, eps = 1e-8f;
  float t = 10.0f;
  std::array<float, 4> hp() const { return {lr, b1, b2, wd}; }
  std::array<float, 4> bias() const {
    return {float(std::pow(double(b1), double(t))), float(std::pow(double(b2), double(t))), eps, t};
  }
};

// The seed's adamw_update in f32, operation for operation.
void adamw_ref(float& w, float& g, float& m, float& v, float clip, const AdamHp& h) {
  auto bias = h.bias();
  float grad = is_finite_bits(g) ? g : 0.0f;
  grad = grad * clip;
  float m_new = h.b1 * m + (1.0f - h.b1) * grad;
  float v_new = h.b2 * v + (1.0f - h.b2) * grad * grad;
  float b1c = 1.0f / std::max(1.0f - bias[0], 1e-12f);
  float b2c = 1.0f / std::max(1.0f - bias[1], 1e-12f);
  float step = (m_new * b1c) / (std::sqrt(v_new * b2c) + h.eps) + h.wd * w;
  w = w - h.lr * step;
  m = m_new;
  v = v_new;
  g = 0.0f;
}

struct OptBuffers {
  uint64_t n = 0;
  Buffer w, g, m, v, w16, mq, vq, ms, vs, stats, size_u, hp_u, bias_u;
};

enum class OptKind { fp32, f16, q8 };

OptBuffers make_opt_buffers(Ctx& c, uint64_t n, OptKind kind, const AdamHp& h) {
  OptBuffers b;
  b.n = n;
  Device& d = c.device();
  b.w = utils::make_buffer(d, "w", 4 * n, utils::kStorageUsage);
  b.g = utils::make_buffer(d, "g", 4 * n, utils::kStorageUsage);
  if (kind == OptKind::q8) {
    b.mq = utils::make_buffer(d, "m_packed", n, utils::kStorageUsage);  // n bytes, rounded up to 4
    b.vq = utils::make_buffer(d, "v_packed", n, utils::kStorageUsage);
    b.ms = utils::make_buffer(d, "m_scale", 4 * div_ceil(n, 256), utils::kStorageUsage);
    b.vs = utils::make_buffer(d, "v_scale", 4 * div_ceil(n, 256), utils::kStorageUsage);
  } else {
    b.m = utils::make_buffer(d, "m", 4 * n, utils::kStorageUsage);
    b.v = utils::make_buffer(d, "v", 4 * n, utils::kStorageUsage);
  }
  if (kind == OptKind::f16) b.w16 = utils::make_buffer(d, "w16", 2 * n, utils::kStorageUsage);
  float stats[4] = {1.5f, 0.8f, 0, 0};
  b.stats = utils::make_buffer(d, "grad_stats", 16, utils::kStorageUsage);
  d.write_buffer(b.stats, 0, stats, 16);
  uint32_t nn[4] = {uint32_t(n), 0, 0, 0};
  b.size_u = utils::make_uniform(d, "size", nn, 16);
  auto hp = h.hp();
  auto bias = h.bias();
  b.hp_u = utils::make_uniform(d, "hp", hp.data(), 16);
  b.bias_u = utils::make_uniform(d, "bias", bias.data(), 16);
  return b;
}

Bindings opt_bindings(const OptBuffers& b, OptKind kind) {
  if (kind == OptKind::q8)
    return {{0, {b.w}}, {1, {b.g}}, {2, {b.mq}}, {3, {b.vq}}, {4, {b.ms}}, {5, {b.vs}},
            {6, {b.stats}}, {7, {b.size_u}}, {8, {b.hp_u}}, {9, {b.bias_u}}};
  Bindings r = {{0, {b.w}}, {1, {b.g}}, {2, {b.m}}, {3, {b.v}}, {4, {b.stats}},
                {5, {b.size_u}}, {6, {b.hp_u}}, {7, {b.bias_u}}};
  if (kind == OptKind::f16) r[8] = {b.w16};
  return r;
}

// Checks one adamw kernel at size n against the f32 reference (fresh inputs, a few non-finite
// gradients, the kernel's clip from grad_stats). Returns "ok" or throws.
std::string check_adamw(Ctx& c, const ComputePipeline& pipe, OptKind kind, uint64_t n,
                        const AdamHp& h) {
  Device& d = c.device();
  OptBuffers b = make_opt_buffers(c, n, kind, h);
  std::vector<float> w(n), g(n), m(n, 0.0f), v(n, 0.0f);
  for (uint64_t i = 0; i < n; ++i) {
    w[i] = rand_sym(101, i);
    g[i] = rand_sym(102, i) * 0.1f;
    if (kind != OptKind::q8) {
      m[i] = rand_sym(103, i) * 0.01f;
      v[i] = rand_pos(104, i) * 1e-3f;
    }
  }
  g[n / 3] = std::numeric_limits<float>::quiet_NaN();
  g[n / 2] = std::numeric_limits<float>::infinity();
  g[n - 1] = -std::numeric_limits<float>::infinity();
  write<float>(d, b.w, w);
  write<float>(d, b.g, g);
  if (kind == OptKind::q8) {
    zero_fill(d, b.mq), zero_fill(d, b.vq), zero_fill(d, b.ms), zero_fill(d, b.vs);
  } else {
    write<float>(d, b.m, m);
    write<float>(d, b.v, v);
  }
  if (kind == OptKind::f16) {
    std::vector<uint16_t> poison(n + (n & 1), 0x7e00);
    d.write_buffer(b.w16, 0, poison.data(), poison.size() * 2);
  }
  BindGroup grp = make_group(d, pipe, opt_bindings(b, kind), "check");
  uint32_t threads_n = uint32_t(n);
  run_once(d, [&](ComputePass& p) {
    p.set_pipeline(pipe);
    p.set_bind_group(0, grp);
    dispatch_1d(p, d, threads_n);
  });
  auto gw = read<float>(d, b.w), gg = read<float>(d, b.g);
  std::vector<float> gm, gv;
  if (kind != OptKind::q8) gm = read<float>(d, b.m), gv = read<float>(d, b.v);
  const float clip = 0.8f;
  uint64_t bad = 0, first_bad = 0;
  std::string what;
  auto fail = [&](uint64_t i, const char* name) {
    if (bad++ == 0) first_bad = i, what = name;
  };
  std::vector<float> rw = w, rg = g, rm = m, rv = v;
  for (uint64_t i = 0; i < n; ++i) {
    adamw_ref(rw[i], rg[i], rm[i], rv[i], clip, h);
    if (gg[i] != 0.0f) fail(i, "g (not zeroed)");
    if (!close_f32(gw[i], rw[i], 4e-7, 2e-9)) fail(i, "w");
    if (kind != OptKind::q8) {
      // m = b1*m + (1-b1)*g may cancel: allow a few ULP of the terms (|terms| < 0.02), as a
      // contracted (fused multiply-add) evaluation rounds differently from the reference
      if (!close_f32(gm[i], rm[i], 4e-7, 4e-9)) fail(i, "m");
      if (!close_f32(gv[i], rv[i], 4e-7, 1e-12)) fail(i, "v");
    }
  }
  if (kind == OptKind::f16) {
    auto w16 = read<uint16_t>(d, b.w16, 0, align_up(n, 2));  // reads are whole 4-byte words
    for (uint64_t i = 0; i < n; ++i) {
      uint16_t want = f32_to_f16_bits(gw[i]);
      if (std::abs(int(w16[i]) - int(want)) > 1) fail(i, "w16 (not f16(w))");
    }
  }
  if (kind == OptKind::q8) {
    auto mq = read<uint8_t>(d, b.mq, 0, align_up(n, 4)), vq = read<uint8_t>(d, b.vq, 0, align_up(n, 4));
    auto ms = read<float>(d, b.ms), vs = read<float>(d, b.vs);
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t me = std::bit_cast<uint32_t>(ms[i / 256]) >> 23, ve = std::bit_cast<uint32_t>(vs[i / 256]) >> 23;
      float mm = wgslvk::optimizer::q8_decode(mq[i] & 0x7fu, me, 15);
      if (mq[i] & 0x80u) mm = -mm;
      float vv = wgslvk::optimizer::q8_decode(vq[i], ve, 31);
      // 3 mantissa bits, stochastic rounding: within one code step (1/8 relative) of the f32
      // state, or below the block's subnormal floor.
      if (!(std::fabs(mm - rm[i]) <= 0.126f * std::fabs(rm[i]) + ms[i / 256] * 0x1p-17f)) fail(i, "m code");
      if (!(std::fabs(vv - rv[i]) <= 0.126f * std::fabs(rv[i]) + vs[i / 256] * 0x1p-33f)) fail(i, "v code");
    }
  }
  if (bad) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%llu elements wrong, first %s at %llu (got w %g want %g)",
                  (unsigned long long)bad, what.c_str(), (unsigned long long)first_bad,
                  double(gw[first_bad]), double(rw[first_bad]));
    throw std::runtime_error("bench: " + pipe.kernel().qualified_name() + " check failed: " + buf);
  }
  if (!c.options().dump_dir.empty()) {
    DumpCase dc{c.options().dump_dir + "/" + std::string(pipe.kernel().name), {}};
    dc.meta = {{"kernel", std::string(pipe.kernel().name)},
               {"wgsl", "wgsl_ports/optimizer/12_optimizer.wgsl"},
               {"threads", n}, {"wg", 256}, {"bindings", json::array()}};
    float stats[4] = {1.5f, 0.8f, 0, 0};
    uint32_t nn[4] = {uint32_t(n), 0, 0, 0};
    auto hp = h.hp();
    auto bias = h.bias();
    dc.binding(0, "storage", w.data(), 4 * n, "ulp:8");
    dc.binding(1, "storage", g.data(), 4 * n, "exact");
    if (kind == OptKind::q8) {
      std::vector<uint8_t> z(align_up(n, 4), 0);
      std::vector<float> zs(div_ceil(n, 256), 0.0f);
      dc.binding(2, "storage", z.data(), z.size(), "q8m");
      dc.binding(3, "storage", z.data(), z.size(), "q8v");
      dc.binding(4, "storage", zs.data(), zs.size() * 4, "exact");
      dc.binding(5, "storage", zs.data(), zs.size() * 4, "exact");
      dc.binding(6, "read-only-storage", stats, 16);
      dc.binding(7, "uniform", nn, 16);
      dc.binding(8, "uniform", hp.data(), 16);
      dc.binding(9, "uniform", bias.data(), 16);
      dc.output(0, gw.data(), 4 * n);
      dc.output(1, gg.data(), 4 * n);
      auto mq = read<uint8_t>(d, b.mq), vq = read<uint8_t>(d, b.vq);
      auto ms = read<float>(d, b.ms), vs = read<float>(d, b.vs);
      dc.output(2, mq.data(), mq.size());
      dc.output(3, vq.data(), vq.size());
      dc.output(4, ms.data(), ms.size() * 4);
      dc.output(5, vs.data(), vs.size() * 4);
    } else {
      dc.binding(2, "storage", m.data(), 4 * n, "ulp:8");
      dc.binding(3, "storage", v.data(), 4 * n, "ulp:8");
      dc.binding(4, "read-only-storage", stats, 16);
      dc.binding(5, "uniform", nn, 16);
      dc.binding(6, "uniform", hp.data(), 16);
      dc.binding(7, "uniform", bias.data(), 16);
      dc.output(0, gw.data(), 4 * n);
      dc.output(1, gg.data(), 4 * n);
      dc.output(2, gm.data(), 4 * n);
      dc.output(3, gv.data(), 4 * n);
      if (kind == OptKind::f16) {
        std::vector<uint16_t> poison(n + (n & 1), 0x7e00);
        dc.binding(8, "storage", poison.data(), poison.size() * 2, "ulp16:1");
        auto w16 = read<uint16_t>(d, b.w16);
        dc.output(8, w16.data(), w16.size() * 2);
      }
    }
    dc.finish();
  }
  return "ok";
}

uint32_t reduce_workgroups(uint64_t n, uint32_t cap) {
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(div_ceil(n, 256), cap)));
}

std::string check_reduce(Ctx& c, const ComputePipeline& pipe, uint64_t n, uint32_t wgs) {
  Device& d = c.device();
  std::vector<float> g(n);
  for (uint64_t i = 0; i < n; ++i) g[i] = rand_sym(201, i);
  g[n / 2] = std::numeric_limits<float>::quiet_NaN();
  g[n / 3] = std::numeric_limits<float>::infinity();
  double want = 0;
  for (float x : g)
    if (is_finite_bits(x)) want += double(x) * x;
  Buffer data = utils::make_buffer(d, "g", 4 * n, utils::kStorageUsage), res = utils::make_buffer(d, "acc", 4, utils::kStorageUsage);
  write<float>(d, data, g);
  zero_fill(d, res);
  uint32_t nn[4] = {uint32_t(n), 0, 0, 0};
  Buffer nu = utils::make_uniform(d, "n", nn, 16);
  BindGroup grp = make_group(d, pipe, {{0, {data}}, {1, {res}}, {2, {nu}}}, "check");
  run_once(d, [&](ComputePass& p) {
    p.set_pipeline(pipe);
    p.set_bind_group(0, grp);
    Grid gr = grid_for_workgroups(wgs, d.limits());
    p.dispatch_workgroups(gr.x, gr.y);
  });
  float got = read<float>(d, res)[0];
  if (!(std::fabs(double(got) - want) <= 1e-4 * want))
    throw std::runtime_error("bench: reduce_norm_sq check failed: got " + std::to_string(got) +
                             ", want " + std::to_string(want));
  if (!c.options().dump_dir.empty()) {
    DumpCase dc{c.options().dump_dir + "/reduce_norm_sq", {}};
    dc.meta = {{"kernel", "reduce_norm_sq"}, {"wgsl", "wgsl_ports/optimizer/12_optimizer.wgsl"},
               {"workgroups", wgs}, {"bindings", json::array()}};
    uint32_t zero = 0;
    dc.binding(0, "read-only-storage", g.data(), 4 * n);
    dc.binding(1, "storage", &zero, 4, "rel:1e-5");
    dc.binding(2, "uniform", nn, 16);
    dc.output(1, &got, 4);
    dc.finish();
  }
  return "ok";
}

std::vector<uint64_t> optimizer_sizes(const Ctx& c);

// The optimizer API's size-derived norm launches (0 when the API is not in this build).
uint32_t atomic_default_workgroups(uint64_t n) {
  return wgslvk::optimizer::default_norm_workgroups(wgslvk::optimizer::NormMode::Atomic, n);
}
uint32_t deterministic_default_workgroups(uint64_t n) {
  return wgslvk::optimizer::default_norm_workgroups(wgslvk::optimizer::NormMode::Deterministic, n);
}

// The two-level (deterministic) norm of optimizer_native.wgsl: reduce_norm_sq_partials writes one
// partial per workgroup, finalize_grad_stats_partials (one workgroup) sums them in a fixed tree.
struct NormTwoLevel {
  ComputePipeline pr, pf;
  Buffer data, partials, stats, n_u, mg_u;
  BindGroup gr, gf;
  Grid grid;
  uint32_t wgs = 0;
};

NormTwoLevel make_two_level(Ctx& c, const ComputePipeline& pr, const ComputePipeline& pf,
                            const Buffer& data, uint64_t n, uint32_t wgs, float max_norm,
                            const Buffer* stats = nullptr) {
  Device& d = c.device();
  NormTwoLevel t;
  t.pr = pr, t.pf = pf, t.data = data, t.wgs = wgs;
  t.partials = utils::make_buffer(d, "partials", 4 * uint64_t(wgs), utils::kStorageUsage);
  t.stats = stats ? *stats : utils::make_buffer(d, "grad_stats", 8, utils::kStorageUsage);
  uint32_t nn[4] = {uint32_t(n), 0, 0, 0};
  float mg[4] = {max_norm, 0, 0, 0};
  t.n_u = utils::make_uniform(d, "n", nn, 16);
  t.mg_u = utils::make_uniform(d, "max_grad_norm", mg, 16);
  t.gr = make_group(d, pr, {{0, {data, 0, 4 * n}}, {1, {t.partials}}, {2, {t.n_u}}}, "reduce_partials");
  t.gf = make_group(d, pf, {{0, {t.partials}}, {1, {t.stats, 0, 8}}, {2, {t.mg_u}}}, "finalize_partials");
  t.grid = grid_for_workgroups(wgs, d.limits());
  return t;
}
void record_reduce(ComputePass& p, const NormTwoLevel& t) {
  p.set_pipeline(t.pr);
  p.set_bind_group(0, t.gr);
  p.dispatch_workgroups(t.grid.x, t.grid.y);
}
void record_finalize(ComputePass& p, const NormTwoLevel& t) {
  p.set_pipeline(t.pf);
  p.set_bind_group(0, t.gf);
  p.dispatch_workgroups(1);
}

// Norm and clip scale of the two-level pair against a double reference (NaN/Inf skipped), and
// two runs bit for bit (the point of the mode). Returns "ok ..." or throws.
std::string check_two_level(Ctx& c, const ComputePipeline& pr, const ComputePipeline& pf,
                            uint64_t n, uint32_t wgs) {
  Device& d = c.device();
  std::vector<float> g(n);
  for (uint64_t i = 0; i < n; ++i) g[i] = rand_sym(203, i);
  g[n / 2] = std::numeric_limits<float>::quiet_NaN();
  g[n / 3] = std::numeric_limits<float>::infinity();
  g[n - 1] = -std::numeric_limits<float>::infinity();
  double want = 0;
  for (float x : g)
    if (is_finite_bits(x)) want += double(x) * x;
  want = std::sqrt(want);
  Buffer data = utils::make_buffer(d, "g", 4 * n, utils::kStorageUsage);
  write<float>(d, data, g);
  const float max_norm = 1.0f;
  NormTwoLevel t = make_two_level(c, pr, pf, data, n, wgs, max_norm);
  uint32_t bits[2] = {0, 0};
  float got[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    std::vector<float> poison(wgs, std::numeric_limits<float>::quiet_NaN());
    write<float>(d, t.partials, poison);  // every slot must be written by the reduce
    run_once(d, [&](ComputePass& p) { record_reduce(p, t); record_finalize(p, t); });
    auto s = read<float>(d, t.stats, 0, 2);
    bits[run] = std::bit_cast<uint32_t>(s[0]);
    got[0] = s[0], got[1] = s[1];
  }
  // f32 sums over ~1M terms: 1e-5 relative, as the seed CAS check
  if (!(std::fabs(double(got[0]) - want) <= 1e-5 * want))
    throw std::runtime_error("bench: two-level norm (" + std::to_string(wgs) + " wg) check failed: norm " +
                             std::to_string(got[0]) + ", want " + std::to_string(want));
  float clip = std::min(1.0f, max_norm / std::max(got[0], 1e-6f));
  if (ulp_distance(got[1], clip) > 1)
    throw std::runtime_error("bench: two-level norm check failed: clip " + std::to_string(got[1]) +
                             ", want " + std::to_string(clip));
  if (bits[0] != bits[1])
    throw std::runtime_error("bench: two-level norm (" + std::to_string(wgs) + " wg) differs between two runs");
  return "ok, repeatable";
}

// Rows: for each size and partial count, the pair as one timed unit (one pass, two dispatches),
// and each kernel alone. Bytes: 4 B/elem for the pair and the reduce (g read once; the partials
// are noise), 4 B/partial for the finalize alone (its own read).
void run_norm_two_level(Ctx& c, uint64_t check_n) {
  if (!c.selected("optimizer", "norm_two_level") && !c.options().only.count("grad_norm") &&
      !c.options().only.count("reduce_norm_sq_partials"))
    return;
  Device& d = c.device();
  const KernelInfo* kr = find_kernel("optimizer/reduce_norm_sq_partials");
  const KernelInfo* kf = find_kernel("optimizer/finalize_grad_stats_partials");
  if (!kr || !kf) { c.note("two-level norm kernels not in this build: skipped"); return; }
  ComputePipeline pr = c.pipeline(*kr), pf = c.pipeline(*kf);
  const std::vector<uint32_t> fixed = {512, 1024, 2048, 4096, 8192};
  std::map<uint32_t, std::string> checks;
  auto check_for = [&](uint32_t wgs) -> const std::string& {
    auto it = checks.find(wgs);
    if (it == checks.end()) it = checks.emplace(wgs, check_two_level(c, pr, pf, check_n, wgs)).first;
    return it->second;
  };
  for (uint64_t n : optimizer_sizes(c)) {
    if (!fits(c, 4 * n)) { c.note("norm_two_level n=" + std::to_string(n) + " over the binding limit"); continue; }
    Buffer data = utils::make_buffer(d, "g", 4 * n, utils::kStorageUsage);
    fill_pattern(d, data, 4 * n, 202);
    std::vector<std::pair<std::string, uint32_t>> choices;
    if (uint32_t w = deterministic_default_workgroups(n)) choices.push_back({"", w});
    for (uint32_t w : fixed)
      if (w <= div_ceil(n, 256)) choices.push_back({"[" + std::to_string(w) + " wg]", w});
    for (auto& [suffix, wgs] : choices) {
      NormTwoLevel t = make_two_level(c, pr, pf, data, n, wgs, 1.0f);
      const std::string chk = check_for(wgs);
      auto add = [&](const std::string& kernel, uint64_t bytes, const std::string& rule,
                     const Recorder& rec, bool plot) {
        Row r;
        r.kernel = kernel + suffix;
        r.label = "n=" + human_count(n) + " wg=" + std::to_string(wgs);
        r.dims = {{"n", n}, {"workgroups", wgs}, {"partials", wgs},
                  {"size_derived", suffix.empty()}};
        r.bytes = bytes;
        r.bytes_rule = rule;
        std::tie(r.t, r.copy) = c.time_pair(rec, r.bytes);
        r.check = chk;
        r.plot = plot && suffix.empty();
                c.add_row(r);
      };
      add("optimizer/norm_two_level", bytes_reduce(n),
          "4 B/elem: read g once (reduce_norm_sq_partials + finalize_grad_stats_partials, one pass)",
          [&](ComputePass& p) { record_reduce(p, t); record_finalize(p, t); }, true);
      add("optimizer/reduce_norm_sq_partials", bytes_reduce(n), "4 B/elem: read g once",
          [&](ComputePass& p) { record_reduce(p, t); }, false);
      add("optimizer/finalize_grad_stats_partials", 4 * uint64_t(wgs), "4 B/partial: read the partials once",
          [&](ComputePass& p) { record_finalize(p, t); }, false);
    }
  }
}

std::vector<uint64_t> optimizer_sizes(const Ctx& c) {
  std::vector<uint64_t> s;
  if (c.options().quick) s = {uint64_t(1) << 16, uint64_t(1) << 18};
  else s = {uint64_t(1) << 20, uint64_t(1) << 22, uint64_t(1) << 24, uint64_t(1) << 25,
            uint64_t(1) << 26, uint64_t(1) << 27};
  if (c.options().max_elems) std::erase_if(s, [&](uint64_t n) { return n > c.options().max_elems; });
  return s;
}

void run_optimizer_kernels(Ctx& c) {
  Device& d = c.device();
  const AdamHp h;
  const uint64_t check_n = c.options().quick ? 70000 : 1000003;  // not a multiple of 256
  // reduce_norm_sq launch: grid-stride over a bounded grid (the kernel's own comment); the
  // seed's ceil(n/256) launch is timed beside it to show what the bound buys.
  const uint32_t reduce_cap = 1024;
  c.out()["reduce_workgroups_cap"] = reduce_cap;

  struct Upd {
    const char* name;
    OptKind kind;
    uint64_t (*bytes)(uint64_t);
    const char* rule;
  };
  const Upd upds[] = {
      {"optimizer/adamw_update", OptKind::fp32, bytes_adamw,
       "32 B/elem: read w,g,m,v + write w,m,v,g (4 B each)"},
      {"optimizer/adamw_update_f16", OptKind::f16, bytes_adamw_f16,
       "34 B/elem: adamw_update + 2 B f16 mirror write"},
      {"optimizer/adamw_8bit_update", OptKind::q8, bytes_adamw_8bit,
       "20 B/elem + 16 B/256: read+write w,g (4 B) and m,v codes (1 B); scales 4 B r+w per block"},
  };

  if (c.selected("optimizer", "reduce_norm_sq") || c.options().only.count("grad_norm")) {
    const KernelInfo* k = find_kernel("optimizer/reduce_norm_sq");
    if (!k) c.note("optimizer/reduce_norm_sq not in this build: skipped");
    else {
      ComputePipeline pipe = c.pipeline(*k);
      std::string chk = check_reduce(c, pipe, check_n, reduce_workgroups(check_n, reduce_cap));
      for (uint64_t n : optimizer_sizes(c)) {
        if (!fits(c, 4 * n)) { c.note("reduce_norm_sq n=" + std::to_string(n) + " over the binding limit"); continue; }
        Buffer data = utils::make_buffer(d, "g", 4 * n, utils::kStorageUsage), res = utils::make_buffer(d, "acc", 4, utils::kStorageUsage);
        fill_pattern(d, data, 4 * n, 202);
        zero_fill(d, res);
        uint32_t nn[4] = {uint32_t(n), 0, 0, 0};
        Buffer nu = utils::make_uniform(d, "n", nn, 16);
        BindGroup grp = make_group(d, pipe, {{0, {data}}, {1, {res}}, {2, {nu}}}, "reduce");
        // 0: min(ceil(n/256), 1024) workgroups (the optimizer API's launch before the
        // size-derived rule); 1: the seed's ceil(n/256); 2, 3: smaller bounded grids (fewer CAS
        // adds into the one accumulator); 4: the API's size-derived default
        // (optimizer::default_norm_workgroups, Atomic: ~sqrt(n/256))
        for (int variant : {0, 1, 2, 3, 4}) {
          uint32_t wgs = variant == 0 ? reduce_workgroups(n, reduce_cap)
                       : variant == 1 ? uint32_t(div_ceil(n, 256))
                       : variant == 4 ? atomic_default_workgroups(n)
                       : reduce_workgroups(n, variant == 2 ? 256 : 64);
          if (variant == 1 && c.options().quick == false && n > (uint64_t(1) << 24)) continue;  // seconds
          if (variant == 4 && wgs == 0) continue;  // no optimizer API in this build
          Grid gr = grid_for_workgroups(wgs, d.limits());
          Row r;
          r.kernel = variant == 0 ? "optimizer/reduce_norm_sq"
                   : variant == 1 ? "optimizer/reduce_norm_sq[seed grid]"
                   : variant == 4 ? "optimizer/reduce_norm_sq[size-derived]"
                   : variant == 2 ? "optimizer/reduce_norm_sq[256 wg]" : "optimizer/reduce_norm_sq[64 wg]";
          r.label = "n=" + human_count(n) + " wg=" + std::to_string(wgs);
          r.dims = {{"n", n}, {"workgroups", wgs}};
          r.bytes = bytes_reduce(n);
          r.bytes_rule = "4 B/elem: read g once";
          std::tie(r.t, r.copy) = c.time_pair([&](ComputePass& p) {
            p.set_pipeline(pipe);
            p.set_bind_group(0, grp);
            p.dispatch_workgroups(gr.x, gr.y);
          }, r.bytes);
          r.check = chk;
                    c.add_row(r);
        }
      }
    }
  }

  run_norm_two_level(c, check_n);

  for (const Upd& u : upds) {
    if (!c.selected("optimizer", u.name) &&
        !c.selected("optimizer", std::string(u.name).substr(10)))
      continue;
    const KernelInfo* k = find_kernel(u.name);
    if (!k) { c.note(std::string(u.name) + " not in this build: skipped"); continue; }
    if (k->needs_shader_f16 && !d.has_feature(Feature::ShaderF16)) {
      c.note(std::string(u.name) + ": device has no shader-f16: skipped");
      continue;
    }
    ComputePipeline pipe = c.pipeline(*k);
    std::string chk = check_adamw(c, pipe, u.kind, check_n, h);
    for (uint64_t n : optimizer_sizes(c)) {
      if (!fits(c, 4 * n)) { c.note(std::string(u.name) + " n=" + std::to_string(n) + " over the binding limit"); continue; }
      OptBuffers b = make_opt_buffers(c, n, u.kind, h);
      fill_pattern(d, b.w, 4 * n, 301);
      fill_pattern(d, b.g, 4 * n, 302, 0.1f);
      if (u.kind == OptKind::q8) {
        zero_fill(d, b.mq), zero_fill(d, b.vq), zero_fill(d, b.ms), zero_fill(d, b.vs);
      } else {
        fill_pattern(d, b.m, 4 * n, 303, 0.01f);
        fill_pattern(d, b.v, 4 * n, 304, 1e-3f, true);
      }
      BindGroup grp = make_group(d, pipe, opt_bindings(b, u.kind), "update");
      Row r;
      r.kernel = u.name;
      r.label = "n=" + human_count(n);
      r.dims = {{"n", n}};
      r.bytes = u.bytes(n);
      r.bytes_rule = u.rule;
      std::tie(r.t, r.copy) = c.time_pair([&](ComputePass& p) {
        p.set_pipeline(pipe);
        p.set_bind_group(0, grp);
        dispatch_1d(p, d, n);
      }, r.bytes);
      r.check = chk;
            c.add_row(r);
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
