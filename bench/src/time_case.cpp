// The perf mode of the case runner: one correctness source for `validate` and `bench`.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "wgslvk/bench/bench.hpp"
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
  auto [t, copy] = c.time_pair(
      [&](ComputePass& pass) {
        for (size_t i = 0; i < p.dispatches.size(); ++i) p.record(pass, i);
      },
      row.bytes, &row.back_to_back);
  row.t = t;
  row.copy = copy;
  return c.add_row(std::move(row));
}

}  // namespace wgslvk::bench
