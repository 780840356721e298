// Benchmarks of 01_embedding.wgsl and embedding_native.wgsl: lookups (the ports and our row-wise
// ones) and backward variants over GPT-sized shapes against the copy roofline; each row is the
// family's own sweep case (cases.cpp, cases.hpp), checked and timed by wgslvk::bench::time_case.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "embedding/cases.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernels/embedding/embed_backward.hpp"
#include "wgslvk/kernels/embedding/embed_backward_atomic_float.hpp"
#include "wgslvk/kernels/embedding/embed_backward_deterministic.hpp"
#include "wgslvk/kernels/embedding/embed_backward_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16_rows.hpp"
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

// Output rows (lookup) or table rows (backward) checked against the reference at every shape.
constexpr uint32_t kCheckedRows = 64;

void run_embedding_kernels(Ctx& c) {
  Device& d = c.device();
  // The row-wise lookups and backward (ours) beside the ports and the other variants, at the same
  // shapes and byte counts (every sweep shape has d_model % 4 == 0). The backward's byte rule is
  // the same for every variant: it leaves out the deterministic variants' order and seg_start
  // (4 B per position and per segment, < 0.2% at d_model >= 384), so the rows compare the same
  // traffic, as the PyTorch rows (bench/peers) do.
  namespace ke = wgslvk::kernels::embedding;
  const std::string_view names[] = {ke::embed_lookup::name,
                                    ke::embed_lookup_rows::name,
                                    ke::embed_lookup_w16::name,
                                    ke::embed_lookup_w16_rows::name,
                                    ke::embed_backward::name,
                                    ke::embed_backward_atomic_float::name,
                                    ke::embed_backward_deterministic::name,
                                    ke::embed_backward_rows::name};
  for (const std::string_view name : names) {
    const std::string qn(name), kn = qn.substr(qn.find('/') + 1);
    if (!c.selected("embedding", kn) && !c.selected("embedding", qn)) continue;
    const KernelInfo& k = kernel(qn);
    if (k.needs_shader_f16 && !d.has_feature(Feature::ShaderF16)) {
      c.note(qn + ": device has no shader-f16: skipped");
      continue;
    }
    if (k.needs_float_atomics && !d.has_feature(Feature::Float32AtomicAdd)) {
      c.note(qn + ": device has no float32 atomic add: skipped");
      continue;
    }
    std::string skn = kn;
    bool lookup = skn.rfind("embed_lookup", 0) == 0,
         w16 = skn == "embed_lookup_w16" || skn == "embed_lookup_w16_rows";
    for (const Shape& sh : embedding_shapes(c)) {
      uint64_t tab_elems = uint64_t(sh.vocab) * sh.d, act = uint64_t(sh.seq) * sh.d;
      uint64_t tab_bytes = (w16 ? 2 : 4) * tab_elems;
      if (!c.fits_binding(tab_bytes) || !c.fits_binding(4 * act)) {
        c.note(qn + " " + std::to_string(sh.vocab) + "x" + std::to_string(sh.d) +
               " over the binding limit");
        continue;
      }
      auto tok = sweep_tokens(sh.seq, sh.vocab);
      std::set<uint32_t> distinct(tok.begin(), tok.end());
      Row r;
      r.kernel = qn;
      char lab[64];
      std::snprintf(lab, sizeof lab, "s%u d%u V%s", sh.seq, sh.d, human_count(sh.vocab).c_str());
      r.label = lab;
      r.dims = {{"seq", sh.seq},
                {"d_model", sh.d},
                {"vocab", sh.vocab},
                {"distinct_tokens", distinct.size()}};
      if (lookup) {
        r.bytes = w16 ? bytes_lookup_w16(sh.seq, sh.d) : bytes_lookup(sh.seq, sh.d);
        r.bytes_rule = w16 ? "2 B f16 table read + 4 B write per output element, 4 B per token"
                           : "4 B table read + 4 B write per output element, 4 B per token";
      } else {
        r.bytes = bytes_backward(sh.seq, sh.d, distinct.size());
        r.bytes_rule =
            "4 B grad_out read per element, 4 B per token, 8 B (read+write) per element of each "
            "distinct table row";
      }
      time_case(c, embedding_sweep_case(qn, sh.seq, sh.d, sh.vocab, kCheckedRows), std::move(r));
    }
  }
}

}  // namespace

WGSLVK_REGISTER_BENCH("embedding", run_embedding_kernels);

}  // namespace wgslvk::embedding
