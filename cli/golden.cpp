// wgslvk golden: regenerate the golden cases from the CPU references, or check that they are
// what the generators produce.
#include <cstdio>

#include "command.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/golden.hpp"

namespace wgslvk::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: wgslvk golden regen [--check] [--out DIR]
       wgslvk golden list

regen   Generates every golden case from its generator (fixed seed, CPU reference) and writes
        golden/ (or DIR) to match, listing each file added, changed or removed.
        --check: write nothing; exit 1 if anything would change.
list    The cases the generators define, with their seeds.
)";

int run_golden(const std::vector<std::string>& args);
const Command kGolden{"golden", "regenerate or check the golden cases (golden/)", kUsage, run_golden};

int run_golden(const std::vector<std::string>& args) {
  if (wants_help(args, kGolden)) return 0;
  if (args.empty()) {
    std::fprintf(stderr, "%.*s", int(kUsage.size()), kUsage.data());
    return 2;
  }
  if (args[0] == "list") {
    for (const auto& g : validate::generators())
      std::printf("%s/%s  seed %llu%s\n", g.kernel.c_str(), g.name.c_str(),
                  (unsigned long long)g.golden_seed, g.randomized ? "  (randomized check)" : "");
    return 0;
  }
  if (args[0] != "regen") throw std::invalid_argument("unknown golden command '" + args[0] + "' (see --help)");
  bool check = false;
  std::filesystem::path out = validate::golden_dir();
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--check") check = true;
    else if (args[i] == "--out" && i + 1 < args.size()) out = args[++i];
    else throw std::invalid_argument("unknown option '" + args[i] + "' (see --help)");
  }
  auto changes = validate::regen(out, !check);
  for (const auto& c : changes)
    std::printf("%-8s %s\n", std::string(validate::change_name(c.kind)).c_str(), c.path.c_str());
  size_t cases = validate::generators().size();
  if (check) {
    std::printf("%s: %zu cases, %zu file(s) would change\n", out.string().c_str(), cases, changes.size());
    return changes.empty() ? 0 : 1;
  }
  std::printf("%s: %zu cases, %zu file(s) written or removed\n", out.string().c_str(), cases, changes.size());
  return 0;
}

}  // namespace
}  // namespace wgslvk::cli
