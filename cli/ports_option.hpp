// Kernels brought at run time, shared by validate, inspect and bench:
//   --wgsl Y.wgsl                  WGSL translated by the front end (translator/wgsl/), no port
//   --port X.comp:Y.wgsl           a GLSL hand port checked against its WGSL
//   --port X.comp --wgsl Y.wgsl    the same (a --wgsl right after a --port pairs with it)
// Each is checked and loaded exactly as the build checks the shipped kernels.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "wgslvk/translator.hpp"

namespace wgslvk::cli {

inline constexpr const char* kPortOptionsUsage =
    R"(  --wgsl Y.wgsl    WGSL to run as is: every @compute entry point (or those named by --entry
                   after it) is translated by wgslvk's WGSL front end, checked like a shipped
                   kernel and usable as "<wgsl stem>/<entry>"; repeatable
  --constant NAME=V  a pipeline-overridable constant (WGSL `override`, by name or @id) of the
                   last --wgsl; repeatable
  --port X.comp[:Y.wgsl]  a GLSL hand port: compiled, validated and ABI-checked against its WGSL
                   (after ':' or in a --wgsl right after it), usable as "<wgsl stem>/<comp stem>";
                   ports without a WGSL take the one --wgsl given apart from them; repeatable
  --entry E        the entry point of the last --port (default: its file name's stem), or one
                   entry point to translate of the last --wgsl (repeatable)
  --family F       the family part of the last --port's or --wgsl's kernel names (default: the
                   WGSL file's stem)
  --abi-of E       the last --port is a native variant with the ABI of WGSL entry point E
  --include-dir D  extra #include directory for the ports
)";

struct PortOptions {
  std::vector<translator::PortFiles> ports;
  std::vector<translator::WgslFiles> wgsl;  // --wgsl given apart from a --port
  std::vector<std::string> include_dirs;
  enum class Last { None, Port, Wgsl } last = Last::None;  // what --entry/--family apply to
  bool port_took_wgsl = false;                             // the last --port already has its WGSL
};

// `--constant NAME=V` (validate/inspect/bench and `wgslvk port`): the name and a finite value.
std::pair<std::string, double> parse_constant(const std::string& v);
// Consumes args[i] (and its value) when it is one of the options above.
bool take_port_option(const std::vector<std::string>& args, size_t& i, PortOptions& o);
// Checks and registers every kernel; throws with the build check's (or the front end's
// file:line:col) message.
void load_ports(PortOptions& o);
// Whether any kernel was brought at run time.
inline bool has_ports(const PortOptions& o) { return !o.ports.empty() || !o.wgsl.empty(); }

}  // namespace wgslvk::cli
