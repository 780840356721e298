// Fuzz target: the GPT checkpoint's <path>.json sidecar (apps/gpt/trainer.cpp,
// sidecar_from_json): the TrainConfig, the model section and the loss history. Refusals are
// std::runtime_error naming the field and the value; a sidecar accepted must hold a config
// check_train_config accepts and a history of rising steps within train.steps.
#include <stdexcept>
#include <string>

#include "config.hpp"
#include "fuzz.hpp"
#include "trainer.hpp"

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"\"format\"",
          "\"wgslvk-gpt-1\"",
          "\"train\"",
          "\"model\"",
          "\"history\"",
          "\"val_fraction\"",
          "\"precision\"",
          "\"int8\"",
          "\"schedule\"",
          "\"cosine\"",
          "\"attention\"",
          "\"fa2_tiled\"",
          "\"preset\"",
          "\"gpt110m\"",
          "\"steps\"",
          "\"context\"",
          "\"max_grad_norm\"",
          "null",
          "2.0",
          "256.0",
          "-1",
          "4294967296",
          "18446744073709551615",
          "1e308",
          "[[[[[[[[",
          "{\"a\":",
          "\"val\"",
          "[1,null,0.5]"};
}
std::vector<std::vector<uint8_t>> extra_seeds() {
  wgslvk::gpt::TrainConfig tc;
  tc.context = 32;
  std::string j = wgslvk::gpt::config_json(tc);
  // With a history (the last brace replaced).
  std::string h = j.substr(0, j.size() - 1) +
                  ",\"history\":{\"train\":[[1,5.5,0.0001],[2,null,0.0002]],\"val\":[[2,5.1]]}}";
  return {std::vector<uint8_t>(j.begin(), j.end()), std::vector<uint8_t>(h.begin(), h.end())};
}
}  // namespace wgslvk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto s = wgslvk::gpt::sidecar_from_json(std::string(reinterpret_cast<const char*>(data), size));
    try {
      wgslvk::gpt::check_train_config(s.config);
    } catch (const std::exception& e) {
      wgslvk::fuzz::bug(std::string("an accepted sidecar fails check_train_config: ") + e.what());
    }
    uint32_t last = 0;
    for (const auto& p : s.history.train) {
      if (p.step <= last || p.step > s.config.steps) wgslvk::fuzz::bug("history steps not rising");
      last = p.step;
    }
    // What is accepted saves and reads back the same.
    if (wgslvk::gpt::config_json(wgslvk::gpt::config_from_json(
            wgslvk::gpt::config_json(s.config))) != wgslvk::gpt::config_json(s.config))
      wgslvk::fuzz::bug("an accepted config does not round-trip");
  } catch (const std::runtime_error& e) {
    wgslvk::fuzz::check_message(e.what());
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("sidecar_from_json threw a non-runtime_error: ") + e.what());
  }
  return 0;
}
