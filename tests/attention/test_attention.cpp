// The attention kernels on the device against the double references, within the bounds of
// wgsl_ports/attention/reference.hpp: the naive forward (att, out), the FA2 forward (out, lse),
// attn_dsum, the naive backward (dscores, dqkv) and the FA2 backward (dqkv), on fresh random
// inputs; FA2 against naive on the same inputs (within twice the bound); T not a multiple of 16,
// head dims 32/64/80, B*H > 1, large logits; poisoned tails stay poisoned; hd > 128 writes
// nothing in the FA2 kernels.
#include "attention_test_util.hpp"

namespace wgslvk::attention::testing {
namespace {

// Forward and backward, naive and FA2, every output against the reference and FA2 against naive.
// The backward kernels get the device's own forward outputs (the forward bounds cover them).
void check_all(const Shape& s, const Inputs& in, bool log = false) {
  SCOPED_TRACE(shape_name(s));
  Device& dev = device();
  Gpu gpu(dev, s);
  const Expected e = expected_of(s, in, true);
  const auto &att = e.att, &out = e.out, &lse = e.lse, &D = e.D, &dS = e.dS, &dqkv = e.dqkv;
  const ref::ForwardBounds& fb = e.fb;
  const ref::BackwardBounds& bb = e.bb;

  auto nf = gpu.naive_forward(in.qkv);
  expect_within(nf.att, att, fb.att_err, {}, "naive att");
  auto c_out_n = expect_within(nf.out, out, fb.out_err, fb.out_mag, "naive out");
  auto ff = gpu.fa2_forward(in.qkv);
  auto c_out_f = expect_within(ff.out, out, fb.out_err, fb.out_mag, "fa2 out");
  auto c_lse = expect_within(ff.lse, lse, fb.lse_err, fb.lse_mag, "fa2 lse");
  expect_close(ff.out, nf.out, fb.out_err, "fa2 out vs naive out");

  auto nb = gpu.naive_backward(in.qkv, nf.att, nf.out, in.dout);
  expect_within(nb.dsum, D, bb.dsum_err, bb.dsum_mag, "naive dsum");
  expect_within(nb.dscores, dS, bb.dscores_err, bb.dscores_mag, "naive dscores");
  auto c_dq_n = expect_within(nb.dqkv, dqkv, bb.dqkv_err, bb.dqkv_mag, "naive dqkv");
  auto fbw = gpu.fa2_backward(in.qkv, ff.out, ff.lse, in.dout);
  expect_within(fbw.dsum, D, bb.dsum_err, bb.dsum_mag, "fa2 dsum");
  auto c_dq_f = expect_within(fbw.dqkv, dqkv, bb.dqkv_err, bb.dqkv_mag, "fa2 dqkv");
  expect_close(fbw.dqkv, nb.dqkv, bb.dqkv_err, "fa2 dqkv vs naive dqkv");
  if (log)
    std::printf(
        "%s: worst error / bound: out naive %.3g fa2 %.3g, lse %.3g, dqkv naive %.3g "
        "fa2 %.3g; worst ULP of magnitude: out %.3g/%.3g lse %.3g dqkv %.3g/%.3g\n",
        shape_name(s).c_str(), c_out_n.worst_ratio, c_out_f.worst_ratio, c_lse.worst_ratio,
        c_dq_n.worst_ratio, c_dq_f.worst_ratio, c_out_n.worst_ulps, c_out_f.worst_ulps,
        c_lse.worst_ulps, c_dq_n.worst_ulps, c_dq_f.worst_ulps);
}

TEST(Attention, OddSequenceLengths) {
  auto r = rng(11);
  for (uint32_t T : {1u, 15u, 17u, 33u})
    check_all(make_shape(1, T, 2, 32), random_inputs(r, make_shape(1, T, 2, 32)), true);
}

TEST(Attention, HeadDims) {
  auto r = rng(12);
  for (uint32_t hd : {32u, 64u, 80u}) {
    Shape s = make_shape(2, 20, 1, hd);
    check_all(s, random_inputs(r, s), true);
  }
}

TEST(Attention, LongerSequenceSeveralHeads) {
  auto r = rng(13);
  Shape s = make_shape(2, 100, 2, 16);  // B*H = 4, 7 tiles, the last one 4 rows
  check_all(s, random_inputs(r, s), true);
}

TEST(Attention, MaxHeadDim) {
  auto r = rng(14);
  Shape s = make_shape(1, 18, 1, 128);  // FA2's MAX_HD: K/V blocks fill the 16 KB
  check_all(s, random_inputs(r, s), true);
}

// Scores of +-1e4 (integer q, k: exact dot products; scale 1/8 exact): no overflow, no NaN, and
// the same bounds hold (the winner takes almost all the weight).
TEST(Attention, LargeLogits) {
  auto r = rng(15);
  Shape s = make_shape(1, 37, 2, 64);
  check_all(s, large_logit_inputs(r, s), true);
}

// All logits equal per row (q = 0): uniform attention, P = 1/(i+1) exactly representable or not;
// exercises m - m_new = 0 rescales and ties of the max.
TEST(Attention, TiedScores) {
  auto r = rng(16);
  Shape s = make_shape(1, 35, 1, 32);
  check_all(s, tied_score_inputs(r, s));
}

// FA2 kernels with hd > MAX_HD return at once: every output stays poisoned.
TEST(Attention, Fa2RefusesHeadDimAbove128) {
  Device& dev = device();
  Shape s = make_shape(1, 5, 1, 129);
  auto r = rng(17);
  auto in = random_inputs(r, s);
  Gpu gpu(dev, s);
  auto f = gpu.fa2_forward(in.qkv);
  for (float x : f.out) ASSERT_TRUE(is_poison(x));
  for (float x : f.lse) ASSERT_TRUE(is_poison(x));
  std::vector<float> lse(s.lse_size(), 1.0f), out(s.out_size(), 0.5f);
  auto b = gpu.fa2_backward(in.qkv, out, lse, in.dout);
  for (float x : b.dqkv) ASSERT_TRUE(is_poison(x));
}

// Deterministic: the same inputs give bit-identical FA2 gradients (no atomics).
TEST(Attention, Fa2BackwardIsDeterministic) {
  Device& dev = device();
  auto r = rng(18);
  Shape s = make_shape(1, 40, 2, 32);
  auto in = random_inputs(r, s);
  Gpu gpu(dev, s);
  auto f = gpu.fa2_forward(in.qkv);
  auto a = gpu.fa2_backward(in.qkv, f.out, f.lse, in.dout);
  auto b = gpu.fa2_backward(in.qkv, f.out, f.lse, in.dout);
  ASSERT_EQ(std::memcmp(a.dqkv.data(), b.dqkv.data(), a.dqkv.size() * 4), 0);
}

}  // namespace
}  // namespace wgslvk::attention::testing
