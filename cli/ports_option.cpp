#include "ports_option.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace wgslvk::cli {

std::pair<std::string, double> parse_constant(const std::string& v) {
  size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
    throw std::invalid_argument("--constant '" + v + "': expected NAME=VALUE");
  const std::string num = v.substr(eq + 1);
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || errno == ERANGE || !std::isfinite(d))
    throw std::invalid_argument("--constant '" + v + "': '" + num + "' is not a finite number");
  return {v.substr(0, eq), d};
}

bool take_port_option(const std::vector<std::string>& args, size_t& i, PortOptions& o) {
  const std::string& a = args[i];
  if (a != "--port" && a != "--wgsl" && a != "--entry" && a != "--family" && a != "--abi-of" &&
      a != "--include-dir" && a != "--constant")
    return false;
  if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
  const std::string v = args[++i];
  if (v.empty()) throw std::invalid_argument(a + " needs a non-empty value");
  if (a == "--port") {
    translator::PortFiles p;
    // X.comp:Y.wgsl pairs explicitly; a path holding ':' itself can use --wgsl after it.
    size_t colon = v.rfind(':');
    if (colon != std::string::npos && colon + 1 < v.size() && v.ends_with(".wgsl")) {
      p.comp_path = v.substr(0, colon);
      p.wgsl_path = v.substr(colon + 1);
    } else {
      p.comp_path = v;
    }
    o.port_took_wgsl = !p.wgsl_path.empty();
    o.ports.push_back(std::move(p));
    o.last = PortOptions::Last::Port;
  } else if (a == "--wgsl") {
    if (o.last == PortOptions::Last::Port && !o.port_took_wgsl) {
      o.ports.back().wgsl_path = v;  // `--port X.comp --wgsl Y.wgsl`
      o.port_took_wgsl = true;
    } else {
      translator::WgslFiles w;
      w.wgsl_path = v;
      o.wgsl.push_back(std::move(w));
      o.last = PortOptions::Last::Wgsl;
    }
  } else if (a == "--entry" || a == "--family") {
    if (o.last == PortOptions::Last::None)
      throw std::invalid_argument(a + " must follow a --port or a --wgsl");
    if (o.last == PortOptions::Last::Port) {
      (a == "--entry" ? o.ports.back().entry : o.ports.back().family) = v;
    } else if (a == "--entry") {
      o.wgsl.back().entries.push_back(v);
    } else {
      o.wgsl.back().family = v;
    }
  } else if (a == "--abi-of") {
    if (o.last != PortOptions::Last::Port)
      throw std::invalid_argument("--abi-of must follow a --port (a native GLSL variant)");
    o.ports.back().abi_of = v;
  } else if (a == "--constant") {
    if (o.last != PortOptions::Last::Wgsl)
      throw std::invalid_argument("--constant must follow a --wgsl (it sets a WGSL override)");
    auto [name, value] = parse_constant(v);
    o.wgsl.back().constants[name] = value;
  } else {
    o.include_dirs.push_back(v);
  }
  return true;
}

void load_ports(PortOptions& o) {
  // Ports without a WGSL take the single --wgsl given apart from them (`--wgsl Y --port A
  // --port B`); that WGSL is then their declaration, not a kernel of its own.
  bool unpaired = false;
  for (const auto& p : o.ports) unpaired |= p.wgsl_path.empty();
  if (unpaired) {
    if (o.wgsl.size() != 1)
      throw std::invalid_argument(
          o.wgsl.empty()
              ? "a --port needs its WGSL: --port X.comp:Y.wgsl, or --wgsl Y.wgsl after it"
              : "several --wgsl files and a --port without one: pair them explicitly "
                "(--port X.comp:Y.wgsl)");
    if (!o.wgsl[0].entries.empty() || !o.wgsl[0].constants.empty())
      throw std::invalid_argument("--entry/--constant after --wgsl " + o.wgsl[0].wgsl_path +
                                  ", which declares the --port kernels: put --entry after the "
                                  "--port it names");
    for (auto& p : o.ports)
      if (p.wgsl_path.empty()) p.wgsl_path = o.wgsl[0].wgsl_path;
    o.wgsl.clear();
  }
  for (auto& p : o.ports) {
    p.include_dirs = o.include_dirs;
    translator::load_port(p);
  }
  for (const auto& w : o.wgsl) translator::load_wgsl(w);
}

}  // namespace wgslvk::cli
