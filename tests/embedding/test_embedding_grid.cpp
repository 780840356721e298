// The 2-D grid (R12): seq_len x d_model above 65535 x 256 elements, one thread each, is more
// workgroups than one dimension holds; the row-wise lookups above 65535 rows. Slow on lavapipe
// (16.8M elements), so its own binary with the label `slow`.
#include <numeric>

#include "embedding_test_util.hpp"

namespace wgslvk::embedding_test {
namespace {

// seq_len x d_model above 65535 x 256: more workgroups than one dimension holds, so the host
// picks a 2-D grid and the kernel's flat_id must cover it exactly.
TEST(EmbeddingLookup, TwoDimensionalGrid) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{64800, 259, 1024};  // 16,783,200 elements > 65535 * 256 = 16,776,960
  const uint64_t total = uint64_t(dims.seq_len) * dims.d_model;
  ASSERT_GT(total, 65535ull * 256);
  Grid grid = grid_for_workgroups(div_ceil(total, 256), device().limits());
  ASSERT_GT(grid.y, 1u) << "not a 2-D grid";
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  tokens[dims.seq_len - 1] = dims.vocab_size;  // the very last row is OOV: zeros at the end
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  OovReport report;
  auto got = run_lookup(emb, tokens, table, dims, &report);
  std::vector<float> want(got.size());
  ref::lookup(tokens, table, want, dims);
  expect_bits_equal(got, want, "embed_lookup on a 2-D grid");
  EXPECT_EQ(report.count, 1u);
}

// The row-wise lookups (one row per workgroup at d_model 256): 65600 rows are more workgroups than
// one dimension holds, so the flat workgroup index wid.y * nwg.x + wid.x must cover them exactly.
TEST(EmbeddingLookupRows, MoreThan65535RowsOnATwoDimensionalGrid) {
  Device& dev = device();
  Embedding emb(dev, embedding::LookupPath::native);
  auto g = rng();
  const Dims dims{65600, 256, 1024};
  ASSERT_EQ(embedding::lookup_rows_per_workgroup(dims.d_model), 1u);
  Grid grid = grid_for_workgroups(embedding::lookup_rows_workgroups(dims.seq_len, dims.d_model),
                                  dev.limits());
  ASSERT_GT(grid.y, 1u) << "not a 2-D grid";
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  tokens[dims.seq_len - 1] = dims.vocab_size;  // the very last row is OOV: zeros at the end
  tokens[65535] = 0xFFFFFFFFu;                 // the first row past one grid dimension
  const size_t n = size_t(dims.vocab_size) * dims.d_model;
  std::vector<uint16_t> t16(n);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7bff);  // finite halves of both signs
  for (auto& h : t16) h = uint16_t(bits(g) | (bits(g) & 1 ? 0x8000u : 0u));
  std::vector<float> t32(n);
  for (size_t i = 0; i < n; ++i) t32[i] = f16_bits_to_f32(t16[i]);
  std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
  ref::lookup(tokens, t32, want, dims);
  Buffer b32 = upload(dev, t32, "table");
  Buffer b16 = upload(dev, t16, "table_w16");
  Buffer ob = upload(dev, poisoned(want.size()), "out");
  EXPECT_EQ(emb.lookup(tokens, b32, ob, dims).count, 2u);
  expect_bits_equal(read<float>(dev, ob), want, "embed_lookup_rows on a 2-D grid");
  Buffer ob16 = upload(dev, poisoned(want.size()), "out_w16");
  emb.lookup_w16(tokens, b16, ob16, dims);
  expect_bits_equal(read<float>(dev, ob16), want, "embed_lookup_w16_rows on a 2-D grid");
}

// Lookup and backward on a 2-D grid (see EmbeddingLookup.TwoDimensionalGrid).
TEST(EmbeddingBackward, TwoDimensionalGrid) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{64800, 259, 4096};
  ASSERT_GT(uint64_t(dims.seq_len) * dims.d_model, 65535ull * 256);
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  tokens[dims.seq_len - 1] = 7;  // the last thread's row
  auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    check_backward(emb, tokens, grad_out, table, dims, v, "backward on a 2-D grid");
  }
}

// The row-wise backward (one segment per workgroup at d_model 256): 65600 distinct tokens are more
// workgroups than one dimension holds; the flat workgroup index must cover every segment, and the
// result is still the per-element kernel's, bit for bit.
TEST(EmbeddingBackwardRows, MoreThan65535SegmentsOnATwoDimensionalGrid) {
  Device& dev = device();
  Embedding emb(dev);
  auto g = rng();
  const Dims dims{65700, 256, 66000};
  std::vector<uint32_t> tokens(dims.vocab_size);
  std::iota(tokens.begin(), tokens.end(), 0u);
  std::shuffle(tokens.begin(), tokens.end(), g);
  tokens.resize(dims.seq_len);
  for (uint32_t p = 0; p < 100; ++p) tokens[p * 600] = tokens[7];  // some repeats
  tokens[dims.seq_len - 1] = dims.vocab_size;                      // OOV at the very end
  const auto seg = ref::deterministic_segments(tokens, dims.vocab_size);
  ASSERT_GT(seg.count(), 65535u);
  Grid grid = grid_for_workgroups(embedding::backward_rows_workgroups(seg.count(), dims.d_model),
                                  dev.limits());
  ASSERT_GT(grid.y, 1u) << "not a 2-D grid";
  auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  auto want = ref::backward_sequential_f32(tokens, grad_out, table, dims);
  expect_bits_equal(
      run_backward(emb, tokens, grad_out, table, dims, BackwardVariant::DeterministicRows), want,
      "embed_backward_rows on a 2-D grid");
  expect_bits_equal(
      run_backward(emb, tokens, grad_out, table, dims, BackwardVariant::DeterministicPerElement),
      want, "embed_backward_deterministic, same inputs");
}

}  // namespace
}  // namespace wgslvk::embedding_test
