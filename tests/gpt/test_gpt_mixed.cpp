// apps/gpt's mixed precision (issue 24, `wgslvk train --precision mixed`) on the test device:
// the f16 cast bit-exact, the gradients of one step against the double reference, a short run
// against the fp32 run on the same weights and batches, the loss scale's removal, the refusals.
// On lavapipe (CI) the products run matmul/matmul_f16in (no subgroup matrices there).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

#include "config.hpp"
#include "cpu_model.hpp"
#include "data.hpp"
#include "gpu_model.hpp"
#include "support/test_device.hpp"
#include "test_corpus.hpp"
#include "trainer.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/matmul/cast_f16.hpp"
#include "wgslvk/kernels/matmul/matmul_f16in.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled4_d4.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_d2.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_d4.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_n256.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::gpt {
namespace {

using testing::device;

bool have_f16() { return device().has_feature(Feature::ShaderF16); }

// The shared device has WebGPU's default 16,384 bytes of workgroup memory, less than any
// subgroup-matrix kernel needs, so on a GPU the mixed step would fall back to matmul_f16in and
// FA2 there. This device asks for the adapter's own limit (as `wgslvk train` does), so the
// tensor-core products and the materialized attention are what the gradient test checks on a GPU.
Device& mixed_device() {
  static Device d = [] {
    DeviceDescriptor desc;
    desc.label = "gpt mixed device";
    desc.required_features = testing::adapter().features();
    desc.required_limits.max_compute_workgroup_storage_size =
        testing::adapter().limits().max_compute_workgroup_storage_size;
    return testing::make_device(desc);
  }();
  return d;
}
#define SKIP_WITHOUT_F16()                                                                     \
  if (!have_f16())                                                                             \
  GTEST_SKIP() << "the device lacks shader-f16 (f16 storage and arithmetic): mixed precision " \
                  "is refused there (GptMixed.RefusedWithoutShaderF16)"

constexpr uint32_t kBatch = 4;
TrainConfig mixed_train() {
  TrainConfig tc;
  tc.steps = 50;
  tc.batch = kBatch;
  tc.seed = testing::test_seed();
  set_precision(tc, "mixed");
  return tc;
}
GpuOptions mixed_options(const TrainConfig& tc) {
  GpuOptions o;
  o.attention = tc.attention;
  o.mixed = true;
  o.loss_scale = tc.loss_scale;
  return o;
}

double normwise(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (double(got[i]) - ref[i]) * (double(got[i]) - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// ---- the cast: round to nearest, ties to even, on the bits -----------------------------------

TEST(GptMixed, CastIsRoundToNearestEvenBitExact) {
  SKIP_WITHOUT_F16();
  // Random f32 bit patterns (every class: NaN, inf, subnormal, huge) and, for every f16 value,
  // the tie halfway to its successor and both f32 neighbours of that tie.
  std::vector<float> x;
  auto rng = testing::rng(24);
  for (int i = 0; i < (1 << 18); ++i) x.push_back(std::bit_cast<float>(uint32_t(rng())));
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const double lo = f16_bits_to_f32(uint16_t(h)), hi = f16_bits_to_f32(uint16_t(h + 1));
    const float mid = float((lo + hi) / 2), s = (h & 1) ? -1.0f : 1.0f;
    x.push_back(s * mid);
    x.push_back(s * std::nextafter(mid, 0.0f));
    x.push_back(s * std::nextafter(mid, INFINITY));
  }
  while (x.size() % 4) x.push_back(0.5f);
  const uint32_t n = uint32_t(x.size());
  Device& d = device();
  Buffer in = testing::upload(d, x, "cast.in");
  Buffer out = testing::upload(d, std::vector<uint16_t>(n + 8, 0x5a5a), "cast.out");
  Buffer over = testing::upload(d, std::vector<uint32_t>{0}, "cast.overflow");
  namespace cast = kernels::matmul::cast_f16;
  Buffer u = make_uniform(d, cast::binding::cs_dims, {n / 4, 0, 0, 0}, "cast.dims");
  run_dispatch(d, cast::Kernel{},
               {bind(cast::binding::cs_in, in), bind(cast::binding::cs_out, out),
                bind(cast::binding::cs_overflow, over), bind(cast::binding::cs_dims, u)},
               cast::Kernel::grid(n / 4, d.limits()));
  auto got = read<uint16_t>(d, out);
  uint64_t wrong = 0, not_finite = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint16_t want = f32_to_f16_bits(x[i]);
    not_finite += (want & 0x7c00u) == 0x7c00u;
    if (got[i] != want && wrong++ < 5)
      ADD_FAILURE() << "x = " << x[i] << " (bits 0x" << std::hex << std::bit_cast<uint32_t>(x[i])
                    << "): got 0x" << got[i] << ", want 0x" << want;
  }
  EXPECT_EQ(wrong, 0u) << "of " << n;
  for (uint32_t i = n; i < n + 8; ++i) EXPECT_EQ(got[i], 0x5a5a) << "past the last vec4: " << i;
  EXPECT_EQ(read<uint32_t>(d, over)[0], not_finite);
  std::printf("[gpt mixed] cast_f16: %u values bit-exact (RNE), %llu not finite counted\n", n,
              (unsigned long long)not_finite);
}

// ---- one step against the double reference -----------------------------------------------------

// Gradient gate, per tensor: ||g_mixed - g_ref||_2 <= kMixedGradRel ||g_ref||_2 (g_ref: the CPU
// double reference on the f32 model). Reason: each product now reads inputs rounded to f16, a
// relative error of at most u16 = 2^-11 = 4.9e-4 per input, so each product's result moves by
// up to 2 u16 of its magnitude S (both operands) on top of the f32 error (the fp32 gate's
// 1e-3 covers that); the backward chains ~6 products per layer whose errors add normwise like the
// fp32 kernels' (factors of order one), 2 layers + the head: ~13 x 2 u16 = 1.3e-2 at worst when
// every error aligns; rounding errors of independent inputs add in quadrature in practice
// (measured below ~1e-3). 2e-2 leaves the aligned worst case inside; a missing loss-scale removal
// (x1024) or a wrong transpose fails it by orders of magnitude.
constexpr double kMixedGradRel = 2e-2;

TEST(GptMixed, GradientsOfOneStepMatchTheDoubleReference) {
  SKIP_WITHOUT_F16();
  ModelConfig mc = preset("small");
  TrainConfig tc = mixed_train();
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  Device& dev = mixed_device();
  GpuGpt gpu(dev, mc, kBatch, tc.adamw(), mixed_options(tc));
  const bool sgmm =
      dev.has_feature(Feature::SubgroupMatrix) &&
      dev.limits().max_compute_workgroup_storage_size >= mixed_sgmm_min_workgroup_storage();
  EXPECT_EQ(gpu.mixed_kernel_name(), sgmm ? kernels::subgroup_matrix::sgmm_f16_tiled8_d2::name
                                          : kernels::matmul::matmul_f16in::name);
  // With subgroup-matrix products the small preset's attention (T = 64) runs on tensor cores with
  // the score matrix materialized (gpu_model.cpp, materialized_attention()), so this test checks
  // that path's gradients on such a device; with matmul_f16in (CI's lavapipe) FA2.
  EXPECT_EQ(gpu.mixed_attention_materialized(),
            gpu.mixed_kernel_name() != kernels::matmul::matmul_f16in::name);
  EXPECT_EQ(gpu.loss_scale(), 8192.0f);  // auto: 32 x 4 x 64 rows
  gpu.set_params(init);
  TrainConfig f32 = tc;
  set_precision(f32, "fp32");
  CpuGpt cpu(mc, kBatch, f32.adamw(), tc.attention);
  cpu.set_params(init);
  Batch b = make_batch(c.train, kBatch, mc.context, tc.seed, 1);
  const float gpu_loss = gpu.eval_loss(b);
  gpu.forward_backward(b);
  const double cpu_loss = cpu.forward_backward(b);
  // The forward's loss: logits from f16 inputs (relative error <= ~2 u16 of each logit's
  // magnitude through 2 layers and the head); the loss moves by at most that over its value.
  EXPECT_NEAR(gpu_loss, cpu_loss, 5e-3 * cpu_loss);
  auto g = gpu.read_grads();
  auto specs = param_specs(mc);
  double worst = 0;
  std::string worst_name;
  for (size_t i = 0; i < specs.size(); ++i) {
    const double e = normwise(g[i], cpu.grads()[i]);
    if (e > worst) worst = e, worst_name = specs[i].name;
    EXPECT_LE(e, kMixedGradRel) << specs[i].name;
  }
  EXPECT_EQ(gpu.read_f16_overflow(), 0u);
  std::printf(
      "[gpt mixed] %s, attention %s: loss gpu %.7f cpu (f32 model, double) %.7f (rel %.2e), "
      "worst normwise gradient error %.3g (%s)\n",
      gpu.mixed_kernel_name().c_str(), gpu.mixed_attention_materialized() ? "materialized" : "fa2",
      gpu_loss, cpu_loss, std::abs(gpu_loss - cpu_loss) / cpu_loss, worst, worst_name.c_str());
}

// The loss scale's removal is exact (powers of two): scales 2^6 and 2^12 give gradients that
// differ only where the f16 casts of the backward's values differ (underflow at the smaller
// scale), far inside the gate; and without a scale (1) the gradients' f16 casts underflow:
// counted and printed (apps/gpt/README.md's measurement).
TEST(GptMixed, LossScaleRemovalAndUnderflow) {
  SKIP_WITHOUT_F16();
  ModelConfig mc = preset("small");
  TrainConfig tc = mixed_train();
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  Batch b = make_batch(c.train, kBatch, mc.context, tc.seed, 1);
  std::vector<std::vector<float>> grads[3];
  const float scales[3] = {1.0f, 64.0f, 4096.0f};
  for (int k = 0; k < 3; ++k) {
    tc.loss_scale = scales[k];
    GpuGpt gpu(device(), mc, kBatch, tc.adamw(), mixed_options(tc));
    gpu.set_params(init);
    auto st = gpu.cast_stats(b);
    grads[k] = gpu.read_grads();
    uint64_t bwd = 0, nz = 0, zero = 0, sub = 0;
    for (const auto& s : st)
      if (s.what.rfind("bwd", 0) == 0)
        bwd += s.count, nz += s.nonzero, zero += s.zero_from_nonzero, sub += s.subnormal;
    std::printf(
        "[gpt mixed] loss scale %g: backward f16 casts %llu values, %llu nonzero, %.3f%% of "
        "them -> 0, %.3f%% subnormal\n",
        double(scales[k]), (unsigned long long)bwd, (unsigned long long)nz, 100.0 * zero / nz,
        100.0 * sub / nz);
    if (k == 2) {
      EXPECT_LT(double(zero) / nz, 1e-3) << "at the default-sized scale little underflows";
      EXPECT_EQ(gpu.read_f16_overflow(), 0u);
    }
  }
  auto specs = param_specs(mc);
  for (size_t i = 0; i < specs.size(); ++i) {
    std::vector<double> ref(grads[2][i].begin(), grads[2][i].end());
    EXPECT_LE(normwise(grads[1][i], ref), kMixedGradRel) << specs[i].name;
  }
}

// ---- a short run against fp32 ----------------------------------------------------------------

// 12 steps of the small preset (batch 4, context 32: CI time), mixed vs fp32 from the same weights
// on the same batches: every step's loss within 1% relative (issue 24's gate for gpt110m over 200
// steps). The two runs part by the f16 rounding of the products' inputs (~u16 = 4.9e-4 relative
// per product; the first step's loss within ~1e-5, measured below), and AdamW's normalized
// steps move the weights by ~lr per step either way, so the trajectories stay within a few tenths
// of a percent; a product with a wrong operand or an unremoved loss scale departs by tens of
// percent.
TEST(GptMixed, TwelveStepsTrackTheFp32Run) {
  SKIP_WITHOUT_F16();
  ModelConfig mc = preset("small");
  mc.context = 32;
  TrainConfig tc = mixed_train();
  tc.steps = 12;
  tc.context = 32;
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  TrainConfig f32 = tc;
  set_precision(f32, "fp32");
  GpuGpt mixed(device(), mc, kBatch, tc.adamw(), mixed_options(tc));
  GpuGpt full(device(), mc, kBatch, f32.adamw());
  mixed.set_params(init);
  full.set_params(init);
  for (uint32_t t = 1; t <= tc.steps; ++t) {
    Batch b = make_batch(c.train, kBatch, mc.context, tc.seed, t);
    const float lr = lr_at(tc, t);
    mixed.train_step(b, lr, t - 1);
    full.train_step(b, lr, t - 1);
  }
  auto lm = mixed.read_loss_log(tc.steps), lf = full.read_loss_log(tc.steps);
  double worst = 0;
  for (uint32_t t = 0; t < tc.steps; ++t) {
    const double rel = std::abs(lm[t] - lf[t]) / lf[t];
    worst = std::max(worst, rel);
    EXPECT_LE(rel, 0.01) << "step " << t + 1 << " mixed " << lm[t] << " fp32 " << lf[t];
  }
  EXPECT_EQ(mixed.read_f16_overflow(), 0u);
  EXPECT_LT(lm.back(), lm.front() - 0.3);  // it trains
  std::printf(
      "[gpt mixed] 12 steps: mixed %.4f -> %.4f, fp32 %.4f -> %.4f, worst relative difference "
      "%.3g (step 1: %.3g)\n",
      lm.front(), lm.back(), lf.front(), lf.back(), worst, std::abs(lm[0] - lf[0]) / lf[0]);
}

// ---- refusals ----------------------------------------------------------------------------------

TEST(GptMixed, RefusedWithoutShaderF16) {
  ModelConfig mc = preset("small");
  mc.context = 16;
  TrainConfig tc = mixed_train();
  DeviceDescriptor desc;
  desc.label = "no-f16";  // no optional feature
  Device plain = testing::make_device(desc);
  try {
    GpuGpt gpu(plain, mc, 1, tc.adamw(), mixed_options(tc));
    ADD_FAILURE() << "mixed precision accepted a device without shader-f16";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("shader-f16"), std::string::npos) << e.what();
  }
}

TEST(GptMixed, RefusesBadOptions) {
  SKIP_WITHOUT_F16();
  ModelConfig mc = preset("small");
  mc.context = 16;
  TrainConfig tc = mixed_train();
  auto expect_refused = [&](optimizer::AdamWOptions o, GpuOptions g, const std::string& says) {
    try {
      GpuGpt gpu(device(), mc, 1, o, g);
      ADD_FAILURE() << "accepted; expected an error saying '" << says << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  TrainConfig f32 = tc;
  set_precision(f32, "fp32");
  expect_refused(f32.adamw(), mixed_options(tc), "f16_mirror");
  GpuOptions g = mixed_options(tc);
  g.loss_scale = 1000.0f;
  expect_refused(tc.adamw(), g, "power of two");
  if (!device().has_feature(Feature::SubgroupMatrix)) {
    g = mixed_options(tc);
    g.mixed_kernel = MixedKernel::Sgmm;
    expect_refused(tc.adamw(), g, "subgroup-matrix");
  }
  // The config: "mixed" round-trips through the checkpoint sidecar with its loss scale.
  tc.loss_scale = 256.0f;
  TrainConfig back = config_from_json(config_json(tc));
  EXPECT_TRUE(back.mixed);
  EXPECT_EQ(back.loss_scale, 256.0f);
  EXPECT_EQ(back.precision, optimizer::StatePrecision::F16Mirror);
  EXPECT_EQ(config_json(back), config_json(tc));
  tc.loss_scale = 3.0f;
  EXPECT_THROW(check_train_config(tc), std::invalid_argument);
  EXPECT_THROW(set_precision(tc, "f8"), std::invalid_argument);
}

// Which subgroup-matrix kernel a product runs by the device's workgroup memory (no device needed:
// lavapipe has no subgroup matrices, so this is how CI sees the choice). plan()'s kernel where it
// fits; the kernel needing the least (tiled4_d4, on its own grid) where it does not; none below.
TEST(GptMixed, ProductKernelFollowsTheDevicesWorkgroupMemory) {
  namespace smx = wgslvk::subgroup_matrix;
  namespace t4 = kernels::subgroup_matrix::sgmm_f16_tiled4_d4;
  namespace d2 = kernels::subgroup_matrix::sgmm_f16_tiled8_d2;
  namespace d4 = kernels::subgroup_matrix::sgmm_f16_tiled8_d4;
  namespace n256 = kernels::subgroup_matrix::sgmm_f16_tiled8_n256;
  const uint32_t least = t4::Kernel::info().workgroup_storage_bytes;
  const uint32_t big = d2::Kernel::info().workgroup_storage_bytes;
  ASSERT_GT(least, 0u);
  ASSERT_LT(least, big) << "the fallback is only useful if tiled4_d4 needs less than tiled8_d2";
  EXPECT_EQ(mixed_sgmm_min_workgroup_storage(), least);
  // gpt110m's MLP forward (8 x 1024 rows, 768 -> 3072: 64 x 24 blocks of 128): plan()'s tiled8_d2,
  // gpt110m's long-K dW (TRANS_A, K = 8192 rows): plan()'s tiled8_d4, and a 4096 x 4096 x 4096
  // product (1,024 blocks): plan()'s tiled8_n256 (45,056 bytes).
  for (smx::Dims dims :
       {smx::Dims::forward(8192, 768, 3072), smx::Dims::grad_weight(8192, 768, 3072, true),
        smx::Dims::forward(4096, 4096, 4096)}) {
    const smx::Plan p = smx::plan(dims);
    ASSERT_TRUE(p.kernel == d2::name || p.kernel == d4::name || p.kernel == n256::name) << p.kernel;
    const uint32_t need = wgslvk::kernel(p.kernel).workgroup_storage_bytes;
    ASSERT_LE(need, big);
    ASSERT_LT(least, need);
    auto fits = mixed_product_plan(dims, need);
    ASSERT_TRUE(fits);
    EXPECT_EQ(std::string_view(fits->kernel), std::string_view(p.kernel));
    EXPECT_EQ(fits->workgroups, p.workgroups);
    auto small = mixed_product_plan(dims, need - 1);
    ASSERT_TRUE(small) << "a device with " << need - 1 << " bytes can run tiled4_d4";
    EXPECT_EQ(std::string_view(small->kernel), t4::name);
    EXPECT_EQ(small->workgroups, smx::workgroups(dims));
    EXPECT_EQ(small->workgroup_bytes, least);
    EXPECT_FALSE(mixed_product_plan(dims, least - 1));
  }
  // A product plan() already gives tiled4_d4 (768 x 768: 36 blocks) keeps it at the least memory.
  const smx::Dims sq = smx::Dims::forward(768, 768, 768);
  auto p = mixed_product_plan(sq, least);
  ASSERT_TRUE(p);
  EXPECT_EQ(std::string_view(p->kernel), t4::name);
  EXPECT_EQ(p->workgroups, smx::plan(sq).workgroups);
}

}  // namespace
}  // namespace wgslvk::gpt
