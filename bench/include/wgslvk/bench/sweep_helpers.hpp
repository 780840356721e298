// Helpers of the families' hand-written sweeps (the ones not yet timed through time_case): chunked
// non-zero fills, one-off runs, the binding-limit test, and the raw dump that
// bench/peers/dawn_bench.mjs --compare replays under Dawn.
#pragma once

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <fstream>
#include <string>
#include <vector>

#include "wgslvk/bench/bench.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::bench {

// Buffers for a kernel's bindings, keyed by binding number.
struct Bound {
  Bound() = default;
  Bound(Buffer b, uint64_t o = 0, std::optional<uint64_t> s = std::nullopt)
      : buffer(std::move(b)), offset(o), size(s) {}
  Buffer buffer;
  uint64_t offset = 0;
  std::optional<uint64_t> size;
};
using Bindings = std::map<uint32_t, Bound>;

// A bind group for group 0 of `pipe` holding exactly the bindings its layout declares, each taken
// from `by_binding` (the seed's ABI tables fix the numbers); a missing one is an error naming it.
inline BindGroup make_group(Device& d, const ComputePipeline& pipe, const Bindings& by_binding,
                            const std::string& label) {
  const KernelInfo& k = pipe.kernel();
  BindGroupLayout layout = pipe.get_bind_group_layout(0);
  BindGroupDescriptor desc{label, layout, {}};
  for (const auto& e : layout.entries()) {
    auto it = by_binding.find(e.binding);
    if (it == by_binding.end()) {
      const KernelBinding* kb = k.find_binding(0, e.binding);
      throw std::runtime_error("bench: no buffer for binding " + std::to_string(e.binding) + " '" +
                               std::string(kb ? kb->name : "?") + "' of " + k.qualified_name());
    }
    desc.entries.push_back({e.binding, it->second.buffer, it->second.offset, it->second.size});
  }
  return d.create_bind_group(desc);
}

inline void dispatch_1d(ComputePass& p, const Device& d, uint64_t threads, uint32_t wg = 256) {
  Grid g = grid_for_workgroups(std::max<uint64_t>(1, div_ceil(threads, wg)), d.limits());
  p.dispatch_workgroups(g.x, g.y);
}

inline void dump_bytes(const std::string& dir, const std::string& name, const void* p, size_t n) {
  std::filesystem::create_directories(dir);
  std::ofstream f(dir + "/" + name, std::ios::binary);
  f.write(static_cast<const char*>(p), std::streamsize(n));
}

template <class T>
void dump_vec(const std::string& dir, const std::string& name, const std::vector<T>& v) {
  dump_bytes(dir, name, v.data(), v.size() * sizeof(T));
}

inline bool close_f32(float got, float want, double rel, double abs_tol) {
  if (std::isnan(want)) return std::isnan(got);
  return std::fabs(double(got) - double(want)) <= abs_tol + rel * std::fabs(double(want));
}


// Fills `size` bytes of `b` with a repeating pattern of generated floats (never zeros), in chunks,
// so multi-GiB buffers are filled without a multi-GiB host array.
inline void fill_pattern(Device& d, const Buffer& b, uint64_t size, uint32_t seed,
                  float scale = 1.0f, bool positive = false) {
  std::vector<float> chunk(size_t(4) << 20);  // 16 MiB
  for (size_t i = 0; i < chunk.size(); ++i)
    chunk[i] = scale * (positive ? rand_pos(seed, i) : rand_sym(seed, i));
  for (uint64_t off = 0; off < size; off += chunk.size() * 4)
    d.write_buffer(b, off, chunk.data(), std::min<uint64_t>(chunk.size() * 4, size - off));
}

inline void zero_fill(Device& d, const Buffer& b) {
  CommandEncoder enc = d.create_command_encoder("zero");
  enc.clear_buffer(b);
  d.submit(enc.finish());
  d.wait_idle();
}

inline void run_once(Device& d, const Recorder& rec) {
  CommandEncoder enc = d.create_command_encoder("check");
  ComputePass p = enc.begin_compute_pass();
  rec(p);
  p.end();
  d.submit(enc.finish());
  d.wait_idle();
}

inline bool fits(Ctx& c, uint64_t binding_bytes) {
  return binding_bytes <= c.device().limits().maxStorageBufferBindingSize &&
         binding_bytes <= c.device().limits().maxBufferSize;
}

// One case of the Dawn faithfulness check: the inputs of every binding, the dispatch, and the
// outputs our engine produced (bench/peers/dawn_bench.mjs --compare replays it under Dawn).
struct DumpCase {
  std::string dir;
  json meta;
  void binding(uint32_t b, const std::string& kind, const void* in, size_t in_bytes,
               const std::string& compare = "") {
    std::string f = "b" + std::to_string(b) + ".in.bin";
    dump_bytes(dir, f, in, in_bytes);
    json e = {{"binding", b}, {"type", kind}, {"in", f}, {"bytes", in_bytes}};
    if (!compare.empty()) e["compare"] = compare;
    meta["bindings"].push_back(e);
  }
  void output(uint32_t b, const void* out, size_t bytes) {
    std::string f = "b" + std::to_string(b) + ".out.bin";
    dump_bytes(dir, f, out, bytes);
    for (auto& e : meta["bindings"])
      if (e["binding"] == b) e["out"] = f;
  }
  void finish() {
    std::ofstream f(dir + "/case.json");
    f << meta.dump(1) << "\n";
  }
};


}  // namespace wgslvk::bench
