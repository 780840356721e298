// sgmm_f16, sgmm_f16_tiled8, sgmm_f16_tiled8_d2, sgmm_f16_tiled8_d4, sgmm_f16_tiled4_d4 and
// sgmm_f16_tiled8_n256 (wgsl_ports/subgroup_matrix/chromium_experimental/, ours): f16 inputs, f32 accumulation on
// cooperative matrices; subgroup_matrix::plan's choice per product (host only). On a device
// with "chromium-experimental-subgroup-matrix": shapes with interior blocks, edge blocks and a
// partial last K step, strides that are not multiples of 8 (sgmm_f16: staged everywhere) or 4
// (the tiled kernels: copied element by element), 1, 2, 3 and 5 K steps of 32 here (2 to 10 of
// sgmm_f16_tiled8_n256's 16) and multiples of 4 in the GPT layer (the _d2 and _n256 loops take
// two at a time, the _d4 loops four), under every flag
// combination; every element against the double reference within bound_ulps of S, and a poisoned
// tail after C that must stay poison. Without the feature (lavapipe: no Mesa in Debian exposes
// VK_KHR_cooperative_matrix for it) those SKIP, and the runtime's refusal is tested instead.
// WGSLVK_SGMM_BENCH=1 also times 2048^3, 4096^3 and gpt110m's matmul shapes (device timestamps)
// and, with WGSLVK_SGMM_DUMP=DIR, writes the 4096^3 inputs and each kernel's output, and those of
// one gpt110m product per flag set (0, TRANS_B, TRANS_A | ACCUMULATE), for the Dawn comparison
// (bench/peers/dawn_sgmm.mjs).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "subgroup_matrix/reference.hpp"
#include "support/test_device.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_d2.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_n256.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/validate/validate.hpp"

namespace wgslvk {
namespace {

using subgroup_matrix::Dims;
using testing::device;

constexpr const char* kKernel = "subgroup_matrix/sgmm_f16";
constexpr const char* kTiled = "subgroup_matrix/sgmm_f16_tiled8";
constexpr const char* kTiledD2 = "subgroup_matrix/sgmm_f16_tiled8_d2";
constexpr const char* kTiledD4 = "subgroup_matrix/sgmm_f16_tiled8_d4";
constexpr const char* kTiled4D4 = "subgroup_matrix/sgmm_f16_tiled4_d4";
constexpr const char* kTiledN256 = "subgroup_matrix/sgmm_f16_tiled8_n256";
constexpr const char* kKernels[] = {kKernel, kTiled, kTiledD2, kTiledD4, kTiled4D4, kTiledN256};

// plan() hands its kernels to callers that bind them as sgmm_f16_tiled8_d2 (apps/gpt): the same
// four slots (group, binding, access and element type).
template <class A, class B>
constexpr bool same_slot(const A& a, const B& b) {
  return a.group == b.group && a.binding == b.binding && a.type == b.type &&
         std::is_same_v<typename A::value_type, typename B::value_type>;
}
namespace d2k = kernels::subgroup_matrix::sgmm_f16_tiled8_d2::binding;
namespace n256k = kernels::subgroup_matrix::sgmm_f16_tiled8_n256::binding;
static_assert(same_slot(d2k::ta_in, n256k::ta_in) && same_slot(d2k::tb_in, n256k::tb_in) &&
              same_slot(d2k::tc_out, n256k::tc_out) && same_slot(d2k::tdims, n256k::tdims));
// sgmm_f16_tiled8's (and sgmm_f16_tiled8_d2's) workgroup memory (their WGSL's header): more than
// WebGPU's default 16,384.
constexpr uint32_t kTiledWorkgroupBytes = 49152;

#ifdef WGSLVK_SGMM_SWEEP
// gen_tiled.py --sweep's measurement variants (built with -DWGSLVK_SGMM_SWEEP=ON only).
struct SweepVariant {
  const char* kernel;
  uint32_t block_m, block_n;
  bool checked;  // a correct kernel (not an ablation that skips part of the work)
  uint32_t workgroup_bytes;
  uint32_t splits;  // K chunks (grid z) of a split-K ablation, else 1
};
constexpr SweepVariant kSweep[] = {
#include "sweep/variants.inc"
};
#endif

std::array<uint32_t, 3> workgroups_for(const std::string& name, const Dims& d) {
#ifdef WGSLVK_SGMM_SWEEP
  for (const auto& v : kSweep)
    if (name == v.kernel)
      return {(d.N + v.block_n - 1) / v.block_n, (d.M + v.block_m - 1) / v.block_m, v.splits};
#endif
  if (name == kTiledN256) return subgroup_matrix::workgroups_n256(d);
  return name == kKernel || name == kTiled4D4 ? subgroup_matrix::workgroups(d)
                                              : subgroup_matrix::workgroups_tiled(d);
}

// The test device with sgmm_f16_tiled8's workgroup memory, where the adapter offers it.
Device& sgmm_device() {
  static Device d = [] {
    DeviceDescriptor desc;
    desc.label = "sgmm device";
    desc.required_features = testing::adapter().features();
    desc.capture_executable_statistics =
        (std::getenv("WGSLVK_SGMM_BENCH") || std::getenv("WGSLVK_SGMM_SWEEP")) &&
        testing::adapter().supports_executable_statistics();
    desc.required_limits.max_compute_workgroup_storage_size = std::min(
        kTiledWorkgroupBytes, testing::adapter().limits().max_compute_workgroup_storage_size);
#ifdef WGSLVK_SGMM_SWEEP
    // the sweep's warp-specialized variants (gen_tiled.py WS) run 320 or 384 invocations
    desc.required_limits.max_compute_invocations_per_workgroup =
        std::min(384u, testing::adapter().limits().max_compute_invocations_per_workgroup);
#endif
    return testing::make_device(desc);
  }();
  return d;
}

bool has_feature() { return testing::adapter().has_feature(Feature::SubgroupMatrix); }

#define REQUIRE_SUBGROUP_MATRIX()                                                                \
  if (!has_feature())                                                                            \
  GTEST_SKIP() << "adapter \"" << testing::adapter().info().name                                 \
               << "\" lacks chromium-experimental-subgroup-matrix (VK_KHR_cooperative_matrix "   \
                  "with a subgroup 16x16x16 f16 x f16 + f32 configuration, vulkanMemoryModel, "  \
                  "shader-f16); Debian 12's lavapipe (Mesa 22.3) and bookworm-backports' (Mesa " \
                  "25.0.7) do not offer it"

struct Inputs {
  std::vector<uint16_t> a, b;
  std::vector<float> c_old;
};

Inputs random_inputs(std::mt19937_64& g, const Dims& d) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Inputs in;
  in.a.resize(subgroup_matrix::a_elements(d));
  in.b.resize(subgroup_matrix::b_elements(d));
  for (auto& x : in.a) x = f32_to_f16_bits(u(g));
  for (auto& x : in.b) x = f32_to_f16_bits(u(g));
  if (d.flags & subgroup_matrix::ACCUMULATE) {
    in.c_old.resize(subgroup_matrix::c_elements(d));
    for (auto& x : in.c_old) x = u(g);
  }
  return in;
}

// The suite's pipelines, one per kernel on the subgroup-matrix device (bind.hpp's cache).
const ComputePipeline& pipeline(const std::string& name) {
  static PipelineCache cache(sgmm_device());
  return cache.get(name);
}

struct RunResult {
  std::vector<float> c;
  double ms = 0;  // median device time when timed
};

// One run (tail: poisoned floats after C). reps > 0: that many timed dispatches after 3 warm-up
// ones, each in its own pass with timestamps, C rewritten by each (the result is the last one's:
// without ACCUMULATE every run writes the same values).
RunResult run(const std::string& name, const Dims& d, const Inputs& in, uint32_t tail = 16,
              int reps = 0) {
  Device& dev = sgmm_device();
  // f16 arrays: whole vec4<f16>s (sgmm_f16_tiled8 reads 8-byte vectors; sgmm_f16 needs whole
  // 4-byte words; the sweep's _u16 variants 16-byte words), padded with zeros
  const size_t whole = name.find("_u16") != std::string::npos ? 8 : 4;
  auto words = [whole](const std::vector<uint16_t>& h) {
    std::vector<uint16_t> v = h;
    while (v.size() % whole) v.push_back(0);
    return v;
  };
  Buffer a = testing::upload(dev, words(in.a), "a");
  Buffer b = testing::upload(dev, words(in.b), "b");
  std::vector<float> c0(subgroup_matrix::c_elements(d) + tail, testing::poison_f32());
  std::copy(in.c_old.begin(), in.c_old.end(), c0.begin());
  Buffer c = testing::upload(dev, c0, "c");
  auto dims = d.uniform();
  Buffer u = dev.create_buffer({"dims", 16, BufferUsage::Uniform | BufferUsage::CopyDst});
  dev.queue().write_buffer(u, 0, dims.data(), 16);
  BindGroup g = dev.create_bind_group(
      {"sgmm", pipeline(name).get_bind_group_layout(0), {{0, a}, {1, b}, {2, c}, {3, u}}});
  const auto wg = workgroups_for(name, d);
  RunResult r;
  if (reps == 0) {
    CommandEncoder enc = dev.create_command_encoder();
    ComputePass pass = enc.begin_compute_pass();
    pass.set_pipeline(pipeline(name));
    pass.set_bind_group(0, g);
    pass.dispatch_workgroups(wg[0], wg[1], wg[2]);
    pass.end();
    dev.queue().submit(enc.finish());
  } else {
    QuerySet qs = dev.create_query_set({"sgmm times", QueryType::Timestamp, uint32_t(2 * reps)});
    // Warm-up: at least 3 submits and 500 ms of them, 32 dispatches a submit, so the GPU's clock
    // has left its idle state: one dispatch a submit kept a small product's GPU 20-45% busy and
    // the SM clock at 435-1,260 MHz for seconds (bench/results/h200-2026-11-27g-sgmm, smi1.csv);
    // batched, its clock rose to 1,980 MHz within 200 ms (GptShapes, call 2).
    const auto t0 = std::chrono::steady_clock::now();
    for (int w = 0; w < 3 || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(500);
         ++w) {
      CommandEncoder enc = dev.create_command_encoder();
      for (int k = 0; k < 32; ++k) {
        ComputePass pass = enc.begin_compute_pass();
        pass.set_pipeline(pipeline(name));
        pass.set_bind_group(0, g);
        pass.dispatch_workgroups(wg[0], wg[1], wg[2]);
        pass.end();
      }
      dev.queue().submit(enc.finish());
      if (w % 4 == 3) dev.queue().on_submitted_work_done();
    }
    dev.queue().on_submitted_work_done();
    CommandEncoder enc = dev.create_command_encoder();
    for (int i = 0; i < reps; ++i) {
      ComputePass pass =
          enc.begin_compute_pass({"timed", PassTimestampWrites{qs, 2u * i, 2u * i + 1}});
      pass.set_pipeline(pipeline(name));
      pass.set_bind_group(0, g);
      pass.dispatch_workgroups(wg[0], wg[1], wg[2]);
      pass.end();
    }
    dev.queue().submit(enc.finish());
    auto ts = dev.read_timestamps(qs);
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) ms.push_back(double(ts[2 * i + 1] - ts[2 * i]) * 1e-6);
    std::sort(ms.begin(), ms.end());
    r.ms = ms[ms.size() / 2];
    std::printf("%s %ux%ux%u: min %.4f ms, median %.4f ms, max %.4f ms over %d\n", name.c_str(),
                d.M, d.N, d.K, ms.front(), r.ms, ms.back(), reps);
  }
  r.c = read<float>(dev, c);
  return r;
}

// Every element within the bound; the tail untouched. Returns the worst ULPs of S.
double expect_within(const std::vector<float>& got, const Dims& d, const UlpExpected& e,
                     const std::string& what, uint32_t tail = 16) {
  EXPECT_EQ(got.size(), e.value.size() + tail) << what;
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < e.value.size() && i < got.size(); ++i) {
    const double u = std::fabs(double(got[i]) - double(e.value[i])) / f32_ulp_of(e.magnitude[i]);
    worst = std::max(worst, std::isnan(u) ? INFINITY : u);
    if (!(u <= e.bound[i]) && bad++ < 8)
      ADD_FAILURE() << what << ": C[" << i / d.N << "][" << i % d.N << "] = " << got[i]
                    << ", expected " << e.value[i] << " within " << e.bound[i]
                    << " ULPs of S = " << e.magnitude[i] << " (off by " << u << ")";
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " elements outside the bound";
  for (size_t i = e.value.size(); i < got.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), testing::kPoisonBits)
        << what << ": the tail after C was written at " << i;
  return worst;
}

double expect_within(const std::vector<float>& got, const Dims& d, const Inputs& in,
                     const std::string& what, uint32_t tail = 16) {
  return expect_within(got, d, subgroup_matrix::reference(d, in.a, in.b, in.c_old), what, tail);
}

TEST(SubgroupMatrix, RefusedWithoutTheFeature) {
  // A device created without the feature must refuse the pipeline, naming the feature.
  DeviceDescriptor desc;
  if (testing::adapter().has_feature(Feature::ShaderF16))
    desc.required_features = {Feature::ShaderF16};
  Device dev = testing::make_device(desc);
  for (const char* k : kKernels) {
    try {
      dev.create_compute_pipeline({k, &kernel(k), {}, false});
      ADD_FAILURE() << k
                    << ": a subgroup-matrix kernel was accepted on a device without the feature";
    } catch (const ValidationError& e) {
      EXPECT_NE(std::string(e.what()).find("chromium-experimental-subgroup-matrix"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(kernel_uses_subgroup_matrix(kernel(k))) << k;
  }
  EXPECT_FALSE(kernel_uses_subgroup_matrix(kernel("matmul/matmul_native")));
}

// subgroup_matrix::plan: the kernel measured fastest for each of gpt110m's products (README.md,
// "Which kernel for which product"), a grid that covers C with that kernel's blocks, and a kernel
// that exists with the family's ABI.
TEST(SubgroupMatrix, PlanPicksTheMeasuredKernelPerProduct) {
  using subgroup_matrix::plan;
  struct Case {
    Dims d;
    const char* kernel;
  };
  const Case cases[] = {
      {Dims::forward(2048, 768, 2304), kTiledD2},
      {Dims::grad_input(2048, 768, 2304), kTiledD2},
      {Dims::grad_weight(2048, 768, 2304, true), kTiledD4},  // 108 blocks, K 2048, TRANS_A
      {Dims::forward(2048, 768, 768), kTiledD2},             // 96 blocks
      {Dims::grad_weight(2048, 768, 768, true), kTiled4D4},  // 36 blocks
      // 144 blocks, K 2048: tiled8_n256 is faster alone, the trainer's step slower with it
      {Dims::grad_weight(2048, 768, 3072, true), kTiledD4},
      {Dims::grad_weight(2048, 3072, 768, true), kTiledD4},
      {Dims::forward(2048, 3072, 768), kTiledD2},  // K 3072 without TRANS_A
      {Dims::forward(2048, 768, 256), kTiled4D4},  // the LM head: 32 blocks
      {Dims::grad_input(2048, 768, 256), kTiledD2},
      {Dims::grad_weight(2048, 768, 256, true), kTiled4D4},  // 12 blocks
      {Dims{4096, 4096, 4096, 0}, kTiledN256},
      {Dims{4096, 4096, 4096, 1}, kTiledN256},
      {Dims{2048, 2048, 2048, 0}, kTiledN256},  // 256 blocks
      {Dims{2048, 2048, 1024, 0}, kTiledD2},    // 256 blocks, K 1024
      {Dims{2048, 3072, 1024, 0}, kTiledD2},    // 384 blocks, K 1024
      {Dims{8192, 768, 4096, 2}, kTiledN256},   // 384 blocks, K 4096 (N 768: 3 blocks of 256)
      {Dims{1024, 2048, 4096, 0}, kTiledD4},    // 128 blocks, K 4096
      {Dims{1024, 2304, 1024, 1}, kTiledD2},    // 144 blocks, K 1024, TRANS_A
      {Dims{7, 5, 3, 0}, kTiled4D4},
  };
  for (const Case& c : cases) {
    const auto p = plan(c.d);
    const std::string what = std::to_string(c.d.M) + "x" + std::to_string(c.d.N) + "x" +
                             std::to_string(c.d.K) + " flags " + std::to_string(c.d.flags);
    EXPECT_STREQ(p.kernel, c.kernel) << what;
    const uint32_t block = std::string(p.kernel) == kTiled4D4 ? 64 : 128;
    const uint32_t block_n = std::string(p.kernel) == kTiledN256 ? 256 : block;
    EXPECT_GE(uint64_t(p.workgroups[0]) * block_n, c.d.N) << what;
    EXPECT_LT(uint64_t(p.workgroups[0] - 1) * block_n, c.d.N) << what;
    EXPECT_GE(uint64_t(p.workgroups[1]) * block, c.d.M) << what;
    EXPECT_LT(uint64_t(p.workgroups[1] - 1) * block, c.d.M) << what;
    EXPECT_EQ(p.workgroups[2], 1u) << what;
    EXPECT_EQ(p.workgroups, workgroups_for(p.kernel, c.d)) << what;
    EXPECT_LE(p.workgroup_bytes, kTiledWorkgroupBytes) << what;
    EXPECT_EQ(p.workgroup_bytes, kernel(p.kernel).workgroup_storage_bytes) << what;
    EXPECT_TRUE(kernel_uses_subgroup_matrix(kernel(p.kernel))) << what;
  }
}

// `wgslvk validate --kernel subgroup_matrix/...` on a device without the feature: each kernel is
// one SKIP row naming the missing feature, and the report is ok (the CLI exits 0, as its --help
// says for a case skipped for a missing device feature), not "FAIL: 0 of 0".
TEST(SubgroupMatrix, ValidateSkipsWithTheReasonWithoutTheFeature) {
  if (has_feature()) GTEST_SKIP() << "the adapter has chromium-experimental-subgroup-matrix";
  for (const char* k : kKernels) {
    validate::ValidateOptions opt;
    opt.kernels = {k};
    opt.seed = 1;
    validate::Validator v(opt);
    validate::ValidateReport rep = v.run();
    ASSERT_EQ(rep.rows.size(), 1u) << k << ": " << rep.verdict();
    EXPECT_EQ(rep.rows[0].kernel, k);
    EXPECT_EQ(rep.rows[0].status, "SKIP");
    ASSERT_EQ(rep.rows[0].messages.size(), 1u);
    EXPECT_NE(rep.rows[0].messages[0].find("chromium-experimental-subgroup-matrix"),
              std::string::npos)
        << rep.rows[0].messages[0];
    EXPECT_TRUE(rep.ok()) << rep.verdict();
    EXPECT_EQ(rep.verdict().rfind("PASS", 0), 0u) << rep.verdict();
    EXPECT_NE(rep.verdict().find("1 skipped"), std::string::npos) << rep.verdict();
  }
}

TEST(SubgroupMatrix, ShapesUnderEveryFlagCombination) {
  REQUIRE_SUBGROUP_MATRIX();
  auto g = testing::rng();
  // 256x192x64: every block inside, strides multiples of 8 (direct loads and stores);
  // 200x136x72: direct interior blocks, staged edge blocks, a partial last K step;
  // 264x196x52: K = 52 and M = 264 are not multiples of 8 where they are strides: staged
  // throughout; 7x5x3: one partial block.
  // 256x256x64: every block inside, stored directly.
  // sgmm_f16_tiled8's 128x128 blocks: 384x256x96 every block inside, three K steps;
  // 130x198x50: N and K not multiples of 4 (its element-by-element copy, C through workgroup
  // memory), edge blocks on both sides, a partial last K step; 136x264x160: five K steps, edge
  // blocks on both sides with aligned strides.
  for (Dims shape : {Dims{256, 192, 64, 0}, Dims{200, 136, 72, 0}, Dims{264, 196, 52, 0},
                     Dims{7, 5, 3, 0}, Dims{256, 256, 64, 0}, Dims{384, 256, 96, 0},
                     Dims{130, 198, 50, 0}, Dims{136, 264, 160, 0}}) {
    for (uint32_t flags : {0u, 1u, 2u, 3u, 8u, 9u, 10u, 11u}) {
      Dims d = shape;
      d.flags = flags;
      auto in = random_inputs(g, d);
      for (const char* k : kKernels) {
        const std::string what = std::string(k) + " " + std::to_string(d.M) + "x" +
                                 std::to_string(d.N) + "x" + std::to_string(d.K) + " flags " +
                                 std::to_string(flags);
        const double w = expect_within(run(k, d, in).c, d, in, what);
        std::printf("%s: worst %.3g ULPs of S (bound %.4g)\n", what.c_str(), w,
                    subgroup_matrix::bound_ulps(d.K, flags & subgroup_matrix::ACCUMULATE));
      }
    }
  }
}

TEST(SubgroupMatrix, GptLayerForwardAndBothBackwardProducts) {
  REQUIRE_SUBGROUP_MATRIX();
  auto g = testing::rng(1);
  const uint32_t rows = 512, d_in = 768, d_out = 2304;
  for (Dims d : {Dims::forward(rows, d_in, d_out), Dims::grad_input(rows, d_in, d_out),
                 Dims::grad_weight(rows, d_in, d_out, true)}) {
    auto in = random_inputs(g, d);
    for (const char* k : kKernels)
      expect_within(run(k, d, in).c, d, in,
                    std::string(k) + " gpt layer flags " + std::to_string(d.flags));
  }
}

// sgmm_f16_batched: 2 x 3 products (outer x inner), each operand at an offset of its own inside a
// wider buffer with a row stride longer than its rows (as the trainer reads a head's columns of
// qkv in place), under every flag set; per product within the bound of sgmm_f16's reference on
// the extracted operands, and bit-identical to sgmm_f16_tiled4_d4 on that product alone; every C
// element outside the products untouched. Strides: multiples of 4 (the vec4 fast paths, C as
// result matrices) and not (the checked fetches, C through workgroup memory).
TEST(SubgroupMatrix, BatchedProductsInPlaceInWiderMatrices) {
  REQUIRE_SUBGROUP_MATRIX();
  constexpr const char* kBatched = "subgroup_matrix/sgmm_f16_batched";
  auto g = testing::rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const uint32_t outer = 2, inner = 3;
  struct Shape {
    Dims d;
    uint32_t pad;  // added to every row stride: 4 keeps them multiples of 4 (with even sizes)
  };
  for (Shape sh : {Shape{{128, 64, 96, 0}, 8}, Shape{{70, 36, 40, 0}, 4}, Shape{{33, 17, 19, 0}, 3},
                   Shape{{64, 128, 64, 0}, 5}}) {
    for (uint32_t flags : {0u, 1u, 2u, 3u, 8u, 11u}) {
      Dims d = sh.d;
      d.flags = flags;
      const bool ta = flags & subgroup_matrix::TRANS_A, tb = flags & subgroup_matrix::TRANS_B;
      const uint32_t a_rows = ta ? d.K : d.M, a_len = ta ? d.M : d.K;
      const uint32_t b_rows = tb ? d.N : d.K, b_len = tb ? d.K : d.N;
      // Products side by side along the rows (inner) and stacked (outer), like heads in qkv.
      const uint32_t lda = inner * a_len + sh.pad, ldb = inner * b_len + sh.pad,
                     ldc = inner * d.N + sh.pad;
      const uint32_t a_off = sh.pad, b_off = 2 * sh.pad, c_off = sh.pad;
      const uint64_t a_n = a_off + uint64_t(outer) * a_rows * lda,
                     b_n = b_off + uint64_t(outer) * b_rows * ldb,
                     c_n = c_off + uint64_t(outer) * d.M * ldc;
      std::vector<uint16_t> A(a_n), Bm(b_n);
      for (auto& x : A) x = f32_to_f16_bits(u(g));
      for (auto& x : Bm) x = f32_to_f16_bits(u(g));
      std::vector<float> C0(c_n + 16, testing::poison_f32());
      const bool acc = flags & subgroup_matrix::ACCUMULATE;
      auto in_c = [&](uint64_t i) {
        if (i < c_off || i >= c_n) return false;
        const uint64_t r = (i - c_off) % (uint64_t(d.M) * ldc) % ldc;
        return r < uint64_t(inner) * d.N;
      };
      if (acc)
        for (uint64_t i = 0; i < c_n; ++i)
          if (in_c(i)) C0[i] = u(g);
      Device& dev = sgmm_device();
      auto words = [](std::vector<uint16_t> v) {
        while (v.size() % 4) v.push_back(0);
        return v;
      };
      Buffer a = testing::upload(dev, words(A), "a"), b = testing::upload(dev, words(Bm), "b");
      Buffer c = testing::upload(dev, C0, "c");
      const std::array<uint32_t, 20> uni{
          d.M,          d.N,   d.K,       d.flags, lda, ldb, ldc,   inner, a_rows * lda, a_len,
          b_rows * ldb, b_len, d.M * ldc, d.N,     0,   0,   a_off, b_off, c_off,        0};
      Buffer ub = dev.create_buffer({"bdims", 80, BufferUsage::Uniform | BufferUsage::CopyDst});
      dev.queue().write_buffer(ub, 0, uni.data(), 80);
      BindGroup bg = dev.create_bind_group({"sgmm batched",
                                            pipeline(kBatched).get_bind_group_layout(0),
                                            {{0, a}, {1, b}, {2, c}, {3, ub}}});
      const auto wg = subgroup_matrix::workgroups(d);
      CommandEncoder enc = dev.create_command_encoder();
      ComputePass pass = enc.begin_compute_pass();
      pass.set_pipeline(pipeline(kBatched));
      pass.set_bind_group(0, bg);
      pass.dispatch_workgroups(wg[0], wg[1], outer * inner);
      pass.end();
      dev.queue().submit(enc.finish());
      const std::vector<float> got = read<float>(dev, c);
      for (uint32_t o = 0; o < outer; ++o)
        for (uint32_t i = 0; i < inner; ++i) {
          Inputs in;
          for (uint32_t r = 0; r < a_rows; ++r)
            for (uint32_t k = 0; k < a_len; ++k)
              in.a.push_back(A[a_off + (uint64_t(o) * a_rows + r) * lda + i * a_len + k]);
          for (uint32_t r = 0; r < b_rows; ++r)
            for (uint32_t k = 0; k < b_len; ++k)
              in.b.push_back(Bm[b_off + (uint64_t(o) * b_rows + r) * ldb + i * b_len + k]);
          std::vector<float> mine;
          for (uint32_t r = 0; r < d.M; ++r)
            for (uint32_t n = 0; n < d.N; ++n) {
              const uint64_t at = c_off + (uint64_t(o) * d.M + r) * ldc + i * d.N + n;
              mine.push_back(got[at]);
              if (acc) in.c_old.push_back(C0[at]);
            }
          const std::string what = std::string(kBatched) + " " + std::to_string(d.M) + "x" +
                                   std::to_string(d.N) + "x" + std::to_string(d.K) + " flags " +
                                   std::to_string(flags) + " pad " + std::to_string(sh.pad) +
                                   " product (" + std::to_string(o) + ", " + std::to_string(i) +
                                   ")";
          mine.resize(mine.size() + 16, testing::poison_f32());
          expect_within(mine, d, in, what);
          const auto alone = run(kTiled4D4, d, in).c;
          size_t differ = 0;
          for (size_t k = 0; k + 16 < mine.size(); ++k)
            differ += std::bit_cast<uint32_t>(mine[k]) != std::bit_cast<uint32_t>(alone[k]);
          EXPECT_EQ(differ, 0u) << what << ": elements not bit-identical to sgmm_f16_tiled4_d4";
        }
      size_t touched = 0;
      for (uint64_t k = 0; k < got.size(); ++k)
        if (!in_c(k)) touched += std::bit_cast<uint32_t>(got[k]) != testing::kPoisonBits;
      EXPECT_EQ(touched, 0u) << "flags " << flags << ": elements outside the products written";
    }
  }
}

TEST(SubgroupMatrix, Bench4096) {
  REQUIRE_SUBGROUP_MATRIX();
  if (!std::getenv("WGSLVK_SGMM_BENCH")) GTEST_SKIP() << "set WGSLVK_SGMM_BENCH=1 to time 4096^3";
  if (!testing::adapter().has_feature(Feature::TimestampQuery))
    GTEST_SKIP() << "no timestamp queries";
  auto g = testing::rng(2);
  for (const char* k : kKernels) {  // what the driver made of each (registers, spills)
    try {
      for (const auto& e : pipeline(k).executable_statistics())
        for (const auto& st : e.statistics) {
          std::string v;
          std::visit([&](auto x) { v = std::to_string(x); }, st.value);
          std::printf("%s: %s %s = %s\n", k, e.name.c_str(), st.name.c_str(), v.c_str());
        }
    } catch (const std::exception& e) {
      std::printf("%s: no executable statistics (%s)\n", k, e.what());
    }
  }
  const char* dir = std::getenv("WGSLVK_SGMM_DUMP");
  auto put = [&](const std::string& name, const void* p, size_t bytes) {
    std::ofstream f(std::string(dir) + "/" + name, std::ios::binary);
    f.write(static_cast<const char*>(p), std::streamsize(bytes));
  };
  for (uint32_t n : {2048u, 4096u}) {
    Dims d{n, n, n, 0};
    auto in = random_inputs(g, d);
    if (dir && n == 4096) {
      put("a.f16", in.a.data(), in.a.size() * 2);
      put("b.f16", in.b.data(), in.b.size() * 2);
    }
    for (const char* k : kKernels) {
      RunResult r = run(k, d, in, 16, 30);
      std::printf("%s %u^3: %.1f TFLOP/s (median)\n", k, n, 2.0 * n * n * n / (r.ms * 1e-3) / 1e12);
      // Check a sample of rows against the reference (the whole 4096^3 reference is 69 G flops).
      Dims rows = d;
      rows.M = 64;  // the first 64 rows of C depend only on the first 64 rows of A
      Inputs top{std::vector<uint16_t>(in.a.begin(), in.a.begin() + size_t(64) * n), in.b, {}};
      std::vector<float> got(r.c.begin(), r.c.begin() + size_t(64) * n);
      got.insert(got.end(), r.c.end() - 16, r.c.end());
      expect_within(got, rows, top, std::string(k) + " " + std::to_string(n) + "^3 first 64 rows");
      if (dir && n == 4096) {
        const std::string entry = std::string(k).substr(std::string(k).find('/') + 1);
        put(entry + ".c.f32", r.c.data(), subgroup_matrix::c_elements(d) * 4);
      }
    }
  }
  // gpt110m's products (batch 8 x context 256 = 2048 rows, d 768, MLP 3072; the attention's
  // 768 -> 2304 and 768 -> 768): forward, dX and dW (accumulated) of each.
  struct Layer {
    uint32_t d_in, d_out;
  };
  for (Layer l : {Layer{768, 2304}, Layer{768, 768}, Layer{768, 3072}, Layer{3072, 768}}) {
    for (Dims d : {Dims::forward(2048, l.d_in, l.d_out), Dims::grad_input(2048, l.d_in, l.d_out),
                   Dims::grad_weight(2048, l.d_in, l.d_out, true)}) {
      auto in = random_inputs(g, d);
      // The first layer's three products for the Dawn comparison: inputs, dims and each kernel's
      // output of one untimed dispatch (timed runs accumulate under ACCUMULATE).
      const bool dump = dir && l.d_in == 768 && l.d_out == 2304;
      const std::string tag = "gpt_f" + std::to_string(d.flags);
      if (dump) {
        put(tag + ".a.f16", in.a.data(), in.a.size() * 2);
        put(tag + ".b.f16", in.b.data(), in.b.size() * 2);
        put(tag + ".c0.f32", in.c_old.data(), in.c_old.size() * 4);
        const auto u = d.uniform();
        put(tag + ".dims", u.data(), 16);
      }
      for (const char* k : kKernels) {
        RunResult r = run(k, d, in, 16, 30);
        std::printf("%s gpt %ux%ux%u flags %u: %.1f TFLOP/s (median)\n", k, d.M, d.N, d.K, d.flags,
                    2.0 * d.M * d.N * d.K / (r.ms * 1e-3) / 1e12);
        if (dump) {
          const std::string entry = std::string(k).substr(std::string(k).find('/') + 1);
          put(entry + "." + tag + ".c.f32", run(k, d, in).c.data(),
              subgroup_matrix::c_elements(d) * 4);
        }
      }
    }
  }
}

#ifdef WGSLVK_SGMM_SWEEP
// The sweep (WGSLVK_SGMM_SWEEP=1; gen_tiled.py --sweep): the driver's statistics of every
// variant, every checked variant on every shape x flag set and the GPT layer's products against
// the reference, then 2048^3 (before and after 4096^3) and 4096^3 timed for sgmm_f16_tiled8,
// sgmm_f16_tiled8_d2 and each variant (gpt110m's products: GptShapes). WGSLVK_SGMM_DUMP=DIR
// writes each checked kernel's 4096^3 output (and the inputs) for the Dawn comparison.
// Times kernels ks on the same inputs, interleaved: each round dispatches every kernel once (its
// own C buffer, a pass with timestamps each), so a change of the GPU's clock or power state
// reaches all of them alike; rounds of warm-up for at least warm_ms first (the first seconds of
// work after the GPU idled ran slower: README "Sweep"). Returns each kernel's median and its C.
std::vector<RunResult> time_interleaved(const std::vector<std::string>& ks, const Dims& d,
                                        const Inputs& in, int reps, int warm_ms) {
  Device& dev = sgmm_device();
  auto words = [](const std::vector<uint16_t>& h) {  // whole 16-byte words (the _u16 variants)
    std::vector<uint16_t> v = h;
    while (v.size() % 8) v.push_back(0);
    return v;
  };
  Buffer a = testing::upload(dev, words(in.a), "a");
  Buffer b = testing::upload(dev, words(in.b), "b");
  std::vector<float> c0(subgroup_matrix::c_elements(d) + 16, testing::poison_f32());
  std::copy(in.c_old.begin(), in.c_old.end(), c0.begin());
  auto dims = d.uniform();
  Buffer u = dev.create_buffer({"dims", 16, BufferUsage::Uniform | BufferUsage::CopyDst});
  dev.queue().write_buffer(u, 0, dims.data(), 16);
  std::vector<Buffer> cs;
  std::vector<BindGroup> gs;
  for (const auto& k : ks) {
    cs.push_back(testing::upload(dev, c0, "c"));
    gs.push_back(dev.create_bind_group(
        {"sgmm", pipeline(k).get_bind_group_layout(0), {{0, a}, {1, b}, {2, cs.back()}, {3, u}}}));
  }
  const size_t nk = ks.size();
  auto record = [&](ComputePass& pass, size_t i) {
    const auto wg = workgroups_for(ks[i], d);
    pass.set_pipeline(pipeline(ks[i]));
    pass.set_bind_group(0, gs[i]);
    pass.dispatch_workgroups(wg[0], wg[1], wg[2]);
  };
  // Warm-up submits of at least 32 dispatches (rounds of every kernel), waiting for every fourth:
  // with one round per submit and a wait every second one, a single small kernel kept the GPU
  // 20-45% busy and its clock at 435-1,260 MHz for seconds (2026-11-27g, smi.csv).
  const size_t rounds = std::max<size_t>(1, (32 + nk - 1) / nk);
  const auto t0 = std::chrono::steady_clock::now();
  for (int w = 0;
       w < 3 || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(warm_ms); ++w) {
    CommandEncoder enc = dev.create_command_encoder();
    for (size_t r = 0; r < rounds; ++r)
      for (size_t i = 0; i < nk; ++i) {
        ComputePass pass = enc.begin_compute_pass();
        record(pass, i);
        pass.end();
      }
    dev.queue().submit(enc.finish());
    if (w % 4 == 3) dev.queue().on_submitted_work_done();
  }
  dev.queue().on_submitted_work_done();
  QuerySet qs = dev.create_query_set({"sgmm times", QueryType::Timestamp, uint32_t(2 * reps * nk)});
  CommandEncoder enc = dev.create_command_encoder();
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < nk; ++i) {
      const uint32_t q = uint32_t(2 * (r * nk + i));
      ComputePass pass = enc.begin_compute_pass({"timed", PassTimestampWrites{qs, q, q + 1}});
      record(pass, i);
      pass.end();
    }
  dev.queue().submit(enc.finish());
  auto ts = dev.read_timestamps(qs);
  std::vector<RunResult> out(nk);
  for (size_t i = 0; i < nk; ++i) {
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      const size_t q = 2 * (r * nk + i);
      ms.push_back(double(ts[q + 1] - ts[q]) * 1e-6);
    }
    std::sort(ms.begin(), ms.end());
    out[i].ms = ms[ms.size() / 2];
    out[i].c = read<float>(dev, cs[i]);
    std::printf("%s %ux%ux%u flags %u: min %.4f ms, median %.4f ms, max %.4f ms over %d\n",
                ks[i].c_str(), d.M, d.N, d.K, d.flags, ms.front(), out[i].ms, ms.back(), reps);
  }
  return out;
}

TEST(SubgroupMatrix, Sweep) {
  REQUIRE_SUBGROUP_MATRIX();
  if (!std::getenv("WGSLVK_SGMM_SWEEP")) GTEST_SKIP() << "set WGSLVK_SGMM_SWEEP=1";
  std::vector<std::string> all = {kTiled, kTiledD2, kTiledD4, kTiledN256};
  std::vector<std::string> checked = {kTiled, kTiledD2, kTiledD4, kTiledN256};
  const uint32_t limit = testing::adapter().limits().max_compute_workgroup_storage_size;
  for (const auto& v : kSweep) {
    if (v.workgroup_bytes > limit) {
      std::printf("%s: needs %u bytes of workgroup memory, the adapter offers %u: skipped\n",
                  v.kernel, v.workgroup_bytes, limit);
      continue;
    }
    all.push_back(v.kernel);
    if (v.checked) checked.push_back(v.kernel);
  }
  for (const auto& k : all) {
    try {
      for (const auto& e : pipeline(k).executable_statistics())
        for (const auto& st : e.statistics) {
          std::string v;
          std::visit([&](auto x) { v = std::to_string(x); }, st.value);
          std::printf("%s: %s %s = %s\n", k.c_str(), e.name.c_str(), st.name.c_str(), v.c_str());
        }
    } catch (const std::exception& e) {
      std::printf("%s: no executable statistics (%s)\n", k.c_str(), e.what());
    }
  }
  std::fflush(stdout);
  auto g = testing::rng(3);
  // WGSLVK_SGMM_SWEEP_QUICK=1 (one process per device configuration, e.g. bench/sgmm_robustness.c):
  // no shape x flag checks (the timed passes still check their first 64 rows against the
  // reference and every output bit for bit), 4096^3 with flags 0, 2, 1 then 2048^3.
  const bool quick = std::getenv("WGSLVK_SGMM_SWEEP_QUICK") != nullptr;
  std::map<std::string, double> worst;
  for (Dims shape : {Dims{256, 192, 64, 0}, Dims{200, 136, 72, 0}, Dims{264, 196, 52, 0},
                     Dims{7, 5, 3, 0}, Dims{384, 256, 96, 0}, Dims{130, 198, 50, 0},
                     Dims{300, 260, 200, 0}, Dims{512, 384, 128, 0}}) {
    if (quick) break;
    for (uint32_t flags : {0u, 1u, 2u, 3u, 8u, 9u, 10u, 11u}) {
      Dims d = shape;
      d.flags = flags;
      auto in = random_inputs(g, d);
      const UlpExpected e = subgroup_matrix::reference(d, in.a, in.b, in.c_old);
      for (const auto& k : checked) {
        const std::string what = k + " " + std::to_string(d.M) + "x" + std::to_string(d.N) + "x" +
                                 std::to_string(d.K) + " flags " + std::to_string(flags);
        worst[k] = std::max(worst[k], expect_within(run(k, d, in).c, d, e, what));
      }
    }
  }
  for (Dims d : {Dims::forward(512, 768, 2304), Dims::grad_input(512, 768, 2304),
                 Dims::grad_weight(512, 768, 2304, true)}) {
    if (quick) break;
    auto in = random_inputs(g, d);
    const UlpExpected e = subgroup_matrix::reference(d, in.a, in.b, in.c_old);
    for (const auto& k : checked)
      worst[k] = std::max(
          worst[k],
          expect_within(run(k, d, in).c, d, e, k + " gpt layer flags " + std::to_string(d.flags)));
  }
  for (const auto& k : checked)
    std::printf("%s: every shape x flag set, worst %.3g ULPs of S\n", k.c_str(), worst[k]);
  std::fflush(stdout);
  if (!testing::adapter().has_feature(Feature::TimestampQuery)) GTEST_SKIP() << "no timestamps";
  const char* dir = std::getenv("WGSLVK_SGMM_DUMP");
  auto put = [&](const std::string& name, const void* p, size_t bytes) {
    std::ofstream f(std::string(dir) + "/" + name, std::ios::binary);
    f.write(static_cast<const char*>(p), std::streamsize(bytes));
  };
  const auto wall0 = std::chrono::steady_clock::now();
  auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  };
  int pass = 0;
  // N^3 (flags 0, then 4096^3 with TRANS_A and TRANS_B too), interleaved; the first 2048^3 pass
  // right after the GPU idled (the host's references above) and with the short warm-up the
  // earlier benchmarks used, the later ones with 2 s.
  using Pass = std::tuple<uint32_t, uint32_t, int>;
  const std::vector<Pass> full = {
      {2048u, 0u, 300}, {4096u, 0u, 2000}, {4096u, 2u, 1000}, {4096u, 1u, 1000}, {2048u, 0u, 1000}};
  const std::vector<Pass> short_list = {
      {4096u, 0u, 2000}, {4096u, 2u, 1000}, {4096u, 1u, 1000}, {2048u, 0u, 1000}};
  for (auto [n, flags, warm_ms] : quick ? short_list : full) {
    Dims d{n, n, n, flags};
    auto in = random_inputs(g, d);
    if (dir && n == 4096 && flags == 0) {
      put("a.f16", in.a.data(), in.a.size() * 2);
      put("b.f16", in.b.data(), in.b.size() * 2);
    }
    ++pass;
    std::printf("sweep pass %d starts at %.1f s\n", pass, wall());
    auto rs = time_interleaved(all, d, in, 30, warm_ms);
    std::printf("sweep pass %d timed by %.1f s\n", pass, wall());
    Dims rows = d;
    rows.M = 64;  // the first 64 rows of C depend only on the first 64 rows of A
    Inputs top{std::vector<uint16_t>(), in.b, {}};
    if (flags & subgroup_matrix::TRANS_A) {  // A stored [K][M]: the first 64 columns of each row
      for (uint32_t k = 0; k < n; ++k)
        top.a.insert(top.a.end(), in.a.begin() + size_t(k) * n, in.a.begin() + size_t(k) * n + 64);
    } else {
      top.a.assign(in.a.begin(), in.a.begin() + size_t(64) * n);
    }
    const UlpExpected e_top = subgroup_matrix::reference(rows, top.a, top.b, top.c_old);
    for (size_t i = 0; i < all.size(); ++i) {
      const auto& k = all[i];
      std::printf("sweep %s %u^3 flags %u (pass %d): %.1f TFLOP/s (median)\n", k.c_str(), n, flags,
                  pass, 2.0 * n * n * n / (rs[i].ms * 1e-3) / 1e12);
      if (std::find(checked.begin(), checked.end(), k) == checked.end()) continue;
      if (i > 0) {  // all[0] is sgmm_f16_tiled8: the same multiply-adds in the same order
        size_t same = 0;
        for (size_t e = 0; e < rs[i].c.size(); ++e)
          same += std::bit_cast<uint32_t>(rs[i].c[e]) == std::bit_cast<uint32_t>(rs[0].c[e]);
        std::printf("sweep %s %u^3 flags %u: %zu of %zu outputs bit-identical to %s\n", k.c_str(),
                    n, flags, same, rs[i].c.size(), all[0].c_str());
      }
      std::vector<float> got(rs[i].c.begin(), rs[i].c.begin() + size_t(64) * n);
      got.insert(got.end(), rs[i].c.end() - 16, rs[i].c.end());
      expect_within(
          got, rows, e_top,
          k + " " + std::to_string(n) + "^3 flags " + std::to_string(flags) + " first 64 rows");
      if (dir && n == 4096 && flags == 0) {
        const std::string entry = k.substr(k.find('/') + 1);
        put(entry + ".c.f32", rs[i].c.data(), subgroup_matrix::c_elements(d) * 4);
      }
    }
    std::fflush(stdout);
  }
}

// gpt110m's products (apps/gpt: batch 8 x context 256 = 2048 rows, d 768, MLP 3072, vocab 256;
// forward, dX and dW+= of each layer), WGSLVK_SGMM_SWEEP=1. Each shape is timed three ways, in
// this order, on the same inputs: (1) "bench4096": sgmm_f16_tiled8_d2 as Bench4096 times it (its
// own fresh buffers, its own warm-up: one dispatch a submit for >= 300 ms until 2026-11-27g call
// 2, 32 a submit for >= 500 ms since); (2) "alone": sgmm_f16_tiled8_d2's
// dispatch loop alone after >= 1 s of warm-up; (3) "interleaved": every kernel (sgmm_f16_tiled8_d2,
// _tiled8_d4, _tiled4_d4, the sweep's variants, split-K ablations included) dispatched once per
// round, >= 1 s of warm-up rounds. Medians of 30 device-timestamped passes; the line "plan" names
// subgroup_matrix::plan's kernel for the product.
TEST(SubgroupMatrix, GptShapes) {
  REQUIRE_SUBGROUP_MATRIX();
  if (!std::getenv("WGSLVK_SGMM_SWEEP")) GTEST_SKIP() << "set WGSLVK_SGMM_SWEEP=1";
  if (!testing::adapter().has_feature(Feature::TimestampQuery)) GTEST_SKIP() << "no timestamps";
  std::vector<std::string> all = {kTiledD2, kTiledD4, kTiled4D4, kTiledN256};
  const uint32_t limit = testing::adapter().limits().max_compute_workgroup_storage_size;
  for (const auto& v : kSweep)
    if (v.workgroup_bytes <= limit) all.push_back(v.kernel);
  struct Layer {
    uint32_t d_in, d_out;
  };
  auto g = testing::rng(4);
  const auto wall0 = std::chrono::steady_clock::now();
  for (Layer l :
       {Layer{768, 2304}, Layer{768, 768}, Layer{768, 3072}, Layer{3072, 768}, Layer{768, 256}}) {
    for (Dims d : {Dims::forward(2048, l.d_in, l.d_out), Dims::grad_input(2048, l.d_in, l.d_out),
                   Dims::grad_weight(2048, l.d_in, l.d_out, true)}) {
      auto in = random_inputs(g, d);
      const double flop = 2.0 * d.M * d.N * d.K;
      std::printf("gpt %ux%ux%u flags %u at %.1f s\n", d.M, d.N, d.K, d.flags,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
      const double bench = run(kTiledD2, d, in, 16, 30).ms;
      const double alone = time_interleaved({kTiledD2}, d, in, 30, 1000)[0].ms;
      auto rs = time_interleaved(all, d, in, 30, 1000);
      auto line = [&](const std::string& k, const char* how, double ms) {
        std::printf("gpt %ux%ux%u flags %u: %s %s %.1f TFLOP/s (median %.4f ms)\n", d.M, d.N, d.K,
                    d.flags, k.c_str(), how, flop / (ms * 1e-3) / 1e12, ms);
      };
      line(kTiledD2, "bench4096", bench);
      line(kTiledD2, "alone", alone);
      for (size_t i = 0; i < all.size(); ++i) line(all[i], "interleaved", rs[i].ms);
      // every kernel's C went through the same dispatches (ACCUMULATE: as many additions)
      for (size_t i = 1; i < all.size(); ++i) {
        size_t same = 0;
        for (size_t e = 0; e < rs[i].c.size(); ++e)
          same += std::bit_cast<uint32_t>(rs[i].c[e]) == std::bit_cast<uint32_t>(rs[0].c[e]);
        std::printf("gpt %ux%ux%u flags %u: %s %zu of %zu outputs bit-identical to %s\n", d.M, d.N,
                    d.K, d.flags, all[i].c_str(), same, rs[i].c.size(), all[0].c_str());
      }
      std::printf("gpt %ux%ux%u flags %u: plan %s\n", d.M, d.N, d.K, d.flags,
                  subgroup_matrix::plan(d).kernel);
      std::fflush(stdout);
    }
  }
}
#endif

}  // namespace
}  // namespace wgslvk
