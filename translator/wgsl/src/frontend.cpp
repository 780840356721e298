// The front end's public entry points: the passes of passes.hpp in order.
#include <algorithm>

#include "passes.hpp"

namespace wgslvk::wgsl {

std::string Diagnostic::str() const {
  std::string s = file;
  if (line) s += ":" + std::to_string(line) + ":" + std::to_string(col);
  s += ": " + severity + ": " + message;
  if (!rule.empty()) s += " [" + rule + "]";
  return s;
}

namespace {
std::string join(const std::vector<Diagnostic>& d) {
  std::string s;
  for (const auto& x : d) s += (s.empty() ? "" : "\n") + x.str();
  return s;
}

// `pipeline` (translate_to_glsl): the pipeline-creation errors of every entry point, which
// check_module (createShaderModule) leaves to the pipeline.
std::unique_ptr<Module> checked(std::string_view source, std::string_view file,
                                const std::map<std::string, double>& constants,
                                std::vector<Diags::PipelineError>* pipeline = nullptr,
                                std::vector<Diagnostic>* warnings = nullptr) {
  Diags diags{std::string(file), {}, {}, {}};
  auto fail = [&] {
    if (warnings) *warnings = diags.warnings;
    return Error(diags.list);
  };
  if (source.size() > kMaxSourceBytes) {
    diags.error({}, "limit",
                "the source is " + std::to_string(source.size()) +
                    " bytes; this front end reads at most " + std::to_string(kMaxSourceBytes));
    throw fail();
  }
  auto module = parse(source, diags);
  if (!module || !diags.ok()) throw fail();
  module->file = std::string(file);
  if (!analyze(*module, constants, diags) || !diags.ok()) throw fail();
  check_uniformity(*module, diags);
  if (!diags.ok()) throw fail();
  if (pipeline) *pipeline = std::move(diags.pipeline);
  if (warnings) *warnings = std::move(diags.warnings);
  return module;
}

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::Compute:
      return "compute";
    case Stage::Vertex:
      return "vertex";
    case Stage::Fragment:
      return "fragment";
    default:
      return "";
  }
}
}  // namespace

Error::Error(std::vector<Diagnostic> d) : std::runtime_error(join(d)), diagnostics(std::move(d)) {}

std::vector<EntryPointInfo> check_module(std::string_view source, std::string_view file_name,
                                         std::vector<Diagnostic>* warnings) {
  auto module = checked(source, file_name, {}, nullptr, warnings);
  std::vector<EntryPointInfo> out;
  for (const Decl* d : module->decls) {
    if (d->kind != DeclKind::Fn) continue;
    const auto* f = static_cast<const FnDecl*>(d);
    if (f->stage == Stage::None) continue;
    out.push_back({f->name,
                   stage_name(f->stage),
                   {f->workgroup_size[0], f->workgroup_size[1], f->workgroup_size[2]},
                   f->span.line});
  }
  return out;
}

TranslatedEntry translate_to_glsl(std::string_view source, const TranslateOptions& options) {
  std::vector<Diags::PipelineError> pipeline;
  auto module = checked(source, options.file_name, options.constants, &pipeline);
  Diags diags{options.file_name, {}, {}, {}};
  const FnDecl* entry = nullptr;
  std::vector<std::string> computes;
  for (const Decl* d : module->decls) {
    if (d->kind != DeclKind::Fn) continue;
    const auto* f = static_cast<const FnDecl*>(d);
    if (f->stage != Stage::Compute) continue;
    computes.push_back(f->name);
    if (options.entry_point.empty() ? computes.size() == 1 : f->name == options.entry_point)
      entry = f;
  }
  if (options.entry_point.empty() && computes.size() > 1) entry = nullptr;
  if (!entry) {
    std::string list;
    for (const auto& c : computes) list += (list.empty() ? "" : ", ") + c;
    diags.error({}, "entry-point",
                options.entry_point.empty()
                    ? (computes.empty() ? "the module has no @compute entry point"
                                        : "the module has " + std::to_string(computes.size()) +
                                              " compute entry points (" + list + "): name one")
                    : "no @compute entry point named '" + options.entry_point +
                          "' (the module has: " + (list.empty() ? "none" : list) + ")");
    throw Error(diags.list);
  }
  for (auto& p : pipeline)
    if (p.entry_point == entry->name) diags.list.push_back(std::move(p.diagnostic));
  if (!diags.ok()) throw Error(diags.list);
  EmitOptions eo{options.robust_access, options.file_name};
  TranslatedEntry out;
  out.glsl = emit_glsl(*module, *entry, eo, diags);
  if (!diags.ok()) throw Error(diags.list);
  out.entry_point = entry->name;
  out.workgroup_size = {entry->workgroup_size[0], entry->workgroup_size[1],
                        entry->workgroup_size[2]};
  out.uses_f16 = module->enables_f16;
  out.uses_subgroups = module->enables_subgroups;
  return out;
}

}  // namespace wgslvk::wgsl
