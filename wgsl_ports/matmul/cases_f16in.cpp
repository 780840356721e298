// Golden cases of matmul_f16in.wgsl (ours, issue 24: the mixed-precision trainer's kernels on a
// device without subgroup matrices).
//   matmul_f16in: f16 operands spanning binades (2^-6..2^6, both signs; never f16 subnormals,
//     which a device may flush when it widens them to f32), every flag (TRANS_A, TRANS_B,
//     ACCUMULATE), edge tiles in M, N and K, a GPT layer's three products chained. Expected:
//     matmul/reference.hpp's double product of the f16 values (the same values widened), within
//     its bound_ulps(n) = n * 17/16 + 1 ULPs of S = sum |a b| + |old C|, n = K (+1 with
//     ACCUMULATE): each f16 x f16 product is exact in f32, so the only errors are the n roundings
//     of the running f32 sum. The poisoned tail after C stays unchanged.
//   cast_f16: every class of f32 input (normal f16 values and ties between two of them, the
//     subnormal range and its ties, the overflow threshold 65520 and its neighbours, +-inf, NaN,
//     +-0, random values over 2^-30..2^17), expected bit-exact: core's f32_to_f16_bits (round to
//     nearest, ties to even; NaN -> the quiet NaN 0x7e00 with its sign) and the count of outputs
//     that are not finite.
//   scale_f32: x * 2^-10, exact (powers of two; no result below the normal range), +-inf and NaN
//     through.
#include <bit>
#include <cmath>
#include <limits>

#include "matmul/reference.hpp"
#include "wgslvk/kernels/matmul/cast_f16.hpp"
#include "wgslvk/kernels/matmul/matmul_f16in.hpp"
#include "wgslvk/kernels/matmul/scale_f32.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

using matmul::Dims;
namespace mref = matmul::ref;
namespace mk = wgslvk::kernels::matmul;

constexpr uint32_t kTail = 16;  // poisoned elements after each output, checked unchanged
const float kPoison = std::bit_cast<float>(kPoison32);
constexpr uint16_t kPoison16 = 0x5a5a;

// f16 values spanning binades, as bits, padded with zeros to whole vec4s (the ABI).
std::vector<uint16_t> f16_binades(Rng& r, uint64_t n) {
  std::vector<uint16_t> h((n + 3) / 4 * 4, 0);
  for (uint64_t i = 0; i < n; ++i) h[i] = f32_to_f16_bits(r.log_uniform(-6, 6));
  return h;
}
std::vector<float> widen(const std::vector<uint16_t>& h, uint64_t n) {
  std::vector<float> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = f16_bits_to_f32(h[i]);
  return v;
}
std::vector<float> f32_binades(Rng& r, uint64_t n) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.log_uniform(-6, 6);
  return v;
}

void add_product(CaseBuilder& cb, const Dims& d, const std::string& a, const std::string& b,
                 const std::string& c, const std::string& label) {
  namespace f16in = mk::matmul_f16in;
  auto& s = cb.dispatch(f16in::Kernel{}, label);
  CaseBuilder::bind(s, f16in::binding::fa_in, a);
  CaseBuilder::bind(s, f16in::binding::fb_in, b);
  CaseBuilder::bind(s, f16in::binding::fc_out, c);
  CaseBuilder::bind_uniform(s, f16in::binding::fdims, {d.M, d.N, d.K, d.flags});
  s.workgroups = std::array<uint32_t, 3>{(d.N + 31) / 32, (d.M + 31) / 32, 1};
}

// C's buffer: the old C (ACCUMULATE) or poison, then kTail poison.
void add_c(CaseBuilder& cb, const std::string& name, const Dims& d,
           const std::vector<float>& c_old) {
  std::vector<float> init(d.c_count() + kTail, kPoison);
  if (d.accumulate()) std::copy(c_old.begin(), c_old.end(), init.begin());
  cb.input(name, DType::F32, init);
}

void check_c(CaseBuilder& cb, const std::string& name, const mref::Expected& e,
             const std::string& what) {
  std::vector<float> value = e.value, mag(e.magnitude.size());
  value.resize(e.value.size() + kTail, kPoison);
  for (size_t i = 0; i < e.magnitude.size(); ++i) mag[i] = float(e.magnitude[i]);
  mag.resize(value.size(), 0.0f);
  Array expected = Array::of(DType::F32, value);
  auto& k = cb.check_ulp(
      name, expected, e.bound,
      what +
          ": each f16 x f16 product is exact in f32, so C is an f32 sum of n exact terms (K "
          "products + old C), within gamma_n S of the exact value, S = sum |a_ik b_kj| + |old C| "
          "(the magnitude file); reference exact in double rounded once: bound_ulps(n) = n * "
          "17/16 + 1 ULPs of S (matmul/reference.hpp)",
      0, e.value.size());
  CaseBuilder::magnitude(k, mag);
  cb.check_exact(name, expected, "the poisoned elements after C stay unchanged (stores are masked)",
                 e.value.size(), value.size());
}

Case product(uint64_t seed, Dims d, const std::string& what) {
  Rng r(seed);
  CaseBuilder cb;
  cb.c.description = what + " (M=" + std::to_string(d.M) + " N=" + std::to_string(d.N) +
                     " K=" + std::to_string(d.K) + " flags=" + std::to_string(d.flags) + ")";
  auto a = f16_binades(r, d.a_count()), b = f16_binades(r, d.b_count());
  std::vector<float> c_old, none;
  if (d.accumulate()) c_old = f32_binades(r, d.c_count());
  cb.input("a", DType::F16, a);
  cb.input("b", DType::F16, b);
  add_c(cb, "c", d, c_old);
  add_product(cb, d, "a", "b", "c", "C (+)= op(A) op(B), f16 in, f32 out");
  check_c(cb, "c", mref::matmul(widen(a, d.a_count()), widen(b, d.b_count()), none, c_old, d),
          what);
  return cb.c;
}

// Randomized: a random shape up to 40 per side and random flags (TRANS_A, TRANS_B, ACCUMULATE);
// the golden seed gives a square 24^3.
Case basic(uint64_t seed) {
  Rng r(seed ^ 0x6631);
  Dims d{24, 24, 24, 0};
  if (seed != 4601)
    d = {1 + r.below(40), 1 + r.below(40), 1 + r.below(40),
         r.below(16) & (matmul::kTransA | matmul::kTransB | matmul::kAccumulate)};
  return product(seed, d, "f16 values spanning binades (2^-6..2^6, both signs)");
}
Case edges_trans_b(uint64_t seed) {
  return product(seed, {37, 50, 45, matmul::kTransB},
                 "edge tiles in M, N and K, B stored [N, K] (TRANS_B)");
}
Case edges_trans_a_accumulate(uint64_t seed) {
  return product(seed, {65, 129, 33, matmul::kTransA | matmul::kAccumulate},
                 "edge tiles, A stored [K, M] (TRANS_A), added to the old C (ACCUMULATE)");
}
Case k_one(uint64_t seed) {
  return product(seed, {21, 35, 1, 0}, "K = 1: one product per element");
}

// y = x W, dX = dY W^T, dW += x^T dY, chained on the same f16 buffers as the trainer binds them.
Case layer_fwd_bwd(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  const uint32_t rows = 20, d_in = 12, d_out = 16;
  Dims fwd = Dims::forward(rows, d_in, d_out), dx = Dims::grad_input(rows, d_in, d_out),
       dw = Dims::grad_weight(rows, d_in, d_out, true);
  cb.c.description =
      "a GPT layer's three products chained: y = x W, dX = dY W^T, dW += x^T dY "
      "(rows 20, d_in 12, d_out 16; f16 x, W, dY)";
  auto x = f16_binades(r, uint64_t(rows) * d_in), w = f16_binades(r, uint64_t(d_in) * d_out),
       dy = f16_binades(r, uint64_t(rows) * d_out);
  auto dw_old = f32_binades(r, uint64_t(d_in) * d_out);
  std::vector<float> none;
  cb.input("x", DType::F16, x);
  cb.input("w", DType::F16, w);
  cb.input("dy", DType::F16, dy);
  add_c(cb, "y", fwd, none);
  add_c(cb, "dx", dx, none);
  add_c(cb, "dw", dw, dw_old);
  add_product(cb, fwd, "x", "w", "y", "y = x W");
  add_product(cb, dx, "dy", "w", "dx", "dX = dY W^T");
  add_product(cb, dw, "x", "dy", "dw", "dW += x^T dY");
  auto xv = widen(x, fwd.a_count()), wv = widen(w, fwd.b_count()), dyv = widen(dy, dx.a_count());
  check_c(cb, "y", mref::matmul(xv, wv, none, none, fwd), "forward");
  check_c(cb, "dx", mref::matmul(dyv, wv, none, none, dx), "dX");
  check_c(cb, "dw", mref::matmul(xv, dyv, none, dw_old, dw), "dW");
  return cb.c;
}

// ---- cast_f16 ----

std::vector<float> cast_inputs(Rng& r, bool golden) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          65504.0f,
                          -65504.0f,
                          65519.996f,
                          65520.0f,
                          -65520.0f,
                          70000.0f,
                          1e30f,
                          inf,
                          -inf,
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::nanf("0x123"),
                          0x1p-14f,
                          0x1p-24f,
                          -0x1p-24f,
                          0x1p-25f,
                          -0x1p-25f,
                          0x1.8p-25f,
                          0x1.8p-24f,
                          0x1.4p-24f,
                          0x1.cp-24f,
                          0x1.ffep-15f,
                          0x1.fffp-15f,
                          0x1.ffffffp-15f,
                          0x1p-30f,
                          1e-40f,
                          -1e-45f};
  // ties between neighbouring f16 values (normal and subnormal), and their f32 neighbours
  for (int i = 0; i < 48; ++i) {
    uint16_t h = uint16_t(r.below(0x7bff));  // a finite f16 below the largest
    double lo = f16_bits_to_f32(h), hi = f16_bits_to_f32(uint16_t(h + 1));
    float mid = float((lo + hi) / 2);  // exact in f32
    float s = r.below(2) ? -1.0f : 1.0f;
    v.push_back(s * mid);
    v.push_back(s * std::nextafter(mid, 0.0f));
    v.push_back(s * std::nextafter(mid, inf));
  }
  const int random = golden ? 200 : 1000 + int(r.below(1000));
  for (int i = 0; i < random; ++i) {
    float x = float(std::ldexp(1.0 + r.unit(), int(r.below(48)) - 30));
    v.push_back(r.below(2) ? -x : x);
  }
  while (v.size() % 4) v.push_back(float(r.unit()));
  return v;
}

Case cast_case(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  const bool golden = seed == 4611;
  auto in = cast_inputs(r, golden);
  const uint32_t n = uint32_t(in.size()), n4 = n / 4;
  cb.c.description = "f32 -> f16, round to nearest, ties to even, computed on the bits (" +
                     std::to_string(n) +
                     " values: ties, subnormals, the overflow threshold, "
                     "+-inf, NaN, random magnitudes 2^-30..2^17)";
  std::vector<uint16_t> expected(n + kTail, kPoison16);
  uint32_t overflow = 0;
  for (uint32_t i = 0; i < n; ++i) {
    expected[i] = f32_to_f16_bits(in[i]);
    if ((expected[i] & 0x7c00u) == 0x7c00u) ++overflow;
  }
  cb.input("in", DType::F32, in);
  cb.input("out", DType::F16, std::vector<uint16_t>(n + kTail, kPoison16));
  cb.input("overflow", DType::U32, std::vector<uint32_t>{0});
  namespace cs = mk::cast_f16;
  auto& s = cb.dispatch(cs::Kernel{}, "out = f16(in), RNE on the bits");
  CaseBuilder::bind(s, cs::binding::cs_in, "in");
  CaseBuilder::bind(s, cs::binding::cs_out, "out");
  CaseBuilder::bind(s, cs::binding::cs_overflow, "overflow");
  CaseBuilder::bind_uniform(s, cs::binding::cs_dims, {n4, 0, 0, 0});
  s.workgroups_1d = (n4 + 255) / 256;
  Array e = Array::of(DType::F16, expected);
  cb.check_exact("out", e,
                 "round to nearest, ties to even (wgslvk::f32_to_f16_bits); overflow to +-inf, "
                 "NaN to the quiet NaN 0x7e00 with its sign: bit-exact",
                 0, n);
  cb.check_exact("out", e, "the poisoned elements after the last vec4 stay unchanged", n,
                 n + kTail);
  cb.check_exact("overflow", Array::of(DType::U32, std::vector<uint32_t>{overflow}),
                 "one count per output that is not finite (+-inf or NaN)");
  return cb.c;
}

// ---- scale_f32 ----

Case scale_case(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x;
  const uint32_t n = seed == 4621 ? 1024 : 4 * (1 + r.below(2000));
  for (uint32_t i = 0; i < n; ++i) x.push_back(r.log_uniform(-100, 100));
  x[1] = inf;
  x[2] = -inf;
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[5] = 0.0f;
  const float s = 0x1p-10f;
  std::vector<float> init = x, expected(n + kTail, kPoison);
  init.resize(n + kTail, kPoison);
  for (uint32_t i = 0; i < n; ++i) expected[i] = x[i] * s;
  cb.c.description = "x *= 2^-10 over " + std::to_string(n) +
                     " values spanning 2^-100..2^100 (the gradients' loss-scale removal)";
  cb.input("x", DType::F32, init);
  namespace sc = mk::scale_f32;
  auto& d = cb.dispatch(sc::Kernel{}, "x *= s");
  CaseBuilder::bind(d, sc::binding::sx, "x");
  CaseBuilder::bind_uniform(d, sc::binding::sdims, {n / 4, std::bit_cast<uint32_t>(s), 0, 0});
  d.workgroups_1d = (n / 4 + 255) / 256;
  Array e = Array::of(DType::F32, expected);
  cb.check_ulp("x", e, 0,
               "a product by a power of two is exact while it stays in the normal range (it "
               "does here): 0 ULP; +-inf go through, a NaN stays a NaN (its payload is the "
               "device's)",
               0, n);
  cb.check_exact("x", e, "the poisoned elements after x stay unchanged", n, n + kTail);
  return cb.c;
}

void register_matmul_f16in(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/matmul/cases_f16in.cpp";
  const std::string mm = "matmul/matmul_f16in";
  g.push_back({mm, "basic", 4601, true, basic, src});
  g.push_back({mm, "edges_trans_b", 4602, false, edges_trans_b, src});
  g.push_back({mm, "edges_trans_a_accumulate", 4603, false, edges_trans_a_accumulate, src});
  g.push_back({mm, "k_one", 4604, false, k_one, src});
  g.push_back({mm, "layer_fwd_bwd", 4605, false, layer_fwd_bwd, src});
  g.push_back({"matmul/cast_f16", "classes", 4611, true, cast_case, src});
  g.push_back({"matmul/scale_f32", "basic", 4621, true, scale_case, src});
}

}  // namespace

WGSLVK_REGISTER_GENERATORS(register_matmul_f16in);

}  // namespace wgslvk::validate
