// `wgslvk train`: trains the GPT on the fortunes corpus with the ported kernels (apps/gpt).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.hpp"
#include "config.hpp"
#include "data.hpp"
#include "device_util.hpp"
#include "gpu_model.hpp"
#include "trainer.hpp"

namespace wgslvk::gpt {
namespace {

// The usage text prints the defaults from TrainConfig itself: they live in one place.
std::string make_usage() {
  const TrainConfig d;
  auto f = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  std::string names;
  for (const auto& p : presets()) names += (names.empty() ? "" : " | ") + p.name;
  return std::string(R"(usage: wgslvk train [options]
Trains a GPT-2-shaped byte-level model on Debian's fortunes corpus from the ported kernels: one
submission per step (forward, backward, AdamW), the loss read back once per logging interval.
Defaults come from apps/gpt/config.hpp (TrainConfig).
  --preset <name>        )") +
         names + " (default " + d.preset + R"()
  --steps <n>            total steps (default )" +
         std::to_string(d.steps) + R"()
  --batch <n>            sequences per step (default )" +
         std::to_string(d.batch) + R"()
  --context <n>          sequence length (default: the preset's; shrinks wpe)
  --lr <x>               peak learning rate (default )" +
         f(d.lr) + R"()
  --schedule <s>         cosine | constant (default )" +
         std::string(schedule_name(d.schedule)) + R"()
  --warmup <n>           warmup steps (default min(100, steps/10))
  --min-lr-ratio <x>     cosine floor as a fraction of lr (default )" +
         f(d.min_lr_ratio) + R"()
  --weight-decay <x>     AdamW decay on the 2-D tensors (default )" +
         f(d.weight_decay) + R"()
  --max-grad-norm <x>    global clip, "none" to disable (default )" +
         f(*d.max_grad_norm) + R"()
  --precision <p>        optimizer state: fp32 | f16_mirror | int8 (default )" +
         std::string(optimizer::precision_name(d.precision)) + R"()
  --attention <a>        fa2_tiled | fa2_wide | fa2 | naive (default )" +
         std::string(attention_name(d.attention)) + R"()
  --matmul <m>           native | vec4 | blocked4 | naive (default )" +
         std::string(matmul_name(GpuOptions{}.matmul)) + R"()
  --seed <n>             initialization and batches (default )" +
         std::to_string(d.seed) + R"()
  --log-every <n>        steps per progress line / loss read-back (default )" +
         std::to_string(d.log_every) + R"()
  --eval-every <n>       validation loss every n steps, 0: never (default )" +
         std::to_string(d.eval_every) + R"()
  --eval-batches <n>     validation batches (default )" +
         std::to_string(d.eval_batches) + R"()
  --out <path>           checkpoint path (safetensors + <path>.json), saved at the end
  --checkpoint-every <n> also save every n steps
  --stop-at <n>          stop (and checkpoint) after step n of the --steps schedule
  --resume <path>        continue from a checkpoint (its config; --steps may extend it)
  --save-init <path>     write the initial weights as a checkpoint and continue
  --dump-batches <path>  write the training batches (u32 tokens then targets per step) and exit
  --profile <step>       time that step per kernel (timestamps between dispatches; same
                         result) and print the table at the end
  --trace <dir>          record every WebGPU call of the run (writes, pipelines with their WGSL,
                         bind groups, dispatches, submits, read-backs) for a Dawn replay:
                         node bench/peers/dawn_trace.mjs --trace <dir> (env WGSLVK_TRACE too)
  --json <path|->        JSON lines log (train/val/checkpoint events)
  --png <path>           loss-curve PNG at the end
  --corpus <dir>         corpus directory (default )" +
         kDefaultCorpusDir + R"()
)";
}
const std::string kUsage = make_usage();

std::string take(const std::vector<std::string>& a, size_t& i) {
  if (i + 1 >= a.size()) throw std::invalid_argument(a[i] + " needs a value");
  return a[++i];
}

optimizer::StatePrecision parse_precision(const std::string& s) {
  if (s == "fp32") return optimizer::StatePrecision::FP32;
  if (s == "f16_mirror") return optimizer::StatePrecision::F16Mirror;
  if (s == "int8") return optimizer::StatePrecision::Float8Blocks;
  throw std::invalid_argument("unknown precision '" + s + "' (fp32, f16_mirror, int8)");
}

int run_train(const std::vector<std::string>& args_in);
const cli::Command kTrain{"train", "train the GPT on the fortunes corpus (apps/gpt)", kUsage,
                          run_train};

int run_train(const std::vector<std::string>& args_in) {
  if (cli::wants_help(args_in, kTrain)) return 0;
  try {
    std::vector<std::string> args = args_in;
    auto selector = take_device_flag(args);
    TrainConfig tc;
    std::string out, resume, save_init, dump, json_path, png, trace_dir,
        corpus_dir = kDefaultCorpusDir;
    MatmulImpl mm = GpuOptions{}.matmul;
    bool steps_given = false;
    uint32_t stop_at = 0, profile = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& k = args[i];
      if (k == "--preset")
        tc.preset = take(args, i);
      else if (k == "--steps")
        tc.steps = std::stoul(take(args, i)), steps_given = true;
      else if (k == "--batch")
        tc.batch = std::stoul(take(args, i));
      else if (k == "--context")
        tc.context = std::stoul(take(args, i));
      else if (k == "--lr")
        tc.lr = std::stof(take(args, i));
      else if (k == "--schedule") {
        auto s = take(args, i);
        if (s == "cosine")
          tc.schedule = Schedule::Cosine;
        else if (s == "constant")
          tc.schedule = Schedule::Constant;
        else
          throw std::invalid_argument("unknown schedule '" + s + "'");
      } else if (k == "--warmup")
        tc.warmup_steps = std::stoul(take(args, i));
      else if (k == "--min-lr-ratio")
        tc.min_lr_ratio = std::stof(take(args, i));
      else if (k == "--weight-decay")
        tc.weight_decay = std::stof(take(args, i));
      else if (k == "--max-grad-norm") {
        auto s = take(args, i);
        if (s == "none")
          tc.max_grad_norm.reset();
        else
          tc.max_grad_norm = std::stof(s);
      } else if (k == "--precision")
        tc.precision = parse_precision(take(args, i));
      else if (k == "--attention")
        tc.attention = parse_attention(take(args, i));
      else if (k == "--matmul")
        mm = parse_matmul(take(args, i));
      else if (k == "--seed")
        tc.seed = std::stoull(take(args, i));
      else if (k == "--log-every")
        tc.log_every = std::stoul(take(args, i));
      else if (k == "--eval-every")
        tc.eval_every = std::stoul(take(args, i));
      else if (k == "--eval-batches")
        tc.eval_batches = std::stoul(take(args, i));
      else if (k == "--out")
        out = take(args, i);
      else if (k == "--checkpoint-every")
        tc.checkpoint_every = std::stoul(take(args, i));
      else if (k == "--resume")
        resume = take(args, i);
      else if (k == "--stop-at")
        stop_at = std::stoul(take(args, i));
      else if (k == "--profile")
        profile = std::stoul(take(args, i));
      else if (k == "--save-init")
        save_init = take(args, i);
      else if (k == "--dump-batches")
        dump = take(args, i);
      else if (k == "--json")
        json_path = take(args, i);
      else if (k == "--png")
        png = take(args, i);
      else if (k == "--trace")
        trace_dir = take(args, i);
      else if (k == "--corpus")
        corpus_dir = take(args, i);
      else
        throw std::invalid_argument("unknown option '" + k + "' (see wgslvk train --help)");
    }
    if (!resume.empty()) {
      uint32_t steps = tc.steps;
      tc = read_checkpoint_config(resume);
      if (steps_given) tc.steps = steps;
      if (out.empty()) out = resume;
    }
    const ModelConfig mc = tc.model();
    Corpus corpus = load_corpus(corpus_dir, tc.val_fraction);
    if (!dump.empty()) {
      std::ofstream f(dump, std::ios::binary | std::ios::trunc);
      for (uint32_t t = 1; t <= tc.steps; ++t) {
        Batch b = make_batch(corpus.train, tc.batch, mc.context, tc.seed, t);
        f.write(reinterpret_cast<const char*>(b.tokens.data()), b.tokens.size() * 4);
        f.write(reinterpret_cast<const char*>(b.targets.data()), b.targets.size() * 4);
      }
      std::printf("wrote %u batches of %u x %u (u32 tokens, then targets) to %s\n", tc.steps,
                  tc.batch, mc.context, dump.c_str());
      return f ? 0 : 1;
    }
    auto od = open_training_device(selector, stdout, trace_dir);
    std::printf(
        "model: %s  d_model %u  heads %u  layers %u  context %u  vocab %u  %.2fM parameters"
        "  (attention %s, matmul %s, state %s)\n",
        mc.name.c_str(), mc.d_model, mc.heads, mc.layers, mc.context, mc.vocab,
        mc.parameter_count() / 1e6, std::string(attention_name(tc.attention)).c_str(),
        std::string(matmul_name(mm)).c_str(),
        std::string(optimizer::precision_name(tc.precision)).c_str());
    std::printf("corpus: %zu files, %zu train bytes, %zu validation bytes\n", corpus.files.size(),
                corpus.train.size(), corpus.val.size());
    GpuGpt model(od.device, mc, tc.batch, tc.adamw(), {tc.attention, mm});
    if (!resume.empty()) {
      load_checkpoint(model, resume);
      std::printf("resumed %s at step %llu\n", resume.c_str(),
                  (unsigned long long)model.optimizer().step_count());
    } else {
      model.set_params(init_params(mc, tc.seed));
    }
    if (!save_init.empty()) save_checkpoint(model, tc, save_init);
    std::FILE* json = nullptr;
    if (json_path == "-")
      json = stdout;
    else if (!json_path.empty())
      json = std::fopen(json_path.c_str(), "w");
    TrainHooks hooks;
    hooks.progress = json == stdout ? nullptr : stdout;
    hooks.json = json;
    hooks.checkpoint_path = out;
    hooks.stop_at = stop_at;
    hooks.profile_step = profile;
    TrainLog log = train(model, tc, corpus, hooks);
    if (json && json != stdout) std::fclose(json);
    if (hooks.progress)
      std::printf("done: %.0f tok/s, %.2f ms/step over %zu steps\n", log.tokens_per_s, log.step_ms,
                  log.train.size());
    if (!log.profile.empty() && hooks.progress) {
      std::printf("profile of step %u (%s, batch %u, context %u):\n", profile, mc.name.c_str(),
                  tc.batch, mc.context);
      print_profile(stdout, log.profile);
    }
    if (!png.empty()) {
      if (!write_loss_png(log, png, "GPT " + mc.name + " loss")) {
        std::fprintf(stderr, "cannot write %s\n", png.c_str());
        return 1;
      }
      if (hooks.progress) std::printf("loss curve: %s\n", png.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgslvk train: %s\n", e.what());
    return 1;
  }
}

}  // namespace
}  // namespace wgslvk::gpt
