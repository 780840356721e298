// Fuzz target: the WGSL front end (translator/wgsl): check_module on the input, then
// translate_to_glsl for each compute entry point it found. Refusals are wgslvk::wgsl::Error with
// diagnostics (file:line:col, rule, message); anything else — another exception, a crash, a hang
// (the driver's time bound), a sanitizer report — is a bug.
#include "fuzz.hpp"
#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"enable f16;",
          "enable subgroups;",
          "requires ",
          "diagnostic(off, derivative_uniformity);",
          "@diagnostic(off, derivative_uniformity)",
          "@group(0) @binding(0) ",
          "@binding(1) ",
          "var<storage, read_write> ",
          "var<storage, read> ",
          "var<uniform> ",
          "var<workgroup> ",
          "var<private> ",
          "array<",
          "array<f32, 4>",
          "array<u32>",
          "vec4<f32>",
          "vec2<u32>",
          "vec3f",
          "mat4x4f",
          "atomic<u32>",
          "ptr<function, f32>",
          "ptr<storage, array<f32>, read_write>",
          "<",
          ">",
          ">>",
          "<<",
          "<=",
          ">=",
          "&&",
          "||",
          "struct S { a : u32, b : f32, }",
          "@align(16) ",
          "@size(32) ",
          "@compute @workgroup_size(64) ",
          "@workgroup_size(8, 8, 1)",
          "@builtin(global_invocation_id) gid : vec3<u32>",
          "@builtin(local_invocation_index) li : u32",
          "fn main() {",
          "fn f(p : ptr<function, f32>) -> f32 { return *p; }",
          "const N = 4u;",
          "override K : u32 = 2u;",
          "alias A = array<f32, 4>;",
          "const_assert N > 2;",
          "let x = ",
          "var v : f32 = ",
          "if (x < N) { ",
          "} else { ",
          "for (var i = 0u; i < N; i++) { ",
          "while (false) { ",
          "loop { if i > 4u { break; } continuing { i++; break if i > 8u; } }",
          "switch i { case 0u, 1u: { } default { } }",
          "workgroupBarrier();",
          "storageBarrier();",
          "workgroupUniformLoad(&",
          "atomicAdd(&",
          "arrayLength(&",
          "bitcast<u32>(",
          "select(",
          "_ = ",
          "return;",
          "discard;",
          "break;",
          "continue;",
          "/* /* */ */",
          "//",
          "((((((((",
          "))))))))",
          "0x1p-3f",
          "1e38f",
          "65504h",
          "0x7fffffff",
          "2147483648i",
          "4294967295u",
          "4294967296u",
          ".5",
          "1.",
          "-",
          "*",
          "&",
          "!",
          "~",
          "%",
          "/",
          "}",
          "{",
          ";",
          ",",
          ":",
          "."};
}
std::vector<std::vector<uint8_t>> extra_seeds() { return {}; }
}  // namespace wgslvk::fuzz

namespace {
// Messages quote source text ('V4_M_TOP', found 'x'): the implementation-word check applies to
// what the front end wrote, not to names the input chose.
std::string without_quoted(const std::string& m) {
  std::string out;
  bool quoted = false;
  for (char c : m) {
    if (c == '\'') quoted = !quoted;
    if (!quoted || c == '\'') out += c;
  }
  return out;
}

void check(const wgslvk::wgsl::Error& e) {
  if (e.diagnostics.empty())
    wgslvk::fuzz::bug("an Error without diagnostics: " + std::string(e.what()));
  for (const auto& d : e.diagnostics) {
    if (d.message.size() > 8000)
      wgslvk::fuzz::bug("an unbounded message: " + d.message.substr(0, 500));
    wgslvk::fuzz::check_message(without_quoted(d.message));
    if (d.rule.empty()) wgslvk::fuzz::bug("a diagnostic without its rule: " + d.message);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  std::vector<wgslvk::wgsl::EntryPointInfo> entries;
  try {
    entries = wgslvk::wgsl::check_module(source, "fuzz.wgsl");
  } catch (const wgslvk::wgsl::Error& e) {
    check(e);
    return 0;
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("check_module threw a non-Error: ") + e.what());
  }
  for (const auto& entry : entries) {
    if (entry.stage != "compute") continue;
    wgslvk::wgsl::TranslateOptions options;
    options.file_name = "fuzz.wgsl";
    options.entry_point = entry.name;
    try {
      auto out = wgslvk::wgsl::translate_to_glsl(source, options);
      if (out.glsl.empty())
        wgslvk::fuzz::bug("translate_to_glsl returned no GLSL for " + entry.name);
    } catch (const wgslvk::wgsl::Error& e) { check(e); } catch (const std::exception& e) {
      wgslvk::fuzz::bug(std::string("translate_to_glsl threw a non-Error: ") + e.what());
    }
  }
  return 0;
}
