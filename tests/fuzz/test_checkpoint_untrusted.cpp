// Checkpoints are untrusted input (issue 16): the CRC covers the header as well as the data, the
// hyperparameters pass the constructor's validation, the step cannot wrap, the header's JSON is
// depth-limited without duplicate keys, and a folder or FIFO as the path is a clear error. The
// fuzz target fuzz/fuzz_checkpoint.cpp runs decode_checkpoint on mutated files.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "optimizer/checkpoint.hpp"
#include "support/checkpoint_file.hpp"
#include "support/test_device.hpp"

namespace fs = std::filesystem;
using namespace wgslvk;
using namespace wgslvk::optimizer;

using wgslvk::testing::checkpoint_header;
using wgslvk::testing::replaced;
using wgslvk::testing::with_checkpoint_header;

namespace {

std::vector<ParamSpec> params() { return {{"w", {4, 8}, true}, {"b", {8}, false}}; }

std::vector<CheckpointTensor> expected() {
  Layout L = make_layout(params(), StatePrecision::FP32, 256, uint64_t(1) << 30);
  return checkpoint_tensors(L, StatePrecision::FP32);
}

std::vector<uint8_t> encode(const CheckpointState& st) {
  std::vector<std::vector<uint8_t>> data;
  for (const auto& t : expected()) {
    std::vector<float> f(t.bytes / 4);
    for (size_t i = 0; i < f.size(); ++i) f[i] = 0.01f * float(i + 1);
    std::vector<uint8_t> b(t.bytes);
    std::memcpy(b.data(), f.data(), b.size());
    data.push_back(std::move(b));
  }
  return encode_checkpoint(expected(), data, st);
}

std::string decode_error(const std::vector<uint8_t>& f) {
  try {
    decode_checkpoint(f, expected(), AdamWOptions{});
  } catch (const CheckpointError& e) { return e.what(); }
  return {};
}

}  // namespace

TEST(CheckpointUntrusted, ValidFileDecodes) {
  CheckpointState st;
  st.step = 7;
  st.options.lr = 0.25f;
  auto f = encode(st);
  DecodedCheckpoint d = decode_checkpoint(f, expected(), AdamWOptions{});
  EXPECT_EQ(d.state.step, 7u);
  EXPECT_EQ(d.state.options.lr, 0.25f);
  EXPECT_EQ(d.spans.size(), expected().size());
}

// A flipped bit in the header (here lr 0.001 -> 0.003) once changed the hyperparameters silently.
TEST(CheckpointUntrusted, CrcCoversTheHeader) {
  auto f = encode({});
  std::string h = checkpoint_header(f);
  size_t at = h.find("\"lr\":\"0.00100000005\"");
  ASSERT_NE(at, std::string::npos) << h;
  f[8 + at + 12] ^= 0x02;  // '1' -> '3'
  std::string e = decode_error(f);
  EXPECT_NE(e.find("CRC-32"), std::string::npos) << e;
  EXPECT_NE(e.find("header or data"), std::string::npos) << e;
  // The length prefix and the data are covered too.
  auto g = encode({});
  g.back() ^= 1;
  EXPECT_NE(decode_error(g).find("CRC-32"), std::string::npos);
}

// What the constructor refuses, load() refuses (the CRC recomputed, so only the value is wrong).
TEST(CheckpointUntrusted, HyperparametersPassTheConstructorsValidation) {
  struct Bad {
    std::function<void(CheckpointState&)> edit;
    const char* text;
  };
  std::vector<Bad> bad = {
      {[](CheckpointState& s) { s.options.max_grad_norm = -1.0f; }, "max_grad_norm = -1"},
      {[](CheckpointState& s) { s.options.beta1 = 1.0f; }, "beta1 = 1"},
      {[](CheckpointState& s) { s.options.beta2 = 1.5f; }, "beta2 = 1.5"},
      {[](CheckpointState& s) { s.options.eps = -1.0f; }, "eps = -1"},
      {[](CheckpointState& s) { s.options.lr = -0.5f; }, "lr = -0.5"},
      {[](CheckpointState& s) { s.options.weight_decay = -1.0f; }, "weight_decay = -1"},
      {[](CheckpointState& s) { s.step = UINT64_MAX; }, "step 18446744073709551615 is above 2^53"},
  };
  for (const auto& b : bad) {
    CheckpointState st;
    b.edit(st);
    std::string e = decode_error(encode(st));
    EXPECT_NE(e.find(b.text), std::string::npos) << "expected '" << b.text << "' in: " << e;
  }
  // The constructor's own check says the same.
  AdamWOptions o;
  o.beta1 = 1.0f;
  EXPECT_THROW(check_adamw_options(o, "MultiTensorAdamW"), ValidationError);
}

TEST(CheckpointUntrusted, HeaderJsonIsStrict) {
  auto f = encode({});
  std::string h = checkpoint_header(f);
  // A second "lr" once won silently.
  std::string e =
      decode_error(with_checkpoint_header(f, replaced(h, "\"lr\":", "\"lr\":\"0.5\",\"lr\":")));
  EXPECT_NE(e.find("header has the key \"lr\" twice"), std::string::npos) << e;
  // Deep nesting: an error, not a stack overflow (in parsing or in a message quoting the value).
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  e = decode_error(with_checkpoint_header(f, replaced(h, "\"shape\":[4,8]", "\"shape\":" + deep)));
  EXPECT_NE(e.find("nests deeper than 16"), std::string::npos) << e.substr(0, 300);
  // A malformed shape is quoted, bounded.
  e = decode_error(with_checkpoint_header(
      f, replaced(h, "\"shape\":[4,8]", "\"shape\":[\"" + std::string(5000, 'x') + "\"]")));
  EXPECT_NE(e.find("malformed shape"), std::string::npos) << e.substr(0, 300);
  EXPECT_LT(e.size(), 600u);
  // Version 1 (the CRC covered the data only) is refused with the reason.
  e = decode_error(with_checkpoint_header(f, replaced(h, "wgslvk.adamw.v2", "wgslvk.adamw.v1")));
  EXPECT_NE(e.find("v1 files' CRC did not cover the header"), std::string::npos) << e;
  // A header length above the limit, and one past the end of the file.
  auto g = f;
  g[5] = 0x10;
  EXPECT_NE(decode_error(g).find("runs past the end"), std::string::npos);
}

// Issue 26: float shapes and offsets were truncated to integers; norm_mode and q8_scheme values
// this build never writes were ignored.
TEST(CheckpointUntrusted, HeaderValuesMustBeWhatSaveWrites) {
  auto f = encode({});
  std::string h = checkpoint_header(f);
  std::string e = decode_error(
      with_checkpoint_header(f, replaced(h, "\"shape\":[4,8]", "\"shape\":[4.0,8.0]")));
  EXPECT_NE(e.find("malformed shape"), std::string::npos) << e;
  e = decode_error(
      with_checkpoint_header(f, replaced(h, "\"data_offsets\":[0,", "\"data_offsets\":[0.0,")));
  EXPECT_NE(e.find("malformed shape or data_offsets"), std::string::npos) << e;
  e = decode_error(with_checkpoint_header(
      f, replaced(h, "\"norm_mode\":\"deterministic\"", "\"norm_mode\":\"fastest\"")));
  EXPECT_NE(e.find("'norm_mode' = \"fastest\" is neither"), std::string::npos) << e;
  e = decode_error(
      with_checkpoint_header(f, replaced(h, "\"q8_scheme\":\"none\"", "\"q8_scheme\":\"e4m3\"")));
  EXPECT_NE(e.find("'q8_scheme' = \"e4m3\", expected 'none'"), std::string::npos) << e;
  // The unedited header still decodes (the edits above are what is refused).
  EXPECT_EQ(decode_error(with_checkpoint_header(f, h)), "");
}

// Issue 26: save() followed a symlink planted at <path>.tmp (or at <path>) and wrote through it.
TEST(CheckpointUntrusted, SaveRefusesPlantedSymlinks) {
  Device& d = wgslvk::testing::device();
  MultiTensorAdamW o(d, params());
  fs::path dir = fs::temp_directory_path() / ("wgslvk_ckpt_symlink_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  { std::ofstream(dir / "victim") << "keep"; }
  fs::create_symlink(dir / "victim", dir / "a.safetensors.tmp");
  auto save_error = [&](const fs::path& p) {
    try {
      o.save(p.string());
    } catch (const CheckpointError& e) { return std::string(e.what()); }
    return std::string("saved");
  };
  std::string e = save_error(dir / "a.safetensors");
  EXPECT_NE(e.find("symbolic link"), std::string::npos) << e;
  fs::create_symlink(dir / "victim", dir / "b.safetensors");
  e = save_error(dir / "b.safetensors");
  EXPECT_NE(e.find("symbolic link"), std::string::npos) << e;
  std::ifstream in(dir / "victim");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "keep");
  EXPECT_EQ(save_error(dir / "c.safetensors"), "saved");
  fs::remove_all(dir);
}

TEST(CheckpointUntrusted, LoadRefusesFoldersFifosAndWrongSizes) {
  Device& d = wgslvk::testing::device();
  MultiTensorAdamW o(d, params());
  fs::path dir =
      fs::temp_directory_path() / ("wgslvk_ckpt_untrusted_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a_folder");
  auto msg = [&](const fs::path& p) {
    try {
      o.load(p.string());
    } catch (const CheckpointError& e) { return std::string(e.what()); }
    return std::string("accepted");
  };
  std::string e = msg(dir / "a_folder");  // once std::bad_alloc
  EXPECT_NE(e.find("is a folder"), std::string::npos) << e;
  EXPECT_NE(e.find("nothing was changed"), std::string::npos) << e;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  e = msg(dir / "fifo");
  EXPECT_NE(e.find("not a regular file"), std::string::npos) << e;
  // A sparse 4 GB file: refused from its size, not read.
  {
    std::ofstream(dir / "big") << "";
    fs::resize_file(dir / "big", uint64_t(4) << 30);
  }
  e = msg(dir / "big");
  EXPECT_NE(e.find("should be"), std::string::npos) << e;
  // A well-formed file with beta1 = 1: refused, the optimizer unchanged.
  CheckpointState st;
  st.options.beta1 = 1.0f;
  auto bytes = encode(st);
  {
    std::ofstream f(dir / "beta1.safetensors", std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  uint64_t before = o.step_count();
  e = msg(dir / "beta1.safetensors");
  EXPECT_NE(e.find("beta1 = 1"), std::string::npos) << e;
  EXPECT_EQ(o.step_count(), before);
  EXPECT_EQ(o.options().beta1, AdamWOptions{}.beta1);
  // The round trip still works (save -> load).
  o.save((dir / "ok.safetensors").string());
  EXPECT_NO_THROW(o.load((dir / "ok.safetensors").string()));
  fs::remove_all(dir);
}

// MultiTensorAdamW's file format is byte-identical since the container was shared with
// MultiTensorAdafactor (safetensors_checkpoint.cpp): the committed fuzz seed, written by the
// encoder before the split, is re-encoded exactly (same data and step as fuzz_checkpoint.cpp's seed).
TEST(CheckpointUntrusted, FormatIsByteIdenticalToTheCommittedSeed) {
  const char* src = std::getenv("WGSLVK_SOURCE_DIR");
  if (!src) GTEST_SKIP() << "WGSLVK_SOURCE_DIR is not set (ctest sets it)";
  std::ifstream in(fs::path(src) / "fuzz/corpus/checkpoint/fp32_two_params.safetensors",
                   std::ios::binary);
  ASSERT_TRUE(in) << "fuzz/corpus/checkpoint/fp32_two_params.safetensors";
  std::vector<uint8_t> committed((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
  std::vector<std::vector<uint8_t>> data;
  for (const auto& t : expected()) {
    std::vector<uint8_t> d(t.bytes);
    for (size_t i = 0; i < d.size(); ++i) d[i] = uint8_t(i * 37 + t.key.size());
    data.push_back(std::move(d));
  }
  CheckpointState st;
  st.step = 12;
  st.options.norm = NormMode::Atomic;  // the seed was written while the CAS norm was the default
  EXPECT_EQ(encode_checkpoint(expected(), data, st), committed);
}
