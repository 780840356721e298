// WGSL brought at run time with no hand port (translator::load_wgsl, `--wgsl X.wgsl` alone), and
// every shipped kernel translated from its WGSL by the front end (translator::translate_shipped,
// `validate --translate`): the translation runs every golden case with outputs bit-identical to
// the hand port's, where WGSL fixes the evaluation order.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "support/test_device.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/validate/case_builder.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/runner.hpp"

namespace {

namespace fs = std::filesystem;
using namespace wgslvk;
using namespace wgslvk::validate;

fs::path scratch_dir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("wgslvk_runtime_wgsl_" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

// A user's kernel as a browser developer writes it: a uniform struct, a helper function, a loop,
// integer division (by a uniform that may be 0: WGSL defines x / 0 = x), a select.
constexpr const char* kUserWgsl = R"(struct Params { n: u32, scale: f32, div: u32, pad: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read_write> idx: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

fn twice(x: f32) -> f32 { return x + x; }

@compute @workgroup_size(64)
fn user_scale(@builtin(global_invocation_id) g: vec3<u32>) {
  let i = g.x;
  if (i >= params.n) { return; }
  var acc = 0.0;
  for (var k = 0u; k < 3u; k++) { acc += src[i]; }
  dst[i] = select(twice(acc) * params.scale, -1.0, src[i] < 0.0);
  idx[i] = i / params.div;
}
)";

TEST(RuntimeWgsl, UserWgslTranslatesRegistersAndRuns) {
  fs::path d = scratch_dir("user");
  write(d / "user_kernels.wgsl", kUserWgsl);
  translator::WgslFiles w;
  w.wgsl_path = (d / "user_kernels.wgsl").string();
  auto ks = translator::load_wgsl(w);
  ASSERT_EQ(ks.size(), 1u);
  const KernelInfo& k = *ks[0];
  EXPECT_EQ(k.qualified_name(), "user_kernels/user_scale");
  EXPECT_EQ(find_kernel("user_kernels/user_scale"), &k);
  EXPECT_EQ(k.workgroup_size[0], 64u);
  ASSERT_EQ(k.bindings.size(), 4u);
  EXPECT_EQ(k.bindings[0].type, BindingType::ReadOnlyStorage);
  EXPECT_EQ(k.bindings[3].type, BindingType::Uniform);
  EXPECT_THROW(translator::load_wgsl(w), std::invalid_argument);  // the name is taken now

  for (uint32_t div : {3u, 0u}) {
    Rng r(wgslvk::testing::test_seed() + div);
    const uint32_t n = 1000;
    const float scale = 1.5f;
    std::vector<float> x(n), want(n);
    std::vector<uint32_t> want_idx(n);
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = r.log_uniform(-10, 10) * (i % 3 ? 1.f : -1.f);
      float acc = 0.f;
      for (int t = 0; t < 3; ++t) acc += x[i];
      want[i] = x[i] < 0 ? -1.f : (acc + acc) * scale;
      want_idx[i] = div ? i / div : i;  // WGSL: x / 0 = x
    }
    CaseBuilder b;
    b.c.kernel = k.qualified_name();
    b.c.name = "fresh_div" + std::to_string(div);
    b.input("src", DType::F32, x);
    b.output("dst", DType::F32, n);
    b.output("idx", DType::U32, n);
    auto& disp = b.dispatch(k.qualified_name());
    CaseBuilder::bind(disp, 0, "src");
    CaseBuilder::bind(disp, 1, "dst");
    CaseBuilder::bind(disp, 2, "idx");
    CaseBuilder::bind_values(disp, 3,
                             ojson::array({CaseBuilder::u32s({n}), CaseBuilder::f32s({scale}),
                                           CaseBuilder::u32s({div, 0})}));
    disp.workgroups_1d = (n + 63) / 64;
    b.check_exact("dst", Array::of(DType::F32, want),
                  "three f32 adds in order, a doubling and one multiply, each correctly rounded");
    b.check_exact("idx", Array::of(DType::U32, want_idx), "u32 division; WGSL's x / 0 = x");
    Runner runner(wgslvk::testing::device());
    CaseResult res = runner.run(b.c);
    EXPECT_EQ(res.status, CaseResult::Status::Pass) << res.message;
    want_idx[5] ^= 1;  // the check can fail
    b.c.checks[1].expected = Array::of(DType::U32, want_idx);
    EXPECT_EQ(runner.run(b.c).status, CaseResult::Status::Fail);
  }
}

TEST(RuntimeWgsl, InvalidWgslIsRefusedWithFileLineAndColumn) {
  fs::path d = scratch_dir("bad");
  write(d / "user_bad.wgsl",
        "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n"
        "@compute @workgroup_size(1)\nfn main() {\n  a[0] = 1.5;\n}\n");
  translator::WgslFiles w;
  w.wgsl_path = (d / "user_bad.wgsl").string();
  try {
    translator::load_wgsl(w);
    FAIL() << "an f32 stored to an array<u32> was accepted";
  } catch (const translator::Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("user_bad.wgsl:4:"), std::string::npos) << m;
    EXPECT_NE(m.find("[type]"), std::string::npos) << m;
  }
  EXPECT_EQ(find_kernel("user_bad/main"), nullptr);
}

// Cases whose outputs may legitimately differ between hand port and translation, with why. Each
// still passes its case's bound (checked above); only bit identity is waived.
const std::string kAtomicOrder =
    "float adds through atomics (a compare-exchange loop, or atomicAdd on f32): the order of the "
    "adds is the invocations' race, fixed by neither WGSL nor the device";
const std::string kGeluConstants =
    "gelu_grad is written differently by the two (WGSL's folded constants 2.0 * GELU_K and "
    "3.0 * GELU_C as literals, select as ?: or mix), and the compiler may contract a*b+c into an "
    "fma (allowed by WGSL and Vulkan), so the order is not fixed; not yet traced to one expression "
    "(seen on lavapipe and the H200)";
const std::map<std::string, std::string> kKnownDifferences = {
    {"elementwise/gelu_backward/basic", kGeluConstants},
    {"elementwise/gelu_backward/nonfinite", kGeluConstants},
    {"embedding/embed_backward/basic", kAtomicOrder},
    {"embedding/embed_backward/grid_2d", kAtomicOrder},
    {"embedding/embed_backward/nonfinite_and_oov", kAtomicOrder},
    {"embedding/embed_backward/repeated_tokens", kAtomicOrder},
    {"embedding/embed_backward_atomic_float/basic", kAtomicOrder},
    {"embedding/embed_backward_atomic_float/nonfinite_and_oov", kAtomicOrder},
    {"embedding/embed_backward_atomic_float/repeated_tokens", kAtomicOrder},
};

TEST(TranslateShipped, EveryGoldenCaseBitIdenticalToTheHandPort) {
  // Translate every shipped WGSL entry point first: all must translate.
  std::map<std::string, const KernelInfo*> hand, translated;
  std::vector<std::string> failures;
  for (const KernelInfo* k : embedded_kernels()) {
    if (!k->in_wgsl) continue;
    // Not translated by the front end: chromium_experimental_subgroup_matrix (issue 24; the
    // subgroup_matrix family's hand port is checked by tests/subgroup_matrix).
    if (kernel_uses_subgroup_matrix(*k)) continue;
    try {
      translated[k->qualified_name()] = &translator::translate_shipped(*k);
      hand[k->qualified_name()] = k;
    } catch (const std::exception& e) { failures.push_back(e.what()); }
  }
  for (const auto& f : failures) ADD_FAILURE() << "not translated: " << f;

  auto run_all = [&](const std::vector<Case>& cases) {
    std::vector<CaseResult> out;
    RunOptions ro;
    ro.timestamps = false;
    Runner runner(wgslvk::testing::device(), ro);
    for (const auto& c : cases) out.push_back(runner.run(c));
    return out;
  };
  std::vector<Case> cases;
  for (const auto& dir : find_cases(golden_dir())) {
    Case c = load_case(dir);
    bool all_translated = true;
    for (const auto& d : c.dispatches) {
      const KernelInfo* k = find_kernel(d.kernel);
      all_translated &= k && (!k->in_wgsl || translated.count(k->qualified_name()));
    }
    if (all_translated) cases.push_back(std::move(c));
  }
  ASSERT_GT(cases.size(), 100u) << "the golden cases were not found";
  auto with_ports = run_all(cases);
  for (const auto& [name, k] : translated) replace_kernel(k);
  auto with_translation = run_all(cases);
  for (const auto& [name, k] : hand) replace_kernel(k);

  size_t compared = 0, identical = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& a = with_ports[i];
    const auto& b = with_translation[i];
    if (a.status == CaseResult::Status::Skip) continue;
    EXPECT_EQ(a.status, CaseResult::Status::Pass) << a.id << ": " << a.message;
    EXPECT_EQ(b.status, CaseResult::Status::Pass) << b.id << " (translated): " << b.message;
    bool same = a.outputs.size() == b.outputs.size();
    std::string where;
    for (const auto& [buf, arr] : a.outputs) {
      auto it = b.outputs.find(buf);
      if (it == b.outputs.end() || it->second.bytes != arr.bytes) {
        same = false;
        where += " " + buf;
      }
    }
    ++compared;
    identical += same;
    if (!same && !kKnownDifferences.count(a.id))
      ADD_FAILURE() << a.id << ": translated outputs differ from the hand port's in" << where;
  }
  std::printf("translated vs hand port: %zu of %zu golden cases bit-identical (%zu kernels)\n",
              identical, compared, translated.size());
}

}  // namespace
