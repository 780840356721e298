// Ports users bring at run time (translator::load_port, `--port/--wgsl`): a kernel that is not
// compiled into wgslvk is checked as the build checks it, registered, found and run like an
// embedded one; one whose ABI disagrees with its WGSL is refused with the build tool's message.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_device.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/validate/case_builder.hpp"
#include "wgslvk/validate/runner.hpp"

namespace {

namespace fs = std::filesystem;
using namespace wgslvk;
using namespace wgslvk::validate;

constexpr const char* kWgsl = R"(struct Params { n: u32, scale: f32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
@compute @workgroup_size(64)
fn user_scale(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < params.n) { dst[g.x] = params.scale * src[g.x]; }
}
)";

std::string port(bool readonly_src) {
  return std::string("#version 450\nlayout(local_size_x = 64) in;\n") +
         "layout(set = 0, binding = 0, std430) " + (readonly_src ? "readonly " : "") +
         "buffer Src { float src[]; };\n"
         "layout(set = 0, binding = 1, std430) buffer Dst { float dst[]; };\n"
         "layout(set = 0, binding = 2, std140) uniform Params { uint n; float scale; uint pad0; "
         "uint pad1; } params;\n"
         "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  if (i < params.n) dst[i] = "
         "params.scale * src[i];\n}\n";
}

fs::path scratch_dir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("wgslvk_runtime_port_" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

TEST(RuntimePort, LoadsChecksRegistersAndRuns) {
  fs::path d = scratch_dir("good");
  write(d / "user_file.wgsl", kWgsl);
  write(d / "user_scale.comp", port(true));
  translator::PortFiles pf;
  pf.comp_path = (d / "user_scale.comp").string();
  pf.wgsl_path = (d / "user_file.wgsl").string();
  const KernelInfo& k = translator::load_port(pf);
  EXPECT_EQ(k.qualified_name(), "user_file/user_scale");
  EXPECT_EQ(find_kernel("user_file/user_scale"), &k);
  EXPECT_EQ(k.workgroup_size[0], 64u);
  ASSERT_EQ(k.bindings.size(), 3u);
  EXPECT_EQ(k.bindings[0].type, BindingType::ReadOnlyStorage);
  EXPECT_THROW(translator::load_port(pf), std::invalid_argument);  // the name is taken now

  // Run it through the case runner against a reference on fresh inputs (exact: one multiply).
  Rng r(wgslvk::testing::test_seed());
  const uint32_t n = 1000;
  const float scale = 1.5f;
  std::vector<float> x(n), want(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = r.log_uniform(-10, 10), want[i] = scale * x[i];
  CaseBuilder b;
  b.c.kernel = "user_file/user_scale";
  b.c.name = "fresh";
  b.input("src", DType::F32, x);
  b.output("dst", DType::F32, n);
  auto& disp = b.dispatch("user_file/user_scale");
  CaseBuilder::bind(disp, 0, "src");
  CaseBuilder::bind(disp, 1, "dst");
  ojson values =
      ojson::array({CaseBuilder::u32s({n}), CaseBuilder::f32s({scale}), CaseBuilder::u32s({0, 0})});
  CaseBuilder::bind_values(disp, 2, values);
  disp.workgroups_1d = (n + 63) / 64;
  b.check_exact("dst", Array::of(DType::F32, want), "one f32 multiply, correctly rounded");
  Runner runner(wgslvk::testing::device());
  CaseResult res = runner.run(b.c);
  EXPECT_EQ(res.status, CaseResult::Status::Pass) << res.message;
  // The check can fail: a wrong expected element is reported.
  want[17] = -want[17];
  b.c.checks[0].expected = Array::of(DType::F32, want);
  EXPECT_EQ(runner.run(b.c).status, CaseResult::Status::Fail);
}

TEST(RuntimePort, AbiMismatchIsRefusedWithTheBuildToolsMessage) {
  fs::path d = scratch_dir("bad");
  write(d / "user_file.wgsl", kWgsl);
  write(d / "user_scale.comp", port(false));  // src writable: the WGSL says read
  translator::PortFiles pf;
  pf.comp_path = (d / "user_scale.comp").string();
  pf.wgsl_path = (d / "user_file.wgsl").string();
  pf.family = "user_bad";
  std::string runtime_msg;
  try {
    translator::load_port(pf);
    FAIL() << "a port whose access mode disagrees with its WGSL was accepted";
  } catch (const translator::Error& e) { runtime_msg = e.what(); }
  EXPECT_NE(runtime_msg.find("@group(0) @binding(0) src"), std::string::npos) << runtime_msg;
  EXPECT_EQ(find_kernel("user_bad/user_scale"), nullptr);

  // The build tool on the same files prints the same message.
  fs::path err = d / "translate.err";
  std::string cmd =
      std::string(WGSLVK_TRANSLATE_TOOL) + " --file user_bad --kernel user_scale --comp " +
      (d / "user_scale.comp").string() + " --wgsl " + (d / "user_file.wgsl").string() + " --out " +
      (d / "out.cpp").string() + " 2> " + err.string();
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream f(err);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), "wgslvk-translate: error: " + runtime_msg + "\n");
}

}  // namespace
