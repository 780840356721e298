// placeholder (emitter helper)
#include "passes.hpp"
namespace wgslvk::wgsl {
std::string emit_glsl(const Module&, const FnDecl&, const EmitOptions&, Diags& diags) {
  diags.error({}, "unsupported", "the GLSL emitter is not written yet");
  return {};
}
}  // namespace wgslvk::wgsl
