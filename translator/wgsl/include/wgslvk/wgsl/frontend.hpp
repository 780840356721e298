// wgslvk's WGSL front end: WGSL source -> the GLSL 450 transliteration of one compute entry
// point, which the GLSL path of wgslvk_translator (glslang, spirv-val, spirv-opt, reflection, the
// ABI check) then takes as if it were a hand port. No Dawn, no Tint, no glslang in here.
//
//   source ─ lexer ─ parser (ast.hpp) ─ sema (resolver, types, const-eval, WGSL's validation
//   rules) ─ uniformity analysis ─ GLSL emitter
//
// Input is untrusted: every failure is a Diagnostic (file:line:col, the rule, a message), never a
// crash, a hang or unbounded memory (the source size, nesting depth and const-eval work are
// bounded; see translator/wgsl/README.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wgslvk::wgsl {

struct Diagnostic {
  std::string file;
  uint32_t line = 0, col = 0;  // 1-based; 0 when the diagnostic concerns the whole module
  // The kind of rule broken, stable for tests and tooling:
  //   "syntax"      the grammar (lexing and parsing)
  //   "resolve"     an unknown or redeclared name, a use before declaration where forbidden
  //   "type"        type rules: operands, conversions, assignments, calls, attributes' types
  //   "const-eval"  a const-expression that is out of range, divides by zero, overflows
  //   "attribute"   a missing, duplicated or invalid attribute (@group/@binding/@builtin/...)
  //   "address-space" address space and access mode rules, host-shareable layout rules
  //   "uniformity"  a barrier / workgroupUniformLoad / derivative in non-uniform control flow
  //   "entry-point" entry point rules (stage, workgroup size, I/O builtins)
  //   "extension"   use of f16 / subgroups without its `enable`; unknown extensions
  //   "limit"       a bound of this implementation (source size, nesting depth, const-eval work)
  //   "unsupported" valid WGSL this front end does not translate (named precisely)
  std::string rule;
  std::string message;
  // "error"; "warning" or "info" for the diagnostics check_module returns through its
  // `warnings` (an unknown diagnostic rule name, a uniformity violation a `diagnostic(warning |
  // info, ...)` filter lowers), which do not fail the module.
  std::string severity = "error";
  // "file:line:col: <severity>: message [rule]"
  std::string str() const;
};

// Thrown by every entry point below with at least one diagnostic.
struct Error : std::runtime_error {
  std::vector<Diagnostic> diagnostics;
  explicit Error(std::vector<Diagnostic> d);
};

struct EntryPointInfo {
  std::string name;
  std::string stage;                                // "compute", "vertex", "fragment"
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};  // with overrides at their defaults
  uint32_t line = 0;
};

// Parses and checks the whole module with WGSL's rules (the checks createShaderModule makes).
// Returns its entry points in source order; throws Error with every diagnostic found. With
// `warnings`, it receives the module's warnings and infos (getCompilationInfo's), also when Error
// is thrown.
std::vector<EntryPointInfo> check_module(std::string_view source, std::string_view file_name,
                                         std::vector<Diagnostic>* warnings = nullptr);

struct TranslateOptions {
  std::string file_name;    // for diagnostics and the generated header comment
  std::string entry_point;  // required when the module has more than one compute entry point
  // Pipeline-overridable constants by name or by numeric @id ("12"), as WebGPU's
  // GPUProgrammableStage.constants: applied as the override's value (an override without a
  // default must be given one). Values are doubles, converted to the override's type with
  // WebGPU's rules (a value the type cannot represent is an error).
  std::map<std::string, double> constants;
  // Bounds checks on every index into an array, vector or matrix (Tint's robustness transform:
  // the index is clamped into range), see README. Off only for experiments.
  bool robust_access = true;
};

struct TranslatedEntry {
  std::string entry_point;
  std::string glsl;  // #version 450 ... one compute shader, main() = the entry point
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};
  bool uses_f16 = false;
  bool uses_subgroups = false;
};

// Checks the module (as check_module), then writes the entry point's GLSL. Throws Error.
TranslatedEntry translate_to_glsl(std::string_view source, const TranslateOptions& options);

}  // namespace wgslvk::wgsl
