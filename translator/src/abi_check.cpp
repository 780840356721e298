// PROVISIONAL (step 1): no WGSL reading yet; bindings come from reflection alone. Replaced by the
// real declaration reader and ABI check next.
#include "wgslvk/translator.hpp"

namespace wgslvk::translator {

const WgslEntryPoint* WgslModule::find_entry(std::string_view name) const {
  for (auto& e : entry_points)
    if (e.name == name) return &e;
  return nullptr;
}
bool WgslModule::references(const WgslEntryPoint& ep, std::string_view var) const {
  for (auto& r : ep.referenced)
    if (r == var) return true;
  return false;
}
std::string TypeDesc::wgsl() const { return name; }

WgslModule parse_wgsl(std::string_view, std::string_view file_name) {
  WgslModule m;
  m.file = std::string(file_name);
  return m;
}

std::vector<CheckedBinding> check_abi(const AbiCheckInput&, const Reflection& spv,
                                      const WgslModule&) {
  std::vector<CheckedBinding> out;
  for (auto& b : spv.bindings)
    out.push_back({b.group, b.binding, b.type, b.glsl_name, "", b.glsl_name, b.min_binding_size,
                   b.array_stride, b.statically_used});
  return out;
}

}  // namespace wgslvk::translator
