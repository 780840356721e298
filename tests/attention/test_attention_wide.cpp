// The *_wide FA2 kernels (attention_native.wgsl, ours: attn_fwd_fa2_wide, attn_dscores_fa2_wide,
// attn_dv_fa2_wide; 8 invocations per row) on the device against the double references, within
// the same bounds as the ported FA2 kernels (wgsl_ports/attention/reference.hpp), and against the
// ported kernels on the same inputs (within twice the bound: each is within the bound of the
// reference). Same ABI and dispatch as the ported kernels: the Gpu helper's buffers are reused,
// only the kernel names change. T = 1, 15, 17, 33, 100 (partial last tiles, the diagonal mask at
// tile edges), hd = 32, 64, 80, 128 (80: 10 columns per invocation) and 1, 4, 13 (not multiples
// of 8: invocations own different column counts, some none), scores of +-1e4, hd > 128 refused,
// deterministic.
#include "attention_test_util.hpp"

namespace wgslvk::attention::testing {
namespace {

// The wide kernels through the same buffers and dispatch as Gpu::fa2_forward / fa2_backward.
Gpu::Fwd wide_forward(Gpu& gpu, const std::vector<float>& qkv) {
  const Shape& s = gpu.s;
  Device& d = gpu.d;
  Buffer q = in_buffer(d, qkv, "qkv"), out = out_buffer(d, s.out_size(), "out"),
         lse = out_buffer(d, s.lse_size(), "lse");
  run(d, {{"attention/attn_fwd_fa2_wide",
           {{0, gpu.params}, {1, q}, {2, out}, {3, lse}},
           s.q_tiles(),
           s.heads,
           s.batch}});
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
  for (int k = 0; k < 2; ++k)
    if (which & (1 << k))
      v.push_back({k == 0 ? "attention/attn_dscores_fa2_wide" : "attention/attn_dv_fa2_wide",
                   {{0, gpu.params}, {1, q}, {2, g}, {3, l}, {4, ds}, {5, dq}},
                   s.q_tiles(),
                   s.heads,
                   s.batch});
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

TEST(AttentionWide, OddSequenceLengths) {
  auto r = rng(21);
  for (uint32_t T : {1u, 15u, 17u, 33u}) {
    Shape s = make_shape(1, T, 2, 32);
    check_wide(s, random_inputs(r, s));
  }
}

TEST(AttentionWide, HeadDims) {
  auto r = rng(22);
  for (uint32_t hd : {32u, 64u, 80u, 128u}) {
    Shape s = make_shape(2, 20, 1, hd);
    check_wide(s, random_inputs(r, s));
  }
}

// hd not a multiple of 8: invocations own different column counts (hd = 4: g >= 4 own none).
TEST(AttentionWide, SmallAndOddHeadDims) {
  auto r = rng(23);
  for (uint32_t hd : {1u, 4u, 13u}) {
    Shape s = make_shape(1, 19, 2, hd);
    check_wide(s, random_inputs(r, s));
  }
}

TEST(AttentionWide, LongerSequenceSeveralHeads) {
  auto r = rng(24);
  Shape s = make_shape(2, 100, 2, 64);  // B*H = 4, 7 tiles, the last one 4 rows
  check_wide(s, random_inputs(r, s));
}

TEST(AttentionWide, LargeLogits) {
  auto r = rng(25);
  Shape s = make_shape(1, 37, 2, 64);
  auto in = random_inputs(r, s, true);
  std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size());
  ref::naive_forward(s, ref::widen(in.qkv), att, out, lse);
  double big = 0;
  for (double l : lse) big = std::max(big, std::fabs(l));
  EXPECT_GT(big, 5000.0) << "inputs do not reach large scores";
  check_wide(s, in);
}

TEST(AttentionWide, TiedScores) {
  auto r = rng(26);
  Shape s = make_shape(1, 35, 1, 32);
  auto in = random_inputs(r, s);
  for (uint64_t t = 0; t < s.rows(); ++t)
    for (uint64_t c = 0; c < s.d(); ++c) in.qkv[t * 3 * s.d() + c] = 0.0f;
  check_wide(s, in, false);
}

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

}  // namespace
}  // namespace wgslvk::attention::testing
