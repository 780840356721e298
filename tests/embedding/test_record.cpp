// Embedding::record_lookup / record_lookup_w16 / record_backward: the synchronous calls' checks,
// OovReport and dispatch, recorded into the caller's encoder. Nothing runs before the caller
// submits (outputs stay poisoned); after the submit the results equal the references (bit for bit
// where the synchronous calls are: lookup, the deterministic backward; within the bound for the
// atomic variants); several calls in one encoder run in order (two backward calls accumulate);
// a refused call records nothing.
#include <gtest/gtest.h>

#include "embedding_test_util.hpp"

namespace wgslvk::embedding_test {
namespace {

TEST(EmbeddingRecord, LookupRunsOnlyWhenSubmittedAndMatchesTheReference) {
  Device& dev = device();
  Embedding emb(dev);
  auto g = rng();
  const Dims dims{37, 24, 50};
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  tokens[5] = dims.vocab_size + 3;  // one out-of-vocabulary id: counted at record time
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  Buffer tb = upload(dev, table, "table");
  Buffer ob = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model), "out");
  CommandEncoder enc = dev.create_command_encoder({"record_lookup"});
  OovReport r = emb.record_lookup(enc, tokens, tb, ob, dims);
  EXPECT_EQ(r.count, 1u);
  ASSERT_EQ(r.positions, std::vector<uint32_t>{5});
  dev.wait_idle();
  expect_bits_equal(read<float>(dev, ob), poisoned(size_t(dims.seq_len) * dims.d_model),
                    "out before the encoder is submitted");
  dev.queue().submit(enc.finish());
  dev.wait_idle();
  std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
  ref::lookup(tokens, table, want, dims);
  expect_bits_equal(read<float>(dev, ob), want, "recorded lookup");
}

TEST(EmbeddingRecord, LookupW16EqualsTheSynchronousCall) {
  Device& dev = device();
  if (!dev.has_feature(Feature::ShaderF16)) GTEST_SKIP() << "device lacks shader-f16";
  Embedding emb(dev);
  auto g = rng(1);
  const Dims dims{20, 16, 30};
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  std::vector<uint16_t> t16(table.size());
  for (size_t i = 0; i < t16.size(); ++i) t16[i] = f32_to_f16_bits(table[i]);
  Buffer tb = upload(dev, t16, "table_w16");
  Buffer a = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model), "out sync");
  Buffer b = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model), "out recorded");
  emb.lookup_w16(tokens, tb, a, dims);
  CommandEncoder enc = dev.create_command_encoder({"record_lookup_w16"});
  emb.record_lookup_w16(enc, tokens, tb, b, dims);
  dev.queue().submit(enc.finish());
  dev.wait_idle();
  expect_bits_equal(read<float>(dev, b), read<float>(dev, a), "recorded lookup_w16 vs lookup_w16");
}

TEST(EmbeddingRecord, TwoBackwardCallsInOneEncoderAccumulateInOrder) {
  Device& dev = device();
  Embedding emb(dev);
  auto g = rng(2);
  const Dims dims{64, 20, 12};  // ~5 positions per token: atomics contend
  auto t1 = random_tokens(g, dims.seq_len, dims.vocab_size),
       t2 = random_tokens(g, dims.seq_len, dims.vocab_size);
  auto g1 = random_floats(g, size_t(dims.seq_len) * dims.d_model),
       g2 = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    SCOPED_TRACE(std::string(embedding::variant_name(v)));
    Buffer gb1 = upload(dev, g1, "grad_out 1"), gb2 = upload(dev, g2, "grad_out 2");
    Buffer tb = upload(dev, table, "grad_table");
    CommandEncoder enc = dev.create_command_encoder({"record_backward x2"});
    emb.record_backward(enc, t1, gb1, tb, dims, v);
    emb.record_backward(enc, t2, gb2, tb, dims, v);
    dev.queue().submit(enc.finish());
    dev.wait_idle();
    auto got = read<float>(dev, tb);
    if (embedding::is_deterministic(v)) {
      // bit exact: the first call's sequential sums, then the second's onto them
      auto after1 = ref::backward_sequential_f32(t1, g1, table, dims);
      expect_bits_equal(got, ref::backward_sequential_f32(t2, g2, after1, dims),
                        "two recorded calls");
    } else {
      // within the bound of one backward over both calls' positions (the adds are the same)
      std::vector<uint32_t> tt = t1;
      tt.insert(tt.end(), t2.begin(), t2.end());
      std::vector<float> gg = g1;
      gg.insert(gg.end(), g2.begin(), g2.end());
      Dims both{2 * dims.seq_len, dims.d_model, dims.vocab_size};
      expect_within_backward_bound(got, ref::backward(tt, gg, table, both), "two recorded calls");
    }
  }
}

TEST(EmbeddingRecord, ARefusedCallRecordsNothing) {
  Device& dev = device();
  Embedding emb(dev);
  const Dims dims{4, 8, 10};
  std::vector<uint32_t> three = {1, 2, 3};  // seq_len says 4
  Buffer tb = upload(dev, std::vector<float>(80, 1.0f), "table");
  Buffer ob = upload(dev, poisoned(32), "out");
  CommandEncoder enc = dev.create_command_encoder({"refused"});
  EXPECT_THROW(emb.record_lookup(enc, three, tb, ob, dims), ValidationError);
  EXPECT_THROW(emb.record_backward(enc, three, ob, tb, dims), ValidationError);
  dev.queue().submit(enc.finish());  // an empty encoder: valid, runs nothing
  dev.wait_idle();
  expect_bits_equal(read<float>(dev, ob), poisoned(32), "out after refused record calls");
}

}  // namespace
}  // namespace wgslvk::embedding_test
