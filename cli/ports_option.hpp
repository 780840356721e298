// --port X.comp --wgsl Y.wgsl [--entry E] [--family F] [--abi-of E] [--include-dir D], shared by
// validate, inspect and bench: a GLSL port that is not built into wgslvk, checked and loaded at
// run time exactly as the build checks the shipped ones (translator::load_port).
#pragma once

#include <string>
#include <vector>

#include "wgslvk/translator.hpp"

namespace wgslvk::cli {

inline constexpr const char* kPortOptionsUsage =
    R"(  --port X.comp    a GLSL port not built into wgslvk: compiled, validated and ABI-checked
                   against --wgsl at run time, then usable as "<wgsl stem>/<comp stem>"; repeatable
  --wgsl Y.wgsl    the WGSL file declaring the ports' entry points (applies to every --port
                   after it, or to all when given once)
  --entry E        the entry point of the last --port (default: its file name's stem)
  --family F       the family part of the last --port's name (default: the WGSL file's stem)
  --abi-of E       the last --port is a native variant with the ABI of WGSL entry point E
  --include-dir D  extra #include directory for the ports
)";

struct PortOptions {
  std::vector<translator::PortFiles> ports;
  std::vector<std::string> include_dirs;
  std::string wgsl;                  // the latest --wgsl
  std::vector<size_t> without_wgsl;  // ports given before any --wgsl
};

// Consumes args[i] (and its value) when it is one of the options above.
bool take_port_option(const std::vector<std::string>& args, size_t& i, PortOptions& o);
// Checks and registers every port; throws with the build check's message on a mismatch.
void load_ports(PortOptions& o);

}  // namespace wgslvk::cli
