// wgslvk validate: every golden case and a randomized check per kernel on one device.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "command.hpp"
#include "ports_option.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/validate.hpp"

namespace wgslvk::cli {
namespace {

const std::string kUsage = R"(usage: wgslvk validate [options]

Runs every golden case (golden/<file>/<kernel>/<case>/) and a randomized check against the CPU
reference for every kernel on one device; one row per kernel, then a one-line verdict. Exit status
0 when every kernel passes or is skipped for a missing device feature, 1 otherwise.

  --device SEL     adapter index or case-insensitive name substring (default: WGSLVK_DEVICE, else
                   the first discrete GPU, else lavapipe); `wgslvk devices` lists them
  --kernel NAME    only this kernel ("optimizer/adamw_update", "adamw_update") or file
                   ("optimizer"); repeatable
  --cases DIR      run the case folders under DIR instead of golden/ (format: golden/README.md);
                   turns the randomized check off
  --seed N         seed of the randomized check (default: fresh; printed, so a failure replays)
  --no-random      skip the randomized check
  --dump DIR       write every checked output as DIR/<case>/<buffer>.actual.npy beside a copy of
                   the expected array
  --opt            run the spirv-opt output instead of glslang's
  --json           print the report as JSON instead of the table
  --verbose        one line per case as it finishes

Ports not built into wgslvk (validate a kernel you are porting, against cases from elsewhere):
)" + std::string(kPortOptionsUsage);

std::string fmt_ulp(double v) {
  if (!std::isfinite(v)) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, v == std::floor(v) && v < 1e7 ? "%.0f" : "%.3g", v);
  return b;
}

int run_validate(const std::vector<std::string>& args);
const Command kValidate{"validate", "check every kernel against its golden cases on a device", kUsage,
                        run_validate};

int run_validate(const std::vector<std::string>& args) {
  if (wants_help(args, kValidate)) return 0;
  validate::ValidateOptions opt;
  bool json = false, verbose = false;
  PortOptions ports;
  for (size_t i = 0; i < args.size(); ++i) {
    if (take_port_option(args, i, ports)) continue;
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value (see --help)");
      return args[++i];
    };
    if (a == "--device") opt.device = value();
    else if (a == "--kernel") opt.kernels.push_back(value());
    else if (a == "--cases") opt.cases = value();
    else if (a == "--seed") opt.seed = std::stoull(value());
    else if (a == "--no-random") opt.randomized = false;
    else if (a == "--dump") opt.dump = value();
    else if (a == "--opt") opt.run.optimized_spirv = true;
    else if (a == "--json") json = true;
    else if (a == "--verbose" || a == "-v") verbose = true;
    else throw std::invalid_argument("unknown option '" + a + "' (see --help)");
  }
  load_ports(ports);
  for (const auto& k : opt.kernels) {
    bool any = false;
    for (const KernelInfo* ki : all_kernels())
      any |= validate::kernel_matches({k}, ki->qualified_name());
    if (!any) (void)kernel(k);  // throws, listing the known kernels
  }
  auto t0 = std::chrono::steady_clock::now();
  validate::Validator v(opt);
  if (!json) {
    std::printf("device: %s\n", v.device_description().c_str());
    std::printf("cases:  %s%s\n", (opt.cases ? opt.cases->string() : validate::golden_dir().string()).c_str(),
                opt.randomized && !opt.cases ? " + a randomized check per kernel" : "");
    std::fflush(stdout);
  }
  auto rep = v.run([&](const validate::CaseResult& r) {
    if (verbose && !json) {
      std::printf("  %-5s %s%s%s\n", std::string(validate::status_name(r.status)).c_str(), r.id.c_str(),
                  r.device_ms ? (" " + std::to_string(*r.device_ms) + " ms").c_str() : "",
                  r.message.empty() ? "" : (": " + r.message).c_str());
      std::fflush(stdout);
    }
  });
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (json) {
    auto j = validate::report_json(rep);
    j["wall_s"] = wall;
    std::printf("%s\n", j.dump(2).c_str());
    return rep.ok() ? 0 : 1;
  }
  if (opt.randomized && !opt.cases)
    std::printf("randomized check seed %llu (--seed %llu replays it)\n", (unsigned long long)rep.seed,
                (unsigned long long)rep.seed);
  std::printf("\n%-42s %6s  %-24s %12s  %s\n", "kernel", "cases", "worst error / bound", "device time",
              "result");
  for (const auto& r : rep.rows) {
    std::string err = r.status == "SKIP" ? "-" : r.any_ulp ? fmt_ulp(r.worst_ulp) + " / " + fmt_ulp(r.worst_bound) + " ULP" : "exact";
    char t[32] = "-";
    if (r.timed) std::snprintf(t, sizeof t, "%.3f ms", r.device_ms);
    std::printf("%-42s %6d  %-24s %12s  %s\n", r.kernel.c_str(), r.cases, err.c_str(), t, r.status.c_str());
    for (const auto& m : r.messages) std::printf("    %s\n", m.c_str());
  }
  for (const auto& u : rep.uncovered) std::printf("note: %s has no golden case\n", u.c_str());
  for (const auto& m : rep.layer_messages) std::printf("validation layer: %s\n", m.c_str());
  if (opt.dump) std::printf("outputs written under %s\n", opt.dump->string().c_str());
  std::printf("\n%s (%.1f s)\n", rep.verdict().c_str(), wall);
  return rep.ok() ? 0 : 1;
}

}  // namespace
}  // namespace wgslvk::cli
