// matmul_native (wgsl_ports/matmul/matmul_native.wgsl, ours) and its native-only measurement
// variant matmul_native_n64 (same .comp with NATIVE_BN=64: 128 x 64 tiles) on shapes spanning
// several output tiles in both directions with partial edge tiles, and several K stages with a
// partial last one (both double-buffer stages in use), under every combination of the four flags.
// Every element is checked against the double reference (bound_ulps of S), and the poisoned tail
// after C must stay poison. The accumulators are 16 separately named vec4 written out by hand, so
// a swapped row/column or a wrong stage offset lands whole products in the wrong element: far
// outside the bound (BoundCatchesALostOrDoubledTerm in test_matmul.cpp shows the scale).
// Split-K (matmul_native_splitk + matmul_splitk_reduce) the same way, at several slice counts.
// matmul_native_k16 (in the WGSL: 128 x 64 tiles, K stages of 16, 128 invocations) the same way,
// and against matmul_native element for element (the same fma chain per element).
#include <cmath>
#include <cstring>

#include "matmul_test_util.hpp"
#include "wgslvk/kernels/matmul/matmul_batched.hpp"
#include "wgslvk/kernels/matmul/matmul_native_k16.hpp"
#include "wgslvk/kernels/matmul/matmul_native_n64.hpp"
#include "wgslvk/kernels/matmul/matmul_native_splitk.hpp"
#include "wgslvk/kernels/matmul/matmul_splitk_reduce.hpp"

namespace wgslvk::matmul_test {
namespace {

// The n64 variant's dispatch: ceil(M/128) * ceil(N/64) workgroups (bench.cpp uses the same).
// Bound by matmul_native's slots, which entries_for checks against the variant's bindings.
std::vector<float> run_n64(const Dims& d, const Inputs& in) {
  const KernelInfo& k = mk::matmul_native_n64::Kernel::info();
  static ComputePipeline p = device().create_compute_pipeline({"", &k, {}, false});
  const uint32_t wgs = ((d.M + 127) / 128) * ((d.N + 63) / 64);
  return run(Kernel::Native, d, in,
             {.grid = std::array<uint32_t, 3>{wgs, 1, 1}, .pipe = &p, .variant = &k});
}

// matmul_native_k16: ceil(M/128) * ceil(N/64) workgroups (native_k16_workgroups).
std::vector<float> run_k16(const Dims& d, const Inputs& in) {
  const KernelInfo& k = mk::matmul_native_k16::Kernel::info();
  static ComputePipeline p = device().create_compute_pipeline({"", &k, {}, false});
  const uint32_t wgs = uint32_t(matmul::native_k16_workgroups(d));
  return run(Kernel::Native, d, in,
             {.grid = std::array<uint32_t, 3>{wgs, 1, 1}, .pipe = &p, .variant = &k});
}

// Elements of two results whose bits differ (NaNs of any payload count as equal).
size_t bits_differ(const std::vector<float>& x, const std::vector<float>& y) {
  size_t n = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    if (!(std::isnan(x[i]) && std::isnan(y[i])) && std::memcmp(&x[i], &y[i], sizeof(float)) != 0)
      ++n;
  return n + (x.size() > y.size() ? x.size() - y.size() : y.size() - x.size());
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
    // k16: 3 x 4 tiles of 128 x 64 (the last row and column partial), K 52 = 3 stages of 16 + 4.
    std::vector<float> native = run(Kernel::Native, d, in), k16 = run_k16(d, in);
    double w16 = expect_within(k16, e, d, "matmul_native_k16 flags " + std::to_string(flags));
    std::printf(
        "flags %2u: worst %.3g (native), %.3g (n64), %.3g (k16) ULPs of S, bound %.3g; "
        "k16 vs native: %zu of %zu elements differ in bits\n",
        flags, w, w64, w16, ref::bound_ulps(ref::terms(d)), bits_differ(k16, native),
        native.size());
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
    expect_within(run_k16(d, in), e, d, "matmul_native_k16");
  }
}

// k16's stage boundaries: K = 16 (one full stage), 20 (a stage of 4 after a full one), 36 and a
// transposed A whose 128-row tile holds 8 rows; N = 68 (a 64-column tile and one of 4).
TEST(MatmulNative, K16StagesAndThinTiles) {
  auto g = testing::rng(5);
  for (Dims d : {Dims{130, 68, 16, 0}, Dims{130, 68, 20, matmul::kTransB | matmul::kAddBias},
                 Dims{8, 132, 36, matmul::kTransA | matmul::kAccumulate}}) {
    auto in = random_inputs(g, d);
    auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
    expect_within(run_k16(d, in), e, d, "matmul_native_k16");
  }
}

// The GPT trainer's native_auto_fwd (apps/gpt/gpu_model.cpp) runs a product with a bias on
// matmul_batched (one product, 64 x 64 tiles) in two dispatches: C = the bias in every row (a
// K = 4 product of the row (1, 0, 0, 0) and the bias as each row of B, both with row length 0:
// fma(1, b, 0) = b, then fma(0, b, b) = b), then C = C + op(A) op(B) (ACCUMULATE). Each element is
// one fma chain in k order, as k16's, so C is bias + sum where k16 writes sum + bias: the same
// bits. Checked on the multi-tile shape for the bias flags without ACCUMULATE.
std::vector<float> run_batched_bias(const Dims& d, const Inputs& in) {
  namespace bm = mk::matmul_batched;
  Device& dev = device();
  static PipelineCache pipes(dev);
  constexpr uint32_t kTail = 16;
  Buffer a = upload(dev, in.a, "a");
  Buffer b = upload(dev, in.b, "b");
  Buffer one = upload(dev, std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f}, "one_row");
  Buffer bias = upload(dev, in.bias, "bias");
  Buffer c = upload(dev, std::vector<float>(d.c_count() + kTail, poison_f32()), "c");
  auto dims = [&](uint32_t lda, uint32_t ldb, uint32_t K, uint32_t flags) {
    bm::BmmDims u{};
    u.mnkf = {d.M, d.N, K, flags};
    u.ld = {lda, ldb, d.N, 1};
    return make_uniform(dev, bm::binding::bmdims, u);
  };
  Buffer u0 = dims(0, 0, 4, 0);
  Buffer u1 = dims(d.lda(), d.ldb(), d.K,
                   (d.flags & (matmul::kTransA | matmul::kTransB)) | matmul::kAccumulate);
  const auto grid =
      grid_for_workgroups(uint64_t((d.M + 63) / 64) * ((d.N + 63) / 64), dev.limits());
  using namespace bm::binding;
  Dispatch rows =
      make_dispatch(dev, pipes, bm::Kernel{},
                    {bind(bma, one), bind(bmb, bias), bind(bmc, c), bind(bmdims, u0)}, grid);
  Dispatch prod = make_dispatch(dev, pipes, bm::Kernel{},
                                {bind(bma, a), bind(bmb, b), bind(bmc, c), bind(bmdims, u1)}, grid);
  CommandEncoder enc = dev.create_command_encoder();
  ComputePass pass = enc.begin_compute_pass();
  rows.record(pass);
  prod.record(pass);
  pass.end();
  dev.queue().submit(enc.finish());
  return read<float>(dev, c);  // C and the poisoned tail (expect_within checks it)
}

TEST(MatmulNative, BatchedBiasRowsThenProductIsK16sBits) {
  auto g = testing::rng();
  for (uint32_t flags : {4u, 5u, 6u, 7u}) {  // ADD_BIAS with each transpose
    Dims d{264, 196, 52, flags};
    auto in = random_inputs(g, d);
    auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
    std::vector<float> k16 = run_k16(d, in), bmm = run_batched_bias(d, in);
    expect_within(bmm, e, d, "matmul_batched bias rows + product, flags " + std::to_string(flags));
    EXPECT_EQ(bits_differ(bmm, k16), 0u) << "flags " << flags;
  }
}

// Split-K (matmul_native_splitk + matmul_splitk_reduce, ours): `splits` raw partials into a
// scratch buffer (poisoned, with a poisoned tail that must stay), then the fixed-order reduce into
// C (+ bias, + old C). The result must be within bound_ulps of S of the double reference: a
// different summation order from matmul_native, the same bound (any order).
std::vector<float> run_splitk(const Dims& d, const Inputs& in, uint32_t splits) {
  namespace sk = mk::matmul_native_splitk;
  namespace rk = mk::matmul_splitk_reduce;
  Device& dev = device();
  static PipelineCache pipes(dev);
  constexpr uint32_t kTail = 16;
  Buffer a = upload(dev, in.a, "a");
  Buffer b = upload(dev, in.b, "b");
  std::vector<float> c0(d.c_count() + kTail, poison_f32());
  if (d.accumulate()) std::copy(in.c_old.begin(), in.c_old.end(), c0.begin());
  Buffer c = upload(dev, c0, "c");
  std::vector<float> p0(matmul::splitk_partial_floats(d, splits) + kTail, poison_f32());
  Buffer part = upload(dev, p0, "part");
  Buffer bias = upload(dev, in.bias.empty() ? std::vector<float>{7.0f} : in.bias, "bias");
  Buffer us =
      make_uniform(dev, sk::binding::ndims, {d.M, d.N, d.K, matmul::splitk_flags(d, splits)});
  Buffer ur = make_uniform(dev, rk::binding::rk_dims,
                           {d.M, d.N, splits, d.flags & (matmul::kAddBias | matmul::kAccumulate)});
  Dispatch split =
      make_dispatch(dev, pipes, sk::Kernel{},
                    {bind(sk::binding::na, a), bind(sk::binding::nb, b),
                     bind(sk::binding::nc, part), bind(sk::binding::ndims, us)},
                    grid_for_workgroups(matmul::splitk_workgroups(d, splits), dev.limits()));
  Dispatch reduce =
      make_dispatch(dev, pipes, rk::Kernel{},
                    {bind(rk::binding::rk_part, part), bind(rk::binding::rk_c, c),
                     bind(rk::binding::rk_bias, bias), bind(rk::binding::rk_dims, ur)},
                    grid_for_workgroups(matmul::splitk_reduce_workgroups(d), dev.limits()));
  CommandEncoder enc = dev.create_command_encoder();
  ComputePass pass = enc.begin_compute_pass();
  split.record(pass);
  reduce.record(pass);
  pass.end();
  dev.queue().submit(enc.finish());
  auto pv = read<float>(dev, part);
  for (size_t i = pv.size() - kTail; i < pv.size(); ++i)
    if (std::bit_cast<uint32_t>(pv[i]) != testing::kPoisonBits) {
      ADD_FAILURE() << "splitk: element " << i << " past the partials was written";
      break;
    }
  return read<float>(dev, c);
}

TEST(MatmulNativeSplitK, EveryFlagCombinationAndSeveralSplitCounts) {
  auto g = testing::rng(2);
  // K = 52: 7 stages of 8. S = 2 (slices of 32 and 20), 3 (24, 24, 4), 7 (one stage each, the
  // last partial). M, N: partial edge tiles in both directions.
  for (uint32_t flags = 0; flags < 16; ++flags)
    for (uint32_t s : {2u, 3u, 7u}) {
      Dims d{264, 196, 52, flags};
      ASSERT_TRUE(matmul::splitk_supported(d, s)) << s;
      auto in = random_inputs(g, d);
      auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
      double w = expect_within(run_splitk(d, in, s), e, d,
                               "splitk S=" + std::to_string(s) + " flags " + std::to_string(flags));
      if (s == 3)
        std::printf("flags %2u: splitk3 worst %.3g ULPs of S, bound %.3g\n", flags, w,
                    ref::bound_ulps(ref::terms(d)));
    }
}

// A slice must hold whole stages of 8 and none may be empty; beyond that a host may choose.
TEST(MatmulNativeSplitK, SliceRules) {
  EXPECT_EQ(matmul::splitk_chunk(52, 2), 32u);
  EXPECT_EQ(matmul::splitk_chunk(52, 3), 24u);
  EXPECT_EQ(matmul::splitk_chunk(2048, 8), 256u);
  EXPECT_TRUE(matmul::splitk_supported(Dims{264, 196, 52, 0}, 7));
  EXPECT_FALSE(matmul::splitk_supported(Dims{264, 196, 52, 0}, 8));  // 7 stages: one slice empty
  EXPECT_FALSE(matmul::splitk_supported(Dims{264, 196, 52, 0}, 1));  // not a split
  EXPECT_FALSE(matmul::splitk_supported(Dims{264, 198, 52, 0}, 2));  // N not a multiple of 4
  EXPECT_EQ(matmul::splitk_flags(Dims{8, 8, 8, 15}, 5), (5u << 16) | 3u);
  // The plan (reference.cpp, measured on an H200): from 66 tiles up k16 where K >= 512 and its
  // 128 x 64 grid fills the 396 resident workgroups better than native's fills 264, else native;
  // below 66 tiles enough slices for ~384 workgroups, each >= 192 of K.
  using V = matmul::NativePlan::Variant;
  auto plan = [](const Dims& d) { return matmul::native_plan_name(matmul::native_plan(d)); };
  EXPECT_EQ(matmul::native_plan(Dims{4096, 4096, 4096, 0}).variant, V::Native);
  EXPECT_EQ(plan(Dims{2048, 2048, 2048, 0}), "native");                // 256 tiles: .65 vs .97
  EXPECT_EQ(plan(Dims::grad_weight(2048, 768, 768)), "splitk11");      // 36 tiles, K 2048
  EXPECT_EQ(plan(Dims::grad_input(2048, 768, 3072)), "k16");           // 96 tiles: .48 vs .36
  EXPECT_EQ(plan(Dims::forward(2048, 768, 3072)), "k16");              // 384 tiles: .97 vs .73
  EXPECT_EQ(plan(Dims::grad_weight(2048, 768, 3072)), "k16");          // 144 tiles: .73 vs .55
  EXPECT_EQ(plan(Dims{4096, 4096, 4096, 0}), "native");                // 1024 tiles: .97 vs .86
  EXPECT_EQ(plan(Dims::forward(2048, 256, 1024)), "native");           // 128 tiles, K 256 (xl)
  EXPECT_EQ(plan(Dims::grad_input(2048, 768, 256)), "native");         // 96 tiles, K 256
  EXPECT_EQ(plan(Dims::forward(2048, 768, 256)), "splitk4");           // 32 tiles, K 768: 4 x 192
  EXPECT_EQ(plan(Dims::forward(4096, 3072, 768)), "k16");              // 192 tiles: .97 vs .73
  EXPECT_EQ(plan(Dims{2048, 256, 256, 0}), "native");                  // K 256: slices too short
  EXPECT_EQ(plan(Dims{768, 256, 2048, matmul::kTransA}), "splitk11");  // 12 tiles
  EXPECT_EQ(plan(Dims{64, 66, 4096, 0}), "native");                    // N not a multiple of 4
}

// Several slices with the real GPT reduction shape's proportions: K long against the tile.
TEST(MatmulNativeSplitK, LongK) {
  auto g = testing::rng(3);
  Dims d = Dims::grad_weight(1024, 132, 68, true);  // M 132, N 68, K 1024 (TRANS_A | ACCUMULATE)
  for (uint32_t s : {2u, 4u, 16u}) {
    auto in = random_inputs(g, d);
    auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
    expect_within(run_splitk(d, in, s), e, d, "splitk long K S=" + std::to_string(s));
  }
}

}  // namespace
}  // namespace wgslvk::matmul_test
