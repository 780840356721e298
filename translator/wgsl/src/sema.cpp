// placeholder: sema is being written (sema helper)
#include "passes.hpp"
namespace wgslvk::wgsl {
bool analyze(Module&, const std::map<std::string, double>&, Diags& diags) {
  diags.error({}, "unsupported", "WGSL semantic analysis is not written yet");
  return false;
}
}  // namespace wgslvk::wgsl
