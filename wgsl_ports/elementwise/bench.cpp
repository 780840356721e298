// Benchmarks of 04_elementwise.wgsl at GPT shapes: rows B*T = 4096 and 16384, d = 96 .. 768;
// GELU over the MLP's hidden activations (rows x 4d), the adds over rows x d. Bytes are the
// minimum traffic (each input read once, each output written once). Each timed case is first
// checked against the reference on its first 2^20 elements.
#include <algorithm>

#include "elementwise/reference.hpp"
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/kernels/elementwise/gelu_backward.hpp"
#include "wgslvk/kernels/elementwise/gelu_forward.hpp"
#include "wgslvk/kernels/elementwise/pos_embed_add.hpp"
#include "wgslvk/kernels/elementwise/residual_add.hpp"
#include "wgslvk/kernels/elementwise/residual_add_inplace.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace {

using namespace wgslvk;
using namespace wgslvk::validate;
namespace eref = wgslvk::elementwise::ref;
namespace ks = wgslvk::kernels::elementwise;

constexpr uint64_t kCheck = 1u << 20;

using wgslvk::bench::fast_uniform;

void check_first(CaseBuilder& b, const std::string& buf, const eref::Expected& e) {
  std::vector<float> bound(e.bound.begin(), e.bound.end()),
      mag(e.magnitude.begin(), e.magnitude.end());
  auto& k =
      b.check_ulp(buf, Array::of(DType::F32, e.value), 0, "reference.hpp bound, first elements");
  CaseBuilder::per_element_bound(k, bound);
  CaseBuilder::magnitude(k, mag);
}

// The kernels' dims uniform (vec4<u32>): vec4 count, then pos_embed_add's d/4 and T.
std::array<uint32_t, 4> dims(uint64_t n4, uint32_t d4 = 0, uint32_t T = 0) {
  return {uint32_t(n4), d4, T, 0};
}

Case gelu_case(uint64_t n, bool backward) {
  CaseBuilder b;
  auto x = fast_uniform(n + backward, n, -6, 6);
  const uint64_t m = std::min(n, kCheck);
  b.input("x", DType::F32, x);
  if (backward) {
    auto& d = b.dispatch(ks::gelu_backward::Kernel{});
    auto dy = fast_uniform(n + 7, n, -1, 1);
    b.input("dy", DType::F32, dy);
    b.output("dx", DType::F32, n);
    CaseBuilder::bind(d, ks::gelu_backward::binding::gb_x, "x");
    CaseBuilder::bind(d, ks::gelu_backward::binding::gb_dy, "dy");
    CaseBuilder::bind(d, ks::gelu_backward::binding::gb_dx, "dx");
    CaseBuilder::bind_uniform(d, ks::gelu_backward::binding::gb_dims, dims(n / 4));
    d.workgroups_1d = elementwise::workgroups_for(n);
    check_first(b, "dx",
                eref::gelu_backward_expected(std::span(x).first(m), std::span(dy).first(m)));
  } else {
    auto& d = b.dispatch(ks::gelu_forward::Kernel{});
    b.output("y", DType::F32, n);
    CaseBuilder::bind(d, ks::gelu_forward::binding::gf_x, "x");
    CaseBuilder::bind(d, ks::gelu_forward::binding::gf_y, "y");
    CaseBuilder::bind_uniform(d, ks::gelu_forward::binding::gf_dims, dims(n / 4));
    d.workgroups_1d = elementwise::workgroups_for(n);
    check_first(b, "y", eref::gelu_forward_expected(std::span(x).first(m)));
  }
  return b.c;
}

Case add_case(uint64_t n, bool inplace) {
  CaseBuilder b;
  auto a = fast_uniform(n + 11, n, -4, 4), bb = fast_uniform(n + 13, n, -4, 4);
  const uint64_t m = std::min(n, kCheck);
  auto want = eref::residual_add_f32(std::span(a).first(m), std::span(bb).first(m));
  b.input("a", DType::F32, a);
  b.input("b", DType::F32, bb);
  if (inplace) {
    namespace ri = ks::residual_add_inplace;
    auto& d = b.dispatch(ri::Kernel{});
    CaseBuilder::bind(d, ri::binding::ri_a, "a");
    CaseBuilder::bind(d, ri::binding::ri_b, "b");
    CaseBuilder::bind_uniform(d, ri::binding::ri_dims, dims(n / 4));
    d.workgroups_1d = elementwise::workgroups_for(n);
  } else {
    namespace ra = ks::residual_add;
    b.output("out", DType::F32, n);
    auto& d = b.dispatch(ra::Kernel{});
    CaseBuilder::bind(d, ra::binding::ra_a, "a");
    CaseBuilder::bind(d, ra::binding::ra_b, "b");
    CaseBuilder::bind(d, ra::binding::ra_out, "out");
    CaseBuilder::bind_uniform(d, ra::binding::ra_dims, dims(n / 4));
    d.workgroups_1d = elementwise::workgroups_for(n);
  }
  // In place, every timed repeat adds b again: only the first run is checked (time_case checks
  // before timing).
  b.check_exact(inplace ? "a" : "out", Array::of(DType::F32, want), "one f32 add: exact");
  return b.c;
}

Case pos_case(uint32_t rows, uint32_t T, uint32_t d) {
  CaseBuilder b;
  const uint64_t n = uint64_t(rows) * d;
  auto x = fast_uniform(n + 17, n, -4, 4), pos = fast_uniform(T + 19, uint64_t(T) * d, -1, 1);
  const uint32_t mr = uint32_t(std::min<uint64_t>(rows, kCheck / d));
  auto want = eref::pos_embed_add_f32(std::span(x).first(uint64_t(mr) * d), pos, mr, T, d);
  b.input("x", DType::F32, x);
  b.input("pos", DType::F32, pos);
  namespace pe = ks::pos_embed_add;
  auto& k = b.dispatch(pe::Kernel{});
  CaseBuilder::bind(k, pe::binding::pe_x, "x");
  CaseBuilder::bind(k, pe::binding::pe_pos, "pos");
  CaseBuilder::bind_uniform(k, pe::binding::pe_dims, dims(n / 4, d / 4, T));
  k.workgroups_1d = elementwise::workgroups_for(n);
  b.check_exact("x", Array::of(DType::F32, want), "one f32 add: exact");
  return b.c;
}

bool under_cap(const bench::Ctx& c, uint64_t n) {
  return c.options().max_elems == 0 || n <= c.options().max_elems;
}

void bench_elementwise(bench::Ctx& c) {
  std::vector<uint32_t> rows =
      c.quick() ? std::vector<uint32_t>{256} : std::vector<uint32_t>{4096, 16384};
  std::vector<uint32_t> ds =
      c.quick() ? std::vector<uint32_t>{96, 768} : std::vector<uint32_t>{96, 128, 192, 256, 768};
  const uint32_t T = 256;
  for (uint32_t r : rows)
    for (uint32_t d : ds) {
      const uint64_t n = uint64_t(r) * d, nh = n * 4;
      const nlohmann::json dims = {{"rows", r}, {"d", d}};
      auto row = [&](const char* k, uint64_t elems, uint64_t bytes, const char* rule, double fl) {
        bench::Row w;
        w.kernel = k;
        w.label = "rows=" + std::to_string(r) + " d=" + std::to_string(d) +
                  " n=" + bench::human_count(elems);
        w.dims = dims;
        w.dims["n"] = elems;
        w.bytes = bytes;
        w.bytes_rule = rule;
        w.flops = fl;
        return w;
      };
      if (under_cap(c, nh) && c.selected("elementwise", "gelu_forward"))
        bench::time_case(c, gelu_case(nh, false),
                         row("gelu_forward", nh, nh * 8, "read x, write y (rows x 4d)", 0));
      if (under_cap(c, nh) && c.selected("elementwise", "gelu_backward"))
        bench::time_case(c, gelu_case(nh, true),
                         row("gelu_backward", nh, nh * 12, "read x, dy, write dx (rows x 4d)", 0));
      if (c.selected("elementwise", "residual_add"))
        bench::time_case(c, add_case(n, false),
                         row("residual_add", n, n * 12, "read a, b, write out", double(n)));
      if (c.selected("elementwise", "residual_add_inplace"))
        bench::time_case(c, add_case(n, true),
                         row("residual_add_inplace", n, n * 12, "read a, b, write a", double(n)));
      if (c.selected("elementwise", "pos_embed_add")) {
        auto w = row("pos_embed_add", n, n * 8 + uint64_t(T) * d * 4,
                     "read x, write x, read pos (T = 256) once", double(n));
        w.dims["T"] = T;
        bench::time_case(c, pos_case(r, T, d), w);
      }
    }
}

}  // namespace

WGSLVK_REGISTER_BENCH("elementwise", bench_elementwise);
