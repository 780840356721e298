// The GLSL emitter of the WGSL front end (translator/wgsl/src/emit_glsl.cpp):
//  - what the GLSL of small snippets must contain (not whole files);
//  - every compute entry point of every shipped WGSL file translates, and the GLSL goes through
//    the hand ports' path (glslang, spirv-val, spirv-opt, reflection, the ABI check against the
//    WGSL): the real proof that the layout, access modes and static use are WGSL's;
//  - WGSL's semantics where GLSL's differ, run on the test device against WGSL's rules computed
//    here on the CPU, on random inputs plus the edge cases each rule is about.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "support/test_device.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/utils.hpp"
#include "wgslvk/wgsl/frontend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace wgslvk;

std::string glsl_of(const std::string& wgsl, const std::string& entry = {},
                    std::map<std::string, double> constants = {}) {
  wgsl::TranslateOptions o;
  o.file_name = "test.wgsl";
  o.entry_point = entry;
  o.constants = std::move(constants);
  try {
    return wgsl::translate_to_glsl(wgsl, o).glsl;
  } catch (const wgsl::Error& e) {
    ADD_FAILURE() << e.what() << "\n--- WGSL:\n" << wgsl;
    return {};
  }
}

// The diagnostics of a translation that must fail.
std::string errors_of(const std::string& wgsl, const std::string& entry = {}) {
  wgsl::TranslateOptions o;
  o.file_name = "test.wgsl";
  o.entry_point = entry;
  try {
    std::string g = wgsl::translate_to_glsl(wgsl, o).glsl;
    ADD_FAILURE() << "translated, expected an error:\n" << g;
  } catch (const wgsl::Error& e) { return e.what(); }
  return {};
}

// Compiles the GLSL through the hand ports' path and checks it against the WGSL's ABI.
translator::TranslatedKernel compile(const std::string& wgsl, const std::string& glsl,
                                     const std::string& entry, const std::string& file = "emit") {
  translator::KernelSource src;
  src.file = file;
  src.name = entry;
  src.glsl = glsl;
  src.wgsl = wgsl;
  return translator::translate(src);
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

#define EXPECT_HAS(text, what) \
  EXPECT_TRUE(contains(text, what)) << "missing: " << (what) << "\n" << (text)
#define EXPECT_LACKS(text, what) \
  EXPECT_FALSE(contains(text, what)) << "unexpected: " << (what) << "\n" << (text)

// ---- A translated kernel on the test device ---------------------------------------------------

struct DeviceKernel {
  std::string glsl;
  translator::TranslatedKernel t;
  std::deque<std::string> strings;
  std::vector<KernelBinding> bindings;
  KernelInfo info;
};

std::unique_ptr<DeviceKernel> build(const std::string& wgsl, const std::string& entry,
                                    std::map<std::string, double> constants = {}) {
  auto k = std::make_unique<DeviceKernel>();
  k->glsl = glsl_of(wgsl, entry, std::move(constants));
  if (k->glsl.empty()) return nullptr;
  try {
    k->t = compile(wgsl, k->glsl, entry);
  } catch (const translator::Error& e) {
    ADD_FAILURE() << e.what() << "\n--- GLSL:\n" << k->glsl;
    return nullptr;
  }
  for (const auto& b : k->t.abi.bindings) {
    KernelBinding kb;
    kb.group = b.group;
    kb.binding = b.binding;
    kb.type = b.type;
    kb.name = k->strings.emplace_back(b.name);
    kb.wgsl_type = k->strings.emplace_back(b.wgsl_type);
    kb.glsl_name = k->strings.emplace_back(b.glsl_name);
    kb.min_binding_size = b.min_binding_size;
    kb.array_stride = b.array_stride;
    kb.statically_used = b.statically_used;
    k->bindings.push_back(kb);
  }
  KernelInfo& i = k->info;
  i.file = "emit";
  i.name = k->strings.emplace_back(entry);
  i.wgsl_file = "test.wgsl";
  i.workgroup_size = k->t.reflection.workgroup_size;
  i.workgroup_storage_bytes = k->t.reflection.workgroup_storage_bytes;
  i.needs_shader_f16 = k->t.abi.needs_shader_f16;
  i.bindings = k->bindings;
  i.spirv = k->t.module.spirv;
  i.spirv_opt = k->t.module.spirv_opt;
  i.glsl_source = k->glsl;
  i.wgsl_source = k->strings.emplace_back(wgsl);
  return k;
}

template <class T>
Buffer buffer_of(const std::vector<T>& v, const std::string& label) {
  return utils::make_buffer_from(wgslvk::testing::device(), label, v);
}

template <class T>
std::vector<T> read_back(const Buffer& b, size_t n) {
  return read<T>(wgslvk::testing::device(), b, 0, n);
}

void run(const DeviceKernel& k, std::vector<BindGroupEntry> entries, uint32_t workgroups = 1) {
  utils::run_dispatch(wgslvk::testing::device(), k.info, std::move(entries), Grid{workgroups, 1});
}

// ---- Snippets ---------------------------------------------------------------------------------

TEST(WgslEmit, HeaderResourcesAndNames) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> dims: vec4<u32>;
@group(0) @binding(3) var<storage, read_write> unused_one: array<f32>;
const SCALE: f32 = 0.1;
@compute @workgroup_size(64, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let mix = gid.x;
  if (mix >= dims.x) { return; }
  output[mix] = SCALE * input[mix];
}
)";
  std::string g = glsl_of(w);
  EXPECT_HAS(g, "#version 450");
  EXPECT_HAS(g, "test.wgsl, entry point main");
  EXPECT_HAS(g, "layout(local_size_x = 64, local_size_y = 2, local_size_z = 1) in;");
  EXPECT_HAS(g, "layout(set = 0, binding = 0, std430) readonly buffer");
  EXPECT_HAS(g, "layout(set = 0, binding = 1, std430) buffer");
  EXPECT_HAS(g, "layout(set = 0, binding = 2, std140) uniform");
  EXPECT_LACKS(g, "unused_one");              // not statically used: not declared
  EXPECT_HAS(g, "const float SCALE = 0.1;");  // exact: 0.1f reads back from "0.1"
  EXPECT_HAS(g, "float input_w[];");          // GLSL reserves `input` and `output`
  EXPECT_HAS(g, "uint mix_w = gid.x;");       // a local `mix` would hide GLSL's mix()
  EXPECT_HAS(g, "uvec3 gid = gl_GlobalInvocationID;");
  EXPECT_LACKS(g, "float output[]");
  compile(w, g, "main");
}

TEST(WgslEmit, ExactLiteralsAndOverrides) {
  const std::string w = R"(
override BLOCK: u32 = 64;
override GAIN = 1.5;
const M: i32 = -2147483648;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
var<workgroup> tile: array<f32, BLOCK>;
@compute @workgroup_size(BLOCK)
fn k(@builtin(local_invocation_index) i: u32) {
  tile[i] = f32(i) * GAIN + 1.0000001 + 0.3 + 80.0;
  workgroupBarrier();
  o[i] = tile[BLOCK - 1u - i];
  o[0] = f32(M + i32(i));
  o[1] = f32(-16777217) * f32(i);
}
)";
  std::string g = glsl_of(w, "k", {{"BLOCK", 128}});
  EXPECT_HAS(g, "const uint BLOCK = 128u;");
  EXPECT_HAS(g, "override BLOCK");
  EXPECT_HAS(g, "const float GAIN = 1.5;");
  EXPECT_HAS(g, "layout(local_size_x = 128,");
  EXPECT_HAS(g, "shared float tile[128];");
  // The shortest decimal that reads back as the same f32; whole numbers as such.
  EXPECT_HAS(g, "1.0000001 + 0.3 + 80.0");
  EXPECT_HAS(g, "const int M = (-2147483647 - 1);");
  EXPECT_HAS(g, "-16777216.0");  // f32(-16777217) rounds to even
  // The ABI check reads overrides at their defaults: compile the default translation.
  std::string d = glsl_of(w, "k");
  EXPECT_HAS(d, "shared float tile[64];");
  compile(w, d, "k");
}

TEST(WgslEmit, SemanticsHelpersAppearOnlyWhenUsed) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> a: array<i32>;
@compute @workgroup_size(1)
fn k() {
  a[0] = a[1] / a[2];
  a[3] = a[4] / 4;
  a[5] = a[6] << u32(a[7]);
}
)";
  std::string g = glsl_of(w);
  EXPECT_HAS(g, "wgsl_div_int(");
  EXPECT_LACKS(g, "wgsl_mod_int");
  EXPECT_LACKS(g, "wgsl_convert");
  EXPECT_HAS(g, "& 31u");
  compile(w, g, "k");
}

TEST(WgslEmit, StructResourcesTakeWgslLayout) {
  const std::string w = R"(
struct Params {
  n: u32,
  @align(16) scale: f32,
  v: vec3<f32>,
  tail: f32,
}
struct Elem { a: vec2<f32>, b: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<Elem>;
@group(1) @binding(0) var<storage, read_write> sized: Sized;
struct Sized { count: u32, items: array<u32> }
@compute @workgroup_size(1)
fn k() {
  let p = params;
  data[0].b = p.n + u32(params.scale + params.v.y + params.tail);
  sized.items[0] = arrayLength(&sized.items) + sized.count;
}
)";
  std::string g = glsl_of(w);
  EXPECT_HAS(g, "layout(offset = 16) float scale;");
  EXPECT_HAS(g, "} params;");
  EXPECT_HAS(g, "Params p = Params(params.n, params.scale, params.v, params.tail);");
  EXPECT_HAS(g, "sized.items.length()");
  compile(w, g, "k");
}

TEST(WgslEmit, UntranslatableIsUnsupportedNotWrong) {
  // A uniform matrix with 2 rows is held as its column vectors (WGSL's column stride is 8,
  // std140's 16): a pointer to one has no GLSL memory to designate.
  std::string e = errors_of(R"(
struct U { a: f32, m: mat2x2<f32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn k() { let p = &u.m; o[0] = (*p)[0][0]; }
)");
  EXPECT_HAS(e, "[unsupported]");
  EXPECT_HAS(e, "held as its columns");
}

TEST(WgslEmit, ManyConstructsCompileAndKeepTheAbi) {
  // f16 and subgroups, an input struct, builtin result structs, a uniform struct with a matrix
  // and an array, storage/workgroup barriers, workgroupUniformLoad, a large zeroed array, a
  // private variable with an initializer, float %, integer dot and clamp, reserved names.
  const std::string w = R"(
enable f16;
enable subgroups;
struct In { @builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32> }
struct U { a: vec3<f32>, b: f32, m: mat4x4<f32>, arr: array<vec4<u32>, 2> }
struct E { x: f16, y: vec2<f16>, z: u32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> es: array<E>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<private> counter: u32 = 7u;
var<workgroup> wg_val: f32;
var<workgroup> grid: array<array<f32, 3>, 70>;
fn helper__x(gl_thing: f32) -> f32 { return gl_thing * 2.0; }
@compute @workgroup_size(64)
fn k(inp: In, @builtin(subgroup_size) sgs: u32, @builtin(subgroup_invocation_id) sgi: u32) {
  let i = inp.lid.x + inp.wid.x * 64u;
  let fr = frexp(u.b);
  let mf = modf(vec2<f32>(u.a.x, -2.5));
  out[i] = fr.fract + f32(fr.exp) + mf.whole.y + mf.fract.x;
  let s = subgroupAdd(out[i]) + f32(subgroupBallot(true).x) + subgroupBroadcast(out[i], 0u);
  storageBarrier();
  if (inp.lid.x == 0u) { wg_val = s; }
  let w = workgroupUniformLoad(&wg_val);
  var big: array<vec4<f32>, 100>;
  big[i % 100u] = u.m[i % 4u] + vec4<f32>(f32(u.arr[1].y));
  counter += 1u;
  let h = es[i].x * es[i].y.y + f16(1.5);
  es[i].y = vec2<f16>(h, h * 2.0h);
  es[i].z = bitcast<u32>(es[i].y);
  switch (i % 4u) { case 0u, 2u: { out[0] = 1.0; } default: {} }
  out[i] = w + helper__x(big[3].x) + f32(counter) + f32(sgs + sgi) + grid[i % 70u][2];
  let c = u.b % 2.5;
  out[1] = c + f32(u.a.z) + round(u.b) + clamp(u.b, 0.0, 1.0) + f32(clamp(i32(i), -3, 3));
  let q = dot(vec3<i32>(1, 2, 3), vec3<i32>(i32(i)));
  out[2] = f32(q) + ldexp(u.b, 3) + saturate(u.b);
}
)";
  std::string g = glsl_of(w);
  for (const char* want : {"#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require",
                           "#extension GL_KHR_shader_subgroup_arithmetic : require",
                           "In inp = In(gl_LocalInvocationID, gl_WorkGroupID);",
                           "uint sgs = gl_SubgroupSize;",
                           "wgsl_frexp_float(u.b)",
                           "} u;",
                           "float16_t x;",
                           "f16vec2 y;",
                           "uint counter;",
                           "counter = 7u;",
                           "controlBarrier(",
                           "float uniform_load = wg_val;",
                           "vec4 big[100];  // zero-initialised below",
                           "grid[wgsl_i / 3u][(wgsl_i) % 3u] = 0.0;",
                           "wgsl_fmod_float(u.b, 2.5)",
                           "roundEven(u.b)",
                           "min(max(int(i), -3), 3)",
                           "wgsl_dot_ivec3(",
                           "float helper_Ux(float wgl_thing)",
                           "case 0u: case 2u: {",
                           "} break;"})
    EXPECT_HAS(g, want);
  compile(w, g, "k");
}

TEST(WgslEmit, HoistingThatWouldChangeWgslsEvaluationIsRefused) {
  std::string e = errors_of(R"(
@group(0) @binding(0) var<storage, read_write> c: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
fn bump() -> u32 { o[1] = 1u; return 1u; }
@compute @workgroup_size(1) fn k() {
  var i = 0u;
  loop {
    switch (i) { case 1u: { continue; } default: {} }
    continuing { i += 1u; break if i > 3u; }
  }
  let b = i > 0u || atomicCompareExchangeWeak(&c, 0u, 1u).exchanged;
  let r = bump() + atomicCompareExchangeWeak(&c, 0u, 1u).old_value;
  o[0] = select(0u, 1u, b) + r;
}
)");
  // The loop's `continue` in a switch with `break if` translates now (a flag; see
  // ContinueInASwitchOfALoopWithBreakIf).
  EXPECT_LACKS(e, "`continue` inside a switch");
  EXPECT_HAS(e, "test.wgsl:11:21: error: atomicCompareExchangeWeak on the right of && or ||");
  EXPECT_HAS(e, "test.wgsl:12:20: error: atomicCompareExchangeWeak after a call with side effects");
  // The same operations where hoisting is exact: the call inside the operand, then one after.
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> c: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
fn bump() -> u32 { o[1] = 1u; return 1u; }
@compute @workgroup_size(1) fn k() {
  let r = atomicCompareExchangeWeak(&c, bump(), 1u).old_value + bump();
  let p = &o[bump()];
  *p = r;
}
)";
  std::string g = glsl_of(w);
  EXPECT_HAS(g, "uint cmp = bump();\n    uint old = atomicCompSwap(c, cmp, 1u);");
  EXPECT_HAS(g, "uint p_index = min(bump(), uint(o.length()) - 1u);\n    o[p_index] = r;");
  compile(w, g, "k");
}

TEST(WgslEmit, ReadWriteBufferOnlyReadStaysWritable) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> rw_only_read: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn k() { o[0] = rw_only_read[0]; }
)";
  std::string g = glsl_of(w);
  EXPECT_HAS(g, "layout(set = 0, binding = 0, std430) buffer");
  EXPECT_LACKS(g, "readonly");
  compile(w, g, "k");
}

// ---- Every shipped kernel -----------------------------------------------------------------------

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path source_dir() {
  const char* d = std::getenv("WGSLVK_SOURCE_DIR");
  return d ? fs::path(d) : fs::path(__FILE__).parent_path().parent_path().parent_path();
}

TEST(WgslEmit, EveryShippedComputeEntryPointTranslatesAndPassesTheAbiCheck) {
  fs::path ports = source_dir() / "wgsl_ports";
  ASSERT_TRUE(fs::is_directory(ports)) << ports;
  std::vector<fs::path> files;
  for (const auto& fam : fs::directory_iterator(ports))
    if (fam.is_directory())
      for (const auto& f : fs::directory_iterator(fam.path()))
        if (f.path().extension() == ".wgsl") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  int entries = 0, failures = 0;
  for (const auto& f : files) {
    std::string text = read_text(f);
    std::vector<wgsl::EntryPointInfo> eps;
    try {
      eps = wgsl::check_module(text, f.filename().string());
    } catch (const wgsl::Error& e) {
      ADD_FAILURE() << f << ": " << e.what();
      ++failures;
      continue;
    }
    for (const auto& ep : eps) {
      if (ep.stage != "compute") continue;
      ++entries;
      wgsl::TranslateOptions o;
      o.file_name = f.filename().string();
      o.entry_point = ep.name;
      std::string g;
      try {
        g = wgsl::translate_to_glsl(text, o).glsl;
      } catch (const wgsl::Error& e) {
        ADD_FAILURE() << f.filename() << " " << ep.name << ": " << e.what();
        ++failures;
        continue;
      }
      try {
        compile(text, g, ep.name, f.parent_path().filename().string());
      } catch (const translator::Error& e) {
        ADD_FAILURE() << f.filename() << " " << ep.name << ": " << e.what() << "\n--- GLSL:\n" << g;
        ++failures;
      }
    }
  }
  EXPECT_GE(entries, 60);
  EXPECT_EQ(failures, 0);
}

// ---- WGSL's semantics on the device -------------------------------------------------------------

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();

// WGSL's integer / and % (x / 0 = x, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0,
// truncated division).
int32_t wgsl_div(int32_t x, int32_t y) {
  if (y == 0 || (x == kIntMin && y == -1)) return x;
  return x / y;
}
int32_t wgsl_mod(int32_t x, int32_t y) {
  if (y == 0 || (x == kIntMin && y == -1)) return 0;
  return x % y;
}
uint32_t wgsl_udiv(uint32_t x, uint32_t y) { return y ? x / y : x; }
uint32_t wgsl_umod(uint32_t x, uint32_t y) { return y ? x % y : 0; }

TEST(WgslEmitDevice, IntegerDivisionModuloAndShifts) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> o: array<i32>;
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&a)) { return; }
  let x = a[i];
  let y = b[i];
  let ux = bitcast<u32>(x);
  let uy = bitcast<u32>(y);
  let base = 10u * i;
  o[base] = x / y;
  o[base + 1u] = x % y;
  o[base + 2u] = bitcast<i32>(ux / uy);
  o[base + 3u] = bitcast<i32>(ux % uy);
  o[base + 4u] = x << uy;
  o[base + 5u] = x >> uy;
  o[base + 6u] = bitcast<i32>(ux >> uy);
  let v = vec2<i32>(x, y) / vec2<i32>(y, x);
  let m = vec2<u32>(ux, uy) % vec2<u32>(uy, ux);
  o[base + 7u] = v.x;
  o[base + 8u] = bitcast<i32>(m.x);
  var c = x;
  c %= y;
  o[base + 9u] = c;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "wgsl_div_int(");
  EXPECT_HAS(k->glsl, "wgsl_mod_uvec2(");
  auto r = wgslvk::testing::rng(21);
  std::vector<int32_t> a, b;
  // The rules' edge cases, then random operands (shift amounts over the whole u32 range).
  const int32_t edge[][2] = {{7, 0},  {-7, 0},  {kIntMin, -1}, {kIntMin, 0}, {0, 0},
                             {-7, 2}, {7, -2},  {-7, -2},      {kIntMin, 1}, {5, 32},
                             {5, 33}, {-5, 31}, {-5, 63},      {1, -1}};
  for (auto& e : edge) a.push_back(e[0]), b.push_back(e[1]);
  while (a.size() < 256) {
    a.push_back(int32_t(uint32_t(r())));
    b.push_back(r() % 4 == 0 ? int32_t(r() % 9) - 4 : int32_t(uint32_t(r())));
  }
  const size_t n = a.size();
  Buffer ba = buffer_of(a, "a"), bb = buffer_of(b, "b");
  Buffer bo = buffer_of(std::vector<uint32_t>(10 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, ba}, {1, bb}, {2, bo}}, uint32_t((n + 63) / 64));
  auto o = read_back<int32_t>(bo, 10 * n);
  for (size_t i = 0; i < n; ++i) {
    int32_t x = a[i], y = b[i];
    uint32_t ux = uint32_t(x), uy = uint32_t(y);
    SCOPED_TRACE("x=" + std::to_string(x) + " y=" + std::to_string(y));
    EXPECT_EQ(o[10 * i], wgsl_div(x, y));
    EXPECT_EQ(o[10 * i + 1], wgsl_mod(x, y));
    EXPECT_EQ(uint32_t(o[10 * i + 2]), wgsl_udiv(ux, uy));
    EXPECT_EQ(uint32_t(o[10 * i + 3]), wgsl_umod(ux, uy));
    EXPECT_EQ(uint32_t(o[10 * i + 4]), ux << (uy & 31));
    EXPECT_EQ(o[10 * i + 5], x >> (uy & 31));  // arithmetic shift (C++20)
    EXPECT_EQ(uint32_t(o[10 * i + 6]), ux >> (uy & 31));
    EXPECT_EQ(o[10 * i + 7], wgsl_div(x, y));
    EXPECT_EQ(uint32_t(o[10 * i + 8]), wgsl_umod(ux, uy));
    EXPECT_EQ(o[10 * i + 9], wgsl_mod(x, y));
  }
}

// Tint's saturating conversions: NaN fails `v <= max` and gives the maximum.
int32_t f32_to_i32(float v) {
  if (!(v <= 2147483520.0f)) return std::numeric_limits<int32_t>::max();
  if (!(v >= -2147483648.0f)) return kIntMin;
  return int32_t(v);
}
uint32_t f32_to_u32(float v) {
  if (!(v <= 4294967040.0f)) return 0xffffffffu;
  if (!(v >= 0.0f)) return 0u;
  return uint32_t(v);
}

TEST(WgslEmitDevice, FloatToIntegerSaturates) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&x)) { return; }
  let v = x[i];
  o[4u * i] = bitcast<u32>(i32(v));
  o[4u * i + 1u] = u32(v);
  let iv = vec2<i32>(vec2<f32>(v, -v));
  o[4u * i + 2u] = bitcast<u32>(iv.y);
  let uv = vec3<u32>(vec3<f32>(0.0, v, 1.0));
  o[4u * i + 3u] = uv.y;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {std::numeric_limits<float>::quiet_NaN(),
                          inf,
                          -inf,
                          2147483520.0f,
                          2147483648.0f,
                          -2147483648.0f,
                          -2147483904.0f,
                          4294967040.0f,
                          4294967296.0f,
                          -0.5f,
                          -0.0f,
                          0.99999994f,
                          -1.5f,
                          1e10f,
                          -1e10f,
                          16777217.0f};
  auto r = wgslvk::testing::rng(22);
  std::uniform_real_distribution<float> big(-5e9f, 5e9f), small(-1000.f, 1000.f);
  while (x.size() < 256) x.push_back(x.size() % 2 ? big(r) : small(r));
  const size_t n = x.size();
  Buffer bx = buffer_of(x, "x");
  Buffer bo = buffer_of(std::vector<uint32_t>(4 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bx}, {1, bo}}, uint32_t((n + 63) / 64));
  auto o = read_back<uint32_t>(bo, 4 * n);
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE("x=" + std::to_string(x[i]));
    EXPECT_EQ(int32_t(o[4 * i]), f32_to_i32(x[i]));
    EXPECT_EQ(o[4 * i + 1], f32_to_u32(x[i]));
    EXPECT_EQ(int32_t(o[4 * i + 2]), f32_to_i32(-x[i]));
    EXPECT_EQ(o[4 * i + 3], f32_to_u32(x[i]));
  }
}

// WGSL's bit builtins, as the spec defines them.
uint32_t extract_u(uint32_t e, uint32_t off, uint32_t cnt) {
  uint32_t o = std::min(off, 32u), c = std::min(cnt, 32u - o);
  if (c == 0) return 0;
  uint64_t mask = (uint64_t(1) << c) - 1;
  return uint32_t((uint64_t(e) >> o) & mask);
}
int32_t extract_i(int32_t e, uint32_t off, uint32_t cnt) {
  uint32_t o = std::min(off, 32u), c = std::min(cnt, 32u - o);
  if (c == 0) return 0;
  uint32_t v = extract_u(uint32_t(e), o, c);
  if (c < 32 && (v >> (c - 1)) & 1) v |= ~((uint32_t(1) << c) - 1);  // sign-extend bit c-1
  return int32_t(v);
}
uint32_t insert_u(uint32_t e, uint32_t nb, uint32_t off, uint32_t cnt) {
  uint32_t o = std::min(off, 32u), c = std::min(cnt, 32u - o);
  if (c == 0) return e;
  uint64_t mask = ((uint64_t(1) << c) - 1) << o;
  return uint32_t((uint64_t(e) & ~mask) | ((uint64_t(nb) << o) & mask));
}

TEST(WgslEmitDevice, BitBuiltinsClampAndCount) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;  // (e, newbits, offset, count)
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&x)) { return; }
  let v = x[i];
  let b = 12u * i;
  o[b] = extractBits(v.x, v.z, v.w);
  o[b + 1u] = bitcast<u32>(extractBits(bitcast<i32>(v.x), v.z, v.w));
  o[b + 2u] = insertBits(v.x, v.y, v.z, v.w);
  o[b + 3u] = countLeadingZeros(v.x);
  o[b + 4u] = countTrailingZeros(v.x);
  o[b + 5u] = countOneBits(v.x);
  o[b + 6u] = firstLeadingBit(v.x);
  o[b + 7u] = bitcast<u32>(firstLeadingBit(bitcast<i32>(v.x)));
  o[b + 8u] = firstTrailingBit(v.x);
  o[b + 9u] = reverseBits(v.x);
  o[b + 10u] = bitcast<u32>(countLeadingZeros(bitcast<i32>(v.x)));
  o[b + 11u] = countTrailingZeros(vec2<u32>(v.y, v.x)).y;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  auto r = wgslvk::testing::rng(23);
  std::vector<uint32_t> x;
  const uint32_t edge[] = {0u, 1u, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x00010000u};
  for (uint32_t e : edge)
    for (uint32_t oc : {0u, 31u, 32u, 33u}) x.insert(x.end(), {e, 0x12345678u, oc, 40u - oc});
  while (x.size() < 4 * 256) {
    uint32_t e = uint32_t(r());
    if (r() % 4 == 0) e >>= r() % 32;  // leading zeros of every count
    x.insert(x.end(), {e, uint32_t(r()), uint32_t(r() % 40), uint32_t(r() % 40)});
  }
  const size_t n = x.size() / 4;
  Buffer bx = buffer_of(x, "x");
  Buffer bo = buffer_of(std::vector<uint32_t>(12 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bx}, {1, bo}}, uint32_t((n + 63) / 64));
  auto o = read_back<uint32_t>(bo, 12 * n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t e = x[4 * i], nb = x[4 * i + 1], off = x[4 * i + 2], cnt = x[4 * i + 3];
    SCOPED_TRACE("e=" + std::to_string(e) + " off=" + std::to_string(off) +
                 " cnt=" + std::to_string(cnt));
    const uint32_t* g = &o[12 * i];
    EXPECT_EQ(g[0], extract_u(e, off, cnt));
    EXPECT_EQ(int32_t(g[1]), extract_i(int32_t(e), off, cnt));
    EXPECT_EQ(g[2], insert_u(e, nb, off, cnt));
    EXPECT_EQ(g[3], uint32_t(std::countl_zero(e)));
    EXPECT_EQ(g[4], uint32_t(std::countr_zero(e)));
    EXPECT_EQ(g[5], uint32_t(std::popcount(e)));
    EXPECT_EQ(g[6], e == 0 ? 0xffffffffu : 31u - uint32_t(std::countl_zero(e)));
    int32_t s = int32_t(e);
    uint32_t sv = s < 0 ? ~e : e;  // firstLeadingBit(i32): the highest bit unlike the sign
    EXPECT_EQ(g[7], sv == 0 ? 0xffffffffu : 31u - uint32_t(std::countl_zero(sv)));
    EXPECT_EQ(g[8], e == 0 ? 0xffffffffu : uint32_t(std::countr_zero(e)));
    uint32_t rev = 0;
    for (int bit = 0; bit < 32; ++bit) rev |= ((e >> bit) & 1u) << (31 - bit);
    EXPECT_EQ(g[9], rev);
    EXPECT_EQ(g[10], uint32_t(std::countl_zero(e)));
    EXPECT_EQ(g[11], uint32_t(std::countr_zero(e)));
  }
}

TEST(WgslEmitDevice, ZeroInitialisedFunctionPrivateAndWorkgroupVariables) {
  // Each invocation reads its variables before writing anything, then fills them with junk: a
  // later workgroup (or invocation) that is not given zeros again would read the junk.
  const std::string w = R"(
struct S { a: u32, b: vec2<u32>, c: array<u32, 3> }
var<private> pv: array<u32, 4>;
var<private> ps: S;
var<workgroup> wv: array<u32, 100>;
var<workgroup> ws: S;
var<workgroup> w2: array<array<u32, 3>, 5>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(32)
fn k(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  var fv: array<u32, 8>;
  var fs: S;
  var big: array<u32, 100>;
  let base = (wid.x * 32u + l) * 10u;
  o[base] = fv[l % 8u];
  o[base + 1u] = fs.a + fs.b.y + fs.c[2];
  o[base + 2u] = pv[l % 4u];
  o[base + 3u] = ps.c[1] + ps.b.x;
  o[base + 4u] = wv[l] + wv[l + 32u] + wv[l + 64u] + wv[(l + 96u) % 100u];
  o[base + 5u] = ws.a + ws.c[l % 3u];
  o[base + 6u] = w2[l % 5u][l % 3u];
  o[base + 7u] = big[l + 50u];
  workgroupBarrier();
  fv[l % 8u] = 0xdeadu;
  pv[l % 4u] = 0xbeefu;
  wv[l] = 0xf00du;
  wv[l + 32u] = 0xf00du;
  wv[l + 64u] = 0xf00du;
  wv[(l + 96u) % 100u] = 0xf00du;
  ws.a = 0xcafeu;
  w2[l % 5u][l % 3u] = 7u;
  big[l] = 5u;
  o[base + 8u] = fv[l % 8u] + pv[l % 4u];
  o[base + 9u] = 1u;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "barrier();");
  const uint32_t groups = 8, n = groups * 32;
  Buffer bo = buffer_of(std::vector<uint32_t>(10 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bo}}, groups);
  auto o = read_back<uint32_t>(bo, 10 * n);
  for (uint32_t i = 0; i < n; ++i) {
    SCOPED_TRACE("invocation " + std::to_string(i));
    for (int f = 0; f < 8; ++f) EXPECT_EQ(o[10 * i + f], 0u) << "field " << f;
    EXPECT_EQ(o[10 * i + 8], 0xdeadu + 0xbeefu);
    EXPECT_EQ(o[10 * i + 9], 1u);
  }
}

TEST(WgslEmitDevice, StructTypedWorkgroupVariablesAreZeroedMemberByMember) {
  // As Tint's ZeroInitWorkgroupMemory: each leaf (scalar, vector, matrix, atomic) is stored by
  // the invocations striding over its arrays, never one constructor of the whole struct (lavapipe's
  // LLVM took 100-120 s per such pipeline in the CTS's zero_init). Each invocation reads, then
  // writes junk, so a later workgroup that is not zeroed again reads the junk.
  const std::string w = R"(
struct Inner { a: vec3<i32>, m: mat3x2<f32>, c: atomic<u32> }
struct S { x: u32, arr: array<Inner, 67>, n: array<array<vec2<u32>, 3>, 5>, f: f32 }
var<workgroup> ws: S;
var<workgroup> w2: array<S, 2>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(8, 4, 1)
fn k(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  var bad = 0u;
  if (ws.x != 0u || ws.f != 0.0 || w2[1].x != 0u || w2[0].f != 0.0) { bad |= 1u; }
  for (var i = 0u; i < 67u; i++) {
    if (any(ws.arr[i].a != vec3<i32>()) || any(ws.arr[i].m[2] != vec2<f32>())) { bad |= 2u; }
    if (atomicLoad(&ws.arr[i].c) != 0u || atomicLoad(&w2[1].arr[i].c) != 0u) { bad |= 4u; }
    if (any(w2[1].arr[i].a != vec3<i32>()) || any(w2[0].arr[i].m[1] != vec2<f32>())) { bad |= 8u; }
  }
  for (var i = 0u; i < 5u; i++) {
    for (var j = 0u; j < 3u; j++) {
      if (any(ws.n[i][j] != vec2<u32>()) || any(w2[1].n[i][j] != vec2<u32>())) { bad |= 16u; }
    }
  }
  workgroupBarrier();
  ws.x = 1u;
  ws.f = 2.0;
  w2[l % 2u].x = 3u;
  w2[l % 2u].f = 4.0;
  for (var i = l; i < 67u; i += 32u) {
    ws.arr[i].a = vec3<i32>(5);
    ws.arr[i].m = mat3x2<f32>(1, 2, 3, 4, 5, 6);
    atomicStore(&ws.arr[i].c, 6u);
    w2[1].arr[i].a = vec3<i32>(7);
    w2[0].arr[i].m = mat3x2<f32>(6, 5, 4, 3, 2, 1);
    atomicStore(&w2[1].arr[i].c, 8u);
  }
  ws.n[l % 5u][l % 3u] = vec2<u32>(9u);
  w2[1].n[l % 5u][l % 3u] = vec2<u32>(10u);
  o[wid.x * 32u + l] = bad;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_LACKS(k->glsl, "ws = S(");
  EXPECT_LACKS(k->glsl, "= S[2](");
  EXPECT_HAS(k->glsl, "ws.arr[wgsl_i].m = mat3x2(0.0);");
  const uint32_t groups = 8, n = groups * 32;
  Buffer bo = buffer_of(std::vector<uint32_t>(n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bo}}, groups);
  auto o = read_back<uint32_t>(bo, n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(o[i], 0u) << "invocation " << i;
}

TEST(WgslEmitDevice, PrivateAndFunctionArraysOfOneArrayOfMatricesReadZero) {
  // glslang 12 folds `mat2x2[1][3](mat2x2[3](mat2x2(0.0), ...))` into a constant whose 2nd and
  // 3rd matrices are junk (0x1p+128); the CTS's zero_init read these variables as non-zero. Their
  // zero is stored element by element instead.
  const std::string w = R"(
var<private> p2: array<array<mat2x2<f32>, 3>, 1>;
var<private> p3: array<array<mat3x2<f32>, 3>, 1>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn k() {
  var f2: array<array<mat2x2<f32>, 3>, 1>;
  var f4: array<array<array<mat4x4<f32>, 2>, 1>, 2>;
  var s = 0.0;
  for (var i = 0u; i < 3u; i++) {
    for (var c = 0u; c < 2u; c++) {
      s += abs(p2[0][i][c].x) + abs(p2[0][i][c].y) + abs(p3[0][i][c].y) + abs(f2[0][i][c].y);
    }
    s += abs(p3[0][i][2].x) + abs(p3[0][i][2].y);
  }
  for (var c = 0u; c < 4u; c++) { s += abs(f4[1][0][1][c].w) + abs(f4[0][0][1][c].z); }
  o[0] = s;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  Buffer bo = buffer_of(std::vector<float>(1, 1.0f), "o");
  run(*k, {{0, bo}});
  EXPECT_EQ(read_back<float>(bo, 1)[0], 0.0f) << k->glsl;
  // Where no statement can stand in (a constant of the type in an expression), it is refused.
  EXPECT_HAS(errors_of(R"(
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn k() {
  let z = array<array<mat2x2<f32>, 3>, 1>();
  o[0] = z[0][2][1].y;
}
)",
                       "k"),
             "glslang folds its constructor wrongly");
}

TEST(WgslEmitDevice, AbstractIntOperandsBeyondU32AreNotWrittenAsU32Arithmetic) {
  // The CTS's constructor,non_zero abstract_vector_* with u32: the operands are abstract (64-bit)
  // and only the result fits u32; written as `uvec2(...) / 4294967296u` they wrapped to 0.
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn k() {
  let a: vec2<u32> = vec2(4294967296) / 0x100000000;
  let b: vec3<u32> = vec3(5 * 0x100000000, 2 * 0x100000000, 0x100000000) / 0x100000000;
  let c: u32 = (0x100000000 * 3) / 0x100000000 + 0u;
  let d: u32 = 8u / 2u;
  o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y; o[4] = b.z; o[5] = c; o[6] = d;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "8u / 2u");  // concrete operands still read as written
  Buffer bo = buffer_of(std::vector<uint32_t>(7, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bo}});
  EXPECT_EQ(read_back<uint32_t>(bo, 7), (std::vector<uint32_t>{1, 1, 5, 2, 1, 3, 4})) << k->glsl;
}

TEST(WgslEmitDevice, OutOfBoundsIndicesAreClampedAndArrayLengthIsTheBoundRange) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> idx: vec4<u32>;   // (far, 3 + far, i32 -1 bits, _)
@compute @workgroup_size(1)
fn k() {
  let far = idx.x;
  var fixed = array<u32, 4>(10u, 11u, 12u, 13u);
  let v = vec4<u32>(20u, 21u, 22u, 23u);
  let m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
  dst[0] = src[far];                       // reads the last element of the binding
  dst[1] = fixed[far];                     // 13
  dst[2] = v[idx.y];                       // 23
  dst[3] = u32(m[far].y);                  // column 1: 4
  dst[4] = arrayLength(&dst);
  dst[5] = fixed[bitcast<i32>(idx.z)];     // a negative i32 index clamps to the last too
  fixed[far] = 99u;
  dst[6] = fixed[3];
  dst[far] = 77u;                          // lands on the binding's last element
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  const uint32_t n = 16, extra = 16;
  std::vector<uint32_t> src(n + extra);
  auto r = wgslvk::testing::rng(24);
  for (auto& s : src) s = uint32_t(r() >> 8);
  std::vector<uint32_t> dst(n + extra);
  for (auto& d : dst) d = uint32_t(r() >> 8) | 1u;
  Buffer bs = buffer_of(src, "src"), bd = buffer_of(dst, "dst");
  struct {
    uint32_t far, far3, neg, pad;
  } u{1000000u, 1000003u, 0xffffffffu, 0};
  Buffer bu = utils::make_uniform(wgslvk::testing::device(), "idx", u);
  // Both storage bindings are the first n elements of larger buffers.
  run(*k, {{0, bs, 0, n * 4}, {1, bd, 0, n * 4}, {2, bu}});
  auto o = read_back<uint32_t>(bd, n + extra);
  EXPECT_EQ(o[0], src[n - 1]);
  EXPECT_EQ(o[1], 13u);
  EXPECT_EQ(o[2], 23u);
  EXPECT_EQ(o[3], 4u);
  EXPECT_EQ(o[4], n);
  EXPECT_EQ(o[5], 13u);
  EXPECT_EQ(o[6], 99u);
  EXPECT_EQ(o[n - 1], 77u);
  for (uint32_t i = 7; i < n - 1; ++i) EXPECT_EQ(o[i], dst[i]) << i;
  for (uint32_t i = n; i < n + extra; ++i) EXPECT_EQ(o[i], dst[i]) << "past the binding: " << i;
}

// `_ = &buf;` (WebGPU CTS flow_control and statement harness): a phony pointer to a buffer that
// is or ends in a runtime-sized array cannot be copied in GLSL ("array size required"); its use
// is the array's length, and the buffer stays statically used (layout "auto" keeps it).
TEST(WgslEmitDevice, PhonyPointersToRuntimeSizedBuffers) {
  const std::string w = R"(
struct Outputs {
  count : u32,
  data  : array<u32>,
};
struct P { a: u32, b: vec2<u32> }
@group(0) @binding(0) var<storage, read>       inputs  : array<i32>;
@group(0) @binding(1) var<storage, read_write> outputs : Outputs;
@group(0) @binding(2) var<uniform>             params  : P;

fn push_output(value : u32) {
  outputs.data[outputs.count] = value;
  outputs.count++;
}

@compute @workgroup_size(1)
fn main() {
  _ = &inputs;
  _ = &outputs;
  _ = &params;
  _ = &outputs.data;
  push_output(7u);
  push_output(u32(inputs[1]));
}
)";
  auto k = build(w, "main");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "uint(inputs.length())");
  EXPECT_HAS(k->glsl, "uint(outputs.data.length())");
  ASSERT_EQ(k->bindings.size(), 3u);
  for (const auto& b : k->bindings) EXPECT_TRUE(b.statically_used) << b.name;
  std::vector<int32_t> in{5, 42, 6};
  std::vector<uint32_t> out(1 + 4, 0u);
  Buffer bi = buffer_of(in, "inputs"), bo = buffer_of(out, "outputs");
  struct {
    uint32_t a, pad, b0, b1;
  } u{1, 0, 2, 3};
  Buffer bu = utils::make_uniform(wgslvk::testing::device(), "params", u);
  run(*k, {{0, bi}, {1, bo}, {2, bu}});
  auto o = read_back<uint32_t>(bo, out.size());
  EXPECT_EQ(o[0], 2u);
  EXPECT_EQ(o[1], 7u);
  EXPECT_EQ(o[2], 42u);
  EXPECT_EQ(o[3], 0u);
}

// Found by the WebGPU CTS: `&=`/`|=` on bool (GLSL has neither), a float vector % scalar (the
// helper takes two vectors), abs of a u32 (GLSL has no unsigned abs).
TEST(WgslEmitDevice, CompoundBoolOpsVectorScalarRemainderUnsignedAbs) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> src: array<f32, 4>;   // 7.5, 2.0, -7.5, 0 (as bools: != 0)
@group(0) @binding(1) var<storage, read_write> out: array<u32, 12>;
@compute @workgroup_size(1)
fn k() {
  var a = src[0] != 0.0;        // true
  a &= src[3] != 0.0;           // false
  var b = src[3] != 0.0;        // false
  b |= src[1] != 0.0;           // true
  var v = vec2<bool>(true, false);
  v &= vec2<bool>(src[0] != 0.0, true);   // (true, false)
  v |= vec2<bool>(false, src[1] != 0.0);  // (true, true)
  let r = vec2<f32>(src[0], src[2]) % src[1];   // (1.5, -1.5): truncated
  var q = vec2<f32>(src[0], src[2]);
  q %= src[1];
  out[0] = u32(a);
  out[1] = u32(b);
  out[2] = u32(v.x);
  out[3] = u32(v.y);
  out[4] = bitcast<u32>(r.x);
  out[5] = bitcast<u32>(r.y);
  out[6] = bitcast<u32>(q.x);
  out[7] = bitcast<u32>(q.y);
  out[8] = abs(u32(src[0]) + 4294967290u);   // 7 + 4294967290 wraps to 1
  out[9] = abs(vec2<u32>(3u, u32(src[1]))).y;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  std::vector<float> in{7.5f, 2.0f, -7.5f, 0.0f};
  std::vector<uint32_t> out(12, 0xdeadbeefu);
  Buffer bi = buffer_of(in, "src"), bo = buffer_of(out, "out");
  run(*k, {{0, bi}, {1, bo}});
  auto o = read_back<uint32_t>(bo, out.size());
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  EXPECT_EQ(o[0], 0u);
  EXPECT_EQ(o[1], 1u);
  EXPECT_EQ(o[2], 1u);
  EXPECT_EQ(o[3], 1u);
  // 7.5 % 2 = 7.5 - 2 * trunc(3.75) = 1.5, -7.5 % 2 = -1.5: exact in f32.
  EXPECT_EQ(o[4], bits(1.5f));
  EXPECT_EQ(o[5], bits(-1.5f));
  EXPECT_EQ(o[6], bits(1.5f));
  EXPECT_EQ(o[7], bits(-1.5f));
  EXPECT_EQ(o[8], 1u);
  EXPECT_EQ(o[9], 2u);
  EXPECT_EQ(o[10], 0xdeadbeefu);
}

TEST(WgslEmitDevice, AtomicsInStorageAndWorkgroupMemory) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> counters: array<atomic<u32>, 4>;
@group(0) @binding(1) var<storage, read_write> fsum: atomic<u32>;
@group(0) @binding(2) var<storage, read> vals: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<storage, read_write> signed: atomic<i32>;
var<workgroup> wcount: atomic<u32>;
var<workgroup> wmin: atomic<i32>;
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) l: u32) {
  let i = gid.x;
  atomicAdd(&counters[0], 1u);
  atomicMax(&counters[1], i * 7u % 1000u);
  atomicSub(&counters[2], 2u);
  atomicOr(&counters[3], 1u << (i % 32u));
  atomicSub(&signed, i32(i));
  let before = atomicAdd(&wcount, 1u);
  atomicMin(&wmin, i32(l) - 100);
  // A float sum by compare-and-exchange on the bits, as 01_embedding.wgsl does.
  var old_bits = atomicLoad(&fsum);
  loop {
    let new_bits = bitcast<u32>(bitcast<f32>(old_bits) + vals[i]);
    let res = atomicCompareExchangeWeak(&fsum, old_bits, new_bits);
    if (res.exchanged) { break; }
    old_bits = res.old_value;
  }
  workgroupBarrier();
  let total = atomicLoad(&wcount);
  workgroupBarrier();
  if (l == 0u) { atomicStore(&wcount, 5u); }
  workgroupBarrier();
  // total * 1000 + before, and where the store is seen, (5 - 5) + 100 from the minimum.
  out[i] = total * 1000u + before + (atomicLoad(&wcount) - 5u) + u32(-atomicLoad(&wmin));
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  const uint32_t groups = 4, n = groups * 64;
  std::vector<float> vals(n);
  auto r = wgslvk::testing::rng(25);
  // Small integers: every order of the float additions gives the same exact sum.
  for (auto& v : vals) v = float(int(r() % 64) - 16);
  Buffer bc = buffer_of(std::vector<uint32_t>{0, 0, 1000, 0}, "counters");
  Buffer bf = buffer_of(std::vector<float>{0.0f}, "fsum");
  Buffer bv = buffer_of(vals, "vals");
  Buffer bo = buffer_of(std::vector<uint32_t>(n, wgslvk::testing::kPoisonBits), "out");
  Buffer bs = buffer_of(std::vector<int32_t>{0}, "signed");
  run(*k, {{0, bc}, {1, bf}, {2, bv}, {3, bo}, {4, bs}}, groups);
  auto c = read_back<uint32_t>(bc, 4);
  EXPECT_EQ(c[0], n);
  uint32_t mx = 0;
  for (uint32_t i = 0; i < n; ++i) mx = std::max(mx, i * 7u % 1000u);
  EXPECT_EQ(c[1], mx);
  EXPECT_EQ(c[2], 1000u - 2u * n);
  EXPECT_EQ(c[3], 0xffffffffu);
  EXPECT_EQ(read_back<int32_t>(bs, 1)[0], -int32_t(n * (n - 1) / 2));
  float want = 0;
  for (float v : vals) want += v;
  EXPECT_EQ(read_back<float>(bf, 1)[0], want);
  auto o = read_back<uint32_t>(bo, n);
  for (uint32_t g = 0; g < groups; ++g) {
    std::vector<bool> seen(64, false);
    for (uint32_t l = 0; l < 64; ++l) {
      uint32_t v = o[g * 64 + l] - 100u;  // the workgroup minimum: 0 - 100
      ASSERT_EQ(v / 1000u, 64u) << "every invocation's add is visible after the barrier";
      uint32_t before = v % 1000u;
      ASSERT_LT(before, 64u);
      EXPECT_FALSE(seen[before]) << "atomicAdd returned " << before << " twice";
      seen[before] = true;
    }
  }
}

// f32 -> f16 -> f32, round to nearest even (normal f16 range only).
float through_f16(float v) {
  uint32_t b = std::bit_cast<uint32_t>(v);
  uint32_t sign = b & 0x80000000u, mag = b & 0x7fffffffu;
  if (mag == 0) return v;
  // Round the mantissa from 23 to 10 bits, ties to even.
  uint32_t lsb = (mag >> 13) & 1u;
  uint32_t rounded = (mag + 0x0fffu + lsb) & ~0x1fffu;
  return std::bit_cast<float>(sign | rounded);
}

uint32_t pack_i8(const int32_t* v) {
  uint32_t r = 0;
  for (int c = 0; c < 4; ++c) r |= (uint32_t(v[c]) & 0xffu) << (8 * c);
  return r;
}

TEST(WgslEmitDevice, SelectBitcastPackUnpackDotPackedQuantize) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> f: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> u: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&f)) { return; }
  let x = f[i];
  let y = u[i];
  let b = 16u * i;
  o[b] = select(y.x, y.y, x.x < x.y);
  let sv = select(y, y.wzyx, x > x.yxwz);
  o[b + 1u] = sv.x ^ (sv.y << 1u) ^ (sv.z << 2u) ^ (sv.w << 3u);
  o[b + 2u] = bitcast<u32>(x.z);
  o[b + 3u] = bitcast<u32>(bitcast<f32>(y.z & 0x7f7fffffu) * 1.0);
  o[b + 4u] = pack4x8snorm(x);
  o[b + 5u] = pack4x8unorm(x);
  o[b + 6u] = pack2x16snorm(x.xy);
  o[b + 7u] = pack2x16unorm(x.zw);
  o[b + 8u] = pack4xI8(bitcast<vec4<i32>>(y));
  o[b + 9u] = pack4xU8Clamp(y % vec4<u32>(300u));
  o[b + 10u] = pack4xI8Clamp(bitcast<vec4<i32>>(y) % vec4<i32>(200));
  o[b + 11u] = bitcast<u32>(dot4I8Packed(y.x, y.y));
  o[b + 12u] = dot4U8Packed(y.z, y.w);
  let s8 = unpack4xI8(y.x);
  o[b + 13u] = bitcast<u32>(s8.x * 1000000 + s8.w);
  o[b + 14u] = bitcast<u32>(quantizeToF16(x.w));
  o[b + 15u] = pack4xU8(unpack4xU8(y.y).wzyx);
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  // quantizeToF16 as SPIR-V's OpQuantizeToF16: NVIDIA folds the f16 round trips (cts/f16_probe).
  EXPECT_HAS(k->glsl, "spirv_instruction(id = 116) float wgsl_quantize_f16_float(float v);");
  auto r = wgslvk::testing::rng(26);
  std::vector<float> f;
  std::vector<uint32_t> u;
  std::uniform_real_distribution<float> unit(-1.3f, 1.3f), wide(-60000.f, 60000.f);
  // Halfway points of the snorm/unorm rounding (x * 127 = k + 0.5) among the random values.
  f.insert(f.end(), {0.5f / 127.0f, -0.5f / 127.0f, 1.5f / 255.0f, 0.5f / 32767.0f});
  u.insert(u.end(), {0x80ff7f01u, 0x7f80ff01u, 0xffffffffu, 0x01020304u});
  while (f.size() < 4 * 256) {
    f.insert(f.end(), {unit(r), unit(r), unit(r), f.size() % 8 ? wide(r) : unit(r)});
    u.insert(u.end(), {uint32_t(r()), uint32_t(r()), uint32_t(r()), uint32_t(r())});
  }
  const size_t n = f.size() / 4;
  Buffer bf = buffer_of(f, "f"), bu = buffer_of(u, "u");
  Buffer bo = buffer_of(std::vector<uint32_t>(16 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bf}, {1, bu}, {2, bo}}, uint32_t((n + 63) / 64));
  auto o = read_back<uint32_t>(bo, 16 * n);
  auto snorm = [](float v, float scale) {
    return int32_t(std::floor(0.5f + scale * std::min(1.0f, std::max(-1.0f, v))));
  };
  auto unorm = [](float v, float scale) {
    return uint32_t(std::floor(0.5f + scale * std::min(1.0f, std::max(0.0f, v))));
  };
  for (size_t i = 0; i < n; ++i) {
    const float* x = &f[4 * i];
    const uint32_t* y = &u[4 * i];
    const uint32_t* g = &o[16 * i];
    SCOPED_TRACE("element " + std::to_string(i));
    EXPECT_EQ(g[0], x[0] < x[1] ? y[1] : y[0]);
    const int swz[4] = {1, 0, 3, 2};
    uint32_t sv[4];
    for (int c = 0; c < 4; ++c) sv[c] = x[c] > x[swz[c]] ? y[3 - c] : y[c];
    EXPECT_EQ(g[1], sv[0] ^ (sv[1] << 1) ^ (sv[2] << 2) ^ (sv[3] << 3));
    EXPECT_EQ(g[2], std::bit_cast<uint32_t>(x[2]));
    EXPECT_EQ(g[3], std::bit_cast<uint32_t>(std::bit_cast<float>(y[2] & 0x7f7fffffu) * 1.0f));
    int32_t q[4];
    for (int c = 0; c < 4; ++c) q[c] = snorm(x[c], 127.0f);
    EXPECT_EQ(g[4], pack_i8(q));
    uint32_t un = 0;
    for (int c = 0; c < 4; ++c) un |= unorm(x[c], 255.0f) << (8 * c);
    EXPECT_EQ(g[5], un);
    EXPECT_EQ(g[6], (uint32_t(snorm(x[0], 32767.0f)) & 0xffffu) |
                        (uint32_t(snorm(x[1], 32767.0f)) << 16));
    EXPECT_EQ(g[7], unorm(x[2], 65535.0f) | (unorm(x[3], 65535.0f) << 16));
    int32_t yi[4], yc[4], yu[4];
    for (int c = 0; c < 4; ++c) {
      yi[c] = int32_t(y[c]);
      yc[c] = std::clamp(int32_t(y[c]) % 200, -128, 127);
      yu[c] = int32_t(std::min(y[c] % 300u, 255u));
    }
    EXPECT_EQ(g[8], pack_i8(yi));
    EXPECT_EQ(g[9], pack_i8(yu));
    EXPECT_EQ(g[10], pack_i8(yc));
    int32_t d = 0;
    uint32_t du = 0;
    for (int c = 0; c < 4; ++c) {
      d += int32_t(int8_t(y[0] >> (8 * c))) * int32_t(int8_t(y[1] >> (8 * c)));
      du += ((y[2] >> (8 * c)) & 0xffu) * ((y[3] >> (8 * c)) & 0xffu);
    }
    EXPECT_EQ(int32_t(g[11]), d);
    EXPECT_EQ(g[12], du);
    EXPECT_EQ(int32_t(g[13]), int32_t(int8_t(y[0])) * 1000000 + int32_t(int8_t(y[0] >> 24)));
    if (std::fabs(x[3]) >= 6.103515625e-05f || x[3] == 0.0f) {  // f16's normal range
      EXPECT_EQ(std::bit_cast<float>(g[14]), through_f16(x[3])) << x[3];
    }
    uint32_t b4 = y[1];
    uint32_t rev = ((b4 >> 24) & 0xffu) | (((b4 >> 16) & 0xffu) << 8) |
                   (((b4 >> 8) & 0xffu) << 16) | ((b4 & 0xffu) << 24);
    EXPECT_EQ(g[15], rev);
  }
}

TEST(WgslEmitDevice, PointerParametersInEveryAddressSpace) {
  const std::string w = R"(
var<private> pv: array<u32, 4>;
var<workgroup> wv: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> other: array<u32>;
fn inc(p: ptr<function, u32>) { *p = *p + 1u; }
fn swap(a: ptr<function, u32>, b: ptr<function, u32>) { let t = *a; *a = *b; *b = t; }
fn set_priv(p: ptr<private, u32>, v: u32) { *p = v; }
fn add_to(p: ptr<storage, u32, read_write>, v: u32) { *p = *p + v; }
fn add_twice(p: ptr<storage, u32, read_write>, v: u32) { add_to(p, v); add_to(p, v); }
fn wg_store(p: ptr<workgroup, u32>, v: u32) { *p = v; }
fn first_of(a: ptr<storage, array<u32>, read_write>) -> u32 { return (*a)[0]; }
@compute @workgroup_size(64)
fn k(@builtin(local_invocation_index) l: u32) {
  var x = l;
  var y = l * 3u;
  inc(&x);
  swap(&x, &y);                 // x = 3l, y = l + 1
  set_priv(&pv[l % 4u], x);
  add_to(&buf[l], y);
  add_twice(&other[l], 2u);
  wg_store(&wv[l], x + y);
  workgroupBarrier();
  var j = l;
  let p = &buf[64u + j];        // the index is taken here, once
  j = 0u;
  *p = wv[63u - l] + pv[l % 4u] + j;
  other[64u + l] = first_of(&other) + first_of(&buf);
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "inout uint");
  EXPECT_HAS(k->glsl, "add_to_buf(");
  EXPECT_HAS(k->glsl, "add_to_other(");
  std::vector<uint32_t> buf(128), other(128);
  auto r = wgslvk::testing::rng(27);
  for (auto& v : buf) v = uint32_t(r() % 100000);
  for (auto& v : other) v = uint32_t(r() % 100000);
  Buffer bb = buffer_of(buf, "buf"), bo = buffer_of(other, "other");
  run(*k, {{0, bb}, {1, bo}});
  auto gb = read_back<uint32_t>(bb, 128);
  auto go = read_back<uint32_t>(bo, 128);
  for (uint32_t l = 0; l < 64; ++l) {
    EXPECT_EQ(gb[l], buf[l] + l + 1) << l;
    EXPECT_EQ(go[l], other[l] + 4) << l;
    uint32_t m = 63 - l;
    EXPECT_EQ(gb[64 + l], (3 * m + m + 1) + 3 * l) << l;
    // Invocation 0 updated element 0 of both before the barrier.
    EXPECT_EQ(go[64 + l], other[0] + 4 + buf[0] + 1) << l;
  }
}

uint32_t loop_ref(uint32_t n) {
  uint32_t i = 0, acc = 0;
  for (;;) {
    if (i % 3u == 0u) {
      i = i + 1u;
    } else {
      acc = acc + i;
    }
    i = i + 1u;
    acc = acc ^ (i << 1u);
    if (i >= n) break;
  }
  return acc;
}

TEST(WgslEmitDevice, LoopsWithContinuingBreakIfForWhileAndSwitch) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read> n_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
fn with_continuing(n: u32) -> u32 {
  var i = 0u;
  var acc = 0u;
  loop {
    if (i % 3u == 0u) { i = i + 1u; continue; }   // continue runs the continuing block
    acc = acc + i;
    continuing {
      i = i + 1u;
      acc = acc ^ (i << 1u);
      break if i >= n;
    }
  }
  return acc;
}
fn for_sum(n: u32) -> u32 {
  var s = 0u;
  for (var k = 0u; k < n; k++) {
    if (k % 2u == 1u) { continue; }
    var t = 0u;
    while (t < k) { t += 3u; if (t == 9u) { break; } }
    s += k * k + t;
  }
  return s;
}
fn pick(x: i32) -> i32 {
  switch (x % 5) {
    case 0, 1: { return 10; }
    case 2: { if (x > 100) { break; } return 20; }
    case -1, -2: { return 30; }
    default: { return x; }
  }
  return -7;
}
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&n_in)) { return; }
  let n = n_in[i];
  o[3u * i] = with_continuing(n);
  o[3u * i + 1u] = for_sum(n);
  o[3u * i + 2u] = bitcast<u32>(pick(i32(n) - 150));
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  auto r = wgslvk::testing::rng(28);
  std::vector<uint32_t> n_in;
  for (uint32_t v = 0; v < 20; ++v) n_in.push_back(v);
  while (n_in.size() < 128) n_in.push_back(uint32_t(r() % 300));
  const size_t n = n_in.size();
  Buffer bn = buffer_of(n_in, "n"),
         bo = buffer_of(std::vector<uint32_t>(3 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bn}, {1, bo}}, uint32_t((n + 63) / 64));
  auto o = read_back<uint32_t>(bo, 3 * n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = n_in[i];
    SCOPED_TRACE("n=" + std::to_string(v));
    EXPECT_EQ(o[3 * i], loop_ref(v));
    uint32_t s = 0;
    for (uint32_t kk = 0; kk < v; ++kk) {
      if (kk % 2u == 1u) continue;
      uint32_t t = 0;
      while (t < kk) {
        t += 3u;
        if (t == 9u) break;
      }
      s += kk * kk + t;
    }
    EXPECT_EQ(o[3 * i + 1], s);
    int32_t x = int32_t(v) - 150;
    int32_t m = x % 5, want;
    if (m == 0 || m == 1)
      want = 10;
    else if (m == 2)
      want = x > 100 ? -7 : 20;
    else if (m == -1 || m == -2)
      want = 30;
    else
      want = x;
    EXPECT_EQ(int32_t(o[3 * i + 2]), want);
  }
}

TEST(WgslEmitDevice, F16ConversionsArithmeticAndBitcasts) {
  if (!wgslvk::testing::device().has_feature(Feature::ShaderF16))
    GTEST_SKIP() << "device lacks shader-f16";
  const std::string w = R"(
enable f16;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn k(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&x)) { return; }
  let h = f16(x[i]);
  let v = vec2<f16>(h, -h * 2.0h);
  o[3u * i] = bitcast<u32>(v);
  let back = bitcast<vec2<f16>>(o[3u * i]);
  o[3u * i + 1u] = bitcast<u32>(f32(back.y));
  o[3u * i + 2u] = bitcast<u32>(i32(h * 4.0h));
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "packFloat2x16(v)");
  // Values f16 holds exactly (random normal f16 below 2^13), so every step is exact.
  auto r = wgslvk::testing::rng(29);
  std::vector<float> x;
  std::vector<uint16_t> bits;
  while (x.size() < 256) {
    uint16_t b = uint16_t((r() & 0x83ffu) | ((1 + r() % 27) << 10));  // exponent 1..27
    int e = (b >> 10) & 31;
    float v = std::ldexp(1.0f + float(b & 0x3ff) / 1024.0f, e - 15) * ((b & 0x8000) ? -1.0f : 1.0f);
    x.push_back(v);
    bits.push_back(b);
  }
  const size_t n = x.size();
  Buffer bx = buffer_of(x, "x");
  Buffer bo = buffer_of(std::vector<uint32_t>(3 * n, wgslvk::testing::kPoisonBits), "o");
  run(*k, {{0, bx}, {1, bo}}, uint32_t((n + 63) / 64));
  auto o = read_back<uint32_t>(bo, 3 * n);
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE("x=" + std::to_string(x[i]));
    // -2h: the exponent one up, the sign flipped (exact below 2^14).
    uint16_t neg2 = uint16_t((bits[i] ^ 0x8000u) + 0x0400u);
    EXPECT_EQ(o[3 * i], uint32_t(bits[i]) | (uint32_t(neg2) << 16));
    EXPECT_EQ(std::bit_cast<float>(o[3 * i + 1]), -2.0f * x[i]);
    EXPECT_EQ(int32_t(o[3 * i + 2]), int32_t(4.0f * x[i]));
  }
}

// A builtin applied to an f16 loaded from a buffer (the CTS's f16 builtin cases): glslang did
// not declare the Float16 capability for it and spirv-val refused the module ("Invalid use of
// 8- or 16-bit result"). abs/max/sqrt/fma of exactly representable values are exact.
TEST(WgslEmitDevice, F16BuiltinsOfBufferValues) {
  if (!wgslvk::testing::device().has_feature(Feature::ShaderF16))
    GTEST_SKIP() << "device lacks shader-f16";
  const std::string w = R"(
enable f16;
struct In { a: f16, b: f16 }
@group(0) @binding(0) var<storage, read> x: array<In, 2>;
@group(0) @binding(1) var<storage, read_write> o: array<f16, 8>;
@compute @workgroup_size(1)
fn k() {
  o[0] = abs(x[0].a);
  o[1] = max(x[0].a, x[0].b);
  o[2] = sqrt(x[1].a);
  o[3] = fma(x[0].a, x[0].b, x[1].b);
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  // f16 bits: -1.5, 2.0, 9.0, 0.25
  std::vector<uint16_t> x{0xbe00, 0x4000, 0x4880, 0x3400};
  Buffer bx = buffer_of(x, "x");
  Buffer bo = buffer_of(std::vector<uint16_t>(8, 0xdeadu), "o");
  run(*k, {{0, bx}, {1, bo}});
  auto o = read_back<uint16_t>(bo, 8);
  EXPECT_EQ(o[0], 0x3e00u);  // 1.5
  EXPECT_EQ(o[1], 0x4000u);  // 2.0
  EXPECT_EQ(o[2], 0x4200u);  // 3.0
  EXPECT_EQ(o[3], 0xc180u);  // -1.5 * 2 + 0.25 = -2.75
  EXPECT_EQ(o[4], 0xdeadu);
}

// `continue` inside a switch of a `loop` whose continuing ends in `break if` (CTS
// flow_control,loop): the `break if` written before the continue sets a flag and leaves the
// switch; the loop breaks after the switch.
TEST(WgslEmitDevice, ContinueInASwitchOfALoopWithBreakIf) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> o: array<u32, 16>;
@compute @workgroup_size(1)
fn k() {
  var i = 0u;
  var n = 0u;
  loop {
    switch (i % 3u) {
      case 0u: {
        o[n] = 100u + i;
        n += 1u;
        continue;
      }
      default: {
        o[n] = i;
        n += 1u;
      }
    }
    o[n] = 50u;
    n += 1u;
    continuing {
      i += 1u;
      break if i >= 5u;
    }
  }
  o[15] = n;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  Buffer bo = buffer_of(std::vector<uint32_t>(16, 0u), "o");
  run(*k, {{0, bo}});
  auto o = read_back<uint32_t>(bo, 16);
  // i = 0: 100 (continue); 1: 1, 50; 2: 2, 50; 3: 103 (continue); 4: 4, 50; then i = 5 breaks.
  std::vector<uint32_t> want{100, 1, 50, 2, 50, 103, 4, 50, 0, 0, 0, 0, 0, 0, 0, 8};
  EXPECT_EQ(o, want);
}

// `buf = S(...)` on a struct-typed storage buffer (a block: GLSL cannot assign it whole): the
// value once into a local, then member by member; the right side is evaluated once.
TEST(WgslEmitDevice, WholeStructStorageBufferAssignment) {
  const std::string w = R"(
struct Inner { p: vec2<u32> }
struct S { a: u32, b: array<u32, 3>, c: Inner }
@group(0) @binding(0) var<storage, read_write> buf: S;
var<private> calls: u32;
fn next() -> u32 { calls += 1u; return calls; }
@compute @workgroup_size(1)
fn k() {
  buf = S(next() + 10u, array<u32, 3>(buf.a, 2u, 3u), Inner(vec2<u32>(calls, 5u)));
  let p = &buf;
  buf.b[2] = (*p).a;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  std::vector<uint32_t> in{7, 0, 0, 0, 0, 0, 9, 9};
  Buffer bb = buffer_of(in, "buf");
  run(*k, {{0, bb}});
  auto o = read_back<uint32_t>(bb, in.size());
  // a = 11; b = (old a 7, 2, 3), then b[2] = 11; c.p = (1, 5) at offset 16.
  EXPECT_EQ(o, (std::vector<uint32_t>{11, 7, 2, 11, 1, 5, 9, 9}));
}

// The same store through a pointer parameter and a `let` pointer designating the whole buffer
// (`*p = S(...)`: CTS call,user,ptr_params write_full_object).
TEST(WgslEmitDevice, WholeStructStorageBufferAssignmentThroughPointers) {
  const std::string w = R"(
struct S { a: i32, b: u32, c: i32, d: u32 }
@group(0) @binding(0) var<storage, read_write> buf: S;
fn f1(p: ptr<storage, S, read_write>) { *p = S(1, 2u, 3, (*p).d + 4u); }
fn f0(p: ptr<storage, S, read_write>) { f1(p); }
@compute @workgroup_size(1)
fn k() {
  f0(&buf);
  let q = &buf;
  *q = S((*q).a + 10, (*q).b, (*q).c, (*q).d);
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  std::vector<uint32_t> in{9, 9, 9, 6};
  Buffer bb = buffer_of(in, "buf");
  run(*k, {{0, bb}});
  // f1: (1, 2, 3, 6 + 4); then a += 10.
  EXPECT_EQ(read_back<uint32_t>(bb, in.size()), (std::vector<uint32_t>{11, 2, 3, 10}));
}

// ---- Buffer layouts std140/std430 cannot express -------------------------------------------------
//
// Each test fills the buffers from the host with WGSL's byte layout (offsets written out below
// from WGSL's rules: AlignOf/SizeOf, @align, @size), every padding byte poisoned, and checks the
// values the kernel read and wrote and that no padding byte changed.

constexpr uint32_t kPoison = 0xdead0000u;

template <class T>
Buffer uniform_of(const std::vector<T>& v, const std::string& label) {
  return utils::make_uniform(wgslvk::testing::device(), label, v.data(), v.size() * sizeof(T));
}

// Uniform matrices whose std140 column stride is 16 where WGSL's is 8 (matCx2<f32>): as a struct
// member at offset 8, as the whole variable, as array elements; read by dynamic and constant
// indices and as whole values.
TEST(WgslEmitDevice, UniformMatricesWithWgslColumnStride) {
  const std::string w = R"(
struct M {
  x: f32,                          // offset 0
  m: mat2x2<f32>,                  // offset 8 (AlignOf 8), columns at 8, 16
  n: mat3x2<f32>,                  // offset 24, columns at 24, 32, 40
  arr: array<mat4x2<f32>, 2>,      // offset 48 (a uniform array: 16-byte aligned), stride 32
}                                  // SizeOf 112
@group(0) @binding(0) var<uniform> u: M;
@group(0) @binding(1) var<uniform> whole: mat3x2<f32>;   // columns at 0, 8, 16
@group(0) @binding(2) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn k() {
  let z = u32(u.x);   // 0 at run time: the indices below are dynamic
  var i = 0u;
  for (var c = 0u; c < 2u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = u.m[c + z][r + z]; i++; } }
  for (var c = 0u; c < 3u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = u.n[c + z][r]; i++; } }
  for (var a = 0u; a < 2u; a++) {
    for (var c = 0u; c < 4u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = u.arr[a + z][c][r]; i++; } }
  }
  for (var c = 0u; c < 3u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = whole[c + z][r]; i++; } }
  let m = u.m;
  let arr = u.arr;
  let wm = whole;
  let all = u;
  o[i] = m[1][1];
  o[i + 1u] = arr[1][3].y;
  o[i + 2u] = wm[2][0];
  o[i + 3u] = all.n[2][1] + all.arr[0][0][0];
  o[i + 4u] = u.n[1].y;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "vec2 wgsl_col0_m;");
  // Every f32 the WGSL layout holds is 1000 + its byte offset; padding is NaN-free poison.
  auto fill = [](size_t bytes, const std::vector<uint32_t>& offsets) {
    std::vector<float> v(bytes / 4, -7.0f);
    for (uint32_t off : offsets) v[off / 4] = 1000.0f + float(off);
    return v;
  };
  std::vector<uint32_t> offs_u, offs_w, expect;
  offs_u.push_back(0);
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t r = 0; r < 2; ++r) offs_u.push_back(8 + c * 8 + r * 4);
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t r = 0; r < 2; ++r) offs_u.push_back(24 + c * 8 + r * 4);
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t c = 0; c < 4; ++c)
      for (uint32_t r = 0; r < 2; ++r) offs_u.push_back(48 + a * 32 + c * 8 + r * 4);
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t r = 0; r < 2; ++r) offs_w.push_back(c * 8 + r * 4);
  std::vector<float> vu = fill(112, offs_u), vw = fill(24, offs_w);
  vu[0] = 0.0f;  // x: the run-time zero
  Buffer bu = uniform_of(vu, "u"), bw = uniform_of(vw, "whole");
  std::vector<float> out(64, -1.0f);
  Buffer bo = buffer_of(out, "o");
  run(*k, {{0, bu}, {1, bw}, {2, bo}});
  auto o = read_back<float>(bo, out.size());
  size_t i = 0;
  for (size_t j = 1; j < offs_u.size(); ++j, ++i) EXPECT_EQ(o[i], 1000.0f + offs_u[j]) << i;
  for (size_t j = 0; j < offs_w.size(); ++j, ++i) EXPECT_EQ(o[i], 1000.0f + offs_w[j]) << i;
  EXPECT_EQ(o[i], 1000.0f + 8 + 8 + 4);              // m[1][1]
  EXPECT_EQ(o[i + 1], 1000.0f + 48 + 32 + 24 + 4);   // arr[1][3].y
  EXPECT_EQ(o[i + 2], 1000.0f + 16);                 // whole[2][0]
  EXPECT_EQ(o[i + 3], 1000.0f + 44 + 1000.0f + 48);  // n[2][1] + arr[0][0][0]
  EXPECT_EQ(o[i + 4], 1000.0f + 32 + 4);             // n[1].y
}

// f16 matrices in a uniform buffer: WGSL's column stride is 4 (2 rows) or 8 (3, 4 rows), std140's
// 16.
TEST(WgslEmitDevice, UniformF16MatricesWithWgslColumnStride) {
  if (!wgslvk::testing::device().has_feature(Feature::ShaderF16))
    GTEST_SKIP() << "device lacks shader-f16";
  const std::string w = R"(
enable f16;
struct H {
  a: f16,                          // offset 0
  m: mat2x3<f16>,                  // offset 8 (AlignOf 8), columns at 8, 16
  b: f16,                          // offset 24
  p: mat3x2<f16>,                  // offset 28 (AlignOf 4), columns at 28, 32, 36
  @align(16) arr: array<mat2x4<f16>, 2>,  // offset 48, stride 16, columns at +0, +8
}                                  // SizeOf 80
@group(0) @binding(0) var<uniform> u: H;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn k() {
  let z = u32(u.a);
  var i = 0u;
  for (var c = 0u; c < 2u; c++) { for (var r = 0u; r < 3u; r++) { o[i] = f32(u.m[c + z][r]); i++; } }
  o[i] = f32(u.b); i++;
  for (var c = 0u; c < 3u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = f32(u.p[c][r + z]); i++; } }
  for (var a = 0u; a < 2u; a++) {
    for (var c = 0u; c < 2u; c++) { for (var r = 0u; r < 4u; r++) { o[i] = f32(u.arr[a + z][c][r]); i++; } }
  }
  let h = u;
  o[i] = f32(h.m[1][2] + h.p[2][1] + h.arr[1][1][3]);
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  // Every f16 is its byte offset / 2 (exact in f16); padding poisoned.
  auto half = [](uint32_t n) -> uint16_t {  // a small whole number as f16 bits
    if (n == 0) return 0;
    int e = 31 - std::countl_zero(n);
    uint32_t mant = (n << (10 - e)) & 0x3ffu;
    return uint16_t(((e + 15) << 10) | mant);
  };
  std::vector<uint32_t> offs;
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t r = 0; r < 3; ++r) offs.push_back(8 + c * 8 + r * 2);
  offs.push_back(24);
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t r = 0; r < 2; ++r) offs.push_back(28 + c * 4 + r * 2);
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t c = 0; c < 2; ++c)
      for (uint32_t r = 0; r < 4; ++r) offs.push_back(48 + a * 16 + c * 8 + r * 2);
  std::vector<uint16_t> vu(40, 0x7bffu);  // poison: 65504
  vu[0] = 0;                              // a: the run-time zero
  for (uint32_t off : offs) vu[off / 2] = half(off / 2);
  Buffer bu = uniform_of(vu, "u");
  std::vector<float> out(40, -1.0f);
  Buffer bo = buffer_of(out, "o");
  run(*k, {{0, bu}, {1, bo}});
  auto o = read_back<float>(bo, out.size());
  for (size_t j = 0; j < offs.size(); ++j) EXPECT_EQ(o[j], float(offs[j] / 2)) << j;
  EXPECT_EQ(o[offs.size()], float((8 + 8 + 4) / 2 + (28 + 8 + 2) / 2 + (48 + 16 + 8 + 6) / 2));
}

// f16 matrices in uniform buffers keep WGSL's layout (columns 4 or 8 bytes apart, f16vec members
// at WGSL's offsets; 32-bit word reads were tried for NVIDIA and removed: translator/wgsl/README.md).
// Bits compared here: each f16 is its byte offset / 2 and each 3-row column's padding is poison
// that must not leak.
TEST(WgslEmitDevice, UniformF16MatricesKeepTheWgslLayout) {
  if (!wgslvk::testing::device().has_feature(Feature::ShaderF16))
    GTEST_SKIP() << "device lacks shader-f16";
  const std::string w = R"(
enable f16;
struct Input { @size(32) param0 : mat4x3<f16> }      // the CTS's uniform input shape, stride 32
@group(0) @binding(0) var<uniform> inputs : array<Input, 2>;
struct Whole { m : mat3x3<f16> }                      // SizeOf 24: the last column's padding
@group(0) @binding(1) var<uniform> whole : Whole;
@group(0) @binding(2) var<uniform> two : array<mat4x2<f16>, 2>;  // columns 4 bytes apart, stride 16
@group(0) @binding(3) var<storage, read_write> o : array<mat4x3<f16>, 2>;
@group(0) @binding(4) var<storage, read_write> p : array<f16, 32>;
@compute @workgroup_size(1)
fn k() {
  for (var i = 0; i < 2; i++) { o[i] = mat4x3<f16>(inputs[i].param0); }
  o[1] = mat4x3<f16>(o[1][1], o[1][0], o[1][3], o[1][2]);  // reads what it replaces
  let m = whole.m;
  var j = 0u;
  for (var c = 0u; c < 3u; c++) { for (var r = 0u; r < 3u; r++) { p[j] = m[c][r]; j++; } }
  for (var a = 0u; a < 2u; a++) {
    for (var c = 0u; c < 4u; c++) { for (var r = 0u; r < 2u; r++) { p[j] = two[a][c][r]; j++; } }
  }
  p[j] = whole.m[2].z + inputs[1].param0[3][2];
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  // f16vec columns (the 32-bit word reads were removed: translator/wgsl/README.md says why).
  EXPECT_HAS(k->glsl, "f16vec3 wgsl_col3_param0;");
  EXPECT_HAS(k->glsl, "f16vec2 wgsl_col0;");
  EXPECT_HAS(k->glsl, "[3].z = value[3].z");  // a matCx3<f16> into storage: per column .xy, .z
  auto half = [](uint32_t n) -> uint16_t {    // a small whole number as f16 bits
    if (n == 0) return 0;
    int e = 31 - std::countl_zero(n);
    uint32_t mant = (n << (10 - e)) & 0x3ffu;
    return uint16_t(((e + 15) << 10) | mant);
  };
  const uint16_t poison = 0x7bffu;  // 65504
  std::vector<uint16_t> vi(32, poison), vw(16, poison), vt(16, poison);
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t c = 0; c < 4; ++c)
      for (uint32_t r = 0; r < 3; ++r) {
        uint32_t off = a * 32 + c * 8 + r * 2;
        vi[off / 2] = half(off / 2 + 1);
      }
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t r = 0; r < 3; ++r) vw[(c * 8 + r * 2) / 2] = half(100 + c * 4 + r);
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t c = 0; c < 4; ++c)
      for (uint32_t r = 0; r < 2; ++r)
        vt[(a * 16 + c * 4 + r * 2) / 2] = half(200 + a * 8 + c * 2 + r);
  Buffer bi = uniform_of(vi, "inputs"), bw = uniform_of(vw, "whole"), bt = uniform_of(vt, "two");
  std::vector<uint16_t> outo(32, 0xffffu), outp(32, 0xffffu);
  Buffer bo = buffer_of(outo, "o"), bp = buffer_of(outp, "p");
  run(*k, {{0, bi}, {1, bw}, {2, bt}, {3, bo}, {4, bp}});
  auto o = read_back<uint16_t>(bo, outo.size());
  auto q = read_back<uint16_t>(bp, outp.size());
  // o: array<mat4x3<f16>, 2> in storage (stride 32, columns 8 apart); its padding is not written;
  // o[1]'s columns swapped pairwise by the second store (column by column, from a local).
  const uint32_t swap[4] = {1, 0, 3, 2};
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t c = 0; c < 4; ++c) {
      for (uint32_t r = 0; r < 3; ++r) {
        uint32_t off = a * 32 + c * 8 + r * 2, src = a * 32 + (a ? swap[c] : c) * 8 + r * 2;
        EXPECT_EQ(o[off / 2], half(src / 2 + 1)) << "o[" << a << "][" << c << "][" << r << "]";
      }
      EXPECT_EQ(o[(a * 32 + c * 8 + 6) / 2], 0xffffu) << "padding of o[" << a << "][" << c << "]";
    }
  size_t j = 0;
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t r = 0; r < 3; ++r, ++j) EXPECT_EQ(q[j], half(100 + c * 4 + r)) << j;
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t c = 0; c < 4; ++c)
      for (uint32_t r = 0; r < 2; ++r, ++j) EXPECT_EQ(q[j], half(200 + a * 8 + c * 2 + r)) << j;
  // whole.m[2].z + inputs[1].param0[3][2] = 110 + (32 + 24 + 4) / 2 + 1 = 141, exact in f16.
  EXPECT_EQ(q[j], half(141));
}

// A vec3<f16> (or matCx3<f16>) stored into a storage buffer goes as a .xy and a .z store: NVIDIA
// stores the third component of a whole 3 x f16 store of a uniform-sourced value as its f32 bits
// (cts/f16_probe, translator/wgsl/README.md). Checked here: the forms written, the bits stored
// (negated, permuted in place, doubled in a for-loop header and by compound assignments, member by
// member in a lowered struct) and that no padding half is written. Inputs: normal f16 in [2, 4) of both signs.
TEST(WgslEmitDevice, F16Vec3StoresIntoStorageInTwoParts) {
  if (!wgslvk::testing::device().has_feature(Feature::ShaderF16))
    GTEST_SKIP() << "device lacks shader-f16";
  const std::string w = R"(
enable f16;
struct Input { @size(16) v : vec3<f16> }             // the CTS's uniform vec3<f16> input
@group(0) @binding(0) var<uniform> inputs : array<Input, 4>;
struct Output { @size(8) value : vec3<f16> }
@group(0) @binding(1) var<storage, read_write> o : array<Output, 4>;
@group(0) @binding(2) var<storage, read_write> q : array<vec3<f16>, 4>;
struct P { a : f16, @align(16) v : vec3<f16>, w : mat2x3<f16> }  // lowered: v at 16, w at 24
@group(0) @binding(3) var<storage, read_write> s : P;
@compute @workgroup_size(1)
fn k() {
  for (var i = 0; i < 4; i++) { o[i].value = -(inputs[i].v); }  // the CTS's negation shape
  for (var i = 0; i < 3; i++) { q[i] = inputs[i].v; }
  q[1] = q[1].zxy;                                              // reads what it replaces
  for (var i = 0; i < 1; q[3] = q[2] * 2.0h) { i++; }           // a for-loop header: stored whole
  s = P(inputs[0].v.x, inputs[1].v, mat2x3<f16>(inputs[2].v, inputs[3].v));
  q[2] += inputs[2].v;                                          // compound (whole): doubled
  s.w += mat2x3<f16>(inputs[2].v, inputs[3].v);                 // the same, a matrix
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "].value.xy = value.xy, o[min(uint(i), 3u)].value.z = value.z");
  EXPECT_HAS(k->glsl, "q[1].xy = value.xy, q[1].z = value.z");
  EXPECT_HAS(k->glsl, "q[3] = q[2] * float16_t(2.0)");
  EXPECT_HAS(k->glsl, "s.w[1].xy = value_1.w[1].xy, s.w[1].z = value_1.w[1].z");
  // Compound assignments are stored whole: right on the H200 (cts/f16_probe/README.md).
  EXPECT_HAS(k->glsl, "q[2] += inputs[2].v;");
  auto in = [](uint32_t i, uint32_t r) -> uint16_t {  // normal, in [2, 4), sign alternating
    return uint16_t(((i + r) & 1 ? 0xC000u : 0x4000u) | ((i * 37 + r * 5 + 1) & 0x3ffu));
  };
  const uint16_t poison = 0x7bffu, unwritten = 0xffffu;
  std::vector<uint16_t> vi(32, poison);
  for (uint32_t i = 0; i < 4; ++i)
    for (uint32_t r = 0; r < 3; ++r) vi[i * 8 + r] = in(i, r);
  Buffer bi = uniform_of(vi, "inputs");
  std::vector<uint16_t> init(24, unwritten);
  Buffer bo = buffer_of(std::vector<uint16_t>(16, unwritten), "o"),
         bq = buffer_of(std::vector<uint16_t>(16, unwritten), "q"), bs = buffer_of(init, "s");
  run(*k, {{0, bi}, {1, bo}, {2, bq}, {3, bs}});
  auto o = read_back<uint16_t>(bo, 16), q = read_back<uint16_t>(bq, 16),
       sv = read_back<uint16_t>(bs, 24);
  auto twice = [](uint16_t h) { return uint16_t(h + 0x0400u); };  // exponent + 1: exact
  const uint32_t perm[3] = {2, 0, 1};                             // .zxy
  for (uint32_t i = 0; i < 4; ++i) {
    for (uint32_t r = 0; r < 3; ++r) {
      EXPECT_EQ(o[i * 4 + r], in(i, r) ^ 0x8000u) << "o[" << i << "][" << r << "]";
      uint16_t want = i == 1 ? in(1, perm[r]) : i >= 2 ? twice(in(2, r)) : in(i, r);
      EXPECT_EQ(q[i * 4 + r], want) << "q[" << i << "][" << r << "]";
    }
    EXPECT_EQ(o[i * 4 + 3], unwritten) << "padding of o[" << i << "]";
    EXPECT_EQ(q[i * 4 + 3], unwritten) << "padding of q[" << i << "]";
  }
  std::vector<uint16_t> want_s(24, unwritten);  // halves: a at 0, v at 8, w's columns at 12, 16
  want_s[0] = in(0, 0);
  for (uint32_t r = 0; r < 3; ++r) {
    want_s[8 + r] = in(1, r);
    want_s[12 + r] = twice(in(2, r));
    want_s[16 + r] = twice(in(3, r));
  }
  for (size_t j = 0; j < want_s.size(); ++j) EXPECT_EQ(sv[j], want_s[j]) << "s half " << j;
}

// Structs whose WGSL layout has padding std430/std140 would not have (@size, @align, a nested
// struct's members): loads convert, whole-value stores go member by member, and no padding byte
// is written.
TEST(WgslEmitDevice, PaddedStructsKeepWgslOffsetsAndTheirPadding) {
  const std::string w = R"(
struct Inner {
  @size(12) a: u32,                // offset 0, padded to 12
  @align(16) b: vec2<u32>,         // offset 16
}                                  // AlignOf 16, SizeOf 32
struct S {
  a: u32,                          // offset 0
  @align(32) inner: Inner,         // offset 32
  @size(20) t: u32,                // offset 64, padded to 84
  v: vec3<u32>,                    // offset 96
  w: u32,                          // offset 108
}                                  // AlignOf 32, SizeOf 128
struct In {
  @align(16) x: u32,               // offset 0
  @align(16) y: u32,               // offset 16
}                                  // SizeOf 32 (the CTS's uniform input shape)
@group(0) @binding(0) var<storage, read_write> s: S;
@group(0) @binding(1) var<storage, read_write> arr: array<Inner, 3>;   // stride 32
@group(0) @binding(2) var<uniform> ins: array<In, 2>;                  // stride 32
@group(0) @binding(3) var<storage, read_write> v3: vec3<u32>;          // SizeOf 12, AlignOf 16
@compute @workgroup_size(1)
fn k() {
  let a = s;
  v3 = vec3<u32>(a.a + 7u, 8u, 9u);
  let i = a.a;   // 0 at run time
  s = S(a.a + 1u, Inner(a.inner.a + 2u, a.inner.b + vec2<u32>(3u)), a.t + 4u,
        a.v + vec3<u32>(5u), a.w + 6u);
  arr[i + 1u] = a.inner;
  arr[2] = Inner(ins[i].x, vec2<u32>(ins[i + 1u].y, ins[1].x));
  let whole = arr;
  arr[0].a = whole[1].b.y + whole[2].a;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  std::vector<uint32_t> vs(32), va(24), vi(16);
  for (uint32_t j = 0; j < 32; ++j) vs[j] = kPoison + j;
  for (uint32_t j = 0; j < 24; ++j) va[j] = kPoison + 100 + j;
  for (uint32_t j = 0; j < 16; ++j) vi[j] = kPoison + 200 + j;
  // s: a (word 0), inner.a (8), inner.b (12, 13), t (16), v (24..26), w (27).
  std::map<uint32_t, uint32_t> s_in{{0, 0},   {8, 10},  {12, 11}, {13, 12}, {16, 13},
                                    {24, 14}, {25, 15}, {26, 16}, {27, 17}};
  for (auto [at, x] : s_in) vs[at] = x;
  // arr[j]: a (8j), b (8j + 4, 8j + 5).
  for (uint32_t j = 0; j < 3; ++j) {
    va[8 * j] = 100 + 3 * j;
    va[8 * j + 4] = 101 + 3 * j;
    va[8 * j + 5] = 102 + 3 * j;
  }
  // ins[j]: x (8j), y (8j + 4).
  vi[0] = 200;
  vi[4] = 201;
  vi[8] = 202;
  vi[12] = 203;
  Buffer bs = buffer_of(vs, "s"), ba = buffer_of(va, "arr"), bi = uniform_of(vi, "ins");
  std::vector<uint32_t> vv(4, kPoison + 300);
  Buffer bv = buffer_of(vv, "v3");
  run(*k, {{0, bs}, {1, ba}, {2, bi}, {3, bv}});
  EXPECT_EQ(read_back<uint32_t>(bv, 4), (std::vector<uint32_t>{7, 8, 9, kPoison + 300}));
  auto os = read_back<uint32_t>(bs, vs.size());
  auto oa = read_back<uint32_t>(ba, va.size());
  std::vector<uint32_t> es = vs, ea = va;
  for (auto [at, x] : std::map<uint32_t, uint32_t>{
           {0, 1}, {8, 12}, {12, 14}, {13, 15}, {16, 17}, {24, 19}, {25, 20}, {26, 21}, {27, 23}})
    es[at] = x;
  ea[8] = 10, ea[12] = 11, ea[13] = 12;      // arr[1] = the old s.inner
  ea[16] = 200, ea[20] = 203, ea[21] = 202;  // arr[2] from the uniform
  ea[0] = 12 + 200;                          // whole[1].b.y + whole[2].a
  for (uint32_t j = 0; j < es.size(); ++j) EXPECT_EQ(os[j], es[j]) << "s word " << j;
  for (uint32_t j = 0; j < ea.size(); ++j) EXPECT_EQ(oa[j], ea[j]) << "arr word " << j;
}

// frexp/modf of an abstract float in a `let` or `var`: the result structure is the f32 one (its
// exp an i32), so conversions of its members stay in the GLSL.
TEST(WgslEmitDevice, FrexpModfOfAbstractValuesInLetAndVar) {
  const std::string w = R"(
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn k() {
  var r = frexp(1.5);
  r.exp += 2;
  o[0] = r.fract + f32(r.exp);
  let v = frexp(vec2(1.5, 4.0));
  o[1] = v.fract.x + f32(v.exp.y);
  var m = modf(-2.5);
  o[2] = m.whole * 10.0 + m.fract;
}
)";
  auto k = build(w, "k");
  ASSERT_TRUE(k);
  EXPECT_HAS(k->glsl, "wgsl_frexp_result_f32 r");
  std::vector<float> out(3, -1.0f);
  Buffer bo = buffer_of(out, "o");
  run(*k, {{0, bo}});
  // 1.5 = 0.75 * 2^1; 4 = 0.5 * 2^3; -2.5 = -2 + -0.5.
  EXPECT_EQ(read_back<float>(bo, 3), (std::vector<float>{0.75f + 3.0f, 0.75f + 3.0f, -20.5f}));
}

}  // namespace
