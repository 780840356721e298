// wgslvk validate: every golden case and a randomized check per kernel on one device.
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "command.hpp"
#include "ports_option.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/untrusted.hpp"
#include "wgslvk/validate/validate.hpp"

namespace wgslvk::cli {
namespace {

const std::string kUsage = R"(usage: wgslvk validate [options]

Runs every golden case (golden/<file>/<kernel>/<case>/) and a randomized check against the CPU
reference for every kernel on one device; one row per kernel, then a one-line verdict. Every case
ends PASS, FAIL, SKIP or ERROR (a case that does not load, names an unknown kernel or runs past
the time limit is an ERROR; the others still run). Exit status:
  0  every case passes or is skipped for a missing device feature
  1  some case FAILs or is an ERROR, or the validation layer reported a message
  2  usage: a bad option or value, or nothing to run (--cases DIR missing or without case.json)
  3  could not start: no device matched or opened, or a --port/--wgsl did not load

  --device SEL     adapter index or case-insensitive name substring (default: WGSLVK_DEVICE, else
                   the first discrete GPU, else lavapipe); `wgslvk devices` lists them
  --kernel NAME    only this kernel ("optimizer/adamw_update", "adamw_update") or file
                   ("optimizer"); repeatable
  --cases DIR      run the case folders under DIR instead of golden/ (format: golden/README.md);
                   turns the randomized check off
  --seed N         seed of the randomized check (default: fresh; printed, so a failure replays)
  --no-random      skip the randomized check
  --dump DIR       write every checked output as DIR/<case>/<buffer>.actual.npy beside a copy of
                   the expected array (only inside DIR: names are checked, symlinks not followed)
  --timeout S      per-case time limit in seconds (default 120; 0: none). A case past it is an
                   ERROR; as a dispatch in flight cannot be interrupted, the device is then
                   abandoned and the remaining cases are reported ERROR without running. With a
                   limit, a case of more than 2^36 invocations is an ERROR before it dispatches.
  --opt            run the spirv-opt output instead of glslang's
  --translate      run every shipped kernel as wgslvk's WGSL front end translates its WGSL entry
                   point, instead of its hand-written GLSL port: same cases, bounds and checks
                   (native variants, which have no WGSL entry point, keep their port). A kernel
                   the front end cannot translate is an ERROR
  --json           print the report as JSON instead of the table
  --verbose        one line per case as it finishes (on a terminal, without it, one status line
                   on stderr counts the cases checked and names the last kernel)

Reading the table: "worst error / bound" is, over the kernel's checked float outputs, the largest
distance between the device's value and the double-precision reference (rounded to f32), in ULP
(units in the last place of f32), and the bound it was checked against; "exact" where every
output is compared bit for bit. An output prone to cancellation (a small difference of large
terms, e.g. AdamW's updated weight) is bounded in ULP of a named magnitude instead of its own
value: error = |got - expected| / ulp(max(|expected|, magnitude)), where the magnitude is a
second array the case stores (for AdamW's w: max(|w_old|, |w_new|)), so rounding noise of the
large terms is not counted as hundreds of ULP of a tiny result. Each check's reason in case.json
(golden/README.md) names the magnitude and says why.

Ports not built into wgslvk (validate a kernel you are porting, against cases from elsewhere):
)" + std::string(kPortOptionsUsage);

std::string fmt_ulp(double v) {
  if (!std::isfinite(v)) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, v == std::floor(v) && v < 1e7 ? "%.0f" : "%.3g", v);
  return b;
}

int run_validate(const std::vector<std::string>& args);
const Command kValidate{"validate", "check every kernel against its golden cases on a device",
                        kUsage, run_validate};

// A bad command line (exit 2), as opposed to a failed case (1) or a failure to start (3).
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

template <class T>
T parse_number(const std::string& flag, const std::string& v) {
  T x{};
  auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size())
    throw UsageError(flag + ": '" + validate::bounded(validate::utf8_safe(v), 60) + "' is not a " +
                     (std::is_floating_point_v<T> ? "number" : "non-negative integer below 2^64"));
  return x;
}

int run_validate_or_throw(const std::vector<std::string>& args, bool& json);

int run_validate(const std::vector<std::string>& args) {
  bool json = false;
  auto fail = [&](int code, const std::string& msg) {
    std::string m = validate::utf8_safe(msg);
    std::fprintf(stderr, "wgslvk validate: error: %s\n", m.c_str());
    if (json) {
      validate::ojson j;
      j["ok"] = false;
      j["error"] = m;
      j["exit_code"] = code;
      std::printf("%s\n", j.dump(2, ' ', false, validate::ojson::error_handler_t::replace).c_str());
    }
    return code;
  };
  try {
    return run_validate_or_throw(args, json);
  } catch (const UsageError& e) {
    return fail(2, std::string(e.what()) + " (see --help)");
  } catch (const validate::CaseError& e) {
    return fail(2, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(2, e.what());
  } catch (const std::exception& e) { return fail(3, e.what()); }
}

int run_validate_or_throw(const std::vector<std::string>& args, bool& json) {
  for (const auto& a : args) json |= a == "--json";
  if (wants_help(args, kValidate)) return 0;
  validate::ValidateOptions opt;
  bool verbose = false, translate = false;
  PortOptions ports;
  for (size_t i = 0; i < args.size(); ++i) {
    if (take_port_option(args, i, ports)) continue;
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--device")
      opt.device = value();
    else if (a == "--kernel")
      opt.kernels.push_back(value());
    else if (a == "--cases")
      opt.cases = value();
    else if (a == "--seed")
      opt.seed = parse_number<uint64_t>(a, value());
    else if (a == "--timeout") {
      opt.timeout_s = parse_number<double>(a, value());
      if (!(opt.timeout_s >= 0 && opt.timeout_s <= 1e9))
        throw UsageError("--timeout: give seconds, 0 to 1e9 (0: no limit)");
    } else if (a == "--no-random")
      opt.randomized = false;
    else if (a == "--dump")
      opt.dump = value();
    else if (a == "--opt")
      opt.run.optimized_spirv = true;
    else if (a == "--translate")
      translate = true;
    else if (a == "--json")
      json = true;
    else if (a == "--verbose" || a == "-v")
      verbose = true;
    else
      throw UsageError("unknown option '" + validate::bounded(validate::utf8_safe(a), 60) + "'");
  }
  load_ports(ports);
  for (const auto& k : opt.kernels) {
    bool any = false;
    for (const KernelInfo* ki : all_kernels())
      any |= validate::kernel_matches({k}, ki->qualified_name());
    if (!any) (void)kernel(k);  // throws, listing the known kernels
  }
  // --translate: each shipped kernel's WGSL through the front end replaces its hand port.
  std::vector<std::string> translate_errors;
  size_t translated = 0;
  if (translate) {
    for (const KernelInfo* k : embedded_kernels()) {
      if (!k->in_wgsl) continue;
      // The front end does not translate chromium_experimental_subgroup_matrix (issue 24): such a
      // kernel keeps its hand port.
      if (kernel_uses_subgroup_matrix(*k)) continue;
      if (!opt.kernels.empty() && !validate::kernel_matches(opt.kernels, k->qualified_name()))
        continue;
      try {
        replace_kernel(&translator::translate_shipped(*k));
        ++translated;
      } catch (const std::exception& e) {
        translate_errors.push_back(k->qualified_name() + ": " + e.what());
      }
    }
    if (!json) {
      std::printf("translate: %zu shipped kernels run as the WGSL front end translates them",
                  translated);
      if (!translate_errors.empty())
        std::printf("; %zu could not be translated (ERROR)", translate_errors.size());
      std::printf("\n");
      for (const auto& e : translate_errors) std::printf("  ERROR %s\n", e.c_str());
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  validate::Validator v(opt);
  if (!json) {
    std::printf("device: %s\n", v.device_description().c_str());
    std::printf("cases:  %s%s\n",
                (opt.cases ? opt.cases->string() : validate::golden_dir().string()).c_str(),
                opt.randomized && !opt.cases ? " + a randomized check per kernel" : "");
    std::fflush(stdout);
  }
  // On a terminal, one status line on stderr while the cases run (a full run takes a minute or
  // more on lavapipe, and printed nothing until the table).
  const bool status_line = !json && !verbose && isatty(STDERR_FILENO);
  size_t cases_done = 0, cases_bad = 0;
  auto rep = v.run([&](const validate::CaseResult& r) {
    ++cases_done;
    cases_bad += r.status == validate::CaseResult::Status::Fail ||
                 r.status == validate::CaseResult::Status::Error;
    if (status_line) {
      std::fprintf(stderr, "\r\033[K%zu cases checked%s, last: %s", cases_done,
                   cases_bad ? (" (" + std::to_string(cases_bad) + " FAIL/ERROR)").c_str() : "",
                   validate::bounded(r.kernel, 60).c_str());
      std::fflush(stderr);
    }
    if (verbose && !json) {
      std::printf("  %-5s %s%s%s\n", std::string(validate::status_name(r.status)).c_str(),
                  r.id.c_str(),
                  r.device_ms ? (" " + std::to_string(*r.device_ms) + " ms").c_str() : "",
                  r.message.empty() ? "" : (": " + r.message).c_str());
      std::fflush(stdout);
    }
  });
  if (status_line && cases_done) std::fprintf(stderr, "\r\033[K");
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // After a time-out the device is abandoned with a dispatch in flight: print, then leave without
  // tearing the device down (no destructors: they would wait for that dispatch, or crash).
  auto finish = [&](int code) {
    if (rep.device_abandoned) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(code);
    }
    return code;
  };
  if (json) {
    auto j = validate::report_json(rep);
    j["wall_s"] = wall;
    const bool ok = rep.ok() && translate_errors.empty();
    if (translate) {
      j["translated_kernels"] = translated;
      j["translate_errors"] = translate_errors;
      j["ok"] = ok;
    }
    j["exit_code"] = ok ? 0 : 1;
    // Non-UTF-8 bytes (a case folder's name) never lose the report: they are replaced.
    std::printf("%s\n", j.dump(2, ' ', false, validate::ojson::error_handler_t::replace).c_str());
    return finish(ok ? 0 : 1);
  }
  if (opt.randomized && !opt.cases)
    std::printf("randomized check seed %llu (--seed %llu replays it)\n",
                (unsigned long long)rep.seed, (unsigned long long)rep.seed);
  std::printf("\n%-42s %6s  %-24s %12s  %s\n", "kernel", "cases", "worst error / bound",
              "device time", "result");
  for (const auto& r : rep.rows) {
    std::string err = r.status == "SKIP" ? "-"
                      : r.any_ulp ? fmt_ulp(r.worst_ulp) + " / " + fmt_ulp(r.worst_bound) + " ULP"
                                  : "exact";
    char t[32] = "-";
    if (r.timed) std::snprintf(t, sizeof t, "%.3f ms", r.device_ms);
    std::printf("%-42s %6d  %-24s %12s  %s\n", r.kernel.c_str(), r.cases, err.c_str(), t,
                r.status.c_str());
    for (const auto& m : r.messages) std::printf("    %s\n", m.c_str());
  }
  for (const auto& u : rep.uncovered) std::printf("note: %s has no golden case\n", u.c_str());
  for (const auto& m : rep.layer_messages) std::printf("validation layer: %s\n", m.c_str());
  if (opt.dump) std::printf("outputs written under %s\n", opt.dump->string().c_str());
  if (!translate_errors.empty())
    std::printf("\nFAIL: %zu shipped kernels could not be translated from their WGSL (above)",
                translate_errors.size());
  std::printf("\n%s (%.1f s)\n", rep.verdict().c_str(), wall);
  return finish(rep.ok() && translate_errors.empty() ? 0 : 1);
}

}  // namespace
}  // namespace wgslvk::cli
