// More than 65535 workgroups (R12): the host lays them out on a 2-D grid (grid_for_workgroups) and
// every kernel numbers its tile by flat_wg. M = 1 keeps C small: one row of N outputs, N just past
// 65535 tiles. With K = 1 each output is the single product a * b rounded once (FMA or not), so
// the expected row is exact and cheap; vec4 needs K = 4 (A's row length a multiple of 4) and is
// checked against the reference bound.
// matmul_native (128 x 128 tiles) cannot get there within WebGPU's 128 MiB binding limit with
// vec4-aligned operands (M = 1 needs K = 4, so B is 4 x 8.4M floats = 134 MB); its flat_wg is the
// same code as blocked8's and is covered by the explicit 3 x 2 grid in test_matmul.cpp.
#include "matmul_test_util.hpp"

namespace wgslvk::matmul_test {
namespace {

TEST(MatmulGrid, MoreThan65535Workgroups) {
  auto g = testing::rng(20);
  const uint64_t lim = device().limits().max_compute_workgroups_per_dimension;
  for (Kernel k : {Kernel::Tiled, Kernel::TiledF16, Kernel::Blocked4, Kernel::Vec4,
                   Kernel::Blocked8, Kernel::Naive}) {
    uint32_t per = matmul::tile_edge(k) ? matmul::tile_edge(k) : 256;
    Dims d{1, uint32_t(per * (lim + 1) + 8), k == Kernel::Vec4 ? 4u : 1u};
    ASSERT_GT(matmul::workgroups(k, d), lim);
    Inputs in;
    in.a = binades(g, d.a_count());
    in.b = weights(g, d.b_count());
    auto got = run(k, d, in);
    auto b = effective_b(k, in.b, d);
    if (d.K == 1) {
      size_t bad = 0;
      for (uint64_t j = 0; j < d.N; ++j)
        if (std::bit_cast<uint32_t>(got[j]) != std::bit_cast<uint32_t>(in.a[0] * b[j]) &&
            ++bad <= 3)
          ADD_FAILURE() << name(k) << ": C[0, " << j << "] = " << got[j] << ", expected "
                        << in.a[0] * b[j];
      EXPECT_EQ(bad, 0u) << name(k);
      for (size_t i = d.N; i < got.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), testing::kPoisonBits) << name(k) << " past C";
    } else {
      expect_within(got, ref::matmul(in.a, b, in.bias, in.c_old, d), d, name(k) + " 2-D grid");
    }
  }
}

}  // namespace
}  // namespace wgslvk::matmul_test
