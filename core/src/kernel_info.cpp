// The kernel registry (wgslvk_core): the embedded kernels (embedded_kernels() is generated,
// kernel_index.cpp in the build dir, by wgslvk_finish_ports) and those loaded at run time, and the
// lookups over them.
#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "wgslvk/kernel.hpp"
#include "wgslvk/kernel_registry.hpp"

namespace wgslvk {

std::string KernelInfo::qualified_name() const {
  return std::string(file) + "/" + std::string(name);
}

const KernelBinding* KernelInfo::find_binding(uint32_t group, uint32_t binding) const {
  for (const auto& b : bindings)
    if (b.group == group && b.binding == binding) return &b;
  return nullptr;
}

// The registry (wgslvk_core) does not link the kernels: embedded_kernels() is defined by the build's
// generated index (kernel_index.cpp of wgslvk_kernels, cmake/WgslvkPorts.cmake), and the kernels'
// link interface makes every program that links them pull it in (--undefined,
// wgsl_ports/CMakeLists.txt). Referred to weakly here, so a program of wgslvk_runtime alone links,
// and sees no embedded kernels.
std::span<const KernelInfo* const> embedded_kernels() __attribute__((weak));

namespace {
std::span<const KernelInfo* const> embedded_or_none() {
  if (!embedded_kernels) return {};
  return embedded_kernels();
}
}  // namespace

bool is_embedded(const KernelInfo& k) {
  const auto e = embedded_or_none();
  return std::find(e.begin(), e.end(), &k) != e.end();
}

std::string wgsl_source_path(const KernelInfo& k) {
  // The build's layout: wgslvk_add_port (cmake/WgslvkPorts.cmake) names a kernel's file after its
  // folder under wgsl_ports/.
  if (is_embedded(k)) return "wgsl_ports/" + std::string(k.file) + "/" + std::string(k.wgsl_file);
  return std::string(k.wgsl_file);
}

namespace {
// Every state the registry has been in, each list immutable once made and never freed: a span
// all_kernels() returned stays valid (and unchanged) whatever is registered after it, from any
// thread. A registration copies the list (kernels are registered a handful of times a run).
struct Registry {
  std::mutex mutex;
  std::deque<std::vector<const KernelInfo*>> states;  // push_back keeps earlier elements in place
  Registry() {
    auto e = embedded_or_none();
    states.emplace_back(e.begin(), e.end());
  }
};
Registry& registry() {
  static Registry r;
  return r;
}

const KernelInfo* find_in(std::span<const KernelInfo* const> all, std::string_view name) {
  const KernelInfo* found = nullptr;
  size_t slash = name.find('/');
  for (const KernelInfo* k : all) {
    if (slash != std::string_view::npos) {
      if (k->file == name.substr(0, slash) && k->name == name.substr(slash + 1)) return k;
    } else if (k->name == name) {
      if (found) return nullptr;  // ambiguous bare name
      found = k;
    }
  }
  return found;
}
}  // namespace

std::span<const KernelInfo* const> all_kernels() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.states.back();
}

void register_kernel(const KernelInfo* k) {
  const std::string q = k->qualified_name();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);  // the lookup and the insertion under one lock
  if (find_in(r.states.back(), q))
    throw std::invalid_argument("kernel '" + q +
                                "' is already known (a port of that name is built in "
                                "or was loaded before)");
  std::vector<const KernelInfo*> next = r.states.back();
  next.push_back(k);
  r.states.push_back(std::move(next));
}

void replace_kernel(const KernelInfo* k) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<const KernelInfo*> next = r.states.back();
  for (const KernelInfo*& e : next)
    if (e->file == k->file && e->name == k->name) {
      e = k;
      r.states.push_back(std::move(next));
      return;
    }
  throw std::invalid_argument("kernel '" + k->qualified_name() + "' is not registered");
}

const KernelInfo* find_kernel(std::string_view name) { return find_in(all_kernels(), name); }

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
