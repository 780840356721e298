// The row-wise lookups (embedding_native.wgsl, ours; issue 15): embed_lookup_rows and
// embed_lookup_w16_rows give the ports' output bit for bit (a copy, an exact f16 -> f32 widening,
// +0.0 for an out-of-vocabulary id) on odd shapes, every rows-per-workgroup the host picks,
// out-of-vocabulary ids and poison past the output; LookupPath picks them (automatic: native
// when d_model % 4 == 0) and refuses what they cannot do; they run without shader-f16. The
// >65535-workgroup grid is in test_embedding_grid.cpp (slow).
#include <gtest/gtest.h>

#include "embedding_test_util.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16_rows.hpp"

namespace wgslvk::embedding_test {
namespace {

using embedding::LookupPath;

constexpr uint32_t kTail = 100;  // poisoned elements bound past the output: must stay poisoned

// Tokens with the seed's out-of-vocabulary ids at a few positions (when seq_len allows).
std::vector<uint32_t> tokens_with_oov(std::mt19937_64& g, Dims dims) {
  auto t = random_tokens(g, dims.seq_len, dims.vocab_size);
  const uint32_t bad[] = {dims.vocab_size, dims.vocab_size + 1, 0xFFFFFFFFu, 0x80000000u};
  for (size_t k = 0; k < std::size(bad); ++k)
    if (3 * k + 1 < t.size()) t[3 * k + 1] = bad[k];
  if (t.size() > 2) t[2] = dims.vocab_size - 1;  // the last valid row beside them
  return t;
}

// One lookup (w16: lookup_w16 on `table16`, else lookup on `table32`) with `path`, into an output
// of seq_len x d_model + kTail poisoned floats; returns all of it.
std::vector<float> lookup_with(LookupPath path, bool w16, const std::vector<uint32_t>& tokens,
                               const std::vector<float>& table32,
                               const std::vector<uint16_t>& table16, Dims dims,
                               OovReport* report = nullptr) {
  Device& dev = device();
  Embedding emb(dev, path);
  Buffer ob = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model + kTail), "out");
  OovReport r;
  if (w16) {
    auto padded = table16;
    if (padded.size() % 2) padded.push_back(0);
    Buffer tb = upload(dev, padded, "table_w16");
    r = emb.lookup_w16(tokens, tb, ob, dims);
  } else {
    Buffer tb = upload(dev, table32, "table");
    r = emb.lookup(tokens, tb, ob, dims);
  }
  if (report) *report = r;
  return read<float>(dev, ob);
}

std::vector<float> expected_with_tail(std::vector<float> want) {
  want.resize(want.size() + kTail, poison_f32());
  return want;
}

// Random f16 bit patterns: every finite value (subnormals, +-0, the largest) plus +-inf.
std::vector<uint16_t> random_halves(std::mt19937_64& g, size_t n) {
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFF);
  std::vector<uint16_t> v(n);
  for (auto& h : v) {
    do h = uint16_t(bits(g));
    while ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0);  // no NaN here (see the NaN test)
  }
  const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x7c00, 0xfc00};
  for (size_t k = 0; k < std::size(specials) && k < n; ++k) v[k] = specials[k];
  return v;
}

// d_model: the smallest (4: 64 rows per workgroup), 12 (3 vec4, 16 rows), 64, 252 (63 vec4 over
// 64 lanes), 256, 260 (a second unrolled iteration for lanes 0..0 of 65 vec4), 768 (GPT), 1028
// (257 vec4: the guarded tail of the second 4-load iteration); odd seq_len and vocab_size.
const Dims kShapes[] = {Dims{301, 4, 500}, Dims{257, 12, 77}, Dims{129, 64, 1000},
                        Dims{33, 252, 40}, Dims{40, 256, 33}, Dims{17, 260, 9},
                        Dims{3, 768, 5},   Dims{5, 1028, 11}};

TEST(EmbeddingLookupRows, RowsPerWorkgroupAndWorkgroups) {
  using embedding::lookup_rows_per_workgroup;
  using embedding::lookup_rows_workgroups;
  EXPECT_EQ(lookup_rows_per_workgroup(4), 64u);
  EXPECT_EQ(lookup_rows_per_workgroup(8), 32u);
  EXPECT_EQ(lookup_rows_per_workgroup(12), 16u);  // 3 vec4: 4 lanes
  EXPECT_EQ(lookup_rows_per_workgroup(16), 16u);
  EXPECT_EQ(lookup_rows_per_workgroup(252), 1u);  // 63 vec4: 64 lanes
  EXPECT_EQ(lookup_rows_per_workgroup(256), 1u);
  EXPECT_EQ(lookup_rows_per_workgroup(768), 1u);
  EXPECT_EQ(lookup_rows_workgroups(301, 4), 5u);
  EXPECT_EQ(lookup_rows_workgroups(4096, 768), 4096u);
}

TEST(EmbeddingLookupRows, SameBitsAsThePortAndTheReference) {
  const bool port_ok = device().has_feature(Feature::ShaderF16);  // 01_embedding.wgsl: enable f16
  auto g = rng();
  for (Dims dims : kShapes) {
    const std::string what = "d_model " + std::to_string(dims.d_model);
    auto tokens = tokens_with_oov(g, dims);
    auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
    table[1] = -0.0f;  // signed zeros are copied bit for bit
    OovReport report;
    auto native = lookup_with(LookupPath::native, false, tokens, table, {}, dims, &report);
    std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
    ref::lookup(tokens, table, want, dims);
    expect_bits_equal(native, expected_with_tail(want), "embed_lookup_rows vs reference, " + what);
    EXPECT_EQ(report.count, embedding::count_oov(tokens, dims.vocab_size).count);
    if (port_ok)
      expect_bits_equal(native, lookup_with(LookupPath::port, false, tokens, table, {}, dims),
                        "embed_lookup_rows vs embed_lookup, " + what);
  }
}

TEST(EmbeddingLookupRows, W16SameBitsAsThePortAndTheF32Lookup) {
  const bool port_ok = device().has_feature(Feature::ShaderF16);
  auto g = rng(1);
  for (Dims dims : kShapes) {
    const std::string what = "d_model " + std::to_string(dims.d_model);
    auto tokens = tokens_with_oov(g, dims);
    tokens[0] = 0;  // the specials' row
    auto t16 = random_halves(g, size_t(dims.vocab_size) * dims.d_model);
    std::vector<float> t32(t16.size());
    for (size_t i = 0; i < t16.size(); ++i) t32[i] = f16_bits_to_f32(t16[i]);
    auto native = lookup_with(LookupPath::native, true, tokens, {}, t16, dims);
    std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
    ref::lookup_w16(tokens, t16, want, dims);
    expect_bits_equal(native, expected_with_tail(want),
                      "embed_lookup_w16_rows vs reference, " + what);
    expect_bits_equal(native, lookup_with(LookupPath::native, false, tokens, t32, {}, dims),
                      "embed_lookup_w16_rows vs embed_lookup_rows on the f32 copy, " + what);
    if (port_ok)
      expect_bits_equal(native, lookup_with(LookupPath::port, true, tokens, {}, t16, dims),
                        "embed_lookup_w16_rows vs embed_lookup_w16, " + what);
  }
}

// NaN halves: unpack2x16float and the port's f16 -> f32 conversion widen the same way here
// (quiet and signalling payloads); the reference is only asked for "a NaN".
TEST(EmbeddingLookupRows, W16NanHalvesAsThePort) {
  if (!device().has_feature(Feature::ShaderF16)) GTEST_SKIP() << "the port needs shader-f16";
  const Dims dims{6, 8, 2};
  std::vector<uint16_t> t16 = {0x7e00, 0xfe00, 0x7c01, 0xfdff, 0x7fff, 0x7d55, 0x3c00, 0xbc00,
                               0x0001, 0x8001, 0x03ff, 0x7c00, 0xfc00, 0x7e01, 0x0000, 0x8000};
  std::vector<uint32_t> tokens = {0, 1, 1, 0, 2, 0};
  auto native = lookup_with(LookupPath::native, true, tokens, {}, t16, dims);
  auto port = lookup_with(LookupPath::port, true, tokens, {}, t16, dims);
  expect_bits_equal(native, port, "NaN, subnormal and infinite halves: native vs port");
  for (uint32_t s : {0u, 1u, 2u, 3u, 5u})
    for (uint32_t d = 0; d < dims.d_model; ++d) {
      const float x = native[s * dims.d_model + d], h = f16_bits_to_f32(t16[tokens[s] * 8 + d]);
      if (std::isnan(h))
        EXPECT_TRUE(std::isnan(x)) << s << "," << d;
      else
        EXPECT_EQ(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(h)) << s << "," << d;
    }
}

TEST(EmbeddingLookupRows, AutomaticPicksNativeWhenDModelIsAMultipleOf4) {
  Embedding emb(device());
  EXPECT_EQ(emb.lookup_path(), LookupPath::automatic);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 768, 50}, false),
            kernels::embedding::embed_lookup_rows::name);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 768, 50}, true),
            kernels::embedding::embed_lookup_w16_rows::name);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 67, 50}, false), kernels::embedding::embed_lookup::name);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 6, 50}, true), kernels::embedding::embed_lookup_w16::name);
  emb.set_lookup_path(LookupPath::port);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 768, 50}, false), kernels::embedding::embed_lookup::name);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 768, 50}, true), kernels::embedding::embed_lookup_w16::name);
  emb.set_lookup_path(LookupPath::native);
  EXPECT_EQ(emb.lookup_kernel(Dims{10, 67, 50}, false),
            kernels::embedding::embed_lookup_rows::name);
  EXPECT_EQ(embedding::lookup_path_name(LookupPath::automatic), "automatic");
  EXPECT_EQ(embedding::lookup_path_name(LookupPath::native), "native");

  if (!device().has_feature(Feature::ShaderF16)) return;  // the port runs the d_model 67 call
  auto g = rng(2);
  const Dims dims{50, 67, 40};
  auto tokens = tokens_with_oov(g, dims);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
  ref::lookup(tokens, table, want, dims);
  expect_bits_equal(lookup_with(LookupPath::automatic, false, tokens, table, {}, dims),
                    expected_with_tail(want), "automatic with d_model 67 (the port)");
}

TEST(EmbeddingLookupRows, NativeRefusesADModelNotAMultipleOf4) {
  Device& dev = device();
  Embedding emb(dev, LookupPath::native);
  const Dims dims{10, 6, 16};
  Buffer tb = upload(dev, std::vector<float>(16 * 6, 1.0f), "table");
  Buffer ob = upload(dev, poisoned(10 * 6), "out");
  std::vector<uint32_t> tokens(10, 1);
  for (bool w16 : {false, true}) {
    try {
      if (w16)
        emb.lookup_w16(tokens, tb, ob, dims);
      else
        emb.lookup(tokens, tb, ob, dims);
      ADD_FAILURE() << "not refused";
    } catch (const ValidationError& e) {
      EXPECT_EQ(e.rule(), "shape");
      const std::string m = e.what();
      for (std::string part : {std::string(w16 ? kernels::embedding::embed_lookup_w16_rows::name
                                               : kernels::embedding::embed_lookup_rows::name),
                               std::string("dims.y (d_model) is 6"), std::string("multiple of 4")})
        EXPECT_NE(m.find(part), std::string::npos) << "message lacks '" << part << "': " << m;
    }
  }
  for (float x : read<float>(dev, ob))
    ASSERT_EQ(std::bit_cast<uint32_t>(x), testing::kPoisonBits) << "something ran";
}

// embedding_native.wgsl has no `enable f16;`: both row-wise lookups run on a device without
// shader-f16 (the f16 table read as u32 pairs); the ports are still refused there.
TEST(EmbeddingLookupRows, RunWithoutShaderF16) {
  DeviceDescriptor desc;
  desc.label = "device without shader-f16";
  Device plain = testing::make_device(desc);
  ASSERT_FALSE(plain.has_feature(Feature::ShaderF16));
  auto g = rng(3);
  const Dims dims{30, 20, 12};
  auto tokens = tokens_with_oov(g, dims);
  auto t16 = random_halves(g, size_t(dims.vocab_size) * dims.d_model);
  std::vector<float> t32(t16.size());
  for (size_t i = 0; i < t16.size(); ++i) t32[i] = f16_bits_to_f32(t16[i]);
  std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
  ref::lookup(tokens, t32, want, dims);
  Embedding emb(plain);
  Buffer b32 = upload(plain, t32, "table");
  Buffer b16 = upload(plain, t16, "table_w16");
  Buffer o1 = upload(plain, poisoned(want.size()), "out");
  Buffer o2 = upload(plain, poisoned(want.size()), "out_w16");
  emb.lookup(tokens, b32, o1, dims);
  emb.lookup_w16(tokens, b16, o2, dims);
  expect_bits_equal(read<float>(plain, o1), want, "embed_lookup_rows without shader-f16");
  expect_bits_equal(read<float>(plain, o2), want, "embed_lookup_w16_rows without shader-f16");
  emb.set_lookup_path(LookupPath::port);
  EXPECT_THROW(emb.lookup(tokens, b32, o1, dims), ValidationError);
  EXPECT_THROW(emb.lookup_w16(tokens, b16, o2, dims), ValidationError);
}

TEST(EmbeddingLookupRows, DeviceTokensAndRecordedNextToThePort) {
  Device& dev = device();
  auto g = rng(4);
  const Dims dims{77, 36, 60};
  auto tokens = tokens_with_oov(g, dims);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
  ref::lookup(tokens, table, want, dims);
  Buffer tokb = upload(dev, tokens, "tokens");
  Buffer tb = upload(dev, table, "table");
  Buffer a = upload(dev, poisoned(want.size()), "out device tokens");
  Embedding emb(dev);
  OovReport r = emb.lookup(tokb, tb, a, dims);
  EXPECT_EQ(r.count, 4u);
  expect_bits_equal(read<float>(dev, a), want, "embed_lookup_rows, tokens in a device buffer");
  if (!dev.has_feature(Feature::ShaderF16)) return;
  // One encoder, the native and the port lookups into two outputs.
  Buffer b = upload(dev, poisoned(want.size()), "out native");
  Buffer c = upload(dev, poisoned(want.size()), "out port");
  Embedding port(dev, LookupPath::port);
  CommandEncoder enc = dev.create_command_encoder({"native and port"});
  emb.record_lookup(enc, tokens, tb, b, dims);
  port.record_lookup(enc, tokens, tb, c, dims);
  dev.queue().submit(enc.finish());
  dev.wait_idle();
  expect_bits_equal(read<float>(dev, b), want, "recorded embed_lookup_rows");
  expect_bits_equal(read<float>(dev, c), want, "recorded embed_lookup");
}

}  // namespace
}  // namespace wgslvk::embedding_test
