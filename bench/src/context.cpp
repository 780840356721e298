// Ctx: timing by pass timestamps after a busy warm-up, the copy roofline (wgslvk_util/copy_vec4)
// over the same bytes alternating with the kernel in one submission, rows, the section registry.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "wgslvk/bench/bench.hpp"
#include "wgslvk/bench/report.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::bench {
namespace {

void record_pass(CommandEncoder& enc, const Recorder& rec, const QuerySet* qs, uint32_t q) {
  ComputePassDescriptor pd{"bench", std::nullopt};
  if (qs) pd.timestamp_writes = PassTimestampWrites{*qs, q, q + 1};
  ComputePass p = enc.begin_compute_pass(pd);
  rec(p);
  p.end();
}

Stats stats_from(const std::vector<uint64_t>& ts, int reps, int stride, int first) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    uint64_t a = ts[size_t(stride * i + first)], b = ts[size_t(stride * i + first + 1)];
    if (b >= a) ms.push_back(double(b - a) * 1e-6);
  }
  if (ms.empty()) throw std::runtime_error("bench: no valid timestamps were read");
  return stats_of(ms);
}

}  // namespace

// The copy roofline: source and destination sized for the largest request, bound as sub-ranges;
// one 16-byte uniform and bind group per size, kept for the whole run.
struct Ctx::Roofline {
  ComputePipeline pipe;
  Buffer src, dst;
  uint64_t max_half = 0;                                   // largest src (= dst) range in bytes
  std::map<uint32_t, std::pair<Buffer, BindGroup>> slots;  // vec4 count -> uniform, group

  BindGroup group(Device& d, const Buffer& n, uint64_t half) {
    BindGroupDescriptor desc{"copy_vec4", pipe.get_bind_group_layout(0), {}};
    for (const auto& kb : pipe.kernel().bindings) {
      if (kb.type == BindingType::ReadOnlyStorage)
        desc.entries.push_back({kb.binding, src, 0, half});
      else if (kb.type == BindingType::Storage)
        desc.entries.push_back({kb.binding, dst, 0, half});
      else
        desc.entries.push_back({kb.binding, n, 0, 16});
    }
    return d.create_bind_group(desc);
  }
  std::pair<Recorder, uint64_t> recorder(Device& d, uint64_t bytes) {
    uint64_t half = align_up(std::max<uint64_t>(bytes / 2, 16), 16);
    half = std::min(half, max_half);
    uint32_t n4 = uint32_t(half / 16);
    auto it = slots.find(n4);
    if (it == slots.end()) {
      uint32_t nv[4] = {n4, 0, 0, 0};
      Buffer nb = utils::make_uniform(d, "copy_n", nv, sizeof nv);
      it = slots.emplace(n4, std::make_pair(nb, group(d, nb, half))).first;
    }
    BindGroup g = it->second.second;
    uint32_t wg = pipe.kernel().workgroup_size[0];
    Limits lim = d.limits();
    ComputePipeline p = pipe;
    return {[=](ComputePass& pass) {
              pass.set_pipeline(p);
              pass.set_bind_group(0, g);
              Grid gr = grid_for_workgroups(std::max<uint64_t>(1, div_ceil(n4, wg)), lim);
              pass.dispatch_workgroups(gr.x, gr.y);
            },
            2 * half};
  }
  // An odd count (exercises the tail), bit-exact, nothing written past the range.
  void check(Device& d) {
    uint64_t n4 = 4099, half = n4 * 16;
    std::vector<float> data(n4 * 4);
    for (size_t i = 0; i < data.size(); ++i) data[i] = rand_sym(7, i);
    d.queue().write_buffer(src, 0, data.data(), half);
    std::vector<float> poison(n4 * 4 + 4, -12345.0f);
    d.queue().write_buffer(dst, 0, poison.data(), poison.size() * 4);
    auto [rec, moved] = recorder(d, 2 * half);
    CommandEncoder enc = d.create_command_encoder({"copy_vec4 check"});
    record_pass(enc, rec, nullptr, 0);
    d.queue().submit(enc.finish());
    d.wait_idle();
    std::vector<float> got = read<float>(d, dst, 0, n4 * 4 + 4);
    for (size_t i = 0; i < data.size(); ++i)
      if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(data[i]))
        throw std::runtime_error("bench: copy_vec4 check failed: element " + std::to_string(i) +
                                 " is " + std::to_string(got[i]) + ", want " +
                                 std::to_string(data[i]));
    if (got[n4 * 4] != -12345.0f) throw std::runtime_error("bench: copy_vec4 wrote past its range");
  }
};

Ctx::Ctx(Options options, Device device)
    : opt_(std::move(options)), dev_(std::move(device)), pipelines_(dev_, opt_.optimized_spirv) {
  const KernelInfo* ck = find_kernel("wgslvk_util/copy_vec4");
  if (!ck) throw std::runtime_error("bench: kernel wgslvk_util/copy_vec4 is not in this build");
  roof_ = std::make_unique<Roofline>();
  roof_->pipe = pipeline(*ck);
  const Limits& L = dev_.limits();
  uint64_t want_half = opt_.quick ? (uint64_t(32) << 20) : (uint64_t(2) << 30);
  uint64_t cap = std::min<uint64_t>(L.max_storage_buffer_binding_size, L.max_buffer_size);
  cap = std::min<uint64_t>(cap, uint64_t(65535) * 65535 * 16 * ck->workgroup_size[0] / 2);
  roof_->max_half = std::min(want_half, cap) / 256 * 256;
  roof_->src = utils::make_buffer(dev_, "copy_src", roof_->max_half);
  roof_->dst = utils::make_buffer(dev_, "copy_dst", roof_->max_half + 16);
  roof_->check(dev_);
  // Non-zero source data once (never time on zeros).
  std::vector<float> chunk(1 << 20);
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = rand_sym(11, i);
  for (uint64_t off = 0; off < roof_->max_half; off += chunk.size() * 4)
    dev_.queue().write_buffer(roof_->src, off, chunk.data(),
                              std::min<uint64_t>(chunk.size() * 4, roof_->max_half - off));
}

Ctx::~Ctx() = default;

bool Ctx::selected(std::string_view group, std::string_view name) const {
  if (opt_.only.empty()) return true;
  return opt_.only.count(std::string(group)) || opt_.only.count(std::string(name));
}

ComputePipeline Ctx::pipeline(const KernelInfo& k) { return pipelines_.get(k); }

ComputePipeline Ctx::pipeline(std::string_view name) {
  const KernelInfo* k = find_kernel(name);
  if (!k) throw std::runtime_error("bench: no kernel '" + std::string(name) + "' in this build");
  return pipeline(*k);
}

// Untimed repeats until at least --warmup of them ran AND --warm-ms of wall time passed with the
// GPU busy (an idle GPU drops its clocks during host-side fills between measurements; a few
// milliseconds do not bring them back: seen on an H200).
void Ctx::warm_up(const std::function<void(CommandEncoder&)>& record_one) {
  auto t0 = std::chrono::steady_clock::now();
  int done = 0, batch = std::max(opt_.warmup, 1);
  for (;;) {
    CommandEncoder enc = dev_.create_command_encoder({"bench warmup"});
    for (int i = 0; i < batch; ++i) record_one(enc);
    dev_.queue().submit(enc.finish());
    dev_.wait_idle();
    done += batch;
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if ((done >= opt_.warmup && ms >= opt_.warm_ms) || done >= 20000) break;
    batch = std::min(batch * 2, 512);
  }
}

// The kernel and the copy roofline of the same byte count, in the same conditions: after one
// warm-up of both, `reps` pairs of passes (kernel, copy) alternate in one submission. The copy
// between kernel repeats also keeps small inputs from being served from L2 by the previous repeat.
std::pair<Stats, CopyResult> Ctx::time_pair(const Recorder& rec, uint64_t bytes,
                                            Stats* back_to_back) {
  return time_pair_encoder(
      [&](CommandEncoder& enc, std::optional<PassTimestampWrites> ts) {
        ComputePassDescriptor pd{"bench", ts};
        ComputePass p = enc.begin_compute_pass(pd);
        rec(p);
        p.end();
      },
      bytes, back_to_back);
}

std::pair<Stats, CopyResult> Ctx::time_pair_encoder(const EncoderRecorder& rec, uint64_t bytes,
                                                    Stats* back_to_back) {
  auto [copy_rec, copy_bytes] = roof_->recorder(dev_, bytes);
  int reps = opt_.reps;
  warm_up([&](CommandEncoder& enc) {
    rec(enc, std::nullopt);
    record_pass(enc, copy_rec, nullptr, 0);
  });
  const uint32_t b2b = back_to_back ? uint32_t(2 * reps) : 0;
  QuerySet qs = dev_.create_query_set(
      {.label = "bench pair timestamps", .count = uint32_t(uint32_t(4 * reps) + b2b)});
  CommandEncoder enc = dev_.create_command_encoder({"bench timed pair"});
  for (int i = 0; i < reps; ++i) {
    rec(enc, PassTimestampWrites{qs, uint32_t(4 * i), uint32_t(4 * i + 1)});
    record_pass(enc, copy_rec, &qs, uint32_t(4 * i + 2));
  }
  // Back to back, after the pairs (the GPU is as warm as for them).
  for (int i = 0; b2b && i < reps; ++i)
    rec(enc, PassTimestampWrites{qs, uint32_t(4 * reps + 2 * i), uint32_t(4 * reps + 2 * i + 1)});
  dev_.queue().submit(enc.finish());
  dev_.wait_idle();
  auto ts = dev_.read_timestamps(qs);
  CopyResult r;
  r.bytes = copy_bytes;
  r.t = stats_from(ts, reps, 4, 2);
  if (back_to_back) *back_to_back = stats_from(ts, reps, 2, 4 * reps);
  return {stats_from(ts, reps, 4, 0), r};
}

Stats Ctx::time(const Recorder& rec) {
  int reps = opt_.reps;
  warm_up([&](CommandEncoder& enc) { record_pass(enc, rec, nullptr, 0); });
  QuerySet qs = dev_.create_query_set({.label = "bench timestamps", .count = uint32_t(2 * reps)});
  CommandEncoder enc = dev_.create_command_encoder({"bench timed"});
  for (int i = 0; i < reps; ++i) record_pass(enc, rec, &qs, uint32_t(2 * i));
  dev_.queue().submit(enc.finish());
  dev_.wait_idle();
  return stats_from(dev_.read_timestamps(qs), reps, 2, 0);
}

Row& Ctx::add_row(Row r) {
  if (r.group.empty()) r.group = current_group;
  rows_.push_back(std::move(r));
  print_row(rows_.back());
  return rows_.back();
}

void Ctx::note(std::string n) { notes_.push_back(std::move(n)); }

// ---- sections ------------------------------------------------------------------------------------

namespace {
std::vector<SectionInfo>& registry() {
  static std::vector<SectionInfo> r;
  return r;
}
}  // namespace

bool add_section(const char* group, Section fn, const char* source) {
  // __FILE__ is absolute in CMake builds: keep the part from the family's folder on.
  std::string src = source;
  for (const char* root : {"/wgsl_ports/", "/apps/"})
    if (auto p = src.rfind(root); p != std::string::npos) {
      src = src.substr(p + 1);
      break;
    }
  registry().push_back({group, src, fn});
  return true;
}

const std::vector<SectionInfo>& sections() {
  auto& r = registry();
  std::stable_sort(r.begin(), r.end(),
                   [](const SectionInfo& a, const SectionInfo& b) { return a.group < b.group; });
  return r;
}

std::string human_count(uint64_t n) {
  char b[32];
  if (n >= (1ull << 20) && n % (1ull << 20) == 0)
    std::snprintf(b, sizeof b, "%lluM", (unsigned long long)(n >> 20));
  else if (n >= 1024 && n % 1024 == 0)
    std::snprintf(b, sizeof b, "%lluK", (unsigned long long)(n >> 10));
  else
    std::snprintf(b, sizeof b, "%llu", (unsigned long long)n);
  return b;
}

}  // namespace wgslvk::bench
