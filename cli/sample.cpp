// `wgslvk sample`: prints text generated from a checkpoint of `wgslvk train`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.hpp"
#include "config.hpp"
#include "data.hpp"
#include "flag_number.hpp"
#include "gpu_model.hpp"
#include "trainer.hpp"
#include "training_device.hpp"

namespace wgslvk::gpt {
namespace {

constexpr uint32_t kMaxTokens = 1'000'000;
constexpr double kMaxTemperature = 100;

const std::string kUsage = std::string(R"(usage: wgslvk sample --checkpoint <path> [options]
Generates bytes from a `wgslvk train` checkpoint (<path> and <path>.json) with the GPU forward.
  --checkpoint <path>   the checkpoint (required)
  --prompt <text>       text to continue (default: a newline)
  --tokens <n>          bytes to generate, 0 to 1000000 (default 200)
  --temperature <x>     softmax temperature, 0 = greedy, up to 100 (default 0.8)
  --top-k <n>           sample among the k most likely bytes, 0 = all (default 40)
  --seed <n>            sampling seed (default 1)
)") + kDeviceFlagHelp +
                           R"(Exit status: 0 done, 1 the checkpoint did not load or the run failed,
2 usage (a bad option or value), 3 no device could be opened.
)";

int run_sample(const std::vector<std::string>& args_in);
const cli::Command kSample{"sample", "generate text from a GPT checkpoint (apps/gpt)", kUsage,
                           run_sample};

int run_sample(const std::vector<std::string>& args_in) {
  if (cli::wants_help(args_in, kSample)) return 0;
  std::vector<std::string> args = args_in;
  std::optional<std::string> selector;
  std::string ckpt, prompt = "\n";
  uint32_t n = 200, top_k = 40;
  double temperature = 0.8;
  uint64_t seed = 1;
  try {
    selector = take_device_flag(args);
    for (size_t i = 0; i < args.size(); ++i) {
      auto val = [&]() {
        if (i + 1 >= args.size()) throw cli::FlagError(args[i] + " needs a value");
        return args[++i];
      };
      const std::string k = args[i];
      if (k == "--checkpoint")
        ckpt = val();
      else if (k == "--prompt")
        prompt = val();
      else if (k == "--tokens")
        n = cli::parse_flag_uint_as<uint32_t>(k, val(), 0, kMaxTokens);
      else if (k == "--temperature")
        temperature = cli::parse_flag_real(k, val(), 0, kMaxTemperature);
      else if (k == "--top-k")
        top_k = cli::parse_flag_uint_as<uint32_t>(k, val(), 0, 256);
      else if (k == "--seed")
        seed = cli::parse_flag_uint(k, val(), 0, UINT64_MAX);
      else
        throw cli::FlagError("unknown option " + cli::quote_flag_value(k) +
                             " (see wgslvk sample --help)");
    }
    if (ckpt.empty()) throw cli::FlagError("--checkpoint is required");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "wgslvk sample: %s\n", e.what());
    return 2;
  }
  try {
    TrainConfig tc = read_checkpoint_config(ckpt);
    const ModelConfig mc = tc.model();
    OpenedDevice od;
    try {
      od = open_training_device(selector, stderr);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wgslvk sample: %s\n", e.what());
      return 3;
    }
    GpuGpt model(od.device, mc, 1, tc.adamw(), {tc.attention, GpuOptions{}.matmul});
    load_checkpoint(model, ckpt);
    std::vector<uint32_t> toks = encode(prompt);
    if (toks.empty()) toks.push_back('\n');
    std::mt19937_64 rng(seed);
    std::fputs(prompt.c_str(), stdout);
    const uint32_t T = mc.context;
    for (uint32_t k = 0; k < n; ++k) {
      const size_t start = toks.size() > T ? toks.size() - T : 0;
      std::vector<uint32_t> window(toks.begin() + start, toks.end());
      const uint32_t row = uint32_t(window.size() - 1);
      window.resize(T, 0);  // positions after `row` do not affect it (causal)
      auto logits = model.logits_row(window, row);
      uint32_t next = 0;
      if (temperature <= 0) {
        next = uint32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
      } else {
        std::vector<uint32_t> idx(logits.size());
        for (uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(),
                  [&](uint32_t a, uint32_t b) { return logits[a] > logits[b]; });
        if (top_k && top_k < idx.size()) idx.resize(top_k);
        std::vector<double> p(idx.size());
        double mx = logits[idx[0]], s = 0;
        for (size_t i = 0; i < idx.size(); ++i)
          s += p[i] = std::exp((logits[idx[i]] - mx) / temperature);
        double r = std::uniform_real_distribution<double>(0, s)(rng), acc = 0;
        next = idx.back();
        for (size_t i = 0; i < idx.size(); ++i)
          if ((acc += p[i]) >= r) {
            next = idx[i];
            break;
          }
      }
      toks.push_back(next);
      std::fputc(int(next & 0xff), stdout);
      std::fflush(stdout);
    }
    std::fputc('\n', stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgslvk sample: %s\n", e.what());
    return 1;
  }
}

}  // namespace
}  // namespace wgslvk::gpt
