// What the kernel registry (wgslvk_core, core/src/kernel_info.cpp) knows beyond the lookups of
// wgslvk/kernel.hpp: whether a kernel was embedded by the build, and where its WGSL came from.
#pragma once

#include <string>

#include "wgslvk/kernel.hpp"

namespace wgslvk {

// True for a kernel of embedded_kernels() (false for one registered at run time).
bool is_embedded(const KernelInfo& k);
// The kernel's WGSL file as the trace names it: "wgsl_ports/<file>/<wgsl_file>" for an embedded
// kernel (its place in the source tree, where wgslvk_add_port's folders live), the WGSL file's own
// name for a kernel registered at run time (a --port/--wgsl of the user's; its text travels
// with the trace anyway).
std::string wgsl_source_path(const KernelInfo& k);

}  // namespace wgslvk
