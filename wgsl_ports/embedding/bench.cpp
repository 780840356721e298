// Benchmarks of 01_embedding.wgsl and embedding_native.wgsl: lookups and backward variants over
// GPT-sized shapes against the copy roofline. Binding numbers are the seed's ABI tables.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "embedding/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/bench/sweep_helpers.hpp"
#include "wgslvk/numeric.hpp"

namespace wgslvk::embedding {
namespace {

using namespace wgslvk::bench;

// embed_lookup: one 4 B read of a table element and one 4 B write per output element, plus the
// 4 B token per position.
inline uint64_t bytes_lookup(uint64_t seq, uint64_t d) { return 8 * seq * d + 4 * seq; }
// embed_lookup_w16: 2 B f16 read + 4 B write per output element + 4 B per token.
inline uint64_t bytes_lookup_w16(uint64_t seq, uint64_t d) { return 6 * seq * d + 4 * seq; }
// embed_backward: reads grad_out (4 B per element) and tokens (4 B per position); each table row
// that some position hits is read and written once (8 B per element of a distinct row).
inline uint64_t bytes_backward(uint64_t seq, uint64_t d, uint64_t distinct_rows) {
  return 4 * seq * d + 4 * seq + 8 * distinct_rows * d;
}

// ---- embedding kernels -----------------------------------------------------------------------

struct Shape {
  uint32_t seq, d, vocab;
};

std::vector<Shape> embedding_shapes(const Ctx& c) {
  if (c.options().quick) return {{128, 384, 16384}, {512, 768, 16384}};
  return {{512, 384, 16384},   {1024, 768, 16384},  {2048, 768, 32768},  {4096, 768, 16384},
          {4096, 1024, 65536}, {2048, 2048, 65536}, {4096, 4096, 131072}};
}

std::vector<uint32_t> make_tokens(uint32_t seq, uint32_t vocab, uint32_t seed, bool with_oov) {
  std::vector<uint32_t> t(seq);
  for (uint32_t s = 0; s < seq; ++s) t[s] = hash32(s * 0x9e3779b9u + seed) % vocab;
  if (with_oov && seq >= 8) {
    t[1] = vocab;
    t[seq / 2] = vocab + 7;
    t[seq - 1] = 0xffffffffu;
    t[3] = t[2];  // a repeated token: two adds into one row
  }
  return t;
}

// Checks lookup, lookup_w16 and the backward variants once, on a small shape with OOV ids and a
// repeated token; returns "ok" or throws.
std::string check_embedding(Ctx& c, const std::string& kname, const ComputePipeline& pipe) {
  Device& d = c.device();
  const uint32_t seq = 96, dm = 384, vocab = 1000;
  auto tok = make_tokens(seq, vocab, 5, true);
  uint32_t dims[4] = {seq, dm, vocab, 0};
  Buffer tb = utils::make_buffer(d, "tokens", 4 * seq, utils::kStorageUsage);
  write<uint32_t>(d, tb, tok);
  std::vector<float> table(size_t(vocab) * dm), gout(size_t(seq) * dm);
  for (size_t i = 0; i < table.size(); ++i) table[i] = rand_sym(401, i);
  for (size_t i = 0; i < gout.size(); ++i) gout[i] = rand_sym(402, i);
  gout[5] = 0.0f;
  gout[7] = std::numeric_limits<float>::quiet_NaN();
  DumpCase dc{c.options().dump_dir + "/" + kname, {}};
  dc.meta = {{"kernel", kname}, {"wgsl", "wgsl_ports/embedding/01_embedding.wgsl"},
             {"threads", uint64_t(seq) * dm}, {"wg", 256}, {"bindings", json::array()}};
  bool dump = !c.options().dump_dir.empty();
  if (kname == "embed_lookup" || kname == "embed_lookup_w16") {
    bool w16 = kname == "embed_lookup_w16";
    Buffer tab = utils::make_buffer(d, "table", (w16 ? 2 : 4) * table.size(), utils::kStorageUsage);
    std::vector<uint16_t> t16(table.size());
    for (size_t i = 0; i < table.size(); ++i) t16[i] = f32_to_f16_bits(table[i]);
    if (w16) write<uint16_t>(d, tab, t16);
    else write<float>(d, tab, table);
    Buffer out = utils::make_buffer(d, "out", 4 * gout.size(), utils::kStorageUsage);
    fill_pattern(d, out, 4 * gout.size(), 9, 1e9f);  // poison
    Buffer du = utils::make_uniform(d, "dims", dims, 16);
    BindGroup grp = make_group(d, pipe, {{0, {tb}}, {1, {tab}}, {2, {out}}, {3, {du}}}, "check");
    run_once(d, [&](ComputePass& p) {
      p.set_pipeline(pipe);
      p.set_bind_group(0, grp);
      dispatch_1d(p, d, uint64_t(seq) * dm);
    });
    auto got = read<float>(d, out);
    for (uint32_t s = 0; s < seq; ++s)
      for (uint32_t j = 0; j < dm; ++j) {
        size_t t = tok[s];
        float want = t >= vocab ? 0.0f : (w16 ? f16_bits_to_f32(t16[t * dm + j]) : table[t * dm + j]);
        if (std::bit_cast<uint32_t>(got[size_t(s) * dm + j]) != std::bit_cast<uint32_t>(want))
          throw std::runtime_error("bench: " + kname + " check failed at s=" + std::to_string(s) +
                                   " d=" + std::to_string(j));
      }
    if (dump) {
      std::vector<float> poison(gout.size(), 1e9f);
      dc.binding(0, "read-only-storage", tok.data(), 4 * seq);
      if (w16) dc.binding(1, "read-only-storage", t16.data(), 2 * t16.size());
      else dc.binding(1, "read-only-storage", table.data(), 4 * table.size());
      dc.binding(2, "storage", poison.data(), 4 * poison.size(), "exact");
      dc.binding(3, "uniform", dims, 16);
      dc.output(2, got.data(), 4 * got.size());
      dc.finish();
    }
    return "ok";
  }
  // backward variants: accumulate into a non-zero table
  std::vector<float> init(table.size());
  for (size_t i = 0; i < init.size(); ++i) init[i] = rand_sym(403, i) * 0.5f;
  Buffer go = utils::make_buffer(d, "grad_out", 4 * gout.size(), utils::kStorageUsage);
  write<float>(d, go, gout);
  Buffer gt = utils::make_buffer(d, "grad_table", 4 * init.size(), utils::kStorageUsage);
  write<float>(d, gt, init);
  Bindings bb = {{0, {tb}}, {1, {go}}, {2, {gt}}};
  uint64_t threads = uint64_t(seq) * dm;
  std::vector<uint32_t> order, seg;
  if (kname == "embed_backward_deterministic") {
    auto sg = embedding::ref::deterministic_segments(tok, vocab);
    order = std::move(sg.order);
    seg = std::move(sg.seg_start);
    dims[3] = uint32_t(seg.size() - 1);
    Buffer ob = utils::make_buffer(d, "order", 4 * order.size(), utils::kStorageUsage), sb = utils::make_buffer(d, "seg", 4 * seg.size(), utils::kStorageUsage);
    write<uint32_t>(d, ob, order);
    write<uint32_t>(d, sb, seg);
    bb[4] = {ob};
    bb[5] = {sb};
    threads = uint64_t(dims[3]) * dm;
  }
  Buffer du = utils::make_uniform(d, "dims", dims, 16);
  bb[3] = {du};
  BindGroup grp = make_group(d, pipe, bb, "check");
  run_once(d, [&](ComputePass& p) {
    p.set_pipeline(pipe);
    p.set_bind_group(0, grp);
    dispatch_1d(p, d, threads);
  });
  auto got = read<float>(d, gt);
  std::vector<double> sum(init.begin(), init.end()), mag(init.size());
  for (size_t i = 0; i < init.size(); ++i) mag[i] = std::fabs(init[i]);
  std::vector<uint32_t> terms(init.size(), 1);
  for (uint32_t s = 0; s < seq; ++s) {
    if (tok[s] >= vocab) continue;
    for (uint32_t j = 0; j < dm; ++j) {
      float x = gout[size_t(s) * dm + j];
      if (x == 0.0f || !is_finite_bits(x)) continue;
      size_t idx = size_t(tok[s]) * dm + j;
      sum[idx] += x;
      mag[idx] += std::fabs(x);
      terms[idx]++;
    }
  }
  for (size_t i = 0; i < init.size(); ++i) {
    double tol = terms[i] <= 1 ? 0.0 : terms[i] * std::ldexp(mag[i], -23);
    if (!(std::fabs(got[i] - sum[i]) <= tol + 0.5 * std::ldexp(std::fabs(sum[i]), -23)))
      throw std::runtime_error("bench: " + kname + " check failed at element " + std::to_string(i) +
                               ": got " + std::to_string(got[i]) + ", want " + std::to_string(sum[i]));
  }
  if (dump && kname != "embed_backward_atomic_float") {
    dc.meta["threads"] = threads;
    if (kname == "embed_backward_deterministic") dc.meta["wgsl"] = "wgsl_ports/embedding/embedding_native.wgsl";
    dc.binding(0, "read-only-storage", tok.data(), 4 * seq);
    dc.binding(1, "read-only-storage", gout.data(), 4 * gout.size());
    // CAS order differs between runs and engines: each side is within the bound of the check
    // above, so the two differ by at most twice that bound, element by element
    std::vector<float> tol(init.size());
    for (size_t i = 0; i < init.size(); ++i)
      tol[i] = float(2.0 * ((terms[i] <= 1 ? 0.0 : terms[i] * std::ldexp(mag[i], -23)) +
                            0.5 * std::ldexp(std::fabs(sum[i]), -23)));
    if (kname == "embed_backward") dump_vec(dc.dir, "b2.tol.bin", tol);
    dc.binding(2, "storage", init.data(), 4 * init.size(), kname == "embed_backward" ? "tolfile:b2.tol.bin" : "exact");
    dc.binding(3, "uniform", dims, 16);
    if (!order.empty()) {
      dc.binding(4, "read-only-storage", order.data(), 4 * order.size());
      dc.binding(5, "read-only-storage", seg.data(), 4 * seg.size());
    }
    dc.output(2, got.data(), 4 * got.size());
    dc.finish();
  }
  return "ok";
}

void run_embedding_kernels(Ctx& c) {
  Device& d = c.device();
  const char* names[] = {"embed_lookup", "embed_lookup_w16", "embed_backward",
                         "embed_backward_atomic_float", "embed_backward_deterministic"};
  for (const char* kn : names) {
    std::string qn = std::string("embedding/") + kn;
    if (!c.selected("embedding", kn) && !c.selected("embedding", qn)) continue;
    const KernelInfo* k = find_kernel(qn);
    if (!k) { c.note(qn + " not in this build: skipped"); continue; }
    if (k->needs_shader_f16 && !d.has_feature(Feature::ShaderF16)) {
      c.note(qn + ": device has no shader-f16: skipped");
      continue;
    }
    if (k->needs_float_atomics && !d.has_feature(Feature::FloatAtomics)) {
      c.note(qn + ": device has no float32 atomic add: skipped");
      continue;
    }
    ComputePipeline pipe = c.pipeline(*k);
    std::string chk = check_embedding(c, kn, pipe);
    std::string skn = kn;
    bool lookup = skn.rfind("embed_lookup", 0) == 0, w16 = skn == "embed_lookup_w16";
    bool det = skn == "embed_backward_deterministic";
    for (const Shape& sh : embedding_shapes(c)) {
      uint64_t tab_elems = uint64_t(sh.vocab) * sh.d, act = uint64_t(sh.seq) * sh.d;
      uint64_t tab_bytes = (w16 ? 2 : 4) * tab_elems;
      if (!fits(c, tab_bytes) || !fits(c, 4 * act)) {
        c.note(qn + " " + std::to_string(sh.vocab) + "x" + std::to_string(sh.d) + " over the binding limit");
        continue;
      }
      auto tok = make_tokens(sh.seq, sh.vocab, 17, false);
      std::set<uint32_t> distinct(tok.begin(), tok.end());
      uint32_t dims[4] = {sh.seq, sh.d, sh.vocab, 0};
      Buffer tb = utils::make_buffer(d, "tokens", 4 * sh.seq, utils::kStorageUsage);
      write<uint32_t>(d, tb, tok);
      Buffer tab = utils::make_buffer(d, "table", tab_bytes, utils::kStorageUsage);
      if (!w16) fill_pattern(d, tab, tab_bytes, 501, 0.5f);
      if (w16) {  // f16 pattern: 0x3c00 | low bits (finite, non-zero)
        std::vector<uint16_t> chunk(size_t(8) << 20);
        for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = uint16_t(0x3400 | (hash32(uint32_t(i)) & 0x3ff));
        for (uint64_t off = 0; off < tab_bytes; off += chunk.size() * 2)
          d.write_buffer(tab, off, chunk.data(), std::min<uint64_t>(chunk.size() * 2, tab_bytes - off));
      }
      Buffer act_b = utils::make_buffer(d, lookup ? "out" : "grad_out", 4 * act, utils::kStorageUsage);
      if (!lookup) fill_pattern(d, act_b, 4 * act, 502);
      Bindings bb = {{0, {tb}}, {1, {lookup ? tab : act_b}}, {2, {lookup ? act_b : tab}}};
      uint64_t threads = act;
      Buffer ob, sb;
      if (det) {
        const auto sg = embedding::ref::deterministic_segments(tok, sh.vocab);  // no OOV ids here
        dims[3] = sg.count();
        ob = utils::make_buffer(d, "order", 4 * sg.order.size(), utils::kStorageUsage);
        sb = utils::make_buffer(d, "seg", 4 * sg.seg_start.size(), utils::kStorageUsage);
        write<uint32_t>(d, ob, sg.order);
        write<uint32_t>(d, sb, sg.seg_start);
        bb[4] = {ob};
        bb[5] = {sb};
        threads = uint64_t(dims[3]) * sh.d;
      }
      Buffer du = utils::make_uniform(d, "dims", dims, 16);
      bb[3] = {du};
      BindGroup grp = make_group(d, pipe, bb, kn);
      Row r;
      r.kernel = qn;
      char lab[64];
      std::snprintf(lab, sizeof lab, "s%u d%u V%s", sh.seq, sh.d, human_count(sh.vocab).c_str());
      r.label = lab;
      r.dims = {{"seq", sh.seq}, {"d_model", sh.d}, {"vocab", sh.vocab}, {"distinct_tokens", distinct.size()}};
      if (lookup) {
        r.bytes = w16 ? bytes_lookup_w16(sh.seq, sh.d) : bytes_lookup(sh.seq, sh.d);
        r.bytes_rule = w16 ? "2 B f16 table read + 4 B write per output element, 4 B per token"
                           : "4 B table read + 4 B write per output element, 4 B per token";
      } else {
        r.bytes = bytes_backward(sh.seq, sh.d, distinct.size());
        r.bytes_rule = "4 B grad_out read per element, 4 B per token, 8 B (read+write) per element of each distinct table row";
      }
      std::tie(r.t, r.copy) = c.time_pair([&](ComputePass& p) {
        p.set_pipeline(pipe);
        p.set_bind_group(0, grp);
        dispatch_1d(p, d, threads);
      }, r.bytes);
      r.check = chk;
            c.add_row(r);
    }
  }
}

}  // namespace

WGSLVK_REGISTER_BENCH("embedding", run_embedding_kernels);

}  // namespace wgslvk::embedding
