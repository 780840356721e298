// placeholder (uniformity helper)
#include "passes.hpp"
namespace wgslvk::wgsl {
void check_uniformity(const Module&, Diags&) {}
}  // namespace wgslvk::wgsl
