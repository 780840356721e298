// attn_bwd_fa2_tiled (attention_native.wgsl, ours: the whole FA2 backward in one dispatch, 32 x 32
// register tiles) on the device, dispatched through the host API (attention/host.hpp), against
// the double references within the bounds of wgsl_ports/attention/reference.hpp (the same bounds
// as every backward path: no second copy), and within twice that bound of the ported FA2 backward
// and of the naive backward on the same device inputs. Shapes: T = 1, 15, 17, 31, 32, 33, 65
// (the 32-row tiles' edges, partial last tiles, the causal mask inside a diagonal block), hd =
// 32, 64, 80, 128 (1 to 4 chunks of 32 columns, 80: a partial chunk) and 1, 4, 13, 33 (mostly
// padding), B*H = 4 at T = 100, scores of +-1e4, tied scores; hd > 128 writes nothing and the
// host API refuses it; bit-identical reruns; plausible indexing bugs (lse or dsum of the wrong
// row) fail the checks.
#include "attention/host.hpp"
#include "attention_test_util.hpp"

namespace wgslvk::attention::testing {
namespace {

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
  for (const KernelDispatch& k : fa2_backward_dispatches(s, v))
    list.push_back(
        {k.kernel, {{0, gpu.params}, {1, q}, {2, g}, {3, l}, {4, ds}, {5, dq}}, k.x, k.y, k.z});
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
  auto pb = gpu.fa2_backward(in.qkv, ff.out, ff.lse, in.dout);
  auto tiled = run_backward(gpu, Fa2Backward::Tiled, in.qkv, in.dout, ff.lse, pb.dsum);
  auto c = expect_within(tiled, e.dqkv, bb.dqkv_err, bb.dqkv_mag, "tiled dqkv");
  expect_close(tiled, pb.dqkv, bb.dqkv_err, "tiled dqkv vs ported fa2 dqkv");
  auto nf = gpu.naive_forward(in.qkv);
  auto nb = gpu.naive_backward(in.qkv, nf.att, nf.out, in.dout);
  expect_close(tiled, nb.dqkv, bb.dqkv_err, "tiled dqkv vs naive dqkv");
  if (log)
    std::printf("%s tiled: worst error / bound dqkv %.3g; worst ULP of magnitude %.3g\n",
                shape_name(s).c_str(), c.worst_ratio, c.worst_ulps);
}

TEST(AttentionTiled, TileEdges) {
  auto r = rng(31);
  for (uint32_t T : {1u, 15u, 17u, 31u, 32u, 33u, 65u}) {
    Shape s = make_shape(1, T, 2, 32);
    check_tiled(s, random_inputs(r, s));
  }
}

TEST(AttentionTiled, HeadDims) {
  auto r = rng(32);
  for (uint32_t hd : {32u, 64u, 80u, 128u}) {
    Shape s = make_shape(2, 40, 1, hd);
    check_tiled(s, random_inputs(r, s));
  }
}

// Mostly padding: hd = 1 and 4 fill a sliver of the one 32-column chunk, 33 a second chunk of one
// column.
TEST(AttentionTiled, SmallAndOddHeadDims) {
  auto r = rng(33);
  for (uint32_t hd : {1u, 4u, 13u, 33u}) {
    Shape s = make_shape(1, 19, 2, hd);
    check_tiled(s, random_inputs(r, s));
  }
}

TEST(AttentionTiled, LongerSequenceSeveralHeads) {
  auto r = rng(34);
  Shape s = make_shape(2, 100, 2, 64);  // B*H = 4; 4 tiles of 32, the last 4 rows; 8 jobs each
  check_tiled(s, random_inputs(r, s));
}

TEST(AttentionTiled, LargeLogits) {
  auto r = rng(35);
  Shape s = make_shape(1, 37, 2, 64);
  auto in = random_inputs(r, s, true);
  std::vector<double> att(s.att_size()), out(s.out_size()), lse(s.lse_size());
  ref::naive_forward(s, ref::widen(in.qkv), att, out, lse);
  double big = 0;
  for (double l : lse) big = std::max(big, std::fabs(l));
  EXPECT_GT(big, 5000.0) << "inputs do not reach large scores";
  check_tiled(s, in);
}

TEST(AttentionTiled, TiedScores) {
  auto r = rng(36);
  Shape s = make_shape(1, 35, 1, 32);
  auto in = random_inputs(r, s);
  for (uint64_t t = 0; t < s.rows(); ++t)
    for (uint64_t c = 0; c < s.d(); ++c) in.qkv[t * 3 * s.d() + c] = 0.0f;
  check_tiled(s, in, false);
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
  run(dev, {{"attention/attn_bwd_fa2_tiled",
             {{0, gpu.params}, {1, q}, {2, g}, {3, l}, {4, ds}, {5, dq}},
             1,
             2,
             1}});
  for (float x : read_out(dev, dq, s.qkv_size(), "dqkv")) ASSERT_TRUE(is_poison(x));
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

}  // namespace
}  // namespace wgslvk::attention::testing
