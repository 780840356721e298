// wgslvk: run, check, inspect and measure WebGPU compute kernels natively on Vulkan.
#include <cstdio>
#include <exception>
#include <map>

#include "command.hpp"

namespace wgslvk::cli {
namespace {
std::map<std::string_view, const Command*>& registry() {
  static std::map<std::string_view, const Command*> r;
  return r;
}
}  // namespace

Command::Command(std::string_view n, std::string_view s, std::string_view u, Run r)
    : name(n), summary(s), usage(u), run(r) {
  registry()[name] = this;
}

bool wants_help(const std::vector<std::string>& args, const Command& cmd) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::printf("%.*s", int(cmd.usage.size()), cmd.usage.data());
      return true;
    }
  return false;
}
}  // namespace wgslvk::cli

static void print_usage() {
  std::printf("usage: wgslvk <command> [options]   (wgslvk <command> --help for details)\n\n");
  for (auto& [name, cmd] : wgslvk::cli::registry())
    std::printf("  %-10.*s %.*s\n", int(name.size()), name.data(), int(cmd->summary.size()),
                cmd->summary.data());
}

int main(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  auto it = wgslvk::cli::registry().find(argv[1]);
  if (it == wgslvk::cli::registry().end()) {
    std::fprintf(stderr, "wgslvk: unknown command '%s'\n\n", argv[1]);
    print_usage();
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    return it->second->run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgslvk %s: error: %s\n", argv[1], e.what());
    return 1;
  }
}
