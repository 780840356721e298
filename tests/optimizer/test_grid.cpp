// The 2-D grid (R12): more than 65535 workgroups, so flat_id(gid, nwg) = gid.y * nwg.x * 256 +
// gid.x must cover every element exactly once. adamw_update and adamw_8bit_update (whose block
// index also comes from flat_id) on 65535 * 256 + 1000 elements against the references, checked
// in slices to bound host memory. Labelled slow (16.8M elements on lavapipe).
#include <gtest/gtest.h>

#include "random_inputs.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_update.hpp"

using namespace wgslvk;
using namespace wgslvk::optimizer;
using namespace wgslvk::optimizer::testing;
namespace au = wgslvk::kernels::optimizer::adamw_update;
namespace q8 = wgslvk::kernels::optimizer::adamw_8bit_update;

namespace {
constexpr size_t kN = 65535u * 256u + 1000u;
constexpr size_t kSlice = 1 << 20;  // a multiple of 256: slices hold whole quantization blocks
}  // namespace

TEST(Grid2D, AdamwUpdateAndAdamw8bitAboveOneDimension) {
  Device& d = device();
  auto r = rng();
  Grid grid = grid_for_workgroups(div_ceil(kN, 256), d.limits());
  ASSERT_GT(grid.y, 1u) << "the test must need a 2-D grid";
  std::vector<float> w = random_floats(r, kN), g = random_floats(r, kN, 0.5);
  sprinkle_nonfinite(r, g, 1e-5);
  AdamWUniforms u;
  u.lr = 0.05f;
  u.weight_decay = 0.1f;
  u.t = 7;
  u.beta1_t = float(std::pow(double(u.beta1), 7));
  u.beta2_t = float(std::pow(double(u.beta2), 7));
  float hp[4] = {u.lr, u.beta1, u.beta2, u.weight_decay};
  float bias[4] = {u.beta1_t, u.beta2_t, u.eps, float(u.t)};
  Buffer hpb = utils::make_uniform(d, "hp", hp), biasb = utils::make_uniform(d, "bias", bias);
  uint32_t nn = uint32_t(kN);
  Buffer size = utils::make_uniform(d, "size", nn);
  const float clip = 0.5f;
  Buffer stats = upload(d, std::vector<float>{2.0f, clip}, "grad_stats");

  {  // fp32: m, v random
    std::vector<float> m = random_floats(r, kN, 0.5), v = random_floats(r, kN, 0.5);
    for (auto& x : v) x *= x;
    Buffer wb = upload(d, w, "w"), gb = upload(d, g, "g"), mb = upload(d, m, "m"),
           vb = upload(d, v, "v");
    run_dispatch(
        d, au::Kernel{},
        {wgslvk::bind(au::binding::w, wb), wgslvk::bind(au::binding::g, gb),
         wgslvk::bind(au::binding::m_buf, mb), wgslvk::bind(au::binding::v_buf, vb),
         wgslvk::bind(au::binding::grad_stats, stats, 0, 8),
         wgslvk::bind(au::binding::size, size, 0, 16), wgslvk::bind(au::binding::hp, hpb, 0, 16),
         wgslvk::bind(au::binding::bias, biasb, 0, 16)},
        grid);
    auto gw = read<float>(d, wb), gm = read<float>(d, mb), gv = read<float>(d, vb),
         gg = read<float>(d, gb);
    for (size_t s = 0; s < kN; s += kSlice) {
      size_t c = std::min(kSlice, kN - s);
      auto sp = [&](const std::vector<float>& x) {
        return std::span<const float>(x).subspan(s, c);
      };
      auto want = adamw_update_reference(sp(w), sp(g), sp(m), sp(v), clip, u);
      for (size_t i = 0; i < c; ++i) {
        ASSERT_LE(std::abs(gw[s + i] - want.w[i]), want.w_tol[i]) << "w[" << s + i << "]";
        ASSERT_LE(std::abs(gm[s + i] - want.m[i]), want.m_tol[i]) << "m[" << s + i << "]";
        ASSERT_LE(std::abs(gv[s + i] - want.v[i]), want.v_tol[i]) << "v[" << s + i << "]";
        ASSERT_EQ(std::bit_cast<uint32_t>(gg[s + i]), 0u) << "g[" << s + i << "]";
      }
    }
  }
  {  // 8-bit: zero state (step 1 of a fresh optimizer), so every block's scale is written fresh
    std::vector<uint32_t> zeros(div_ceil(kN, 4), 0);
    std::vector<float> zs(div_ceil(kN, 256), 0.0f);
    Buffer wb = upload(d, w, "w"), gb = upload(d, g, "g"), mq = upload(d, zeros, "m_packed"),
           vq = upload(d, zeros, "v_packed"), ms = upload(d, zs, "m_scale"),
           vs = upload(d, zs, "v_scale");
    using namespace q8::binding;
    run_dispatch(d, q8::Kernel{},
                 {wgslvk::bind(w_q8, wb), wgslvk::bind(g_q8, gb), wgslvk::bind(m_packed, mq),
                  wgslvk::bind(v_packed, vq), wgslvk::bind(m_scale, ms), wgslvk::bind(v_scale, vs),
                  wgslvk::bind(grad_stats_q8, stats, 0, 8), wgslvk::bind(size_q8, size, 0, 16),
                  wgslvk::bind(hp_q8, hpb, 0, 16), wgslvk::bind(bias_q8, biasb, 0, 16)},
                 grid);
    auto gw = read<float>(d, wb);
    auto gmq = read<uint32_t>(d, mq), gvq = read<uint32_t>(d, vq);
    auto gms = read<float>(d, ms), gvs = read<float>(d, vs);
    for (size_t s = 0; s < kN; s += kSlice) {
      size_t c = std::min(kSlice, kN - s);
      auto sp = [&](const std::vector<float>& x) {
        return std::span<const float>(x).subspan(s, c);
      };
      std::vector<uint32_t> zq(div_ceil(c, 4), 0);
      std::vector<float> zsc(div_ceil(c, 256), 0.0f);
      auto want = adamw_8bit_update_reference(sp(w), sp(g), zq, zq, zsc, zsc, clip, u);
      for (size_t i = 0; i < c; ++i)
        ASSERT_LE(std::abs(gw[s + i] - want.f32.w[i]), want.f32.w_tol[i]) << "w[" << s + i << "]";
      std::span<const uint32_t> pm(gmq), pv(gvq);
      std::span<const float> sm(gms), sv(gvs);
      for (size_t b = 0; b < div_ceil(c, 256); ++b) {
        std::string err = q8_check_block(want, pm.subspan(s / 4), pv.subspan(s / 4),
                                         sm.subspan(s / 256), sv.subspan(s / 256), b, c, u.t);
        ASSERT_TRUE(err.empty()) << "slice at " << s << ": " << err;
      }
    }
  }
}
