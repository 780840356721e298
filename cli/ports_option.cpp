#include "ports_option.hpp"

#include <stdexcept>

namespace wgslvk::cli {

bool take_port_option(const std::vector<std::string>& args, size_t& i, PortOptions& o) {
  const std::string& a = args[i];
  if (a != "--port" && a != "--wgsl" && a != "--entry" && a != "--family" && a != "--abi-of" &&
      a != "--include-dir")
    return false;
  if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
  const std::string v = args[++i];
  auto last = [&]() -> translator::PortFiles& {
    if (o.ports.empty()) throw std::invalid_argument(a + " must follow a --port");
    return o.ports.back();
  };
  if (a == "--port") {
    translator::PortFiles p;
    p.comp_path = v;
    p.wgsl_path = o.wgsl;
    if (o.wgsl.empty()) o.without_wgsl.push_back(o.ports.size());
    o.ports.push_back(std::move(p));
  } else if (a == "--wgsl") {
    o.wgsl = v;
    for (size_t k : o.without_wgsl) o.ports[k].wgsl_path = v;
    o.without_wgsl.clear();
  } else if (a == "--entry")
    last().entry = v;
  else if (a == "--family")
    last().family = v;
  else if (a == "--abi-of")
    last().abi_of = v;
  else
    o.include_dirs.push_back(v);
  return true;
}

void load_ports(PortOptions& o) {
  if (o.ports.empty()) {
    if (!o.wgsl.empty())
      throw std::invalid_argument("--wgsl " + o.wgsl + " given without a --port");
    return;
  }
  for (auto& p : o.ports) {
    if (p.wgsl_path.empty())
      throw std::invalid_argument("--port " + p.comp_path +
                                  " needs a --wgsl file to check it against");
    p.include_dirs = o.include_dirs;
    translator::load_port(p);
  }
}

}  // namespace wgslvk::cli
