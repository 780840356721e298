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

#include "coopmat.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk_builtin_includes.hpp"  // generated: kWgslGlsl

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

// An include resolved on disk, or the shipped ports' wgsl.glsl (flat_id, is_finite) embedded at
// build time: a port loaded at run time finds it wherever the program runs (an installed package
// has no source tree). The disk comes first: the build's own ports name wgsl_ports/common/ as an
// include dir, so their depfiles list the file.
struct Resolved {
  std::string path, text;
  bool on_disk = true;
};
std::optional<Resolved> resolve(const std::string& header, const std::string& includer,
                                const std::vector<std::string>& dirs) {
  if (auto p = resolve_include(header, includer, dirs)) return Resolved{p->string(), read_text(*p)};
  if (header == "wgsl.glsl") return Resolved{"(wgslvk) wgsl.glsl", std::string(kWgslGlsl), false};
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
    auto r = resolve(header, includer ? includer : "", dirs_);
    if (!r) return nullptr;  // glslang reports "cannot find include file"
    auto* text = new std::string(std::move(r->text));
    if (r->on_disk && std::find(deps_.begin(), deps_.end(), r->path) == deps_.end())
      deps_.push_back(r->path);
    return new IncludeResult(r->path, text->data(), text->size(), text);
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
      auto r = resolve(header, path, dirs);
      if (!r) throw Error(kernel + ": " + path + ": cannot find include file \"" + header + "\"");
      out += "// ---- begin \"" + header + "\" (included) ----\n";
      expand(r->text, r->path, dirs, out, depth + 1, kernel);
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
      add_work(1);
      const Token& t = ts[i];
      uint64_t c = 1;
      auto it = t.ident && !t.arg_cost ? macros_.find(t.text) : macros_.end();
      if (t.arg_cost) {
        c = t.arg_cost;
      } else if (it != macros_.end() && active_.count(t.text)) {
        ++blocked_;  // left unexpanded, as glslang does: this result depends on the context
      } else if (it != macros_.end()) {
        const Macro& m = it->second;
        if (!m.function) {
          c = memoized(std::string(t.text), t.text, m.body, depth);
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
            std::string key(t.text);
            for (uint64_t a : arg_cost) key += "," + std::to_string(a);
            for (const Token& b : m.body) {
              auto p = std::find(m.params.begin(), m.params.end(), b.text);
              size_t k = size_t(p - m.params.begin());
              if (b.ident && p != m.params.end())
                body.push_back({b.text, false, k < arg_cost.size() ? arg_cost[k] : 1});
              else
                body.push_back(b);
            }
            c = memoized(key, t.text, body, depth);
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

  // Counts `steps` of the estimate against kMaxExpansionWork.
  void add_work(uint64_t steps) {
    work_ += steps;
    if (work_ > kMaxExpansionWork)
      fail("expanding the macros takes more than " + std::to_string(kMaxExpansionWork) + " steps");
  }

  // A macro's expansion depends only on its name and its arguments' costs, so each is evaluated
  // once; a repeat replays the work it took (glslang repeats it), which keeps the work bound as
  // strict as a full walk while checking it in time linear in the source.
  uint64_t memoized(const std::string& key, std::string_view name, const std::vector<Token>& body,
                    int depth) {
    auto hit = memo_.find(key);
    if (hit != memo_.end()) {
      add_work(hit->second.second);
      return hit->second.first;
    }
    const uint64_t work_before = work_, blocked_before = blocked_;
    active_.insert(name);
    const uint64_t c = eval(body, depth + 1);
    active_.erase(name);
    // A result that met a macro left unexpanded because it was active differs elsewhere: not kept.
    if (blocked_ == blocked_before) memo_[key] = {c, work_ - work_before};
    return c;
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
  std::map<std::string, std::pair<uint64_t, uint64_t>> memo_;  // key -> (tokens, work)
  std::set<std::string_view> active_;
  uint64_t work_ = 0;
  uint64_t blocked_ = 0;  // active macros met (and left unexpanded) so far
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

void validate_spirv(std::span<const uint32_t> spirv_in, std::string_view what) {
  // SPIRV-Tools 2023.1 does not know SPV_KHR_cooperative_matrix: a KHR module (our NV -> KHR
  // rewrite) is validated as its NV equivalent, the types of the two uses merged back.
  std::vector<uint32_t> nv;
  std::span<const uint32_t> spirv = spirv_in;
  if (uses_cooperative_matrix_khr(spirv_in)) {
    nv = cooperative_matrix_khr_to_nv_for_validation(spirv_in);
    spirv = nv;
  }
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
  // GL_NV_cooperative_matrix ports: validated and optimized as NV above, then rewritten to the
  // KHR extension the drivers and WebGPU implement (coopmat.hpp).
  // Each result is validated again as the NV module it maps back to (validate_spirv).
  if (uses_cooperative_matrix_nv(m.spirv)) {
    m.spirv = cooperative_matrix_nv_to_khr(m.spirv, kernel);
    validate_spirv(m.spirv, kernel + " (rewritten to SPV_KHR_cooperative_matrix)");
    if (o.optimize) {
      m.spirv_opt = cooperative_matrix_nv_to_khr(m.spirv_opt, kernel + " (after spirv-opt -O)");
      validate_spirv(m.spirv_opt, kernel + " (after spirv-opt -O, rewritten to KHR)");
    }
  }
  return m;
}

CompiledModule compile_glsl_file(const CompileOptions& o) {
  if (o.source_path.empty()) throw Error(o.kernel + ": no source path");
  return compile_glsl(read_text(o.source_path), o);
}

}  // namespace wgslvk::translator

// ---- Cooperative matrices: SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix (coopmat.hpp)

namespace wgslvk::translator {
namespace {

// Opcodes and enumerants used below (SPIR-V 1.6 registry; Debian 12's headers lack the KHR ones).
enum : uint32_t {
  kOpUndef = 1,
  kOpName = 5,
  kOpMemberName = 6,
  kOpExtension = 10,
  kOpCapability = 17,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpTypeFunction = 33,
  kOpConstantTrue = 41,
  kOpConstantFalse = 42,
  kOpConstant = 43,
  kOpConstantComposite = 44,
  kOpConstantNull = 46,
  kOpSpecConstantTrue = 48,
  kOpSpecConstantFalse = 49,
  kOpFunction = 54,
  kOpFunctionParameter = 55,
  kOpFunctionCall = 57,
  kOpVariable = 59,
  kOpLoad = 61,
  kOpStore = 62,
  kOpAccessChain = 65,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
  kOpCompositeConstruct = 80,
  kOpCopyObject = 83,
  kOpConvertFToU = 109,
  kOpConvertFToS = 110,
  kOpConvertSToF = 111,
  kOpConvertUToF = 112,
  kOpUConvert = 113,
  kOpSConvert = 114,
  kOpFConvert = 115,
  kOpSNegate = 126,
  kOpFNegate = 127,
  kOpIAdd = 128,
  kOpFAdd = 129,
  kOpISub = 130,
  kOpFSub = 131,
  kOpIMul = 132,
  kOpFMul = 133,
  kOpUDiv = 134,
  kOpSDiv = 135,
  kOpFDiv = 136,
  kOpMatrixTimesScalar = 143,
  kOpBitcast = 124,
  kOpSelect = 169,
  kOpPhi = 245,
  kOpReturnValue = 254,
  kCapNV = 5357,
  kOpTypeNV = 5358,
  kOpLoadNV = 5359,
  kOpStoreNV = 5360,
  kOpMulAddNV = 5361,
  kOpLengthNV = 5362,
  kCapKHR = 6022,
  kOpTypeKHR = 4456,
  kOpLoadKHR = 4457,
  kOpStoreKHR = 4458,
  kOpMulAddKHR = 4459,
  kOpLengthKHR = 4460,
};

struct SpvInst {
  uint32_t op = 0;
  std::vector<uint32_t> w;  // every word, w[0] included
};

std::vector<SpvInst> spv_parse(std::span<const uint32_t> code, std::string_view what) {
  if (code.size() < 5) throw Error(std::string(what) + ": SPIR-V shorter than its header");
  std::vector<SpvInst> out;
  for (size_t i = 5; i < code.size();) {
    const uint32_t n = code[i] >> 16;
    if (n == 0 || i + n > code.size())
      throw Error(std::string(what) + ": malformed SPIR-V instruction at word " +
                  std::to_string(i));
    out.push_back(
        {code[i] & 0xffff, std::vector<uint32_t>(code.begin() + i, code.begin() + i + n)});
    i += n;
  }
  return out;
}

std::vector<uint32_t> spv_write(std::span<const uint32_t> header, const std::vector<SpvInst>& in,
                                uint32_t bound) {
  std::vector<uint32_t> out(header.begin(), header.begin() + 5);
  out[3] = bound;
  for (const auto& i : in) {
    std::vector<uint32_t> w = i.w;
    w[0] = uint32_t(w.size()) << 16 | i.op;
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

bool declares_capability(std::span<const uint32_t> code, uint32_t cap) {
  if (code.size() < 5) return false;
  for (size_t i = 5; i < code.size();) {
    const uint32_t n = code[i] >> 16, op = code[i] & 0xffff;
    if (n == 0 || i + n > code.size()) return false;
    if (op == kOpCapability && n >= 2 && code[i + 1] == cap) return true;
    if (op != kOpCapability && op != kOpExtension && op != 11 /*OpExtInstImport*/) return false;
    i += n;
  }
  return false;
}

std::string spv_string(const std::vector<uint32_t>& w, size_t from) {
  std::string s;
  for (size_t k = from; k < w.size(); ++k)
    for (int b = 0; b < 4; ++b) {
      char c = char((w[k] >> (8 * b)) & 0xff);
      if (!c) return s;
      s += c;
    }
  return s;
}

std::vector<uint32_t> spv_string_words(std::string_view s) {
  std::vector<uint32_t> w((s.size() + 4) / 4, 0);
  for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
  return w;
}

// An OpExtension's words `w` naming `from` rename it to `to` (the cooperative-matrix rewrites
// both ways); any other extension is left as it is.
void rename_extension(std::vector<uint32_t>& w, std::string_view from, std::string_view to) {
  if (spv_string(w, 1) != from) return;
  auto s = spv_string_words(to);
  w.resize(1);
  w.insert(w.end(), s.begin(), s.end());
}

// Instructions with a result type (w[1]) and result id (w[2]) that may carry a matrix value.
bool value_op(uint32_t op) {
  switch (op) {
    case kOpUndef:
    case kOpConstantComposite:
    case kOpConstantNull:
    case kOpFunctionParameter:
    case kOpFunctionCall:
    case kOpVariable:
    case kOpLoad:
    case kOpAccessChain:
    case kOpCompositeConstruct:
    case kOpCopyObject:
    case kOpConvertFToU:
    case kOpConvertFToS:
    case kOpConvertSToF:
    case kOpConvertUToF:
    case kOpUConvert:
    case kOpSConvert:
    case kOpFConvert:
    case kOpSNegate:
    case kOpFNegate:
    case kOpIAdd:
    case kOpFAdd:
    case kOpISub:
    case kOpFSub:
    case kOpIMul:
    case kOpFMul:
    case kOpUDiv:
    case kOpSDiv:
    case kOpFDiv:
    case kOpMatrixTimesScalar:
    case kOpBitcast:
    case kOpSelect:
    case kOpPhi:
    case kOpLoadNV:
    case kOpMulAddNV:
    case kOpLoadKHR:
    case kOpMulAddKHR:
      return true;
  }
  return false;
}

struct UnionFind {
  std::map<uint32_t, uint32_t> parent;
  uint32_t find(uint32_t x) {
    auto it = parent.find(x);
    if (it == parent.end()) return parent[x] = x;
    if (it->second == x) return x;
    return it->second = find(it->second);
  }
  void unite(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

}  // namespace

bool uses_cooperative_matrix_nv(std::span<const uint32_t> spirv) {
  return declares_capability(spirv, kCapNV);
}
bool uses_cooperative_matrix_khr(std::span<const uint32_t> spirv) {
  return declares_capability(spirv, kCapKHR);
}

std::vector<uint32_t> cooperative_matrix_nv_to_khr(std::span<const uint32_t> spirv,
                                                   std::string_view what_sv) {
  const std::string what(what_sv);
  auto fail = [&](const std::string& m) -> Error {
    return Error(what + ": SPV_NV_cooperative_matrix -> KHR rewrite: " + m);
  };
  std::vector<SpvInst> in = spv_parse(spirv, what);
  uint32_t bound = spirv[3];

  // Matrix types, pointers to them, and integer/bool constants.
  std::map<uint32_t, size_t> mat_type;      // type id -> instruction index
  std::map<uint32_t, uint32_t> ptr_to_mat;  // pointer type id -> matrix type id
  std::map<uint32_t, uint32_t> bool_const;  // id -> 0/1
  std::set<uint32_t> wraps_mat;             // array/struct/function types containing matrices
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& w = in[i].w;
    switch (in[i].op) {
      case kOpTypeNV:
        mat_type[w[1]] = i;
        break;
      case kOpTypePointer:
        if (mat_type.count(w[3])) ptr_to_mat[w[1]] = w[3];
        if (wraps_mat.count(w[3])) wraps_mat.insert(w[1]);
        break;
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
        if (mat_type.count(w[2]) || wraps_mat.count(w[2])) wraps_mat.insert(w[1]);
        break;
      case kOpTypeStruct:
      case kOpTypeFunction:
        for (size_t k = 2; k < w.size(); ++k)
          if (mat_type.count(w[k]) || ptr_to_mat.count(w[k]) || wraps_mat.count(w[k]))
            wraps_mat.insert(w[1]);
        break;
      case kOpConstantTrue:
        bool_const[w[2]] = 1;
        break;
      case kOpConstantFalse:
        bool_const[w[2]] = 0;
        break;
    }
  }
  if (mat_type.empty()) throw fail("the module declares no OpTypeCooperativeMatrixNV");

  // Values and pointers of matrix type, joined where a value flows unchanged.
  UnionFind uf;
  std::map<uint32_t, uint32_t> id_type;  // matrix-valued id -> its matrix type
  std::map<uint32_t, uint32_t> id_ptr;   // pointer-valued id -> its pointer type
  auto is_mat_id = [&](uint32_t id) { return id_type.count(id) || id_ptr.count(id); };
  for (const auto& inst : in) {
    const auto& w = inst.w;
    if (!value_op(inst.op) || w.size() < 3) continue;
    if (mat_type.count(w[1])) id_type[w[2]] = w[1];
    if (ptr_to_mat.count(w[1])) id_ptr[w[2]] = w[1];
    if ((inst.op == kOpFunctionParameter || inst.op == kOpFunctionCall) &&
        (mat_type.count(w[1]) || ptr_to_mat.count(w[1])))
      throw fail("a cooperative matrix passed to or returned from a function (id " +
                 std::to_string(w[2]) + "): write the port without such functions");
  }
  // role: 0 A, 1 B, 2 accumulator
  std::map<uint32_t, std::set<int>> roles;  // class root -> roles
  std::vector<std::pair<uint32_t, int>> uses;
  for (const auto& inst : in) {
    const auto& w = inst.w;
    switch (inst.op) {
      case kOpLoad:
      case kOpCopyObject:
        if (is_mat_id(w[2]) && is_mat_id(w[3])) uf.unite(w[2], w[3]);
        break;
      case kOpStore:
        if (is_mat_id(w[1]) && is_mat_id(w[2])) uf.unite(w[1], w[2]);
        break;
      case kOpVariable:
        if (w.size() > 4 && is_mat_id(w[2]) && is_mat_id(w[4])) uf.unite(w[2], w[4]);
        break;
      case kOpSelect:
        if (is_mat_id(w[2])) {
          uf.unite(w[2], w[4]);
          uf.unite(w[2], w[5]);
        }
        break;
      case kOpPhi:
        if (is_mat_id(w[2]))
          for (size_t k = 3; k < w.size(); k += 2) uf.unite(w[2], w[k]);
        break;
      case kOpFConvert:
      case kOpUConvert:
      case kOpSConvert:
      case kOpConvertFToU:
      case kOpConvertFToS:
      case kOpConvertSToF:
      case kOpConvertUToF:
      case kOpBitcast:
      case kOpFNegate:
      case kOpSNegate:
      case kOpFAdd:
      case kOpFSub:
      case kOpFMul:
      case kOpFDiv:
      case kOpIAdd:
      case kOpISub:
      case kOpIMul:
      case kOpUDiv:
      case kOpSDiv:
      case kOpMatrixTimesScalar:
        // Element-wise: the same use on both sides (KHR converts only within one use).
        if (is_mat_id(w[2]))
          for (size_t k = 3; k < w.size(); ++k)
            if (is_mat_id(w[k])) uf.unite(w[2], w[k]);
        break;
      case kOpMulAddNV:
        uses.push_back({w[3], 0});
        uses.push_back({w[4], 1});
        uses.push_back({w[5], 2});
        uses.push_back({w[2], 2});
        break;
    }
  }
  for (auto [id, role] : uses) roles[uf.find(id)].insert(role);
  // Per matrix type, the roles its values take.
  std::map<uint32_t, std::set<int>> type_roles;
  std::map<uint32_t, int> class_role;
  for (auto& [id, t] : id_type) {
    const uint32_t root = uf.find(id);
    const auto it = roles.find(root);
    if (it == roles.end()) continue;
    if (it->second.size() > 1)
      throw fail("cooperative matrix value %" + std::to_string(id) +
                 " is used as more than one of left operand, right operand and accumulator of "
                 "OpCooperativeMatrixMulAddNV");
    class_role[root] = *it->second.begin();
    type_roles[t].insert(*it->second.begin());
  }
  for (auto& [t, idx] : mat_type)
    if (!type_roles.count(t)) type_roles[t].insert(2);  // never multiplied: any use; say result

  // New ids: per (type, role) beyond the first, a matrix type and its pointer types.
  std::map<std::pair<uint32_t, int>, uint32_t> khr_type;  // (NV type, role) -> KHR type id
  std::map<std::pair<uint32_t, int>, uint32_t> khr_ptr;   // (NV pointer type, role) -> id
  for (auto& [t, rs] : type_roles) {
    bool first = true;
    for (int r : rs) {
      khr_type[{t, r}] = first ? t : bound++;
      first = false;
    }
  }
  for (auto& [p, t] : ptr_to_mat) {
    bool first = true;
    for (int r : type_roles[t]) {
      khr_ptr[{p, r}] = first ? p : bound++;
      first = false;
    }
  }
  for (uint32_t wrapped : wraps_mat) {
    // Arrays/structs of a matrix type are fine as long as that type is not split.
    for (const auto& inst : in)
      if ((inst.op == kOpTypeArray || inst.op == kOpTypeRuntimeArray) && inst.w[1] == wrapped &&
          mat_type.count(inst.w[2]) && type_roles[inst.w[2]].size() > 1)
        throw fail("an array of a cooperative matrix type used in several roles");
  }
  auto role_of = [&](uint32_t id, uint32_t t) {
    auto it = class_role.find(uf.find(id));
    return it != class_role.end() ? it->second : *type_roles[t].begin();
  };

  // Constants: Use 0/1/2 and MemoryLayout 0/1 (RowMajorKHR, ColumnMajorKHR), of the integer type
  // the first matrix type's row count has.
  uint32_t int_type = 0;
  {
    const auto& w = in[mat_type.begin()->second].w;
    for (const auto& inst : in)
      if (inst.op == kOpConstant && inst.w[2] == w[4]) int_type = inst.w[1];
    if (!int_type) throw fail("the matrix row count is not an OpConstant");
  }
  const uint32_t c0 = bound++, c1 = bound++, c2 = bound++;
  const uint32_t use_const[3] = {c0, c1, c2};

  std::vector<SpvInst> out;
  size_t first_mat = SIZE_MAX;
  for (auto& [t, idx] : mat_type) first_mat = std::min(first_mat, idx);
  for (size_t i = 0; i < in.size(); ++i) {
    SpvInst inst = in[i];
    auto& w = inst.w;
    if (i == first_mat)
      for (uint32_t v = 0; v < 3; ++v) out.push_back({kOpConstant, {0, int_type, use_const[v], v}});
    switch (inst.op) {
      case kOpCapability:
        if (w[1] == kCapNV) w[1] = kCapKHR;
        out.push_back(inst);
        continue;
      case kOpExtension:
        rename_extension(w, "SPV_NV_cooperative_matrix", "SPV_KHR_cooperative_matrix");
        out.push_back(inst);
        continue;
      case kOpTypeNV: {
        const uint32_t t = w[1];
        for (int r : type_roles[t])
          out.push_back({kOpTypeKHR, {0, khr_type[{t, r}], w[2], w[3], w[4], w[5], use_const[r]}});
        continue;
      }
      case kOpTypePointer:
        if (ptr_to_mat.count(w[1])) {
          const uint32_t p = w[1], t = w[3];
          for (int r : type_roles[t])
            out.push_back({kOpTypePointer, {0, khr_ptr[{p, r}], w[2], khr_type[{t, r}]}});
          continue;
        }
        break;
      case kOpLoadNV: {
        // (type, result, pointer, stride, column major, [memory access...])
        auto b = bool_const.find(w[5]);
        if (b == bool_const.end())
          throw fail("OpCooperativeMatrixLoadNV's ColumnMajor is not a boolean constant");
        std::vector<uint32_t> nw = {0, w[1], w[2], w[3], use_const[b->second], w[4]};
        nw.insert(nw.end(), w.begin() + 6, w.end());
        inst = {kOpLoadKHR, nw};
        break;
      }
      case kOpStoreNV: {
        // (pointer, object, stride, column major, [memory access...])
        auto b = bool_const.find(w[4]);
        if (b == bool_const.end())
          throw fail("OpCooperativeMatrixStoreNV's ColumnMajor is not a boolean constant");
        std::vector<uint32_t> nw = {0, w[1], w[2], use_const[b->second], w[3]};
        nw.insert(nw.end(), w.begin() + 5, w.end());
        inst = {kOpStoreKHR, nw};
        break;
      }
      case kOpMulAddNV:
        inst.op = kOpMulAddKHR;
        break;
      case kOpLengthNV:
        if (type_roles[w[3]].size() > 1)
          throw fail("OpCooperativeMatrixLengthNV of a matrix type used in several roles");
        inst.op = kOpLengthKHR;
        break;
    }
    if (inst.op == kOpAccessChain && ptr_to_mat.count(w[1]) &&
        type_roles[ptr_to_mat[w[1]]].size() > 1)
      throw fail("an access chain to a cooperative matrix (id " + std::to_string(w[2]) +
                 ") of a type used in several roles: arrays of matrices are supported only for "
                 "a type with one use");
    // Result types of matrix values and pointers follow the value's role.
    if (value_op(inst.op) && w.size() >= 3) {
      if (mat_type.count(w[1]))
        w[1] = khr_type[{w[1], role_of(w[2], w[1])}];
      else if (ptr_to_mat.count(w[1]))
        w[1] = khr_ptr[{w[1], role_of(w[2], ptr_to_mat[w[1]])}];
    }
    out.push_back(inst);
  }
  return spv_write(spirv, out, bound);
}

namespace {
// KHR -> NV. For display: every KHR type kept (two identical NV types where the KHR ones differ
// by use), a new boolean type with its constants. For validation: identical NV types (and their
// pointer types) merged into the first, the module's own boolean type and constants reused.
std::vector<uint32_t> khr_to_nv(std::span<const uint32_t> spirv, bool merge) {
  std::vector<SpvInst> in = spv_parse(spirv, "module");
  uint32_t bound = spirv[3];
  std::map<uint32_t, uint32_t> int_const;
  uint32_t tbool = 0, tfalse = 0, ttrue = 0;
  for (const auto& i : in) {
    if (i.op == kOpConstant && i.w.size() == 4) int_const[i.w[2]] = i.w[3];
    if (merge && i.op == kOpTypeBool) tbool = i.w[1];
  }
  for (const auto& i : in)
    if (tbool && i.w.size() >= 3 && i.w[1] == tbool) {
      if (i.op == kOpConstantTrue) ttrue = i.w[2];
      if (i.op == kOpConstantFalse) tfalse = i.w[2];
    }
  const bool own_bool = tbool == 0;
  if (own_bool) tbool = bound++;
  const bool need_false = tfalse == 0, need_true = ttrue == 0;
  if (need_false) tfalse = bound++;
  if (need_true) ttrue = bound++;
  std::map<uint32_t, uint32_t> alias;
  auto a = [&](uint32_t id) {
    auto it = alias.find(id);
    return it == alias.end() ? id : it->second;
  };
  std::map<std::vector<uint32_t>, uint32_t> type_key, ptr_key;
  std::vector<SpvInst> out;
  bool added = false;
  auto add_constants = [&] {
    if (need_false) out.push_back({kOpConstantFalse, {0, tbool, tfalse}});
    if (need_true) out.push_back({kOpConstantTrue, {0, tbool, ttrue}});
  };
  for (SpvInst inst : in) {
    auto& w = inst.w;
    if (!added && own_bool && inst.op == kOpTypeKHR) {
      out.push_back({kOpTypeBool, {0, tbool}});
      add_constants();
      added = true;
    }
    auto layout = [&](uint32_t id) { return int_const[id] == 1 ? ttrue : tfalse; };
    switch (inst.op) {
      case kOpCapability:
        if (w[1] == kCapKHR) w[1] = kCapNV;
        break;
      case kOpExtension:
        rename_extension(w, "SPV_KHR_cooperative_matrix", "SPV_NV_cooperative_matrix");
        break;
      case kOpTypeKHR: {
        inst = {kOpTypeNV, {0, w[1], w[2], w[3], w[4], w[5]}};
        if (merge) {
          std::vector<uint32_t> key(inst.w.begin() + 2, inst.w.end());
          auto [it, fresh] = type_key.emplace(key, inst.w[1]);
          if (!fresh) {
            alias[inst.w[1]] = it->second;
            continue;
          }
        }
        break;
      }
      case kOpTypePointer:
        w[3] = a(w[3]);
        if (merge) {
          bool to_matrix = false;
          for (auto& [k, id] : type_key) to_matrix |= id == w[3];
          if (to_matrix) {
            auto [it, fresh] = ptr_key.emplace(std::vector<uint32_t>{w[2], w[3]}, w[1]);
            if (!fresh) {
              alias[w[1]] = it->second;
              continue;
            }
          }
        }
        break;
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
        w[2] = a(w[2]);
        break;
      case kOpLoadKHR: {
        std::vector<uint32_t> nw = {0, w[1], w[2], w[3], w.size() > 5 ? w[5] : 0, layout(w[4])};
        if (w.size() > 6) nw.insert(nw.end(), w.begin() + 6, w.end());
        inst = {kOpLoadNV, nw};
        break;
      }
      case kOpStoreKHR: {
        std::vector<uint32_t> nw = {0, w[1], w[2], w.size() > 4 ? w[4] : 0, layout(w[3])};
        if (w.size() > 5) nw.insert(nw.end(), w.begin() + 5, w.end());
        inst = {kOpStoreNV, nw};
        break;
      }
      case kOpMulAddKHR:
        inst = {kOpMulAddNV, {0, w[1], w[2], w[3], w[4], w[5]}};
        break;
      case kOpLengthKHR:
        inst.op = kOpLengthNV;
        w[3] = a(w[3]);
        break;
    }
    if (value_op(inst.op) && inst.w.size() >= 3) inst.w[1] = a(inst.w[1]);
    out.push_back(inst);
    if (merge && !own_bool && inst.op == kOpTypeBool && inst.w[1] == tbool) add_constants();
  }
  return spv_write(spirv, out, bound);
}
}  // namespace

std::vector<uint32_t> cooperative_matrix_khr_to_nv_for_display(std::span<const uint32_t> spirv) {
  return khr_to_nv(spirv, false);
}

std::vector<uint32_t> cooperative_matrix_khr_to_nv_for_validation(std::span<const uint32_t> spirv) {
  return khr_to_nv(spirv, true);
}

std::vector<std::string> cooperative_matrix_types_wgsl(std::span<const uint32_t> spirv) {
  std::map<uint32_t, std::string> scalar;  // type id -> f16, f32, i32, u32, i8, u8, ...
  std::map<uint32_t, uint32_t> value;      // 32-bit OpConstant -> value
  std::set<std::string> out;
  for (const auto& i : spv_parse(spirv, "module")) {
    const auto& w = i.w;
    if (i.op == 22 && w.size() >= 3) scalar[w[1]] = "f" + std::to_string(w[2]);  // OpTypeFloat
    if (i.op == kOpTypeInt && w.size() >= 4)
      scalar[w[1]] = (w[3] ? "i" : "u") + std::to_string(w[2]);
    if (i.op == kOpConstant && w.size() == 4) value[w[2]] = w[3];
    if ((i.op == kOpTypeKHR && w.size() >= 7) || (i.op == kOpTypeNV && w.size() >= 6)) {
      static const char* kUse[] = {"left", "right", "result"};
      const uint32_t use = i.op == kOpTypeKHR ? value[w[6]] : 3;
      const std::string kind = use < 3 ? kUse[use] : "?";
      auto dim = [&](uint32_t id) {
        auto it = value.find(id);
        return it == value.end() ? "%" + std::to_string(id) : std::to_string(it->second);
      };
      const std::string t = scalar.count(w[2]) ? scalar[w[2]] : "%" + std::to_string(w[2]);
      // WGSL names columns first: left<T, K, M>, right<T, N, K>, result<T, N, M>.
      out.insert("subgroup_matrix_" + kind + "<" + t + ", " + dim(w[5]) + ", " + dim(w[4]) + ">");
    }
  }
  return {out.begin(), out.end()};
}

std::vector<uint32_t> strip_cooperative_matrix_for_reflection(std::span<const uint32_t> spirv) {
  std::vector<SpvInst> in = spv_parse(spirv, "module");
  std::set<uint32_t> gone;  // ids whose definitions are removed
  auto touches = [&](const std::vector<uint32_t>& w, size_t from) {
    for (size_t k = from; k < w.size(); ++k)
      if (gone.count(w[k])) return true;
    return false;
  };
  std::vector<SpvInst> out;
  for (const auto& inst : in) {
    const auto& w = inst.w;
    switch (inst.op) {
      case kOpCapability:
        if (w[1] == kCapNV || w[1] == kCapKHR) continue;
        break;
      case kOpExtension: {
        const std::string s = spv_string(w, 1);
        if (s == "SPV_NV_cooperative_matrix" || s == "SPV_KHR_cooperative_matrix") continue;
        break;
      }
      case kOpTypeNV:
      case kOpTypeKHR:
        gone.insert(w[1]);
        continue;
      case kOpTypePointer:
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
      case kOpTypeStruct:
      case kOpTypeFunction:
        if (touches(w, 2)) {
          gone.insert(w[1]);
          continue;
        }
        break;
      case kOpStoreNV:
      case kOpStoreKHR:
        continue;  // its pointer's OpAccessChain stays: the buffer is still used
      case kOpLengthNV:
      case kOpLengthKHR:
        gone.insert(w[2]);
        continue;
      case kOpStore:
        if (touches(w, 1)) continue;
        break;
      case kOpName:
      case kOpMemberName:
      case kOpDecorate:
      case kOpMemberDecorate:
        if (gone.count(w[1])) continue;
        break;
      default:
        if (value_op(inst.op) && w.size() >= 3 && (gone.count(w[1]) || touches(w, 3))) {
          gone.insert(w[2]);
          continue;
        }
    }
    out.push_back(inst);
  }
  // Names and decorations precede the definitions they name: a second pass drops the rest.
  std::vector<SpvInst> final_out;
  for (auto& inst : out)
    if (!((inst.op == kOpName || inst.op == kOpMemberName || inst.op == kOpDecorate ||
           inst.op == kOpMemberDecorate) &&
          gone.count(inst.w[1])))
      final_out.push_back(std::move(inst));
  return spv_write(spirv, final_out, spirv[3]);
}

}  // namespace wgslvk::translator
