// The matmul kernels (TinyGPT's engineering log's family and our matmul_native.wgsl) against their CPU
// reference: square, tall/skinny, wide, K = 1 and odd shapes; the transposed-operand, bias and
// accumulate flags a GPT layer's forward and backward need; every variant against the naive kernel
// on non-square shapes (the seed's lesson); vec4 on shapes it cannot take; the seed's silent
// access-mode bug as an R9 refusal; NaN/Inf propagation; 2-D grids; the bias-gradient column sum.
// The >65535-workgroup grids are in test_matmul_grid.cpp (slow).
#include <functional>  // std::bind: bind(slot, buffer) must still pick wgslvk::bind (below)
#include <type_traits>

#include "matmul_test_util.hpp"
#include "wgslvk/kernels/matmul/matmul_bias_grad.hpp"

namespace wgslvk::matmul_test {
namespace {

// A slot whose element type is a std type (vec4<f32> rows: std::array<float, 4>) with a non-const
// or temporary Buffer: argument-dependent lookup would offer std::bind, which matches better than
// a function template taking const Buffer&; wgslvk::bind is an object, so it is not consulted.
static_assert(std::is_same_v<decltype(bind(mk::matmul_vec4::binding::a4, std::declval<Buffer&>())),
                             KernelEntry<mk::matmul_vec4::Kernel>>);
static_assert(
    std::is_same_v<decltype(bind(mk::matmul_vec4::binding::a4, std::declval<Buffer>(), 0)),
                   KernelEntry<mk::matmul_vec4::Kernel>>);

// The kernels reading vec4 need lda, ldb % 4 == 0; for them the same case uses a nearby
// aligned shape (same edge-tile situation).
Dims for_kernel(Kernel k, Dims d, Dims aligned) { return matmul::supports(k, d) ? d : aligned; }

TEST(Matmul, ShapesMatchReference) {
  auto g = testing::rng();
  struct Shape {
    const char* what;
    Dims d, aligned;
  };
  const Shape shapes[] = {
      {"square", {48, 48, 48}, {48, 48, 48}},
      {"tall/skinny", {150, 6, 20}, {150, 8, 20}},
      {"wide", {6, 150, 20}, {6, 152, 20}},
      {"K = 1", {33, 40, 1}, {36, 40, 1, matmul::kTransA}},  // A^T [1, 36]: lda = 36
      {"odd", {65, 129, 33}, {65, 132, 36}},
  };
  for (const auto& s : shapes)
    for (Kernel k : kKernels) {
      Dims d = for_kernel(k, s.d, s.aligned);
      auto in = random_inputs(g, d);
      double worst = check_kernel(k, d, in, s.what);
      std::printf("%-16s %-12s worst %.3g ULPs of S (bound %.3g)\n", name(k).c_str(), s.what, worst,
                  ref::bound_ulps(ref::terms(d)));
    }
}

// What a GPT layer needs: y = x W + b, dX = dY W^T, dW (+)= X^T dY, and all flags at once.
TEST(Matmul, FlagsForForwardAndBackward) {
  auto g = testing::rng(1);
  const uint32_t all = matmul::kTransA | matmul::kTransB | matmul::kAddBias | matmul::kAccumulate;
  for (uint32_t flags : {uint32_t(matmul::kAddBias), uint32_t(matmul::kTransB),
                         uint32_t(matmul::kTransA | matmul::kAccumulate), all})
    for (Kernel k : kKernels) {
      Dims d = for_kernel(k, {37, 45, 29, flags}, {36, 44, 28, flags});
      auto in = random_inputs(g, d);
      check_kernel(k, d, in, "flags " + std::to_string(flags));
    }
}

TEST(Matmul, GptLayerShapesFromDimsHelpers) {
  auto g = testing::rng(2);
  const uint32_t rows = 40, d_in = 24, d_out = 36;
  for (Dims d : {Dims::forward(rows, d_in, d_out, true), Dims::grad_input(rows, d_in, d_out),
                 Dims::grad_weight(rows, d_in, d_out, true)})
    for (Kernel k : kKernels) {
      auto in = random_inputs(g, d);
      check_kernel(k, d, in, "GPT layer product");
    }
  // The helpers' shapes: W is [d_in, d_out] in all three.
  EXPECT_EQ(Dims::forward(rows, d_in, d_out).b_count(), uint64_t(d_in) * d_out);
  EXPECT_EQ(Dims::grad_input(rows, d_in, d_out).b_count(), uint64_t(d_in) * d_out);
  EXPECT_EQ(Dims::grad_weight(rows, d_in, d_out).c_count(), uint64_t(d_in) * d_out);
}

// The seed's lesson ("standalone square benches missed the non-square bug"): every variant equals
// the naive kernel within 2 gamma_n S on the same non-square inputs (B f16-rounded for all, so
// matmul_tiled_f16 sees the same numbers).
TEST(Matmul, EveryVariantEqualsNaiveOnNonSquareShapes) {
  auto g = testing::rng(3);
  for (Dims d : {Dims{70, 92, 52}, Dims{92, 52, 72, matmul::kTransA | matmul::kTransB},
                 Dims{130, 20, 132, matmul::kAddBias}}) {
    auto in = random_inputs(g, d);
    in.b = effective_b(Kernel::TiledF16, in.b, d);
    auto naive = run(Kernel::Naive, d, in);
    auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
    const double bound = ref::bound_vs_naive_ulps(ref::terms(d));
    for (Kernel k : kKernels) {
      if (k == Kernel::Naive) continue;
      ASSERT_TRUE(matmul::supports(k, d)) << name(k);
      auto got = run(k, d, in);
      size_t bad = 0;
      for (size_t i = 0; i < d.c_count(); ++i)
        if (!(ref::ulps_of_magnitude(got[i], naive[i], e.magnitude[i]) <= bound) && ++bad <= 3)
          ADD_FAILURE() << name(k) << " vs naive M=" << d.M << " N=" << d.N << " K=" << d.K
                        << " at " << i << ": " << got[i] << " vs " << naive[i];
      EXPECT_EQ(bad, 0u) << name(k);
    }
  }
}

// A K-term sum within (17/16 K + 1) ULPs of S: a kernel that drops or doubles the largest product
// of an element (at least S / K) is far outside it, and so is a kernel fed one wrong weight when
// the terms are of similar size (values spanning binades make most single terms negligible: a
// term of 2^-12 against S ~ 2^12 is below one ULP of S, and no bound can see it).
TEST(Matmul, BoundCatchesALostOrDoubledTerm) {
  auto g = testing::rng(4);
  Dims d{9, 11, 64};
  auto in = random_inputs(g, d);
  auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
  for (size_t i = 0; i < d.c_count(); ++i) {
    uint64_t r = i / d.N, col = i % d.N;
    double term = 0;
    for (uint64_t k = 0; k < d.K; ++k) {
      double t = double(in.a[r * d.K + k]) * in.b[k * d.N + col];
      if (std::abs(t) > std::abs(term)) term = t;
    }
    float lost = float(double(e.value[i]) - term), doubled = float(double(e.value[i]) + term);
    EXPECT_GT(ref::ulps_of_magnitude(lost, e.value[i], e.magnitude[i]), e.bound) << i;
    EXPECT_GT(ref::ulps_of_magnitude(doubled, e.value[i], e.magnitude[i]), e.bound) << i;
  }
  // A kernel run that is off: blocked4 with B[0, 5] changed by half, on inputs of one binade.
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  for (auto* v : {&in.a, &in.b})
    for (auto& x : *v) x = (g() & 1) ? u(g) : -u(g);
  e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);
  auto broken = in;
  broken.b[5] *= 1.5f;
  auto got = run(Kernel::Blocked4, d, broken);
  size_t outside = 0;
  for (size_t i = 0; i < d.c_count(); ++i)
    outside += ref::ulps_of_magnitude(got[i], e.value[i], e.magnitude[i]) > e.bound;
  EXPECT_EQ(outside, d.M) << "changing B[0, 5] must move column 5 of every row out of the bound";
}

// vec4 (and native) on a shape whose stored rows are not multiples of 4: the kernel writes
// nothing (its uniform early return), the host's choice falls back to blocked4.
TEST(Matmul, Vec4RefusesUnalignedRowsAndTheHostFallsBack) {
  auto g = testing::rng(5);
  for (Dims d : {Dims{40, 40, 33}, Dims{40, 42, 32}, Dims{37, 40, 32, matmul::kTransA},
                 Dims{40, 40, 30, matmul::kTransB}}) {
    EXPECT_FALSE(matmul::vec4_aligned(d));
    auto in = random_inputs(g, d);
    for (Kernel k : {Kernel::Vec4, Kernel::Native}) {
      // Inputs whose element count is not a multiple of 4 are bound padded (vec4 bindings).
      Inputs padded = in;
      padded.a.resize((in.a.size() + 3) / 4 * 4, 1.0f);
      padded.b.resize((in.b.size() + 3) / 4 * 4, 1.0f);
      EXPECT_TRUE(all_poison(run(k, d, padded)))
          << name(k) << " wrote to C for M=" << d.M << " N=" << d.N << " K=" << d.K;
    }
    Kernel pick = matmul::vec4_or_fallback(d);
    EXPECT_EQ(pick, Kernel::Blocked4);
    check_kernel(pick, d, in, "fallback");
  }
  EXPECT_EQ(matmul::vec4_or_fallback({40, 40, 32}), Kernel::Vec4);
}

// ---- the seed's silent bug: access modes against an explicit layout (R9) ------------------------

// The production layout said "storage" for every binding; the first vec4 kernel declared A and B
// `var<storage, read>`. A browser returned wrong data; the runtime refuses the pipeline.
TEST(MatmulSeedBug, ReadOnlyVec4UnderAllStorageLayoutIsRefusedWithR9) {
  auto layout = all_storage_layout();
  try {
    device().create_compute_pipeline(
        {"", &mk::matmul_vec4_readonly::Kernel::info(), layout, false});
    ADD_FAILURE() << "matmul_vec4_readonly was accepted under an all-storage layout";
  } catch (const ValidationError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.rule(), "R9") << m;
    // The message names the kernel, the binding and both sides, as a user reads them.
    for (const char* frag :
         {"matmul/matmul_vec4_readonly", "@group(0) @binding(0)", "a4_ro", "(read-only-storage)",
          "entry type (storage)", "all-storage (seed production layout)"})
      EXPECT_NE(m.find(frag), std::string::npos) << "message lacks \"" << frag << "\": " << m;
  }
}

// The fix (every binding read_write) passes the ABI check (it was built) and runs correctly under
// that explicit layout; so does every other seed kernel (blocked4 "was wired into train.wgsl as a
// drop-in replacement"). Our native kernel declares its inputs read-only: refused there too.
TEST(MatmulSeedBug, FixedKernelsRunUnderTheAllStorageLayout) {
  auto g = testing::rng(6);
  auto layout = all_storage_layout();
  Dims d{65, 132, 36, matmul::kAddBias};
  auto in = random_inputs(g, d);
  for (Kernel k : {Kernel::Naive, Kernel::Tiled, Kernel::Blocked4, Kernel::Vec4, Kernel::Blocked8,
                   Kernel::TiledF16}) {
    const KernelInfo& ki = info(k);
    for (const KernelBinding& b : ki.bindings) {  // A, B, C, bias read_write; dims the uniform
      if (b.type != BindingType::Uniform) {
        EXPECT_EQ(b.type, BindingType::Storage) << name(k) << " " << b.name;
      }
    }
    ComputePipeline p = device().create_compute_pipeline({"", &ki, layout, false});
    check_kernel(k, d, in, "explicit all-storage layout", {.pipe = &p});
  }
  EXPECT_THROW(device().create_compute_pipeline({"", &info(Kernel::Native), layout, false}),
               ValidationError);
}

// With layout "auto" (the standalone bench's setting) the read-only kernel is correct: the bug was
// only ever the layout mismatch.
TEST(MatmulSeedBug, ReadOnlyVec4IsCorrectUnderAutoLayout) {
  auto g = testing::rng(7);
  Dims d{70, 92, 52};
  auto in = random_inputs(g, d);
  check_kernel(Kernel::Vec4Readonly, d, in, "auto layout");
}

// ---- NaN / Inf ----------------------------------------------------------------------------------

// A NaN in A row r makes C row r NaN; +inf in B (k1, j) gives C[i, j] = +-inf by the sign of
// a_i,k1; a second inf of the other sign in the same column gives NaN where the signs differ;
// a 0 in A against that inf gives NaN (0 * inf). Every kernel computes the plain IEEE sum, so the
// reference (double, same IEEE rules) predicts each element; finite elements keep their bound.
TEST(Matmul, NanAndInfPropagate) {
  auto g = testing::rng(8);
  for (Kernel k : kKernels) {
    Dims d = for_kernel(k, {37, 45, 29}, {36, 44, 28});
    auto in = random_inputs(g, d);
    auto put_a = [&](uint32_t r, uint32_t kk, float v) { in.a[uint64_t(r) * d.K + kk] = v; };
    auto put_b = [&](uint32_t kk, uint32_t c, float v) { in.b[uint64_t(kk) * d.N + c] = v; };
    put_a(3, 5, std::numeric_limits<float>::quiet_NaN());
    put_b(7, 10, std::numeric_limits<float>::infinity());
    put_b(9, 20, std::numeric_limits<float>::infinity());
    put_b(11, 20, -std::numeric_limits<float>::infinity());
    put_a(30, 7, 0.0f);  // 0 * inf in C[30, 10]
    auto got = run(k, d, in);
    auto e = ref::matmul(in.a, effective_b(k, in.b, d), in.bias, in.c_old, d);
    expect_within(got, e, d, "NaN/Inf [" + name(k) + "]");
    // The expectations themselves, spelled out.
    for (uint32_t c = 0; c < d.N; ++c) EXPECT_TRUE(std::isnan(got[3 * d.N + c])) << name(k);
    EXPECT_TRUE(std::isnan(got[30 * d.N + 10])) << name(k);
    EXPECT_TRUE(std::isinf(got[0 * d.N + 10])) << name(k);
    EXPECT_EQ(std::signbit(got[0 * d.N + 10]), std::signbit(in.a[7])) << name(k);
    size_t nan20 = 0;
    for (uint32_t r = 0; r < d.M; ++r) nan20 += std::isnan(got[r * d.N + 20]);
    EXPECT_GT(nan20, 1u) << name(k);  // +inf - inf
  }
}

// ---- grids --------------------------------------------------------------------------------------

// Five workgroups of work on an explicit 3 x 2 grid: flat_wg's row y = 1 does tiles 3 and 4, the
// sixth workgroup is surplus and must return (the tail stays poison).
TEST(Matmul, ExplicitTwoDimensionalGridWithSurplus) {
  auto g = testing::rng(9);
  for (Kernel k : kKernels) {
    uint32_t t = matmul::tile_edge(k);
    Dims d =
        t ? Dims{4 * t + 3, 8, 12} : Dims{5 * 256 - 8, 1, 12};  // 5 tile rows / 5 x 256 elements
    ASSERT_EQ(matmul::workgroups(k, d), 5u) << name(k);
    auto in = random_inputs(g, d);
    check_kernel(k, d, in, "3 x 2 grid", {.grid = std::array<uint32_t, 3>{3, 2, 1}});
  }
}

// ---- bias gradient --------------------------------------------------------------------------------

std::vector<float> run_bias_grad(const std::vector<float>& dy, std::vector<float> db, uint32_t M,
                                 uint32_t N, bool accumulate, uint32_t lanes = 0) {
  namespace bg = mk::matmul_bias_grad;
  Device& dev = device();
  static PipelineCache pipes(dev);
  Buffer bdy = upload(dev, dy, "dy"), bdb = upload(dev, db, "db");
  Buffer u = make_uniform(dev, bg::binding::bg_dims,
                          {M, N, accumulate ? uint32_t(matmul::kAccumulate) : 0u, lanes});
  // An invalid L (the kernel writes nothing) still gets the widest grid.
  const uint32_t wl = matmul::bias_grad_lanes_valid(lanes) ? lanes : 4;
  Grid grid = grid_for_workgroups(matmul::bias_grad_workgroups(N, wl), dev.limits());
  Dispatch op = make_dispatch(
      dev, pipes, bg::Kernel{},
      {bind(bg::binding::dy, bdy), bind(bg::binding::db, bdb), bind(bg::binding::bg_dims, u)},
      grid);
  CommandEncoder enc = dev.create_command_encoder();
  ComputePass pass = enc.begin_compute_pass();
  op.record(pass);
  pass.end();
  dev.queue().submit(enc.finish());
  return read<float>(dev, bdb);
}

TEST(MatmulBiasGrad, ColumnSumsAreDeterministicAndWithinBound) {
  auto g = testing::rng(10);
  // lanes 0 (= 4, the first form) .. 64: 64 .. 4 columns per workgroup; M below, equal to and
  // above L, N with a partial last workgroup.
  for (uint32_t lanes : {0u, 4u, 8u, 16u, 32u, 64u})
    for (auto [M, N] : {std::pair<uint32_t, uint32_t>{301, 70}, {1, 5}, {4, 130}, {257, 64}})
      for (bool acc : {false, true}) {
        auto dy = binades(g, uint64_t(M) * N);
        auto db_old = binades(g, N);
        std::vector<float> init = acc ? db_old : std::vector<float>(N + 3, poison_f32());
        if (acc) init.resize(N + 3, poison_f32());
        auto got = run_bias_grad(dy, init, M, N, acc, lanes);
        auto exact = ref::bias_grad_kernel_order(dy, db_old, M, N, acc, lanes);
        auto e = ref::bias_grad(dy, db_old, M, N, acc);
        for (uint32_t j = 0; j < N; ++j) {
          EXPECT_EQ(std::bit_cast<uint32_t>(got[j]), std::bit_cast<uint32_t>(exact[j]))
              << "L=" << lanes << " M=" << M << " N=" << N << " column " << j;
          EXPECT_LE(ref::ulps_of_magnitude(got[j], e.value[j], e.magnitude[j]), e.bound) << j;
        }
        for (uint32_t j = N; j < N + 3; ++j)
          EXPECT_EQ(std::bit_cast<uint32_t>(got[j]), testing::kPoisonBits) << "past db";
        auto again = run_bias_grad(dy, init, M, N, acc, lanes);
        EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + N),
                  std::vector<float>(again.begin(), again.begin() + N));
      }
}

TEST(MatmulBiasGrad, LanesChangeOnlyTheOrder) {
  // The same column sums with 4 and 64 lanes: each bit exact against its own order; 0 is 4.
  auto g = testing::rng(11);
  const uint32_t M = 1000, N = 9;
  auto dy = binades(g, uint64_t(M) * N);
  std::vector<float> init(N, poison_f32());
  auto l0 = run_bias_grad(dy, init, M, N, false, 0);
  auto l4 = run_bias_grad(dy, init, M, N, false, 4);
  EXPECT_EQ(l0, l4);
  auto l64 = run_bias_grad(dy, init, M, N, false, 64);
  auto o64 = ref::bias_grad_kernel_order(dy, {}, M, N, false, 64);
  for (uint32_t j = 0; j < N; ++j)
    EXPECT_EQ(std::bit_cast<uint32_t>(l64[j]), std::bit_cast<uint32_t>(o64[j])) << j;
  EXPECT_THROW(ref::bias_grad_kernel_order(dy, {}, M, N, false, 12), std::invalid_argument);
}

TEST(MatmulBiasGrad, InvalidLanesWriteNothing) {
  auto g = testing::rng(12);
  const uint32_t M = 40, N = 70;
  auto dy = binades(g, uint64_t(M) * N);
  for (uint32_t lanes : {1u, 2u, 12u, 128u, 0xFFFFFFFFu}) {
    auto got = run_bias_grad(dy, std::vector<float>(N, poison_f32()), M, N, false, lanes);
    for (uint32_t j = 0; j < N; ++j)
      EXPECT_EQ(std::bit_cast<uint32_t>(got[j]), testing::kPoisonBits) << lanes << " " << j;
  }
}

TEST(MatmulBiasGrad, HostRuleFillsTheGpuAtGptShapes) {
  // gpt110m (B*T = 2048): d 768, 2304, 3072 -> 64 lanes (192 workgroups at 768, 12 with 4);
  // the position-embedding gradient (M = batch 8, N = T*d) keeps 4; small shapes stay valid.
  EXPECT_EQ(matmul::bias_grad_lanes(2048, 768), 64u);
  EXPECT_EQ(matmul::bias_grad_workgroups(768, 64), 192u);
  EXPECT_EQ(matmul::bias_grad_lanes(2048, 2304), 64u);
  EXPECT_EQ(matmul::bias_grad_lanes(2048, 3072), 64u);
  EXPECT_EQ(matmul::bias_grad_lanes(4096, 16384), 8u);  // past 4096 columns: N * L <= 2^17
  EXPECT_EQ(matmul::bias_grad_lanes(256, 768), 32u);    // 8 rows per lane
  EXPECT_EQ(matmul::bias_grad_lanes(8, 256 * 768), 4u);
  EXPECT_EQ(matmul::bias_grad_workgroups(256 * 768, 4), 3072u);
  for (uint32_t M : {1u, 7u, 64u, 300u, 100000u})
    for (uint32_t N : {1u, 96u, 1u << 20})
      EXPECT_TRUE(matmul::bias_grad_lanes_valid(matmul::bias_grad_lanes(M, N))) << M << " " << N;
}

// ---- the f16 weights ------------------------------------------------------------------------------

TEST(MatmulTiledF16, PackingRoundsToNearestEvenAndPadsRows) {
  Dims d{1, 3, 2};  // B [2, 3]: rows of 3 halves in 2 words
  std::vector<float> b = {1.0f, 1.0f + 0x1p-11f, 65504.0f, -2.0f, 70000.0f, 0x1p-14f};
  auto w = matmul::pack_b_f16(b, d);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0], 0x3c003c00u);       // 1 + 2^-11 is a tie: rounds to even (1.0)
  EXPECT_EQ(w[1], 0x00007bffu);       // 65504, pad half 0
  EXPECT_EQ(w[2], 0x7c00c000u);       // -2, 70000 -> inf
  EXPECT_EQ(w[3], 0x00000400u);       // 2^-14, the smallest normal half
  Dims dt{3, 1, 3, matmul::kTransB};  // B stored [N=1, K=3]
  EXPECT_EQ(matmul::f16_words(dt), 2u);
}

TEST(MatmulTiledF16, AgainstUnroundedWeightsWithinTheF16Bound) {
  auto g = testing::rng(11);
  Dims d{33, 47, 40};
  auto in = random_inputs(g, d);
  auto got = run(Kernel::TiledF16, d, in);
  auto e = ref::matmul(in.a, in.b, in.bias, in.c_old, d);  // unrounded B
  e.bound = ref::bound_vs_f32_weights_ulps(ref::terms(d));
  expect_within(got, e, d, "tiled_f16 vs f32 weights");
}

}  // namespace
}  // namespace wgslvk::matmul_test
