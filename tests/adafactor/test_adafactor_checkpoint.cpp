// MultiTensorAdafactor's checkpoints are untrusted input, like MultiTensorAdamW's (issue 16,
// tests/fuzz/test_checkpoint_untrusted.cpp): the same container (optimizer/safetensors_checkpoint)
// with format wgslvk.adafactor.v2. Regressions for what v1 let through: a flipped header bit (the
// CRC covered the data only), a truncated file, a folder or FIFO as the path (read whole), a
// duplicate key (the second won), deep JSON, hyperparameters the constructor refuses, a step that
// wraps. The fuzz target fuzz/fuzz_checkpoint.cpp decodes mutated files of both formats.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

#include "adafactor/adafactor.hpp"
#include "support/checkpoint_file.hpp"
#include "support/test_device.hpp"

namespace fs = std::filesystem;
using namespace wgslvk;
namespace af = wgslvk::adafactor;
using optimizer::CheckpointError;
using optimizer::CheckpointTensor;

using wgslvk::testing::checkpoint_header;
using wgslvk::testing::replaced;
using wgslvk::testing::with_checkpoint_header;

namespace {

// 2-D (factored), 1-D and an empty tensor (no state).
std::vector<optimizer::ParamSpec> params() {
  return {{"w", {4, 8}, true}, {"b", {8}, false}, {"e", {0, 3}, false}};
}

std::vector<CheckpointTensor> expected() {
  optimizer::Layout L = optimizer::make_layout(params(), optimizer::StatePrecision::FP32, 256,
                                               uint64_t(1) << 30, "MultiTensorAdafactor");
  return af::checkpoint_tensors(L);
}

std::vector<uint8_t> encode(const af::CheckpointState& st) {
  std::vector<std::vector<uint8_t>> data;
  for (const auto& t : expected()) {
    std::vector<float> f(t.bytes / 4);
    for (size_t i = 0; i < f.size(); ++i) f[i] = 0.01f * float(i + 1);
    std::vector<uint8_t> b(t.bytes);
    if (!b.empty()) std::memcpy(b.data(), f.data(), b.size());
    data.push_back(std::move(b));
  }
  return af::encode_checkpoint(expected(), data, st);
}

std::string decode_error(const std::vector<uint8_t>& f) {
  try {
    af::decode_checkpoint(f, expected());
  } catch (const CheckpointError& e) { return e.what(); }
  return {};
}

}  // namespace

TEST(AdafactorCheckpointUntrusted, ValidFileDecodes) {
  af::CheckpointState st;
  st.step = 9;
  st.hyper.lr = 0.125;
  st.hyper.eps1 = 1e-30 * 1e15 + 1e-14;  // a value that must round-trip bit for bit
  st.hyper.relative_step = true;
  auto f = encode(st);
  EXPECT_NE(checkpoint_header(f).find("\"format\":\"wgslvk.adafactor.v2\""), std::string::npos);
  af::DecodedCheckpoint d = af::decode_checkpoint(f, expected());
  EXPECT_EQ(d.state.step, 9u);
  EXPECT_EQ(d.state.hyper.lr, 0.125);
  EXPECT_EQ(d.state.hyper.eps1, st.hyper.eps1);
  EXPECT_TRUE(d.state.hyper.relative_step);
  EXPECT_EQ(d.spans.size(), expected().size());
  EXPECT_EQ(expected().size(), 6u);  // w, w.row_var, w.col_var, b, b.variance, e (no state)
}

// v1 covered the data only: a flipped header bit (lr 0.01 -> 0.03) changed the step silently.
TEST(AdafactorCheckpointUntrusted, CrcCoversTheHeader) {
  auto f = encode({});
  std::string h = checkpoint_header(f);
  size_t at = h.find("\"lr\":\"0.01\"");
  ASSERT_NE(at, std::string::npos) << h;
  f[8 + at + 9] ^= 0x02;  // '1' -> '3'
  std::string e = decode_error(f);
  EXPECT_NE(e.find("CRC-32"), std::string::npos) << e;
  EXPECT_NE(e.find("header or data"), std::string::npos) << e;
  auto g = encode({});
  g.back() ^= 1;  // the data too
  EXPECT_NE(decode_error(g).find("CRC-32"), std::string::npos);
  // Truncated by one byte: a clear error, not an out-of-range read.
  auto t = encode({});
  t.pop_back();
  e = decode_error(t);
  EXPECT_FALSE(e.empty());
  auto u = encode({});
  u.resize(20);
  EXPECT_NE(decode_error(u).find("runs past the end"), std::string::npos);
}

// What the constructor (check_hyper) refuses, load() refuses; the step is at most 2^53.
TEST(AdafactorCheckpointUntrusted, HyperparametersPassTheConstructorsValidation) {
  struct Bad {
    std::function<void(af::CheckpointState&)> edit;
    const char* text;
  };
  std::vector<Bad> bad = {
      {[](af::CheckpointState& s) { s.hyper.lr = -0.5; }, "lr = -0.5"},
      {[](af::CheckpointState& s) { s.hyper.beta2_decay = 0.5; }, "beta2_decay = 0.5"},
      {[](af::CheckpointState& s) { s.hyper.eps1 = 0; }, "eps1 = 0"},
      {[](af::CheckpointState& s) { s.hyper.eps2 = -1; }, "eps2 = -1"},
      {[](af::CheckpointState& s) { s.hyper.d = 0; }, "d (clip threshold) = 0"},
      {[](af::CheckpointState& s) { s.hyper.weight_decay = -1; }, "weight_decay = -1"},
      {[](af::CheckpointState& s) { s.step = UINT64_MAX; },
       "step 18446744073709551615 is above 2^53"},
      {[](af::CheckpointState& s) { s.step = (uint64_t(1) << 53) + 1; }, "is above 2^53"},
  };
  for (const auto& b : bad) {
    af::CheckpointState st;
    b.edit(st);
    std::string e = decode_error(encode(st));
    EXPECT_NE(e.find(b.text), std::string::npos) << "expected '" << b.text << "' in: " << e;
  }
  af::CheckpointState edge;
  edge.step = uint64_t(1) << 53;  // the limit itself is accepted
  EXPECT_EQ(af::decode_checkpoint(encode(edge), expected()).state.step, uint64_t(1) << 53);
  // Non-numbers and non-booleans (CRC recomputed).
  auto f = encode({});
  std::string h = checkpoint_header(f);
  std::string e = decode_error(
      with_checkpoint_header(f, replaced(h, "\"eps2\":\"0.001\"", "\"eps2\":\"nan\"")));
  EXPECT_NE(e.find("'eps2' = \"nan\" is not a finite number"), std::string::npos) << e;
  e = decode_error(with_checkpoint_header(
      f, replaced(h, "\"relative_step\":\"false\"", "\"relative_step\":\"no\"")));
  EXPECT_NE(e.find("is not true/false"), std::string::npos) << e;
}

TEST(AdafactorCheckpointUntrusted, HeaderJsonIsStrict) {
  auto f = encode({});
  std::string h = checkpoint_header(f);
  // A second "lr" must not win.
  std::string e =
      decode_error(with_checkpoint_header(f, replaced(h, "\"lr\":", "\"lr\":\"0.5\",\"lr\":")));
  EXPECT_NE(e.find("header has the key \"lr\" twice"), std::string::npos) << e;
  // Deep nesting: an error, not a stack overflow.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  e = decode_error(with_checkpoint_header(f, replaced(h, "\"shape\":[4,8]", "\"shape\":" + deep)));
  EXPECT_NE(e.find("nests deeper than 16"), std::string::npos) << e.substr(0, 300);
  // v1 files are refused with the reason; another optimizer's file is refused by its format.
  e = decode_error(
      with_checkpoint_header(f, replaced(h, "wgslvk.adafactor.v2", "wgslvk.adafactor.v1")));
  EXPECT_NE(e.find("v1 files' CRC did not cover the header"), std::string::npos) << e;
  e = decode_error(
      with_checkpoint_header(f, replaced(h, "wgslvk.adafactor.v2", "wgslvk.adamw.v2")));
  EXPECT_NE(e.find("expected 'wgslvk.adafactor.v2'"), std::string::npos) << e;
  // Exact tensor set: a wrong shape, a missing state vector.
  e = decode_error(with_checkpoint_header(f, replaced(h, "\"shape\":[4]", "\"shape\":[5]")));
  EXPECT_NE(e.find("'w.row_var' has shape [5], expected [4]"), std::string::npos) << e;
  e = decode_error(with_checkpoint_header(f, replaced(h, "\"b.variance\"", "\"b.varianc_\"")));
  EXPECT_NE(e.find("tensor 'b.variance' is missing"), std::string::npos) << e;
}

TEST(AdafactorCheckpointUntrusted, LoadRefusesFoldersFifosAndWrongSizes) {
  Device& d = wgslvk::testing::device();
  af::MultiTensorAdafactor o(d, params());
  fs::path dir =
      fs::temp_directory_path() / ("wgslvk_af_ckpt_untrusted_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a_folder");
  auto msg = [&](const fs::path& p) {
    try {
      o.load(p.string());
    } catch (const CheckpointError& e) { return std::string(e.what()); }
    return std::string("accepted");
  };
  std::string e = msg(dir / "a_folder");
  EXPECT_NE(e.find("is a folder"), std::string::npos) << e;
  EXPECT_NE(e.find("MultiTensorAdafactor::load("), std::string::npos) << e;
  EXPECT_NE(e.find("nothing was changed"), std::string::npos) << e;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  e = msg(dir / "fifo");  // v1 blocked reading it
  EXPECT_NE(e.find("not a regular file"), std::string::npos) << e;
  {
    std::ofstream(dir / "big") << "";
    fs::resize_file(dir / "big", uint64_t(4) << 30);  // sparse: refused from its size, not read
  }
  e = msg(dir / "big");
  EXPECT_NE(e.find("should be"), std::string::npos) << e;
  // A well-formed file with d = 0: refused, the optimizer unchanged.
  af::CheckpointState st;
  st.hyper.d = 0;
  st.step = 5;
  auto bytes = encode(st);
  {
    std::ofstream f(dir / "d0.safetensors", std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  e = msg(dir / "d0.safetensors");
  EXPECT_NE(e.find("d (clip threshold) = 0"), std::string::npos) << e;
  EXPECT_EQ(o.step_count(), 0u);
  EXPECT_EQ(o.options().hyper.d, af::Hyper{}.d);
  // A valid file written by the device-free encoder loads (the layouts agree), then round-trips.
  st.hyper.d = 2.0;
  bytes = encode(st);
  {
    std::ofstream f(dir / "ok0.safetensors", std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  ASSERT_EQ(msg(dir / "ok0.safetensors"), "accepted");
  EXPECT_EQ(o.step_count(), 5u);
  EXPECT_EQ(o.options().hyper.d, 2.0);
  std::vector<float> w = o.read_weights("w");
  ASSERT_EQ(w.size(), 32u);
  EXPECT_EQ(w[31], 0.01f * 32.0f);
  o.save((dir / "ok.safetensors").string());
  std::ifstream in(dir / "ok.safetensors", std::ios::binary);
  std::vector<uint8_t> saved((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_EQ(saved, bytes);  // save writes exactly what the encoder writes
  EXPECT_EQ(msg(dir / "ok.safetensors"), "accepted");
  fs::remove_all(dir);
}
