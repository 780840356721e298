#include "wgslvk/validate/runner.hpp"

#include <cmath>
#include <set>

namespace wgslvk::validate {

std::string_view status_name(CaseResult::Status s) {
  switch (s) {
    case CaseResult::Status::Pass: return "PASS";
    case CaseResult::Status::Fail: return "FAIL";
    case CaseResult::Status::Skip: return "SKIP";
    default: return "ERROR";
  }
}

double CaseResult::worst_ulp() const {
  double w = 0;
  for (const auto& c : checks) w = std::max(w, c.worst_ulp);
  return w;
}

Runner::Runner(Device& device, RunOptions options) : device_(device), options_(options) {}

std::string Runner::unsupported_reason(const KernelInfo& k) const {
  if (k.needs_shader_f16 && !device_.has_feature(Feature::ShaderF16))
    return "needs shader-f16, which '" + device_.adapter_name() + "' lacks";
  if (k.needs_float_atomics && !device_.has_feature(Feature::FloatAtomics))
    return "needs float32-atomic-add (VK_EXT_shader_atomic_float), which '" +
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
  try {
    return run_or_throw(c);
  } catch (const std::exception& e) {
    CaseResult r;
    r.id = c.id();
    r.kernel = c.kernel;
    r.source = c.dir.string();
    r.status = CaseResult::Status::Error;
    r.message = e.what();
    return r;
  }
}

CaseResult Runner::run_or_throw(const Case& c) {
  CaseResult r;
  r.id = c.id();
  r.kernel = c.kernel;
  r.source = c.dir.empty() ? std::string("in memory") : c.dir.string();
  const std::string where = "case " + c.id();

  // Resolve kernels first: an unknown kernel is an error, a missing feature a skip.
  std::vector<const KernelInfo*> kernels;
  for (size_t i = 0; i < c.dispatches.size(); ++i) {
    const KernelInfo* k = find_kernel(c.dispatches[i].kernel);
    if (!k)
      throw CaseError(where + ": dispatches[" + std::to_string(i) + "]: unknown kernel '" +
                      c.dispatches[i].kernel + "' (known: " + known_kernels() + ")");
    kernels.push_back(k);
    if (std::string why = unsupported_reason(*k); !why.empty()) {
      r.status = CaseResult::Status::Skip;
      r.message = k->qualified_name() + " " + why;
      return r;
    }
  }

  // Named buffers, with their initial contents (poison for outputs).
  std::map<std::string, Buffer> buffers;
  const uint32_t usage = kUsageStorage | kUsageUniform | kUsageCopySrc | kUsageCopyDst;
  for (const auto& b : c.buffers) {
    Buffer buf = device_.create_buffer({c.name + "." + b.name, b.byte_size(), usage});
    auto init = b.initial_bytes();
    device_.write_buffer(buf, 0, init.data(), init.size());
    buffers[b.name] = buf;
  }

  bool timed = options_.timestamps && device_.has_feature(Feature::TimestampQuery);
  QuerySet qs;
  if (timed) qs = device_.create_query_set(uint32_t(2 * c.dispatches.size()), c.name + " timestamps");

  CommandEncoder enc = device_.create_command_encoder(c.name);
  std::vector<Buffer> keep_alive;
  for (size_t i = 0; i < c.dispatches.size(); ++i) {
    const DispatchSpec& d = c.dispatches[i];
    const KernelInfo& k = *kernels[i];
    std::string dwhere = where + ": dispatches[" + std::to_string(i) + "]" +
                         (d.label.empty() ? "" : " '" + d.label + "'") + " (kernel " +
                         k.qualified_name() + ")";
    try {
      auto pit = pipelines_.find(&k);
      if (pit == pipelines_.end()) {
        ComputePipelineDescriptor pd;
        pd.kernel = &k;
        pd.optimized_spirv = options_.optimized_spirv;
        pit = pipelines_.emplace(&k, device_.create_compute_pipeline(pd)).first;
      }
      const ComputePipeline& pipe = pit->second;

      // Bindings against the reflected layout: every statically used binding exactly once.
      std::map<uint32_t, std::vector<BindGroupEntry>> groups;
      std::set<std::pair<uint32_t, uint32_t>> seen;
      for (const auto& b : d.bindings) {
        std::string bn = "binding (" + std::to_string(b.group) + ", " + std::to_string(b.binding) + ")";
        const KernelBinding* kb = k.find_binding(b.group, b.binding);
        if (!kb || !kb->statically_used)
          throw CaseError(dwhere + ": " + bn + " is not used by the kernel (its bindings: " +
                          binding_list(k) + ")");
        bn += " '" + std::string(kb->name) + "': " + std::string(kb->wgsl_type);
        if (!seen.insert({b.group, b.binding}).second) throw CaseError(dwhere + ": " + bn + " is bound twice");
        BindGroupEntry e;
        e.binding = b.binding;
        if (b.is_inline) {
          uint64_t size = std::max<uint64_t>(b.inline_bytes.size(), kb->min_binding_size);
          size = align_up(size, 16);
          Buffer ib = device_.create_buffer({c.name + "." + std::string(kb->name), size,
                                             kUsageUniform | kUsageStorage | kUsageCopyDst});
          std::vector<uint8_t> bytes = b.inline_bytes;
          bytes.resize(size, 0);
          device_.write_buffer(ib, 0, bytes.data(), bytes.size());
          if (b.inline_bytes.size() < kb->min_binding_size)
            throw CaseError(dwhere + ": " + bn + ": inline values are " +
                            std::to_string(b.inline_bytes.size()) + " bytes, the binding needs at least " +
                            std::to_string(kb->min_binding_size));
          keep_alive.push_back(ib);
          e.buffer = ib;
        } else {
          auto it = buffers.find(b.buffer);
          if (it == buffers.end()) throw CaseError(dwhere + ": " + bn + ": no buffer '" + b.buffer + "'");
          e.buffer = it->second;
          e.offset = b.offset;
          e.size = b.size;
        }
        groups[b.group].push_back(e);
      }
      for (const auto& kb : k.bindings)
        if (kb.statically_used && !seen.count({kb.group, kb.binding}))
          throw CaseError(dwhere + ": binding (" + std::to_string(kb.group) + ", " +
                          std::to_string(kb.binding) + ") '" + std::string(kb.name) + "': " +
                          std::string(kb.wgsl_type) + " is not bound");

      std::vector<std::pair<uint32_t, BindGroup>> bgs;
      for (auto& [g, entries] : groups) {
        BindGroupDescriptor bd;
        bd.label = c.name + " group " + std::to_string(g);
        bd.layout = pipe.get_bind_group_layout(g);
        bd.entries = entries;
        bgs.emplace_back(g, device_.create_bind_group(bd));
      }

      std::array<uint32_t, 3> wg;
      if (d.workgroups) {
        wg = *d.workgroups;
      } else {
        Grid grid = grid_for_workgroups(d.workgroups_1d, device_.limits());
        wg = {grid.x, grid.y, 1};
      }
      ComputePassDescriptor pdsc;
      pdsc.label = d.label.empty() ? k.qualified_name() : d.label;
      if (timed) pdsc.timestamp_writes = PassTimestampWrites{qs, uint32_t(2 * i), uint32_t(2 * i + 1)};
      ComputePass pass = enc.begin_compute_pass(pdsc);
      pass.set_pipeline(pipe);
      for (auto& [g, bg] : bgs) pass.set_bind_group(g, bg);
      pass.dispatch_workgroups(wg[0], wg[1], wg[2]);
      pass.end();
    } catch (const CaseError&) {
      throw;
    } catch (const std::exception& e) {
      throw CaseError(dwhere + ": " + e.what());
    }
  }
  device_.submit(enc.finish());
  device_.wait_idle();

  if (timed) {
    auto ts = device_.read_timestamps(qs);
    double ns = 0;
    for (size_t i = 0; i < c.dispatches.size(); ++i)
      if (ts[2 * i + 1] >= ts[2 * i]) ns += double(ts[2 * i + 1] - ts[2 * i]);
    r.device_ms = ns * 1e-6;
  }

  std::map<std::string, std::vector<uint8_t>> actual;
  for (const auto& chk : c.checks) {
    if (!actual.count(chk.buffer)) {
      actual[chk.buffer] = device_.read_buffer(buffers.at(chk.buffer));
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

void dump_result(const std::filesystem::path& dir, const Case& c, const CaseResult& r) {
  std::filesystem::path d = dir / r.id;
  std::filesystem::create_directories(d);
  for (const auto& [name, arr] : r.outputs) npy_write(d / (name + ".actual.npy"), arr);
  for (const auto& chk : c.checks)
    if (!chk.expected.bytes.empty()) npy_write(d / chk.expected_file, chk.expected);
}

}  // namespace wgslvk::validate
