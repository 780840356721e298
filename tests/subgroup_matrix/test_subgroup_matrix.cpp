// sgmm_f16 and sgmm_f16_tiled8 (wgsl_ports/subgroup_matrix/chromium_experimental/, ours): f16
// inputs, f32 accumulation on cooperative matrices. On a device with
// "chromium-experimental-subgroup-matrix": shapes with interior blocks, edge blocks and a partial
// last K step, strides that are not multiples of 8 (sgmm_f16: staged everywhere) or 4
// (sgmm_f16_tiled8: copied element by element), under every flag combination; every element
// against the double reference within bound_ulps of S, and a poisoned tail after C that must stay
// poison. Without the feature (lavapipe: no Mesa in Debian exposes VK_KHR_cooperative_matrix for
// it) those SKIP, and the runtime's refusal is tested instead. WGSLVK_SGMM_BENCH=1 also times
// 2048^3, 4096^3 and gpt110m's matmul shapes (device timestamps) and, with WGSLVK_SGMM_DUMP=DIR,
// writes the 4096^3 inputs and each kernel's output for the Dawn comparison
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
#include "wgslvk/runtime.hpp"
#include "wgslvk/validate/validate.hpp"

namespace wgslvk {
namespace {

using subgroup_matrix::Dims;
using testing::device;

constexpr const char* kKernel = "subgroup_matrix/sgmm_f16";
constexpr const char* kTiled = "subgroup_matrix/sgmm_f16_tiled8";
constexpr const char* kKernels[] = {kKernel, kTiled};
// sgmm_f16_tiled8's workgroup memory (its WGSL's header): more than WebGPU's default 16,384.
constexpr uint32_t kTiledWorkgroupBytes = 49152;

std::array<uint32_t, 3> workgroups_for(const std::string& name, const Dims& d) {
  return name == kKernel ? subgroup_matrix::workgroups(d) : subgroup_matrix::workgroups_tiled(d);
}

// The test device with sgmm_f16_tiled8's workgroup memory, where the adapter offers it.
Device& sgmm_device() {
  static Device d = [] {
    DeviceDescriptor desc;
    desc.label = "sgmm device";
    desc.required_features = testing::adapter().features();
    desc.capture_executable_statistics =
        std::getenv("WGSLVK_SGMM_BENCH") && testing::adapter().supports_executable_statistics();
    desc.required_limits.max_compute_workgroup_storage_size = std::min(
        kTiledWorkgroupBytes, testing::adapter().limits().max_compute_workgroup_storage_size);
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

const ComputePipeline& pipeline(const std::string& name) {
  static std::map<std::string, ComputePipeline> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it =
        cache.emplace(name, sgmm_device().create_compute_pipeline({name, &kernel(name), {}, false}))
            .first;
  return it->second;
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
  // 4-byte words), padded with zeros
  auto words = [](const std::vector<uint16_t>& h) {
    std::vector<uint16_t> v = h;
    while (v.size() % 4) v.push_back(0);
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
    // Warm-up: at least 3 dispatches and 300 ms of them, so the GPU's clock has left its idle
    // state (the host computes references between timed shapes; 30 dispatches of a small shape
    // alone ran partly at the idle clock).
    const auto t0 = std::chrono::steady_clock::now();
    for (int w = 0; w < 3 || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(300);
         ++w) {
      CommandEncoder enc = dev.create_command_encoder();
      ComputePass pass = enc.begin_compute_pass();
      pass.set_pipeline(pipeline(name));
      pass.set_bind_group(0, g);
      pass.dispatch_workgroups(wg[0], wg[1], wg[2]);
      pass.end();
      dev.queue().submit(enc.finish());
      if (w % 4 == 3) dev.queue().on_submitted_work_done();
    }
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
double expect_within(const std::vector<float>& got, const Dims& d, const Inputs& in,
                     const std::string& what, uint32_t tail = 16) {
  const UlpExpected e = subgroup_matrix::reference(d, in.a, in.b, in.c_old);
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
  // memory), edge blocks on both sides, a partial last K step.
  for (Dims shape :
       {Dims{256, 192, 64, 0}, Dims{200, 136, 72, 0}, Dims{264, 196, 52, 0}, Dims{7, 5, 3, 0},
        Dims{256, 256, 64, 0}, Dims{384, 256, 96, 0}, Dims{130, 198, 50, 0}}) {
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
  for (uint32_t n : {2048u, 4096u}) {
    Dims d{n, n, n, 0};
    auto in = random_inputs(g, d);
    const char* dir = std::getenv("WGSLVK_SGMM_DUMP");
    auto put = [&](const std::string& name, const void* p, size_t bytes) {
      std::ofstream f(std::string(dir) + "/" + name, std::ios::binary);
      f.write(static_cast<const char*>(p), std::streamsize(bytes));
    };
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
      for (const char* k : kKernels) {
        RunResult r = run(k, d, in, 16, 30);
        std::printf("%s gpt %ux%ux%u flags %u: %.1f TFLOP/s (median)\n", k, d.M, d.N, d.K, d.flags,
                    2.0 * d.M * d.N * d.K / (r.ms * 1e-3) / 1e12);
      }
    }
  }
}

}  // namespace
}  // namespace wgslvk
