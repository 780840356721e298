// GLSL -> SPIR-V through glslang's C++ API, then spirv-val and spirv-opt (SPIRV-Tools).
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "wgslvk/translator.hpp"

namespace wgslvk::translator {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw Error("cannot read " + p.string());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// One resolution rule for both the compile (glslang's includer) and the expanded source: the
// including file's folder first, then the include dirs (wgsl_ports/common/).
std::optional<fs::path> resolve_include(const std::string& header, const std::string& includer,
                                        const std::vector<std::string>& dirs) {
  std::vector<fs::path> candidates;
  if (!includer.empty()) candidates.push_back(fs::path(includer).parent_path() / header);
  for (const auto& d : dirs) candidates.push_back(fs::path(d) / header);
  for (auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return fs::weakly_canonical(c);
  }
  return std::nullopt;
}

class Includer : public glslang::TShader::Includer {
 public:
  Includer(const std::vector<std::string>& dirs, std::vector<std::string>& deps)
      : dirs_(dirs), deps_(deps) {}
  IncludeResult* includeLocal(const char* header, const char* includer, size_t) override {
    return include(header, includer);
  }
  IncludeResult* includeSystem(const char* header, const char* includer, size_t) override {
    return include(header, includer);
  }
  void releaseInclude(IncludeResult* r) override {
    if (!r) return;
    delete static_cast<std::string*>(r->userData);
    delete r;
  }

 private:
  IncludeResult* include(const char* header, const char* includer) {
    auto p = resolve_include(header, includer ? includer : "", dirs_);
    if (!p) return nullptr;  // glslang reports "cannot find include file"
    auto* text = new std::string(read_text(*p));
    if (std::find(deps_.begin(), deps_.end(), p->string()) == deps_.end())
      deps_.push_back(p->string());
    return new IncludeResult(p->string(), text->data(), text->size(), text);
  }
  const std::vector<std::string>& dirs_;
  std::vector<std::string>& deps_;
};

bool is_include_line(std::string_view line, std::string& header) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return false;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.substr(i, 7) != "include") return false;
  size_t open = line.find_first_of("\"<", i + 7);
  if (open == std::string_view::npos) return false;
  size_t close = line.find(line[open] == '"' ? '"' : '>', open + 1);
  if (close == std::string_view::npos) return false;
  header = std::string(line.substr(open + 1, close - open - 1));
  return true;
}

// Textual expansion for the embedded copy. Include guards stay, so a twice-included file
// expands to a guarded no-op exactly as glslang sees it.
void expand(std::string_view text, const std::string& path, const std::vector<std::string>& dirs,
            std::string& out, int depth, const std::string& kernel) {
  if (depth > 32) throw Error(kernel + ": #include nesting deeper than 32 at " + path);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? end : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    std::string header;
    if (is_include_line(line, header)) {
      auto p = resolve_include(header, path, dirs);
      if (!p) throw Error(kernel + ": " + path + ": cannot find include file \"" + header + "\"");
      out += "// ---- begin \"" + header + "\" (included) ----\n";
      std::string body = read_text(*p);
      expand(body, p->string(), dirs, out, depth + 1, kernel);
      if (!out.empty() && out.back() != '\n') out += '\n';
      out += "// ---- end of \"" + header + "\" ----\n";
    } else {
      out.append(line);
      if (end != std::string_view::npos) out += '\n';
    }
  }
}

std::string define_line(const std::string& d) {
  size_t eq = d.find('=');
  if (eq == std::string::npos) return "#define " + d + "\n";
  return "#define " + d.substr(0, eq) + " " + d.substr(eq + 1) + "\n";
}

// The defines go right after #version (which must come first) in the expanded copy.
std::string insert_defines(const std::string& src, const std::vector<std::string>& defines) {
  if (defines.empty()) return src;
  std::string block = "// defines given to this kernel by wgslvk_add_port(DEFINES ...)\n";
  for (auto& d : defines) block += define_line(d);
  size_t v = src.find("#version");
  if (v == std::string::npos) return block + src;
  size_t eol = src.find('\n', v);
  if (eol == std::string::npos) return src + "\n" + block;
  return src.substr(0, eol + 1) + block + src.substr(eol + 1);
}

std::vector<uint32_t> glslang_compile(std::string_view source, const std::string& name,
                                      const std::string& preamble, Includer* includer,
                                      const std::string& kernel) {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });

  glslang::TShader shader(EShLangCompute);
  const char* strings[] = {source.data()};
  const int lengths[] = {int(source.size())};
  const char* names[] = {name.c_str()};
  shader.setStringsWithLengthsAndNames(strings, lengths, names, 1);
  shader.setPreamble(preamble.c_str());
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);
  shader.setEntryPoint("main");
  // WGSL min/max/clamp prefer the non-NaN operand (R20); glslang's --nan-clamp emits NMin/NMax.
  shader.setNanMinMaxClamp(true);
  const auto messages = EShMessages(EShMsgSpvRules | EShMsgVulkanRules);
  glslang::TShader::ForbidIncluder no_includes;
  glslang::TShader::Includer& inc =
      includer ? static_cast<glslang::TShader::Includer&>(*includer) : no_includes;
  if (!shader.parse(GetDefaultResources(), 450, ENoProfile, false, false, messages, inc))
    throw Error(kernel + ": glslang failed to compile " + name + ":\n" + shader.getInfoLog() +
                shader.getInfoDebugLog());
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages))
    throw Error(kernel + ": glslang failed to link " + name + ":\n" + program.getInfoLog());

  std::vector<uint32_t> spirv;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions opts;
  opts.disableOptimizer = true;  // spirv-opt runs separately, as a measured option
  opts.validate = false;         // we run spirv-val ourselves to report its message
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &logger, &opts);
  std::string log = logger.getAllMessages();
  if (spirv.empty()) throw Error(kernel + ": glslang produced no SPIR-V for " + name + ":\n" + log);
  return spirv;
}

}  // namespace

void validate_spirv(std::span<const uint32_t> spirv, std::string_view what) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string messages;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
        messages += "  " + std::string(m) + " (word " + std::to_string(pos.index) + ")\n";
      });
  spvtools::ValidatorOptions options;
  if (!tools.Validate(spirv.data(), spirv.size(), options))
    throw Error(std::string(what) + ": spirv-val rejected the module:\n" + messages);
}

std::vector<uint32_t> optimize_spirv(std::span<const uint32_t> spirv, std::string_view what) {
  spvtools::Optimizer opt(SPV_ENV_VULKAN_1_1);
  std::string messages;
  opt.SetMessageConsumer(
      [&](spv_message_level_t level, const char*, const spv_position_t&, const char* m) {
        if (level <= SPV_MSG_ERROR) messages += "  " + std::string(m) + "\n";
      });
  opt.RegisterPerformancePasses();
  std::vector<uint32_t> out;
  if (!opt.Run(spirv.data(), spirv.size(), &out))
    throw Error(std::string(what) + ": spirv-opt failed:\n" + messages);
  validate_spirv(out, std::string(what) + " (after spirv-opt -O)");
  return out;
}

CompiledModule compile_glsl(std::string_view source, const CompileOptions& o) {
  const std::string kernel = o.kernel.empty() ? std::string("<glsl>") : o.kernel;
  const std::string name = o.source_path.empty() ? kernel + ".comp" : o.source_path;
  CompiledModule m;
  if (!o.source_path.empty()) m.dependencies.push_back(o.source_path);

  // Ports may #include without declaring GL_GOOGLE_include_directive (shaderc does the same).
  std::string preamble = "#extension GL_GOOGLE_include_directive : enable\n";
  for (auto& d : o.defines) preamble += define_line(d);
  Includer includer(o.include_dirs, m.dependencies);
  m.spirv = glslang_compile(source, name, preamble, &includer, kernel);

  std::string expanded;
  expand(source, o.source_path, o.include_dirs, expanded, 0, kernel);
  m.expanded_source = insert_defines(expanded, o.defines);
  // The embedded copy must be what was compiled: compile it alone and demand the same words.
  if (m.expanded_source != source || !o.defines.empty()) {
    auto again =
        glslang_compile(m.expanded_source, name + " (includes expanded)",
                        "#extension GL_GOOGLE_include_directive : enable\n", nullptr, kernel);
    if (again != m.spirv)
      throw Error(kernel + ": the include-expanded source compiles to different SPIR-V than " +
                  name +
                  " (an #include inside a disabled #if branch, or a macro used before "
                  "its #define line?)");
  }

  validate_spirv(m.spirv, kernel);
  if (o.optimize) m.spirv_opt = optimize_spirv(m.spirv, kernel);
  return m;
}

CompiledModule compile_glsl_file(const CompileOptions& o) {
  if (o.source_path.empty()) throw Error(o.kernel + ": no source path");
  return compile_glsl(read_text(o.source_path), o);
}

}  // namespace wgslvk::translator
