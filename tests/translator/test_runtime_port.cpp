// Ports users bring at run time (translator::load_port, `--port/--wgsl`): a kernel that is not
// compiled into wgslvk is checked as the build checks it, registered, found and run like an
// embedded one; one whose ABI disagrees with its WGSL is refused with the build tool's message.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_device.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/utils.hpp"
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

// ---- a port is untrusted input (issue 26) ----------------------------------------------------------

// compile_glsl's error for `source` ("" when it compiles). No wall-clock bound: a source the
// bounds let through to glslang hangs or crashes it, which CTest reports (its timeout), and the
// bounds themselves take time linear in the source (memoized macro costs).
std::string compile_error(const std::string& source) {
  translator::CompileOptions o;
  o.kernel = "user/hostile";
  o.optimize = false;
  std::string msg;
  try {
    translator::compile_glsl(source, o);
  } catch (const translator::Error& e) { msg = e.what(); }
  return msg;
}

std::string with_body(const std::string& defines, const std::string& expr) {
  return "#version 450\nlayout(local_size_x = 1) in;\n" + defines +
         "layout(set = 0, binding = 0, std430) buffer Dst { float dst[]; };\n"
         "void main() { float a = dst[1]; dst[0] = " +
         expr + "; }\n";
}

// A macro doubling 20 times overflowed glslang's stack (SIGSEGV), 40 times never returned, and
// one expression of 20,000 terms overflowed it too: refused before glslang sees them.
TEST(RuntimePort, HostileSourcesAreBoundedBeforeGlslang) {
  std::string doubling = "#define A0 a\n";
  for (int i = 1; i <= 40; ++i)
    doubling += "#define A" + std::to_string(i) + " (A" + std::to_string(i - 1) + " + A" +
                std::to_string(i - 1) + ")\n";
  std::string m = compile_error(with_body(doubling, "A40"));
  EXPECT_NE(m.find("user/hostile: its macros expand to more than 1000000 tokens"),
            std::string::npos)
      << m;
  m = compile_error(with_body(doubling, "A20"));
  EXPECT_NE(m.find("expand to more than"), std::string::npos) << m;
  // The same through a function-like macro nested 40 deep.
  std::string nested = "a";
  for (int i = 0; i < 40; ++i) nested = "D(" + nested + ")";
  m = compile_error(with_body("#define D(x) ((x) + (x))\n", nested));
  EXPECT_NE(m.find("expand to more than"), std::string::npos) << m;
  // Exponential work with nothing to show for it (empty expansions) is bounded too.
  std::string empty = "#define E0()\n";
  for (int i = 1; i <= 40; ++i)
    empty += "#define E" + std::to_string(i) + "() E" + std::to_string(i - 1) + "() E" +
             std::to_string(i - 1) + "()\n";
  m = compile_error(with_body(empty, "E40() a"));
  EXPECT_NE(m.find("steps"), std::string::npos) << m;
  // The same with object-like macros: each repeat of a memoized expansion counts its work again.
  std::string empty_object = "#define B0\n";
  for (int i = 1; i <= 40; ++i)
    empty_object += "#define B" + std::to_string(i) + " B" + std::to_string(i - 1) + " B" +
                    std::to_string(i - 1) + "\n";
  m = compile_error(with_body(empty_object, "B40 a"));
  EXPECT_NE(m.find("steps"), std::string::npos) << m;
  // Through token pasting (CAT(A, 40) names A40 only after pasting), and A40.x.
  // (Sizing a pasted token walks every object-like macro, so either bound may be met first.)
  m = compile_error(with_body(doubling + "#define CAT(a, b) a##b\n", "CAT(A, 40)"));
  EXPECT_NE(m.find("; refused before compiling"), std::string::npos) << m;
  m = compile_error("#version 450\nlayout(local_size_x = 1) in;\n" + doubling +
                    "layout(set = 0, binding = 0, std430) buffer Dst { vec2 dst[]; };\n"
                    "void main() { vec2 a = dst[1]; dst[0] = vec2(A40.x); }\n");
  EXPECT_NE(m.find("expand to more than"), std::string::npos) << m;
  // 20,000 terms in one statement, and 100,000 nested parentheses.
  std::string sum = "a";
  for (int i = 1; i < 20000; ++i) sum += " + a";
  m = compile_error(with_body("", sum));
  EXPECT_NE(m.find("one statement holds more than 2048 operators"), std::string::npos) << m;
  m = compile_error(with_body("", std::string(100000, '(') + "a" + std::string(100000, ')')));
  EXPECT_NE(m.find("nest deeper than 256"), std::string::npos) << m;
  // Below every bound, the same shapes compile (the bounds refuse only what is absurd).
  std::string ten = "a";
  for (int i = 1; i < 1000; ++i) ten += " + a";
  EXPECT_EQ(compile_error(with_body(doubling, "A8 + " + ten)), "");
}

// A private `uint big[1 << 30]` crashed the driver's pipeline creation (1 << 24: an uncaught
// std::bad_alloc); a huge shared array wrapped the 32-bit workgroup total. Both are refused when
// the pipeline is created, before Vulkan sees the module.
TEST(RuntimePort, PrivateAndWorkgroupMemoryAreBoundedAtPipelineCreation) {
  auto load = [&](const std::string& family, const std::string& decl, const std::string& use) {
    fs::path d = scratch_dir(family);
    write(d / "user_file.wgsl", kWgsl);
    std::string src = port(true);
    src.replace(src.find("void main() {"), 13, decl + "\nvoid main() {\n" + use);
    write(d / "user_scale.comp", src);
    translator::PortFiles pf;
    pf.comp_path = (d / "user_scale.comp").string();
    pf.wgsl_path = (d / "user_file.wgsl").string();
    pf.family = family;
    return &translator::load_port(pf);
  };
  auto pipeline_error = [&](const KernelInfo* k) {
    try {
      wgslvk::testing::device().create_compute_pipeline({.kernel = k});
    } catch (const ValidationError& e) { return std::string(e.what()); }
    return std::string("created");
  };
  const std::string use =
      "  uint j = gl_GlobalInvocationID.x;\n  big[j % 7u] = j;\n"
      "  if (big[(j * 3u) % 7u] == 12345u) dst[j] = 0.0;\n";
  for (const char* n : {"1 << 24", "1 << 30"}) {
    std::string e = pipeline_error(load(std::string("user_private_") + (n[5] == '2' ? "24" : "30"),
                                        "", "  uint big[" + std::string(n) + "];\n" + use));
    EXPECT_NE(e.find("function and private variables per invocation, more than wgslvk's limit "
                     "of 65536 bytes"),
              std::string::npos)
        << e;
  }
  std::string e = pipeline_error(load("user_shared", "shared uint big[1 << 30];", use));
  EXPECT_NE(e.find("4294967296 bytes of workgroup memory, more than "
                   "maxComputeWorkgroupStorageSize"),
            std::string::npos)
      << e;
  // A small private array still makes a pipeline.
  EXPECT_EQ(pipeline_error(load("user_private_small", "", "  uint big[64];\n" + use)), "created");
}

// WebGPU: an out-of-bounds write stays inside its binding. A port that writes 256 floats into a
// binding of 64 (bytes [256, 512) of a 1 KiB buffer) leaves the rest of the buffer as it was
// (robustBufferAccess, requested on every device). lavapipe bounds-checks storage accesses
// anyway; on a GPU driver without the feature the writes past the binding land in [512, 1024).
TEST(RuntimePort, OutOfBoundsWritesStayInsideTheBinding) {
  fs::path d = scratch_dir("oob");
  write(d / "user_file.wgsl", kWgsl);
  std::string src = port(true);
  src.replace(src.find("if (i < params.n) "), 18, "");  // no bounds check at all
  write(d / "user_scale.comp", src);
  translator::PortFiles pf;
  pf.comp_path = (d / "user_scale.comp").string();
  pf.wgsl_path = (d / "user_file.wgsl").string();
  pf.family = "user_oob";
  const KernelInfo& k = translator::load_port(pf);
  Device& dev = wgslvk::testing::device();
  std::vector<float> x(256, 2.0f), initial(256);
  Rng r(wgslvk::testing::test_seed());
  for (auto& v : initial) v = r.log_uniform(-10, 10);
  Buffer xs = utils::make_buffer_from(dev, "x", x);
  Buffer out = utils::make_buffer_from(dev, "out", initial);
  struct {
    uint32_t n;
    float scale;
    uint32_t pad0, pad1;
  } params{256, 3.0f, 0, 0};
  Buffer u = utils::make_uniform(dev, "params", params);
  utils::run_dispatch(dev, k, {{0, xs}, {1, out, 256, 256}, {2, u}}, Grid{4, 1});
  std::vector<uint8_t> bytes = dev.read_buffer(out);
  std::vector<float> got(256);
  std::memcpy(got.data(), bytes.data(), 1024);
  for (size_t i = 0; i < 256; ++i) {
    if (i >= 64 && i < 128)
      EXPECT_EQ(got[i], 6.0f) << i;  // inside the binding: written
    else
      EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(initial[i]))
          << "element " << i << " outside the binding was written";
  }
}

}  // namespace
