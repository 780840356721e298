// The embedding kernels (the llm.istanbul study of 01_embedding.wgsl) against their CPU references, through the host API:
// lookup, lookup_w16, backward in its three variants, the seed's open checklist items
// ("same token 10 times: is the sum correct?", "embed_lookup_w16 == embed_lookup?", OOB tokens)
// and every input validation error. The 2-D grid cases are in test_embedding_grid.cpp (slow).
#include "embedding_test_util.hpp"
#include "wgslvk/kernels/embedding/embed_backward.hpp"
#include "wgslvk/kernels/embedding/embed_backward_atomic_float.hpp"
#include "wgslvk/kernels/embedding/embed_backward_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16.hpp"

namespace wgslvk::embedding_test {
namespace {

// The kernels by their generated headers: the errors below must name the kernel they refused.
namespace ek = kernels::embedding;
template <class K>
std::string named(K) {
  return std::string(K::name);
}

// ---- lookup -------------------------------------------------------------------------------------

TEST(EmbeddingLookup, MatchesReferenceOnRandomInputs) {
  Embedding emb(device());
  auto g = rng();
  // d_model not a multiple of 4 (67, 3, 1), a power of two (64), one above a workgroup (257).
  for (Dims dims : {Dims{300, 67, 500}, Dims{1000, 3, 77}, Dims{513, 1, 9}, Dims{129, 64, 1000},
                    Dims{40, 257, 33}}) {
    auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
    auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
    OovReport report;
    auto got = run_lookup(emb, tokens, table, dims, &report);
    std::vector<float> want(got.size());
    ref::lookup(tokens, table, want, dims);
    expect_bits_equal(got, want, "embed_lookup d_model " + std::to_string(dims.d_model));
    EXPECT_EQ(report.count, 0u) << report.message();
  }
}

TEST(EmbeddingLookup, OutOfVocabularyIdsGiveExactZerosAndAreCounted) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{200, 37, 150};
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  // The seed's cases: vocab_size, vocab_size + 1, the largest u32 (t * d_model wraps in u32: the
  // bounds check must come first); and the last valid id next to them.
  const std::vector<std::pair<uint32_t, uint32_t>> oov = {
      {0, dims.vocab_size}, {17, dims.vocab_size + 1}, {18, 0xFFFFFFFFu}, {199, dims.vocab_size}};
  tokens[16] = dims.vocab_size - 1;
  for (auto [pos, id] : oov) tokens[pos] = id;
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);

  OovReport report;
  auto got = run_lookup(emb, tokens, table, dims, &report);
  std::vector<float> want(got.size());
  ref::lookup(tokens, table, want, dims);
  expect_bits_equal(got, want, "embed_lookup with OOV ids");
  for (auto [pos, id] : oov)
    for (uint32_t d = 0; d < dims.d_model; ++d)
      ASSERT_EQ(std::bit_cast<uint32_t>(got[size_t(pos) * dims.d_model + d]), 0u)
          << "position " << pos << " (id " << id << ") dim " << d << " is not +0.0";
  EXPECT_EQ(std::bit_cast<uint32_t>(got[16 * dims.d_model]),
            std::bit_cast<uint32_t>(table[(dims.vocab_size - 1) * dims.d_model]));

  EXPECT_EQ(report.count, 4u);
  EXPECT_EQ(report.positions, (std::vector<uint32_t>{0, 17, 18, 199}));
  EXPECT_EQ(report.ids, (std::vector<uint32_t>{dims.vocab_size, dims.vocab_size + 1, 0xFFFFFFFFu,
                                               dims.vocab_size}));
  EXPECT_NE(report.message().find("position 18 id 4294967295"), std::string::npos)
      << report.message();
}

TEST(EmbeddingLookup, OovReportListsTheFirstPositionsOnly) {
  std::vector<uint32_t> tokens(100, 5);
  for (uint32_t p = 10; p < 100; p += 3) tokens[p] = 1000 + p;
  OovReport r = embedding::count_oov(tokens, 10);
  EXPECT_EQ(r.count, 30u);
  ASSERT_EQ(r.positions.size(), OovReport::kMaxListed);
  EXPECT_EQ(r.positions.front(), 10u);
  EXPECT_EQ(r.ids.front(), 1010u);
  EXPECT_EQ(r.positions.back(), 10u + 3 * (OovReport::kMaxListed - 1));
}

TEST(EmbeddingLookup, TokensInADeviceBuffer) {
  Device& dev = device();
  Embedding emb(dev);
  auto g = rng();
  const Dims dims{150, 45, 60};
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  tokens[3] = 60;
  tokens[149] = 0xFFFFFFFFu;
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  Buffer tokb = upload(dev, tokens, "tokens");
  Buffer tb = upload(dev, table, "table");
  Buffer ob = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model), "out");
  OovReport report = emb.lookup(tokb, tb, ob, dims);
  std::vector<float> want(size_t(dims.seq_len) * dims.d_model);
  ref::lookup(tokens, table, want, dims);
  expect_bits_equal(read<float>(dev, ob), want, "embed_lookup, device tokens");
  EXPECT_EQ(report.count, 2u);
  EXPECT_EQ(report.positions, (std::vector<uint32_t>{3, 149}));
}

// ---- lookup_w16 ---------------------------------------------------------------------------------

TEST(EmbeddingLookupW16, EqualsLookupOnTheF32CopyBitForBit) {
  Device& dev = device();
  if (!dev.has_feature(Feature::ShaderF16)) GTEST_SKIP() << "device lacks shader-f16";
  Embedding emb(dev);
  auto g = rng();
  const Dims dims{333, 67, 301};  // vocab x d_model odd: the f16 binding is rounded up to 4 B
  const size_t n = size_t(dims.vocab_size) * dims.d_model;
  // Every finite f16 is possible (subnormals, +-0, the largest), plus infinities; no NaN (its
  // payload through a conversion is not what this test is about).
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFF);
  std::vector<uint16_t> table16(n);
  for (auto& h : table16) {
    do h = uint16_t(bits(g));
    while ((h & 0x7c00u) == 0x7c00u);
  }
  const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x7c00, 0xfc00};
  for (size_t k = 0; k < std::size(specials); ++k) table16[k * 3] = specials[k];
  std::vector<float> table32(n);
  for (size_t i = 0; i < n; ++i) table32[i] = f16_bits_to_f32(table16[i]);

  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  for (uint32_t k = 0; k < std::size(specials); ++k) tokens[k] = 0;  // the specials' row
  tokens[5] = 0xFFFFFFFFu;
  auto padded = table16;
  if (padded.size() % 2) padded.push_back(0);  // writes are whole 4-byte words
  Buffer t16 = upload(dev, padded, "table_w16");
  Buffer ob = upload(dev, poisoned(size_t(dims.seq_len) * dims.d_model), "out_w16");
  OovReport report = emb.lookup_w16(tokens, t16, ob, dims);
  auto got16 = read<float>(dev, ob);

  auto got32 = run_lookup(emb, tokens, table32, dims, nullptr);
  expect_bits_equal(got16, got32, "embed_lookup_w16 vs embed_lookup on the f32 copy");
  std::vector<float> want(got16.size());
  ref::lookup_w16(tokens, table16, want, dims);
  expect_bits_equal(got16, want, "embed_lookup_w16 vs reference");
  EXPECT_EQ(report.count, 1u);
}

// ---- backward -----------------------------------------------------------------------------------

TEST(EmbeddingBackward, MatchesReferenceOnRandomInputs) {
  Embedding emb(device());
  auto g = rng();
  for (Dims dims : {Dims{700, 67, 50}, Dims{256, 3, 1000}, Dims{1000, 1, 7}}) {
    auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
    tokens[1] = dims.vocab_size;  // OOV positions add nothing
    auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
    auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model, 0.1f);
    for (BackwardVariant v : kAllVariants) {
      if (!supported(v)) continue;
      check_backward(emb, tokens, grad_out, table, dims, v,
                     "backward d_model " + std::to_string(dims.d_model));
    }
  }
}

// The seed's unchecked item "when the same token occurs 10 times, is the sum correct?", at its
// worst: one token at every position, so every thread of a column CAS-adds into one element.
// Gradients are multiples of 2^-8 in [-8, 8] and every partial sum stays below 2^15 in
// magnitude, so each f32 add is exact in any order: all variants must give the exact sum, and a
// lost or doubled update shows as a wrong value.
TEST(EmbeddingBackward, SameTokenAtEveryPositionExactSum) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{2048, 40, 30};
  std::vector<uint32_t> tokens(dims.seq_len, 11);
  std::uniform_int_distribution<int> q(-2048, 2048);
  std::vector<float> grad_out(size_t(dims.seq_len) * dims.d_model);
  for (auto& x : grad_out) {
    int k;
    do k = q(g);
    while (k == 0);
    x = std::ldexp(float(k), -8);
  }
  std::vector<float> table(size_t(dims.vocab_size) * dims.d_model);
  for (auto& x : table) x = std::ldexp(float(q(g) | 1), -8);
  auto exact = ref::backward(tokens, grad_out, table, dims).value;  // exact: double holds it
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    auto got = run_backward(emb, tokens, grad_out, table, dims, v);
    expect_bits_equal(
        got, exact,
        "same token everywhere, exact sums [" + std::string(embedding::variant_name(v)) + "]");
  }
}

// The same contention with random gradients: within the derived bound, n = 4097 terms.
TEST(EmbeddingBackward, SameTokenAtEveryPositionWithinBound) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{4096, 33, 20};
  std::vector<uint32_t> tokens(dims.seq_len, 19);  // the last row of the table
  auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    check_backward(emb, tokens, grad_out, table, dims, v, "same token everywhere");
  }
}

// `if (val == 0.0 || !is_finite(val)) { return; }`: NaN, +-Inf, +0 and -0 add nothing. A table
// element whose contributions are all skipped keeps its bits: a -0.0 stays -0.0 (adding +0.0
// would make it +0.0), a NaN or Inf would poison it.
TEST(EmbeddingBackward, NanInfAndZeroGradientsAreSkipped) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{300, 21, 12};
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size - 1);  // row 11: only specials
  auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.0f, -0.0f,
                            std::bit_cast<float>(0xff800001u) /* a signalling NaN */};
  for (uint32_t s = 0; s < dims.seq_len; ++s)
    for (uint32_t d = 0; d < dims.d_model; ++d)
      if ((s * 7 + d) % 5 == 0) grad_out[size_t(s) * dims.d_model + d] = specials[(s + d) % 6];
  for (uint32_t p = 0; p < 12; ++p) {  // row 11 gets only skipped values
    tokens[p * 20] = dims.vocab_size - 1;
    for (uint32_t d = 0; d < dims.d_model; ++d)
      grad_out[size_t(p) * 20 * dims.d_model + d] = specials[(p + d) % 6];
  }
  const size_t row11 = size_t(dims.vocab_size - 1) * dims.d_model;
  table[row11] = -0.0f;
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    auto got = run_backward(emb, tokens, grad_out, table, dims, v);
    const std::string name = "skipped gradients";
    for (uint32_t d = 0; d < dims.d_model; ++d)
      ASSERT_EQ(std::bit_cast<uint32_t>(got[row11 + d]), std::bit_cast<uint32_t>(table[row11 + d]))
          << name << " [" << embedding::variant_name(v) << "]: row " << dims.vocab_size - 1
          << " dim " << d << " changed";
    for (float x : got)
      ASSERT_TRUE(std::isfinite(x))
          << name << " [" << embedding::variant_name(v) << "]: a non-finite value got in";
    check_backward(emb, tokens, grad_out, table, dims, v, name);
  }
}

TEST(EmbeddingBackward, OutOfVocabularyIdsAddNothingAndAreCounted) {
  Embedding emb(device());
  auto g = rng();
  const Dims dims{120, 19, 40};
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  tokens[7] = dims.vocab_size;
  tokens[8] = dims.vocab_size + 1;
  tokens[119] = 0xFFFFFFFFu;
  auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    OovReport report;
    auto got = run_backward(emb, tokens, grad_out, table, dims, v, &report);
    EXPECT_EQ(report.count, 3u);
    EXPECT_EQ(report.positions, (std::vector<uint32_t>{7, 8, 119}));
    check_backward(emb, tokens, grad_out, table, dims, v, "backward with OOV ids");
  }
  // Every id out of vocabulary: the table is untouched.
  std::vector<uint32_t> all_oov(dims.seq_len, dims.vocab_size);
  for (BackwardVariant v : kAllVariants) {
    if (!supported(v)) continue;
    OovReport report;
    auto got = run_backward(emb, all_oov, grad_out, table, dims, v, &report);
    EXPECT_EQ(report.count, dims.seq_len);
    expect_bits_equal(got, table, "all ids OOV [" + std::string(embedding::variant_name(v)) + "]");
  }
}

TEST(EmbeddingBackward, FloatAtomicsVariantIsAvailableWhereTheDeviceHasIt) {
  // The test device requests every adapter feature; lavapipe and NVIDIA have float atomics. If
  // an adapter does not, the variant tests above skip it: say so loudly.
  if (!device().has_feature(Feature::Float32AtomicAdd))
    GTEST_SKIP() << "adapter '" << device().adapter_name()
                 << "' lacks float32-atomic-add: the float_atomics variant was not tested";
  const KernelInfo& k = ek::embed_backward_atomic_float::Kernel::info();
  EXPECT_TRUE(k.needs_float_atomics);
  EXPECT_EQ(k.abi_of, "embed_backward");
}

TEST(EmbeddingBackward, DeterministicIsBitwiseIdenticalAcrossRuns) {
  Device& dev = device();
  Embedding emb(dev);
  auto g = rng();
  const Dims dims{3000, 29, 8};  // ~375 positions per token: the CAS order varies run to run
  auto tokens = random_tokens(g, dims.seq_len, dims.vocab_size);
  auto grad_out = random_floats(g, size_t(dims.seq_len) * dims.d_model);
  auto table = random_floats(g, size_t(dims.vocab_size) * dims.d_model);
  auto want = ref::backward_sequential_f32(tokens, grad_out, table, dims);
  Buffer tokb = upload(dev, tokens, "tokens");  // the device-token path this time
  Buffer gb = upload(dev, grad_out, "grad_out");
  for (int run = 0; run < 4; ++run) {
    Buffer tb = upload(dev, table, "grad_table");
    emb.backward(tokb, gb, tb, dims, BackwardVariant::Deterministic);
    expect_bits_equal(read<float>(dev, tb), want, "deterministic run " + std::to_string(run));
  }
}

// ---- input validation ---------------------------------------------------------------------------

// Runs f, expects a ValidationError of `rule` whose message holds every one of `parts`.
template <class F>
void expect_error(F&& f, const std::string& rule, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected rule " << rule;
  } catch (const ValidationError& e) {
    EXPECT_EQ(e.rule(), rule) << e.what();
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message lacks '" << p << "': " << e.what();
  }
}

TEST(EmbeddingValidation, WrongTokenLength) {
  Device& dev = device();
  Embedding emb(dev);
  const Dims dims{10, 8, 16};
  Buffer tb = upload(dev, std::vector<float>(16 * 8, 1.0f), "table");
  Buffer ob = upload(dev, poisoned(10 * 8), "out");
  std::vector<uint32_t> nine(9, 1);
  expect_error(
      [&] { emb.lookup(nine, tb, ob, dims); }, "shape",
      {named(ek::embed_lookup::Kernel{}), "binding 0 `tokens`", "9 ids", "seq_len) is 10"});
  for (BackwardVariant v : {BackwardVariant::Cas, BackwardVariant::Deterministic,
                            BackwardVariant::DeterministicPerElement})
    expect_error(
        [&] { emb.backward(nine, ob, tb, dims, v); }, "shape",
        {std::string(embedding::variant_kernel(v, dims.d_model)), "binding 0 `tokens`", "9 ids"});
  expect_error([&] { emb.backward(nine, ob, tb, dims, BackwardVariant::Deterministic); }, "shape",
               {named(ek::embed_backward_rows::Kernel{}), "binding 0 `tokens`", "9 ids"});
  Buffer tok11 = upload(dev, std::vector<uint32_t>(11, 1), "tokens11");
  expect_error([&] { emb.lookup(tok11, tb, ob, dims); }, "shape",
               {named(ek::embed_lookup::Kernel{}), "binding 0 `tokens` buffer 'tokens11'",
                "44 bytes", "seq_len) 10 needs exactly 40"});
  // Nothing was dispatched: the output still holds its poison.
  for (float x : read<float>(dev, ob)) ASSERT_EQ(std::bit_cast<uint32_t>(x), testing::kPoisonBits);
}

TEST(EmbeddingValidation, TableLargerThanOneBinding) {
  Device& dev = device();
  Embedding emb(dev);
  const uint64_t limit = dev.limits().max_storage_buffer_binding_size;
  const uint32_t d_model = 1024;
  const uint32_t vocab = uint32_t(limit / (4ull * d_model)) + 1;  // one row past the limit
  const Dims dims{4, d_model, vocab};
  Buffer small = upload(dev, std::vector<float>(16, 1.0f), "table");
  Buffer ob = upload(dev, poisoned(4 * d_model), "out");
  std::vector<uint32_t> tokens{0, 1, 2, 3};
  const std::string bytes = std::to_string(uint64_t(vocab) * d_model * 4);
  expect_error([&] { emb.lookup(tokens, small, ob, dims); }, "limits",
               {named(ek::embed_lookup::Kernel{}), "binding 1 `table`",
                "vocab_size " + std::to_string(vocab) + " x d_model 1024", bytes + " bytes",
                "maxStorageBufferBindingSize " + std::to_string(limit)});
  expect_error([&] { emb.backward(tokens, ob, small, dims); }, "limits",
               {named(ek::embed_backward::Kernel{}), "binding 2 `grad_table`",
                "maxStorageBufferBindingSize " + std::to_string(limit)});
  // The f16 table holds twice as many rows in one binding: this vocab still fits there.
  if (dev.has_feature(Feature::ShaderF16))
    expect_error([&] { emb.lookup_w16(tokens, small, ob, dims); }, "shape",
                 {named(ek::embed_lookup_w16::Kernel{}), "binding 1 `table_w16`",
                  "does not fit buffer 'table'"});
}

TEST(EmbeddingValidation, BuffersTooSmallForTheDims) {
  Device& dev = device();
  Embedding emb(dev);
  const Dims dims{10, 8, 16};
  Buffer tb = upload(dev, std::vector<float>(16 * 8 - 1, 1.0f), "short table");
  Buffer ob = upload(dev, poisoned(10 * 8), "out");
  std::vector<uint32_t> tokens(10, 1);
  expect_error([&] { emb.lookup(tokens, tb, ob, dims); }, "shape",
               {"binding 1 `table`", "512 bytes", "'short table' of 508 bytes"});
  Buffer ok_table = upload(dev, std::vector<float>(16 * 8, 1.0f), "table");
  Buffer short_out = upload(dev, poisoned(10 * 8 - 2), "short out");
  expect_error([&] { emb.lookup(tokens, ok_table, short_out, dims); }, "shape",
               {"binding 2 `out`", "seq_len 10 x d_model 8", "'short out' of 312 bytes"});
  expect_error([&] { emb.backward(tokens, short_out, ok_table, dims); }, "shape",
               {named(ek::embed_backward::Kernel{}), "binding 1 `grad_out`"});
  expect_error(
      [&] {
        emb.lookup(tokens, ok_table, ob, Dims{10, 0, 16});
      },
      "shape", {named(ek::embed_lookup::Kernel{}), "d_model) is 0"});
  expect_error(
      [&] {
        emb.lookup(tokens, ok_table, ob, Dims{10, 8, 0});
      },
      "shape", {"vocab_size) is 0"});
}

// 01_embedding.wgsl starts with `enable f16;` (module-wide), so without shader-f16 a browser
// cannot create the module: embed_lookup_w16 is refused, and so are embed_lookup and
// embed_backward, each with its reason. The deterministic backward (embedding_native.wgsl) runs.
// (LookupPath::port: the row-wise lookups of embedding_native.wgsl run there, test_lookup_rows.cpp.)
TEST(EmbeddingValidation, F16ModuleRefusedWithoutShaderF16) {
  DeviceDescriptor desc;
  desc.label = "device without shader-f16";
  Device plain = testing::make_device(desc);
  ASSERT_FALSE(plain.has_feature(Feature::ShaderF16));
  Embedding emb(plain, embedding::LookupPath::port);
  const Dims dims{4, 8, 16};
  Buffer t16 = upload(plain, std::vector<uint16_t>(16 * 8, 0x3c00), "table_w16");
  Buffer ob = upload(plain, poisoned(4 * 8), "out");
  std::vector<uint32_t> tokens{0, 1, 2, 0};
  expect_error(
      [&] { emb.lookup_w16(tokens, t16, ob, dims); }, "feature",
      {named(ek::embed_lookup_w16::Kernel{}), "shader-f16", "binding 1 `table_w16: array<f16>`"});
  Buffer tb = upload(plain, std::vector<float>(16 * 8, 0.5f), "grad_table");
  Buffer gb = upload(plain, std::vector<float>(4 * 8, 0.25f), "grad_out");
  expect_error([&] { emb.lookup(tokens, tb, ob, dims); }, "feature",
               {named(ek::embed_lookup::Kernel{}), "shader-f16", "01_embedding.wgsl", "enable f16;",
                "module-wide"});
  expect_error([&] { emb.backward(tokens, gb, tb, dims, BackwardVariant::Cas); }, "feature",
               {named(ek::embed_backward::Kernel{}), "shader-f16", "enable f16;"});
  // The float-atomic variant is native (not in 01_embedding.wgsl), so the module's `enable f16;`
  // does not apply to it (translator: native variants need only what their own SPIR-V uses);
  // this device lacks the float-atomic feature it does need.
  expect_error([&] { emb.backward(tokens, gb, tb, dims, BackwardVariant::FloatAtomics); },
               "feature", {named(ek::embed_backward_atomic_float::Kernel{}), "float32-atomic-add"});
  for (float x : read<float>(plain, ob))
    ASSERT_EQ(std::bit_cast<uint32_t>(x), testing::kPoisonBits) << "something ran";
  emb.backward(tokens, gb, tb, dims, BackwardVariant::Deterministic);
  auto got = read<float>(plain, tb);
  EXPECT_EQ(got[0], 1.0f);      // row 0: positions 0 and 3
  EXPECT_EQ(got[8], 0.75f);     // row 1: position 1
  EXPECT_EQ(got[3 * 8], 0.5f);  // row 3: no position holds id 3
}

TEST(EmbeddingValidation, FloatAtomicsRefusedWithoutTheFeature) {
  DeviceDescriptor desc;
  desc.label = "device without float atomics";
  if (testing::adapter().has_feature(Feature::ShaderF16))
    desc.required_features = {Feature::ShaderF16};  // so the float-atomics check is the one hit
  Device dev = testing::make_device(desc);
  ASSERT_FALSE(dev.has_feature(Feature::Float32AtomicAdd));
  Embedding emb(dev);
  const Dims dims{4, 8, 16};
  Buffer tb = upload(dev, std::vector<float>(16 * 8, 0.5f), "grad_table");
  Buffer gb = upload(dev, std::vector<float>(4 * 8, 0.25f), "grad_out");
  std::vector<uint32_t> tokens{0, 1, 2, 3};
  expect_error([&] { emb.backward(tokens, gb, tb, dims, BackwardVariant::FloatAtomics); },
               "feature",
               {named(ek::embed_backward_atomic_float::Kernel{}),
                dev.has_feature(Feature::ShaderF16) ? "float32-atomic-add" : "shader-f16"});
}

}  // namespace
}  // namespace wgslvk::embedding_test
