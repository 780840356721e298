// Golden cases of the matmul family (04_matmul.wgsl from TinyGPT's engineering log, and matmul_native.wgsl):
// per kernel a square case with values spanning binades (the randomized one), tall/skinny, wide,
// K = 1, odd sizes (65 x 129 x 33, from `generate` inputs), NaN/Inf propagation, a GPT layer's
// forward and backward chained (y = x W + b, dX = dY W^T, dW += X^T dY) and an explicit 2-D grid
// with a surplus workgroup. Expected values: wgsl_ports/matmul/reference.hpp; every check is in
// ULPs of the per-element magnitude S (bound_ulps), and the poisoned tail after C is checked
// unchanged. The >65535-workgroup grid is a test (tests/matmul/test_matmul_grid.cpp), not a golden:
// every such dispatch writes at least 16 x 65536 outputs, 4 MB of expected values.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "matmul/reference.hpp"
#include "wgslvk/kernels/matmul/matmul_bias_grad.hpp"
#include "wgslvk/kernels/matmul/matmul_native_splitk.hpp"
#include "wgslvk/kernels/matmul/matmul_splitk_reduce.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

using matmul::Dims;
using matmul::Kernel;
namespace mref = matmul::ref;
namespace mk = wgslvk::kernels::matmul;

constexpr uint32_t kTail = 16;  // poisoned elements after each C, checked unchanged
const float kPoison = std::bit_cast<float>(kPoison32);

bool vec4_kind(Kernel k) {
  return k == Kernel::Vec4 || k == Kernel::Vec4Readonly || k == Kernel::Native;
}

std::vector<float> binades(Rng& r, uint64_t n) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.log_uniform(-6, 6);  // |x| in [2^-6, 2^6), both signs
  return v;
}

// B as the kernel stores it: f32, or f16 pairs for matmul_tiled_f16 (then `used` is what it
// multiplies: the f16-rounded values).
void add_b(CaseBuilder& cb, Kernel k, const std::string& name, const std::vector<float>& b,
           const Dims& d, std::vector<float>& used) {
  if (k == Kernel::TiledF16) {
    auto w = matmul::pack_b_f16(b, d);
    cb.input(name, DType::U32, w);
    used = matmul::unpack_b_f16(w, d);
  } else {
    cb.input(name, DType::F32, b);
    used = b;
  }
}

// One product on kernel `k`, any of the family's variants: by binding number, since every variant
// (and a sweep's run-time variant) shares 04_matmul.wgsl's ABI a, b, c, bias, dims at 0-4 under
// names of its own (a4, na, ...); the build's ABI check holds each variant to it.
DispatchSpec& add_dispatch(CaseBuilder& cb, Kernel k, const Dims& d, const std::string& a,
                           const std::string& b, const std::string& c, const std::string& bias,
                           const std::string& label,
                           std::optional<std::array<uint32_t, 3>> grid = std::nullopt) {
  auto& s = cb.dispatch(matmul::qualified_name(k), label);
  CaseBuilder::bind(s, 0, a);
  CaseBuilder::bind(s, 1, b);
  CaseBuilder::bind(s, 2, c);
  CaseBuilder::bind(s, 3, bias);
  CaseBuilder::bind_values(s, 4, CaseBuilder::u32s({d.M, d.N, d.K, d.flags}));
  if (grid)
    s.workgroups = *grid;
  else
    s.workgroups_1d = matmul::workgroups(k, d);
  return s;
}

// C's buffer: c_old (accumulate) or poison, then kTail poison.
void add_c(CaseBuilder& cb, const std::string& name, const Dims& d,
           const std::vector<float>& c_old) {
  if (!d.accumulate()) {
    cb.output(name, DType::F32, d.c_count() + kTail);
    return;
  }
  std::vector<float> init(d.c_count() + kTail, kPoison);
  std::copy(c_old.begin(), c_old.end(), init.begin());
  cb.input(name, DType::F32, init);
}

// scalar_magnitude: measure against max_ij S_ij instead of a per-element file (the odd-size cases,
// to keep golden/ small): a looser but still valid bound, since ulp(max S) >= ulp(S_ij).
void check_c(CaseBuilder& cb, const std::string& name, const mref::Expected& e,
             const std::string& what, bool scalar_magnitude = false) {
  std::vector<float> value = e.value, mag(e.magnitude.size() + kTail, 0.0f);
  value.resize(e.value.size() + kTail, kPoison);
  for (size_t i = 0; i < e.magnitude.size(); ++i) mag[i] = float(e.magnitude[i]);
  Array expected = Array::of(DType::F32, value);
  auto& k = cb.check_ulp(
      name, expected, e.bound,
      what +
          ": an f32 sum of n terms (K products + bias + old C) in any order, FMA or not, is "
          "within gamma_n S of the exact value, S = sum |a_ik b_kj| + |bias| + |old C| (the "
          "magnitude file); reference exact in double rounded once: bound_ulps(n) = "
          "n * 17/16 + 1 ULPs of S (matmul/reference.hpp)",
      0, e.value.size());
  if (scalar_magnitude) {
    k.magnitude = CheckSpec::Magnitude::Scalar;
    k.magnitude_scalar = *std::max_element(mag.begin(), mag.end());
    k.reason += "; magnitude: the largest S of the case";
  } else {
    CaseBuilder::magnitude(k, mag);
  }
  cb.check_exact(name, expected, "the poisoned elements after C stay unchanged (stores are masked)",
                 e.value.size(), value.size());
}

// One dispatch of `k` on dims `d`, inputs from `r` (or `generate` buffers), checked.
Case single(uint64_t seed, Kernel k, Dims d, const std::string& what, bool generated = false,
            std::optional<std::array<uint32_t, 3>> grid = std::nullopt,
            void (*tweak)(std::vector<float>& a, std::vector<float>& b, const Dims& d) = nullptr) {
  Rng r(seed);
  CaseBuilder cb;
  cb.c.description = what + " (M=" + std::to_string(d.M) + " N=" + std::to_string(d.N) +
                     " K=" + std::to_string(d.K) + " flags=" + std::to_string(d.flags) + ")";
  std::vector<float> a, b, bias, c_old, b_used;
  if (generated) {  // uniform in [-2, 2) on a 2^-22 grid: products 0 or >= 2^-44, never subnormal
    Generate ga{"uniform", seed * 2 + 1, -2.0, 2.0, {}}, gb{"uniform", seed * 2 + 2, -2.0, 2.0, {}};
    auto gen = [](const Generate& g, uint64_t n) {
      std::vector<float> v(n);
      for (uint64_t i = 0; i < n; ++i)
        v[i] = float(g.lo + (g.hi - g.lo) * (double(splitmix64_at(g.seed, i) >> 40) * 0x1p-24));
      return v;
    };
    a = gen(ga, d.a_count());
    b = gen(gb, d.b_count());
    cb.generated("a", DType::F32, a.size(), ga);
    if (k == Kernel::TiledF16) {
      add_b(cb, k, "b", b, d, b_used);
    } else {
      cb.generated("b", DType::F32, b.size(), gb);
      b_used = b;
    }
  } else {
    a = binades(r, d.a_count());
    b = binades(r, d.b_count());
    if (tweak) tweak(a, b, d);
    cb.input("a", DType::F32, a);
    add_b(cb, k, "b", b, d, b_used);
  }
  if (d.bias()) bias = binades(r, d.N);
  if (d.accumulate()) c_old = binades(r, d.c_count());
  cb.input("bias", DType::F32, d.bias() ? bias : std::vector<float>{7.0f});
  add_c(cb, "c", d, c_old);
  add_dispatch(cb, k, d, "a", "b", "c", "bias", "C = op(A) op(B)", grid);
  check_c(cb, "c", mref::matmul(a, b_used, bias, c_old, d), what, generated);
  return cb.c;
}

// ---- the cases, per kernel ------------------------------------------------------------------------

// Randomized: a random shape up to 40 per side (vec4 kernels: row lengths multiples of 4), random
// flags, values spanning binades. The golden seed gives a square one.
template <Kernel K>
Case basic(uint64_t seed) {
  Rng r(seed ^ 0x6d6d);
  Dims d{24, 24, 24, 0};
  if (seed != 4000 + 100 * uint64_t(K) + 1) {
    d = {1 + r.below(40), 1 + r.below(40), 1 + r.below(40), r.below(16)};
    if (vec4_kind(K)) {
      d.K = 4 * (1 + r.below(10));
      d.N = 4 * (1 + r.below(10));
      if (d.trans_a()) d.M = 4 * (1 + r.below(10));
    }
  }
  return single(seed, K, d, "values spanning binades (2^-6..2^6, both signs)");
}
template <Kernel K>
Case tall_skinny(uint64_t seed) {
  return single(seed, K, {100, 4, 12, 0}, "tall/skinny: 100 rows over two 64-row tiles, N = 4");
}
template <Kernel K>
Case wide(uint64_t seed) {
  return single(seed, K, {4, 100, 12, 0}, "wide: 4 rows, 100 columns over several tiles");
}
template <Kernel K>
Case k_one(uint64_t seed) {
  Dims d = vec4_kind(K) ? Dims{20, 36, 1, matmul::kTransA} : Dims{21, 35, 1, 0};
  return single(seed, K, d, "K = 1: one product per element (vec4 kernels read A^T [1, M])");
}
template <Kernel K>
Case odd(uint64_t seed) {
  Dims d = vec4_kind(K) ? Dims{65, 132, 36, 0} : Dims{65, 129, 33, 0};
  return single(seed, K, d, "odd sizes: edge tiles in M, N and K (generate inputs)", true);
}
template <Kernel K>
Case nonfinite(uint64_t seed) {
  auto tweak = [](std::vector<float>& a, std::vector<float>& b, const Dims& d) {
    const float inf = std::numeric_limits<float>::infinity();
    a[3 * d.K + 5] = std::numeric_limits<float>::quiet_NaN();  // row 3 of C: NaN
    b[7 * d.N + 10] = inf;    // column 10: +-inf by sign of a[i, 7]
    b[9 * d.N + 13] = inf;    // column 13: +inf and -inf: NaN where
    b[11 * d.N + 13] = -inf;  //   a[i, 9], a[i, 11] share a sign
    a[14 * d.K + 7] = 0.0f;   // C[14, 10]: 0 * inf = NaN
  };
  return single(seed, K, {16, 20, 12, 0},
                "NaN/Inf: the plain IEEE sum: a NaN in A row 3 makes C row 3 NaN, +inf in B gives "
                "+-inf, opposite infinities and 0 * inf give NaN",
                false, std::nullopt, tweak);
}
template <Kernel K>
Case grid_3x2(uint64_t seed) {
  uint32_t t = matmul::tile_edge(K);
  Dims d = !t             ? Dims{5 * 256 - 8, 1, 1, 0}
           : vec4_kind(K) ? Dims{4 * t + 4, 4, 1, matmul::kTransA}
                          : Dims{4 * t + 1, 4, 1, 0};
  return single(seed, K, d,
                "five workgroups of work on an explicit 3 x 2 grid: flat_wg row y = 1 and one "
                "surplus workgroup that must return",
                false, std::array<uint32_t, 3>{3, 2, 1});
}

// A GPT layer: x [20, 12], W [12, 16], b [16], dY [20, 16]:
// y = x W + b; dX = dY W^T (TRANS_B); dW = dW_old + x^T dY (TRANS_A | ACCUMULATE).
template <Kernel K>
Case layer_fwd_bwd(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  const uint32_t rows = 20, d_in = 12, d_out = 16;
  Dims fwd = Dims::forward(rows, d_in, d_out, true), dx = Dims::grad_input(rows, d_in, d_out),
       dw = Dims::grad_weight(rows, d_in, d_out, true);
  cb.c.description =
      "a GPT layer's three products chained: y = x W + b, dX = dY W^T, "
      "dW += x^T dY (rows 20, d_in 12, d_out 16)";
  auto x = binades(r, uint64_t(rows) * d_in), w = binades(r, uint64_t(d_in) * d_out),
       bias = binades(r, d_out), dy = binades(r, uint64_t(rows) * d_out),
       dw_old = binades(r, uint64_t(d_in) * d_out);
  std::vector<float> w_used, dy_used, none;
  cb.input("x", DType::F32, x);
  add_b(cb, K, "w", w, fwd, w_used);  // [d_in, d_out]: the same packing serves dX's B^T
  cb.input("dy", DType::F32, dy);
  std::string dy_b = "dy";
  if (K == Kernel::TiledF16) {  // dW's B is dY: the f16 kernel takes it packed
    add_b(cb, K, "dy_f16", dy, dw, dy_used);
    dy_b = "dy_f16";
  } else {
    dy_used = dy;
  }
  cb.input("bias", DType::F32, bias);
  add_c(cb, "y", fwd, none);
  add_c(cb, "dx", dx, none);
  add_c(cb, "dw", dw, dw_old);
  add_dispatch(cb, K, fwd, "x", "w", "y", "bias", "y = x W + b");
  add_dispatch(cb, K, dx, "dy", "w", "dx", "bias", "dX = dY W^T");
  add_dispatch(cb, K, dw, "x", dy_b, "dw", "bias", "dW += x^T dY");
  check_c(cb, "y", mref::matmul(x, w_used, bias, none, fwd), "forward");
  check_c(cb, "dx", mref::matmul(dy, w_used, none, none, dx), "dX");
  check_c(cb, "dw", mref::matmul(x, dy_used, none, dw_old, dw), "dW");
  return cb.c;
}

// matmul_vec4 on a shape it cannot take (K = 33): writes nothing, C stays poison.
Case vec4_unaligned(uint64_t seed) {
  Rng r(seed);
  CaseBuilder cb;
  Dims d{24, 24, 33, 0};
  cb.c.description =
      "K = 33 is not a multiple of 4: matmul_vec4 returns before any load or store "
      "(the host picks matmul_blocked4 for such shapes)";
  cb.input("a", DType::F32, binades(r, 24 * 36));  // bound padded to whole vec4 rows
  cb.input("b", DType::F32, binades(r, 36 * 24));
  cb.input("bias", DType::F32, std::vector<float>{7.0f});
  cb.output("c", DType::F32, d.c_count());
  add_dispatch(cb, Kernel::Vec4, d, "a", "b", "c", "bias", "unaligned K");
  cb.check_exact("c", Array::of(DType::F32, std::vector<float>(d.c_count(), kPoison)),
                 "the kernel's alignment guard: nothing written");
  return cb.c;
}

// matmul_bias_grad: db (+)= column sums of dY, bit exact against the kernel's own order for the
// case's L (dims.w: row lanes per column; 0 = 4, the first form).
Case bias_grad_case(uint64_t seed, bool accumulate, uint32_t lanes = 0) {
  Rng r(seed);
  CaseBuilder cb;
  uint32_t M = 5 + r.below(60), N = 1 + r.below(100);
  if (seed == 4901 || seed == 4902) M = 41, N = 70;  // two workgroups, the second partial
  if (seed == 4903) M = 300, N = 9;                  // 64 lanes: 3 workgroups of 4 columns
  if (seed == 4904) M = 41, N = 70;                  // 16 lanes: 5 workgroups of 16 columns
  const uint32_t L = lanes == 0 ? 4 : lanes;
  cb.c.description = std::string("db") + (accumulate ? " += " : " = ") + "column sums of dY [" +
                     std::to_string(M) + ", " + std::to_string(N) + "]: " + std::to_string(L) +
                     " row lanes summed in order, then " +
                     (L == 4 ? std::string("(p0 + p1) + (p2 + p3)") : "an adjacent-pair tree");
  auto dy = binades(r, uint64_t(M) * N), db_old = binades(r, N);
  cb.input("dy", DType::F32, dy);
  std::vector<float> init(N + kTail, kPoison);
  if (accumulate) std::copy(db_old.begin(), db_old.end(), init.begin());
  cb.input("db", DType::F32, init);
  auto& s = cb.dispatch(mk::matmul_bias_grad::Kernel{}, "column sums");
  CaseBuilder::bind(s, mk::matmul_bias_grad::binding::dy, "dy");
  CaseBuilder::bind(s, mk::matmul_bias_grad::binding::db, "db");
  CaseBuilder::bind_uniform(s, mk::matmul_bias_grad::binding::bg_dims,
                            {M, N, accumulate ? uint32_t(matmul::kAccumulate) : 0u, lanes});
  s.workgroups_1d = matmul::bias_grad_workgroups(N, lanes);
  auto exact = mref::bias_grad_kernel_order(dy, db_old, M, N, accumulate, lanes);
  exact.resize(N + kTail, kPoison);
  cb.check_exact(
      "db", Array::of(DType::F32, exact),
      "fixed summation order, f32 adds only (no contraction possible): bit exact against "
      "bias_grad_kernel_order (round-to-nearest-even, no flushing); the tail stays poison");
  return cb.c;
}
Case bias_grad_basic(uint64_t seed) { return bias_grad_case(seed, false); }
Case bias_grad_accumulate(uint64_t seed) { return bias_grad_case(seed, true); }
Case bias_grad_lanes64(uint64_t seed) { return bias_grad_case(seed, false, 64); }
Case bias_grad_lanes16_accumulate(uint64_t seed) { return bias_grad_case(seed, true, 16); }

// matmul_native_n64 (a 128 x 64-tile build of matmul_native.comp) and matmul_native_k16 (ours, in
// the WGSL: 128 x 64 tiles, K stages of 16): matmul_native's cases with the kernel renamed and its
// own dispatch, ceil(M/128) * ceil(N/64) workgroups (read back from each dispatch's dims uniform),
// so the 128 x 64 tiles' edges (and k16's stages of 16) are exercised on the same shapes.
Case retile_128x64(Case c, const char* kernel) {
  for (auto& d : c.dispatches) {
    d.kernel = kernel;
    for (const auto& b : d.bindings)
      if (b.binding == 4 && b.is_inline) {
        uint64_t M = b.inline_values["u32"][0].get<uint64_t>(),
                 N = b.inline_values["u32"][1].get<uint64_t>();
        uint64_t wgs = ((M + 127) / 128) * ((N + 63) / 64);
        if (d.workgroups) {  // an explicit grid with surplus workgroups: keep its shape, cover wgs
          auto& w = *d.workgroups;
          while (uint64_t(w[0]) * w[1] < wgs) ++w[1];
        } else {
          d.workgroups_1d = wgs;
        }
      }
  }
  return c;
}
template <Case (*Make)(uint64_t)>
Case native_n64(uint64_t seed) {
  return retile_128x64(Make(seed), "matmul/matmul_native_n64");
}
template <Case (*Make)(uint64_t)>
Case native_k16(uint64_t seed) {
  return retile_128x64(Make(seed), "matmul/matmul_native_k16");
}

// matmul_native_splitk + matmul_splitk_reduce (ours): matmul_native's cases with every native
// dispatch replaced by the split product (S = 3, or 2 where K has only two stages of 8) into its
// own poisoned partials buffer and the reduce into the same C. The checks are native's: the bound
// holds for any summation order (reference.hpp), the tails stay poison.
template <Case (*Make)(uint64_t)>
Case native_splitk(uint64_t seed) {
  CaseBuilder cb;
  cb.c = Make(seed);
  cb.c.description += "; split-K: partials over K slices, then the fixed-order reduce";
  std::vector<DispatchSpec> old = std::move(cb.c.dispatches);
  cb.c.dispatches.clear();
  int n = 0;
  for (const auto& d : old) {
    std::string a, b, c, bias;
    Dims dims;
    for (const auto& x : d.bindings) {
      if (x.binding == 0) a = x.buffer;
      if (x.binding == 1) b = x.buffer;
      if (x.binding == 2) c = x.buffer;
      if (x.binding == 3) bias = x.buffer;
      if (x.binding == 4 && x.is_inline) {
        const auto& u = x.inline_values["u32"];
        dims = {u[0].get<uint32_t>(), u[1].get<uint32_t>(), u[2].get<uint32_t>(),
                u[3].get<uint32_t>()};
      }
    }
    uint32_t S = 3;
    while (S > 2 && !matmul::splitk_supported(dims, S)) --S;
    if (!matmul::splitk_supported(dims, S))
      throw std::logic_error("native_splitk: a shape with fewer than two K stages");
    const std::string part = "part" + std::to_string(n++);
    cb.output(part, DType::F32, matmul::splitk_partial_floats(dims, S));
    namespace sk = mk::matmul_native_splitk;
    auto& s1 = cb.dispatch(sk::Kernel{}, d.label + " (partials, S = " + std::to_string(S) + ")");
    CaseBuilder::bind(s1, sk::binding::na, a);
    CaseBuilder::bind(s1, sk::binding::nb, b);
    CaseBuilder::bind(s1, sk::binding::nc, part);
    CaseBuilder::bind_uniform(s1, sk::binding::ndims,
                              {dims.M, dims.N, dims.K, matmul::splitk_flags(dims, S)});
    s1.workgroups_1d = matmul::splitk_workgroups(dims, S);
    namespace rk = mk::matmul_splitk_reduce;
    auto& s2 = cb.dispatch(rk::Kernel{}, d.label + " (reduce)");
    CaseBuilder::bind(s2, rk::binding::rk_part, part);
    CaseBuilder::bind(s2, rk::binding::rk_c, c);
    CaseBuilder::bind(s2, rk::binding::rk_bias, bias);
    CaseBuilder::bind_uniform(
        s2, rk::binding::rk_dims,
        {dims.M, dims.N, S, dims.flags & uint32_t(matmul::kAddBias | matmul::kAccumulate)});
    s2.workgroups_1d = matmul::splitk_reduce_workgroups(dims);
  }
  return cb.c;
}

// matmul_splitk_reduce alone: S slices of partials [S][M][N] (values spanning binades), C =
// ((p0 + p1) + p2) + bias, then old C + that; f32 adds only, in that order: bit exact. M x N = 350
// elements (two workgroups, the second partial); the tail of C stays poison.
Case splitk_reduce_case(uint64_t seed, uint32_t flags) {
  Rng r(seed);
  CaseBuilder cb;
  const uint32_t M = 5, N = 70, S = 3;
  const bool bias = flags & matmul::kAddBias, acc = flags & matmul::kAccumulate;
  cb.c.description = "C = ((p0 + p1) + p2)" + std::string(bias ? " + bias" : "") +
                     (acc ? ", then old C + that" : "") +
                     " over 3 slices of 5 x 70 partials, in that order (f32 adds: bit exact)";
  auto part = binades(r, uint64_t(S) * M * N), b = binades(r, N), c_old = binades(r, M * N);
  cb.input("part", DType::F32, part);
  cb.input("bias", DType::F32, b);
  std::vector<float> init(M * N + kTail, kPoison);
  if (acc) std::copy(c_old.begin(), c_old.end(), init.begin());
  cb.input("c", DType::F32, init);
  namespace rk = mk::matmul_splitk_reduce;
  auto& s = cb.dispatch(rk::Kernel{}, "reduce 3 slices");
  CaseBuilder::bind(s, rk::binding::rk_part, "part");
  CaseBuilder::bind(s, rk::binding::rk_c, "c");
  CaseBuilder::bind(s, rk::binding::rk_bias, "bias");
  CaseBuilder::bind_uniform(s, rk::binding::rk_dims, {M, N, S, flags});
  s.workgroups_1d = (M * N + 255) / 256;
  std::vector<float> want(M * N + kTail, kPoison);
  for (uint32_t i = 0; i < M * N; ++i) {
    float o = part[i];
    for (uint32_t p = 1; p < S; ++p) o = o + part[p * M * N + i];
    if (bias) o = o + b[i % N];
    if (acc) o = c_old[i] + o;
    want[i] = o;
  }
  cb.check_exact("c", Array::of(DType::F32, want),
                 "fixed order, f32 adds only (no contraction possible): bit exact "
                 "(round-to-nearest-even, no flushing); the tail stays poison");
  return cb.c;
}
Case splitk_reduce_plain(uint64_t seed) { return splitk_reduce_case(seed, 0); }
Case splitk_reduce_bias_accumulate(uint64_t seed) {
  return splitk_reduce_case(seed, matmul::kAddBias | matmul::kAccumulate);
}

template <Kernel K>
void add_kernel(std::vector<Generator>& g, const std::string& src) {
  const std::string kn = matmul::qualified_name(K);
  const uint64_t s = 4000 + 100 * uint64_t(K);
  g.push_back({kn, "basic", s + 1, true, basic<K>, src});
  g.push_back({kn, "tall_skinny", s + 2, false, tall_skinny<K>, src});
  g.push_back({kn, "wide", s + 3, false, wide<K>, src});
  g.push_back({kn, "k_one", s + 4, false, k_one<K>, src});
  g.push_back({kn, "odd_sizes", s + 5, false, odd<K>, src});
  g.push_back({kn, "nonfinite", s + 6, false, nonfinite<K>, src});
  g.push_back({kn, "layer_fwd_bwd", s + 7, false, layer_fwd_bwd<K>, src});
  g.push_back({kn, "grid_2d", s + 8, false, grid_3x2<K>, src});
}

}  // namespace

void register_matmul(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/matmul/cases.cpp";
  add_kernel<Kernel::Naive>(g, src);
  add_kernel<Kernel::Tiled>(g, src);
  add_kernel<Kernel::Blocked4>(g, src);
  add_kernel<Kernel::Vec4>(g, src);
  g.push_back({"matmul/matmul_vec4", "unaligned_writes_nothing", 4309, false, vec4_unaligned, src});
  // The seed's broken integration is correct under layout "auto" (the goldens' layout).
  g.push_back(
      {"matmul/matmul_vec4_readonly", "basic", 4401, true, basic<Kernel::Vec4Readonly>, src});
  add_kernel<Kernel::Blocked8>(g, src);
  add_kernel<Kernel::TiledF16>(g, src);
  add_kernel<Kernel::Native>(g, src);
  g.push_back(
      {"matmul/matmul_native_n64", "basic", 4951, true, native_n64<basic<Kernel::Native>>, src});
  g.push_back(
      {"matmul/matmul_native_n64", "odd_sizes", 4955, false, native_n64<odd<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_native_n64", "layer_fwd_bwd", 4957, false,
               native_n64<layer_fwd_bwd<Kernel::Native>>, src});
  g.push_back(
      {"matmul/matmul_native_k16", "basic", 4981, true, native_k16<basic<Kernel::Native>>, src});
  g.push_back(
      {"matmul/matmul_native_k16", "odd_sizes", 4985, false, native_k16<odd<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_native_k16", "nonfinite", 4986, false,
               native_k16<nonfinite<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_native_k16", "layer_fwd_bwd", 4987, false,
               native_k16<layer_fwd_bwd<Kernel::Native>>, src});
  // basic's square 24^3 (matmul_native's golden seed; other seeds draw shapes with K = 4)
  g.push_back({"matmul/matmul_native_splitk", "basic", 4701, false,
               native_splitk<basic<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_native_splitk", "odd_sizes", 4965, false,
               native_splitk<odd<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_native_splitk", "nonfinite", 4966, false,
               native_splitk<nonfinite<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_native_splitk", "layer_fwd_bwd", 4967, false,
               native_splitk<layer_fwd_bwd<Kernel::Native>>, src});
  g.push_back({"matmul/matmul_splitk_reduce", "plain", 4971, true, splitk_reduce_plain, src});
  g.push_back({"matmul/matmul_splitk_reduce", "bias_accumulate", 4972, false,
               splitk_reduce_bias_accumulate, src});
  g.push_back({"matmul/matmul_bias_grad", "basic", 4901, true, bias_grad_basic, src});
  g.push_back({"matmul/matmul_bias_grad", "accumulate", 4902, false, bias_grad_accumulate, src});
  g.push_back({"matmul/matmul_bias_grad", "lanes64", 4903, true, bias_grad_lanes64, src});
  g.push_back({"matmul/matmul_bias_grad", "lanes16_accumulate", 4904, false,
               bias_grad_lanes16_accumulate, src});
}

WGSLVK_REGISTER_GENERATORS(register_matmul);

}  // namespace wgslvk::validate
