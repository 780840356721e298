// Each optimizer kernel, run directly, against its double-precision CPU reference on fresh random
// inputs (tests/support's rng: new each run, WGSL_TEST_SEED replays). Sizes are not multiples of
// 256; every buffer has a poisoned tail past n that must come back unchanged. Bounds are the
// UlpBound constants of wgsl_ports/optimizer/reference.hpp (stated there with their reasons).
#include <gtest/gtest.h>

#include <cstring>

#include "random_inputs.hpp"
#include "optimizer/adamw.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update_vec4.hpp"
#include "wgslvk/kernels/optimizer/adamw_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_update_f16.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats_partials.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq_partials.hpp"
#include "wgslvk/numeric.hpp"

using namespace wgslvk;
using namespace wgslvk::optimizer;
using namespace wgslvk::optimizer::testing;
namespace rns = wgslvk::kernels::optimizer::reduce_norm_sq;
namespace fgs = wgslvk::kernels::optimizer::finalize_grad_stats;
namespace rnp = wgslvk::kernels::optimizer::reduce_norm_sq_partials;
namespace fgp = wgslvk::kernels::optimizer::finalize_grad_stats_partials;
namespace au = wgslvk::kernels::optimizer::adamw_update;
namespace auf = wgslvk::kernels::optimizer::adamw_update_f16;
namespace q8 = wgslvk::kernels::optimizer::adamw_8bit_update;
namespace q8v = wgslvk::kernels::optimizer::adamw_8bit_update_vec4;

namespace {

constexpr size_t kTail = 64;  // poisoned floats after the n elements of every array

Buffer storage(Device& d, std::vector<float> v, const std::string& label) {
  v.resize(v.size() + kTail, poison_f32());
  return upload(d, v, label);
}

void expect_tail_poisoned(Device& d, const Buffer& b, size_t n, const char* what) {
  auto all = read<float>(d, b);
  for (size_t i = n; i < all.size(); ++i)
    ASSERT_TRUE(is_poison(all[i])) << what << "[" << i << "] past n = " << n << " was written";
}

AdamWUniforms random_uniforms(std::mt19937_64& r) {
  AdamWUniforms u;
  std::uniform_real_distribution<double> ud(0.0, 1.0);
  u.lr = float(0.01 + 0.09 * ud(r));
  u.beta1 = 0.9f;
  u.beta2 = 0.999f;
  u.weight_decay = float(0.05 + 0.1 * ud(r));
  u.eps = 1e-8f;
  u.t = 1 + uint32_t(ud(r) * 2000);
  u.beta1_t = float(std::pow(double(u.beta1), u.t));
  u.beta2_t = float(std::pow(double(u.beta2), u.t));
  return u;
}

struct Hyper {
  Buffer hp, bias;
};
Hyper hyper_buffers(Device& d, const AdamWUniforms& u) {
  float hp[4] = {u.lr, u.beta1, u.beta2, u.weight_decay};
  float bias[4] = {u.beta1_t, u.beta2_t, u.eps, float(u.t)};
  return {utils::make_uniform(d, "hp", hp), utils::make_uniform(d, "bias", bias)};
}

void expect_within(const std::vector<float>& got, const std::vector<float>& want,
                   const std::vector<double>& tol, const char* what, const UlpBound& b) {
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double diff = std::abs(double(got[i]) - double(want[i]));
    if (!(diff <= tol[i]) && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", expected " << want[i]
                    << " within " << tol[i] << " (" << b.ulp << " ULP of " << b.of << ": " << b.why
                    << "), off by " << diff;
  }
  EXPECT_EQ(bad, 0u) << what << ": elements outside the bound";
}

std::vector<float> f32_view(const std::vector<uint8_t>& bytes) {
  std::vector<float> f(bytes.size() / 4);
  if (!f.empty()) std::memcpy(f.data(), bytes.data(), f.size() * 4);
  return f;
}

}  // namespace

// ---- reduce_norm_sq --------------------------------------------------------------------------------

TEST(ReduceNormSq, RandomAgainstReference) {
  Device& d = device();
  auto r = rng();
  for (size_t n : {size_t(1), size_t(255), size_t(257), size_t(4099), size_t(300001)}) {
    auto x = random_floats(r, n);
    sprinkle_nonfinite(r, x, 0.001);
    Buffer data = upload(d, x, "data");
    Buffer acc = upload(d, std::vector<float>{0.0f}, "acc");
    uint32_t nn = uint32_t(n);
    Buffer nu = utils::make_uniform(d, "n", nn);
    uint32_t wgs = uint32_t(std::min<uint64_t>(div_ceil(n, 256), 1024));
    utils::run_dispatch(
        d, rns::Kernel::info(),
        {wgslvk::bind(rns::binding::data, data), wgslvk::bind(rns::binding::result, acc, 0, 4),
         wgslvk::bind(rns::binding::n, nu, 0, 16)},
        {wgs, 1});
    float got = read<float>(d, acc)[0];
    float want = reduce_norm_sq_reference(x);
    uint32_t bound = reduce_norm_sq_ulp_bound(n, uint64_t(wgs) * 256, wgs);
    EXPECT_LE(ulp_distance(got, want), bound)
        << "n = " << n << ": got " << got << ", reference " << want << " (bound " << bound
        << " ULP of the sum: f32 chains of grid-stride, tree and CAS adds)";
  }
}

TEST(ReduceNormSq, IntegerValuesExact) {
  // x in {-3..3} * 2^-4 (never 0 everywhere), with NaN/Inf: every partial sum is an integer
  // multiple of 2^-8 below 2^24 * 2^-8, so any summation order is exact (kReduceIntegerBound).
  Device& d = device();
  auto r = rng();
  std::uniform_int_distribution<int> q(-3, 3);
  for (size_t n : {size_t(1000), size_t(123457), size_t(1 << 20) + 3}) {
    std::vector<float> x(n);
    for (auto& v : x) v = float(q(r)) * 0.0625f;
    x[n / 2] = 3 * 0.0625f;
    sprinkle_nonfinite(r, x, 0.0005);
    Buffer data = upload(d, x, "data");
    for (uint32_t wgs : {1u, 7u, 1024u}) {
      Buffer acc = upload(d, std::vector<float>{0.0f}, "acc");
      uint32_t nn = uint32_t(n);
      Buffer nu = utils::make_uniform(d, "n", nn);
      utils::run_dispatch(
          d, rns::Kernel::info(),
          {wgslvk::bind(rns::binding::data, data), wgslvk::bind(rns::binding::result, acc, 0, 4),
           wgslvk::bind(rns::binding::n, nu, 0, 16)},
          {wgs, 1});
      EXPECT_EQ(read<float>(d, acc)[0], float(reduce_norm_sq_exact(x)))
          << "n = " << n << ", " << wgs << " workgroups: must be exact (" << kReduceIntegerBound.why
          << ")";
    }
  }
}

// ---- finalize_grad_stats -----------------------------------------------------------------------------

TEST(FinalizeGradStats, ClipOnOffAndResetsAccumulator) {
  Device& d = device();
  auto r = rng();
  std::uniform_real_distribution<double> ud(-6, 6);
  for (int k = 0; k < 12; ++k) {
    float sum = float(std::exp2(ud(r) * 2));
    float max_norm = k % 3 == 0 ? 1e30f : float(std::exp2(ud(r)));  // 1e30: clipping off
    Buffer acc = upload(d, std::vector<float>{sum}, "acc");
    Buffer stats = upload(d, std::vector<float>{poison_f32(), poison_f32(), poison_f32()}, "stats");
    Buffer mg = utils::make_uniform(d, "max_grad_norm", max_norm);
    utils::run_dispatch(d, fgs::Kernel::info(),
                        {wgslvk::bind(fgs::binding::norm_sq_acc, acc, 0, 4),
                         wgslvk::bind(fgs::binding::grad_stats_out, stats, 0, 8),
                         wgslvk::bind(fgs::binding::max_grad_norm, mg, 0, 16)},
                        {1, 1});
    auto s = read<float>(d, stats);
    auto want = finalize_grad_stats_reference(sum, max_norm);
    EXPECT_LE(ulp_distance(s[0], want.grad_norm), kGradNormBound.ulp) << kGradNormBound.why;
    EXPECT_LE(ulp_distance(s[1], want.clip_scale), kClipScaleBound.ulp) << kClipScaleBound.why;
    if (max_norm == 1e30f) { EXPECT_EQ(s[1], 1.0f) << "clipping off must give exactly 1"; }
    EXPECT_TRUE(is_poison(s[2])) << "grad_stats[2] was written";
    EXPECT_EQ(std::bit_cast<uint32_t>(read<float>(d, acc)[0]), 0u)
        << "finalize must leave the accumulator at +0 for the next step's reduce";
  }
}

// ---- deterministic norm ----------------------------------------------------------------------------

TEST(DeterministicNorm, MatchesReferenceAndIsBitwiseRepeatable) {
  Device& d = device();
  auto r = rng();
  size_t n = 200003;
  auto x = random_floats(r, n);
  sprinkle_nonfinite(r, x);
  Buffer data = upload(d, x, "data");
  uint32_t nn = uint32_t(n);
  Buffer nu = utils::make_uniform(d, "n", nn);
  float mgn = 1.0f;
  Buffer mg = utils::make_uniform(d, "max_grad_norm", mgn);
  std::vector<uint32_t> first;
  for (int run = 0; run < 3; ++run) {
    Buffer part = upload(d, std::vector<float>(256, poison_f32()), "partials");
    Buffer stats = upload(d, std::vector<float>{poison_f32(), poison_f32()}, "stats");
    utils::run_dispatch(
        d, rnp::Kernel::info(),
        {wgslvk::bind(rnp::binding::data_det, data), wgslvk::bind(rnp::binding::partials, part),
         wgslvk::bind(rnp::binding::n_det, nu, 0, 16)},
        {256, 1});
    utils::run_dispatch(d, fgp::Kernel::info(),
                        {wgslvk::bind(fgp::binding::partials_in, part),
                         wgslvk::bind(fgp::binding::grad_stats_det, stats, 0, 8),
                         wgslvk::bind(fgp::binding::max_grad_norm_det, mg, 0, 16)},
                        {1, 1});
    auto s = read<float>(d, stats);
    double exact = reduce_norm_sq_exact(x);
    float want_norm = float(std::sqrt(exact));
    // sum: reduce bound with 256 + 256 chained adds; sqrt halves it, plus kGradNormBound
    uint32_t bound = reduce_norm_sq_ulp_bound(n, 256 * 256, 256 + 256) / 2 + 1 + kGradNormBound.ulp;
    EXPECT_LE(ulp_distance(s[0], want_norm), bound);
    std::vector<uint32_t> bits{std::bit_cast<uint32_t>(s[0]), std::bit_cast<uint32_t>(s[1])};
    if (run == 0)
      first = bits;
    else
      EXPECT_EQ(bits, first) << "run " << run << " differs from run 0";
  }
}

// ---- adamw_update / adamw_update_f16 ---------------------------------------------------------------

namespace {

struct StateIn {
  std::vector<float> w, g, m, v;
};
StateIn random_state(std::mt19937_64& r, size_t n, bool nonfinite = true) {
  StateIn s;
  s.w = random_floats(r, n);
  s.g = random_floats(r, n, 0.5);
  s.m = random_floats(r, n, 0.5);
  s.v = random_floats(r, n, 0.5);
  for (auto& x : s.v) x = x * x;  // v >= 0
  if (nonfinite) sprinkle_nonfinite(r, s.g);
  return s;
}

// adamw_update, or with f16 adamw_update_f16: its first eight bindings are adamw_update's
// (entries_for checks each one's kind and WGSL type), then its dst_w16.
void check_update(size_t n, bool f16) {
  Device& d = device();
  if (f16 && !d.has_feature(Feature::ShaderF16)) GTEST_SKIP() << "no shader-f16 on this device";
  auto r = rng(n);
  StateIn s = random_state(r, n);
  AdamWUniforms u = random_uniforms(r);
  float clip = std::uniform_real_distribution<float>(0.2f, 1.0f)(r);
  if (n % 2) clip = 1.0f;
  Buffer w = storage(d, s.w, "w"), g = storage(d, s.g, "g"), m = storage(d, s.m, "m"),
         v = storage(d, s.v, "v");
  Buffer stats = upload(d, std::vector<float>{123.0f, clip}, "grad_stats");
  uint32_t nn = uint32_t(n);
  Buffer size = utils::make_uniform(d, "size", nn);
  Hyper h = hyper_buffers(d, u);
  const KernelInfo& k = f16 ? auf::Kernel::info() : au::Kernel::info();
  std::vector<BindGroupEntry> e = entries_for(
      k, {wgslvk::bind(au::binding::w, w), wgslvk::bind(au::binding::g, g),
          wgslvk::bind(au::binding::m_buf, m), wgslvk::bind(au::binding::v_buf, v),
          wgslvk::bind(au::binding::grad_stats, stats, 0, 8),
          wgslvk::bind(au::binding::size, size, 0, 16), wgslvk::bind(au::binding::hp, h.hp, 0, 16),
          wgslvk::bind(au::binding::bias, h.bias, 0, 16)});
  Buffer w16;
  if (f16) {
    std::vector<uint16_t> poison(align_up(n + 2 * kTail, 2), 0x7e5a);
    w16 = upload(d, poison, "dst_w16");
    e.push_back(wgslvk::bind(auf::binding::dst_w16, w16));
  }
  utils::run_dispatch(d, k, e, au::Kernel::grid(n, d.limits()));

  auto want = adamw_update_reference(s.w, s.g, s.m, s.v, clip, u);
  auto gw = read<float>(d, w, 0, n), gm = read<float>(d, m, 0, n), gv = read<float>(d, v, 0, n),
       gg = read<float>(d, g, 0, n);
  expect_within(gw, want.w, want.w_tol, "w", kWStepBound);
  expect_within(gm, want.m, want.m_tol, "m", kMBound);
  expect_within(gv, want.v, want.v_tol, "v", kVBound);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(gg[i]), 0u) << "g[" << i << "] is not +0 after the update";
    ASSERT_TRUE(std::isfinite(gm[i]) && std::isfinite(gv[i]) && std::isfinite(gw[i]))
        << "element " << i << " (g = " << s.g[i] << ") is not finite";
  }
  for (auto [b, nm] : {std::pair{w, "w"}, {g, "g"}, {m, "m"}, {v, "v"}})
    expect_tail_poisoned(d, b, n, nm);
  if (f16) {
    auto h16 = read<uint16_t>(d, w16);
    for (size_t i = 0; i < n; ++i)
      ASSERT_LE(ulp_distance_f16(h16[i], f32_to_f16_bits(gw[i])), kMirrorBound.ulp)
          << "dst_w16[" << i << "] vs f16(w_new = " << gw[i] << "): " << kMirrorBound.why;
    for (size_t i = n + (n % 2); i < h16.size(); ++i)
      ASSERT_EQ(h16[i], 0x7e5a) << "dst_w16[" << i << "] past n was written";
  }
}

}  // namespace

TEST(AdamwUpdate, RandomAgainstReference) {
  for (size_t n : {size_t(1), size_t(255), size_t(257), size_t(1000), size_t(100003)})
    check_update(n, false);
}

TEST(AdamwUpdateF16, RandomAgainstReferenceAndMirror) {
  for (size_t n : {size_t(1), size_t(255), size_t(1001), size_t(100003)}) check_update(n, true);
}

TEST(AdamwUpdate, StepOneBiasCorrectionIsFinite) {
  // t = 1: 1 - beta^1 is small but the 1e-12 clamp and the math keep everything finite; also
  // beta^t = 1 exactly (beta = 1) hits the clamp itself.
  Device& d = device();
  auto r = rng();
  for (float beta : {0.9f, 1.0f}) {
    size_t n = 777;
    StateIn s = random_state(r, n);
    std::fill(s.m.begin(), s.m.end(), 0.0f);
    std::fill(s.v.begin(), s.v.end(), 0.0f);
    AdamWUniforms u;
    u.beta1 = u.beta1_t = beta;
    u.beta2 = u.beta2_t = beta == 1.0f ? 1.0f : 0.999f;
    u.t = 1;
    Buffer w = storage(d, s.w, "w"), g = storage(d, s.g, "g"), m = storage(d, s.m, "m"),
           v = storage(d, s.v, "v");
    Buffer stats = upload(d, std::vector<float>{1.0f, 1.0f}, "grad_stats");
    uint32_t nn = uint32_t(n);
    Buffer size = utils::make_uniform(d, "size", nn);
    Hyper h = hyper_buffers(d, u);
    utils::run_dispatch(
        d, au::Kernel::info(),
        {wgslvk::bind(au::binding::w, w), wgslvk::bind(au::binding::g, g),
         wgslvk::bind(au::binding::m_buf, m), wgslvk::bind(au::binding::v_buf, v),
         wgslvk::bind(au::binding::grad_stats, stats, 0, 8),
         wgslvk::bind(au::binding::size, size, 0, 16), wgslvk::bind(au::binding::hp, h.hp, 0, 16),
         wgslvk::bind(au::binding::bias, h.bias, 0, 16)},
        {uint32_t(div_ceil(n, 256)), 1});
    auto gw = read<float>(d, w, 0, n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_TRUE(std::isfinite(gw[i])) << "beta " << beta << ", w[" << i << "]";
    if (beta == 0.9f) {
      auto want = adamw_update_reference(s.w, s.g, s.m, s.v, 1.0f, u);
      expect_within(gw, want.w, want.w_tol, "w (t = 1)", kWStepBound);
    }
  }
}

// ---- adamw_8bit_update -----------------------------------------------------------------------------

TEST(Adamw8bitUpdate, RandomAgainstReference) {
  Device& d = device();
  for (size_t n : {size_t(1), size_t(255), size_t(257), size_t(1003), size_t(70001)}) {
    auto r = rng(n);
    StateIn s = random_state(r, n);
    size_t words = div_ceil(n, 4), blocks = div_ceil(n, 256);
    // random state: random codes under random power-of-two scales (some blocks all zero)
    std::uniform_int_distribution<uint32_t> byte(0, 0xffffffffu), ex(100, 140);
    std::vector<uint32_t> mp(words), vp(words);
    for (auto& x : mp) x = byte(r);
    for (auto& x : vp) x = byte(r);
    if (n % 4) {  // the kernel's contract: bytes past n are 0
      uint32_t keep = (1u << (8 * (n % 4))) - 1u;
      mp.back() &= keep;
      vp.back() &= keep;
    }
    std::vector<float> ms(blocks), vs(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      ms[b] = std::bit_cast<float>(ex(r) << 23);
      vs[b] = std::bit_cast<float>((ex(r) - 20) << 23);
    }
    AdamWUniforms u = random_uniforms(r);
    float clip = 0.75f;
    Buffer w = storage(d, s.w, "w"), g = storage(d, s.g, "g");
    auto with_tail_u = [&](std::vector<uint32_t> x, const char* l) {
      x.resize(x.size() + kTail, kPoisonBits);
      return upload(d, x, l);
    };
    Buffer mq = with_tail_u(mp, "m_packed"), vq = with_tail_u(vp, "v_packed");
    Buffer msb = storage(d, ms, "m_scale"), vsb = storage(d, vs, "v_scale");
    Buffer stats = upload(d, std::vector<float>{1.0f, clip}, "grad_stats");
    uint32_t nn = uint32_t(n);
    Buffer size = utils::make_uniform(d, "size", nn);
    Hyper h = hyper_buffers(d, u);
    using namespace q8::binding;
    run_dispatch(
        d, q8::Kernel{},
        {wgslvk::bind(w_q8, w, 0, n * 4), wgslvk::bind(g_q8, g, 0, n * 4),
         wgslvk::bind(m_packed, mq, 0, words * 4), wgslvk::bind(v_packed, vq, 0, words * 4),
         wgslvk::bind(m_scale, msb, 0, blocks * 4), wgslvk::bind(v_scale, vsb, 0, blocks * 4),
         wgslvk::bind(grad_stats_q8, stats, 0, 8), wgslvk::bind(size_q8, size, 0, 16),
         wgslvk::bind(hp_q8, h.hp, 0, 16), wgslvk::bind(bias_q8, h.bias, 0, 16)},
        grid_for_workgroups(blocks, d.limits()));
    auto want = adamw_8bit_update_reference(s.w, s.g, mp, vp, ms, vs, clip, u);
    auto gw = read<float>(d, w, 0, n), gg = read<float>(d, g, 0, n);
    expect_within(gw, want.f32.w, want.f32.w_tol, "w", kWStepBound);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(gg[i]), 0u) << "g[" << i << "]";
    auto gmq = read<uint32_t>(d, mq), gvq = read<uint32_t>(d, vq);
    auto gms = read<float>(d, msb), gvs = read<float>(d, vsb);
    for (size_t b = 0; b < blocks; ++b) {
      std::string err = q8_check_block(want, gmq, gvq, gms, gvs, b, n, u.t);
      ASSERT_TRUE(err.empty()) << "n = " << n << ": " << err;
    }
    for (size_t i = words; i < gmq.size(); ++i) ASSERT_EQ(gmq[i], kPoisonBits) << "m_packed tail";
    for (size_t i = words; i < gvq.size(); ++i) ASSERT_EQ(gvq[i], kPoisonBits) << "v_packed tail";
    expect_tail_poisoned(d, msb, blocks, "m_scale");
    expect_tail_poisoned(d, vsb, blocks, "v_scale");
    expect_tail_poisoned(d, w, n, "w");
  }
}

// ---- adamw_8bit_update_vec4 (optimizer_native.wgsl, ours) against the seed's kernel --------------

// One 8-bit update's buffers: w and g hold ceil(n/4) * 4 elements (the vec4 kernel's ABI) plus a
// poisoned tail; both kernels get identical copies, the seed kernel's w/g bindings end at n.
struct Q8Bufs {
  Buffer w, g, mq, vq, ms, vs;
};

std::vector<std::vector<uint8_t>> q8_bytes(Device& d, const Q8Bufs& b) {
  return {d.read_buffer(b.w),  d.read_buffer(b.g),  d.read_buffer(b.mq),
          d.read_buffer(b.vq), d.read_buffer(b.ms), d.read_buffer(b.vs)};
}

void run_q8(Device& d, bool vec4, const Q8Bufs& b, size_t n, const Buffer& stats,
            const AdamWUniforms& u) {
  const size_t words = div_ceil(n, 4), blocks = div_ceil(n, 256);
  uint32_t nn = uint32_t(n);
  Buffer size = utils::make_uniform(d, "size", nn);
  Hyper h = hyper_buffers(d, u);
  const Grid grid = grid_for_workgroups(blocks, d.limits());
  if (vec4) {  // w and g as vec4<f32>: whole vec4s
    using namespace q8v::binding;
    run_dispatch(d, q8v::Kernel{},
                 {wgslvk::bind(w_v4, b.w, 0, words * 16), wgslvk::bind(g_v4, b.g, 0, words * 16),
                  wgslvk::bind(m_packed_v4, b.mq, 0, words * 4),
                  wgslvk::bind(v_packed_v4, b.vq, 0, words * 4),
                  wgslvk::bind(m_scale_v4, b.ms, 0, blocks * 4),
                  wgslvk::bind(v_scale_v4, b.vs, 0, blocks * 4),
                  wgslvk::bind(grad_stats_v4, stats, 0, 8), wgslvk::bind(size_v4, size, 0, 16),
                  wgslvk::bind(hp_v4, h.hp, 0, 16), wgslvk::bind(bias_v4, h.bias, 0, 16)},
                 grid);
  } else {
    using namespace q8::binding;
    run_dispatch(
        d, q8::Kernel{},
        {wgslvk::bind(w_q8, b.w, 0, n * 4), wgslvk::bind(g_q8, b.g, 0, n * 4),
         wgslvk::bind(m_packed, b.mq, 0, words * 4), wgslvk::bind(v_packed, b.vq, 0, words * 4),
         wgslvk::bind(m_scale, b.ms, 0, blocks * 4), wgslvk::bind(v_scale, b.vs, 0, blocks * 4),
         wgslvk::bind(grad_stats_q8, stats, 0, 8), wgslvk::bind(size_q8, size, 0, 16),
         wgslvk::bind(hp_q8, h.hp, 0, 16), wgslvk::bind(bias_q8, h.bias, 0, 16)},
        grid);
  }
}

// Gradients for one step: random magnitudes over 24 binades, NaN/+-inf sprinkled, all-zero
// blocks, and with `huge` two so large that (1 - beta2) g^2 overflows f32 (v_new = +inf: the
// block exponent 255 path; the double reference does not overflow, so only the bitwise
// comparison uses them).
std::vector<float> q8_grads(std::mt19937_64& r, size_t n, const std::vector<bool>& zero_block,
                            bool huge) {
  auto g = random_floats(r, n, 2.0);
  sprinkle_nonfinite(r, g);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (int k = 0; huge && k < 2; ++k) g[pick(r)] = 3e25f;
  for (size_t i = 0; i < n; ++i)
    if (zero_block[i / 256]) g[i] = 0.0f;
  return g;
}

// The state's block exponents and the gradients' scale of one bit-identity run: the vec4
// kernel decodes and encodes normal-range codes by integer arithmetic and keeps the seed's code
// only for the rare paths, so the runs cover exponents near both ends of the range too.
struct Q8Range {
  uint32_t m_lo, m_hi, v_lo, v_hi;  // block scale exponent fields (biased) of m and v
  float grad_scale;                 // gradients (q8_grads) times this
  // Also check step 0 against the double reference. Off where f32's g^2 or m_hat/denom
  // overflows and the double reference's does not (the kernels' inf is WGSL's, not a bug).
  bool reference = true;
};

void vec4_matches_seed(const Q8Range& range, std::initializer_list<size_t> sizes) {
  Device& d = device();
  for (size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m exponents " + std::to_string(range.m_lo) + ".." +
                 std::to_string(range.m_hi));
    auto r = rng(n + range.m_lo);
    const size_t words = div_ceil(n, 4), blocks = div_ceil(n, 256);
    std::vector<bool> zero_block(blocks, false);
    for (size_t b = 0; b < blocks; ++b) zero_block[b] = blocks > 1 && b % 3 == 1;
    // state: random codes under power-of-two scales walking the exponent ranges from a random
    // start (every exponent once there are enough blocks); zero blocks all zero
    std::uniform_int_distribution<uint32_t> any;
    const uint32_t m_span = range.m_hi - range.m_lo + 1, v_span = range.v_hi - range.v_lo + 1;
    uint32_t m_at = any(r) % m_span, v_at = any(r) % v_span;
    std::vector<uint32_t> mp(words), vp(words);
    for (size_t k = 0; k < words; ++k) {
      bool z = zero_block[k / 64];
      mp[k] = z ? 0 : any(r);
      vp[k] = z ? 0 : any(r);
    }
    if (n % 4) {  // the kernels' contract: code bytes past n are 0
      uint32_t keep = (1u << (8 * (n % 4))) - 1u;
      mp.back() &= keep;
      vp.back() &= keep;
    }
    std::vector<float> ms(blocks), vs(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      if (zero_block[b]) continue;  // 0.0f
      ms[b] = std::bit_cast<float>((range.m_lo + m_at++ % m_span) << 23);
      vs[b] = std::bit_cast<float>((range.v_lo + v_at++ % v_span) << 23);
    }
    std::vector<float> w = random_floats(r, n);
    if (n > 100) w[n / 2] = INFINITY, w[n / 3] = std::numeric_limits<float>::quiet_NaN();
    // w: padded to whole vec4s with poison; g: with 1000.0, a finite value that would move the
    // block maximum if an element past n leaked into it; then the poisoned tail
    auto pad = [&](std::vector<float> v, float fill = poison_f32()) {
      v.resize(words * 4, fill);
      v.resize(words * 4 + kTail, poison_f32());
      return v;
    };
    const float kGPad = 1000.0f;
    auto padu = [&](std::vector<uint32_t> v) {
      v.resize(v.size() + kTail, kPoisonBits);
      return v;
    };
    Q8Bufs b[2];
    auto scaled = [&](std::vector<float> g) {
      for (auto& x : g) x *= range.grad_scale;
      return g;
    };
    const auto g0 = pad(scaled(q8_grads(r, n, zero_block, false)), kGPad);
    for (auto& x : b)
      x = {upload(d, pad(w), "w"),          upload(d, g0, "g"),
           upload(d, padu(mp), "m_packed"), upload(d, padu(vp), "v_packed"),
           storage(d, ms, "m_scale"),       storage(d, vs, "v_scale")};
    AdamWUniforms u = random_uniforms(r);
    for (int step = 0; step < 4; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      if (step > 0) {  // fresh gradients, the next t, a new clip factor
        auto g = pad(scaled(q8_grads(r, n, zero_block, true)), kGPad);
        for (auto& x : b) d.queue().write_buffer(x.g, 0, g.data(), g.size() * 4);
        ++u.t;
        u.beta1_t = float(std::pow(double(u.beta1), u.t));
        u.beta2_t = float(std::pow(double(u.beta2), u.t));
      }
      float clip = step == 2 ? 1.0f : std::uniform_real_distribution<float>(0.1f, 1.0f)(r);
      Buffer stats = upload(d, std::vector<float>{1.0f, clip}, "grad_stats");
      auto before = q8_bytes(d, b[0]);
      run_q8(d, false, b[0], n, stats, u);
      run_q8(d, true, b[1], n, stats, u);
      auto seed = q8_bytes(d, b[0]), ours = q8_bytes(d, b[1]);
      const char* names[6] = {"w", "g", "m_packed", "v_packed", "m_scale", "v_scale"};
      for (int k = 0; k < 6; ++k) {
        ASSERT_EQ(seed[k].size(), ours[k].size());
        size_t first = seed[k].size();
        for (size_t i = 0; i < seed[k].size() && first == seed[k].size(); ++i)
          if (seed[k][i] != ours[k][i]) first = i;
        ASSERT_EQ(first, seed[k].size())
            << names[k] << " differs first at byte " << first << " (word " << first / 4 << ")";
      }
      EXPECT_NE(seed[0], before[0]) << "the step moved w";  // not two identical no-ops
      // and the seed kernel's (hence our) result is the scheme's: the reference at step 0
      if (step == 0 && range.reference) {
        auto f = [](const std::vector<uint8_t>& v, size_t cnt) {
          std::vector<float> o(cnt);
          std::memcpy(o.data(), v.data(), cnt * 4);
          return o;
        };
        auto fu = [](const std::vector<uint8_t>& v, size_t cnt) {
          std::vector<uint32_t> o(cnt);
          std::memcpy(o.data(), v.data(), cnt * 4);
          return o;
        };
        auto win = f(before[0], n), gin = f(before[1], n);
        auto want = adamw_8bit_update_reference(win, gin, mp, vp, ms, vs, clip, u);
        auto gw = f(ours[0], n);
        for (size_t i = 0; i < n; ++i)
          if (is_finite_bits(win[i]) &&
              std::abs(double(gw[i]) - double(want.f32.w[i])) > want.f32.w_tol[i])
            FAIL() << "w[" << i << "] = " << gw[i] << ", reference " << want.f32.w[i] << " (w "
                   << win[i] << ", g " << gin[i] << ", m code "
                   << ((mp[i / 4] >> (8 * (i % 4))) & 0xff) << " scale " << ms[i / 256]
                   << ", v code " << ((vp[i / 4] >> (8 * (i % 4))) & 0xff) << " scale "
                   << vs[i / 256] << ", clip " << clip << ")";
        auto gmq = fu(ours[2], words), gvq = fu(ours[3], words);
        auto gms = f(ours[4], blocks), gvs = f(ours[5], blocks);
        for (size_t bl = 0; bl < blocks; ++bl) {
          std::string err = q8_check_block(want, gmq, gvq, gms, gvs, bl, n, u.t);
          ASSERT_TRUE(err.empty()) << err;
        }
      }
      // past n: the vec4 padding of w and g and every tail stay poison (read, never written)
      auto fw = f32_view(ours[0]), fg = f32_view(ours[1]);
      for (size_t i = n; i < fw.size(); ++i) {
        ASSERT_TRUE(is_poison(fw[i])) << "w[" << i << "] past n was written";
        ASSERT_TRUE(i < words * 4 ? fg[i] == kGPad : is_poison(fg[i]))
            << "g[" << i << "] past n was written";
      }
    }
  }
}

TEST(Adamw8bitUpdateVec4, BitIdenticalToSeedKernelOverSeveralSteps) {
  // Sizes: one element, a partial vec4 (1, 2 or 3 past a multiple of 4), exactly one and two
  // whole blocks (no partial block), a block plus one, many blocks with a ragged end.
  vec4_matches_seed({100, 140, 80, 120, 1.0f}, {1, 3, 6, 256, 512, 257, 1027, 70001});
}

TEST(Adamw8bitUpdateVec4, BitIdenticalToSeedKernelAtTheExponentRangesEnds) {
  // Block scales just above the subnormal range (exponent fields 1..top+9, across top+2 where the decode's
  // integer form meets the seed's flush of codes below the normal range) under gradients of
  // 2^-118, and near the top of the range (230..254) under gradients scaled by 2^60 (g^2
  // overflows f32 there, as it does in WGSL: both kernels agree, the double reference does not).
  vec4_matches_seed({1, 24, 1, 40, 0x1p-118f}, {257, 1027, 16411});
  vec4_matches_seed({230, 254, 230, 254, 0x1p60f, false}, {257, 1027, 16411});
}

TEST(Adamw8bitScheme, RoundTripAndNoFlushOfV) {
  // Encode/decode on the CPU mirror: a value equal to a code point round-trips exactly whatever
  // the rounding bits; a tiny non-zero v (2^-60 of the block max) still gets code 1, not 0.
  auto r = rng();
  std::uniform_int_distribution<uint32_t> any;
  for (uint32_t emax : {100u, 127u, 140u})
    for (uint32_t c = 1; c < 256; ++c) {
      float vv = q8_decode(c, emax, kQ8VTop);
      if (vv == 0.0f) continue;
      EXPECT_EQ(q8_encode(std::bit_cast<uint32_t>(vv), emax, kQ8VTop, any(r)), c) << "v code " << c;
      if (c < 128) {
        float mm = q8_decode(c, emax, kQ8MTop);
        if (mm != 0.0f) {
          EXPECT_EQ(q8_encode(std::bit_cast<uint32_t>(mm), emax, kQ8MTop, any(r)), c);
        }
      }
    }
  float vmax = 1.0f, tiny = std::ldexp(1.0f, -60);
  uint32_t e = q8_block_exp(std::bit_cast<uint32_t>(vmax));
  EXPECT_EQ(q8_encode_v(tiny, e, 7), 1u);
  EXPECT_GT(q8_decode_v(1, std::bit_cast<float>(e << 23)), 0.0f);
}

// ---- adamw_one_call (seed 002) -------------------------------------------------------------------

TEST(AdamwOneCall, AgainstSeed002Algorithm) {
  Device& d = device();
  auto r = rng();
  for (size_t n : {size_t(3), size_t(1000), size_t(65537)}) {
    StateIn s = random_state(r, n, /*nonfinite=*/false);
    OneCallParams p;
    p.lr = 0.05f;
    p.weight_decay = 0.1f;
    int t = 1 + int(n % 17);
    p.bias_correction1 = float(1 - std::pow(0.9, t));
    p.bias_correction2 = float(1 - std::pow(0.999, t));
    Buffer w = storage(d, s.w, "param"), g = storage(d, s.g, "grad"), m = storage(d, s.m, "m"),
           v = storage(d, s.v, "v");
    adamw_one_call(d, w, g, m, v, p.lr, p.beta1, p.beta2, p.eps, p.weight_decay, p.bias_correction1,
                   p.bias_correction2, n);
    auto want = adamw_one_call_reference(s.w, s.g, s.m, s.v, p);
    expect_within(read<float>(d, w, 0, n), want.w, want.w_tol, "param", kWStepBound);
    expect_within(read<float>(d, m, 0, n), want.m, want.m_tol, "m", kMBound);
    expect_within(read<float>(d, v, 0, n), want.v, want.v_tol, "v", kVBound);
    auto gg = read<float>(d, g, 0, n);
    EXPECT_EQ(std::memcmp(gg.data(), s.g.data(), n * 4), 0) << "grad is read-only in seed 002";
    for (auto [b, nm] : {std::pair{w, "param"}, {g, "grad"}, {m, "m"}, {v, "v"}})
      expect_tail_poisoned(d, b, n, nm);
  }
  Buffer a = upload(d, std::vector<float>(8, 1.0f), "a"),
         b = upload(d, std::vector<float>(8, 1.0f), "b");
  Buffer c = upload(d, std::vector<float>(8, 1.0f), "c"),
         e = upload(d, std::vector<float>(4, 1.0f), "short");
  EXPECT_THROW(adamw_one_call(d, a, b, c, e, 1e-3f, .9f, .999f, 1e-8f, 0, .1f, .001f, 8),
               ValidationError);
  EXPECT_THROW(adamw_one_call(d, a, a, c, b, 1e-3f, .9f, .999f, 1e-8f, 0, .1f, .001f, 8),
               ValidationError);
  EXPECT_THROW(adamw_one_call(d, a, b, c, e, 1e-3f, .9f, .999f, 1e-8f, 0, 0.0f, .001f, 4),
               ValidationError);
}
