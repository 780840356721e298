// Shared by the matmul suites: random inputs spanning binades, one-dispatch runs of any matmul
// kernel on poisoned outputs (layout "auto" or an explicit one), and comparisons against
// wgsl_ports/matmul/reference.hpp in ULPs of the per-element magnitude S = sum_k |a_ik b_kj| (+ ...).
// Inputs are fresh per run (WGSLVK_TEST_SEED replays). Every kernel is bound by its generated
// header's named slots (with_slots), so a binding another kernel lacks does not compile.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "matmul/reference.hpp"
#include "support/test_device.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/kernels/matmul/matmul_blocked4.hpp"
#include "wgslvk/kernels/matmul/matmul_blocked8.hpp"
#include "wgslvk/kernels/matmul/matmul_naive.hpp"
#include "wgslvk/kernels/matmul/matmul_native.hpp"
#include "wgslvk/kernels/matmul/matmul_tiled.hpp"
#include "wgslvk/kernels/matmul/matmul_tiled_f16.hpp"
#include "wgslvk/kernels/matmul/matmul_vec4.hpp"
#include "wgslvk/kernels/matmul/matmul_vec4_readonly.hpp"

namespace wgslvk::matmul_test {

using matmul::Dims;
using matmul::Kernel;
namespace ref = matmul::ref;
using testing::device;
using testing::poison_f32;
using testing::upload;

// The forward kernels every shape test runs (vec4_readonly is the R9 witness, tested apart).
inline constexpr Kernel kKernels[] = {Kernel::Naive, Kernel::Tiled,    Kernel::Blocked4,
                                      Kernel::Vec4,  Kernel::Blocked8, Kernel::TiledF16,
                                      Kernel::Native};

inline std::string name(Kernel k) { return std::string(matmul::kernel_name(k)); }

namespace mk = wgslvk::kernels::matmul;

// f(tag, a, b, c, bias, dims) with kernel k's header tag and its five slots: A, B (vec4 rows in
// vec4 and ours, packed f16 pairs in tiled_f16), C, the bias and the dims uniform (M, N, K, flags).
template <class F>
decltype(auto) with_slots(Kernel k, F&& f) {
  switch (k) {
    case Kernel::Naive: {
      namespace h = mk::matmul_naive;
      return f(h::Kernel{}, h::binding::a, h::binding::b, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::Tiled: {
      namespace h = mk::matmul_tiled;
      return f(h::Kernel{}, h::binding::a, h::binding::b, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::Blocked4: {
      namespace h = mk::matmul_blocked4;
      return f(h::Kernel{}, h::binding::a, h::binding::b, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::Vec4: {
      namespace h = mk::matmul_vec4;
      return f(h::Kernel{}, h::binding::a4, h::binding::b4, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::Vec4Readonly: {
      namespace h = mk::matmul_vec4_readonly;
      return f(h::Kernel{}, h::binding::a4_ro, h::binding::b4_ro, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::Blocked8: {
      namespace h = mk::matmul_blocked8;
      return f(h::Kernel{}, h::binding::a, h::binding::b, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::TiledF16: {
      namespace h = mk::matmul_tiled_f16;
      return f(h::Kernel{}, h::binding::a, h::binding::b_f16, h::binding::c, h::binding::bias,
               h::binding::dims);
    }
    case Kernel::Native: {
      namespace h = mk::matmul_native;
      return f(h::Kernel{}, h::binding::na, h::binding::nb, h::binding::nc, h::binding::nbias,
               h::binding::ndims);
    }
  }
  throw std::invalid_argument("matmul_test: unknown kernel " + std::to_string(int(k)));
}

// Kernel k's registered record (its header's).
inline const KernelInfo& info(Kernel k) {
  return with_slots(
      k, [](auto tag, const auto&...) -> const KernelInfo& { return decltype(tag)::info(); });
}

// ---- inputs -------------------------------------------------------------------------------------

// |x| log-uniform in [2^lo, 2^hi), random sign: never zero, products far from subnormal.
inline std::vector<float> binades(std::mt19937_64& g, size_t n, int lo = -6, int hi = 6) {
  std::uniform_real_distribution<double> e(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = float(std::exp2(e(g)) * ((g() & 1) ? -1.0 : 1.0));
  return v;
}

// Weights for matmul_tiled_f16 too: clear of the f16 subnormal range (a device may flush them on
// conversion) and of its overflow.
inline std::vector<float> weights(std::mt19937_64& g, size_t n) { return binades(g, n, -6, 6); }

struct Inputs {
  std::vector<float> a, b, bias, c_old;
};

inline Inputs random_inputs(std::mt19937_64& g, const Dims& d) {
  Inputs in;
  in.a = binades(g, d.a_count());
  in.b = weights(g, d.b_count());
  if (d.bias()) in.bias = binades(g, d.N);
  if (d.accumulate()) in.c_old = binades(g, d.c_count());
  return in;
}

// What `k` multiplies: matmul_tiled_f16 consumes the f16-rounded B (its reference input).
inline std::vector<float> effective_b(Kernel k, const std::vector<float>& b, const Dims& d) {
  if (k != Kernel::TiledF16) return b;
  return matmul::unpack_b_f16(matmul::pack_b_f16(b, d), d);
}

// ---- runs ---------------------------------------------------------------------------------------

inline const ComputePipeline& pipeline(Kernel k) {
  static PipelineCache cache(device());
  return cache.get(info(k));
}

// The seed's production layout: every storage binding "storage" (read_write), dims a uniform
// (an explicit layout, as the seed's engine wrote it; the slots give its binding numbers).
inline std::vector<BindGroupLayout> all_storage_layout() {
  namespace h = mk::matmul_naive::binding;
  return {device().create_bind_group_layout({"all-storage (seed production layout)",
                                             {{h::a.binding, BindingType::Storage},
                                              {h::b.binding, BindingType::Storage},
                                              {h::c.binding, BindingType::Storage},
                                              {h::bias.binding, BindingType::Storage},
                                              {h::dims.binding, BindingType::Uniform}}})};
}

struct RunOptions {
  uint32_t tail = 16;                             // poisoned elements after C that must stay poison
  std::optional<std::array<uint32_t, 3>> grid{};  // explicit workgroup counts (default: 1-D/2-D)
  const ComputePipeline* pipe = nullptr;          // default: the kernel's auto-layout pipeline
  // The kernel `pipe` runs when it is another kernel with k's bindings (native's variants):
  // k's slots are checked against its bindings (entries_for).
  const KernelInfo* variant = nullptr;
};

// One dispatch of `k`; returns C (d.c_count() + tail elements). C starts as c_old (accumulate)
// or poison; the tail is always poison.
inline std::vector<float> run(Kernel k, const Dims& d, const Inputs& in, RunOptions o = {}) {
  Device& dev = device();
  Buffer a = upload(dev, in.a, "a");
  Buffer b = k == Kernel::TiledF16 ? upload(dev, matmul::pack_b_f16(in.b, d), "b_f16")
                                   : upload(dev, in.b, "b");
  std::vector<float> c0(d.c_count() + o.tail, poison_f32());
  if (d.accumulate()) std::copy(in.c_old.begin(), in.c_old.end(), c0.begin());
  Buffer c = upload(dev, c0, "c");
  Buffer bias = upload(dev, in.bias.empty() ? std::vector<float>{7.0f} : in.bias, "bias");
  const ComputePipeline& p = o.pipe ? *o.pipe : pipeline(k);
  std::vector<BindGroupEntry> entries = with_slots(k, [&](auto tag, const auto& sa, const auto& sb,
                                                          const auto& sc, const auto& sbias,
                                                          const auto& sdims) {
    Buffer u = make_uniform(dev, sdims, {d.M, d.N, d.K, d.flags});
    return entries_for(o.variant ? *o.variant : decltype(tag)::info(),
                       {bind(sa, a), bind(sb, b), bind(sc, c), bind(sbias, bias), bind(sdims, u)});
  });
  BindGroup g = dev.create_bind_group({"matmul", p.get_bind_group_layout(0), std::move(entries)});
  CommandEncoder enc = dev.create_command_encoder();
  ComputePass pass = enc.begin_compute_pass();
  pass.set_pipeline(p);
  pass.set_bind_group(0, g);
  if (o.grid) {
    pass.dispatch_workgroups((*o.grid)[0], (*o.grid)[1], (*o.grid)[2]);
  } else {
    Grid grid = grid_for_workgroups(matmul::workgroups(k, d), dev.limits());
    pass.dispatch_workgroups(grid.x, grid.y);
  }
  pass.end();
  dev.queue().submit(enc.finish());
  return read<float>(dev, c);
}

// ---- comparisons --------------------------------------------------------------------------------

// got[0, c_count) within e.bound ULPs of e.magnitude of e.value; got's tail still poison.
// Returns the worst error seen in ULPs of S.
inline double expect_within(const std::vector<float>& got, const ref::Expected& e, const Dims& d,
                            const std::string& what, uint32_t tail = 16) {
  EXPECT_EQ(got.size(), e.value.size() + tail) << what;
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < e.value.size() && i < got.size(); ++i) {
    double u = ref::ulps_of_magnitude(got[i], e.value[i], e.magnitude[i]);
    if (u <= e.bound) {
      worst = std::max(worst, u);
      continue;
    }
    if (++bad <= 5)
      ADD_FAILURE() << what << " M=" << d.M << " N=" << d.N << " K=" << d.K << " flags=" << d.flags
                    << ": C[" << i / d.N << ", " << i % d.N << "] = " << got[i] << " (0x"
                    << std::hex << std::bit_cast<uint32_t>(got[i]) << std::dec << "), expected "
                    << e.value[i] << " within " << e.bound << " ULPs of S = " << e.magnitude[i]
                    << ", off by " << u << " ULPs of S";
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << e.value.size()
                     << " elements outside the bound";
  for (size_t i = e.value.size(); i < got.size(); ++i)
    if (std::bit_cast<uint32_t>(got[i]) != testing::kPoisonBits) {
      ADD_FAILURE() << what << ": element " << i << " past C was written";
      break;
    }
  return worst;
}

// Runs `k` on `in` and checks it against the reference on the inputs it consumes.
inline double check_kernel(Kernel k, const Dims& d, const Inputs& in, const std::string& what,
                           RunOptions o = {}) {
  auto got = run(k, d, in, o);
  auto b = effective_b(k, in.b, d);
  auto e = ref::matmul(in.a, b, in.bias, in.c_old, d);
  return expect_within(got, e, d, what + " [" + name(k) + "]", o.tail);
}

inline bool all_poison(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(),
                     [](float x) { return std::bit_cast<uint32_t>(x) == testing::kPoisonBits; });
}

}  // namespace wgslvk::matmul_test
