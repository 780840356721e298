// `wgslvk inspect --stats`: the driver's statistics per kernel (ComputePipeline::
// executable_statistics) as one table or as JSON. Header-only so tests/runtime can check the
// formatting on a list built by hand (no driver here offers the statistics).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "wgslvk/runtime.hpp"

namespace wgslvk::cli {

// One kernel's executables, or why it was not compiled (a feature the device lacks).
struct KernelExecutables {
  std::string kernel;
  std::vector<PipelineExecutable> executables;
  std::string skipped;  // non-empty: not compiled, and why
};

inline std::string statistic_text(const PipelineStatistic& s) {
  struct V {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", v);
      return buf;
    }
  };
  return std::visit(V{}, s.value);
}

inline const char* statistic_format(const PipelineStatistic& s) {
  static const char* const names[] = {"bool", "int64", "uint64", "float64"};
  return names[s.value.index()];
}

// Columns: kernel, executable, subgroup size, then every statistic name in the order the driver
// first reports it ("-" where an executable lacks one); the statistics' descriptions below; then
// the kernels that were not compiled.
inline std::string executable_stats_table(const std::vector<KernelExecutables>& kernels) {
  std::vector<std::pair<std::string, std::string>> stats;  // name, description
  for (const auto& k : kernels)
    for (const auto& e : k.executables)
      for (const auto& s : e.statistics)
        if (std::none_of(stats.begin(), stats.end(), [&](auto& p) { return p.first == s.name; }))
          stats.emplace_back(s.name, s.description);
  std::vector<std::vector<std::string>> rows{{"kernel", "executable", "subgroup"}};
  for (const auto& s : stats) rows[0].push_back(s.first);
  for (const auto& k : kernels)
    for (const auto& e : k.executables) {
      std::vector<std::string> row{k.kernel, e.name, std::to_string(e.subgroup_size)};
      for (const auto& st : stats) {
        auto it = std::find_if(e.statistics.begin(), e.statistics.end(),
                               [&](const PipelineStatistic& s) { return s.name == st.first; });
        row.push_back(it == e.statistics.end() ? "-" : statistic_text(*it));
      }
      rows.push_back(std::move(row));
    }
  std::string out;
  if (rows.size() > 1) {
    std::vector<size_t> w(rows[0].size(), 0);
    for (const auto& r : rows)
      for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
    for (const auto& r : rows) {
      std::string line;
      for (size_t i = 0; i < r.size(); ++i) {
        line += r[i];
        if (i + 1 < r.size()) line += std::string(w[i] - r[i].size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  } else {
    out += "(no executables)\n";
  }
  if (!stats.empty()) {
    out += "\n";
    for (const auto& [name, description] : stats)
      out += "  " + name + ": " + (description.empty() ? "(no description)" : description) + "\n";
  }
  bool any_skipped = false;
  for (const auto& k : kernels)
    if (!k.skipped.empty()) {
      if (!any_skipped) out += "\nnot compiled:\n";
      any_skipped = true;
      out += "  " + k.kernel + ": " + k.skipped + "\n";
    }
  return out;
}

// {"kernels": [{"kernel", "executables": [{"name", "description", "subgroup_size",
// "statistics": [{"name", "description", "format", "value"}], "internal_representations":
// [{"name", "description", "text"}]}]} or {"kernel", "skipped"}]}
inline nlohmann::ordered_json executable_stats_json(const std::vector<KernelExecutables>& kernels) {
  nlohmann::ordered_json out;
  out["kernels"] = nlohmann::ordered_json::array();
  for (const auto& k : kernels) {
    nlohmann::ordered_json jk;
    jk["kernel"] = k.kernel;
    if (!k.skipped.empty()) {
      jk["skipped"] = k.skipped;
      out["kernels"].push_back(std::move(jk));
      continue;
    }
    jk["executables"] = nlohmann::ordered_json::array();
    for (const auto& e : k.executables) {
      nlohmann::ordered_json je;
      je["name"] = e.name;
      je["description"] = e.description;
      je["subgroup_size"] = e.subgroup_size;
      je["statistics"] = nlohmann::ordered_json::array();
      for (const auto& s : e.statistics) {
        nlohmann::ordered_json js;
        js["name"] = s.name;
        js["description"] = s.description;
        js["format"] = statistic_format(s);
        std::visit([&](auto v) { js["value"] = v; }, s.value);
        je["statistics"].push_back(std::move(js));
      }
      if (!e.internal_representations.empty()) {
        je["internal_representations"] = nlohmann::ordered_json::array();
        for (const auto& r : e.internal_representations)
          je["internal_representations"].push_back(
              {{"name", r.name}, {"description", r.description}, {"text", r.text}});
      }
      jk["executables"].push_back(std::move(je));
    }
    out["kernels"].push_back(std::move(jk));
  }
  return out;
}

}  // namespace wgslvk::cli
