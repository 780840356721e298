// The lookups over the kernels: the embedded ones (embedded_kernels() is generated, kernel_index.cpp
// in the build dir, by wgslvk_finish_ports) and those loaded at run time.
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

const KernelInfo& kernel(std::string_view name) {
  if (const KernelInfo* k = find_kernel(name)) return *k;
  std::string msg = "unknown kernel '" + std::string(name) + "'";
  size_t bare = 0;
  for (const KernelInfo* k : all_kernels()) bare += k->name == name;
  if (bare > 1) msg += " (ambiguous: qualify it as <file>/<kernel>)";
  msg += "; known kernels:";
  for (const KernelInfo* k : all_kernels()) msg += " " + k->qualified_name();
  if (all_kernels().empty()) msg += " (none)";
  throw std::invalid_argument(msg);
}

}  // namespace wgslvk
