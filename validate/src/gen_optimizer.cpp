// Golden cases of 12_optimizer.wgsl: filled in when wgsl_ports/optimizer/reference.hpp lands.
#include <vector>

#include "wgslvk/validate/generators.hpp"

namespace wgslvk::validate {
void register_optimizer(std::vector<Generator>&) {}
}  // namespace wgslvk::validate
