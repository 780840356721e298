// Issue 12's Dawn parity on lavapipe: the trainer's exact dispatch list, recorded by the runtime's
// trace (DeviceDescriptor::trace_dir), replayed by Dawn (npm webgpu 0.6.2's dawn.node) with the
// same WGSL, initial weights and batches (bench/peers/dawn_trace.mjs); the loss of every step
// must agree. Plus the proof that the chain can fail: a tampered trace is reported as a mismatch.
//
// Prerequisites (otherwise every test here is SKIPPED with the reason; never a silent pass):
//   node (>= 18) on PATH, or WGSLVK_NODE=/path/to/node
//   WGSLVK_DAWN_NODE=/path/to/node_modules/webgpu/dist/linux-x64/dawn.node   (npm webgpu@0.6.2)
//   WGSLVK_DAWN_ICD=/path/to/lvp_icd.json: a Vulkan ICD Dawn accepts (Mesa >= 24 lavapipe; Debian
//     12's Mesa 22.3 is refused). The replay runs with VK_DRIVER_FILES/VK_ICD_FILENAMES set to it
//     and LD_LIBRARY_PATH prefixed with the folder of its library_path (backported libdrm).
// Without the variables the fallbacks /opt/wgslvk-dawn/{node_modules/webgpu/...,mesa25/...} and
// /tmp/{dawnpkg,mesa25}/... (bench/peers/local-lavapipe.sh) are tried.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "config.hpp"
#include "data.hpp"
#include "gpu_model.hpp"
#include "support/test_device.hpp"
#include "trainer.hpp"

namespace wgslvk::gpt {
namespace {
namespace fs = std::filesystem;

std::string env_or(const char* name, const std::vector<std::string>& fallbacks) {
  if (const char* v = std::getenv(name); v && *v) return v;
  for (const auto& f : fallbacks)
    if (fs::exists(f)) return f;
  return {};
}

struct Prereqs {
  std::string node, dawn_node, icd, icd_lib_dir, repo, missing;
};

const Prereqs& prereqs() {
  static Prereqs p = [] {
    Prereqs p;
    const char* src = std::getenv("WGSLVK_SOURCE_DIR");
    p.repo = src ? src : "";
    if (p.repo.empty() || !fs::exists(p.repo + "/bench/peers/dawn_trace.mjs"))
      p.missing +=
          " WGSLVK_SOURCE_DIR (the repo, for bench/peers/dawn_trace.mjs) is unset or wrong;";
    p.node = env_or("WGSLVK_NODE", {});
    if (p.node.empty()) {
      if (std::system("command -v node >/dev/null 2>&1") == 0)
        p.node = "node";
      else
        p.missing += " node not on PATH (or WGSLVK_NODE);";
    }
    const std::string dn = "node_modules/webgpu/dist/linux-x64/dawn.node";
    p.dawn_node = env_or("WGSLVK_DAWN_NODE",  // the repo's npm ci (package.json) first
                         {p.repo + "/" + dn, "/opt/wgslvk-dawn/" + dn, "/tmp/dawnpkg/" + dn});
    if (p.dawn_node.empty() || !fs::exists(p.dawn_node))
      p.missing += " dawn.node not found (WGSLVK_DAWN_NODE; npm install webgpu@0.6.2);";
    const std::string icd = "usr/share/vulkan/icd.d/lvp_icd.json";
    p.icd = env_or("WGSLVK_DAWN_ICD", {"/opt/wgslvk-dawn/mesa25/" + icd, "/tmp/mesa25/" + icd});
    if (p.icd.empty() || !fs::exists(p.icd)) {
      p.missing +=
          " no Dawn-acceptable Vulkan ICD (WGSLVK_DAWN_ICD: Mesa >= 24 lavapipe's lvp_icd.json);";
    } else {
      try {
        std::ifstream f(p.icd);
        auto j = nlohmann::json::parse(f);
        p.icd_lib_dir =
            fs::path(j.at("ICD").at("library_path").get<std::string>()).parent_path().string();
      } catch (const std::exception& e) {
        p.missing +=
            " WGSLVK_DAWN_ICD=" + p.icd + ": cannot read ICD.library_path (" + e.what() + ");";
      }
    }
    return p;
  }();
  return p;
}

#define REQUIRE_DAWN()                                                                    \
  do {                                                                                    \
    if (!prereqs().missing.empty())                                                       \
      GTEST_SKIP() << "SKIPPED: Dawn replay prerequisites missing:" << prereqs().missing; \
  } while (0)

struct Replay {
  int code = -1;
  std::string output;
  nlohmann::json report;
};

// Runs bench/peers/dawn_trace.mjs on `dir`; exit 77 (no Dawn adapter/device) skips the caller.
Replay replay(const std::string& dir, const std::string& extra) {
  const Prereqs& p = prereqs();
  const std::string out = dir + "/replay.json", log = dir + "/replay.log";
  std::string lib = p.icd_lib_dir;
  if (const char* l = std::getenv("LD_LIBRARY_PATH"); l && *l) lib += std::string(":") + l;
  std::string cmd = "VK_DRIVER_FILES='" + p.icd + "' VK_ICD_FILENAMES='" + p.icd +
                    "' LD_LIBRARY_PATH='" + lib + "' XDG_RUNTIME_DIR=/tmp '" + p.node + "' '" +
                    p.repo + "/bench/peers/dawn_trace.mjs' --trace '" + dir + "' --out '" + out +
                    "' --dawn-node '" + p.dawn_node + "' --quiet " + extra + " > '" + log +
                    "' 2>&1";
  Replay r;
  int st = std::system(cmd.c_str());
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream lf(log);
  std::stringstream ss;
  ss << lf.rdbuf();
  r.output = ss.str();
  if (fs::exists(out)) {
    std::ifstream f(out);
    r.report = nlohmann::json::parse(f, nullptr, false);
  }
  return r;
}

// A synthetic corpus (as test_gpt.cpp): English-like text that does not need the package.
Corpus corpus() {
  std::string s;
  const char* lines[] = {"The quick brown fox jumps over the lazy dog.\n",
                         "A journey of a thousand miles begins with a single step.\n",
                         "To be, or not to be, that is the question.\n",
                         "It was the best of times, it was the worst of times.\n"};
  uint64_t x = testing::test_seed();
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s += lines[(x >> 33) % 4];
  }
  return make_corpus(s, 0.1);
}

// The trainer's device (best limits, every feature, as open_training_device) with a trace.
Device traced_device(const std::string& dir) {
  DeviceDescriptor desc;
  desc.label = "gpt (traced)";
  desc.required_features = testing::adapter().features();
  desc.required_limits = testing::adapter().limits();
  desc.trace_dir = dir;
  return testing::make_device(desc);
}

constexpr uint32_t kSteps = 30, kBatch = 4;

// Trains the Small preset for `steps` with the loss read back after every step; returns the log.
// The device (and so the trace's files) is closed on return.
TrainLog record(const std::string& dir, uint32_t steps) {
  fs::remove_all(dir);
  Device dev = traced_device(dir);
  TrainConfig tc;
  tc.steps = steps;
  tc.batch = kBatch;
  tc.seed = testing::test_seed();
  tc.log_every = 1;
  tc.eval_every = 0;
  const ModelConfig mc = preset("small");
  GpuGpt model(dev, mc, kBatch, tc.adamw(), {AttentionImpl::FA2, MatmulImpl::Vec4});
  model.set_params(init_params(mc, tc.seed));
  TrainHooks hooks;
  hooks.progress = nullptr;
  return train(model, tc, corpus(), hooks);
}

std::string trace_dir(const char* name) {
  return (fs::temp_directory_path() /
          ("wgslvk_dawn_" + std::string(name) + "_" + std::to_string(::getpid())))
      .string();
}

// ---- the trace itself (no Dawn needed for the first checks) ------------------------------------

std::vector<nlohmann::json> trace_lines(const std::string& dir) {
  std::vector<nlohmann::json> out;
  std::ifstream in(dir + "/trace.jsonl");
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

std::vector<uint8_t> blob_at(const std::string& dir, uint64_t at, uint64_t size) {
  std::ifstream f(dir + "/blob.bin", std::ios::binary);
  std::vector<uint8_t> b(size);
  f.seekg(std::streamoff(at));
  f.read(reinterpret_cast<char*>(b.data()), std::streamsize(size));
  return b;
}

// Every call of a small explicit-layout program is in the trace, in order, with its bytes; the
// same trace replays on Dawn bit for bit (a + b is exact on both). Covers what the trainer does
// not: an explicit layout, a bind group at a non-zero offset, clear_buffer, a copy before a read.
// It spells out the raw WebGPU calls (layout entries and bind group entries by binding number,
// the kernel by name) on purpose: the trace of exactly those calls is what it checks.
TEST(GptDawn, TraceRecordsEveryCallWithItsBytes) {
  const std::string dir = trace_dir("calls");
  fs::remove_all(dir);
  const uint32_t n = 256;
  std::vector<float> a(n), b(n);
  auto r = testing::rng(12);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (uint32_t i = 0; i < n; ++i) a[i] = u(r), b[i] = u(r);
  std::vector<uint8_t> got;
  {
    DeviceDescriptor desc;
    desc.label = "traced";
    desc.trace_dir = dir;
    Device d = testing::make_device(desc);
    const uint64_t off = d.storage_offset_alignment();
    const BufferUsage rw = BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst;
    Buffer A = d.create_buffer({"a", n * 4, rw}), B = d.create_buffer({"b", n * 4, rw});
    Buffer O = d.create_buffer({"out", off + n * 4, rw}),
           R = d.create_buffer({"result", n * 4, rw});
    Buffer U = d.create_buffer({"dims", 16, BufferUsage::Uniform | BufferUsage::CopyDst});
    write<float>(d, A, a);
    write<float>(d, B, b);
    const uint32_t dims[4] = {n / 4, 0, 0, 0};
    d.queue().write_buffer(U, 0, dims, sizeof dims);
    BindGroupLayout L = d.create_bind_group_layout({"residual_add layout",
                                                    {{0, BindingType::ReadOnlyStorage, 0},
                                                     {1, BindingType::ReadOnlyStorage, 0},
                                                     {2, BindingType::Storage, 0},
                                                     {3, BindingType::Uniform, 16}}});
    ComputePipeline P =
        d.create_compute_pipeline({"add", &kernel("elementwise/residual_add"), {L}});
    BindGroup G = d.create_bind_group(
        {"add group", L, {{0, A, 0, {}}, {1, B, 0, {}}, {2, O, off, n * 4}, {3, U, 0, {}}}});
    CommandEncoder e = d.create_command_encoder({"enc"});
    e.clear_buffer(R);
    ComputePass pass = e.begin_compute_pass({"pass"});
    pass.set_pipeline(P);
    pass.set_bind_group(0, G);
    pass.dispatch_workgroups(1);
    pass.end();
    e.copy_buffer_to_buffer(O, off, R, 0, n * 4);
    d.queue().submit(e.finish());
    got = d.read_buffer(R);
  }
  std::vector<float> sum(n);
  std::memcpy(sum.data(), got.data(), n * 4);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(sum[i], a[i] + b[i]) << i;

  auto lines = trace_lines(dir);
  std::vector<std::string> ops;
  for (const auto& j : lines) ops.push_back(j["op"]);
  const std::vector<std::string> want = {"device",         "buffer",   "buffer",     "buffer",
                                         "buffer",         "buffer",   "write",      "write",
                                         "write",          "bgl",      "pipeline",   "bind_group",
                                         "encoder",        "clear",    "begin_pass", "set_pipeline",
                                         "set_bind_group", "dispatch", "end_pass",   "copy",
                                         "finish",         "submit",   "read"};
  ASSERT_EQ(ops, want);
  EXPECT_EQ(lines[0]["format"], "wgslvk-trace-1");
  EXPECT_EQ(blob_at(dir, lines[6]["blob"], n * 4),
            std::vector<uint8_t>(reinterpret_cast<uint8_t*>(a.data()),
                                 reinterpret_cast<uint8_t*>(a.data()) + n * 4));
  EXPECT_EQ(blob_at(dir, lines[22]["blob"], n * 4), got);
  EXPECT_EQ(lines[9]["auto"], false);
  const auto& p = lines[10];
  EXPECT_EQ(p["layout"], "explicit");
  EXPECT_EQ(p["groups"], nlohmann::json::array({lines[9]["id"]}));
  EXPECT_EQ(p["entry"], "residual_add");
  EXPECT_EQ(p["wgsl"], "wgsl_ports/elementwise/04_elementwise.wgsl");
  {
    std::ifstream f(dir + "/" + p["source"].get<std::string>());
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(ss.str(), kernel("elementwise/residual_add").wgsl_source);
  }
  EXPECT_EQ(lines[11]["entries"][2]["offset"], lines[0]["storage_alignment"]);
  EXPECT_EQ(lines[11]["entries"][2]["size"], n * 4);

  if (!prereqs().missing.empty()) {
    std::printf("[dawn] SKIPPED the Dawn half of this test: prerequisites missing:%s\n",
                prereqs().missing.c_str());
  } else {
    Replay rp = replay(dir, "--rel-tol 0");
    if (rp.code != 77) {
      EXPECT_EQ(rp.code, 0) << rp.output;
      ASSERT_EQ(rp.report["read_list"].size(), 1u) << rp.output;
      EXPECT_TRUE(rp.report["read_list"][0]["bit_equal"].get<bool>()) << rp.output;
    }
  }
  fs::remove_all(dir);
}

// A trace folder that cannot be made is an error that names it.
TEST(GptDawn, UnwritableTraceFolderIsNamed) {
  const std::string file = trace_dir("notadir");
  std::ofstream(file) << "x";
  DeviceDescriptor desc;
  desc.trace_dir = file + "/sub";
  try {
    testing::make_device(desc);
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file + "/sub"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("trace_dir"), std::string::npos) << e.what();
  }
  fs::remove(file);
}

// The gate: every step's loss, Dawn vs wgslvk, within 1e-4 relative. Reason: both engines run
// the same WGSL math in f32 (wgslvk: the GLSL ports via glslang on the test's Vulkan device; Dawn:
// Tint's SPIR-V on Mesa 25 lavapipe), so they part only by rounding: instruction order, FMA
// contraction, transcendental approximations, each within the kernels' stated ULP bounds. The CPU
// parity test bounds the same 50-step Small trajectory against the double reference by 1e-4
// relative (measured <= 2e-7) with the same argument (one forward's loss within ~1e-6 of the
// reference; trajectories part only through gradients within f32 noise of zero); two engines each
// that close to the reference are within that of each other. 1e-4 is 100x inside issue 12's 1%
// bar, and a wrong kernel, a missed write or a wrong binding moves the loss by >= 1e-3 within a
// few steps (the tamper test below moves it by far more at step 1).
constexpr double kLossRel = 1e-4;

TEST(GptDawn, SmallTrainingReplaysOnDawnWithTheSameLosses) {
  REQUIRE_DAWN();
  const std::string dir = trace_dir("train");
  TrainLog log = record(dir, kSteps);
  ASSERT_EQ(log.train.size(), kSteps);
  ASSERT_TRUE(fs::exists(dir + "/trace.jsonl") && fs::exists(dir + "/blob.bin"));
  char rel[32];
  std::snprintf(rel, sizeof rel, "%g", kLossRel);
  Replay r = replay(dir, std::string("--gate gpt.loss_log --rel-tol ") + rel);
  if (r.code == 77) GTEST_SKIP() << "SKIPPED: Dawn has no usable adapter/device:\n" << r.output;
  ASSERT_FALSE(r.report.is_discarded() || r.report.is_null()) << r.output;
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(r.report["errors"].empty()) << r.report["errors"].dump();
  EXPECT_TRUE(r.report["crash"].is_null()) << r.report["crash"].dump();
  // One loss-log read per step, in order: Dawn's value against the loss the trainer logged.
  std::vector<const nlohmann::json*> reads;
  for (const auto& rd : r.report["read_list"])
    if (rd["label"] == "gpt.loss_log") reads.push_back(&rd);
  ASSERT_EQ(reads.size(), size_t(kSteps)) << r.output;
  double worst = 0;
  uint32_t worst_step = 0, bit_equal = 0;
  for (uint32_t i = 0; i < kSteps; ++i) {
    const auto& rd = *reads[i];
    ASSERT_EQ(rd["wgslvk"].size(), 1u);
    const float ours = rd["wgslvk"][0].get<float>(), dawn = rd["dawn"][0].get<float>();
    // The trace holds what the trainer read (not a stale or other buffer).
    EXPECT_EQ(ours, log.train[i].loss) << "step " << log.train[i].step;
    const double d = std::abs(double(dawn) - double(ours)) / std::abs(double(ours));
    EXPECT_LE(d, kLossRel) << "step " << log.train[i].step << ": wgslvk " << ours << ", Dawn "
                           << dawn;
    if (d > worst) worst = d, worst_step = log.train[i].step;
    bit_equal += rd["bit_equal"].get<bool>();
  }
  std::printf(
      "[dawn] Small, batch %u, %u steps: loss %.4f -> %.4f; Dawn vs wgslvk worst relative "
      "difference %.3g (step %u), %u/%u steps bit-identical (gate %g)\n",
      kBatch, kSteps, log.train.front().loss, log.train.back().loss, worst, worst_step, bit_equal,
      kSteps, kLossRel);
  fs::remove_all(dir);
}

// The chain can fail: replacing the initial weights in the trace's blob (what Dawn uploads; the
// recorded read-backs stay wgslvk's) must be reported at the first read-back, step 1's loss.
TEST(GptDawn, TamperedTraceIsReportedAsAMismatch) {
  REQUIRE_DAWN();
  const std::string dir = trace_dir("tamper");
  record(dir, 2);
  // The parameter upload: every write into the optimizer's weight mega-buffer (one per tensor).
  std::ifstream in(dir + "/trace.jsonl");
  std::string l;
  int64_t w_id = -1;
  std::vector<std::pair<uint64_t, uint64_t>> writes;  // (blob offset, size)
  uint64_t total = 0;
  while (std::getline(in, l)) {
    auto j = nlohmann::json::parse(l);
    if (j["op"] == "buffer" && j["label"] == "adamw.w") w_id = j["id"].get<int64_t>();
    if (j["op"] == "write" && w_id >= 0 && j["buffer"].get<int64_t>() == w_id) {
      writes.emplace_back(j["blob"].get<uint64_t>(), j["size"].get<uint64_t>());
      total += writes.back().second;
    }
  }
  ASSERT_GT(total, 500000u) << "no parameter upload in the trace";
  {
    // Every weight replaced by a fixed pseudo-random value in [-1, 1): a different model whose
    // logits are O(1) instead of O(0.01). (Scaling one tensor 3x was not enough: at
    // initialization the loss is ~ln(256) whatever the scale, and one seed moved it by < 1e-4.)
    std::fstream blob(dir + "/blob.bin", std::ios::in | std::ios::out | std::ios::binary);
    uint32_t h = 0x9e3779b9u;
    for (auto [at, size] : writes) {
      std::vector<float> w(size / 4);
      for (float& v : w) {
        h = h * 1664525u + 1013904223u;
        v = float(int32_t(h)) * (1.0f / 2147483648.0f);
      }
      blob.seekp(std::streamoff(at));
      blob.write(reinterpret_cast<const char*>(w.data()), std::streamsize(size));
    }
  }
  char rel[32];
  std::snprintf(rel, sizeof rel, "%g", kLossRel);
  Replay r = replay(dir, std::string("--gate gpt.loss_log --stop-on-mismatch --rel-tol ") + rel);
  if (r.code == 77) GTEST_SKIP() << "SKIPPED: Dawn has no usable adapter/device:\n" << r.output;
  EXPECT_EQ(r.code, 1) << r.output;
  ASSERT_FALSE(r.report.is_discarded() || r.report.is_null()) << r.output;
  ASSERT_EQ(r.report["read_list"].size(), 1u) << "the first read-back should fail";
  const auto& rd = r.report["read_list"][0];
  EXPECT_TRUE(rd["fail"].get<bool>());
  // O(1) logits move step 1's loss from ~ln(256) by far more than the gate (a 1e-2 margin over
  // it is kept loose on purpose: the batch is random).
  EXPECT_GT(rd["max_rel"].get<double>(), 100 * kLossRel) << rd.dump();
  std::printf("[dawn] tampered weights: step-1 loss wgslvk %.5f vs Dawn %.5f (rel %.3g): caught\n",
              rd["wgslvk"][0].get<double>(), rd["dawn"][0].get<double>(),
              rd["max_rel"].get<double>());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wgslvk::gpt
