// apps/gpt: the trainer's defaults, data, and the GPU training step against the CPU double
// reference built from the families' references (the seed's end-to-end parity gate).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "config.hpp"
#include "cpu_model.hpp"
#include "data.hpp"
#include "gpu_model.hpp"
#include "optimizer/reference.hpp"
#include "support/test_device.hpp"
#include "test_corpus.hpp"
#include "trainer.hpp"

namespace wgslvk::gpt {
namespace {

using testing::device;

// ---- defaults: one place, checked against the seed's reference values ------------------------

TEST(GptConfig, DefaultsAreTheReferenceHyperparameters) {
  TrainConfig tc;
  // Seed 004: the Python reference's lr is 3e-4; the browser's 3e-3 was the costliest bug.
  EXPECT_EQ(tc.lr, 3e-4f);
  EXPECT_EQ(tc.preset, "small");
  EXPECT_EQ(tc.batch, 8u);
  EXPECT_EQ(tc.schedule, Schedule::Cosine);
  EXPECT_EQ(tc.attention, AttentionImpl::FA2Tiled);  // ours; the log's FA2 kernels selectable
  EXPECT_EQ(GpuOptions{}.attention, tc.attention);
  // issue 23: matmul::native_plan per product (split-K where native's grid is small), the
  // forward's products with a bias of <= 288 tiles and K >= 512 on matmul_batched (session 13)
  EXPECT_EQ(GpuOptions{}.matmul, MatmulImpl::NativeAutoFwd);
  EXPECT_EQ(tc.precision, optimizer::StatePrecision::FP32);
  // The optimizer options the trainer builds are the optimizer family's defaults (except the
  // deterministic norm, which bit-identical resume needs) with our lr.
  optimizer::AdamWOptions fam;
  auto o = tc.adamw();
  EXPECT_EQ(o.lr, tc.lr);
  EXPECT_EQ(o.beta1, fam.beta1);
  EXPECT_EQ(o.beta2, fam.beta2);
  EXPECT_EQ(o.eps, fam.eps);
  EXPECT_EQ(o.weight_decay, fam.weight_decay);
  ASSERT_TRUE(o.max_grad_norm.has_value());
  EXPECT_EQ(*o.max_grad_norm, *fam.max_grad_norm);
  EXPECT_EQ(o.norm, optimizer::NormMode::Deterministic);
  // The checkpoint sidecar round-trips every field.
  TrainConfig back = config_from_json(config_json(tc));
  EXPECT_EQ(config_json(back), config_json(tc));
}

TEST(GptConfig, Schedule) {
  TrainConfig tc;
  tc.steps = 1000;
  EXPECT_EQ(tc.effective_warmup(), 100u);
  EXPECT_FLOAT_EQ(lr_at(tc, 50), tc.lr * 0.5f);
  EXPECT_FLOAT_EQ(lr_at(tc, 100), tc.lr);
  EXPECT_NEAR(lr_at(tc, 1000), tc.lr * tc.min_lr_ratio, 1e-12);
  EXPECT_GT(lr_at(tc, 500), lr_at(tc, 900));
  tc.schedule = Schedule::Constant;
  EXPECT_EQ(lr_at(tc, 900), tc.lr);
}

TEST(GptConfig, Presets) {
  // Seed 004's d_model per preset, and the ~110M one.
  EXPECT_EQ(preset("small").d_model, 96u);
  EXPECT_EQ(preset("medium").d_model, 128u);
  EXPECT_EQ(preset("large").d_model, 192u);
  EXPECT_EQ(preset("xl").d_model, 256u);
  EXPECT_NEAR(preset("gpt110m").parameter_count() / 1e6, 110, 5);
  for (const auto& p : presets()) {
    EXPECT_NO_THROW(p.validate()) << p.name;
    uint64_t n = 0;
    for (const auto& s : param_specs(p)) {
      uint64_t c = 1;
      for (auto e : s.shape) c *= e;
      n += c;
    }
    EXPECT_EQ(n, p.parameter_count()) << p.name;
  }
  EXPECT_THROW(preset("tiny"), std::invalid_argument);
}

TEST(GptData, TokenizerAndBatches) {
  std::string s = "Hello, \xff world\n";
  EXPECT_EQ(decode(encode(s)), s);
  Corpus c = test_corpus();
  Batch a = make_batch(c.train, 4, 32, 7, 3), b = make_batch(c.train, 4, 32, 7, 3);
  EXPECT_EQ(a.tokens, b.tokens);
  Batch other = make_batch(c.train, 4, 32, 7, 4);
  EXPECT_NE(a.tokens, other.tokens);
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t t = 0; t + 1 < 32; ++t)
      EXPECT_EQ(a.targets[r * 32 + t], a.tokens[r * 32 + t + 1]);
}

TEST(GptData, FortunesCorpusSplit) {
  if (!std::filesystem::exists(kDefaultCorpusDir)) GTEST_SKIP() << "fortunes not installed";
  Corpus c = load_corpus();
  EXPECT_GT(c.files.size(), 10u);
  for (const auto& f : c.files) {
    EXPECT_EQ(f.find(".dat"), std::string::npos);
    EXPECT_EQ(f.find(".u8"), std::string::npos);
  }
  EXPECT_GT(c.train.size(), 1000000u);
  const double frac = double(c.val.size()) / double(c.train.size() + c.val.size());
  EXPECT_NEAR(frac, 0.1, 0.001);
}

// ---- GPU step vs CPU double reference -----------------------------------------------------------

// The CI shape: the Small preset (d 96, 3 heads, 2 layers, context 64), batch 4.
ModelConfig ci_model() { return preset("small"); }
constexpr uint32_t kCiBatch = 4;

TrainConfig ci_train() {
  TrainConfig tc;
  tc.steps = 50;
  tc.batch = kCiBatch;
  tc.seed = testing::test_seed();
  return tc;
}

double normwise(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (double(got[i]) - ref[i]) * (double(got[i]) - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Gradient gate: per tensor, ||g_gpu - g_ref||_2 <= kGradRel ||g_ref||_2. Reason: every kernel on
// the path is within (K 17/16 + 1) ULPs of its magnitude (matmul, K <= 4 d = 384 here), a few
// dozen ULPs (layernorm, GELU, softmax/CE, attention: their reference.hpp bounds); the backward
// chains about 12 of them per layer plus the head, each multiplying the relative error already
// present by a factor of order one (the layernorm's 1/std rescales but preserves it). So the
// normwise error stays below sum of the per-kernel bounds ~ 2 layers x 12 x 400 u ~ 6e-4 at
// worst, and is ~sqrt(K) u per kernel in practice; 1e-3 leaves the first-order worst case inside.
// A wrong kernel (a dropped term, a wrong transpose, a missing residual) moves a tensor's
// gradient by O(1).
constexpr double kGradRel = 1e-3;

TEST(GptParity, GradientsMatchTheDoubleReference) {
  // The log's FA2 and naive attention with the seed's vec4 matmul, our FA2 variants with native
  // matmul, tiled FA2 with native_auto (split-K on the small preset's mlp_down forward and mlp_up
  // dX, K = 384 in two slices), and the default's kernels: native_auto (native_auto_fwd, the
  // default, moves no product at this shape) with the fp32 materialized attention
  // (matmul_batched products, attn_softmax_mat, attn_dscores_mat; Fp32Attention::Auto at T 64).
  struct Run {
    AttentionImpl att;
    MatmulImpl mm;
    Fp32Attention fp32;
  };
  const Run runs[] = {{AttentionImpl::FA2, MatmulImpl::Vec4, Fp32Attention::FA2},
                      {AttentionImpl::Naive, MatmulImpl::Vec4, Fp32Attention::FA2},
                      {AttentionImpl::FA2Wide, MatmulImpl::Native, Fp32Attention::FA2},
                      {AttentionImpl::FA2Tiled, MatmulImpl::Native, Fp32Attention::FA2},
                      {AttentionImpl::FA2Tiled, MatmulImpl::NativeAuto, Fp32Attention::FA2},
                      {AttentionImpl::FA2Tiled, MatmulImpl::NativeAuto, Fp32Attention::Auto}};
  for (auto [att, mm, fp32] : runs) {
    SCOPED_TRACE(std::string(attention_name(att)) + " + " + std::string(matmul_name(mm)) + " + " +
                 std::string(fp32_attention_name(fp32)));
    ModelConfig mc = ci_model();
    TrainConfig tc = ci_train();
    tc.attention = att;
    Corpus c = test_corpus();
    auto init = init_params(mc, tc.seed);
    GpuOptions go{att, mm};
    go.fp32_attention = fp32;
    GpuGpt gpu(device(), mc, kCiBatch, tc.adamw(), go);
    EXPECT_EQ(gpu.attention_materialized(), fp32 == Fp32Attention::Auto);
    gpu.set_params(init);
    CpuGpt cpu(mc, kCiBatch, tc.adamw(), att);
    cpu.set_params(init);
    Batch b = make_batch(c.train, kCiBatch, mc.context, tc.seed, 1);
    const float gpu_loss = gpu.eval_loss(b);
    gpu.forward_backward(b);
    const double cpu_loss = cpu.forward_backward(b);
    EXPECT_NEAR(gpu_loss, cpu_loss, 1e-5 * cpu_loss);
    auto g = gpu.read_grads();
    auto specs = param_specs(mc);
    double worst = 0;
    for (size_t i = 0; i < specs.size(); ++i) {
      double e = normwise(g[i], cpu.grads()[i]);
      worst = std::max(worst, e);
      EXPECT_LE(e, kGradRel) << specs[i].name;
    }
    std::printf("[gpt] %s + %s + %s: loss gpu %.7f cpu %.7f, worst normwise gradient error %.3g\n",
                std::string(attention_name(att)).c_str(), std::string(matmul_name(mm)).c_str(),
                std::string(fp32_attention_name(fp32)).c_str(), gpu_loss, cpu_loss, worst);
  }
}

// native_auto_bmm moves the bias-free products of <= 96 tiles that native_plan() does not split
// to matmul_batched, which sums each element in native's order: the loss and the gradients keep
// native_auto's bits (at the CI shape every bias-free product but the split mlp_up dX).
// native_auto_fwd (the default) moves nothing at this shape (its products need K >= 512 unsplit:
// at gpt110m): its two-dispatch form is checked against k16 bit for bit in tests/matmul
// (BatchedBiasRowsThenProductIsK16sBits).
TEST(GptParity, BatchedGemmKeepsNativeAutoBits) {
  ModelConfig mc = ci_model();
  TrainConfig tc = ci_train();
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  Batch b = make_batch(c.train, kCiBatch, mc.context, tc.seed, 1);
  std::vector<std::vector<float>> g[2];
  float loss[2];
  const MatmulImpl mms[2] = {MatmulImpl::NativeAuto, MatmulImpl::NativeAutoBmm};
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(std::string(matmul_name(mms[r])));
    GpuOptions go;
    go.matmul = mms[r];
    GpuGpt gpu(device(), mc, kCiBatch, tc.adamw(), go);
    gpu.set_params(init);
    loss[r] = gpu.eval_loss(b);
    gpu.forward_backward(b);
    g[r] = gpu.read_grads();
  }
  const auto specs = param_specs(mc);
  for (int r = 1; r < 2; ++r) {
    SCOPED_TRACE(std::string(matmul_name(mms[r])));
    EXPECT_EQ(std::bit_cast<uint32_t>(loss[0]), std::bit_cast<uint32_t>(loss[r]));
    for (size_t i = 0; i < specs.size(); ++i)
      for (size_t k = 0; k < g[0][i].size(); ++k)
        ASSERT_EQ(std::bit_cast<uint32_t>(g[0][i][k]), std::bit_cast<uint32_t>(g[r][i][k]))
            << specs[i].name << "[" << k << "]";
  }
}

// Parameters after step 1, per element. At t = 1, m_hat = g c and v_hat = (g c)^2, so the update
// is lr (g c / (|g c| + eps) + wd w): within the optimizer kernel's bounds (kWOldBound ULPs of
// max(|w0|, |w1|) + kWStepBound ULPs of lr S, optimizer/reference.hpp) of the reference run on
// the GPU's own f32 gradient. The reference uses the double gradient instead. The gradient gate
// above is normwise (||dg||_2 <= kGradRel ||g||_2 per tensor), so by counting, at most n/100 of a
// tensor's n elements can have |dg_i| > e = 10 kGradRel ||g||_2 / sqrt(n). For the others the
// factor g c / (|g c| + eps) moves by at most eps e c / (|g c| - e c + eps)^2 when e c < |g c|,
// and by up to 2 (a sign flip) otherwise. So every element must satisfy
//   |w_gpu - w_ref| <= optimizer bound + lr * 2                      (any gradient error)
// and all but n/100 of each tensor's elements
//   |w_gpu - w_ref| <= optimizer bound + lr * sens(e).
TEST(GptParity, ParametersAfterStepOneWithinDerivedBounds) {
  ModelConfig mc = ci_model();
  TrainConfig tc = ci_train();
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  GpuGpt gpu(device(), mc, kCiBatch, tc.adamw());
  gpu.set_params(init);
  CpuGpt cpu(mc, kCiBatch, tc.adamw());
  cpu.set_params(init);
  Batch b = make_batch(c.train, kCiBatch, mc.context, tc.seed, 1);
  const float lr = lr_at(tc, 1);
  gpu.train_step(b, lr, 0);
  cpu.train_step(b, lr);
  const double clip = gpu.optimizer().read_clip_scale();
  auto w1 = gpu.read_params();
  auto specs = param_specs(mc);
  uint64_t checked = 0, loose_total = 0, sign_free = 0;
  double worst_rel_to_lr = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& ref = cpu.params()[i];
    const auto& g = cpu.grads()[i];
    double gn = 0;
    for (double x : g) gn += x * x;
    const double n = double(ref.size());
    const double e = 10 * kGradRel * std::sqrt(gn / n) * clip;
    const float wd = specs[i].decay ? tc.weight_decay : 0.0f;
    uint64_t loose = 0;
    for (size_t k = 0; k < ref.size(); ++k) {
      const double w0 = init[i][k], gc = std::abs(g[k]) * clip, eps = tc.eps;
      double sens = 2.0;
      if (gc > e)
        sens = eps * e / ((gc - e + eps) * (gc - e + eps));
      else
        ++sign_free;
      const double S = 1.0 + std::abs(wd * w0);  // |m_hat| / sqrt(v_hat) <= 1 at t = 1
      const double opt_bound =
          optimizer::kWOldBound.ulp * f32_ulp_of(std::max(std::abs(w0), std::abs(double(ref[k])))) +
          optimizer::kWStepBound.ulp * f32_ulp_of(lr * S);
      const double diff = std::abs(double(w1[i][k]) - ref[k]);
      worst_rel_to_lr = std::max(worst_rel_to_lr, diff / lr);
      ASSERT_LE(diff, opt_bound + lr * 2.0) << specs[i].name << "[" << k << "] w0 " << w0 << " gpu "
                                            << w1[i][k] << " ref " << ref[k] << " g " << g[k];
      if (diff > opt_bound + lr * sens) ++loose;
      ++checked;
    }
    EXPECT_LE(double(loose), n / 100) << specs[i].name;
    loose_total += loose;
  }
  std::printf(
      "[gpt] step 1: %llu parameters checked, %llu outside the tight bound (allowed: 1%% "
      "per tensor), %llu with |g| within the gradient tolerance; worst |dw| = %.3g lr\n",
      (unsigned long long)checked, (unsigned long long)loose_total, (unsigned long long)sign_free,
      worst_rel_to_lr);
}

// The seed's gate: 50 steps, same seed and batches, every step's loss within kLossDrift of the
// reference. Ours is 1e-4, not the seed's 5%: one forward's loss is within ~1e-6 of the double
// reference (the kernels' bounds), and the trajectories part only through the elements whose
// gradient is within f32 noise of zero (see the step-1 test: a second-order effect on the loss);
// measured 1.2e-7 - 1.9e-7 over 4 seeds. A step without the residual gradient around ln1 drifts
// by only 2.6e-3 in 50 steps, which the seed's 5% (and even 1%) would pass: 1e-4 catches it with
// a 25x margin and leaves 500x for rounding.
constexpr double kLossDrift = 1e-4;

TEST(GptParity, FiftyStepsLossDrift) {
  ModelConfig mc = ci_model();
  TrainConfig tc = ci_train();
  tc.log_every = 50;
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  GpuGpt gpu(device(), mc, kCiBatch, tc.adamw());
  gpu.set_params(init);
  CpuGpt cpu(mc, kCiBatch, tc.adamw());
  cpu.set_params(init);
  std::vector<double> ref;
  for (uint32_t t = 1; t <= tc.steps; ++t) {
    Batch b = make_batch(c.train, kCiBatch, mc.context, tc.seed, t);
    const float lr = lr_at(tc, t);
    gpu.train_step(b, lr, t - 1);
    ref.push_back(cpu.train_step(b, lr));
  }
  auto got = gpu.read_loss_log(tc.steps);
  double worst = 0;
  for (uint32_t t = 0; t < tc.steps; ++t) {
    const double drift = std::abs(got[t] - ref[t]) / ref[t];
    worst = std::max(worst, drift);
    EXPECT_LE(drift, kLossDrift) << "step " << t + 1 << " gpu " << got[t] << " cpu " << ref[t];
  }
  std::printf("[gpt] 50 steps: loss %.4f -> %.4f (cpu %.4f -> %.4f), worst relative drift %.3g\n",
              got.front(), got.back(), ref.front(), ref.back(), worst);
  EXPECT_LT(ref.back(), ref.front() - 0.5);  // it trains
}

// ---- resume
// ---------------------------------------------------------------------------------------

TEST(GptTrainer, ResumeIsBitIdentical) {
  ModelConfig mc = ci_model();
  mc.context = 32;
  TrainConfig tc = ci_train();
  tc.context = 32;
  tc.steps = 6;
  tc.log_every = 3;
  tc.eval_every = 0;
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  TrainHooks quiet;
  quiet.progress = nullptr;
  // uninterrupted
  GpuGpt a(device(), mc, kCiBatch, tc.adamw());
  a.set_params(init);
  TrainLog la = train(a, tc, c, quiet);
  auto wa = a.read_params();
  // 3 steps, checkpoint, a fresh model loads it and runs to 6
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gpt_resume_" + std::to_string(tc.seed) + ".safetensors"))
                               .string();
  GpuGpt b(device(), mc, kCiBatch, tc.adamw());
  b.set_params(init);
  TrainHooks h = quiet;
  h.checkpoint_path = path;
  h.stop_at = 3;
  TrainLog lb1 = train(b, tc, c, h);
  TrainConfig saved = read_checkpoint_config(path);
  EXPECT_EQ(config_json(saved), config_json(tc));
  GpuGpt b2(device(), mc, kCiBatch, tc.adamw());
  load_checkpoint(b2, path);
  EXPECT_EQ(b2.optimizer().step_count(), 3u);
  TrainLog lb2 = train(b2, tc, c, quiet);
  auto wb = b2.read_params();
  ASSERT_EQ(la.train.size(), 6u);
  ASSERT_EQ(lb1.train.size() + lb2.train.size(), 6u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(la.train[i].loss),
              std::bit_cast<uint32_t>(lb1.train[i].loss));
    EXPECT_EQ(std::bit_cast<uint32_t>(la.train[3 + i].loss),
              std::bit_cast<uint32_t>(lb2.train[i].loss));
  }
  for (size_t i = 0; i < wa.size(); ++i)
    for (size_t k = 0; k < wa[i].size(); ++k)
      ASSERT_EQ(std::bit_cast<uint32_t>(wa[i][k]), std::bit_cast<uint32_t>(wb[i][k]))
          << param_specs(mc)[i].name << "[" << k << "]";
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".json");
}

// The profiled step records the same dispatches (plus timestamps): the same bits.
TEST(GptTrainer, ProfiledStepIsTheSameStep) {
  if (!device().has_feature(Feature::TimestampQuery)) GTEST_SKIP() << "no timestamp-query";
  ModelConfig mc = ci_model();
  mc.context = 32;
  TrainConfig tc = ci_train();
  Corpus c = test_corpus();
  auto init = init_params(mc, tc.seed);
  GpuOptions opts;  // the default products: split-K where native_plan() splits
#if defined(__SANITIZE_ADDRESS__)
  // Under the sanitizers, native products only: Mesa 22.3's lavapipe leaks 24 blocks of its own
  // (allocated on its queue thread in libvulkan_lvp.so and LLVM's JIT, no wgslvk frame; 45,888
  // bytes per call, twice that for two) for each profiled step whose timestamps separate split-K
  // products. The same test with native products, and train_step with either, leak nothing; the
  // release pass runs it with the default products.
  opts.matmul = MatmulImpl::Native;
#endif
  GpuGpt a(device(), mc, 2, tc.adamw(), opts), b(device(), mc, 2, tc.adamw(), opts);
  a.set_params(init);
  b.set_params(init);
  Batch batch = make_batch(c.train, 2, mc.context, tc.seed, 1);
  a.train_step(batch, 1e-3f, 0);
  auto rows = b.profile_step(batch, 1e-3f, 0);
  ASSERT_FALSE(rows.empty());
  uint32_t n = 0;
  for (const auto& r : rows) n += r.dispatches;
  EXPECT_EQ(n, b.pass_dispatches() + 4);
  EXPECT_EQ(a.read_loss_log(1)[0], b.read_loss_log(1)[0]);
  auto wa = a.read_params(), wb = b.read_params();
  for (size_t i = 0; i < wa.size(); ++i)
    for (size_t k = 0; k < wa[i].size(); ++k)
      ASSERT_EQ(std::bit_cast<uint32_t>(wa[i][k]), std::bit_cast<uint32_t>(wb[i][k]));
}

}  // namespace
}  // namespace wgslvk::gpt
