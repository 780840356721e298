// The perf mode of the case runner: one correctness source for `validate` and `bench`.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernel.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/output_file.hpp"
#include "wgslvk/validate/runner.hpp"
#include "wgslvk/validate/untrusted.hpp"
#include "wgslvk/validate/validate.hpp"

namespace wgslvk::bench {

namespace {
// A folder name from a row label ("qkv fwd 4096x2304x768" -> "qkv_fwd_4096x2304x768").
std::string folder_name(const std::string& s) {
  std::string out;
  for (char ch : s)
    out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') ? ch : '_';
  return out.empty() ? "case" : out;
}

// The case's in-place state: buffers with initial contents (not a poisoned output) that a
// dispatch binds writable (optimizer state, accumulated gradients).
std::vector<std::string> in_place_buffers(const validate::Case& c) {
  std::vector<std::string> out;
  for (const auto& b : c.buffers) {
    if (b.kind == validate::BufferSpec::Kind::Fill && b.poison) continue;
    bool written = false;
    for (const auto& d : c.dispatches) {
      const KernelInfo* k = find_kernel(d.kernel);
      if (!k) continue;
      for (const auto& bs : d.bindings)
        for (const auto& kb : k->bindings)
          written |= !bs.is_inline && bs.buffer == b.name && kb.group == bs.group &&
                     kb.binding == bs.binding && kb.type == BindingType::Storage;
    }
    if (written) out.push_back(b.name);
  }
  return out;
}
}  // namespace

namespace {
// A case checked once, ready to time: the first half of time_case, device work only (no Ctx
// state), so `bench --cases` can run it on a worker thread under a time limit.
struct Checked {
  Device device;  // the Runner refers to it: it lives as long as the job
  validate::Case kase;
  std::unique_ptr<validate::Runner> runner;
  validate::PreparedCase p;
  std::vector<std::pair<Buffer, Buffer>> restore;  // {pristine, working}
  validate::CaseResult r;
  std::string skip;  // why the case cannot run on this device
};

// Names the case for its row, prepares it, keeps its in-place state and runs the check once.
void check_case(Checked& ck, const Options& opt, uint64_t max_invocations) {
  validate::RunOptions ro;
  ro.timestamps = false;
  ro.optimized_spirv = opt.optimized_spirv;
  ro.max_invocations = max_invocations;
  ck.runner = std::make_unique<validate::Runner>(ck.device, ro);
  validate::Runner& runner = *ck.runner;
  const validate::Case& kase = ck.kase;
  if (std::string why = runner.case_unsupported_reason(kase); !why.empty()) {
    ck.skip = why;
    return;
  }
  ck.p = runner.prepare(kase);
  // Every repeat (warm-up and timed) starts from the case's own in-place state, restored by a
  // copy before its pass, outside the timestamps: a repeated in-place kernel otherwise times a
  // drifted state. The 8-bit AdamW update zeroes g, and a few hundred warm-up repeats later its
  // moments have decayed into a faster path: 92% of copy at 16-32M elements (short repeats,
  // many warm-up runs) against 69% at 128M, which the same kernel shows on restored state
  // (H200, 2026-11-26, bench/results/h200-2026-11-26).
  CommandEncoder enc = ck.device.create_command_encoder({"bench pristine state"});
  for (const std::string& name : in_place_buffers(kase)) {
    const Buffer& work = ck.p.buffers.at(name);
    Buffer keep = ck.device.create_buffer({kase.id() + "." + name + ".pristine", work.size(),
                                           BufferUsage::CopySrc | BufferUsage::CopyDst});
    enc.copy_buffer_to_buffer(work, 0, keep, 0, work.size());
    ck.restore.emplace_back(keep, work);
  }
  ck.device.queue().submit(enc.finish());
  ck.r = runner.execute(kase, ck.p);
}

// The second half: the dump, the row's check, the timing; adds the row.
Row& finish_case(Ctx& c, Checked& ck, Row row) {
  const validate::Case& kase = ck.kase;
  validate::CaseResult& r = ck.r;
  if (!ck.skip.empty()) {
    row.check = "SKIP: " + ck.skip;
    return c.add_row(std::move(row));
  }
  if (!c.options().dump_dir.empty()) {
    // The case and what we computed, for replaying elsewhere (wgslvk validate --cases, Dawn).
    std::filesystem::path dir =
        std::filesystem::path(c.options().dump_dir) / kase.kernel / kase.name;
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : validate::serialize_case(kase))
      write_output_file((dir / name).string(), bytes);
    // Our outputs up to the last checked element of each buffer: what a replay compares bit for
    // bit (dawn_cases.mjs compares that prefix), not the whole of a multi-GB sweep buffer.
    validate::CaseResult dumped = r;
    for (auto& [name, arr] : dumped.outputs) {
      uint64_t end = 0;
      for (const auto& k : kase.checks)
        if (k.buffer == name) end = std::max(end, k.range_end());
      if (end >= arr.count()) continue;
      arr.bytes.resize(end * validate::dtype_size(arr.dtype));
      arr.shape = {end};
    }
    validate::dump_result(std::filesystem::path(c.options().dump_dir) / "actual", kase, dumped);
  }
  if (r.status != validate::CaseResult::Status::Pass) {
    row.check = std::string(validate::status_name(r.status)) + ": " + r.message;
    return c.add_row(std::move(row));
  }
  double worst = r.worst_ulp();
  char buf[64];
  std::snprintf(buf, sizeof buf, "ok (worst %.3g ULP)", worst);
  row.check = buf;
  const validate::PreparedCase& p = ck.p;
  auto [t, copy] = c.time_pair_encoder(
      [&](CommandEncoder& enc, std::optional<PassTimestampWrites> ts) {
        for (const auto& [keep, work] : ck.restore)
          enc.copy_buffer_to_buffer(keep, 0, work, 0, work.size());
        ComputePass pass = enc.begin_compute_pass({"bench", ts});
        for (size_t i = 0; i < p.dispatches.size(); ++i) p.record(pass, i);
        pass.end();
      },
      row.bytes, &row.back_to_back);
  if (!ck.restore.empty()) row.restored_state = true;
  row.t = t;
  row.copy = copy;
  return c.add_row(std::move(row));
}

// Every timed case gets a unique id (its dump folder, its results): families may leave the
// kernel or the name empty for sweep cases.
validate::Case named_case(const validate::Case& in, Row& row) {
  validate::Case kase = in;
  if (kase.kernel.empty()) kase.kernel = row.group + "/" + row.kernel;
  if (kase.name.empty()) kase.name = folder_name(row.label);
  row.case_id = kase.id();
  return kase;
}
}  // namespace

Row& time_case(Ctx& c, const validate::Case& in, Row row) {
  if (row.group.empty()) row.group = c.current_group;
  Checked ck;
  ck.device = c.device();
  ck.kase = named_case(in, row);
  check_case(ck, c.options(), 0);
  return finish_case(c, ck, std::move(row));
}

bool time_case_folders(Ctx& c, const std::filesystem::path& root, double timeout_s) {
  std::vector<std::filesystem::path> dirs = validate::find_cases(root);
  if (dirs.empty()) throw validate::CaseError("no case.json found under " + root.string());
  const uint64_t budget = timeout_s > 0 ? validate::kDefaultMaxInvocations : 0;
  std::string abandoned_by;
  for (const auto& dir : dirs) {
    Row row;
    row.group = "cases";
    row.bytes_rule = "sum of the case's buffer sizes";
    row.kernel = validate::escape_controls(
        validate::utf8_safe(dir.parent_path().lexically_relative(root).generic_string()));
    row.label = validate::escape_controls(validate::utf8_safe(dir.filename().string()));
    auto error_row = [&](const std::string& m) {
      row.check =
          "ERROR: " + validate::escape_controls(validate::utf8_safe(validate::bounded(m, 4000)));
      c.add_row(row);
    };
    if (!abandoned_by.empty()) {
      error_row("not run: the device was abandoned after case " + abandoned_by +
                " ran past the time limit");
      continue;
    }
    // A bad case is that case's error row; the others still run (one once aborted the run).
    auto job = std::make_shared<Checked>();
    job->device = c.device();
    try {
      validate::Case kase = validate::load_case(dir);
      row.kernel = validate::escape_controls(kase.kernel);
      row.label = validate::escape_controls(kase.name);
      for (const auto& b : kase.buffers) row.bytes += b.byte_size();
      job->kase = named_case(kase, row);
    } catch (const std::exception& e) {
      error_row(e.what());
      continue;
    }
    // The check runs on a worker under the time limit, as in validate (a spinning port or a
    // dispatch of 2^32 workgroups once hung the bench); the timing follows on this thread.
    struct Done {
      std::mutex m;
      std::condition_variable cv;
      bool done = false;
      std::string error;
    };
    auto done = std::make_shared<Done>();
    const Options opt = c.options();
    std::thread worker([job, done, opt, budget] {
      std::string err;
      try {
        check_case(*job, opt, budget);
      } catch (const std::bad_alloc&) {
        err = "out of host memory while preparing or checking the case";
      } catch (const std::exception& e) { err = e.what(); }
      std::lock_guard lk(done->m);
      done->error = err;
      done->done = true;
      done->cv.notify_all();
    });
    std::unique_lock lk(done->m);
    const bool finished = timeout_s <= 0
                              ? (done->cv.wait(lk, [&] { return done->done; }), true)
                              : done->cv.wait_for(lk, std::chrono::duration<double>(timeout_s),
                                                  [&] { return done->done; });
    lk.unlock();
    if (!finished) {
      worker.detach();  // its dispatch cannot be interrupted: the device is abandoned
      abandoned_by = job->kase.id();
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", timeout_s);
      error_row("ran past the time limit of " + std::string(buf) +
                " s (wgslvk bench --timeout S; 0 for none); a dispatch in flight cannot be "
                "interrupted safely, so the device was abandoned and later cases are not run");
      continue;
    }
    worker.join();
    if (!done->error.empty()) {
      error_row(done->error);
      continue;
    }
    try {
      finish_case(c, *job, row);
    } catch (const std::exception& e) { error_row(e.what()); }
  }
  return !abandoned_by.empty();
}

}  // namespace wgslvk::bench
