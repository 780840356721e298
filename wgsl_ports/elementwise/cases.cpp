// Golden cases of 04_elementwise.wgsl: GELU forward/backward over binades up to |x| = 1e4 and the
// non-finite values, residual add (both forms), position-embedding add; odd row counts,
// d = 80 / 96 / 768, poisoned tails, 2-D grids (one over 4.2M elements from `generate` buffers).
// Expected values and bounds: wgsl_ports/elementwise/reference.hpp.
#include <algorithm>
#include <cmath>

#include "elementwise/reference.hpp"
#include "wgslvk/kernels/elementwise/gelu_backward.hpp"
#include "wgslvk/kernels/elementwise/gelu_forward.hpp"
#include "wgslvk/kernels/elementwise/pos_embed_add.hpp"
#include "wgslvk/kernels/elementwise/residual_add.hpp"
#include "wgslvk/kernels/elementwise/residual_add_inplace.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

namespace eref = wgslvk::elementwise::ref;

constexpr uint32_t kTail = 8;  // poisoned floats past every output (two vec4s)

void check(CaseBuilder& b, const std::string& buf, const eref::Expected& e, uint64_t tail,
           const std::string& reason) {
  b.check_expected(buf, e, tail, reason, "past n4 vec4s nothing is written: the poison stays");
}

void check_exact_tail(CaseBuilder& b, const std::string& buf, std::vector<float> v, uint64_t tail,
                      const std::string& reason) {
  const uint64_t n = v.size();
  v.resize(n + tail, f32_bits(kPoison32));
  auto arr = Array::of(DType::F32, v);
  b.check_exact(buf, arr, reason, 0, n);
  if (tail)
    b.check_exact(buf, arr, "past n4 vec4s nothing is written: the poison stays", n, n + tail);
}

// GELU inputs: mostly |x| < 8 where gelu bends, then binades up to 2^13, and the named points.
std::vector<float> gelu_inputs(Rng& r, uint64_t n, bool nonfinite) {
  std::vector<float> x(n);
  for (auto& v : x) v = r.below(4) ? r.uniform(-8, 8) : r.log_uniform(-10, 14);
  const float named[] = {0.0f,  -0.0f, 1e4f,   -1e4f, 1e3f,  -1e3f, 100.0f, -100.0f, 9.7f,
                         -9.7f, 10.0f, -10.0f, 5.5f,  -5.5f, 0.5f,  -0.75f, 1e-6f,   -1e-6f};
  for (size_t k = 0; k < std::size(named) && k * 3 < n; ++k) x[k * 3] = named[k];
  if (nonfinite && n > 64) {
    x[1] = INFINITY;
    x[4] = -INFINITY;
    x[7] = f32_bits(0x7fc00000u);
  }
  return x;
}

namespace ks = wgslvk::kernels::elementwise;

// Every kernel's uniform is a vec4<u32>: (n4, d4, T, _), only pos_embed_add reads d4 and T.
std::array<uint32_t, 4> dims(uint64_t n4, uint32_t d4 = 0, uint32_t T = 0) {
  return {uint32_t(n4), d4, T, 0};
}

void set_grid(DispatchSpec& d, uint64_t n, const std::array<uint32_t, 3>* grid) {
  if (grid)
    d.workgroups = *grid;
  else
    d.workgroups_1d = elementwise::workgroups_for(n);
}

Case gelu_case(uint64_t seed, bool backward, uint32_t rows, uint32_t d, bool nonfinite,
               const std::array<uint32_t, 3>* grid, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  const uint64_t n = uint64_t(rows) * d;
  auto x = gelu_inputs(r, n, nonfinite);
  b.input("x", DType::F32, x);
  if (!backward) {
    b.output("y", DType::F32, n + kTail);
    auto& k = b.dispatch(ks::gelu_forward::Kernel{});
    CaseBuilder::bind(k, ks::gelu_forward::binding::gf_x, "x");
    CaseBuilder::bind(k, ks::gelu_forward::binding::gf_y, "y");
    CaseBuilder::bind_uniform(k, ks::gelu_forward::binding::gf_dims, dims(n / 4));
    set_grid(k, n, grid);
    check(b, "y", eref::gelu_forward_expected(x), kTail,
          "gelu within 12 ULPs of |x| (kGeluForwardUlps: WGSL exp's 3 + 2|arg| ULP weighted by "
          "e/(1+e)^2, u's rounding, the division's 2.5 ULP); +-inf -> +-inf, NaN -> NaN");
    return b.c;
  }
  std::vector<float> dy(n);
  for (auto& v : dy) v = r.log_uniform(-4, 2);
  b.input("dy", DType::F32, dy);
  b.output("dx", DType::F32, n + kTail);
  auto& k = b.dispatch(ks::gelu_backward::Kernel{});
  CaseBuilder::bind(k, ks::gelu_backward::binding::gb_x, "x");
  CaseBuilder::bind(k, ks::gelu_backward::binding::gb_dy, "dy");
  CaseBuilder::bind(k, ks::gelu_backward::binding::gb_dx, "dx");
  CaseBuilder::bind_uniform(k, ks::gelu_backward::binding::gb_dims, dims(n / 4));
  set_grid(k, n, grid);
  check(b, "dx", eref::gelu_backward_expected(x, dy), kTail,
        "dy * gelu'(x) within 28 + 22 min(|u|, 40) ULPs of |dy| (s + |x s(1-s) du|) (WGSL exp's "
        "accuracy grows with |arg|; reference.hpp); exactly dy or 0 past |u| = 40");
  return b.c;
}

std::vector<float> act(Rng& r, uint64_t n) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.log_uniform(-8, 4);
  return v;
}

Case residual_case(uint64_t seed, bool inplace, uint32_t rows, uint32_t d,
                   const std::array<uint32_t, 3>* grid, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  const uint64_t n = uint64_t(rows) * d;
  auto a = act(r, n), bb = act(r, n);
  for (uint64_t i = 0; i < n; i += 7) bb[i] = -a[i];  // exact cancellation: +0.0
  auto want = eref::residual_add_f32(a, bb);
  const char* reason = "one f32 add, correctly rounded in WGSL: bit exact (kAddUlps = 0)";
  if (inplace) {
    std::vector<float> a_t = a;
    a_t.resize(n + kTail, f32_bits(kPoison32));
    b.input("a", DType::F32, a_t);
    b.input("b", DType::F32, bb);
    auto& k = b.dispatch(ks::residual_add_inplace::Kernel{});
    CaseBuilder::bind(k, ks::residual_add_inplace::binding::ri_a, "a");
    CaseBuilder::bind(k, ks::residual_add_inplace::binding::ri_b, "b");
    CaseBuilder::bind_uniform(k, ks::residual_add_inplace::binding::ri_dims, dims(n / 4));
    set_grid(k, n, grid);
    check_exact_tail(b, "a", want, kTail, reason);
    return b.c;
  }
  b.input("a", DType::F32, a);
  b.input("b", DType::F32, bb);
  b.output("out", DType::F32, n + kTail);
  auto& k = b.dispatch(ks::residual_add::Kernel{});
  CaseBuilder::bind(k, ks::residual_add::binding::ra_a, "a");
  CaseBuilder::bind(k, ks::residual_add::binding::ra_b, "b");
  CaseBuilder::bind(k, ks::residual_add::binding::ra_out, "out");
  CaseBuilder::bind_uniform(k, ks::residual_add::binding::ra_dims, dims(n / 4));
  set_grid(k, n, grid);
  check_exact_tail(b, "out", want, kTail, reason);
  return b.c;
}

Case pos_case(uint64_t seed, uint32_t batch, uint32_t T, uint32_t d, uint32_t pos_rows,
              const std::array<uint32_t, 3>* grid, const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  const uint32_t rows = batch * T;
  const uint64_t n = uint64_t(rows) * d;
  auto x = act(r, n), pos = act(r, uint64_t(pos_rows) * d);
  auto want = eref::pos_embed_add_f32(x, pos, rows, T, d);
  std::vector<float> x_t = x;
  x_t.resize(n + kTail, f32_bits(kPoison32));
  b.input("x", DType::F32, x_t);
  b.input("pos", DType::F32, pos);
  auto& k = b.dispatch(ks::pos_embed_add::Kernel{});
  CaseBuilder::bind(k, ks::pos_embed_add::binding::pe_x, "x");
  CaseBuilder::bind(k, ks::pos_embed_add::binding::pe_pos, "pos");
  CaseBuilder::bind_uniform(k, ks::pos_embed_add::binding::pe_dims, dims(n / 4, d / 4, T));
  set_grid(k, n, grid);
  check_exact_tail(b, "x", want, kTail,
                   "x[b, t, :] + pos[t, :]: one f32 add, bit exact (kAddUlps = 0)");
  return b.c;
}

const uint32_t kDs[] = {80, 96, 768};

Case gelu_fwd_basic(uint64_t seed) {
  Rng r(seed ^ 0x6e1);
  const uint32_t rows = 1 + r.below(16), d = kDs[r.below(3)];
  return gelu_case(seed, false, rows, d, false, nullptr,
                   "x over [-8, 8] and binades 2^-10..2^14, the named points 0, -0, +-1e4, "
                   "+-1e3, +-100, +-10, +-9.7 (|u| near 40)");
}
Case gelu_fwd_nonfinite(uint64_t seed) {
  return gelu_case(seed, false, 13, 96, true, nullptr,
                   "+inf -> +inf, -inf -> -inf, NaN -> NaN, among finite values up to |x| = 1e4");
}
Case gelu_fwd_grid(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{3, 2, 1};
  return gelu_case(seed, false, 65, 80, false, &grid,
                   "a 3 x 2 grid: flat_id = gid.y * nwg.x * 256 + gid.x over 1300 vec4s");
}
Case gelu_bwd_basic(uint64_t seed) {
  Rng r(seed ^ 0x6e2);
  const uint32_t rows = 1 + r.below(16), d = kDs[r.below(3)];
  return gelu_case(seed, true, rows, d, false, nullptr,
                   "dy * gelu'(x) over the same x as the forward (|x| up to 1e4)");
}
Case gelu_bwd_nonfinite(uint64_t seed) {
  return gelu_case(seed, true, 13, 96, true, nullptr,
                   "gelu'(+inf) = 1, gelu'(-inf) = 0, NaN -> NaN");
}
Case residual_basic(uint64_t seed) {
  Rng r(seed ^ 0x6e3);
  return residual_case(seed, false, 1 + r.below(16), kDs[r.below(3)], nullptr,
                       "out = a + b over binades, every 7th pair cancelling exactly");
}
Case residual_grid(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 3, 1};
  return residual_case(seed, false, 53, 96, &grid, "a 2 x 3 grid over 1272 vec4s");
}
Case residual_inplace_basic(uint64_t seed) {
  Rng r(seed ^ 0x6e4);
  return residual_case(seed, true, 1 + r.below(16), kDs[r.below(3)], nullptr,
                       "a += b in place (the residual stream), exact cancellations included");
}
Case pos_basic(uint64_t seed) {
  Rng r(seed ^ 0x6e5);
  const uint32_t T = 1 + r.below(20);
  return pos_case(seed, 1 + r.below(4), T, kDs[r.below(3)], T + r.below(3), nullptr,
                  "x[b, t, :] += pos[t, :] with pos holding at least T rows");
}
Case pos_odd(uint64_t seed) {
  return pos_case(seed, 3, 13, 80, 16, nullptr,
                  "B = 3, T = 13 (odd), d = 80, a 16-row position table (rows past T unused)");
}

// 4.2M elements from `generate` buffers on an explicit 2 x 2050 grid: flat_id's gid.y term
// carries almost every index. The check covers the first 8192 elements (grid rows y = 0..3).
Case gelu_fwd_large_grid(uint64_t) {
  CaseBuilder b;
  b.c.description =
      "gelu over 4,198,400 elements (uniform on [-12, 12], `generate`), 2 x 2050 workgroups: "
      "index = gid.y * 512 + gid.x; the first 8192 outputs (grid rows y = 0..3) checked";
  const uint64_t n = 2ull * 2050 * 256 * 4;
  Generate g;
  g.kind = "uniform";
  g.seed = 4242;
  g.lo = -12;
  g.hi = 12;
  b.generated("x", DType::F32, n, g);
  b.output("y", DType::F32, n);
  auto& k = b.dispatch(ks::gelu_forward::Kernel{});
  CaseBuilder::bind(k, ks::gelu_forward::binding::gf_x, "x");
  CaseBuilder::bind(k, ks::gelu_forward::binding::gf_y, "y");
  CaseBuilder::bind_uniform(k, ks::gelu_forward::binding::gf_dims, dims(n / 4));
  k.workgroups = {2, 2050, 1};
  const uint64_t m = 8192;
  std::vector<float> x(m);
  for (uint64_t i = 0; i < m; ++i)
    x[i] = float(-12.0 + 24.0 * double(splitmix64_at(g.seed, i) >> 40) * 0x1p-24);
  check(b, "y", eref::gelu_forward_expected(x), 0,
        "gelu within 12 ULPs of |x| (kGeluForwardUlps), first 8192 elements");
  return b.c;
}

}  // namespace

void register_elementwise(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/elementwise/cases.cpp";
  auto add = [&](const char* k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string("elementwise/") + k, n, seed, rnd, f, src});
  };
  add("gelu_forward", "basic", 4201, true, gelu_fwd_basic);
  add("gelu_forward", "nonfinite", 4202, false, gelu_fwd_nonfinite);
  add("gelu_forward", "grid_2d", 4203, false, gelu_fwd_grid);
  add("gelu_forward", "large_grid_2d", 4204, false, gelu_fwd_large_grid);
  add("gelu_backward", "basic", 4301, true, gelu_bwd_basic);
  add("gelu_backward", "nonfinite", 4302, false, gelu_bwd_nonfinite);
  add("residual_add", "basic", 4401, true, residual_basic);
  add("residual_add", "grid_2d", 4402, false, residual_grid);
  add("residual_add_inplace", "basic", 4501, true, residual_inplace_basic);
  add("pos_embed_add", "basic", 4601, true, pos_basic);
  add("pos_embed_add", "odd_T", 4602, false, pos_odd);
}
WGSLVK_REGISTER_GENERATORS(register_elementwise);

}  // namespace wgslvk::validate
