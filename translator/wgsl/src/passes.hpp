// The front end's passes and what each promises the next (frontend.cpp runs them in order).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ast.hpp"
#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::wgsl {

// Collects diagnostics; a pass stops early when it cannot go on safely.
struct Diags {
  std::string file;
  std::vector<Diagnostic> list;
  void error(Span at, std::string rule, std::string message) {
    list.push_back({file, at.line, at.col, std::move(rule), std::move(message)});
  }
  bool ok() const { return list.empty(); }
  // Warnings and infos (Diagnostic::severity "warning" or "info"): never fail the module.
  std::vector<Diagnostic> warnings;
  void warning(Span at, std::string rule, std::string message, std::string severity = "warning") {
    warnings.push_back(
        {file, at.line, at.col, std::move(rule), std::move(message), std::move(severity)});
  }
  // Errors WebGPU raises when a pipeline is created, not when the module is (an override the
  // entry point uses that has no value, a workgroup size that depends on one): check_module
  // ignores them, translate_to_glsl reports those of its entry point.
  struct PipelineError {
    std::string entry_point;
    Diagnostic diagnostic;
  };
  std::vector<PipelineError> pipeline;
  void pipeline_error(const std::string& entry_point, Span at, std::string rule,
                      std::string message) {
    pipeline.push_back({entry_point, {file, at.line, at.col, std::move(rule), std::move(message)}});
  }
};

// Bounds on untrusted input (README "Limits"): exceeding one is a "limit" diagnostic.
inline constexpr size_t kMaxSourceBytes = 4u << 20;  // 4 MiB of WGSL
inline constexpr int kMaxNesting = 128;  // expression / statement / template nesting depth

// parser.cpp: the whole grammar (lexing, template-list discovery, recursive descent). On a
// syntax error it reports it and returns nullptr; the Module it returns holds syntax only.
std::unique_ptr<Module> parse(std::string_view source, Diags& diags);

// sema.cpp: resolves every name, creates and interns types, evaluates const-expressions and
// overrides (with the pipeline constants applied), checks WGSL's type, address-space,
// attribute and entry-point rules, and fills every `// sema:` field of ast.hpp. Returns false
// with diagnostics on any error.
bool analyze(Module& module, const std::map<std::string, double>& constants, Diags& diags);

// entry_io.cpp: WGSL's entry point IO rules of every stage (built-ins by stage and direction,
// @location, @interpolate, @invariant) beyond the compute inputs sema checks; after analyze.
void check_entry_io(const Module& module, Diags& diags);
// entry_io.cpp: diagnostic directives and attributes (severities, conflicting rules).
void check_diagnostic_controls(const Module& module, Diags& diags);

// uniformity.cpp: WGSL's uniformity analysis over an analyzed module: a barrier,
// workgroupUniformLoad (or another builtin that needs uniform control flow) reached in
// non-uniform control flow is a "uniformity" error, as Tint reports it.
void check_uniformity(const Module& module, Diags& diags);

struct EmitOptions {
  bool robust_access = true;
  std::string source_name;  // the header comment's "translated from"
};
// emit_glsl.cpp: the GLSL 450 compute shader of one analyzed entry point (and everything it
// reaches). Anything it cannot express is an "unsupported" diagnostic, never wrong code.
std::string emit_glsl(const Module& module, const FnDecl& entry, const EmitOptions& options,
                      Diags& diags);

}  // namespace wgslvk::wgsl
