// The 2-D grid (R12): seq_len x d_model above 65535 x 256 elements, one thread each, is more
// workgroups than one dimension holds. Slow on lavapipe (16.8M elements), so its own binary with
// the label `slow`.
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

}  // namespace
}  // namespace wgslvk::embedding_test
