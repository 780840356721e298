// wgslvk golden: regenerate the golden cases from the CPU references, or check that they are
// what the generators produce.
#include <cstdio>
#include <optional>

#include "command.hpp"
#include "flag_number.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/npy.hpp"
#include "wgslvk/validate/validate.hpp"

namespace wgslvk::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: wgslvk golden regen [--check] [--out DIR]
       wgslvk golden fresh --seed N --out DIR [--kernel NAME]...
       wgslvk golden list

regen   Generates every golden case from its generator (fixed seed, CPU reference) and writes
        golden/ (or DIR) to match, listing each file added, changed or removed.
        --check: write nothing; exit 1 if anything would change.
fresh   Writes each kernel's randomized case, generated with a fresh seed, as case folders
        DIR/<file>/<kernel>/randomized-<case>/ (inputs, CPU-reference expected outputs, bounds):
        the very cases `wgslvk validate --seed N` checks, for running elsewhere (the browser
        suite, capture/suite/run_suite.mjs, runs them in Chromium). --kernel filters as in validate.
list    The cases the generators define, with their seeds.

Exit status: 0 done (or --check found nothing to change), 1 --check found changes or writing
failed, 2 usage (an unknown command or option).
)";

// `golden fresh`: the randomized check's cases of `wgslvk validate --seed N`, as folders. The
// per-generator seed is validate's (validate/src/validate.cpp): splitmix64_at(N, FNV-1a of
// "<kernel>/<case>"), so `wgslvk validate --seed N` runs exactly these inputs.
int run_fresh(const std::vector<std::string>& args) {
  std::optional<uint64_t> seed;
  std::optional<std::filesystem::path> out;
  std::vector<std::string> kernels;
  for (size_t i = 1; i < args.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--seed")
      seed = parse_flag_uint("--seed", value(), 0, UINT64_MAX);
    else if (args[i] == "--out")
      out = value();
    else if (args[i] == "--kernel")
      kernels.push_back(value());
    else
      throw std::invalid_argument("unknown option " + quote_flag_value(args[i]));
  }
  if (!seed || !out) throw std::invalid_argument("golden fresh needs --seed N and --out DIR");
  size_t written = 0;
  for (const auto& g : validate::generators()) {
    if (!g.randomized || !validate::kernel_matches(kernels, g.kernel)) continue;
    uint64_t h = 1469598103934665603ull;  // FNV-1a of the case id, as validate does
    for (char ch : g.kernel + "/" + g.name) h = (h ^ uint8_t(ch)) * 1099511628211ull;
    validate::Case c = validate::generate(g, validate::splitmix64_at(*seed, h));
    c.name = "randomized-" + g.name;
    for (auto& [name, bytes] : validate::serialize_case(c))
      validate::write_file_bytes(*out / g.kernel / c.name / name, bytes);
    ++written;
  }
  std::printf("%s: %zu randomized case(s), seed %llu\n", out->string().c_str(), written,
              (unsigned long long)*seed);
  return written ? 0 : 1;
}

int run_golden(const std::vector<std::string>& args);
const Command kGolden{"golden", "regenerate or check the golden cases (golden/)", kUsage,
                      run_golden};

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
  auto usage = [](const std::string& m) {
    std::fprintf(stderr, "wgslvk golden: error: %s (see --help)\n", m.c_str());
    return 2;
  };
  if (args[0] == "fresh") {
    try {
      return run_fresh(args);
    } catch (const std::invalid_argument& e) { return usage(e.what()); }
  }
  if (args[0] != "regen") return usage("unknown golden command '" + args[0] + "'");
  bool check = false;
  std::filesystem::path out = validate::golden_dir();
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--check")
      check = true;
    else if (args[i] == "--out" && i + 1 < args.size())
      out = args[++i];
    else if (args[i] == "--out")
      return usage("--out needs a folder");
    else
      return usage("unknown option '" + args[i] + "'");
  }
  auto changes = validate::regen(out, !check);
  for (const auto& c : changes)
    std::printf("%-8s %s\n", std::string(validate::change_name(c.kind)).c_str(), c.path.c_str());
  size_t cases = validate::generators().size();
  if (check) {
    std::printf("%s: %zu cases, %zu file(s) would change\n", out.string().c_str(), cases,
                changes.size());
    return changes.empty() ? 0 : 1;
  }
  std::printf("%s: %zu cases, %zu file(s) written or removed\n", out.string().c_str(), cases,
              changes.size());
  return 0;
}

}  // namespace
}  // namespace wgslvk::cli
