// `wgslvk validate` as a library: every golden case (or the cases of --cases DIR) and a
// randomized check per kernel on one device, summarized per kernel.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wgslvk/validate/runner.hpp"

namespace wgslvk::validate {

struct ValidateOptions {
  std::optional<std::string> device;  // index or name substring (Instance::select_adapter)
  std::vector<std::string>
      kernels;  // filters: "optimizer/adamw_update", "adamw_update", "optimizer"
  std::optional<std::filesystem::path> cases;  // case folders to run instead of golden/
  bool randomized = true;                      // the per-kernel randomized check (off with --cases)
  std::optional<uint64_t> seed;                // of the randomized check (default: fresh)
  std::optional<std::filesystem::path> dump;   // write actual outputs here
  // Per-case time limit in seconds (0: none). A case still running then is reported ERROR; a
  // dispatch in flight cannot be interrupted safely, so the device is abandoned: the remaining
  // cases are reported ERROR "not run" and ValidateReport::device_abandoned is set (the CLI then
  // exits without tearing the device down). With a limit, run.max_invocations defaults to
  // kDefaultMaxInvocations, refusing absurd dispatches before they start.
  double timeout_s = 120;
  RunOptions run;
};
// 2^36 invocations per case: ~1 minute of trivial work on a large GPU, far more than any golden
// case (the largest runs ~2^24); a case past it is ERROR before any dispatch.
inline constexpr uint64_t kDefaultMaxInvocations = uint64_t(1) << 36;

struct KernelRow {
  std::string kernel;
  int cases = 0, passed = 0, failed = 0, skipped = 0, errors = 0;
  bool any_ulp = false;
  double worst_ulp = 0, worst_bound = 0;  // the ulp check closest to (or furthest past) its bound
  double device_ms = 0;
  bool timed = false;
  std::string status;                 // PASS, FAIL, SKIP
  std::vector<std::string> messages;  // one per failed / errored / skipped case
};

struct ValidateReport {
  std::string device, driver;
  bool validation_layer = false;
  uint64_t seed = 0;
  std::vector<KernelRow> rows;
  std::vector<CaseResult> results;
  std::vector<std::string> uncovered;  // ported kernels with no case
  std::vector<std::string> layer_messages;
  bool device_abandoned = false;  // a case ran past the time limit (see ValidateOptions::timeout_s)
  bool ok() const;
  std::string verdict() const;  // "PASS: 8 kernels, 31 cases on llvmpipe (...)"
};

bool kernel_matches(const std::vector<std::string>& filters, const std::string& qualified);

class Validator {
 public:
  // Opens the device (prints nothing); throws if the selector matches no adapter.
  explicit Validator(ValidateOptions options);
  ~Validator();  // leaks the device on purpose after device_abandoned (a thread still uses it)
  const std::string& device_name() const;
  std::string device_description() const;  // name, type, driver, features
  // Runs everything; `progress` sees each case result as it finishes. Every case found ends
  // PASS, FAIL, SKIP or ERROR. Throws CaseError only when there is nothing to run: the --cases
  // folder does not exist or holds no case.json ("no case.json found under DIR").
  ValidateReport run(const std::function<void(const CaseResult&)>& progress = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

nlohmann::ordered_json report_json(const ValidateReport& r);

}  // namespace wgslvk::validate
