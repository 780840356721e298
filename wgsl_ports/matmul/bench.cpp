// Benchmarks of the matmul family (04_matmul.wgsl from TinyGPT's engineering log, matmul_native.wgsl):
// the seed's square sweep 256^3 .. 4096^3 and a GPT layer's products at d_model 768, B*T 4096,
// vocab 16384 (QKV, attention projection, MLP up and down, logits), each forward (y = x W),
// dX = dY W^T (TRANS_B) and dW = X^T dY (TRANS_A); and the bias-gradient column sum.
// Every row is a case (inputs from `generate` buffers, C poisoned) checked like a golden on the
// first rows of C (a cheap reference: 2 rows x N x K), then timed. Flops 2 M N K; bytes the
// minimum traffic: A and B read once, C written once.
#include <cstdlib>
#include <string>
#include <vector>

#include "matmul/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernels/matmul/matmul_bias_grad.hpp"
#include "wgslvk/kernels/matmul/matmul_native_splitk.hpp"
#include "wgslvk/kernels/matmul/matmul_splitk_reduce.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::matmul {
namespace {

using namespace wgslvk::bench;
using validate::Array;
using validate::CaseBuilder;
using validate::DType;
using validate::Generate;

constexpr uint32_t kCheckedRows = 2;

std::vector<float> generated(const Generate& g, uint64_t n) {
  std::vector<float> v(n);
  for (uint64_t i = 0; i < n; ++i)
    v[i] =
        float(g.lo + (g.hi - g.lo) * (double(validate::splitmix64_at(g.seed, i) >> 40) * 0x1p-24));
  return v;
}

// One dispatch of `k` (or of the native-only variant `variant`, with `wgs` workgroups) on dims
// `d`, checked on C's first kCheckedRows rows.
validate::Case make_case(Kernel k, const Dims& d, const std::string& label,
                         const std::string& variant = {}, uint64_t wgs = 0) {
  CaseBuilder cb;
  cb.c.kernel = variant.empty() ? qualified_name(k) : variant;
  cb.c.name = label;
  Generate ga{"uniform", 11, -1.0, 1.0, {}}, gb{"uniform", 12, -1.0, 1.0, {}};
  auto a = generated(ga, d.a_count()), b = generated(gb, d.b_count());
  cb.generated("a", DType::F32, a.size(), ga);
  if (k == Kernel::TiledF16) {
    auto w = pack_b_f16(b, d);
    cb.input("b", DType::U32, w);
    b = unpack_b_f16(w, d);
  } else {
    cb.generated("b", DType::F32, b.size(), gb);
  }
  std::vector<float> bias(d.bias() ? d.N : 1, 0.25f);
  cb.input("bias", DType::F32, bias);
  cb.output("c", DType::F32, d.c_count());
  // By binding number: any variant of the family (or a sweep's run-time one) shares
  // 04_matmul.wgsl's ABI a, b, c, bias, dims at 0-4 under names of its own.
  auto& s = cb.dispatch(cb.c.kernel, label);
  CaseBuilder::bind(s, 0, "a");
  CaseBuilder::bind(s, 1, "b");
  CaseBuilder::bind(s, 2, "c");
  CaseBuilder::bind(s, 3, "bias");
  CaseBuilder::bind_values(s, 4, CaseBuilder::u32s({d.M, d.N, d.K, d.flags}));
  s.workgroups_1d = variant.empty() ? workgroups(k, d) : wgs;
  uint32_t rows = d.M < kCheckedRows ? d.M : kCheckedRows;
  auto e = ref::matmul(a, b, bias, {}, d, 0, rows);
  std::vector<float> mag(e.magnitude.begin(), e.magnitude.end());
  auto& chk = cb.check_ulp("c", Array::of(DType::F32, e.value), e.bound,
                           "first rows of C: bound_ulps(n) ULPs of S (matmul/reference.hpp)");
  CaseBuilder::magnitude(chk, mag);
  return cb.c;
}

// Split-K (matmul_native_splitk then matmul_splitk_reduce; `splits` partial products of
// M x N in a scratch buffer that no check reads), checked like make_case on C's first rows.
validate::Case make_splitk_case(const Dims& d, const std::string& label, uint32_t splits) {
  CaseBuilder cb;
  cb.c.kernel = "matmul/matmul_native_splitk";
  cb.c.name = label + " S" + std::to_string(splits);
  Generate ga{"uniform", 11, -1.0, 1.0, {}}, gb{"uniform", 12, -1.0, 1.0, {}};
  auto a = generated(ga, d.a_count()), b = generated(gb, d.b_count());
  cb.generated("a", DType::F32, a.size(), ga);
  cb.generated("b", DType::F32, b.size(), gb);
  std::vector<float> bias(d.bias() ? d.N : 1, 0.25f);
  cb.input("bias", DType::F32, bias);
  cb.output("part", DType::F32, splitk_partial_floats(d, splits));
  cb.output("c", DType::F32, d.c_count());
  namespace sk = wgslvk::kernels::matmul::matmul_native_splitk;
  namespace rk = wgslvk::kernels::matmul::matmul_splitk_reduce;
  auto& s1 = cb.dispatch(sk::Kernel{}, label);
  CaseBuilder::bind(s1, sk::binding::na, "a");
  CaseBuilder::bind(s1, sk::binding::nb, "b");
  CaseBuilder::bind(s1, sk::binding::nc, "part");
  CaseBuilder::bind_uniform(s1, sk::binding::ndims, {d.M, d.N, d.K, splitk_flags(d, splits)});
  s1.workgroups_1d = splitk_workgroups(d, splits);
  auto& s2 = cb.dispatch(rk::Kernel{}, label);
  CaseBuilder::bind(s2, rk::binding::rk_part, "part");
  CaseBuilder::bind(s2, rk::binding::rk_c, "c");
  CaseBuilder::bind(s2, rk::binding::rk_bias, "bias");
  CaseBuilder::bind_uniform(s2, rk::binding::rk_dims,
                            {d.M, d.N, splits, d.flags & (kAddBias | kAccumulate)});
  s2.workgroups_1d = splitk_reduce_workgroups(d);
  uint32_t rows = d.M < kCheckedRows ? d.M : kCheckedRows;
  auto e = ref::matmul(a, b, bias, {}, d, 0, rows);
  std::vector<float> mag(e.magnitude.begin(), e.magnitude.end());
  auto& chk = cb.check_ulp("c", Array::of(DType::F32, e.value), e.bound,
                           "first rows of C: bound_ulps(n) ULPs of S (matmul/reference.hpp)");
  CaseBuilder::magnitude(chk, mag);
  return cb.c;
}

struct Shape {
  std::string label;
  Dims d;
};

// WGSLVK_MATMUL_SHAPES=<a>,<b>,...: keep only the shapes whose label contains one of the
// comma-separated substrings (e.g. "2048x2048x2048,4096x4096,fwd"), to time a few shapes on a
// scarce device; unset or empty: every shape.
bool shape_wanted(const std::string& label) {
  const char* env = std::getenv("WGSLVK_MATMUL_SHAPES");
  if (!env || !*env) return true;
  std::string list = env;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(pos, end - pos);
    if (!item.empty() && label.find(item) != std::string::npos) return true;
    pos = end + 1;
  }
  return false;
}

std::vector<Shape> shapes(const Ctx& c) {
  std::vector<Shape> s;
  std::vector<uint32_t> sq = c.quick() ? std::vector<uint32_t>{256, 512}
                                       : std::vector<uint32_t>{256, 512, 1024, 2048, 4096};
  for (uint32_t n : sq) {
    std::string e = std::to_string(n);
    s.push_back({e + "x" + e + "x" + e, {n, n, n, 0}});
  }
  // GPT: B*T rows, d_model 768, vocab 16384. (rows, d_in, d_out) per weight. Then the trainer's
  // gpt110m preset (batch 8 x context 256 = 2048 rows, d_model 768, byte vocab 256), labelled
  // "gpt110m ...": its products are the ones a training step runs.
  struct Set {
    const char* prefix;
    uint32_t rows, vocab;
  };
  std::vector<Set> sets = {{"", c.quick() ? 256u : 4096u, c.quick() ? 1024u : 16384u}};
  if (!c.quick()) sets.push_back({"gpt110m ", 2048, 256});
  const uint32_t d = 768;
  for (const Set& set : sets) {
    struct Layer {
      const char* name;
      uint32_t d_in, d_out;
    };
    const Layer layers[] = {{"qkv", d, 3 * d},
                            {"attn_proj", d, d},
                            {"mlp_up", d, 4 * d},
                            {"mlp_down", 4 * d, d},
                            {"logits", d, set.vocab}};
    const uint32_t rows = set.rows;
    for (const auto& l : layers) {
      auto dims = [](const Dims& x) {
        return std::to_string(x.M) + "x" + std::to_string(x.N) + "x" + std::to_string(x.K);
      };
      Dims f = Dims::forward(rows, l.d_in, l.d_out), gi = Dims::grad_input(rows, l.d_in, l.d_out),
           gw = Dims::grad_weight(rows, l.d_in, l.d_out);
      const std::string n = std::string(set.prefix) + l.name;
      s.push_back({n + " fwd " + dims(f), f});
      s.push_back({n + " dX " + dims(gi), gi});
      s.push_back({n + " dW " + dims(gw), gw});
    }
  }
  return s;
}

uint64_t min_bytes(Kernel k, const Dims& d) {
  uint64_t b_bytes = k == Kernel::TiledF16 ? 4 * f16_words(d) : 4 * d.b_count();
  return 4 * d.a_count() + b_bytes + 4 * d.c_count();
}

void bench_matmul(Ctx& c) {
  const Kernel kernels[] = {Kernel::Naive,    Kernel::Tiled,    Kernel::Blocked4, Kernel::Vec4,
                            Kernel::Blocked8, Kernel::TiledF16, Kernel::Native};
  for (const auto& s : shapes(c)) {
    if (!shape_wanted(s.label)) continue;
    const bool square = s.d.M == s.d.N && s.d.N == s.d.K && s.d.flags == 0;
    for (Kernel k : kernels) {
      if (!c.selected("matmul", kernel_name(k)) || !supports(k, s.d)) continue;
      // The naive kernel only for the seed's table (squares up to 2048^3): elsewhere it costs
      // seconds per repeat and adds nothing.
      if (k == Kernel::Naive && (!square || s.d.M > 2048)) continue;
      Row row;
      row.kernel = std::string(kernel_name(k));
      row.label = s.label;
      row.dims = {{"M", s.d.M}, {"N", s.d.N}, {"K", s.d.K}, {"flags", s.d.flags}};
      row.bytes = min_bytes(k, s.d);
      row.bytes_rule = k == Kernel::TiledF16
                           ? "A (4 B) and packed B (2 B per element, rows padded to words) read "
                             "once, C (4 B) written once"
                           : "A and B read once, C written once, 4 B per element";
      row.flops = 2.0 * s.d.M * s.d.N * s.d.K;
      time_case(c, make_case(k, s.d, s.label), std::move(row));
    }
    // matmul_native_n64: the native kernel with 128 x 64 tiles (native-only variant, ABI of
    // matmul_native; twice the workgroups, for the 768-column GPT products), same rules.
    if (c.selected("matmul", "matmul_native_n64") && supports(Kernel::Native, s.d)) {
      Row row;
      row.kernel = "matmul_native_n64";
      row.label = s.label;
      row.dims = {{"M", s.d.M}, {"N", s.d.N}, {"K", s.d.K}, {"flags", s.d.flags}};
      row.bytes = min_bytes(Kernel::Native, s.d);
      row.bytes_rule = "A and B read once, C written once, 4 B per element";
      row.flops = 2.0 * s.d.M * s.d.N * s.d.K;
      const uint64_t wgs = uint64_t((s.d.M + 127) / 128) * ((s.d.N + 63) / 64);
      time_case(c, make_case(Kernel::Native, s.d, s.label, "matmul/matmul_native_n64", wgs),
                std::move(row));
    }
    // matmul_native_k16 (ours, in the WGSL): 128 x 64 tiles, K stages of 16, 128 invocations;
    // timed when selected (`--only matmul_native_k16`), same rules.
    if (c.selected("matmul", "matmul_native_k16") && supports(Kernel::Native, s.d)) {
      Row row;
      row.kernel = "matmul_native_k16";
      row.label = s.label;
      row.dims = {{"M", s.d.M}, {"N", s.d.N}, {"K", s.d.K}, {"flags", s.d.flags}};
      row.bytes = min_bytes(Kernel::Native, s.d);
      row.bytes_rule = "A and B read once, C written once, 4 B per element";
      row.flops = 2.0 * s.d.M * s.d.N * s.d.K;
      time_case(c,
                make_case(Kernel::Native, s.d, s.label, "matmul/matmul_native_k16",
                          native_k16_workgroups(s.d)),
                std::move(row));
    }
    // Split-K rows (`--only matmul_native_splitk`) where the 128 x 128 grid is under two waves of
    // a 132-SM GPU, at slice counts keeping >= 128 of K per slice; kernel "matmul_native_splitk_sS".
    // Also marks which variant native_plan() picks (the trainer's default), in the row's note.
    if (c.selected("matmul", "matmul_native_splitk") && supports(Kernel::Native, s.d) &&
        workgroups(Kernel::Native, s.d) < 264) {
      for (uint32_t sp : {2u, 3u, 4u, 6u, 8u, 12u, 16u}) {
        if (!splitk_supported(s.d, sp) || splitk_chunk(s.d.K, sp) < 128) continue;
        if (workgroups(Kernel::Native, s.d) * sp > 1056) continue;
        Row row;
        row.kernel = "matmul_native_splitk_s" + std::to_string(sp);
        row.label = s.label;
        row.dims = {{"M", s.d.M}, {"N", s.d.N}, {"K", s.d.K}, {"flags", s.d.flags}};
        row.bytes = min_bytes(Kernel::Native, s.d);
        row.bytes_rule =
            "A and B read once, C written once, 4 B per element (partials not counted)";
        row.flops = 2.0 * s.d.M * s.d.N * s.d.K;
        time_case(c, make_splitk_case(s.d, s.label, sp), std::move(row));
      }
    }
  }
  // The bias gradient of each GPT layer: db = column sums of dY [B*T, d_out], at
  // bias_grad_lanes()'s L (kernel "matmul_bias_grad", 4096 rows; the first form's 4 lanes before
  // 2026-11-27) and, for gpt110m's B*T = 2048, every L (kernel "matmul_bias_grad_lL").
  if (c.selected("matmul", "matmul_bias_grad")) {
    struct Shape {
      uint32_t rows, n, lanes;
      bool sweep;
    };
    std::vector<Shape> shapes;
    const uint32_t rows = c.quick() ? 256 : 4096;
    for (uint32_t n : {768u, 2304u, 3072u, c.quick() ? 1024u : 16384u})
      shapes.push_back({rows, n, bias_grad_lanes(rows, n), false});
    if (!c.quick())
      for (uint32_t n : {768u, 2304u, 3072u})
        for (uint32_t l : {4u, 8u, 16u, 32u, 64u}) shapes.push_back({2048, n, l, true});
    for (const Shape& sh : shapes) {
      CaseBuilder cb;
      std::string label = std::to_string(sh.rows) + "x" + std::to_string(sh.n);
      cb.c.kernel = "matmul/matmul_bias_grad";
      cb.c.name = sh.sweep ? label + "_l" + std::to_string(sh.lanes) : label;
      Generate g{"uniform", 13, -1.0, 1.0, {}};
      auto dy = generated(g, uint64_t(sh.rows) * sh.n);
      cb.generated("dy", DType::F32, dy.size(), g);
      cb.output("db", DType::F32, sh.n);
      namespace bg = wgslvk::kernels::matmul::matmul_bias_grad;
      auto& s = cb.dispatch(bg::Kernel{}, label);
      CaseBuilder::bind(s, bg::binding::dy, "dy");
      CaseBuilder::bind(s, bg::binding::db, "db");
      CaseBuilder::bind_uniform(s, bg::binding::bg_dims, {sh.rows, sh.n, 0, sh.lanes});
      s.workgroups_1d = bias_grad_workgroups(sh.n, sh.lanes);
      cb.check_exact("db",
                     Array::of(DType::F32,
                               ref::bias_grad_kernel_order(dy, {}, sh.rows, sh.n, false, sh.lanes)),
                     "fixed order: bit exact against bias_grad_kernel_order");
      Row row;
      row.kernel = sh.sweep ? "matmul_bias_grad_l" + std::to_string(sh.lanes) : "matmul_bias_grad";
      row.label = label;
      row.dims = {{"M", sh.rows}, {"N", sh.n}, {"lanes", sh.lanes}};
      row.bytes = 4ull * sh.rows * sh.n + 4ull * sh.n;
      row.bytes_rule = "dY read once, db written once";
      time_case(c, cb.c, std::move(row));
    }
  }
}

}  // namespace
}  // namespace wgslvk::matmul

WGSLVK_REGISTER_BENCH("matmul", wgslvk::matmul::bench_matmul);
