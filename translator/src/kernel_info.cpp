// The lookups over the kernels: the embedded ones (embedded_kernels() is generated, kernel_index.cpp
// in the build dir, by wgslvk_finish_ports) and those loaded at run time.
#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "wgslvk/kernel.hpp"

namespace wgslvk {

std::string KernelInfo::qualified_name() const {
  return std::string(file) + "/" + std::string(name);
}

const KernelBinding* KernelInfo::find_binding(uint32_t group, uint32_t binding) const {
  for (const auto& b : bindings)
    if (b.group == group && b.binding == binding) return &b;
  return nullptr;
}

namespace {
std::mutex& kernels_mutex() {
  static std::mutex m;
  return m;
}
std::vector<const KernelInfo*>& registered() {
  static std::vector<const KernelInfo*> v = [] {
    auto e = embedded_kernels();
    return std::vector<const KernelInfo*>(e.begin(), e.end());
  }();
  return v;
}
}  // namespace

std::span<const KernelInfo* const> all_kernels() {
  std::lock_guard lock(kernels_mutex());
  return registered();
}

void register_kernel(const KernelInfo* k) {
  std::string q = k->qualified_name();
  if (find_kernel(q))
    throw std::invalid_argument("kernel '" + q +
                                "' is already known (a port of that name is built in "
                                "or was loaded before)");
  std::lock_guard lock(kernels_mutex());
  registered().push_back(k);
}

void replace_kernel(const KernelInfo* k) {
  std::lock_guard lock(kernels_mutex());
  for (const KernelInfo*& r : registered())
    if (r->file == k->file && r->name == k->name) {
      r = k;
      return;
    }
  throw std::invalid_argument("kernel '" + k->qualified_name() + "' is not registered");
}

const KernelInfo* find_kernel(std::string_view name) {
  const KernelInfo* found = nullptr;
  size_t slash = name.find('/');
  for (const KernelInfo* k : all_kernels()) {
    if (slash != std::string_view::npos) {
      if (k->file == name.substr(0, slash) && k->name == name.substr(slash + 1)) return k;
    } else if (k->name == name) {
      if (found) return nullptr;  // ambiguous bare name
      found = k;
    }
  }
  return found;
}

namespace {
// Levenshtein distance, for "did you mean" (names are short: O(n m) is nothing).
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

const KernelInfo& kernel(std::string_view name) {
  if (const KernelInfo* k = find_kernel(name)) return *k;
  const auto all = all_kernels();
  std::string msg = "unknown kernel '" + std::string(name.substr(0, 200)) + "'";
  // The nearest names (issue 25: the message was 78 names on one line): an ambiguous bare name's
  // qualified forms, else the names within a third of the length in edits.
  std::vector<std::pair<size_t, std::string>> near;
  size_t bare = 0;
  for (const KernelInfo* k : all) bare += k->name == name;
  const size_t limit = std::max<size_t>(2, std::min<size_t>(name.size(), 200) / 3);
  for (const KernelInfo* k : all) {
    const size_t d = bare > 1 ? (k->name == name ? 0 : limit + 1)
                              : std::min(edit_distance(name.substr(0, 200), k->name),
                                         edit_distance(name.substr(0, 200), k->qualified_name()));
    if (d <= limit) near.emplace_back(d, k->qualified_name());
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (bare > 1) msg += " (ambiguous: qualify it as <file>/<kernel>)";
  if (!near.empty()) {
    msg += "; did you mean";
    for (size_t i = 0; i < near.size() && i < (bare > 1 ? near.size() : 3); ++i)
      msg += (i ? ", '" : " '") + near[i].second + "'";
    msg += "?";
  }
  // Then every kernel, one line per file.
  msg += "\nknown kernels (" + std::to_string(all.size()) + "), by file:";
  std::string_view file;
  for (const KernelInfo* k : all) {
    if (k->file != file || file.empty()) {
      file = k->file;
      msg += "\n  " + std::string(file) + ":";
    }
    msg += " " + std::string(k->name);
  }
  if (all.empty()) msg += " (none)";
  throw std::invalid_argument(msg);
}

}  // namespace wgslvk
