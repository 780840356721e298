// Golden cases of 01_embedding.wgsl (its llm.istanbul study's "Quick Checklist": OOV tokens incl.
// vocab_size + 1, repeated tokens summed correctly, w16 equal to f32 lookup, non-finite gradients
// skipped), of the native backward variants (embed_backward_rows: the deterministic sum bit for bit
// by rows of vec4, issue 15) and of the native row-wise lookups (issue 15: the same
// expected outputs as the ports, bit exact, plus their own launch: rows per workgroup, surplus
// slots, the 2-D workgroup grid, and the decisions for an odd dims.w and an unaligned d_model). Expected values: wgsl_ports/embedding/reference.hpp.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "wgslvk/validate/case_builder.hpp"
#include "embedding/cases.hpp"
#include "embedding/embedding.hpp"  // lookup_rows_per_workgroup
#include "embedding/reference.hpp"
#include "wgslvk/bench/stats.hpp"
#include "wgslvk/kernels/embedding/embed_backward.hpp"
#include "wgslvk/kernels/embedding/embed_backward_atomic_float.hpp"
#include "wgslvk/kernels/embedding/embed_backward_deterministic.hpp"
#include "wgslvk/kernels/embedding/embed_backward_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16_rows.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::validate {
namespace {

namespace eref = wgslvk::embedding::ref;
using wgslvk::embedding::Dims;

constexpr uint32_t kOov[] = {0xFFFFFFFFu, 0x80000000u, 0xFFFFFFFEu};

struct Shape {
  uint32_t seq, d, vocab;
  uint64_t total() const { return uint64_t(seq) * d; }
};

std::vector<float> random_table(Rng& r, uint64_t n) {
  std::vector<float> t(n);
  for (auto& x : t) x = r.log_uniform(-6, 3);
  if (n > 3) t[1] = -0.0f, t[n / 2] = 0.0f;  // signed zeros are copied bit for bit
  return t;
}

// Tokens: in-vocabulary at random, plus the out-of-vocabulary values the seed names
// (vocab_size, vocab_size + 1, 0xFFFFFFFF) when `oov`.
std::vector<uint32_t> random_tokens(Rng& r, Shape s, bool oov) {
  std::vector<uint32_t> t(s.seq);
  for (auto& x : t) x = r.below(s.vocab);
  if (oov) {
    std::vector<uint32_t> bad = {s.vocab, s.vocab + 1, kOov[0], kOov[1], kOov[2], s.vocab};
    for (size_t k = 0; k < bad.size() && k * 2 + 1 < t.size(); ++k) t[k * 2 + 1] = bad[k];
    t[0] = s.vocab - 1;  // the last valid row next to the first invalid ones
  }
  return t;
}

// The kernels, by their generated headers (wgslvk/kernels/embedding/<entry>.hpp).
namespace ke = wgslvk::kernels::embedding;

// The dims uniform every embedding kernel takes (vec4<u32>: seq_len, d_model, vocab_size, w).
using DimsU = std::array<uint32_t, 4>;
DimsU dims_values(Shape s, uint32_t w = 0) { return {s.seq, s.d, s.vocab, w}; }

// A lookup dispatch of K: tokens, table, out and the dims uniform, by K's slots (a slot of
// another kernel does not compile).
template <class K, class Tt, class Tb, class To>
DispatchSpec& lookup_dispatch(CaseBuilder& b, const BindingSlot<K, Tt>& tokens,
                              const BindingSlot<K, Tb>& table, const BindingSlot<K, To>& out,
                              const BindingSlot<K, DimsU>& dims, const DimsU& v) {
  auto& d = b.dispatch(K{});
  CaseBuilder::bind(d, tokens, "tokens");
  CaseBuilder::bind(d, table, "table");
  CaseBuilder::bind(d, out, "out");
  CaseBuilder::bind_uniform(d, dims, v);
  return d;
}
// The lookup of the port (embed_lookup, embed_lookup_w16) or the row-wise native kernel.
DispatchSpec& lookup_dispatch(CaseBuilder& b, bool w16, bool rows, const DimsU& v) {
  if (rows && w16) {
    namespace k = ke::embed_lookup_w16_rows::binding;
    return lookup_dispatch(b, k::tokens, k::table_w16, k::out_w16, k::dims, v);
  }
  if (rows) {
    namespace k = ke::embed_lookup_rows::binding;
    return lookup_dispatch(b, k::tokens, k::table, k::out, k::dims, v);
  }
  if (w16) {
    namespace k = ke::embed_lookup_w16::binding;
    return lookup_dispatch(b, k::tokens_w16, k::table_w16, k::out_w16, k::dims_w16, v);
  }
  namespace k = ke::embed_lookup::binding;
  return lookup_dispatch(b, k::tokens, k::table, k::out, k::dims, v);
}

// A backward dispatch of K: tokens, grad_out, grad_table and the dims uniform by K's slots.
template <class K, class Tg, class Tt>
DispatchSpec& backward_dispatch(CaseBuilder& b, const BindingSlot<K, uint32_t>& tokens,
                                const BindingSlot<K, Tg>& grad_out,
                                const BindingSlot<K, Tt>& grad_table,
                                const BindingSlot<K, DimsU>& dims, const DimsU& v) {
  auto& d = b.dispatch(K{});
  CaseBuilder::bind(d, tokens, "tokens");
  CaseBuilder::bind(d, grad_out, "grad_out");
  CaseBuilder::bind(d, grad_table, "grad_table");
  CaseBuilder::bind_uniform(d, dims, v);
  return d;
}

void set_workgroups(DispatchSpec& d, uint64_t total, const std::array<uint32_t, 3>* explicit_grid) {
  if (explicit_grid)
    d.workgroups = *explicit_grid;
  else
    d.workgroups_1d = div_ceil(total, 256);
}

// ---- embed_lookup / embed_lookup_w16 -------------------------------------------------------------

// The native row-wise lookups' launch (embedding_native.wgsl): dims.w = rows per workgroup (0:
// the host's choice, lookup_rows_per_workgroup), and whether d_model is expected to be refused
// by the kernel (not a multiple of 4: nothing is written).
struct Native {
  bool on = false;
  uint32_t rows_per_wg = 0;
};

// `tail`: extra poisoned elements after the output, bound with it, that must stay unchanged (the
// kernel's `i >= total` check on a grid with surplus invocations).
Case lookup_case(uint64_t seed, bool w16, Shape s, bool oov, uint32_t repeat_set,
                 const std::array<uint32_t, 3>* grid, uint32_t tail, const std::string& what,
                 Native native = {}) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  auto tokens = random_tokens(r, s, oov);
  if (repeat_set)
    for (auto& t : tokens)
      if (t < s.vocab) t = r.below(repeat_set);
  auto table = random_table(r, uint64_t(s.vocab) * s.d);
  std::vector<float> out(s.total());
  Dims dims{s.seq, s.d, s.vocab};
  b.input("tokens", DType::U32, tokens);
  if (w16) {
    std::vector<uint16_t> t16(table.size());
    for (size_t i = 0; i < t16.size(); ++i) t16[i] = f32_to_f16_bits(table[i]);
    for (auto& h : t16)  // keep clear of f16 subnormals, which a device may flush on conversion
      if ((h & 0x7c00u) == 0 && (h & 0x3ffu)) h = uint16_t((h & 0x8000u) | 0x0400u);
    b.input("table", DType::F16, t16);
    eref::lookup_w16(tokens, t16, out, dims);
  } else {
    b.input("table", DType::F32, table);
    eref::lookup(tokens, table, out, dims);
  }
  b.output("out", DType::F32, s.total() + tail);
  if (native.on) {
    const uint32_t w =
        native.rows_per_wg ? native.rows_per_wg : wgslvk::embedding::lookup_rows_per_workgroup(s.d);
    auto& d = lookup_dispatch(b, w16, true, dims_values(s, w));
    if (grid)
      d.workgroups = *grid;
    else
      d.workgroups_1d =
          div_ceil(uint64_t(s.seq), std::clamp(w, 1u, wgslvk::embedding::kLookupRowsWG));
  } else {
    auto& d = lookup_dispatch(b, w16, false, dims_values(s));
    set_workgroups(d, s.total(), grid);
  }
  std::vector<float> expected = out;
  expected.resize(s.total() + tail, f32_bits(kPoison32));
  if (native.on && s.d % 4 != 0) {
    // Decision (embedding_native.wgsl): the row-wise kernels write nothing for such a d_model.
    std::fill(expected.begin(), expected.end(), f32_bits(kPoison32));
    b.check_exact("out", Array::of(DType::F32, expected),
                  "d_model not a multiple of 4: every invocation returns before any load or "
                  "store, the poisoned output stays unchanged (the host never sends this shape)");
    return b.c;
  }
  Array e = Array::of(DType::F32, expected);
  b.check_exact("out", e,
                w16 ? "a copy of an f16 table element widened to f32 (exact) or 0.0 for an "
                      "out-of-vocabulary token: bit exact (kLookupW16Ulps = 0)"
                    : "a copy of a table element or 0.0 for an out-of-vocabulary token: bit exact "
                      "(kLookupUlps = 0)",
                0, s.total());
  if (tail)
    b.check_exact("out", e,
                  "surplus invocations of the grid exit on `i >= total`: the poisoned "
                  "elements past the output stay unchanged",
                  s.total(), s.total() + tail);
  return b.c;
}

// ---- embed_lookup_rows / embed_lookup_w16_rows (ours, embedding_native.wgsl) ---------------------

template <bool W16>
Case rows_basic(uint64_t seed) {
  Rng r(seed ^ 0x61);
  // d_model any multiple of 4 up to 96 (so 1..64 rows per workgroup), odd seq_len often.
  Shape s{20 + r.below(40), 4 * (1 + r.below(24)), 30 + r.below(100)};
  return lookup_case(seed, W16, s, false, 0, nullptr, 0,
                     "random in-vocabulary tokens, d_model a random multiple of 4 (the host's rows "
                     "per workgroup), same output as the port bit for bit",
                     {true, 0});
}
template <bool W16>
Case rows_oov(uint64_t seed) {
  return lookup_case(seed, W16, {24, 40, 50}, true, 0, nullptr, 0,
                     "out-of-vocabulary tokens vocab_size, vocab_size + 1, 0xFFFFFFFF, 0x80000000, "
                     "0xFFFFFFFE give rows of +0.0 (vec4 stores); vocab_size - 1 is looked up",
                     {true, 0});
}
template <bool W16>
Case rows_long_rows(uint64_t seed) {
  return lookup_case(seed, W16, {9, 1028, 20}, true, 0, nullptr, 0,
                     "d_model 1028: 257 vec4 per row over 64 lanes, a second 4-load iteration for "
                     "lane 0 only (the guarded loads and stores of the tail)",
                     {true, 0});
}
template <bool W16>
Case rows_small_d(uint64_t seed) {
  return lookup_case(seed, W16, {70, 4, 33}, true, 0, nullptr, 0,
                     "d_model 4: 64 rows per workgroup of one lane each; the second workgroup's "
                     "58 surplus row slots exit",
                     {true, 0});
}
Case rows_small_d12(uint64_t seed) {
  return lookup_case(seed, false, {37, 12, 33}, true, 0, nullptr, 0,
                     "d_model 12: 3 vec4 per row, 4 lanes per row (one idle), 16 rows per "
                     "workgroup, surplus slots in the last",
                     {true, 0});
}
Case rows_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{4, 2, 1};
  return lookup_case(seed, false, {21, 64, 90}, true, 0, &grid, 192,
                     "a 4 x 2 workgroup grid (4 rows per workgroup): the flat workgroup index "
                     "wid.y * nwg.x + wid.x covers rows 16..20 from y = 1; 11 surplus row slots "
                     "exit and the poison past the output stays",
                     {true, 0});
}
Case rows_odd_rows_per_wg(uint64_t seed) {
  return lookup_case(seed, false, {20, 8, 25}, true, 0, nullptr, 48,
                     "dims.w = 3 (not the host's power of two): 21 lanes per row, lane slots >= 3 "
                     "exit; still the port's output, nothing written past it",
                     {true, 3});
}
Case rows_unaligned(uint64_t seed) {
  return lookup_case(seed, false, {10, 6, 12}, false, 0, nullptr, 0,
                     "d_model 6 (not a multiple of 4): the kernel writes nothing", {true, 0});
}

Case lookup_basic(uint64_t seed) {
  Rng r(seed ^ 0x51);
  Shape s{20 + r.below(40), 8 * (1 + r.below(12)), 30 + r.below(100)};
  return lookup_case(seed, false, s, false, 0, nullptr, 0,
                     "random in-vocabulary tokens over a table spanning binades, signed zeros");
}
Case lookup_oov(uint64_t seed) {
  return lookup_case(seed, false, {24, 40, 50}, true, 0, nullptr, 0,
                     "out-of-vocabulary tokens vocab_size, vocab_size + 1, 0xFFFFFFFF, 0x80000000, "
                     "0xFFFFFFFE give rows of 0.0; vocab_size - 1 is still looked up");
}
Case lookup_repeated(uint64_t seed) {
  return lookup_case(seed, false, {64, 48, 300}, false, 3, nullptr, 0,
                     "64 positions drawing from 3 tokens: repeated rows are each copied in full");
}
Case lookup_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{3, 2, 1};
  return lookup_case(seed, false, {21, 64, 90}, true, 0, &grid, 192,
                     "a 3 x 2 workgroup grid: flat_id = gid.y * nwg.x * 256 + gid.x covers rows "
                     "y = 1; 192 surplus invocations exit and the poison past the output stays");
}
Case lookup_w16_basic(uint64_t seed) {
  Rng r(seed ^ 0x52);
  Shape s{20 + r.below(40), 8 * (1 + r.below(12)), 30 + r.below(100)};
  return lookup_case(seed, true, s, false, 0, nullptr, 0,
                     "the f16 mirror: random tokens over an f16 table, widened exactly to f32");
}
Case lookup_w16_oov(uint64_t seed) {
  return lookup_case(seed, true, {24, 40, 50}, true, 0, nullptr, 0,
                     "f16 table with out-of-vocabulary tokens (vocab_size, vocab_size + 1, "
                     "0xFFFFFFFF, ...) giving rows of 0.0");
}

// ---- embed_backward (CAS), embed_backward_atomic_float, embed_backward_deterministic -------------

// Rows: embed_backward_rows (ours, issue 15), the deterministic segments by rows of vec4.
enum class Variant { Cas, FloatAtomics, Deterministic, Rows };

// embed_backward (CAS) or embed_backward_atomic_float.
DispatchSpec& atomic_dispatch(CaseBuilder& b, bool float_atomics, const DimsU& v) {
  if (float_atomics) {
    namespace k = ke::embed_backward_atomic_float::binding;
    return backward_dispatch(b, k::tokens, k::grad_out, k::grad_table, k::dims, v);
  }
  namespace k = ke::embed_backward::binding;
  return backward_dispatch(b, k::tokens, k::grad_out, k::grad_table, k::dims, v);
}
// embed_backward_deterministic or embed_backward_rows, with the host's segments ("order",
// "seg_start") bound after the dims.
DispatchSpec& deterministic_dispatch(CaseBuilder& b, bool rows, const DimsU& v) {
  if (rows) {
    namespace k = ke::embed_backward_rows::binding;
    auto& d = backward_dispatch(b, k::tokens, k::grad_out4, k::grad_table4, k::dims, v);
    CaseBuilder::bind(d, k::order, "order");
    CaseBuilder::bind(d, k::seg_start, "seg_start");
    return d;
  }
  namespace k = ke::embed_backward_deterministic::binding;
  auto& d = backward_dispatch(b, k::tokens, k::grad_out, k::grad_table, k::dims, v);
  CaseBuilder::bind(d, k::order, "order");
  CaseBuilder::bind(d, k::seg_start, "seg_start");
  return d;
}

std::vector<float> random_grads(Rng& r, uint64_t n, bool nonfinite) {
  std::vector<float> g(n);
  for (auto& x : g) x = r.log_uniform(-8, 1);
  if (nonfinite && n > 16) {
    const float special[] = {
        f32_bits(0x7fc00000u), INFINITY, -INFINITY, 0.0f, -0.0f, f32_bits(0xffc00001u),
        f32_bits(0x7f800001u)};
    for (size_t k = 0; k < n / 5; ++k) g[r.below(n)] = special[k % std::size(special)];
  }
  return g;
}

// The atomic variants' check of grad_table (the elements `e` covers): n terms added in an order
// the atomics choose, n ULPs of M (kBackwardUlpsPerTerm); an element that receives nothing keeps
// its initial value exactly.
void check_atomic_backward(CaseBuilder& b, const eref::BackwardExpected& e,
                           const std::string& where) {
  std::vector<float> bound(e.value.size()), mag(e.value.size());
  for (size_t i = 0; i < e.value.size(); ++i) {
    bound[i] = e.terms[i] <= 1 ? 0.0f : float(eref::kBackwardUlpsPerTerm * e.terms[i]);
    mag[i] = float(e.magnitude[i]);
  }
  auto& k = b.check_ulp("grad_table", Array::of(DType::F32, e.value), 0,
                        "f32 atomic adds in an unspecified order: each element is within "
                        "kBackwardUlpsPerTerm (1) x n ULPs of M = |initial| + sum |contributions| "
                        "(n = initial + contributions, bound file); untouched elements exact" +
                            where);
  CaseBuilder::per_element_bound(k, bound);
  CaseBuilder::magnitude(k, mag);
}

Case backward_case(uint64_t seed, Variant v, Shape s, bool oov, bool nonfinite,
                   uint32_t hot_repeats, const std::array<uint32_t, 3>* grid,
                   const std::string& what, bool one_token = false) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  auto tokens = random_tokens(r, s, oov);
  for (uint32_t k = 0; k < hot_repeats && k < s.seq; ++k) tokens[r.below(s.seq)] = 2 % s.vocab;
  if (one_token) std::fill(tokens.begin(), tokens.end(), s.vocab - 1);
  auto grad_out = random_grads(r, s.total(), nonfinite);
  std::vector<float> table(uint64_t(s.vocab) * s.d);
  for (auto& x : table) x = r.log_uniform(-6, 0);  // accumulated onto: never all zero
  Dims dims{s.seq, s.d, s.vocab};
  b.input("tokens", DType::U32, tokens);
  b.input("grad_out", DType::F32, grad_out);
  b.input("grad_table", DType::F32, table);
  if (v == Variant::Deterministic || v == Variant::Rows) {
    // The host's part (embedding_native.wgsl): in-vocabulary positions stably sorted by token,
    // cut into one segment per distinct token.
    const auto seg = eref::deterministic_segments(tokens, s.vocab);
    uint32_t nseg = seg.count();
    b.input("order", DType::U32, seg.order);
    b.input("seg_start", DType::U32, seg.seg_start);
    auto& d = deterministic_dispatch(b, v == Variant::Rows, dims_values(s, nseg));
    if (v == Variant::Rows && grid)
      d.workgroups = *grid;
    else if (v == Variant::Rows)
      d.workgroups_1d = wgslvk::embedding::backward_rows_workgroups(nseg, s.d);
    else
      set_workgroups(d, uint64_t(nseg) * s.d, grid);
    if (v == Variant::Rows && s.d % 4 != 0) {
      // Decision (embedding_native.wgsl): the row-wise kernel writes nothing for such a d_model.
      b.check_exact("grad_table", Array::of(DType::F32, table),
                    "d_model not a multiple of 4: every invocation returns before any load or "
                    "store, the table stays unchanged (the host never sends this shape)");
      return b.c;
    }
    auto expected = eref::backward_sequential_f32(tokens, grad_out, table, dims);
    b.check_exact("grad_table", Array::of(DType::F32, expected),
                  v == Variant::Rows
                      ? "one writer per element adding in position order (vec4 rows): bit exact "
                        "against the sequential f32 sum, i.e. embed_backward_deterministic "
                        "(kDeterministicUlps = 0)"
                      : "one writer per element adding in position order: bit exact against the "
                        "sequential f32 sum (kDeterministicUlps = 0)");
    return b.c;
  }
  auto& d = atomic_dispatch(b, v == Variant::FloatAtomics, dims_values(s));
  set_workgroups(d, s.total(), grid);
  check_atomic_backward(b, eref::backward(tokens, grad_out, table, dims), "");
  return b.c;
}

template <Variant V>
Case backward_basic(uint64_t seed) {
  Rng r(seed ^ 0x53);
  Shape s{24 + r.below(60), 8 * (1 + r.below(8)), 8 + r.below(40)};
  return backward_case(seed, V, s, false, false, 0, nullptr,
                       "random tokens (repeats by chance) over a non-zero initial table");
}
template <Variant V>
Case backward_nonfinite_oov(uint64_t seed) {
  return backward_case(seed, V, {40, 32, 20}, true, true, 0, nullptr,
                       "NaN, +-inf, signalling NaN and +-0.0 gradients are skipped; positions with "
                       "tokens vocab_size, vocab_size + 1, 0xFFFFFFFF, ... contribute nothing");
}
template <Variant V>
Case backward_repeated(uint64_t seed) {
  return backward_case(seed, V, {96, 16, 12}, false, false, 80, nullptr,
                       "one token at ~60 of 96 positions: contended adds into the same row");
}
template <Variant V>
Case backward_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 4, 1};
  return backward_case(seed, V, {50, 40, 30}, true, false, 0, &grid,
                       "a 2 x 4 workgroup grid (flat_id over rows y = 1..3), surplus invocations "
                       "exiting on the bounds check");
}

// ---- embed_backward_rows (ours, embedding_native.wgsl) -----------------------------------------

Case bwd_rows_basic(uint64_t seed) {
  Rng r(seed ^ 0x71);
  // d_model any multiple of 4 up to 96 (1..64 lanes, up to 64 segments per workgroup), odd seq.
  Shape s{24 + r.below(60), 4 * (1 + r.below(24)), 8 + r.below(40)};
  return backward_case(seed, Variant::Rows, s, false, false, 0, nullptr,
                       "random tokens (repeats by chance) over a non-zero initial table, d_model a "
                       "random multiple of 4: the sequential sum bit for bit");
}
Case bwd_rows_nonfinite_oov(uint64_t seed) {
  return backward_case(seed, Variant::Rows, {40, 32, 20}, true, true, 0, nullptr,
                       "NaN, +-inf, signalling NaN and +-0.0 gradients skipped per component; "
                       "out-of-vocabulary positions left out by the host (8 segments per "
                       "workgroup at d_model 32)");
}
Case bwd_rows_repeated(uint64_t seed) {
  return backward_case(seed, Variant::Rows, {96, 16, 12}, false, false, 80, nullptr,
                       "one token at ~60 of 96 positions: a long segment beside short ones");
}
Case bwd_rows_one_token(uint64_t seed) {
  return backward_case(seed, Variant::Rows, {37, 64, 9}, false, true, 0, nullptr,
                       "the same token (vocab_size - 1) at all 37 positions, non-finite and zero "
                       "gradients among them: one segment, an odd length (the unrolled pair "
                       "loop's tail)",
                       true);
}
Case bwd_rows_wide(uint64_t seed) {
  return backward_case(seed, Variant::Rows, {13, 1540, 10}, false, false, 6, nullptr,
                       "d_model 1540 (385 vec4): two chunks per segment, the second with 129 "
                       "vec4 (columns c0, c1 of every lane, c2 of lane 0 only)");
}
Case bwd_rows_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 4, 1};
  return backward_case(seed, Variant::Rows, {50, 40, 30}, true, false, 0, &grid,
                       "a 2 x 4 workgroup grid of 4 segments each (d_model 40): the flat "
                       "workgroup index wid.y * nwg.x + wid.x covers segments from y = 1; surplus "
                       "segment slots exit");
}
Case bwd_rows_unaligned(uint64_t seed) {
  return backward_case(seed, Variant::Rows, {20, 6, 12}, false, false, 0, nullptr,
                       "d_model 6 (not a multiple of 4): the kernel writes nothing");
}

}  // namespace

void register_embedding(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/embedding/cases.cpp";
  auto add = [&](std::string_view k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string(k), n, seed, rnd, f, src});
  };
  add(ke::embed_lookup::name, "basic", 1001, true, lookup_basic);
  add(ke::embed_lookup::name, "oov_tokens", 1002, false, lookup_oov);
  add(ke::embed_lookup::name, "repeated_tokens", 1003, false, lookup_repeated);
  add(ke::embed_lookup::name, "grid_2d", 1004, false, lookup_grid_2d);
  add(ke::embed_lookup_w16::name, "basic", 1101, true, lookup_w16_basic);
  add(ke::embed_lookup_w16::name, "oov_tokens", 1102, false, lookup_w16_oov);
  add(ke::embed_lookup_rows::name, "basic", 1501, true, rows_basic<false>);
  add(ke::embed_lookup_rows::name, "oov_tokens", 1502, false, rows_oov<false>);
  add(ke::embed_lookup_rows::name, "long_rows", 1503, false, rows_long_rows<false>);
  add(ke::embed_lookup_rows::name, "small_d_model", 1504, false, rows_small_d<false>);
  add(ke::embed_lookup_rows::name, "d_model_12", 1505, false, rows_small_d12);
  add(ke::embed_lookup_rows::name, "grid_2d", 1506, false, rows_grid_2d);
  add(ke::embed_lookup_rows::name, "rows_per_wg_3", 1507, false, rows_odd_rows_per_wg);
  add(ke::embed_lookup_rows::name, "unaligned_writes_nothing", 1508, false, rows_unaligned);
  add(ke::embed_lookup_w16_rows::name, "basic", 1601, true, rows_basic<true>);
  add(ke::embed_lookup_w16_rows::name, "oov_tokens", 1602, false, rows_oov<true>);
  add(ke::embed_lookup_w16_rows::name, "long_rows", 1603, false, rows_long_rows<true>);
  add(ke::embed_lookup_w16_rows::name, "small_d_model", 1604, false, rows_small_d<true>);
  add(ke::embed_backward::name, "basic", 1201, true, backward_basic<Variant::Cas>);
  add(ke::embed_backward::name, "nonfinite_and_oov", 1202, false,
      backward_nonfinite_oov<Variant::Cas>);
  add(ke::embed_backward::name, "repeated_tokens", 1203, false, backward_repeated<Variant::Cas>);
  add(ke::embed_backward::name, "grid_2d", 1204, false, backward_grid_2d<Variant::Cas>);
  add(ke::embed_backward_atomic_float::name, "basic", 1301, true,
      backward_basic<Variant::FloatAtomics>);
  add(ke::embed_backward_atomic_float::name, "nonfinite_and_oov", 1302, false,
      backward_nonfinite_oov<Variant::FloatAtomics>);
  add(ke::embed_backward_atomic_float::name, "repeated_tokens", 1303, false,
      backward_repeated<Variant::FloatAtomics>);
  add(ke::embed_backward_deterministic::name, "basic", 1401, true,
      backward_basic<Variant::Deterministic>);
  add(ke::embed_backward_deterministic::name, "nonfinite_and_oov", 1402, false,
      backward_nonfinite_oov<Variant::Deterministic>);
  add(ke::embed_backward_deterministic::name, "repeated_tokens", 1403, false,
      backward_repeated<Variant::Deterministic>);
  add(ke::embed_backward_deterministic::name, "grid_2d", 1404, false,
      backward_grid_2d<Variant::Deterministic>);
  add(ke::embed_backward_rows::name, "basic", 1701, true, bwd_rows_basic);
  add(ke::embed_backward_rows::name, "nonfinite_and_oov", 1702, false, bwd_rows_nonfinite_oov);
  add(ke::embed_backward_rows::name, "repeated_tokens", 1703, false, bwd_rows_repeated);
  add(ke::embed_backward_rows::name, "one_token_everywhere", 1704, false, bwd_rows_one_token);
  add(ke::embed_backward_rows::name, "wide_rows", 1705, false, bwd_rows_wide);
  add(ke::embed_backward_rows::name, "grid_2d", 1706, false, bwd_rows_grid_2d);
  add(ke::embed_backward_rows::name, "unaligned_writes_nothing", 1707, false, bwd_rows_unaligned);
}

WGSLVK_REGISTER_GENERATORS(register_embedding);

}  // namespace wgslvk::validate

// ---- sweep cases (cases.hpp): the bench's shapes, generated inputs, checked first rows ------------

namespace wgslvk::embedding {

namespace {
using validate::Array;
using validate::Case;
using validate::CaseBuilder;
using validate::DType;
using validate::Generate;
using validate::ojson;

}  // namespace

std::vector<uint32_t> sweep_tokens(uint32_t seq, uint32_t vocab) {
  if (vocab == 0) throw std::invalid_argument("sweep_tokens: vocab 0");
  std::vector<uint32_t> t(seq);
  for (uint32_t s = 0; s < seq; ++s) t[s] = bench::hash32(s * 0x9e3779b9u + 17) % vocab;
  // Renumber rows by a permutation of [0, vocab) that sends the first distinct ids (up to 8, from
  // the first 16 positions) to rows 0, 1, ...: the checked first rows then receive adds, and the
  // distinct ids, their repeats and so the bench's byte counts stay those of the hashed ids.
  std::vector<uint32_t> perm(vocab), inv(vocab);
  std::iota(perm.begin(), perm.end(), 0u);
  std::iota(inv.begin(), inv.end(), 0u);
  uint32_t next = 0;
  for (uint32_t s = 0; s < std::min(seq, 16u) && next < std::min(8u, vocab); ++s) {
    const uint32_t a = t[s];
    if (perm[a] < next) continue;  // already placed
    const uint32_t b = inv[next], ca = perm[a];
    perm[a] = next, inv[next] = a, perm[b] = ca, inv[ca] = b;
    ++next;
  }
  for (auto& x : t) x = perm[x];
  return t;
}

Case embedding_sweep_case(const std::string& kernel, uint32_t seq, uint32_t d, uint32_t vocab,
                          uint32_t checked_rows) {
  namespace ke = kernels::embedding;
  const bool native =
      kernel == ke::embed_lookup_rows::name || kernel == ke::embed_lookup_w16_rows::name;
  const bool w16 =
      kernel == ke::embed_lookup_w16::name || kernel == ke::embed_lookup_w16_rows::name;
  const bool lookup = !w16 && (kernel == ke::embed_lookup::name || native);
  const bool cas = kernel == ke::embed_backward::name,
             fa = kernel == ke::embed_backward_atomic_float::name;
  const bool rows_bwd = kernel == ke::embed_backward_rows::name;
  const bool det = kernel == ke::embed_backward_deterministic::name || rows_bwd;
  if (!(lookup || w16 || cas || fa || det))
    throw std::invalid_argument("embedding_sweep_case: unknown kernel '" + kernel + "'");
  if ((native || rows_bwd) && d % 4 != 0)
    throw std::invalid_argument("embedding_sweep_case: " + kernel +
                                " needs d_model % 4 == 0, got " + std::to_string(d));
  if (seq == 0 || d == 0 || vocab == 0)
    throw std::invalid_argument("embedding_sweep_case: empty shape " + std::to_string(seq) + " x " +
                                std::to_string(d) + ", vocab " + std::to_string(vocab));
  const validate::Shape s{seq, d, vocab};
  validate::Rng r(0xe3b0 + s.total() + vocab);
  CaseBuilder b;
  b.c.kernel = kernel;
  b.c.name =
      "sweep_s" + std::to_string(seq) + "_d" + std::to_string(d) + "_V" + std::to_string(vocab);
  const auto tokens = sweep_tokens(seq, vocab);
  b.input("tokens", DType::U32, tokens);
  if (lookup || w16) {
    const uint32_t rows = std::min(checked_rows, seq);  // output rows checked
    b.c.description = "bench sweep: the first " + std::to_string(rows) + " output rows checked";
    // The table: a choice over 64 values spanning binades (f16: bit patterns of normal halves).
    ojson vals = ojson::array();
    std::vector<float> f32v;
    std::vector<uint16_t> f16v;
    for (int k = 0; k < 64; ++k) {
      float x = r.log_uniform(-6, 3);
      if (w16) {
        uint16_t h = f32_to_f16_bits(x);
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%04x", unsigned(h));
        vals.push_back(buf);
        f16v.push_back(h);
      } else {
        vals.push_back(validate::json_f32(x));
        f32v.push_back(x);
      }
    }
    const Generate g = CaseBuilder::choice(r.bits(), vals);
    b.generated("table", w16 ? DType::F16 : DType::F32, uint64_t(vocab) * d, g);
    b.output("out", DType::F32, s.total());
    // The reference on the checked rows: their tokens renumbered 0..k-1 over a table of just the
    // rows they read, each element the generator's value at its index in the full table.
    std::vector<uint32_t> used, renum(rows);
    for (uint32_t i = 0; i < rows; ++i) {
      auto it = std::find(used.begin(), used.end(), tokens[i]);
      renum[i] = uint32_t(it - used.begin());
      if (it == used.end()) used.push_back(tokens[i]);
    }
    std::vector<float> out(uint64_t(rows) * d);
    const Dims sub{rows, d, uint32_t(used.size())};
    auto pick = [&](uint64_t idx) { return validate::splitmix64_at(g.seed, idx) % vals.size(); };
    if (w16) {
      std::vector<uint16_t> t(used.size() * uint64_t(d));
      for (size_t k = 0; k < used.size(); ++k)
        for (uint32_t j = 0; j < d; ++j) t[k * d + j] = f16v[pick(uint64_t(used[k]) * d + j)];
      ref::lookup_w16(renum, t, out, sub);
    } else {
      std::vector<float> t(used.size() * uint64_t(d));
      for (size_t k = 0; k < used.size(); ++k)
        for (uint32_t j = 0; j < d; ++j) t[k * d + j] = f32v[pick(uint64_t(used[k]) * d + j)];
      ref::lookup(renum, t, out, sub);
    }
    if (native) {
      auto& disp = validate::lookup_dispatch(
          b, w16, true, validate::dims_values(s, lookup_rows_per_workgroup(d)));
      disp.workgroups_1d = lookup_rows_workgroups(seq, d);
    } else {
      auto& disp = validate::lookup_dispatch(b, w16, false, validate::dims_values(s));
      disp.workgroups_1d = div_ceil(s.total(), 256);
    }
    b.check_exact("out", Array::of(DType::F32, out),
                  w16 ? "a copy of an f16 table element widened to f32 (exact): bit exact "
                        "(kLookupW16Ulps = 0), first rows"
                      : "a copy of a table element: bit exact (kLookupUlps = 0), first rows");
    return b.c;
  }
  const uint32_t rows = std::min(checked_rows, vocab);  // table rows checked
  b.c.description = "bench sweep: the first " + std::to_string(rows) + " table rows checked";
  ojson gvals = ojson::array();
  for (int k = 0; k < 60; ++k) gvals.push_back(validate::json_f32(r.log_uniform(-8, 1)));
  for (const char* e : {"nan", "inf", "-inf"}) gvals.push_back(e);
  gvals.push_back(0.0);
  auto grad_out = b.generated_prefix<float>("grad_out", DType::F32, s.total(),
                                            CaseBuilder::choice(r.bits(), gvals), s.total());
  ojson tvals = ojson::array();
  for (int k = 0; k < 64; ++k) tvals.push_back(validate::json_f32(r.log_uniform(-6, 0)));
  auto table = b.generated_prefix<float>("grad_table", DType::F32, uint64_t(vocab) * d,
                                         CaseBuilder::choice(r.bits(), tvals), uint64_t(rows) * d);
  // The reference over rows [0, rows): tokens >= rows are out of its vocabulary, so they add
  // nothing there, exactly as they add nothing to those rows on the device.
  const Dims sub{seq, d, rows};
  if (det) {
    const auto seg = ref::deterministic_segments(tokens, vocab);
    b.input("order", DType::U32, seg.order);
    b.input("seg_start", DType::U32, seg.seg_start);
    auto& disp =
        validate::deterministic_dispatch(b, rows_bwd, validate::dims_values(s, seg.count()));
    disp.workgroups_1d = rows_bwd ? backward_rows_workgroups(seg.count(), d)
                                  : div_ceil(uint64_t(seg.count()) * d, 256);
    b.check_exact("grad_table",
                  Array::of(DType::F32, ref::backward_sequential_f32(tokens, grad_out, table, sub)),
                  "one writer per element adding in position order: bit exact against the "
                  "sequential f32 sum (kDeterministicUlps = 0), first rows");
    return b.c;
  }
  auto& disp = validate::atomic_dispatch(b, fa, validate::dims_values(s));
  disp.workgroups_1d = div_ceil(s.total(), 256);
  validate::check_atomic_backward(b, ref::backward(tokens, grad_out, table, sub), "; first rows");
  return b.c;
}

}  // namespace wgslvk::embedding
