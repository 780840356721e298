// The typed kernel headers (translator/README.md, "Typed kernel headers"): their uniform structs
// have WGSL's layout (checked here and by the headers' own static_asserts), their slots name the
// right binding, and each header is exactly what kernel_header() writes from the embedded
// KernelInfo, so a kernel loaded at run time (--wgsl, --port) gets the same description.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "wgslvk/kernels/adafactor/adafactor_sq_sums.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2.hpp"
#include "wgslvk/kernels/norm/layernorm_forward.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq_partials.hpp"
#include "wgslvk/translator.hpp"

namespace {

namespace fs = std::filesystem;
using namespace wgslvk;
namespace ln = wgslvk::kernels::norm::layernorm_forward;
namespace fa2 = wgslvk::kernels::attention::attn_fwd_fa2;

// The layout the WGSL declares (04_norm.wgsl's LnParams: rows, d, eps, rows_per_block).
static_assert(sizeof(ln::LnParams) == 16);
static_assert(offsetof(ln::LnParams, eps) == 8);
static_assert(std::is_same_v<decltype(ln::LnParams::eps), float>);
static_assert(std::is_same_v<decltype(ln::binding::lf)::value_type, ln::LnParams>);
static_assert(std::is_same_v<decltype(ln::binding::lf_x)::value_type, std::array<float, 4>>);
static_assert(std::is_same_v<decltype(ln::binding::lf_mean)::value_type, float>);
static_assert(ln::binding::lf.binding == 6 && ln::binding::lf.type == BindingType::Uniform);
static_assert(ln::binding::lf_x.type == BindingType::ReadOnlyStorage);
static_assert(ln::binding::lf_y.type == BindingType::Storage);
static_assert(ln::name == "norm/layernorm_forward");
// AttnParams: batch, seq, heads, head_dim, scale and three words of padding up to 32 bytes.
static_assert(sizeof(fa2::AttnParams) == 32);
static_assert(offsetof(fa2::AttnParams, scale) == 16);
static_assert(fa2::Kernel::workgroups(0) == 1);
static_assert(fa2::Kernel::workgroups(fa2::Kernel::workgroup_threads + 1) == 2);
// adafactor_sq_sums has two uniforms (AfDims, AfHp): one struct each.
namespace sq = wgslvk::kernels::adafactor::adafactor_sq_sums;
static_assert(sizeof(sq::AfHp) == 48);
static_assert(std::is_same_v<decltype(sq::binding::sq_hp)::value_type, sq::AfHp>);
static_assert(std::is_same_v<decltype(sq::binding::sq_dims)::value_type, sq::AfDims>);
// A scalar uniform's slot carries the scalar.
static_assert(
    std::is_same_v<
        decltype(wgslvk::kernels::optimizer::reduce_norm_sq_partials::binding::n_det)::value_type,
        uint32_t>);

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(KernelHeaders, EveryHeaderIsWhatKernelHeaderWritesFromTheEmbeddedRecord) {
  const fs::path dir = WGSLVK_KERNEL_HEADER_DIR;
  size_t n = 0;
  for (const KernelInfo* k : embedded_kernels()) {
    fs::path p =
        dir / "wgslvk" / "kernels" / std::string(k->file) / (std::string(k->name) + ".hpp");
    ASSERT_TRUE(fs::exists(p)) << p;
    EXPECT_EQ(read_text(p), translator::kernel_header(*k)) << k->qualified_name();
    ++n;
  }
  EXPECT_GT(n, 60u);
}

TEST(KernelHeaders, UniformFieldsAreEmbeddedForEveryUniform) {
  for (const KernelInfo* k : embedded_kernels())
    for (const auto& b : k->bindings) {
      if (b.type != BindingType::Uniform) {
        EXPECT_TRUE(b.fields.empty()) << k->qualified_name() << " " << b.name;
        continue;
      }
      ASSERT_FALSE(b.fields.empty()) << k->qualified_name() << " " << b.name;
      const auto& last = b.fields.back();
      EXPECT_LE(last.offset + last.size, b.min_binding_size) << k->qualified_name();
    }
  const KernelBinding* u = kernel("norm/layernorm_forward").find_binding(0, 6);
  ASSERT_NE(u, nullptr);
  ASSERT_EQ(u->fields.size(), 4u);
  EXPECT_EQ(u->fields[2].name, "eps");
  EXPECT_EQ(u->fields[2].wgsl_type, "f32");
  EXPECT_EQ(u->fields[2].offset, 8u);
  EXPECT_EQ(u->fields[3].name, "rows_per_block");
  // A scalar uniform: one field, the binding itself.
  const KernelInfo& scalar = kernel(kernels::optimizer::reduce_norm_sq_partials::name);
  for (const auto& b : scalar.bindings)
    if (b.type == BindingType::Uniform) {
      ASSERT_EQ(b.fields.size(), 1u);
      EXPECT_EQ(b.fields[0].name, b.name);
      EXPECT_EQ(b.fields[0].offset, 0u);
    }
}

// A kernel translated at run time from the same WGSL carries the same uniform description, and
// kernel_header() writes it the same header but for its name.
TEST(KernelHeaders, RunTimeKernelGetsTheSameDescription) {
  translator::WgslFiles w;
  w.wgsl_path = std::string(WGSLVK_TEST_SOURCE_DIR) + "/wgsl_ports/norm/04_norm.wgsl";
  w.family = "header_check";
  w.entries = {"layernorm_forward"};
  auto loaded = translator::load_wgsl(w);
  ASSERT_EQ(loaded.size(), 1u);
  const KernelInfo& mine = *loaded[0];
  const KernelInfo& shipped = kernel(ln::name);
  ASSERT_EQ(mine.bindings.size(), shipped.bindings.size());
  for (size_t i = 0; i < mine.bindings.size(); ++i) {
    const auto &a = mine.bindings[i], &b = shipped.bindings[i];
    ASSERT_EQ(a.fields.size(), b.fields.size()) << b.name;
    for (size_t f = 0; f < a.fields.size(); ++f) {
      EXPECT_EQ(a.fields[f].name, b.fields[f].name);
      EXPECT_EQ(a.fields[f].wgsl_type, b.fields[f].wgsl_type);
      EXPECT_EQ(a.fields[f].offset, b.fields[f].offset);
      EXPECT_EQ(a.fields[f].size, b.fields[f].size);
    }
  }
  std::string h = translator::kernel_header(mine);
  std::string expected = translator::kernel_header(shipped);
  for (auto [from, to] : {std::pair<std::string, std::string>{"norm/layernorm_forward",
                                                              "header_check/layernorm_forward"},
                          {"kernels::norm::", "kernels::header_check::"}})
    for (size_t at = 0; (at = expected.find(from, at)) != std::string::npos; at += to.size())
      expected.replace(at, from.size(), to);
  EXPECT_EQ(h, expected);
}

}  // namespace
