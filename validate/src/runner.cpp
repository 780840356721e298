#include "wgslvk/validate/runner.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <set>
#include <unistd.h>

#include "wgslvk/validate/untrusted.hpp"

namespace wgslvk::validate {

std::string_view status_name(CaseResult::Status s) {
  switch (s) {
    case CaseResult::Status::Pass:
      return "PASS";
    case CaseResult::Status::Fail:
      return "FAIL";
    case CaseResult::Status::Skip:
      return "SKIP";
    default:
      return "ERROR";
  }
}

double CaseResult::worst_ulp() const {
  double w = 0;
  for (const auto& c : checks) w = std::max(w, c.worst_ulp);
  return w;
}

Runner::Runner(Device& device, RunOptions options)
    : device_(device), options_(options), pipelines_(device, options.optimized_spirv) {}

std::string Runner::unsupported_reason(const KernelInfo& k) const {
  if (k.needs_shader_f16 && !device_.has_feature(Feature::ShaderF16))
    return "needs shader-f16, which '" + device_.adapter_name() + "' lacks";
  if (k.needs_float_atomics && !device_.has_feature(Feature::Float32AtomicAdd))
    return "needs float32-atomic-add (VK_EXT_shader_atomic_float), which '" +
           device_.adapter_name() + "' lacks";
  if (kernel_uses_subgroup_matrix(k) && !device_.has_feature(Feature::SubgroupMatrix))
    return "needs chromium-experimental-subgroup-matrix (VK_KHR_cooperative_matrix, a subgroup "
           "16x16x16 f16/f32 configuration), which '" +
           device_.adapter_name() + "' lacks";
  return {};
}

namespace {
std::string binding_list(const KernelInfo& k) {
  std::string s;
  for (const auto& b : k.bindings)
    if (b.statically_used)
      s += (s.empty() ? "" : ", ") + std::to_string(b.group) + ":" + std::to_string(b.binding) +
           " " + std::string(b.name);
  return s;
}
std::string known_kernels() {
  std::string s;
  for (const KernelInfo* k : all_kernels()) s += (s.empty() ? "" : ", ") + k->qualified_name();
  return s;
}
}  // namespace

CaseResult Runner::run(const Case& c) {
  auto error = [&](const std::string& m) {
    CaseResult r;
    r.id = c.id();
    r.kernel = c.kernel;
    r.source = c.dir.string();
    r.status = CaseResult::Status::Error;
    r.message = m;
    return r;
  };
  try {
    return run_or_throw(c);
  } catch (const std::bad_alloc&) {  // a message, not an implementation word
    return error("case " + c.id() + ": out of host memory while preparing or checking the case");
  } catch (const std::exception& e) { return error(e.what()); }
}

std::string Runner::case_unsupported_reason(const Case& c) const {
  for (size_t i = 0; i < c.dispatches.size(); ++i) {
    const KernelInfo* k = find_kernel(c.dispatches[i].kernel);
    if (!k)
      throw CaseError("case " + c.id() + ": dispatches[" + std::to_string(i) +
                      "]: unknown kernel '" + c.dispatches[i].kernel +
                      "' (known: " + known_kernels() + ")");
    if (std::string why = unsupported_reason(*k); !why.empty())
      return k->qualified_name() + " " + why;
  }
  return {};
}

void PreparedCase::record(ComputePass& pass, size_t i) const { dispatches.at(i).record(pass); }

PreparedCase Runner::prepare(const Case& c) {
  const std::string where = "case " + c.id();
  PreparedCase p;
  uint64_t invocations = 0;  // over all dispatches, checked against options_.max_invocations
  // Named buffers, with their initial contents (poison for outputs).
  const BufferUsage usage =
      BufferUsage::Storage | BufferUsage::Uniform | BufferUsage::CopySrc | BufferUsage::CopyDst;
  if (options_.max_buffer_bytes) {  // the declared total first: nothing is allocated past it
    std::optional<uint64_t> total = 0;
    for (const auto& b : c.buffers)
      if (total) total = checked_add(*total, b.byte_size());
    if (!total || *total > options_.max_buffer_bytes)
      throw CaseError(where + ": its " + std::to_string(c.buffers.size()) + " buffers declare " +
                      (total ? std::to_string(*total) : std::string("more than 2^64")) +
                      " bytes in all, more than the " + std::to_string(options_.max_buffer_bytes) +
                      "-byte budget of a case; nothing was allocated");
  }
  for (const auto& b : c.buffers) {
    Buffer buf = device_.create_buffer({c.name + "." + b.name, b.byte_size(), usage});
    auto init = b.initial_bytes();
    device_.queue().write_buffer(buf, 0, init.data(), init.size());
    p.buffers[b.name] = buf;
  }

  for (size_t i = 0; i < c.dispatches.size(); ++i) {
    const DispatchSpec& d = c.dispatches[i];
    const KernelInfo* kp = find_kernel(d.kernel);
    if (!kp)
      throw CaseError(where + ": dispatches[" + std::to_string(i) + "]: unknown kernel '" +
                      d.kernel + "' (known: " + known_kernels() + ")");
    const KernelInfo& k = *kp;
    std::string dwhere = where + ": dispatches[" + std::to_string(i) + "]" +
                         (d.label.empty() ? "" : " '" + d.label + "'") + " (kernel " +
                         k.qualified_name() + ")";
    try {
      const ComputePipeline& pipe = pipelines_.get(k);

      // Bindings against the reflected layout: every statically used binding exactly once.
      std::map<uint32_t, std::vector<BindGroupEntry>> groups;
      std::set<std::pair<uint32_t, uint32_t>> seen;
      for (const auto& b : d.bindings) {
        std::string bn =
            "binding (" + std::to_string(b.group) + ", " + std::to_string(b.binding) + ")";
        const KernelBinding* kb = k.find_binding(b.group, b.binding);
        if (!kb || !kb->statically_used)
          throw CaseError(dwhere + ": " + bn +
                          " is not used by the kernel (its bindings: " + binding_list(k) + ")");
        bn += " '" + std::string(kb->name) + "': " + std::string(kb->wgsl_type);
        if (!seen.insert({b.group, b.binding}).second)
          throw CaseError(dwhere + ": " + bn + " is bound twice");
        BindGroupEntry e;
        e.binding = b.binding;
        if (b.is_inline) {
          uint64_t size = std::max<uint64_t>(b.inline_bytes.size(), kb->min_binding_size);
          size = align_up(size, 16);
          Buffer ib = device_.create_buffer(
              {c.name + "." + std::string(kb->name), size,
               BufferUsage::Uniform | BufferUsage::Storage | BufferUsage::CopyDst});
          std::vector<uint8_t> bytes = b.inline_bytes;
          bytes.resize(size, 0);
          device_.queue().write_buffer(ib, 0, bytes.data(), bytes.size());
          if (b.inline_bytes.size() < kb->min_binding_size)
            throw CaseError(dwhere + ": " + bn + ": inline values are " +
                            std::to_string(b.inline_bytes.size()) +
                            " bytes, the binding needs at least " +
                            std::to_string(kb->min_binding_size));
          p.inline_buffers.push_back(ib);
          e.buffer = ib;
        } else {
          auto it = p.buffers.find(b.buffer);
          if (it == p.buffers.end())
            throw CaseError(dwhere + ": " + bn + ": no buffer '" + b.buffer + "'");
          e.buffer = it->second;
          e.offset = b.offset;
          e.size = b.size;
        }
        groups[b.group].push_back(e);
      }
      for (const auto& kb : k.bindings)
        if (kb.statically_used && !seen.count({kb.group, kb.binding}))
          throw CaseError(dwhere + ": binding (" + std::to_string(kb.group) + ", " +
                          std::to_string(kb.binding) + ") '" + std::string(kb.name) +
                          "': " + std::string(kb.wgsl_type) + " is not bound");

      Dispatch pd;
      pd.label = d.label.empty() ? k.qualified_name() : d.label;
      pd.pipeline = pipe;
      for (auto& [g, entries] : groups) {
        BindGroupDescriptor bd;
        bd.label = c.name + " group " + std::to_string(g);
        bd.layout = pipe.get_bind_group_layout(g);
        bd.entries = entries;
        pd.groups.emplace_back(g, device_.create_bind_group(bd));
      }
      if (d.workgroups) {
        pd.workgroups = *d.workgroups;
      } else {
        Grid grid = grid_for_workgroups(d.workgroups_1d, device_.limits());
        pd.workgroups = {grid.x, grid.y, 1};
      }
      if (options_.max_invocations) {
        // The budget is checked before anything is dispatched: a dispatch of billions of
        // workgroups cannot be interrupted once submitted (golden/README.md, "Untrusted input").
        std::optional<uint64_t> n = 1;
        for (int a = 0; a < 3 && n; ++a) n = checked_mul(*n, pd.workgroups[a]);
        for (int a = 0; a < 3 && n; ++a) n = checked_mul(*n, k.workgroup_size[a]);
        if (n) n = checked_add(invocations, *n);
        if (!n || *n > options_.max_invocations)
          throw CaseError(
              dwhere + ": workgroups [" + std::to_string(pd.workgroups[0]) + ", " +
              std::to_string(pd.workgroups[1]) + ", " + std::to_string(pd.workgroups[2]) + "] of " +
              std::to_string(k.workgroup_size[0] * k.workgroup_size[1] * k.workgroup_size[2]) +
              " invocations bring the case past its budget of " +
              std::to_string(options_.max_invocations) +
              " invocations (wgslvk validate --timeout 0 lifts the budget)");
        invocations = *n;
      }
      p.dispatches.push_back(std::move(pd));
    } catch (const CaseError&) { throw; } catch (const std::exception& e) {
      throw CaseError(dwhere + ": " + e.what());
    }
  }
  return p;
}

CaseResult Runner::run_or_throw(const Case& c) {
  CaseResult r;
  r.id = c.id();
  r.kernel = c.kernel;
  r.source = c.dir.empty() ? std::string("in memory") : c.dir.string();
  // Resolve kernels first: an unknown kernel is an error, a missing feature a skip.
  if (std::string why = case_unsupported_reason(c); !why.empty()) {
    r.status = CaseResult::Status::Skip;
    r.message = why;
    return r;
  }
  PreparedCase p = prepare(c);
  return execute(c, p);
}

// WebGPU's largest query set (GPUQuerySetDescriptor.count <= 4096; runtime.hpp).
constexpr size_t kMaxQueriesPerSet = 4096;

CaseResult Runner::execute(const Case& c, const PreparedCase& p) {
  CaseResult r;
  r.id = c.id();
  r.kernel = c.kernel;
  r.source = c.dir.empty() ? std::string("in memory") : c.dir.string();
  const std::string where = "case " + c.id();

  bool timed = options_.timestamps && device_.has_feature(Feature::TimestampQuery);
  // One query set holds at most kMaxQueriesPerSet queries (WebGPU's limit, 4096): a case of more
  // than 2048 dispatches takes several (10,000 dispatches once failed on the limit).
  const size_t per_set = kMaxQueriesPerSet / 2;
  std::vector<QuerySet> sets;
  if (timed)
    for (size_t first = 0; first < p.dispatches.size(); first += per_set)
      sets.push_back(device_.create_query_set(
          {.label = c.name + " timestamps",
           .count = uint32_t(2 * std::min(per_set, p.dispatches.size() - first))}));
  CommandEncoder enc = device_.create_command_encoder({c.name});
  for (size_t i = 0; i < p.dispatches.size(); ++i) {
    ComputePassDescriptor pdsc;
    pdsc.label = p.dispatches[i].label;
    if (timed)
      pdsc.timestamp_writes = PassTimestampWrites{sets[i / per_set], uint32_t(2 * (i % per_set)),
                                                  uint32_t(2 * (i % per_set) + 1)};
    try {
      ComputePass pass = enc.begin_compute_pass(pdsc);
      p.record(pass, i);
      pass.end();
    } catch (const std::exception& e) {
      throw CaseError(where + ": dispatches[" + std::to_string(i) + "] '" + p.dispatches[i].label +
                      "': " + e.what());
    }
  }
  device_.queue().submit(enc.finish());
  device_.wait_idle();

  if (timed) {
    double ns = 0;
    for (const QuerySet& qs : sets) {
      auto ts = device_.read_timestamps(qs);
      for (size_t i = 0; i + 1 < ts.size(); i += 2)
        if (ts[i + 1] >= ts[i]) ns += double(ts[i + 1] - ts[i]);
    }
    r.device_ms = ns * 1e-6;
  }

  std::map<std::string, std::vector<uint8_t>> actual;
  for (const auto& chk : c.checks) {
    if (!actual.count(chk.buffer)) {
      auto it = p.buffers.find(chk.buffer);
      if (it == p.buffers.end())
        throw CaseError(where + ": checks name no buffer '" + chk.buffer + "'");
      actual[chk.buffer] = device_.read_buffer(it->second);
      Array a;
      a.dtype = chk.expected.dtype;
      a.bytes = actual[chk.buffer];
      a.bytes.resize(a.bytes.size() / dtype_size(a.dtype) * dtype_size(a.dtype));
      a.shape = {a.count()};
      r.outputs[chk.buffer] = std::move(a);
    }
    r.checks.push_back(compare(chk, actual[chk.buffer]));
  }
  r.status = CaseResult::Status::Pass;
  for (const auto& cr : r.checks)
    if (!cr.pass()) {
      if (r.status == CaseResult::Status::Pass) r.message = cr.describe();
      r.status = CaseResult::Status::Fail;
    }
  return r;
}

namespace {
// One folder or file name of a dump path: never empty, ".", "..", a path or a NUL. Names from
// case.json are stricter still (component_problem); these come from any Case (in memory too).
void check_part(const std::string& part, const std::string& what, const std::string& id) {
  if (part.empty() || part == "." || part == ".." || part.find('/') != std::string::npos ||
      part.find('\0') != std::string::npos || part.size() > 255)
    throw CaseError("--dump: the " + what + " '" + bounded(utf8_safe(part), 60) + "' of case '" +
                    bounded(utf8_safe(id), 120) +
                    "' is not one file or folder name; nothing written outside the dump folder");
}
bool inside(const std::filesystem::path& base, const std::filesystem::path& p) {
  auto b = base.begin(), q = p.begin();
  for (; b != base.end(); ++b, ++q)
    if (q == p.end() || *b != *q) return false;
  return true;
}
// Creates or truncates `path`, never through a symlink.
void write_nofollow(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0)
    throw CaseError("--dump: " + path.string() + ": cannot write: " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ::close(fd);
      throw CaseError("--dump: " + path.string() + ": write failed: " + std::strerror(errno));
    }
    done += size_t(w);
  }
  ::close(fd);
}
}  // namespace

void dump_result(const std::filesystem::path& dir, const Case& c, const CaseResult& r) {
  namespace fs = std::filesystem;
  // Writes only inside `dir`: every part of <kernel>/<case>/<file> is one name, and the folder,
  // once created, resolves inside `dir` (no symlinked part leads out). A case with an empty
  // kernel and name once had the id "/", and dir / "/" is "/": .npy files landed in the root.
  std::vector<std::string> parts;
  std::string k = c.kernel.empty() ? r.kernel : c.kernel;
  for (size_t b = 0;;) {
    size_t e = k.find('/', b);
    parts.push_back(k.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  parts.push_back(c.name);
  for (size_t i = 0; i < parts.size(); ++i)
    check_part(parts[i], i + 1 == parts.size() ? "case name" : "kernel part", r.id);
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  for (const auto& [name, arr] : r.outputs) {
    check_part(name + ".actual.npy", "buffer name", r.id);
    files.emplace_back(name + ".actual.npy", npy_encode(arr));
  }
  for (const auto& chk : c.checks)
    if (!chk.expected.bytes.empty()) {
      check_part(chk.expected_file, "expected file", r.id);
      files.emplace_back(chk.expected_file, npy_encode(chk.expected));
    }
  if (files.empty()) return;
  fs::create_directories(dir);
  fs::path base = fs::canonical(dir);
  // One level at a time, never through a symlink (create_directories would follow one and
  // create folders outside before any check).
  fs::path d = base;
  for (const auto& p : parts) {
    d /= p;
    auto st = fs::symlink_status(d);
    if (fs::is_symlink(st))
      throw CaseError("--dump: " + d.string() +
                      " is a symbolic link (not followed: it could lead outside the "
                      "dump folder " +
                      base.string() + "); nothing written");
    if (!fs::exists(st))
      fs::create_directory(d);
    else if (!fs::is_directory(st))
      throw CaseError("--dump: " + d.string() + " exists and is not a folder");
  }
  if (!inside(base, fs::canonical(d)))
    throw CaseError("--dump: " + d.string() + " resolves to " + fs::canonical(d).string() +
                    ", outside the dump folder " + base.string() +
                    " (a symlink?); nothing written");
  for (const auto& [name, bytes] : files) write_nofollow(d / name, bytes);
}

}  // namespace wgslvk::validate
