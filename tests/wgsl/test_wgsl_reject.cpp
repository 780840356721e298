// The rejection corpus (tests/wgsl/reject/*.wgsl) against Dawn's verdicts
// (tests/wgsl/reject/dawn_verdicts.json, written by dawn_verdicts.mjs with dawn.node): our
// check_module (createShaderModule's checks) and, for the modules it accepts, translate_to_glsl of
// every compute entry point (the checks Dawn makes at pipeline creation: limits, overrides) must
// reach Dawn's verdict. Prints the agreement rate and every disagreement; fails on a disagreement
// that kKnownDifferences does not list with its reason, and on a listed one that now agrees (the
// list stays true). A uniformity rejection must also agree on the line and column.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::wgsl {
namespace {

namespace fs = std::filesystem;

// Files where our verdict differs from Dawn's, each with why. Keep it short and true: the test
// fails when a listed file agrees again.
const std::map<std::string, std::string> kKnownDifferences = {
    // Limits Dawn checks when the pipeline is created. wgslvk's runtime checks them there too
    // (wgsl_ports/RULES.md R13, and the bind group limits); translate_to_glsl does not.
    {"as_workgroup_too_big.wgsl", "32 KiB of workgroup memory: a pipeline-creation limit (R13)"},
    {"attr_binding_too_large.wgsl", "@binding(1000000): a pipeline-layout limit"},
    {"attr_group_too_large.wgsl", "@group(4): a pipeline-layout limit (maxBindGroups 4)"},
    {"attr_workgroup_size_too_many.wgsl",
     "workgroup_size(512): a pipeline-creation limit of the device (R13); Dawn's default device "
     "has 256"},
    // Dawn ships the uniform_buffer_standard_layout language feature, which lifts WGSL's extra
    // uniform layout rules (16-byte array strides and struct alignment); sema applies them, as
    // the GLSL it writes uses std140 for uniform buffers (R21).
    {"layout_uniform_array_stride.wgsl", "uniform_buffer_standard_layout not supported"},
    {"layout_uniform_struct_member_align.wgsl", "uniform_buffer_standard_layout not supported"},
    // The front end translates compute shaders only: derivatives are 'unsupported'.
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Verdict {
  bool accepted = true;
  std::string stage;  // where a rejection happened
  std::string rule, message;
  uint32_t line = 0, col = 0;
  std::string unsupported;  // accepted, but an entry point is not translated (named)
};

Verdict ours(const std::string& source, const std::string& file) {
  Verdict v;
  std::vector<EntryPointInfo> entries;
  try {
    entries = check_module(source, file);
  } catch (const Error& e) {
    if (e.diagnostics.empty()) return {false, "check_module", "?", e.what(), 0, 0, ""};
    const Diagnostic& d = e.diagnostics[0];
    return {false, "check_module", d.rule, d.message, d.line, d.col, ""};
  }
  for (const auto& ep : entries) {
    if (ep.stage != "compute") continue;
    TranslateOptions options;
    options.file_name = file;
    options.entry_point = ep.name;
    try {
      TranslatedEntry t = translate_to_glsl(source, options);
      EXPECT_NE(t.glsl.find("#version 450"), std::string::npos) << file << ": " << ep.name;
    } catch (const Error& e) {
      for (const auto& d : e.diagnostics) {
        if (d.rule == "unsupported") {
          v.unsupported += ep.name + ": " + d.message + "; ";
          continue;
        }
        return {false, "translate_to_glsl(" + ep.name + ")", d.rule, d.message, d.line, d.col, ""};
      }
    }
  }
  return v;
}

bool is_uniformity_message(const std::string& m) {
  return m.find("uniform control flow") != std::string::npos ||
         m.find("to be uniform") != std::string::npos ||
         m.find("to have uniform contents") != std::string::npos;
}

TEST(WgslRejectCorpus, AgreesWithDawn) {
  const char* root = std::getenv("WGSLVK_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "WGSLVK_SOURCE_DIR is set by CTest";
  const fs::path dir = fs::path(root) / "tests" / "wgsl" / "reject";
  nlohmann::json expected = nlohmann::json::parse(read_file(dir / "dawn_verdicts.json"));
  const auto& verdicts = expected.at("verdicts");
  std::cout << "Dawn's verdicts: " << expected.value("webgpu_package", "?") << ", "
            << expected.value("date", "?") << "\n";

  std::set<std::string> files;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".wgsl") files.insert(f.path().filename().string());
  for (const auto& [name, v] : verdicts.items())
    EXPECT_TRUE(files.count(name)) << name << " has a Dawn verdict but no file";

  int agree = 0, total = 0, unsupported = 0;
  int both_reject_at_module = 0, same_line = 0;  // where both name the error's line
  std::set<std::string> differing;
  for (const auto& name : files) {
    ASSERT_TRUE(verdicts.contains(name))
        << name << " has no Dawn verdict: run tests/wgsl/reject/dawn_verdicts.mjs";
    const auto& dawn = verdicts.at(name);
    const bool dawn_accepts = dawn.at("verdict") == "accept";
    std::string dawn_message;
    uint32_t dawn_line = 0, dawn_col = 0;
    for (const auto& m : dawn.at("messages"))
      if (m.at("type") == "error") {
        dawn_message = m.at("message").get<std::string>();
        dawn_line = m.at("line").get<uint32_t>();
        dawn_col = m.at("col").get<uint32_t>();
        break;
      }
    if (dawn_message.empty() && dawn.contains("pipelines"))
      for (const auto& p : dawn.at("pipelines"))
        if (!p.at("error").is_null()) dawn_message = p.at("error").get<std::string>();

    const std::string source = read_file(dir / name);
    Verdict v = ours(source, name);
    ++total;
    if (!v.unsupported.empty()) {
      ++unsupported;
      std::cout << "  unsupported (accepted, not translated): " << name << ": " << v.unsupported
                << "\n";
    }
    std::string why;
    if (v.accepted != dawn_accepts) {
      why = dawn_accepts ? "Dawn accepts; we reject at " + v.stage + ": " + std::to_string(v.line) +
                               ":" + std::to_string(v.col) + " " + v.message + " [" + v.rule + "]"
                         : "Dawn rejects (" + dawn.value("stage", std::string()) + ": " +
                               std::to_string(dawn_line) + ":" + std::to_string(dawn_col) + " " +
                               dawn_message + "); we accept";
    } else if (!dawn_accepts && is_uniformity_message(dawn_message) &&
               (v.rule != "uniformity" || v.line != dawn_line || v.col != dawn_col)) {
      why = "both reject, but Dawn's uniformity error is at " + std::to_string(dawn_line) + ":" +
            std::to_string(dawn_col) + " (" + dawn_message + "), ours at " +
            std::to_string(v.line) + ":" + std::to_string(v.col) + " [" + v.rule + "] " + v.message;
    }
    if (!dawn_accepts && !v.accepted && dawn_line != 0 && v.stage == "check_module") {
      ++both_reject_at_module;
      if (v.line == dawn_line) ++same_line;
    }
    if (why.empty()) {
      ++agree;
      EXPECT_FALSE(kKnownDifferences.count(name))
          << name << " agrees with Dawn now: remove it from kKnownDifferences";
      continue;
    }
    differing.insert(name);
    auto known = kKnownDifferences.find(name);
    std::cout << "  differs" << (known != kKnownDifferences.end() ? " (known)" : "") << ": " << name
              << ": " << why << "\n";
    if (known == kKnownDifferences.end()) ADD_FAILURE() << name << ": " << why;
  }
  std::cout << "agreement with Dawn: " << agree << "/" << total << " ("
            << (total ? 100.0 * agree / total : 0.0) << "%), " << unsupported
            << " accepted but not translated; of " << both_reject_at_module
            << " modules both refuse at creation, " << same_line
            << " put the first error on Dawn's line\n";
  for (const auto& [name, reason] : kKnownDifferences)
    EXPECT_TRUE(files.count(name)) << name << " is listed as a known difference but has no file";
}

}  // namespace
}  // namespace wgslvk::wgsl
