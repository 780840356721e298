// The perf mode of the case runner: one correctness source for `validate` and `bench`.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernel.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/runner.hpp"

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

Row& time_case(Ctx& c, const validate::Case& in, Row row) {
  if (row.group.empty()) row.group = c.current_group;
  // Every timed case gets a unique id (its dump folder, its results): families may leave the
  // kernel or the name empty for sweep cases.
  validate::Case kase = in;
  if (kase.kernel.empty()) kase.kernel = row.group + "/" + row.kernel;
  if (kase.name.empty()) kase.name = folder_name(row.label);
  row.case_id = kase.id();
  validate::RunOptions ro;
  ro.timestamps = false;
  ro.optimized_spirv = c.options().optimized_spirv;
  validate::Runner runner(c.device(), ro);
  if (std::string why = runner.case_unsupported_reason(kase); !why.empty()) {
    row.check = "SKIP: " + why;
    return c.add_row(std::move(row));
  }
  validate::PreparedCase p = runner.prepare(kase);
  // Every repeat (warm-up and timed) starts from the case's own in-place state, restored by a
  // copy before its pass, outside the timestamps: a repeated in-place kernel otherwise times a
  // drifted state. The 8-bit AdamW update zeroes g, and a few hundred warm-up repeats later its
  // moments have decayed into a faster path: 92% of copy at 16-32M elements (short repeats,
  // many warm-up runs) against 69% at 128M, which the same kernel shows on restored state
  // (H200, 2026-11-26, bench/results/h200-2026-11-26).
  std::vector<std::pair<Buffer, Buffer>> restore;  // {pristine, working}
  {
    CommandEncoder enc = c.device().create_command_encoder({"bench pristine state"});
    for (const std::string& name : in_place_buffers(kase)) {
      const Buffer& work = p.buffers.at(name);
      Buffer keep = c.device().create_buffer({kase.id() + "." + name + ".pristine", work.size(),
                                              BufferUsage::CopySrc | BufferUsage::CopyDst});
      enc.copy_buffer_to_buffer(work, 0, keep, 0, work.size());
      restore.emplace_back(keep, work);
    }
    c.device().queue().submit(enc.finish());
  }
  validate::CaseResult r = runner.execute(kase, p);
  if (!c.options().dump_dir.empty()) {
    // The case and what we computed, for replaying elsewhere (wgslvk validate --cases, Dawn).
    std::filesystem::path dir =
        std::filesystem::path(c.options().dump_dir) / kase.kernel / kase.name;
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : validate::serialize_case(kase)) {
      std::ofstream f(dir / name, std::ios::binary);
      f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
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
  auto [t, copy] = c.time_pair_encoder(
      [&](CommandEncoder& enc, std::optional<PassTimestampWrites> ts) {
        for (const auto& [keep, work] : restore)
          enc.copy_buffer_to_buffer(keep, 0, work, 0, work.size());
        ComputePass pass = enc.begin_compute_pass({"bench", ts});
        for (size_t i = 0; i < p.dispatches.size(); ++i) p.record(pass, i);
        pass.end();
      },
      row.bytes, &row.back_to_back);
  if (!restore.empty()) row.restored_state = true;
  row.t = t;
  row.copy = copy;
  return c.add_row(std::move(row));
}

}  // namespace wgslvk::bench
