// Fuzz target: the optimizers' safetensors checkpoint decoders, device-free, each input through
// both: MultiTensorAdamW's (wgsl_ports/optimizer/checkpoint.cpp, the tensors of a small
// two-parameter fp32 layout) and MultiTensorAdafactor's (wgsl_ports/adafactor/adafactor.cpp, a
// 2-D, a 1-D and an empty parameter), both on the shared container
// (wgsl_ports/optimizer/safetensors_checkpoint.cpp). Refusals are CheckpointError.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "adafactor/adafactor.hpp"
#include "fuzz.hpp"
#include "optimizer/checkpoint.hpp"

using namespace wgslvk::optimizer;

namespace {
const std::vector<CheckpointTensor>& expected() {
  static const std::vector<CheckpointTensor> t = [] {
    std::vector<ParamSpec> params = {{"w", {4, 8}, true}, {"b", {8}, false}};
    Layout L = make_layout(params, StatePrecision::FP32, 256, uint64_t(1) << 30);
    return checkpoint_tensors(L, StatePrecision::FP32);
  }();
  return t;
}
const std::vector<CheckpointTensor>& expected_adafactor() {
  static const std::vector<CheckpointTensor> t = [] {
    std::vector<ParamSpec> params = {{"w", {4, 8}, true}, {"b", {8}, false}, {"e", {0, 3}, false}};
    Layout L =
        make_layout(params, StatePrecision::FP32, 256, uint64_t(1) << 30, "MultiTensorAdafactor");
    return wgslvk::adafactor::checkpoint_tensors(L);
  }();
  return t;
}
std::vector<std::vector<uint8_t>> seed_data(const std::vector<CheckpointTensor>& ts) {
  std::vector<std::vector<uint8_t>> data;
  for (const auto& t : ts) {
    std::vector<uint8_t> d(t.bytes);
    for (size_t i = 0; i < d.size(); ++i) d[i] = uint8_t(i * 37 + t.key.size());
    data.push_back(std::move(d));
  }
  return data;
}
}  // namespace

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"\"__metadata__\"",
          "\"format\"",
          "\"wgslvk.adamw.v2\"",
          "\"step\"",
          "\"lr\"",
          "\"beta1\"",
          "\"beta2\"",
          "\"eps\"",
          "\"weight_decay\"",
          "\"max_grad_norm\"",
          "\"none\"",
          "\"crc32\"",
          "\"dtype\"",
          "\"F32\"",
          "\"U8\"",
          "\"shape\"",
          "\"data_offsets\"",
          "\"w.exp_avg\"",
          "\"-1\"",
          "\"1\"",
          "\"nan\"",
          "\"18446744073709551615\"",
          "[[[[[[[[[[[[[[[[[[",
          "{\"a\":",
          "\xff\xff\xff\xff",
          "\"wgslvk.adafactor.v2\"",
          "\"beta2_decay\"",
          "\"eps1\"",
          "\"eps2\"",
          "\"d\"",
          "\"relative_step\"",
          "\"scale_parameter\"",
          "\"true\"",
          "\"false\"",
          "\"w.row_var\"",
          "\"b.variance\"",
          "\"9007199254740993\""};
}
// A valid checkpoint of each layout above (the committed corpus holds the AdamW one).
std::vector<std::vector<uint8_t>> extra_seeds() {
  CheckpointState st;
  st.step = 12;
  wgslvk::adafactor::CheckpointState as;
  as.step = 12;
  return {encode_checkpoint(expected(), seed_data(expected()), st),
          wgslvk::adafactor::encode_checkpoint(expected_adafactor(),
                                               seed_data(expected_adafactor()), as)};
}
}  // namespace wgslvk::fuzz

namespace {
// The input with its CRC recomputed (when it has a crc32 field): mutations then reach the checks
// behind the CRC instead of stopping at it.
std::vector<uint8_t> with_fixed_crc(const uint8_t* data, size_t size) {
  std::vector<uint8_t> v(data, data + size);
  const std::string mark = "\"crc32\":\"";
  std::string_view s(reinterpret_cast<const char*>(v.data()), v.size());
  size_t at = s.find(mark);
  if (at == std::string_view::npos || at + mark.size() + 8 > v.size()) return {};
  at += mark.size();
  std::memset(v.data() + at, '0', 8);
  char crc[16];
  std::snprintf(crc, sizeof crc, "%08x", checkpoint_crc32(v));
  std::memcpy(v.data() + at, crc, 8);
  return v;
}

template <class Decoded>
void check_spans(const Decoded& d, const std::vector<CheckpointTensor>& expected, size_t size) {
  if (d.spans.size() != expected.size())
    wgslvk::fuzz::bug("decoded a checkpoint with the wrong tensor count");
  for (size_t i = 0; i < d.spans.size(); ++i)
    if (d.data_offset + d.spans[i].second > size ||
        d.spans[i].second - d.spans[i].first != expected[i].bytes)
      wgslvk::fuzz::bug("a decoded tensor lies outside the file");
}

void run_adafactor(const uint8_t* data, size_t size) {
  try {
    auto d = wgslvk::adafactor::decode_checkpoint(std::span<const uint8_t>(data, size),
                                                  expected_adafactor());
    check_spans(d, expected_adafactor(), size);
    if (d.state.step > kMaxCheckpointStep) wgslvk::fuzz::bug("decoded a step above 2^53");
    wgslvk::adafactor::check_hyper(d.state.hyper, "fuzz");  // must not throw: decode ran it
  } catch (const CheckpointError& e) {
    wgslvk::fuzz::check_message(e.what());
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("adafactor::decode_checkpoint threw a non-CheckpointError: ") +
                      e.what());
  }
}

void run(const uint8_t* data, size_t size) {
  run_adafactor(data, size);
  try {
    auto d = decode_checkpoint(std::span<const uint8_t>(data, size), expected(), AdamWOptions{});
    if (d.spans.size() != expected().size())
      wgslvk::fuzz::bug("decoded a checkpoint with the wrong tensor count");
    for (size_t i = 0; i < d.spans.size(); ++i)
      if (d.data_offset + d.spans[i].second > size ||
          d.spans[i].second - d.spans[i].first != expected()[i].bytes)
        wgslvk::fuzz::bug("a decoded tensor lies outside the file");
    check_adamw_options(d.state.options, "fuzz");  // must not throw: decode ran it
  } catch (const CheckpointError& e) {
    wgslvk::fuzz::check_message(e.what());
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("decode_checkpoint threw a non-CheckpointError: ") + e.what());
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  run(data, size);
  auto fixed = with_fixed_crc(data, size);
  if (!fixed.empty()) run(fixed.data(), fixed.size());
  return 0;
}
