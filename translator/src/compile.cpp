// GLSL -> SPIR-V through glslang's C++ API, then spirv-val and spirv-opt (SPIRV-Tools).
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "wgslvk/translator.hpp"

namespace wgslvk::translator {
namespace fs = std::filesystem;

namespace {

// The bounds on a source before glslang sees it (see "bounds on what glslang is given" below).
constexpr size_t kMaxSourceBytes = size_t(4) << 20;  // with includes, and preprocessed
constexpr uint64_t kMaxExpandedTokens = 1'000'000;   // the estimated macro expansion
constexpr uint64_t kMaxExpansionWork = 2'000'000;    // steps of that estimate
constexpr int kMaxMacroDepth = 256;                  // nested macro invocations
constexpr int kMaxNesting = 256;                     // ( [ { nesting
constexpr size_t kMaxOperatorsPerStatement = 2048;   // e.g. a + a + ... (a chain's depth)

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
  // Files included twice at every level grow exponentially: bounded like the macros below.
  if (out.size() > kMaxSourceBytes)
    throw Error(kernel + ": the source with its #includes expanded is larger than " +
                std::to_string(kMaxSourceBytes) + " bytes; refused before compiling");
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

// ---- bounds on what glslang is given -----------------------------------------------------------
// A port is untrusted input (issue 26): a macro that doubles 20 times, or one expression of
// 20,000 terms, overflowed glslang's stack (SIGSEGV), and doubling 40 times never returned. So,
// before glslang sees a source: the size its macros can expand to is estimated from the
// #defines (a token count that never under-counts a doubling, computed with a work budget), then
// glslang's own preprocessor output is bounded in size, bracket nesting and operators per
// statement. Shipped ports are far below every bound (the largest expands to a few thousand
// tokens).

// Tokens of one logical line (continuations joined, comments removed): identifiers, numbers and
// punctuation, one character each except identifiers and numbers.
struct Token {
  std::string_view text;
  bool ident = false;
  uint64_t arg_cost = 0;  // > 0: an already-expanded macro argument of this many tokens
};
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  for (size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (ident_start(c) || std::isdigit(static_cast<unsigned char>(c))) {
      // An identifier ends at '.' (FOO.x must still find the macro FOO); a number takes it.
      const bool ident = ident_start(c);
      size_t j = i + 1;
      while (j < line.size() && (ident_char(line[j]) || (!ident && line[j] == '.'))) ++j;
      out.push_back({line.substr(i, j - i), ident});
      i = j;
    } else {
      out.push_back({line.substr(i, 1), false});
      ++i;
    }
  }
  return out;
}

// The source without comments, one logical line per entry (backslash-newline joined).
std::vector<std::string> logical_lines(std::string_view src) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '\\' && i + 1 < src.size() && src[i + 1] == '\n') {
      ++i;
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') ++i;
      lines.emplace_back();
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      size_t e = src.find("*/", i + 2);
      for (size_t k = i; k < (e == std::string_view::npos ? src.size() : e); ++k)
        if (src[k] == '\n') lines.emplace_back();
      lines.back() += ' ';
      i = e == std::string_view::npos ? src.size() : e + 1;
    } else if (c == '\n') {
      lines.emplace_back();
    } else {
      lines.back() += c;
    }
  }
  return lines;
}

class ExpansionBound {
 public:
  explicit ExpansionBound(const std::string& kernel) : kernel_(kernel) {}

  // Throws Error when the source's macros could expand past kMaxExpandedTokens.
  void check(std::string_view source) {
    lines_ = logical_lines(source);
    std::vector<Token> text;
    for (const std::string& line : lines_) {
      std::vector<Token> t = tokenize(line);
      if (!t.empty() && t[0].text == "#") {
        if (t.size() >= 3 && t[1].text == "define" && t[2].ident) define(line, t);
        continue;
      }
      text.insert(text.end(), t.begin(), t.end());
    }
    (void)eval(text, 0);
  }

 private:
  struct Macro {
    bool function = false;
    bool paste = false;  // its body pastes tokens (##): the result may name any macro
    std::vector<std::string_view> params;
    std::vector<Token> body;
  };

  void define(const std::string& line, const std::vector<Token>& t) {
    Macro m;
    size_t i = 3;
    // Function-like only when '(' follows the name with no space between.
    const char* after = t[2].text.data() + t[2].text.size();
    if (i < t.size() && t[i].text == "(" && t[i].text.data() == after) {
      m.function = true;
      for (++i; i < t.size() && t[i].text != ")"; ++i)
        if (t[i].ident || t[i].text == ".") m.params.push_back(t[i].text);
      ++i;
    }
    m.body.assign(t.begin() + long(std::min(i, t.size())), t.end());
    for (size_t k = 0; k + 1 < m.body.size(); ++k)
      m.paste |= m.body[k].text == "#" && m.body[k + 1].text == "#";
    (void)line;
    macros_[t[2].text] = std::move(m);
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(kernel_ + ": " + why + "; refused before compiling (a macro that doubles itself?)");
  }

  uint64_t eval(const std::vector<Token>& ts, int depth) {
    if (depth > kMaxMacroDepth)
      fail("macro invocations nest deeper than " + std::to_string(kMaxMacroDepth));
    uint64_t cost = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
      if (++work_ > kMaxExpansionWork)
        fail("expanding the macros takes more than " + std::to_string(kMaxExpansionWork) +
             " steps");
      const Token& t = ts[i];
      uint64_t c = 1;
      auto it = t.ident && !t.arg_cost ? macros_.find(t.text) : macros_.end();
      if (t.arg_cost) {
        c = t.arg_cost;
      } else if (it != macros_.end() && !active_.count(t.text)) {
        const Macro& m = it->second;
        if (!m.function) {
          auto memo = memo_.find(t.text);
          if (memo == memo_.end()) {
            active_.insert(t.text);
            c = eval(m.body, depth + 1);
            active_.erase(t.text);
            memo_[t.text] = c;
          } else {
            c = memo->second;
          }
        } else if (i + 1 < ts.size() && ts[i + 1].text == "(") {
          // Arguments: split at top-level commas up to the matching ')'.
          std::vector<std::vector<Token>> args(1);
          size_t j = i + 2;
          int level = 1;
          for (; j < ts.size(); ++j) {
            const std::string_view x = ts[j].text;
            if (x == "(") ++level;
            if (x == ")" && --level == 0) break;
            if (x == "," && level == 1 && !ts[j].arg_cost)
              args.emplace_back();
            else
              args.back().push_back(ts[j]);
          }
          if (j < ts.size()) {
            std::vector<uint64_t> arg_cost;
            for (const auto& a : args)
              arg_cost.push_back(std::max<uint64_t>(1, eval(a, depth + 1)));
            std::vector<Token> body;
            for (const Token& b : m.body) {
              auto p = std::find(m.params.begin(), m.params.end(), b.text);
              size_t k = size_t(p - m.params.begin());
              if (b.ident && p != m.params.end())
                body.push_back({b.text, false, k < arg_cost.size() ? arg_cost[k] : 1});
              else
                body.push_back(b);
            }
            active_.insert(t.text);
            c = eval(body, depth + 1);
            active_.erase(t.text);
            // A pasted token may name any object-like macro: count each token of the result as
            // the largest of them (never an under-count, which would let a doubling through).
            if (m.paste) c = std::min(kMaxExpandedTokens + 1, c * largest_object_macro(depth));
            i = j;
          }
        }
      }
      cost = cost > kMaxExpandedTokens - std::min(c, kMaxExpandedTokens) ? kMaxExpandedTokens + 1
                                                                         : cost + c;
      if (cost > kMaxExpandedTokens)
        fail("its macros expand to more than " + std::to_string(kMaxExpandedTokens) + " tokens");
    }
    return cost;
  }

  uint64_t largest_object_macro(int depth) {
    if (!largest_) {
      uint64_t most = 1;
      for (const auto& [name, m] : macros_)
        if (!m.function) most = std::max(most, eval({Token{name, true}}, depth + 1));
      largest_ = most;
    }
    return *largest_;
  }

  const std::string& kernel_;
  std::optional<uint64_t> largest_;
  std::vector<std::string> lines_;  // the token views point into these
  std::map<std::string_view, Macro> macros_;
  std::map<std::string_view, uint64_t> memo_;
  std::set<std::string_view> active_;
  uint64_t work_ = 0;
};

// glslang's preprocessor output, bounded: its size, bracket nesting, operators per statement.
void check_preprocessed(std::string_view pp, const std::string& kernel) {
  auto fail = [&](const std::string& why) {
    throw Error(kernel + ": " + why + "; refused before compiling (glslang recurses on it)");
  };
  if (pp.size() > kMaxSourceBytes)
    fail("the preprocessed source is " + std::to_string(pp.size()) + " bytes, more than " +
         std::to_string(kMaxSourceBytes));
  int nesting = 0;
  size_t operators = 0;
  bool in_operator = false;
  for (char c : pp) {
    if (c == '(' || c == '[' || c == '{') {
      if (++nesting > kMaxNesting) fail("brackets nest deeper than " + std::to_string(kMaxNesting));
    } else if (c == ')' || c == ']' || c == '}') {
      nesting = std::max(0, nesting - 1);
    }
    if (c == ';' || c == '{' || c == '}') operators = 0;
    const bool op = std::strchr("+-*/%<>=!&|^~?:", c) != nullptr && c != '\0';
    if (op && !in_operator && ++operators > kMaxOperatorsPerStatement)
      fail("one statement holds more than " + std::to_string(kMaxOperatorsPerStatement) +
           " operators");
    in_operator = op;
  }
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

// glslang's preprocessor alone (run only once ExpansionBound has passed the source).
std::string glslang_preprocess(std::string_view source, const std::string& name,
                               const std::string& kernel) {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
  glslang::TShader shader(EShLangCompute);
  const char* strings[] = {source.data()};
  const int lengths[] = {int(source.size())};
  const char* names[] = {name.c_str()};
  shader.setStringsWithLengthsAndNames(strings, lengths, names, 1);
  shader.setPreamble("#extension GL_GOOGLE_include_directive : enable\n");
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);
  glslang::TShader::ForbidIncluder no_includes;
  std::string out;
  if (!shader.preprocess(GetDefaultResources(), 450, ENoProfile, false, false,
                         EShMessages(EShMsgSpvRules | EShMsgVulkanRules), &out, no_includes))
    throw Error(kernel + ": glslang failed to preprocess " + name + ":\n" + shader.getInfoLog());
  return out;
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

  // The expansion first, and the bounds on it, before glslang sees anything.
  std::string expanded;
  expand(source, o.source_path, o.include_dirs, expanded, 0, kernel);
  m.expanded_source = insert_defines(expanded, o.defines);
  ExpansionBound(kernel).check(m.expanded_source);
  check_preprocessed(glslang_preprocess(m.expanded_source, name, kernel), kernel);

  Includer includer(o.include_dirs, m.dependencies);
  m.spirv = glslang_compile(source, name, preamble, &includer, kernel);
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
