// The translator's checks, on small in-test ports (each broken in exactly one way) and on every
// kernel the build embedded.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "wgslvk/kernel.hpp"
#include "wgslvk/translator.hpp"

namespace {
using namespace wgslvk;
using namespace wgslvk::translator;

// A WGSL entry point and its faithful GLSL port; each test breaks one thing.
constexpr const char* kWgsl = R"(
const WG: u32 = 64u;
struct Params { n: u32, scale: f32, pad: vec2<u32> }

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

fn load(i: u32) -> f32 { return src[i]; }

@compute @workgroup_size(WG)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.n) { return; }
    dst[gid.x] = load(gid.x) * params.scale;
}
)";

constexpr const char* kGlsl = R"(#version 450
#define WG 64
layout(local_size_x = WG) in;
layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) buffer Dst { float dst[]; };
layout(set = 0, binding = 2, std140) uniform Params { uint n; float scale; uvec2 pad; } params;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.n) return;
    dst[i] = src[i] * params.scale;
}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << "test bug: `" << from << "` not in the source";
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

TranslatedKernel translate_strings(const std::string& glsl, const std::string& wgsl = kWgsl,
                                   const std::string& abi_of = "",
                                   const std::string& name = "scale") {
  KernelSource src;
  src.file = "test";
  src.name = name;
  src.abi_of = abi_of;
  src.glsl = glsl;
  src.wgsl = wgsl;
  return translate(src);
}

// The whole message of the translator's rejection ("" if it accepted the port).
std::string rejection(const std::string& glsl, const std::string& wgsl = kWgsl,
                      const std::string& abi_of = "", const std::string& name = "scale") {
  try {
    translate_strings(glsl, wgsl, abi_of, name);
  } catch (const Error& e) { return e.what(); }
  return "";
}

TEST(AbiCheck, FaithfulPortPasses) {
  TranslatedKernel t = translate_strings(kGlsl);
  ASSERT_EQ(t.abi.bindings.size(), 3u);
  const CheckedBinding& src = t.abi.bindings[0];
  EXPECT_EQ(src.name, "src");
  EXPECT_EQ(src.glsl_name, "Src");  // a block without an instance name is known by its block name
  EXPECT_EQ(src.wgsl_type, "array<f32>");
  EXPECT_EQ(src.type, BindingType::ReadOnlyStorage);
  EXPECT_EQ(src.min_binding_size, 4u);
  EXPECT_EQ(src.array_stride, 4u);
  EXPECT_TRUE(src.statically_used);  // through the helper load()
  EXPECT_EQ(t.abi.bindings[1].type, BindingType::Storage);
  const CheckedBinding& params = t.abi.bindings[2];
  EXPECT_EQ(params.type, BindingType::Uniform);
  EXPECT_EQ(params.glsl_name, "params");
  EXPECT_EQ(params.min_binding_size, 16u);
  EXPECT_EQ(t.reflection.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_FALSE(t.abi.needs_shader_f16);
  EXPECT_FALSE(t.module.spirv_opt.empty());
}

TEST(AbiCheck, WrongAccessModeIsRejected) {
  EXPECT_EQ(rejection(replace(kGlsl, "readonly buffer Src", "buffer Src")),
            "test/scale: @group(0) @binding(0) src: WGSL declares var<storage, read> "
            "(read-only-storage) but the GLSL port declares it writable (storage)");
  std::string glsl =
      replace(replace(kGlsl, "buffer Dst", "readonly buffer Dst"),
              "dst[i] = src[i] * params.scale;", "if (dst[i] == src[i] * params.scale) return;");
  EXPECT_EQ(rejection(glsl),
            "test/scale: @group(0) @binding(1) dst: WGSL declares var<storage, read_write> "
            "(storage) but the GLSL port declares it readonly (read-only-storage)");
}

TEST(AbiCheck, WrongBindingNumberIsRejected) {
  std::string msg = rejection(
      replace(kGlsl, "binding = 1, std430) buffer Dst", "binding = 3, std430) buffer Dst"));
  EXPECT_EQ(
      msg,
      "test/scale: @group(0) @binding(3) (GLSL `Dst`): the GLSL port declares set 0 binding 3 "
      "but test.wgsl declares no variable at @group(0) @binding(3)\n"
      "test/scale: @group(0) @binding(1) dst: WGSL scale uses var<storage, read_write> dst: "
      "array<f32> but the GLSL port declares nothing at set 0 binding 1 (the GLSL port has "
      "`Dst` at set 0 binding 3, which WGSL does not declare: wrong binding number?)");
}

TEST(AbiCheck, WrongElementTypeIsRejected) {
  std::string glsl = replace(replace(kGlsl, "float src[]", "uint src[]"), "src[i] * params.scale",
                             "uintBitsToFloat(src[i]) * params.scale");
  EXPECT_EQ(rejection(glsl),
            "test/scale: @group(0) @binding(0) src: type: WGSL declares "
            "array<f32> but the GLSL port's block `Src` holds array<u32> "
            "(at []: WGSL f32 but GLSL u32)");
  std::string vec = replace(replace(kGlsl, "float src[]", "vec4 src[]"), "src[i] * params.scale",
                            "src[i].x * params.scale");
  EXPECT_EQ(rejection(vec),
            "test/scale: @group(0) @binding(0) src: type: WGSL declares "
            "array<f32> but the GLSL port's block `Src` holds array<vec4<f32>> "
            "(at []: WGSL f32 but GLSL vec4<f32>)");
}

TEST(AbiCheck, WrongWorkgroupSizeIsRejected) {
  EXPECT_EQ(rejection(replace(kGlsl, "#define WG 64", "#define WG 128")),
            "test/scale: workgroup size: WGSL scale declares @workgroup_size(64, 1, 1) but the "
            "GLSL port declares local_size (128, 1, 1)");
}

TEST(AbiCheck, WrongUniformSizeIsRejected) {
  // Dropping the WGSL struct's padding member shrinks the block and shifts nothing else.
  EXPECT_EQ(rejection(replace(kGlsl, "float scale; uvec2 pad; }", "float scale; }")),
            "test/scale: @group(0) @binding(2) params: type: WGSL declares Params but the GLSL "
            "port's block `Params` holds struct Params { n: u32, scale: f32 } (WGSL struct "
            "Params { n: u32, scale: f32, pad: vec2<u32> } has 3 members but GLSL struct Params "
            "{ n: u32, scale: f32 } has 2)");
  // Same member count, wrong extent: a vec4<u32> uniform read through a uvec2 block.
  std::string wgsl = replace(kWgsl, "@group(0) @binding(2) var<uniform> params: Params;",
                             "@group(0) @binding(2) var<uniform> params: Params;\n"
                             "@group(0) @binding(3) var<uniform> extra: vec4<u32>;");
  wgsl = replace(wgsl, "if (gid.x >= params.n)", "if (gid.x >= params.n + extra.x)");
  std::string glsl =
      replace(kGlsl, "void main() {",
              "layout(set = 0, binding = 3, std140) uniform Extra { uvec2 extra; };\n"
              "void main() {");
  glsl = replace(glsl, "if (i >= params.n)", "if (i >= params.n + extra.x)");
  EXPECT_EQ(rejection(glsl, wgsl),
            "test/scale: @group(0) @binding(3) extra: type: WGSL declares "
            "vec4<u32> but the GLSL port's block `Extra` holds vec2<u32>");
  // A layout difference inside a struct: an offset that does not match.
  EXPECT_EQ(rejection(replace(kGlsl, "uint n; float scale; uvec2 pad;",
                              "uint n; float scale; layout(offset = 16) uvec2 pad;")),
            "test/scale: @group(0) @binding(2) params: type: WGSL declares Params but the GLSL "
            "port's block `Params` holds struct Params { n: u32, scale: f32, pad: vec2<u32> } "
            "(at .pad: WGSL offset 8 but GLSL member `pad` is at offset 16)");
}

TEST(AbiCheck, WrongUniformSizeIsRejected2) {
  // Every member matches, but WGSL's @size makes the struct 16 bytes and the block is 8.
  std::string wgsl = replace(kWgsl, "struct Params { n: u32, scale: f32, pad: vec2<u32> }",
                             "struct Params { n: u32, @size(12) scale: f32 }");
  std::string glsl = replace(kGlsl, "uint n; float scale; uvec2 pad;", "uint n; float scale;");
  EXPECT_EQ(rejection(glsl, wgsl),
            "test/scale: @group(0) @binding(2) params: uniform size: WGSL "
            "Params is 16 bytes but the GLSL block `Params` is 8 bytes");
}

TEST(AbiCheck, UniformSizeIncludesWgslTailPadding) {
  // WGSL SizeOf(vec3<f32>) as a uniform is 12 but a struct holding it rounds to 16; std140 says
  // 12 for the block. WebGPU's minimum binding size is the WGSL one.
  std::string wgsl = replace(kWgsl, "struct Params { n: u32, scale: f32, pad: vec2<u32> }",
                             "struct Params { v: vec3<f32>, }");
  wgsl = replace(replace(wgsl, "params.n", "u32(params.v.x)"), "params.scale", "params.v.y");
  std::string glsl = replace(kGlsl, "uint n; float scale; uvec2 pad;", "vec3 v;");
  glsl = replace(replace(glsl, "params.n", "uint(params.v.x)"), "params.scale", "params.v.y");
  TranslatedKernel t = translate_strings(glsl, wgsl);
  EXPECT_EQ(t.abi.bindings[2].min_binding_size, 16u);
}

TEST(AbiCheck, WrongKindIsRejected) {
  std::string glsl = replace(kGlsl, "std140) uniform Params", "std430) readonly buffer Params");
  EXPECT_EQ(rejection(glsl),
            "test/scale: @group(0) @binding(2) params: WGSL declares "
            "var<uniform> (uniform) but the GLSL port declares a storage buffer "
            "(read-only-storage) `params`");
}

TEST(AbiCheck, StaticUseMustAgree) {
  std::string glsl = replace(kGlsl, "dst[i] = src[i] * params.scale;", "dst[i] = params.scale;");
  EXPECT_EQ(rejection(glsl),
            "test/scale: @group(0) @binding(0) src: static use: WGSL scale uses "
            "it but the GLSL port never accesses `Src` (the auto layouts would "
            "differ)");
}

TEST(AbiCheck, MissingEntryPointIsRejected) {
  EXPECT_EQ(rejection(kGlsl, kWgsl, "", "scale2"),
            "test/scale2: test.wgsl has no @compute entry point `scale2`; its entry points: scale");
}

TEST(AbiCheck, F16NeedsTheWgslEnable) {
  std::string glsl =
      replace(kGlsl, "#define WG 64",
              "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
              "#define WG 64");
  glsl = replace(glsl, "dst[i] = src[i] * params.scale;",
                 "dst[i] = float(float16_t(src[i])) * params.scale;");
  EXPECT_EQ(rejection(glsl),
            "test/scale: f16: the GLSL port uses 16-bit types but test.wgsl has "
            "no `enable f16;` (WebGPU would not require \"shader-f16\" for it)");
  TranslatedKernel t = translate_strings(glsl, "enable f16;\n" + std::string(kWgsl));
  EXPECT_TRUE(t.abi.needs_shader_f16);
  EXPECT_TRUE(t.reflection.needs_shader_f16);
  // `enable f16;` is module-wide: WebGPU needs the feature for every entry point of the module.
  EXPECT_TRUE(translate_strings(kGlsl, "enable f16;\n" + std::string(kWgsl)).abi.needs_shader_f16);
}

// Subgroup matrices (wgsl_ports/subgroup_matrix/README.md, "Toolchain"): a GL_NV_cooperative_matrix
// port is rewritten to SPV_KHR_cooperative_matrix (16x16 f16 used as left and right operand: two
// KHR types), validated as its NV equivalent, reflected without the matrices, and its matrix
// types are checked against the WGSL's subgroup_matrix_* types.
constexpr const char* kMatrixWgsl = R"(
enable f16;
enable chromium_experimental_subgroup_matrix;
@group(0) @binding(0) var<storage, read> ma: array<f16>;
@group(0) @binding(1) var<storage, read> mb: array<f16>;
@group(0) @binding(2) var<storage, read_write> mc: array<f32>;
@compute @workgroup_size(32)
fn mm() {
  let l = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&ma, 0u, false, 16u);
  let r = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&mb, 0u, true, 16u);
  var c: subgroup_matrix_result<f32, 16, 16>;
  c = subgroupMatrixMultiplyAccumulate(l, r, c);
  subgroupMatrixStore(&mc, 0u, c, false, 16u);
}
)";
constexpr const char* kMatrixGlsl = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float16_t ma[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float16_t mb[]; };
layout(set = 0, binding = 2, std430) buffer C { float mc[]; };
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> l, r;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  coopMatLoadNV(l, ma, 0u, 16u, false);
  coopMatLoadNV(r, mb, 0u, 16u, true);
  c = coopMatMulAddNV(l, r, c);
  coopMatStoreNV(c, mc, 0u, 16u, false);
}
)";

TEST(SubgroupMatrix, NvPortIsRewrittenToKhrAndChecked) {
  TranslatedKernel t = translate_strings(kMatrixGlsl, kMatrixWgsl, "", "mm");
  for (const auto* m : {&t.module.spirv, &t.module.spirv_opt}) {
    // OpCapability CooperativeMatrixKHR (6022), no NV capability (5357); two KHR matrix types of
    // f16 (uses A and B) and one of f32: OpTypeCooperativeMatrixKHR is opcode 4456.
    bool khr = false, nv = false;
    int types = 0;
    for (size_t i = 5; i < m->size(); i += (*m)[i] >> 16) {
      const uint32_t op = (*m)[i] & 0xffff;
      if (op == 17) khr |= (*m)[i + 1] == 6022, nv |= (*m)[i + 1] == 5357;
      types += op == 4456;
      ASSERT_NE(op, 5358u) << "an NV matrix type survived the rewrite";
    }
    EXPECT_TRUE(khr);
    EXPECT_FALSE(nv);
    EXPECT_EQ(types, 3);
    EXPECT_NO_THROW(validate_spirv(*m, "mm"));  // as its NV equivalent
  }
  EXPECT_EQ(t.reflection.subgroup_matrices,
            (std::vector<std::string>{"subgroup_matrix_left<f16, 16, 16>",
                                      "subgroup_matrix_result<f32, 16, 16>",
                                      "subgroup_matrix_right<f16, 16, 16>"}));
  EXPECT_EQ(t.abi.bindings.size(), 3u);
  EXPECT_NE(emit(t.module.spirv, EmitFormat::Spvasm).find("OpCooperativeMatrixMulAddNV"),
            std::string::npos);
  EXPECT_FALSE(emit(t.module.spirv, EmitFormat::ReflectJson).empty());
}

TEST(AbiCheck, SubgroupMatrixTypesMustMatchTheWgsl) {
  EXPECT_EQ(rejection(kMatrixGlsl,
                      replace(kMatrixWgsl, "enable chromium_experimental_subgroup_matrix;", ""), "",
                      "mm"),
            "test/mm: subgroup matrices: the GLSL port uses cooperative matrices but test.wgsl "
            "has no `enable chromium_experimental_subgroup_matrix;`");
  // An f32 result ported as f16 (a different accumulator type), and a 16x8 left operand.
  std::string msg = rejection(kMatrixGlsl,
                              replace(kMatrixWgsl, "subgroup_matrix_result<f32, 16, 16>",
                                      "subgroup_matrix_result<f16, 16, 16>"),
                              "", "mm");
  EXPECT_NE(msg.find("the GLSL port's SPIR-V has subgroup_matrix_result<f32, 16, 16> but "
                     "test.wgsl writes"),
            std::string::npos)
      << msg;
  msg = rejection(
      kMatrixGlsl,
      replace(kMatrixWgsl, "subgroup_matrix_left<f16, 16, 16>", "subgroup_matrix_left<f16, 8, 16>"),
      "", "mm");
  EXPECT_NE(msg.find("has subgroup_matrix_left<f16, 16, 16> but"), std::string::npos) << msg;
}

TEST(SubgroupMatrix, AValueUsedAsBothOperandsIsRefused) {
  // l as both left and right operand: one KHR type cannot be both uses.
  std::string glsl =
      replace(kMatrixGlsl, "c = coopMatMulAddNV(l, r, c);", "c = coopMatMulAddNV(l, l, c);");
  EXPECT_NE(rejection(glsl, kMatrixWgsl, "", "mm").find("is used as more than one of left operand"),
            std::string::npos);
}

TEST(AbiCheck, NativeVariantMayReinterpretOnlyWithAReason) {
  // WGSL's CAS loop keeps f32 bits in atomic<u32>; the native variant adds floats in place.
  std::string wgsl = replace(kWgsl, "var<storage, read_write> dst: array<f32>;",
                             "var<storage, read_write> dst: array<atomic<u32>>;");
  wgsl = replace(wgsl, "dst[gid.x] = load(gid.x) * params.scale;",
                 "atomicStore(&dst[gid.x], bitcast<u32>(load(gid.x) * params.scale));");
  std::string native = replace(kGlsl, "#define WG 64",
                               "#extension GL_EXT_shader_atomic_float : require\n#define WG 64");
  native = replace(native, "dst[i] = src[i] * params.scale;",
                   "atomicAdd(dst[i], src[i] * params.scale);");
  std::string msg = rejection(native, wgsl, "scale", "scale_atomic_float");
  EXPECT_EQ(msg,
            "test/scale_atomic_float: @group(0) @binding(1) dst: type: WGSL declares "
            "array<atomic<u32>> but the GLSL port's block `Dst` holds array<f32> (at []: "
            "WGSL atomic<u32> but GLSL f32); a native variant may read the same bytes as "
            "another type if its .comp says why: `// wgslvk-abi-allow @group(0) @binding(1) "
            "element-type: <reason>`");
  const std::string allow =
      "// wgslvk-abi-allow @group(0) @binding(1) element-type: f32 adds on the CAS loop's bits\n";
  std::string allowed = replace(native, "void main()", allow + "void main()");
  TranslatedKernel t = translate_strings(allowed, wgsl, "scale", "scale_atomic_float");
  EXPECT_TRUE(t.reflection.needs_float_atomics);
  EXPECT_EQ(t.abi.bindings[1].wgsl_type, "array<atomic<u32>>");
  // The same line in a port of a WGSL entry point is refused.
  std::string plain = replace(kGlsl, "void main()", allow + "void main()");
  EXPECT_NE(rejection(plain).find("`wgslvk-abi-allow` is only for native-only variants"),
            std::string::npos);
  // A reinterpretation must keep the size: f16 for u32 is not the same bytes.
  std::string f16 = replace(replace(allowed, "float dst[]", "float16_t dst[]"),
                            "atomicAdd(dst[i], src[i] * params.scale);",
                            "dst[i] = float16_t(src[i] * params.scale);");
  EXPECT_NE(
      rejection(
          "#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n" +
              f16.substr(f16.find('\n') + 1),
          "enable f16;\n" + wgsl, "scale", "scale_atomic_float")
          .find("type: WGSL declares array<atomic<u32>>"),
      std::string::npos);
}

TEST(Compile, GlslErrorsNameTheKernel) {
  std::string msg = rejection(replace(kGlsl, "dst[i] =", "dst[i] = undefined_name +"));
  EXPECT_NE(msg.find("test/scale: glslang failed to compile"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undefined_name"), std::string::npos) << msg;
}

TEST(Compile, SpirvValFailureIsReported) {
  CompileOptions o;
  o.kernel = "test/scale";
  CompiledModule m = compile_glsl(kGlsl, o);
  // Drop OpMemoryModel (opcode 14): a well-formed stream that breaks a validation rule.
  std::vector<uint32_t> broken(m.spirv.begin(), m.spirv.begin() + 5);
  bool dropped = false;
  for (size_t i = 5; i < m.spirv.size();) {
    uint32_t len = m.spirv[i] >> 16;
    if ((m.spirv[i] & 0xffff) == 14)
      dropped = true;
    else
      broken.insert(broken.end(), m.spirv.begin() + i, m.spirv.begin() + i + len);
    i += len;
  }
  ASSERT_TRUE(dropped);
  try {
    validate_spirv(broken, "test/scale");
    FAIL() << "spirv-val accepted a module without OpMemoryModel";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("test/scale: spirv-val rejected the module:", 0), 0u) << msg;
    EXPECT_NE(msg.find("memory model"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(validate_spirv(m.spirv, "test/scale"));
  EXPECT_NO_THROW(validate_spirv(m.spirv_opt, "test/scale"));
}

TEST(Compile, IncludesResolveBesideTheFileThenInCommon) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(::testing::TempDir()) / "wgslvk_translator_includes";
  fs::remove_all(root);
  fs::create_directories(root / "port");
  fs::create_directories(root / "common");
  auto write = [](const fs::path& p, const std::string& s) { std::ofstream(p) << s; };
  write(root / "common" / "shared.glsl",
        "#ifndef SHARED\n#define SHARED\nfloat twice(float x) { return 2.0 * x; }\n#endif\n");
  write(root / "port" / "local.glsl",
        "#include \"shared.glsl\"\nfloat local_scale() { return twice(SCALE); }\n");
  std::string comp = replace(kGlsl, "#define WG 64",
                             "#define WG 64\n#include \"local.glsl\"\n#include \"shared.glsl\"");
  comp = replace(comp, "* params.scale", "* params.scale * local_scale()");
  write(root / "port" / "scale.comp", comp);

  CompileOptions o;
  o.kernel = "test/scale";
  o.source_path = (root / "port" / "scale.comp").string();
  o.include_dirs = {(root / "common").string()};
  o.defines = {"SCALE=3.0"};
  CompiledModule m = compile_glsl_file(o);
  ASSERT_EQ(m.dependencies.size(), 3u);
  EXPECT_EQ(fs::path(m.dependencies[1]).filename(), "local.glsl");
  EXPECT_EQ(fs::path(m.dependencies[2]).filename(), "shared.glsl");
  EXPECT_EQ(m.expanded_source.find("#include"), std::string::npos);
  EXPECT_NE(m.expanded_source.find("float twice(float x)"), std::string::npos);
  EXPECT_NE(m.expanded_source.find("#define SCALE 3.0"), std::string::npos);
  // The expanded text stands alone: no include path, no defines, the same SPIR-V.
  CompileOptions alone;
  alone.kernel = "test/scale";
  EXPECT_EQ(compile_glsl(m.expanded_source, alone).spirv, m.spirv);

  o.include_dirs.clear();
  try {
    compile_glsl_file(o);
    FAIL() << "an include outside the search path compiled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shared.glsl"), std::string::npos) << e.what();
  }
  fs::remove_all(root);
}

TEST(Wgsl, LayoutFollowsTheWgslSpec) {
  WgslModule m = parse_wgsl(R"(
    const N = 4;
    alias V = vec3<f32>;
    struct Inner { a: f16, b: vec3f }
    struct S { x: u32, v: V, m: mat2x3<f32>, inner: Inner, @align(32) y: f32, @size(12) z: u32, arr: array<vec2u, N * 2>, tail: array<Inner> }
    @group(1) @binding(7) var<storage, read_write> s: S;
    /* nested /* comment */ still comment */
    @compute @workgroup_size(8, 2 * 2) fn main_cs() { let q = s.x; }
  )",
                            "layout.wgsl");
  ASSERT_EQ(m.bindings.size(), 1u);
  const TypeDesc& s = m.bindings[0].type;
  ASSERT_EQ(s.members.size(), 8u);
  std::vector<uint32_t> offsets;
  for (auto& mem : s.members) offsets.push_back(mem.offset);
  // x 0; v vec3 align 16 -> 16; m mat2x3 (2 columns of 16) -> 32..64; Inner {f16 @0, vec3f @16}
  // size 32 align 16 -> 64; y @align(32) -> 96; z @size(12) -> 100..112; arr vec2u x 8 align 8
  // -> 112..176; tail Inner stride 32 align 16 -> 176.
  EXPECT_EQ(offsets, (std::vector<uint32_t>{0, 16, 32, 64, 96, 100, 112, 176}));
  EXPECT_EQ(s.members[6].type.array_len, 8u);
  EXPECT_EQ(s.members[7].type.stride, 32u);
  // One element of the runtime array (ends at 208), rounded to the struct's alignment (32).
  EXPECT_EQ(s.size, 224u);
  EXPECT_EQ(m.bindings[0].group, 1u);
  EXPECT_EQ(m.bindings[0].binding, 7u);
  EXPECT_TRUE(m.bindings[0].read_write);
  ASSERT_EQ(m.entry_points.size(), 1u);
  EXPECT_EQ(m.entry_points[0].workgroup_size, (std::array<uint32_t, 3>{8, 4, 1}));
}

TEST(Wgsl, StaticUseFollowsCallsAndSharedSlots) {
  WgslModule m = parse_wgsl(R"(
    @group(0) @binding(0) var<storage, read> a: array<f32>;
    @group(0) @binding(0) var<storage, read> a_w16: array<u32>;
    @group(0) @binding(1) var<uniform> dims: vec4<u32>;
    fn helper2() -> f32 { return a[dims.x]; }
    fn helper() -> f32 { return helper2(); }
    @compute @workgroup_size(1) fn one() { let v = helper(); }
    @compute @workgroup_size(1) fn two() { let v = a_w16[0]; let w = v.dims; }
  )",
                            "use.wgsl");
  const WgslEntryPoint* one = m.find_entry("one");
  const WgslEntryPoint* two = m.find_entry("two");
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->referenced, (std::vector<std::string>{"a", "dims"}));
  EXPECT_EQ(two->referenced, (std::vector<std::string>{"a_w16"}));  // `.dims` is a member
}

TEST(Wgsl, UnreadableDeclarationsNameFileAndLine) {
  try {
    parse_wgsl("const WG = 64u;\n@group(0) @binding(0) var<storage, read> a: array<mystery>;\n",
               "bad.wgsl");
    FAIL() << "an unknown type was accepted";
  } catch (const Error& e) { EXPECT_STREQ(e.what(), "bad.wgsl:2: unknown type `mystery`"); }
  try {
    parse_wgsl("override WG: u32;\n@compute @workgroup_size(WG) fn f() {}\n", "bad.wgsl");
    FAIL() << "an override without a value was accepted as a workgroup size";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("bad.wgsl:2: cannot evaluate @workgroup_size argument `WG`"),
        std::string::npos)
        << e.what();
  }
}

TEST(Emit, EveryFormatRendersTheModule) {
  TranslatedKernel t = translate_strings(kGlsl);
  EXPECT_NE(emit(t.module.spirv, EmitFormat::Spvasm).find("OpEntryPoint GLCompute"),
            std::string::npos);
  EXPECT_NE(emit(t.module.spirv, EmitFormat::Glsl).find("local_size_x = 64"), std::string::npos);
  EXPECT_NE(emit(t.module.spirv, EmitFormat::Msl).find("kernel void"), std::string::npos);
  EXPECT_NE(emit(t.module.spirv, EmitFormat::Hlsl).find("[numthreads(64, 1, 1)]"),
            std::string::npos);
  auto j = nlohmann::json::parse(emit(t.module.spirv, EmitFormat::ReflectJson));
  ASSERT_TRUE(j.contains("entryPoints"));
  EXPECT_EQ(j["entryPoints"][0]["workgroup_size"], nlohmann::json::array({64, 1, 1}));
  EXPECT_EQ(parse_emit_format("msl"), EmitFormat::Msl);
  EXPECT_EQ(parse_emit_format("wat"), std::nullopt);
}

// Every kernel the build embedded, re-checked from what it embeds: its GLSL (includes expanded)
// compiles alone to the embedded SPIR-V, and passes the ABI check against its WGSL with the
// embedded bindings as the result.
TEST(EmbeddedKernels, EveryPortPassesTheAbiCheckAgain) {
  ASSERT_FALSE(all_kernels().empty()) << "the build embedded no kernels";
  for (const KernelInfo* k : all_kernels()) {
    SCOPED_TRACE(k->qualified_name());
    CompileOptions o;
    o.kernel = k->qualified_name();
    CompiledModule m = compile_glsl(k->glsl_source, o);
    EXPECT_TRUE(std::equal(m.spirv.begin(), m.spirv.end(), k->spirv.begin(), k->spirv.end()));
    EXPECT_NO_THROW(validate_spirv(k->spirv_opt, k->qualified_name()));
    Reflection r = reflect(m.spirv);
    EXPECT_EQ(r.workgroup_size, k->workgroup_size);
    EXPECT_EQ(r.workgroup_storage_bytes, k->workgroup_storage_bytes);
    EXPECT_EQ(r.needs_float_atomics, k->needs_float_atomics);
    WgslModule w = parse_wgsl(k->wgsl_source, k->wgsl_file);
    AbiCheckInput in;
    in.kernel = k->qualified_name();
    in.entry_point = std::string(k->in_wgsl ? k->name : k->abi_of);
    in.native_variant = !k->in_wgsl;
    in.glsl_source = k->glsl_source;
    AbiResult abi;
    try {
      abi = check_abi(in, r, w);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_EQ(abi.needs_shader_f16, k->needs_shader_f16);
    ASSERT_EQ(abi.bindings.size(), k->bindings.size());
    for (size_t i = 0; i < abi.bindings.size(); ++i) {
      const auto& a = abi.bindings[i];
      const auto& b = k->bindings[i];
      EXPECT_EQ(a.group, b.group);
      EXPECT_EQ(a.binding, b.binding);
      EXPECT_EQ(a.type, b.type);
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.wgsl_type, b.wgsl_type);
      EXPECT_EQ(a.glsl_name, b.glsl_name);
      EXPECT_EQ(a.min_binding_size, b.min_binding_size);
      EXPECT_EQ(a.array_stride, b.array_stride);
      EXPECT_EQ(a.statically_used, b.statically_used);
      EXPECT_EQ(k->find_binding(a.group, a.binding), &b);
    }
    EXPECT_EQ(find_kernel(k->qualified_name()), k);
  }
}

TEST(EmbeddedKernels, EveryFormatRendersEveryKernel) {
  for (const KernelInfo* k : all_kernels())
    for (auto f : {EmitFormat::Spvasm, EmitFormat::Glsl, EmitFormat::Msl, EmitFormat::Hlsl,
                   EmitFormat::ReflectJson})
      for (auto spirv : {k->spirv, k->spirv_opt}) {
        if (f == EmitFormat::Hlsl && k->needs_float_atomics) {
          try {
            emit(spirv, f);
            ADD_FAILURE() << k->qualified_name() << ": HLSL of a float atomic add was emitted";
          } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("hlsl: the module adds floats atomically", 0),
                      0u);
          }
          continue;
        }
        try {
          EXPECT_FALSE(emit(spirv, f).empty()) << k->qualified_name();
        } catch (const Error& e) { ADD_FAILURE() << k->qualified_name() << ": " << e.what(); }
      }
}

TEST(EmbeddedKernels, LookupsNameTheKnownKernels) {
  EXPECT_EQ(find_kernel("no_such/kernel"), nullptr);
  try {
    kernel("no_such_kernel");
    FAIL();
  } catch (const std::invalid_argument& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("unknown kernel 'no_such_kernel'\nknown kernels (", 0), 0u) << msg;
    // One line per file (issue 25: all of them were once one line), every kernel named.
    for (const KernelInfo* k : all_kernels()) {
      const std::string line = "\n  " + std::string(k->file) + ":";
      const size_t at = msg.find(line);
      ASSERT_NE(at, std::string::npos) << msg;
      const std::string rest =
          msg.substr(at + line.size(), msg.find('\n', at + 1) - at - line.size());
      EXPECT_NE((rest + " ").find(" " + std::string(k->name) + " "), std::string::npos) << rest;
    }
  }
}

// A near miss suggests the nearest kernels; an ambiguous bare name lists its qualified forms.
TEST(EmbeddedKernels, UnknownKernelSuggestsTheNearest) {
  auto message = [](const std::string& name) {
    try {
      kernel(name);
    } catch (const std::invalid_argument& e) { return std::string(e.what()); }
    return std::string("found");
  };
  std::string m = message("adamw_updte");
  EXPECT_NE(m.find("did you mean 'optimizer/adamw_update'"), std::string::npos) << m;
  m = message("optimiser/adamw_update");
  EXPECT_NE(m.find("did you mean 'optimizer/adamw_update'"), std::string::npos) << m;
  m = message("zzzzzzzzzzzzzzzzzzzzzzzz");
  EXPECT_EQ(m.find("did you mean"), std::string::npos) << m;
  // A name far too long is quoted bounded.
  m = message(std::string(100000, 'x'));
  EXPECT_LT(m.find('\n'), 300u);
}

}  // namespace
