// The generic case runner: builds the buffers of a Case, records its dispatches in order against
// each kernel's reflected layout (KernelInfo), runs them, and compares every checked output.
// Nothing in here knows any particular kernel.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/compare.hpp"

namespace wgslvk::validate {

struct CaseResult {
  enum class Status { Pass, Fail, Skip, Error };
  std::string id;      // "optimizer/adamw_update/step1_bias_correction"
  std::string kernel;  // the kernel the case is filed under
  std::string source;  // the folder, or "randomized (seed N)"
  Status status = Status::Error;
  std::string message;  // Skip: the reason; Error: what was wrong; Fail: the first failure
  std::vector<CheckResult> checks;
  std::optional<double> device_ms;  // sum over dispatches, from timestamp queries
  // Actual contents of every checked buffer, typed as its first check's expected array.
  std::map<std::string, Array> outputs;
  double worst_ulp() const;  // over the ulp checks (exact mismatch: inf)
};
std::string_view status_name(CaseResult::Status s);  // "PASS", "FAIL", "SKIP", "ERROR"

// The stated budget of one case's buffers (golden/README.md, "Untrusted input"): 8 GiB.
inline constexpr uint64_t kDefaultMaxCaseBufferBytes = uint64_t(8) << 30;

struct RunOptions {
  bool timestamps = true;        // time dispatches when the device has timestamp-query
  bool optimized_spirv = false;  // run the spirv-opt output instead of glslang's
  // Invocations (workgroups x workgroup size, over all dispatches) a case may run; 0: no budget.
  // Checked in prepare(), before anything is dispatched (wgslvk validate sets it with --timeout).
  uint64_t max_invocations = 0;
  // Bytes the case's buffers may declare in all, checked in prepare() before any buffer is
  // created or generated (issue 26: 400 buffers of 256 MiB were allocated until memory ran out);
  // 0: no budget. The default is kDefaultMaxCaseBufferBytes.
  uint64_t max_buffer_bytes = kDefaultMaxCaseBufferBytes;
};

// A case ready to record: its buffers created and filled, each dispatch's pipeline, bind groups
// and workgroup counts resolved. run() records it once and compares; the bench's perf mode
// (wgslvk::bench::time_case) records it repeatedly under timestamps.
struct PreparedCase {
  // Each dispatch's label is the case's label for it, else the kernel's qualified name.
  std::vector<Dispatch> dispatches;
  std::map<std::string, Buffer> buffers;  // the case's named buffers
  std::vector<Buffer> inline_buffers;     // made for inline bindings
  // Records dispatch i (pipeline, groups, dispatch) into an open pass.
  void record(ComputePass& pass, size_t i) const;
};

class Runner {
 public:
  explicit Runner(Device& device, RunOptions options = {});
  // Never throws for a bad case or a validation error: they come back as Status::Error with a
  // message naming the case, the dispatch, the kernel and the binding.
  CaseResult run(const Case& c);
  // Why `kernel` cannot run on this device ("needs shader-f16, which '<device>' lacks"), or empty.
  std::string unsupported_reason(const KernelInfo& kernel) const;
  // Why the case cannot run on this device (a kernel's missing feature), or empty. Throws
  // CaseError for an unknown kernel.
  std::string case_unsupported_reason(const Case& c) const;
  // Builds the case's buffers, pipelines and bind groups. Throws CaseError naming the case, the
  // dispatch, the kernel and the binding.
  PreparedCase prepare(const Case& c);
  // Runs a prepared case once (one pass per dispatch, timed when asked) and compares every check.
  CaseResult execute(const Case& c, const PreparedCase& p);

 private:
  CaseResult run_or_throw(const Case& c);
  Device& device_;
  RunOptions options_;
  PipelineCache pipelines_;
};

// Writes the actual outputs of a result as <dir>/<case id>/<buffer>.actual.npy (and copies of
// the expected arrays beside them, when the case has them in memory). Writes only inside `dir`:
// throws CaseError, writing nothing, when a part of the id or a file name is not one path
// component or the folder resolves outside `dir`; never writes through a symlinked file.
void dump_result(const std::filesystem::path& dir, const Case& c, const CaseResult& r);

}  // namespace wgslvk::validate
