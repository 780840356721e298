// The benchmark library: device-timestamp timing, the copy roofline measured in the same run,
// result rows, and the registry of the families' sweeps. `wgslvk bench` (cli/bench.cpp) parses
// the options, makes a Ctx and runs every registered section; each family's sweeps live in its own
// folder (wgsl_ports/<family>/bench.cpp):
//
//   void bench_matmul(wgslvk::bench::Ctx& c) {
//     for (auto s : shapes(c))
//       if (c.selected("matmul", "matmul_naive"))
//         wgslvk::bench::time_case(c, make_case(s), {.kernel = "matmul_naive", .label = ...,
//                                                    .bytes = ..., .flops = ...});
//   }
//   WGSLVK_REGISTER_BENCH("matmul", bench_matmul);
//
// Nothing here names a kernel family.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "wgslvk/bench/stats.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::validate {
struct Case;
}

namespace wgslvk::bench {

using json = nlohmann::json;

struct Options {
  std::optional<std::string> device;
  bool quick = false;  // small sizes, few repeats (lavapipe / CI smoke; numbers meaningless)
  int reps = 25, warmup = 3;
  double warm_ms = 200;        // minimum busy warm-up per measurement
  std::set<std::string> only;  // groups (family names, or a section's own group names) or kernels
  std::string json_path, png_path, dump_dir;
  uint64_t max_elems = 0;        // cap on element-count sweeps (0: none)
  bool optimized_spirv = false;  // --opt
};

struct CopyResult {
  Stats t;
  uint64_t bytes = 0;  // traffic actually copied (read + write)
  double gbps() const { return t.median > 0 ? double(bytes) / (t.median * 1e-3) / 1e9 : 0; }
};

struct Row {
  std::string group;   // the family ("matmul"); filled by time_case / Ctx::add_row when empty
  std::string kernel;  // entry point or row name
  std::string label;   // the size ("2048x2048x2048", "n=16M")
  json dims = json::object();
  uint64_t bytes = 0;      // minimum bytes through device memory (GB/s and % of copy)
  std::string bytes_rule;  // how `bytes` was counted
  double flops = 0;        // useful floating-point operations (TFLOP/s), 0 when not meaningful
  Stats t;
  CopyResult copy;  // the copy roofline over the same bytes, same run
  // The same repeats back to back, no copy between them: how Dawn's replay (and most GPU
  // benchmarks) time a kernel. Inputs that fit in L2 can stay there from the previous repeat, so
  // this is the like-for-like number against bench/peers/dawn_cases.mjs; `t` is the honest
  // streaming number. time_case rows only (n == 0 elsewhere).
  Stats back_to_back;
  // time_case: the case's in-place buffers (initial contents, bound writable) were restored
  // before every repeat, outside the timed pass (bench/src/time_case.cpp says why).
  bool restored_state = false;
  std::string check;    // "ok ..." or why the output was wrong (then not timed)
  std::string case_id;  // time_case: the timed case's id ("optimizer/adamw_update/sweep_n65536"),
                        // its folder under --dump (bench/peers/dawn_cases.mjs reports by it)
  bool plot = true;     // false: JSON and table only
  double gbps() const { return t.median > 0 ? double(bytes) / (t.median * 1e-3) / 1e9 : 0; }
  double share() const { return copy.gbps() > 0 ? gbps() / copy.gbps() : 0; }
  double tflops() const { return t.median > 0 ? flops / (t.median * 1e-3) / 1e12 : 0; }
};

using Recorder = std::function<void(ComputePass&)>;

class Ctx {
 public:
  Ctx(Options options, Device device);
  ~Ctx();
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;

  Device& device() { return dev_; }
  const Options& options() const { return opt_; }
  bool quick() const { return opt_.quick; }
  // Whether one binding of `bytes` fits maxStorageBufferBindingSize and maxBufferSize.
  bool fits_binding(uint64_t bytes) const {
    return bytes <= dev_.limits().max_storage_buffer_binding_size &&
           bytes <= dev_.limits().max_buffer_size;
  }
  // Whether --only selects this row (its group or its kernel name; no --only: everything).
  bool selected(std::string_view group, std::string_view name) const;
  // A pipeline for an embedded kernel, honouring --opt.
  ComputePipeline pipeline(const KernelInfo& k);
  ComputePipeline pipeline(std::string_view qualified_name);  // "matmul/matmul_naive"

  // Times `rec` (one compute pass per repeat, pass timestamps) alternating with the copy roofline
  // over `bytes` in one submission after a busy warm-up; medians of both. With `back_to_back`, the
  // same submission then times `rec`'s repeats consecutively (Row::back_to_back).
  std::pair<Stats, CopyResult> time_pair(const Recorder& rec, uint64_t bytes,
                                         Stats* back_to_back = nullptr);
  // The same for work that records its own passes (a host API's step): `rec` records one repeat
  // into the encoder and puts `ts` (when set) on the pass that spans it (begin and end indices).
  using EncoderRecorder =
      std::function<void(CommandEncoder&, std::optional<PassTimestampWrites> ts)>;
  std::pair<Stats, CopyResult> time_pair_encoder(const EncoderRecorder& rec, uint64_t bytes,
                                                 Stats* back_to_back = nullptr);
  // Times `rec` alone (same warm-up and repeats).
  Stats time(const Recorder& rec);
  // Warm-up alone: untimed repeats until --warmup of them ran and --warm-ms passed.
  void warm_up(const std::function<void(CommandEncoder&)>& record_one);

  // Prints the row and keeps it for the JSON and the PNG.
  Row& add_row(Row r);
  const std::vector<Row>& rows() const { return rows_; }
  json& out() { return out_; }
  void note(std::string n);
  const std::vector<std::string>& notes() const { return notes_; }
  std::string current_group;  // set by the section runner

 private:
  struct Roofline;
  Options opt_;
  Device dev_;
  json out_ = json::object();
  std::vector<Row> rows_;
  std::vector<std::string> notes_;
  PipelineCache pipelines_;
  std::unique_ptr<Roofline> roof_;
};

// The perf mode of the case runner (validate::Runner): builds the case's buffers and pipelines,
// runs it once and compares every check exactly as `wgslvk validate` does (the same references,
// the same bounds); a failing case becomes a row whose `check` says why, not timed. Then times
// the case's dispatches (all of them, one pass each, per repeat) paired with the copy roofline
// over row.bytes. Adds the row and returns it.
Row& time_case(Ctx& c, const validate::Case& kase, Row row);

// `wgslvk bench --cases DIR`: every case folder under `root` (untrusted input), with validate's
// limits: a case that does not load or fails is its own ERROR/FAIL row and the others still run;
// the check runs under validate's invocation budget and `timeout_s` (0: none), past which the
// device is abandoned and later cases are rows "not run". Returns true when the device was
// abandoned: the caller must then leave without destroying it (std::_Exit after its report),
// as a dispatch may still be in flight. Throws validate::CaseError when `root` holds no case.
bool time_case_folders(Ctx& c, const std::filesystem::path& root, double timeout_s);

// A section: one family's sweeps (or a cross-cutting one, like a whole optimizer step).
using Section = void (*)(Ctx&);
bool add_section(const char* group, Section fn, const char* source);
struct SectionInfo {
  std::string group, source;
  Section fn;
};
const std::vector<SectionInfo>& sections();  // sorted by group
#define WGSLVK_REGISTER_BENCH(group, fn)                        \
  [[maybe_unused]] static const bool wgslvk_bench_registered_ = \
      ::wgslvk::bench::add_section(group, fn, __FILE__)

// Byte-count helpers shared by sections.
std::string human_count(uint64_t n);  // 16777216 -> "16M"

}  // namespace wgslvk::bench
