// Golden cases of matmul_batched (ours, matmul_batched.wgsl; issue 23): the fp32 trainer's
// attention products, B = 2 x H = 3 products inside wider matrices laid out as the trainer's
// (qkv [B T][3 d], y and dy [B T][d], the score matrices [B H][T][T]) at T = 72 (a whole 64-row
// tile and an edge tile of 8) and head_dim 8. Each product is checked against
// matmul/reference.hpp's double reference of the same product alone, bound_ulps(n) ULPs of its
// magnitude (the same rule as matmul_native: one f32 fma chain over k); the causal flags only skip
// terms that are exact zeros (P and dS are lower-triangular here) or tiles above the diagonal,
// whose elements must stay as they were (the poison NaN: a written element would be finite).
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "matmul/reference.hpp"
#include "wgslvk/kernels/matmul/matmul_batched.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

using matmul::Dims;
namespace mref = matmul::ref;
namespace bm = wgslvk::kernels::matmul::matmul_batched;

const float kPoison = std::bit_cast<float>(kPoison32);
constexpr uint32_t kCausalTiles = 16, kKFromRow = 32, kKToRow = 64;
constexpr uint32_t kB = 2, kH = 3, kT = 72, kHd = 8, kD = kH * kHd;

// Where product z = o H + i of a side lives: element (r, c) at off + o outer + i inner + r ld + c.
struct Side {
  uint32_t off, ld, outer, inner;
  uint64_t at(uint32_t z, uint32_t r, uint32_t c) const {
    return off + uint64_t(z / kH) * outer + uint64_t(z % kH) * inner + uint64_t(r) * ld + c;
  }
};
Side qkv_side(uint32_t part) { return {part * kD, 3 * kD, kT * 3 * kD, kHd}; }
Side o_side() { return {0, kD, kT * kD, kHd}; }
Side s_side() { return {0, kT, kH * kT * kT, kT * kT}; }

std::vector<float> binades(Rng& r, uint64_t n) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.log_uniform(-4, 4);
  return v;
}
// [B H][T][T] values spanning binades on and below the diagonal, 0.0 above (as P and dS).
std::vector<float> lower(Rng& r) {
  std::vector<float> v = binades(r, uint64_t(kB) * kH * kT * kT);
  for (uint64_t e = 0; e < v.size(); ++e)
    if (e % kT > (e / kT) % kT) v[e] = 0.0f;
  return v;
}

std::vector<float> gather(const std::vector<float>& buf, const Side& s, uint32_t z, uint32_t rows,
                          uint32_t cols) {
  std::vector<float> m(uint64_t(rows) * cols);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) m[uint64_t(r) * cols + c] = buf[s.at(z, r, c)];
  return m;
}

// The expected contents of a C buffer after one or more dispatches (poison where none writes).
struct Expect {
  std::vector<float> value;
  std::vector<float> mag;
  double bound = 0;
  explicit Expect(const std::vector<float>& init) : value(init), mag(init.size(), 0.0f) {}
};

// One product dispatch over the B H products: C_z (+)= op(A_z) op(B_z) with `flags` (the family's
// bits plus the causal ones), its expected values (the reference of each product alone) merged
// into `e`; with kCausalTiles the 64 x 64 tiles past the diagonal are left as they were.
void product(CaseBuilder& cb, Expect& e, const std::vector<float>& a, Side as,
             const std::vector<float>& b, Side bs, Side cs, const std::string& an,
             const std::string& bn, const std::string& cn, uint32_t M, uint32_t N, uint32_t K,
             uint32_t flags, const std::string& label) {
  const Dims d{M, N, K, flags & (matmul::kTransA | matmul::kTransB | matmul::kAccumulate)};
  auto& s = cb.dispatch(std::string(bm::name), label);
  CaseBuilder::bind(s, bm::binding::bma, an);
  CaseBuilder::bind(s, bm::binding::bmb, bn);
  CaseBuilder::bind(s, bm::binding::bmc, cn);
  bm::BmmDims u{};
  u.mnkf = {M, N, K, flags};
  u.ld = {as.ld, bs.ld, cs.ld, kH};
  u.ab = {as.outer, as.inner, bs.outer, bs.inner};
  u.cb = {cs.outer, cs.inner, 0, 0};
  u.off = {as.off, bs.off, cs.off, 0};
  CaseBuilder::bind_uniform(s, bm::binding::bmdims, u);
  s.workgroups = std::array<uint32_t, 3>{((M + 63) / 64) * ((N + 63) / 64), 1, kB * kH};
  for (uint32_t z = 0; z < kB * kH; ++z) {
    const auto az = gather(a, as, z, d.trans_a() ? K : M, d.trans_a() ? M : K);
    const auto bz = gather(b, bs, z, d.trans_b() ? N : K, d.trans_b() ? K : N);
    std::vector<float> cold, none;
    if (d.accumulate()) cold = gather(e.value, cs, z, M, N);
    const mref::Expected r = mref::matmul(az, bz, none, cold, d);
    e.bound = std::max(e.bound, r.bound);
    for (uint32_t i = 0; i < M; ++i)
      for (uint32_t j = 0; j < N; ++j) {
        if ((flags & kCausalTiles) && j / 64 > i / 64) continue;
        e.value[cs.at(z, i, j)] = r.value[uint64_t(i) * N + j];
        e.mag[cs.at(z, i, j)] = float(r.magnitude[uint64_t(i) * N + j]);
      }
  }
}

void check(CaseBuilder& cb, const std::string& name, const Expect& e, const std::string& what) {
  auto& k = cb.check_ulp(
      name, Array::of(DType::F32, e.value), e.bound,
      what +
          ": per product an f32 sum of n terms (K products + old C) in any order, FMA or not, "
          "within gamma_n S, S = sum |a_ik b_kj| + |old C| (the magnitude file); the skipped "
          "terms are exact zeros; reference exact in double rounded once: bound_ulps(n) = "
          "n * 17/16 + 1 ULPs of S (matmul/reference.hpp). Elements no product writes are the "
          "poison NaN and must stay NaN (a written element is finite)");
  CaseBuilder::magnitude(k, e.mag);
}

// Forward: S = Q K^T (TRANS_B, CAUSAL_TILES: rows 0..63 x columns 64..71 not written) and
// O = P V (K_TO_ROW) with a lower-triangular P.
Case attention_forward(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  cb.c.description =
      "the fp32 trainer's forward attention products: S = Q K^T with the tiles "
      "above the diagonal skipped, O = P V with k up to each tile's last row "
      "(B 2, H 3, T 72, head_dim 8, in place in qkv / y)";
  const auto qkv = binades(r, uint64_t(kB) * kT * 3 * kD);
  const auto p = lower(r);
  cb.input("qkv", DType::F32, qkv);
  cb.input("p", DType::F32, p);
  const std::vector<float> s0(p.size(), kPoison), y0(uint64_t(kB) * kT * kD, kPoison);
  cb.input("s", DType::F32, s0);
  cb.input("y", DType::F32, y0);
  Expect es(s0), ey(y0);
  product(cb, es, qkv, qkv_side(0), qkv, qkv_side(1), s_side(), "qkv", "qkv", "s", kT, kT, kHd,
          matmul::kTransB | kCausalTiles, "S = Q K^T");
  product(cb, ey, p, s_side(), qkv, qkv_side(2), o_side(), "p", "qkv", "y", kT, kHd, kT, kKToRow,
          "O = P V");
  check(cb, "s", es, "S = Q K^T");
  check(cb, "y", ey, "O = P V");
  return cb.c;
}

// Backward into one dqkv [B T][3 d]: dV = P^T dO (TRANS_A, K_FROM_ROW, ACCUMULATE onto old
// values), dQ = dS K (K_TO_ROW); the k columns are no product's: they stay poison.
Case attention_backward(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  cb.c.description =
      "the fp32 trainer's backward attention products: dV += P^T dO with k from "
      "each tile's first row, dQ = dS K with k up to its last row (B 2, H 3, T 72, "
      "head_dim 8, in place in dqkv)";
  const auto qkv = binades(r, uint64_t(kB) * kT * 3 * kD);
  const auto dy = binades(r, uint64_t(kB) * kT * kD);
  const auto p = lower(r), ds = lower(r);
  std::vector<float> dqkv0(qkv.size(), kPoison);
  const auto old = binades(r, qkv.size());
  for (uint32_t z = 0; z < kB * kH; ++z)  // old values in the v columns (ACCUMULATE)
    for (uint32_t t = 0; t < kT; ++t)
      for (uint32_t c = 0; c < kHd; ++c) {
        const uint64_t at = qkv_side(2).at(z, t, c);
        dqkv0[at] = old[at];
      }
  cb.input("qkv", DType::F32, qkv);
  cb.input("dy", DType::F32, dy);
  cb.input("p", DType::F32, p);
  cb.input("ds", DType::F32, ds);
  cb.input("dqkv", DType::F32, dqkv0);
  Expect e(dqkv0);
  product(cb, e, p, s_side(), dy, o_side(), qkv_side(2), "p", "dy", "dqkv", kT, kHd, kT,
          matmul::kTransA | matmul::kAccumulate | kKFromRow, "dV += P^T dO");
  product(cb, e, ds, s_side(), qkv, qkv_side(1), qkv_side(0), "ds", "qkv", "dqkv", kT, kHd, kT,
          kKToRow, "dQ = dS K");
  check(cb, "dqkv", e, "dV += P^T dO, dQ = dS K");
  return cb.c;
}

// A row length that is not a multiple of 4: the kernel writes nothing.
Case unaligned_writes_nothing(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  cb.c.description = "lda = 10 (not a multiple of 4): nothing is written";
  cb.input("a", DType::F32, binades(r, 80));
  cb.input("b", DType::F32, binades(r, 64));
  const std::vector<float> c0(64, kPoison);
  cb.input("c", DType::F32, c0);
  auto& s = cb.dispatch(std::string(bm::name), "C = A B, lda 10");
  CaseBuilder::bind(s, bm::binding::bma, "a");
  CaseBuilder::bind(s, bm::binding::bmb, "b");
  CaseBuilder::bind(s, bm::binding::bmc, "c");
  bm::BmmDims u{};
  u.mnkf = {8, 8, 8, 0};
  u.ld = {10, 8, 8, 1};
  CaseBuilder::bind_uniform(s, bm::binding::bmdims, u);
  s.workgroups = std::array<uint32_t, 3>{1, 1, 1};
  cb.check_exact("c", Array::of(DType::F32, c0), "the kernel's shape rule: no element written");
  return cb.c;
}

void register_matmul_batched(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/matmul/cases_batched.cpp";
  const std::string k = "matmul/matmul_batched";
  g.push_back({k, "attention_forward", 4991, true, attention_forward, src});
  g.push_back({k, "attention_backward", 4992, false, attention_backward, src});
  g.push_back({k, "unaligned_writes_nothing", 4993, false, unaligned_writes_nothing, src});
}

}  // namespace

WGSLVK_REGISTER_GENERATORS(register_matmul_batched);

}  // namespace wgslvk::validate
