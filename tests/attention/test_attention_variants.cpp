// The FA2 variants of attention_native.wgsl (ours) on the device against the double references,
// within the bounds of wgsl_ports/attention/reference.hpp (the same bounds as every path: no
// second copy), and against the ported kernels on the same inputs (within twice the bound: each
// is within the bound of the reference):
// - wide: attn_fwd_fa2_wide, attn_dscores_fa2_wide, attn_dv_fa2_wide (8 invocations per row), the
//   ported kernels' ABI and dispatch (the Gpu helper's buffers, only the kernel names change);
//   each backward kernel writes only its own columns.
// - tiled: attn_bwd_fa2_tiled (the whole FA2 backward in one dispatch, 32 x 32 register tiles),
//   dispatched through the host API (attention/host.hpp), also against the naive backward; and
//   attn_fwd_fa2_tiled (the FA2 forward on the same tiles) against the reference and the ported
//   FA2 forward.
// - tiled4: attn_bwd_fa2_tiled4 (attn_bwd_fa2_tiled with 4 x 4 blocks per invocation, head_dim
//   <= 64) against the reference, the ported FA2 backward and attn_bwd_fa2_tiled (the same
//   summation orders: the test prints how many of dqkv's values are bit-identical to tiled's).
// One parameterized suite runs the same checks over both (AttentionFa2Variant/*: T = 1, 15, 17,
// 33 and, tiled, 31, 32, 65 (tile edges, partial last tiles, the diagonal mask at tile edges);
// hd = 32, 64, 80, 128 and 1, 4, 13 (wide: not multiples of 8, some invocations own no column;
// tiled also 33: mostly padding); B*H = 4 at T = 100; scores of +-1e4; tied scores). Then each
// variant's own tests: hd > 128 writes nothing (the host API refuses it), bit-identical reruns,
// the host API's dispatch lists, and plausible indexing bugs (lse or dsum of the wrong row) fail
// the tiled checks.
#include "attention/host.hpp"
#include "wgslvk/kernels/attention/attn_bwd_fa2_tiled.hpp"
#include "wgslvk/kernels/attention/attn_bwd_fa2_tiled4.hpp"
#include "wgslvk/kernels/attention/attn_dscores_fa2_wide.hpp"
#include "wgslvk/kernels/attention/attn_dv_fa2_wide.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2_tiled.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2_wide.hpp"
#include "attention_test_util.hpp"

namespace wgslvk::attention::testing {
namespace {

// The wide kernels through the same buffers and dispatch as Gpu::fa2_forward / fa2_backward.
Gpu::Fwd wide_forward(Gpu& gpu, const std::vector<float>& qkv) {
  const Shape& s = gpu.s;
  Device& d = gpu.d;
  Buffer q = in_buffer(d, qkv, "qkv"), out = out_buffer(d, s.out_size(), "out"),
         lse = out_buffer(d, s.lse_size(), "lse");
  const KernelInfo& k = ak::attn_fwd_fa2_wide::Kernel::info();
  run(d, {gpu.fa2_grid(k, fwd_entries(k, gpu.params, q, out, lse))});
  return {{}, read_out(d, out, s.out_size(), "out"), read_out(d, lse, s.lse_size(), "lse")};
}
// `which`: bit 0 runs attn_dscores_fa2_wide (q columns), bit 1 attn_dv_fa2_wide (k, v columns).
std::vector<float> wide_backward(Gpu& gpu, const std::vector<float>& qkv,
                                 const std::vector<float>& dout, const std::vector<float>& lse,
                                 const std::vector<float>& dsum, int which = 3) {
  const Shape& s = gpu.s;
  Device& d = gpu.d;
  Buffer q = in_buffer(d, qkv, "qkv"), l = in_buffer(d, lse, "lse"), g = in_buffer(d, dout, "dout"),
         ds = in_buffer(d, dsum, "dsum"), dq = out_buffer(d, s.qkv_size(), "dqkv");
  std::vector<Dispatch> v;
  for (int i = 0; i < 2; ++i)
    if (which & (1 << i)) {
      const KernelInfo& k =
          i == 0 ? ak::attn_dscores_fa2_wide::Kernel::info() : ak::attn_dv_fa2_wide::Kernel::info();
      v.push_back(gpu.fa2_grid(k, bwd_entries(k, gpu.params, q, g, l, ds, dq)));
    }
  run(d, v);
  return read_out(d, dq, s.qkv_size(), "dqkv");
}

// Forward and backward: wide vs reference (the bounds), wide vs ported FA2 (twice the bound).
// The backward kernels get the device's own forward outputs (the ported FA2 forward's, and dsum
// from attn_dsum on them), within the forward bounds the backward bounds assume.
void check_wide(const Shape& s, const Inputs& in, bool log = true) {
  SCOPED_TRACE(shape_name(s));
  Device& dev = device();
  Gpu gpu(dev, s);
  const Expected e = expected_of(s, in, false);
  const auto &out = e.out, &lse = e.lse, &dqkv = e.dqkv;
  const ref::ForwardBounds& fb = e.fb;
  const ref::BackwardBounds& bb = e.bb;

  auto ported = gpu.fa2_forward(in.qkv);
  auto wide = wide_forward(gpu, in.qkv);
  auto c_out = expect_within(wide.out, out, fb.out_err, fb.out_mag, "wide out");
  auto c_lse = expect_within(wide.lse, lse, fb.lse_err, fb.lse_mag, "wide lse");
  expect_close(wide.out, ported.out, fb.out_err, "wide out vs fa2 out");
  expect_close(wide.lse, ported.lse, fb.lse_err, "wide lse vs fa2 lse");

  auto pb = gpu.fa2_backward(in.qkv, ported.out, ported.lse, in.dout);
  auto wdq = wide_backward(gpu, in.qkv, in.dout, ported.lse, pb.dsum);
  auto c_dq = expect_within(wdq, dqkv, bb.dqkv_err, bb.dqkv_mag, "wide dqkv");
  expect_close(wdq, pb.dqkv, bb.dqkv_err, "wide dqkv vs fa2 dqkv");
  // Each kernel writes only its own columns: the other columns stay poisoned.
  auto only_q = wide_backward(gpu, in.qkv, in.dout, ported.lse, pb.dsum, 1);
  auto only_kv = wide_backward(gpu, in.qkv, in.dout, ported.lse, pb.dsum, 2);
  size_t wrong = 0;
  for (uint64_t t = 0; t < s.rows(); ++t)
    for (uint64_t c = 0; c < 3 * s.d(); ++c) {
      const uint64_t e = t * 3 * s.d() + c;
      const bool q_col = c < s.d();
      const float a = only_q[e], b = only_kv[e];
      const bool ok = q_col ? (!is_poison(a) && is_poison(b) && a == wdq[e])
                            : (is_poison(a) && !is_poison(b) && b == wdq[e]);
      if (!ok && wrong++ < 5)
        ADD_FAILURE() << "dqkv[" << e << "]: dscores_wide alone " << a << ", dv_wide alone " << b
                      << ", both " << wdq[e];
    }
  EXPECT_EQ(wrong, 0u);
  if (log)
    std::printf(
        "%s wide: worst error / bound out %.3g lse %.3g dqkv %.3g; worst ULP of "
        "magnitude out %.3g lse %.3g dqkv %.3g\n",
        shape_name(s).c_str(), c_out.worst_ratio, c_lse.worst_ratio, c_dq.worst_ratio,
        c_out.worst_ulps, c_lse.worst_ulps, c_dq.worst_ulps);
}

// The dispatches of `v` (host.hpp) on the device: dqkv from qkv, dout, lse, dsum (poisoned, with
// a poisoned tail). `params`: the AttnParams buffer (the Gpu helper's unless given).
std::vector<float> run_backward(Gpu& gpu, Fa2Backward v, const std::vector<float>& qkv,
                                const std::vector<float>& dout, const std::vector<float>& lse,
                                const std::vector<float>& dsum) {
  const Shape& s = gpu.s;
  Device& d = gpu.d;
  Buffer q = in_buffer(d, qkv, "qkv"), l = in_buffer(d, lse, "lse"), g = in_buffer(d, dout, "dout"),
         ds = in_buffer(d, dsum, "dsum"), dq = out_buffer(d, s.qkv_size(), "dqkv");
  std::vector<Dispatch> list;
  for (const KernelDispatch& k : fa2_backward_dispatches(s, v)) {
    const KernelInfo& info = kernel(k.kernel);  // the host API names its kernels
    list.push_back(gpu.on(info, bwd_entries(info, gpu.params, q, g, l, ds, dq), k.x, k.y, k.z));
  }
  run(d, list);
  return read_out(d, dq, s.qkv_size(), "dqkv");
}

// Outside-the-bound count, without failing (for the broken-variant checks).
size_t count_outside(const std::vector<float>& got, std::span<const double> want,
                     std::span<const double> err) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double diff = std::fabs(double(got[i]) - double(float(want[i])));
    if (!(std::isfinite(got[i]) && diff <= err[i])) ++bad;
  }
  return bad;
}

// attn_fwd_fa2_tiled through the host API (out and lse poisoned, with a poisoned tail).
Gpu::Fwd tiled_forward(Gpu& gpu, const std::vector<float>& qkv) {
  const Shape& s = gpu.s;
  Device& d = gpu.d;
  Buffer q = in_buffer(d, qkv, "qkv"), out = out_buffer(d, s.out_size(), "out"),
         lse = out_buffer(d, s.lse_size(), "lse");
  const KernelDispatch k = fa2_forward_tiled_dispatch(s);
  const KernelInfo& info = kernel(k.kernel);  // the host API names its kernels
  run(d, {gpu.on(info, fwd_entries(info, gpu.params, q, out, lse), k.x, k.y, k.z)});
  return {{}, read_out(d, out, s.out_size(), "out"), read_out(d, lse, s.lse_size(), "lse")};
}

// The tiled backward on the device's own forward outputs (the ported FA2 forward's out and lse,
// dsum from attn_dsum: within the forward bounds the backward bounds assume) against the
// reference, the ported FA2 backward and the naive backward (att from the naive forward).
void check_tiled(const Shape& s, const Inputs& in, bool log = true) {
  SCOPED_TRACE(shape_name(s));
  Device& dev = device();
  Gpu gpu(dev, s);
  const Expected e = expected_of(s, in, false);
  const ref::BackwardBounds& bb = e.bb;

  auto ff = gpu.fa2_forward(in.qkv);
  // The tiled forward: the reference (the bounds) and the ported FA2 forward (twice the bound).
  auto tf = tiled_forward(gpu, in.qkv);
  auto c_out = expect_within(tf.out, e.out, e.fb.out_err, e.fb.out_mag, "tiled out");
  auto c_lse = expect_within(tf.lse, e.lse, e.fb.lse_err, e.fb.lse_mag, "tiled lse");
  expect_close(tf.out, ff.out, e.fb.out_err, "tiled out vs fa2 out");
  expect_close(tf.lse, ff.lse, e.fb.lse_err, "tiled lse vs fa2 lse");
  auto pb = gpu.fa2_backward(in.qkv, ff.out, ff.lse, in.dout);
  auto tiled = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, ff.lse, pb.dsum);
  auto c = expect_within(tiled, e.dqkv, bb.dqkv_err, bb.dqkv_mag, "tiled dqkv");
  expect_close(tiled, pb.dqkv, bb.dqkv_err, "tiled dqkv vs ported fa2 dqkv");
  auto nf = gpu.naive_forward(in.qkv);
  auto nb = gpu.naive_backward(in.qkv, nf.att, nf.out, in.dout);
  expect_close(tiled, nb.dqkv, bb.dqkv_err, "tiled dqkv vs naive dqkv");
  if (log)
    std::printf(
        "%s tiled: worst error / bound out %.3g lse %.3g dqkv %.3g; worst ULP of magnitude out "
        "%.3g lse %.3g dqkv %.3g\n",
        shape_name(s).c_str(), c_out.worst_ratio, c_lse.worst_ratio, c.worst_ratio,
        c_out.worst_ulps, c_lse.worst_ulps, c.worst_ulps);
}

// attn_bwd_fa2_tiled4 on the device's own forward outputs (as check_tiled) against the
// reference, the ported FA2 backward and attn_bwd_fa2_tiled (twice the bound each).
void check_tiled4(const Shape& s, const Inputs& in, bool log = true) {
  SCOPED_TRACE(shape_name(s));
  Device& dev = device();
  Gpu gpu(dev, s);
  const Expected e = expected_of(s, in, false);
  const ref::BackwardBounds& bb = e.bb;
  auto ff = gpu.fa2_forward(in.qkv);
  auto pb = gpu.fa2_backward(in.qkv, ff.out, ff.lse, in.dout);
  auto t4 = run_backward(gpu, Fa2Backward::Tiled4, in.qkv, in.dout, ff.lse, pb.dsum);
  auto c = expect_within(t4, e.dqkv, bb.dqkv_err, bb.dqkv_mag, "tiled4 dqkv");
  expect_close(t4, pb.dqkv, bb.dqkv_err, "tiled4 dqkv vs ported fa2 dqkv");
  auto t2 = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, ff.lse, pb.dsum);
  expect_close(t4, t2, bb.dqkv_err, "tiled4 dqkv vs tiled dqkv");
  size_t same = 0;
  for (size_t i = 0; i < t4.size(); ++i) same += std::memcmp(&t4[i], &t2[i], 4) == 0;
  if (log)
    std::printf(
        "%s tiled4: worst error / bound dqkv %.3g, worst ULP of magnitude %.3g; %zu of %zu "
        "values bit-identical to tiled's\n",
        shape_name(s).c_str(), c.worst_ratio, c.worst_ulps, same, t4.size());
}

// A variant's checks and its shapes (the seeds: seed + 0 .. 5, one per test).
struct Variant {
  const char* name;
  void (*check)(const Shape&, const Inputs&, bool);
  uint64_t seed;
  std::vector<uint32_t> seqs;                           // SequenceLengths, at B 1, H 2, hd 32
  uint32_t head_dim_seq;                                // HeadDims' T (B 2, H 1)
  std::vector<uint32_t> small_hds;                      // SmallAndOddHeadDims, at B 1, T 19, H 2
  std::vector<uint32_t> head_dims = {32, 64, 80, 128};  // HeadDims
};
const Variant kVariants[] = {
    {"wide", check_wide, 21, {1, 15, 17, 33}, 20, {1, 4, 13}},
    {"tiled", check_tiled, 31, {1, 15, 17, 31, 32, 33, 65}, 40, {1, 4, 13, 33}},
    {"tiled4", check_tiled4, 51, {1, 15, 17, 31, 32, 33, 65}, 40, {1, 4, 13, 33}, {32, 48, 64}},
};

class AttentionFa2Variant : public ::testing::TestWithParam<Variant> {};

TEST_P(AttentionFa2Variant, SequenceLengths) {
  const Variant& v = GetParam();
  auto r = rng(v.seed);
  for (uint32_t T : v.seqs) {
    Shape s = make_shape(1, T, 2, 32);
    v.check(s, random_inputs(r, s), true);
  }
}

TEST_P(AttentionFa2Variant, HeadDims) {
  const Variant& v = GetParam();
  auto r = rng(v.seed + 1);
  for (uint32_t hd : v.head_dims) {
    Shape s = make_shape(2, v.head_dim_seq, 1, hd);
    v.check(s, random_inputs(r, s), true);
  }
}

TEST_P(AttentionFa2Variant, SmallAndOddHeadDims) {
  const Variant& v = GetParam();
  auto r = rng(v.seed + 2);
  for (uint32_t hd : v.small_hds) {
    Shape s = make_shape(1, 19, 2, hd);
    v.check(s, random_inputs(r, s), true);
  }
}

TEST_P(AttentionFa2Variant, LongerSequenceSeveralHeads) {
  const Variant& v = GetParam();
  auto r = rng(v.seed + 3);
  Shape s = make_shape(2, 100, 2, 64);  // B*H = 4; the last tile 4 rows (16-row and 32-row tiles)
  v.check(s, random_inputs(r, s), true);
}

TEST_P(AttentionFa2Variant, LargeLogits) {
  const Variant& v = GetParam();
  auto r = rng(v.seed + 4);
  Shape s = make_shape(1, 37, 2, 64);
  v.check(s, large_logit_inputs(r, s), true);
}

TEST_P(AttentionFa2Variant, TiedScores) {
  const Variant& v = GetParam();
  auto r = rng(v.seed + 5);
  Shape s = make_shape(1, 35, 1, 32);
  v.check(s, tied_score_inputs(r, s), false);
}

INSTANTIATE_TEST_SUITE_P(Variants, AttentionFa2Variant, ::testing::ValuesIn(kVariants),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(AttentionWide, RefusesHeadDimAbove128) {
  Device& dev = device();
  Shape s = make_shape(1, 5, 1, 129);
  auto r = rng(27);
  auto in = random_inputs(r, s);
  Gpu gpu(dev, s);
  auto f = wide_forward(gpu, in.qkv);
  for (float x : f.out) ASSERT_TRUE(is_poison(x));
  for (float x : f.lse) ASSERT_TRUE(is_poison(x));
  auto b = wide_backward(gpu, in.qkv, in.dout, std::vector<float>(s.lse_size(), 1.0f),
                         std::vector<float>(s.lse_size(), 0.5f));
  for (float x : b) ASSERT_TRUE(is_poison(x));
}

TEST(AttentionWide, Deterministic) {
  Device& dev = device();
  auto r = rng(28);
  Shape s = make_shape(1, 40, 2, 48);
  auto in = random_inputs(r, s);
  Gpu gpu(dev, s);
  auto f1 = wide_forward(gpu, in.qkv), f2 = wide_forward(gpu, in.qkv);
  ASSERT_EQ(std::memcmp(f1.out.data(), f2.out.data(), f1.out.size() * 4), 0);
  ASSERT_EQ(std::memcmp(f1.lse.data(), f2.lse.data(), f1.lse.size() * 4), 0);
  std::vector<float> ds(s.lse_size(), 0.25f);
  auto a = wide_backward(gpu, in.qkv, in.dout, f1.lse, ds);
  auto b = wide_backward(gpu, in.qkv, in.dout, f1.lse, ds);
  ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
}

// head_dim > 128: the kernel returns at once (nothing written) and the host API refuses the
// shape, naming the field and the value.
TEST(AttentionTiled, RefusesHeadDimAbove128) {
  Device& dev = device();
  Shape s = make_shape(1, 5, 1, 129);
  auto r = rng(37);
  auto in = random_inputs(r, s);
  try {
    fa2_backward_dispatches(s, Fa2Backward::Tiled);
    ADD_FAILURE() << "head_dim 129 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim = 129"), std::string::npos) << e.what();
  }
  Gpu gpu(dev, s);
  Buffer q = in_buffer(dev, in.qkv, "qkv"), g = in_buffer(dev, in.dout, "dout"),
         l = in_buffer(dev, std::vector<float>(s.lse_size(), 1.0f), "lse"),
         ds = in_buffer(dev, std::vector<float>(s.lse_size(), 0.5f), "dsum"),
         dq = out_buffer(dev, s.qkv_size(), "dqkv");
  const KernelInfo& k = ak::attn_bwd_fa2_tiled::Kernel::info();
  run(dev, {gpu.on(k, bwd_entries(k, gpu.params, q, g, l, ds, dq), 1, 2, 1)});
  for (float x : read_out(dev, dq, s.qkv_size(), "dqkv")) ASSERT_TRUE(is_poison(x));
}

TEST(AttentionTiled, ForwardRefusesHeadDimAbove128) {
  Device& dev = device();
  Shape s = make_shape(1, 5, 1, 129);
  auto r = rng(40);
  auto in = random_inputs(r, s);
  try {
    fa2_forward_tiled_dispatch(s);
    ADD_FAILURE() << "head_dim 129 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim = 129"), std::string::npos) << e.what();
  }
  Gpu gpu(dev, s);
  Buffer q = in_buffer(dev, in.qkv, "qkv"), out = out_buffer(dev, s.out_size(), "out"),
         lse = out_buffer(dev, s.lse_size(), "lse");
  const KernelInfo& k = ak::attn_fwd_fa2_tiled::Kernel::info();
  run(dev, {gpu.on(k, fwd_entries(k, gpu.params, q, out, lse), 1, 1, 1)});
  for (float x : read_out(dev, out, s.out_size(), "out")) ASSERT_TRUE(is_poison(x));
  for (float x : read_out(dev, lse, s.lse_size(), "lse")) ASSERT_TRUE(is_poison(x));
}

TEST(AttentionTiled, ForwardDeterministicAndHostApi) {
  Device& dev = device();
  auto r = rng(41);
  Shape s = make_shape(2, 70, 3, 48);
  auto in = random_inputs(r, s);
  Gpu gpu(dev, s);
  auto a = tiled_forward(gpu, in.qkv);
  auto b = tiled_forward(gpu, in.qkv);
  ASSERT_EQ(std::memcmp(a.out.data(), b.out.data(), a.out.size() * 4), 0);
  ASSERT_EQ(std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * 4), 0);
  const KernelDispatch k = fa2_forward_tiled_dispatch(make_shape(3, 100, 5, 64));
  EXPECT_EQ(k.kernel, "attention/attn_fwd_fa2_tiled");
  EXPECT_EQ(k.x, 15u);  // B*H
  EXPECT_EQ(k.y, 4u);   // ceil(100/32)
  EXPECT_EQ(k.z, 1u);
  EXPECT_THROW(fa2_forward_tiled_dispatch(make_shape(1, 4194304, 1, 8)), std::invalid_argument);
  EXPECT_THROW(fa2_forward_tiled_dispatch(make_shape(1, 8, 1, 0)), std::invalid_argument);
}

TEST(AttentionTiled, HostApi) {
  const Shape s = make_shape(3, 100, 5, 64);
  auto t = fa2_backward_dispatches(s, Fa2Backward::Tiled);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].kernel, "attention/attn_bwd_fa2_tiled");
  EXPECT_EQ(t[0].x, 15u);  // B*H
  EXPECT_EQ(t[0].y, 8u);   // 2 ceil(100/32)
  EXPECT_EQ(t[0].z, 1u);
  auto w = fa2_backward_dispatches(s, Fa2Backward::Wide);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].kernel, "attention/attn_dscores_fa2_wide");
  EXPECT_EQ(w[1].kernel, "attention/attn_dv_fa2_wide");
  EXPECT_EQ(w[1].x, 7u);
  EXPECT_EQ(fa2_backward_dispatches(s, Fa2Backward::Ported)[1].kernel, "attention/attn_dv_fa2");
  EXPECT_EQ(parse_fa2_backward("tiled"), Fa2Backward::Tiled);
  EXPECT_EQ(fa2_backward_name(Fa2Backward::Wide), "wide");
  EXPECT_THROW(parse_fa2_backward("fast"), std::invalid_argument);
  EXPECT_THROW(fa2_backward_dispatches(make_shape(1, 4194304, 1, 8), Fa2Backward::Tiled),
               std::invalid_argument);  // 2 ceil(T/32) = 262144 > 65535
}

TEST(AttentionTiled, Deterministic) {
  Device& dev = device();
  auto r = rng(38);
  Shape s = make_shape(1, 70, 2, 48);
  auto in = random_inputs(r, s);
  Gpu gpu(dev, s);
  auto f = gpu.fa2_forward(in.qkv);
  std::vector<float> ds(s.lse_size(), 0.25f);
  auto a = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, f.lse, ds);
  auto b = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, f.lse, ds);
  ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
}

// The checks can fail: the kernel fed the statistics of the wrong row (what an off-by-one in its
// L/D indexing would read: row i + 1's lse, or the next head's dsum) puts most of dqkv outside
// the bound.
TEST(AttentionTiled, WrongRowStatisticsAreCaught) {
  Device& dev = device();
  auto r = rng(39);
  Shape s = make_shape(1, 40, 2, 32);
  auto in = random_inputs(r, s);
  const Expected e = expected_of(s, in, false);
  Gpu gpu(dev, s);
  auto f = gpu.fa2_forward(in.qkv);
  auto pb = gpu.fa2_backward(in.qkv, f.out, f.lse, in.dout);
  auto good = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, f.lse, pb.dsum);
  EXPECT_EQ(count_outside(good, e.dqkv, e.bb.dqkv_err), 0u);
  std::vector<float> lse1 = f.lse, ds1 = pb.dsum;
  for (size_t i = 0; i + 1 < lse1.size(); ++i) lse1[i] = f.lse[i + 1];
  for (size_t i = 0; i < ds1.size(); ++i) ds1[i] = pb.dsum[(i + s.seq) % ds1.size()];
  auto bad_l = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, lse1, pb.dsum);
  auto bad_d = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, f.lse, ds1);
  EXPECT_GT(count_outside(bad_l, e.dqkv, e.bb.dqkv_err), e.dqkv.size() / 2);
  EXPECT_GT(count_outside(bad_d, e.dqkv, e.bb.dqkv_err), e.dqkv.size() / 4);
}

// attn_bwd_fa2_tiled4: head_dim > 64 writes nothing (a uniform early return) and the host API
// refuses it, naming the field and the value; fa2_backward_tiled_for's rule.
TEST(AttentionTiled4, RefusesHeadDimAbove64AndHostApi) {
  Device& dev = device();
  Shape s = make_shape(1, 5, 1, 65);
  auto r = rng(52);
  auto in = random_inputs(r, s);
  try {
    fa2_backward_dispatches(s, Fa2Backward::Tiled4);
    ADD_FAILURE() << "head_dim 65 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim = 65"), std::string::npos) << e.what();
  }
  Gpu gpu(dev, s);
  Buffer q = in_buffer(dev, in.qkv, "qkv"), g = in_buffer(dev, in.dout, "dout"),
         l = in_buffer(dev, std::vector<float>(s.lse_size(), 1.0f), "lse"),
         ds = in_buffer(dev, std::vector<float>(s.lse_size(), 0.5f), "dsum"),
         dq = out_buffer(dev, s.qkv_size(), "dqkv");
  const KernelInfo& k = ak::attn_bwd_fa2_tiled4::Kernel::info();
  run(dev, {gpu.on(k, bwd_entries(k, gpu.params, q, g, l, ds, dq), 1, 2, 1)});
  for (float x : read_out(dev, dq, s.qkv_size(), "dqkv")) ASSERT_TRUE(is_poison(x));
  auto t = fa2_backward_dispatches(make_shape(3, 100, 5, 64), Fa2Backward::Tiled4);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].kernel, "attention/attn_bwd_fa2_tiled4");
  EXPECT_EQ(t[0].x, 15u);  // B*H
  EXPECT_EQ(t[0].y, 8u);   // 2 ceil(100/32)
  EXPECT_EQ(parse_fa2_backward("tiled4"), Fa2Backward::Tiled4);
  EXPECT_EQ(fa2_backward_name(Fa2Backward::Tiled4), "tiled4");
  EXPECT_EQ(fa2_backward_tiled_for(make_shape(4, 256, 8, 32)), Fa2Backward::Tiled4);  // 256 tiles
  EXPECT_EQ(fa2_backward_tiled_for(make_shape(4, 128, 8, 32)), Fa2Backward::Tiled);   // 128
  EXPECT_EQ(fa2_backward_tiled_for(make_shape(8, 256, 12, 64)), Fa2Backward::Tiled);  // hd 64
}

// Bit-identical reruns, and the wrong row's statistics (lse of row i + 1, the next head's dsum)
// put most of dqkv outside the bound, as for attn_bwd_fa2_tiled.
TEST(AttentionTiled4, DeterministicAndWrongRowStatisticsAreCaught) {
  Device& dev = device();
  auto r = rng(53);
  Shape s = make_shape(1, 70, 2, 48);
  auto in = random_inputs(r, s);
  const Expected e = expected_of(s, in, false);
  Gpu gpu(dev, s);
  auto f = gpu.fa2_forward(in.qkv);
  auto pb = gpu.fa2_backward(in.qkv, f.out, f.lse, in.dout);
  auto a = run_backward(gpu, Fa2Backward::Tiled4, in.qkv, in.dout, f.lse, pb.dsum);
  auto b = run_backward(gpu, Fa2Backward::Tiled4, in.qkv, in.dout, f.lse, pb.dsum);
  ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
  EXPECT_EQ(count_outside(a, e.dqkv, e.bb.dqkv_err), 0u);
  std::vector<float> lse1 = f.lse, ds1 = pb.dsum;
  for (size_t i = 0; i + 1 < lse1.size(); ++i) lse1[i] = f.lse[i + 1];
  for (size_t i = 0; i < ds1.size(); ++i) ds1[i] = pb.dsum[(i + s.seq) % ds1.size()];
  auto bad_l = run_backward(gpu, Fa2Backward::Tiled4, in.qkv, in.dout, lse1, pb.dsum);
  auto bad_d = run_backward(gpu, Fa2Backward::Tiled4, in.qkv, in.dout, f.lse, ds1);
  EXPECT_GT(count_outside(bad_l, e.dqkv, e.bb.dqkv_err), e.dqkv.size() / 2);
  EXPECT_GT(count_outside(bad_d, e.dqkv, e.bb.dqkv_err), e.dqkv.size() / 4);
}

}  // namespace
}  // namespace wgslvk::attention::testing
