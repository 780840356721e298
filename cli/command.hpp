// A wgslvk sub-command registers itself from its own file:
//   static const wgslvk::cli::Command kDevices{"devices", "list adapters", usage, run_devices};
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace wgslvk::cli {

struct Command {
  using Run = int (*)(const std::vector<std::string>& args);  // args after the command name
  Command(std::string_view name, std::string_view summary, std::string_view usage, Run run);
  std::string_view name, summary, usage;
  Run run;
};

// True when args holds --help/-h; prints the command's usage.
bool wants_help(const std::vector<std::string>& args, const Command& cmd);

}  // namespace wgslvk::cli
