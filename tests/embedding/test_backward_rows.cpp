// The row-wise deterministic backward (embed_backward_rows, embedding_native.wgsl, ours; issue
// 15): bit for bit embed_backward_deterministic and the sequential f32 sum in position order, on
// odd shapes, every lanes-per-segment and chunk count the launch has, repeated tokens, one token
// at every position, out-of-vocabulary ids, NaN/Inf/+-0 gradients and -0.0 table entries;
// BackwardVariant::Deterministic picks it when d_model % 4 == 0; DeterministicRows refuses other
// shapes. The > 65535-workgroup grid is in test_embedding_grid.cpp (slow).
#include <gtest/gtest.h>

#include "embedding_test_util.hpp"
#include "wgslvk/kernels/embedding/embed_backward.hpp"
#include "wgslvk/kernels/embedding/embed_backward_deterministic.hpp"
#include "wgslvk/kernels/embedding/embed_backward_rows.hpp"

namespace wgslvk::embedding_test {
namespace {

using embedding::backward_rows_workgroups;
using embedding::variant_kernel;

// d_model: 4 (64 segments per workgroup of 1 lane), 12 (3 vec4 over 4 lanes), 40, 64, 252 (63
// vec4 over 64 lanes), 256, 260 (lane 0's second column), 768, 1028 (257 vec4: a second chunk of
// one vec4), 1540 (two chunks, the second 129 vec4), 2048 (two full chunks); odd seq_len.
const Dims kShapes[] = {Dims{301, 4, 500}, Dims{257, 12, 77}, Dims{129, 40, 9}, Dims{97, 64, 1000},
                        Dims{33, 252, 40}, Dims{40, 256, 33}, Dims{17, 260, 9}, Dims{9, 768, 5},
                        Dims{11, 1028, 7}, Dims{13, 1540, 4}, Dims{6, 2048, 3}};

// Gradients with NaN (quiet and signalling), +-Inf, +-0 and a subnormal sprinkled in; tokens with
// the seed's out-of-vocabulary ids and a hot token; a table with -0.0 entries (a skipped +0.0
// gradient must leave them -0.0).
struct Inputs {
  std::vector<uint32_t> tokens;
  std::vector<float> grad_out, table;
};
Inputs make_inputs(std::mt19937_64& g, Dims dims) {
  Inputs in;
  in.tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  for (size_t p = 0; p < in.tokens.size(); p += 3) in.tokens[p] = dims.vocab_size / 2;  // hot
  const uint32_t bad[] = {dims.vocab_size, dims.vocab_size + 1, 0xFFFFFFFFu, 0x80000000u};
  for (size_t k = 0; k < std::size(bad); ++k)
    if (5 * k + 3 < in.tokens.size()) in.tokens[5 * k + 3] = bad[k];
  in.grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            inf,
                            -inf,
                            0.0f,
                            -0.0f,
                            std::bit_cast<float>(0xff800001u),
                            std::bit_cast<float>(0x00000003u)};
  std::uniform_int_distribution<size_t> at(0, in.grad_out.size() - 1);
  for (size_t k = 0; k < in.grad_out.size() / 7; ++k)
    in.grad_out[at(g)] = specials[k % std::size(specials)];
  in.table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  for (size_t i = 0; i < in.table.size(); i += 5) in.table[i] = -0.0f;
  return in;
}

TEST(EmbeddingBackwardRows, WorkgroupCount) {
  EXPECT_EQ(backward_rows_workgroups(301, 4), 5u);      // 64 segments per workgroup
  EXPECT_EQ(backward_rows_workgroups(100, 12), 7u);     // 16 per workgroup
  EXPECT_EQ(backward_rows_workgroups(100, 768), 100u);  // one chunk of 192 vec4
  EXPECT_EQ(backward_rows_workgroups(100, 1024), 100u);
  EXPECT_EQ(backward_rows_workgroups(100, 1028), 200u);  // 257 vec4: two chunks
  EXPECT_EQ(backward_rows_workgroups(100, 4096), 400u);
}

TEST(EmbeddingBackwardRows, DeterministicPicksRowsWhenDModelIsAMultipleOf4) {
  EXPECT_EQ(variant_kernel(BackwardVariant::Deterministic, 768),
            kernels::embedding::embed_backward_rows::name);
  EXPECT_EQ(variant_kernel(BackwardVariant::Deterministic, 4),
            kernels::embedding::embed_backward_rows::name);
  EXPECT_EQ(variant_kernel(BackwardVariant::Deterministic, 67),
            kernels::embedding::embed_backward_deterministic::name);
  EXPECT_EQ(variant_kernel(BackwardVariant::DeterministicPerElement, 768),
            kernels::embedding::embed_backward_deterministic::name);
  EXPECT_EQ(variant_kernel(BackwardVariant::DeterministicRows, 6),
            kernels::embedding::embed_backward_rows::name);
  EXPECT_EQ(variant_kernel(BackwardVariant::Cas, 768), kernels::embedding::embed_backward::name);
  EXPECT_EQ(embedding::variant_name(BackwardVariant::DeterministicRows), "deterministic_rows");
  EXPECT_TRUE(embedding::is_deterministic(BackwardVariant::DeterministicRows));
  EXPECT_FALSE(embedding::is_deterministic(BackwardVariant::FloatAtomics));
}

TEST(EmbeddingBackwardRows, SameBitsAsPerElementAndTheSequentialSum) {
  Embedding emb(device());
  auto g = rng();
  for (Dims dims : kShapes) {
    const std::string what = "d_model " + std::to_string(dims.d_model);
    Inputs in = make_inputs(g, dims);
    const auto want = ref::backward_sequential_f32(in.tokens, in.grad_out, in.table, dims);
    OovReport report;
    auto rows = run_backward(emb, in.tokens, in.grad_out, in.table, dims,
                             BackwardVariant::DeterministicRows, &report);
    EXPECT_EQ(report.count, embedding::count_oov(in.tokens, dims.vocab_size).count) << what;
    expect_bits_equal(rows, want, "embed_backward_rows vs sequential sum, " + what);
    expect_bits_equal(rows,
                      run_backward(emb, in.tokens, in.grad_out, in.table, dims,
                                   BackwardVariant::DeterministicPerElement),
                      "embed_backward_rows vs embed_backward_deterministic, " + what);
    expect_bits_equal(
        run_backward(emb, in.tokens, in.grad_out, in.table, dims, BackwardVariant::Deterministic),
        rows, "Deterministic (automatic) vs DeterministicRows, " + what);
  }
}

// One segment covering every position (odd and even lengths: the pair loop's tail), with
// specials; and a long segment in the middle of many short ones.
TEST(EmbeddingBackwardRows, OneTokenEverywhereAndALongSegmentAmongShortOnes) {
  Embedding emb(device());
  auto g = rng(1);
  for (Dims dims : {Dims{4097, 256, 20}, Dims{4096, 1028, 3}, Dims{2001, 12, 5}}) {
    const std::string what =
        "d_model " + std::to_string(dims.d_model) + ", seq_len " + std::to_string(dims.seq_len);
    Inputs in = make_inputs(g, dims);
    std::fill(in.tokens.begin(), in.tokens.end(), dims.vocab_size - 1);
    in.tokens[dims.seq_len / 2] = dims.vocab_size;  // one OOV position inside the run
    auto rows = run_backward(emb, in.tokens, in.grad_out, in.table, dims,
                             BackwardVariant::DeterministicRows);
    expect_bits_equal(rows, ref::backward_sequential_f32(in.tokens, in.grad_out, in.table, dims),
                      "one token everywhere, " + what);
  }
  const Dims dims{3000, 64, 2000};
  Inputs in = make_inputs(g, dims);
  for (size_t p = 0; p < in.tokens.size(); p += 2) in.tokens[p] = 1000;  // 1500 positions
  expect_bits_equal(
      run_backward(emb, in.tokens, in.grad_out, in.table, dims, BackwardVariant::DeterministicRows),
      ref::backward_sequential_f32(in.tokens, in.grad_out, in.table, dims),
      "a 1500-position segment among short ones");
}

TEST(EmbeddingBackwardRows, RowsRefusesADModelNotAMultipleOf4) {
  Device& dev = device();
  Embedding emb(dev);
  const Dims dims{10, 6, 16};
  Buffer gb = upload(dev, std::vector<float>(10 * 6, 0.5f), "grad_out");
  auto g = rng(2);
  auto table = random_floats(g, 16 * 6);
  Buffer tb = upload(dev, table, "grad_table");
  std::vector<uint32_t> tokens(10, 1);
  try {
    emb.backward(tokens, gb, tb, dims, BackwardVariant::DeterministicRows);
    ADD_FAILURE() << "not refused";
  } catch (const ValidationError& e) {
    EXPECT_EQ(e.rule(), "shape");
    const std::string m = e.what();
    for (std::string part : {std::string(kernels::embedding::embed_backward_rows::name),
                             std::string("dims.y (d_model) is 6"), std::string("multiple of 4"),
                             std::string("DeterministicPerElement")})
      EXPECT_NE(m.find(part), std::string::npos) << "message lacks '" << part << "': " << m;
  }
  expect_bits_equal(read<float>(dev, tb), table, "table after the refused call");
  // Deterministic (automatic) runs the per-element kernel for this shape: the same sum.
  emb.backward(tokens, gb, tb, dims, BackwardVariant::Deterministic);
  expect_bits_equal(read<float>(dev, tb),
                    ref::backward_sequential_f32(tokens, std::vector<float>(60, 0.5f), table, dims),
                    "Deterministic with d_model 6");
}

// embedding_native.wgsl has no `enable f16;`: the rows kernel runs without shader-f16, from
// device-held tokens too.
TEST(EmbeddingBackwardRows, RunsWithoutShaderF16AndFromDeviceTokens) {
  DeviceDescriptor desc;
  desc.label = "device without shader-f16";
  Device plain = testing::make_device(desc);
  ASSERT_FALSE(plain.has_feature(Feature::ShaderF16));
  auto g = rng(3);
  const Dims dims{70, 36, 12};
  Inputs in = make_inputs(g, dims);
  Embedding emb(plain);
  Buffer tokb = upload(plain, in.tokens, "tokens");
  Buffer gb = upload(plain, in.grad_out, "grad_out");
  Buffer tb = upload(plain, in.table, "grad_table");
  OovReport r = emb.backward(tokb, gb, tb, dims, BackwardVariant::Deterministic);
  EXPECT_EQ(r.count, 4u);
  expect_bits_equal(read<float>(plain, tb),
                    ref::backward_sequential_f32(in.tokens, in.grad_out, in.table, dims),
                    "embed_backward_rows without shader-f16, device tokens");
}

}  // namespace
}  // namespace wgslvk::embedding_test
