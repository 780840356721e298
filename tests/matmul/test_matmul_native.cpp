// matmul_native (wgsl_ports/matmul/matmul_native.wgsl, ours) and its native-only measurement
// variant matmul_native_n64 (same .comp with NATIVE_BN=64: 128 x 64 tiles) on shapes spanning
// several output tiles in both directions with partial edge tiles, and several K stages with a
// partial last one (both double-buffer stages in use), under every combination of the four flags.
// Every element is checked against the double reference (bound_ulps of S), and the poisoned tail
// after C must stay poison. The accumulators are 16 separately named vec4 written out by hand, so
// a swapped row/column or a wrong stage offset lands whole products in the wrong element: far
// outside the bound (BoundCatchesALostOrDoubledTerm in test_matmul.cpp shows the scale).
#include "matmul_test_util.hpp"

namespace wgslvk::matmul_test {
namespace {

// The n64 variant's dispatch: ceil(M/128) * ceil(N/64) workgroups (bench.cpp uses the same).
std::vector<float> run_n64(const Dims& d, const Inputs& in) {
  static ComputePipeline p = device().create_compute_pipeline(
      {"", &wgslvk::kernel("matmul/matmul_native_n64"), {}, false});
  const uint32_t wgs = ((d.M + 127) / 128) * ((d.N + 63) / 64);
  return run(Kernel::Native, d, in, {.grid = std::array<uint32_t, 3>{wgs, 1, 1}, .pipe = &p});
}

TEST(MatmulNative, MultiTileShapesUnderEveryFlagCombination) {
  auto g = testing::rng();
  // M: 3 tile rows, the last with 8 rows; N: 2 tiles of 128 (4 of 64), the last partial; K: 7
  // stages of 8, the last with 4 (K and the stored row lengths stay multiples of 4).
  for (uint32_t flags = 0; flags < 16; ++flags) {
    Dims d{264, 196, 52, flags};
    ASSERT_TRUE(matmul::supports(Kernel::Native, d));
    auto in = random_inputs(g, d);
    auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
    double w = expect_within(run(Kernel::Native, d, in), e, d,
                             "matmul_native flags " + std::to_string(flags));
    double w64 =
        expect_within(run_n64(d, in), e, d, "matmul_native_n64 flags " + std::to_string(flags));
    std::printf("flags %2u: worst %.3g (native), %.3g (n64) ULPs of S, bound %.3g\n", flags, w, w64,
                ref::bound_ulps(ref::terms(d)));
  }
}

// One stage only (K = 4 < 8: the loop body runs once, no prefetch) and exactly one full tile.
TEST(MatmulNative, SingleStageAndExactTile) {
  auto g = testing::rng(1);
  for (Dims d : {Dims{128, 128, 4, 0}, Dims{128, 64, 8, matmul::kTransA | matmul::kTransB},
                 Dims{4, 4, 16, matmul::kAddBias}}) {
    auto in = random_inputs(g, d);
    auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
    expect_within(run(Kernel::Native, d, in), e, d, "matmul_native");
    expect_within(run_n64(d, in), e, d, "matmul_native_n64");
  }
}

}  // namespace
}  // namespace wgslvk::matmul_test
