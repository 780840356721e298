// `wgslvk train`: trains the GPT on the fortunes corpus with the ported kernels (apps/gpt).
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.hpp"
#include "config.hpp"
#include "data.hpp"
#include "flag_number.hpp"
#include "git_commit.hpp"
#include "gpu_model.hpp"
#include "trainer.hpp"
#include "training_device.hpp"
#include "wgslvk/output_file.hpp"

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
  --precision <p>        fp32 | f16_mirror | int8: the optimizer state's precision, the
                         products in f32; or mixed: every product takes f16 inputs and
                         accumulates in f32 (tensor cores through the subgroup_matrix kernels,
                         picked per product shape, where the device has
                         chromium-experimental-subgroup-matrix, else matmul_f16in),
                         over f32 master weights with f16_mirror state (the mirror is the
                         products' weight copy); layernorm, attention, softmax, loss, gradients
                         and optimizer stay f32. Needs shader-f16. (default )" +
         std::string(optimizer::precision_name(d.precision)) + R"()
  --loss-scale <x|auto>  mixed: the static loss scale, a power of two in [1, 2^24], or auto
                         (default): 32 x batch x context rounded down to a power of two (the
                         loss's mean divides dlogits by the rows: this undoes it); f16 casts
                         that overflow are counted in the progress lines
  --mixed-kernel <k>     mixed: auto | sgmm | f16in, the product kernel (default auto: sgmm
                         where the device can)
  --mixed-attention <a>  mixed: auto | fa2 (default auto: with sgmm products and context
                         <= 1024, attention as batched tensor-core products with the score
                         matrix kept, softmax and dS in f32; fa2: the f32 FA2 kernels)
  --fp32-attention <a>   f32 products (not mixed): auto | fa2 | materialized (default auto:
                         for context <= 1024, attention as batched fp32 products with the
                         score matrix kept, causal halves skipped, softmax and dS between
                         them; fa2: the --attention kernels; materialized: wherever the
                         shape allows)
  --f16-stats            mixed: after training, one more forward + backward submitted dispatch
                         by dispatch, printing per f16 cast the underflow (nonzero -> 0),
                         subnormal and overflow counts (a measurement; slow)
  --attention <a>        fa2_tiled | fa2_wide | fa2 | naive (default )" +
         std::string(attention_name(d.attention)) + R"()
  --matmul <m>           native_auto | native_auto_bmm | native_auto_fwd | native | vec4 |
                         blocked4 | naive (default )" +
         std::string(matmul_name(GpuOptions{}.matmul)) + R"()
  --seed <n>             initialization and batches (default )" +
         std::to_string(d.seed) + R"()
  --log-every <n>        steps per progress line / loss read-back (default )" +
         std::to_string(d.log_every) + R"()
  --eval-every <n>       validation loss every n steps, 0: never (default )" +
         std::to_string(d.eval_every) + R"()
  --eval-batches <n>     validation batches (default )" +
         std::to_string(d.eval_batches) + R"()
  --out <path>           checkpoint path (safetensors + <path>.json with the config and the
                         loss history), saved at the end
  --checkpoint-every <n> also save every n steps
  --stop-at <n>          stop (and checkpoint) after step n of the --steps schedule
  --resume <path>        continue from a checkpoint, bit for bit as the uninterrupted run. The
                         checkpoint fixes the model and the math: --preset, --batch, --context,
                         --lr, --schedule, --warmup, --min-lr-ratio, --weight-decay,
                         --max-grad-norm, --precision, --loss-scale, --attention, --seed and
                         --eval-batches are refused with it. Applied: --steps (extends the
                         schedule), --log-every, --eval-every, --checkpoint-every, --stop-at and
                         the outputs. Needs --out (the resumed path itself to overwrite it).
                         Kernel choices (--matmul, --fp32-attention, --mixed-kernel,
                         --mixed-attention) are the run's, like the device, not the
                         checkpoint's: the same choices on the same device continue bit for
                         bit; others continue within their bounds.
  --save-init <path>     write the initial weights as a checkpoint and continue
  --dump-batches <path>  write the training batches (u32 tokens then targets per step) and exit
  --profile <step>       time that step per kernel (timestamps between dispatches; same
                         result) and print the table at the end
  --trace <dir>          record every WebGPU call of the run (writes, pipelines with their WGSL,
                         bind groups, dispatches, submits, read-backs) for a Dawn replay:
                         node bench/peers/dawn_trace.mjs --trace <dir> (env WGSLVK_TRACE too)
  --json <path|->        JSON lines log: a "start" record (config, device, commit), then
                         train/val/checkpoint events, then an "end" record (status, step, speed)
  --png <path>           loss-curve PNG at the end (a resumed run's curve starts at step 1)
  --corpus <dir>         corpus directory (default )" +
         kDefaultCorpusDir + R"()
)" + kDeviceFlagHelp +
         R"(Numbers are checked: whole numbers in decimal (or hex after 0x) within the stated range,
reals finite. Output paths are checked before training starts; none is written through a
symbolic link. Exit status: 0 done, 1 training or an output failed, 2 usage (a bad option or
value), 3 no device could be opened.
)";
}
const std::string kUsage = make_usage();

std::string take(const std::vector<std::string>& a, size_t& i) {
  if (i + 1 >= a.size()) throw cli::FlagError(a[i] + " needs a value");
  return a[++i];
}

// The flags a checkpoint fixes: with --resume they would change the model or the math of the
// steps (and break the bit-identical continuation), so they are refused rather than ignored.
constexpr const char* kFixedByCheckpoint[] = {
    "--preset",       "--batch",        "--context",       "--lr",        "--schedule",  "--warmup",
    "--min-lr-ratio", "--weight-decay", "--max-grad-norm", "--precision", "--attention", "--seed",
    "--eval-batches", "--loss-scale"};

int run_train(const std::vector<std::string>& args_in);
const cli::Command kTrain{"train", "train the GPT on the fortunes corpus (apps/gpt)", kUsage,
                          run_train};

// The JSON lines log, with its "start" and "end" records.
struct JsonLog {
  std::FILE* f = nullptr;
  bool owned = false;
  void record(const nlohmann::ordered_json& j) {
    if (!f) return;
    std::fprintf(f, "%s\n",
                 j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
    std::fflush(f);
  }
  ~JsonLog() {
    if (owned) std::fclose(f);
  }
};

int run_train(const std::vector<std::string>& args_in) {
  if (cli::wants_help(args_in, kTrain)) return 0;
  using L = TrainLimits;
  std::vector<std::string> args = args_in;
  std::optional<std::string> selector;
  TrainConfig tc;
  std::string out, resume, save_init, dump, json_path, png, trace_dir,
      corpus_dir = kDefaultCorpusDir;
  MatmulImpl mm = GpuOptions{}.matmul;
  MixedKernel mixed_kernel = MixedKernel::Auto;
  bool mixed_attention_fa2 = false, mixed_attention_given = false;
  Fp32Attention fp32_attention = Fp32Attention::Auto;
  bool fp32_attention_given = false;
  bool f16_stats = false, loss_scale_given = false;
  bool steps_given = false;
  uint32_t stop_at = 0, profile = 0;
  std::vector<std::string> fixed_given;  // flags a checkpoint fixes, given on the command line
  try {
    selector = take_device_flag(args);
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& k = args[i];
      auto u32 = [&](uint32_t lo, uint32_t hi) {
        return cli::parse_flag_uint_as<uint32_t>(k, take(args, i), lo, hi);
      };
      auto real = [&](double lo, double hi) {
        return cli::parse_flag_float(k, take(args, i), float(lo), float(hi));
      };
      for (const char* f : kFixedByCheckpoint)
        if (k == f) fixed_given.push_back(k);
      if (k == "--preset")
        tc.preset = take(args, i), (void)preset(tc.preset);
      else if (k == "--steps")
        tc.steps = u32(1, L::max_steps), steps_given = true;
      else if (k == "--batch")
        tc.batch = u32(1, L::max_batch);
      else if (k == "--context")
        tc.context = u32(1, L::max_context);
      else if (k == "--lr")
        tc.lr = real(0, L::max_lr);
      else if (k == "--schedule")
        tc.schedule = parse_schedule(take(args, i));
      else if (k == "--warmup")
        tc.warmup_steps = u32(0, L::max_steps);
      else if (k == "--min-lr-ratio")
        tc.min_lr_ratio = real(0, 1);
      else if (k == "--weight-decay")
        tc.weight_decay = real(0, L::max_lr);
      else if (k == "--max-grad-norm") {
        if (i + 1 < args.size() && args[i + 1] == "none")
          tc.max_grad_norm.reset(), ++i;
        else
          tc.max_grad_norm = real(1e-30, L::max_grad_norm);
      } else if (k == "--precision")
        set_precision(tc, take(args, i));
      else if (k == "--loss-scale") {
        loss_scale_given = true;
        if (i + 1 < args.size() && args[i + 1] == "auto")
          tc.loss_scale = 0, ++i;
        else
          tc.loss_scale = real(1, 0x1p24);
      } else if (k == "--mixed-kernel") {
        const std::string v = take(args, i);
        if (v == "auto")
          mixed_kernel = MixedKernel::Auto;
        else if (v == "sgmm")
          mixed_kernel = MixedKernel::Sgmm;
        else if (v == "f16in")
          mixed_kernel = MixedKernel::F16In;
        else
          throw cli::FlagError("--mixed-kernel " + cli::quote_flag_value(v) +
                               " is not one of auto, sgmm, f16in");
      } else if (k == "--mixed-attention") {
        const std::string v = take(args, i);
        if (v == "auto")
          mixed_attention_fa2 = false;
        else if (v == "fa2")
          mixed_attention_fa2 = true;
        else
          throw cli::FlagError("--mixed-attention " + cli::quote_flag_value(v) +
                               " is not one of auto, fa2");
        mixed_attention_given = true;
      } else if (k == "--fp32-attention") {
        const std::string v = take(args, i);
        try {
          fp32_attention = parse_fp32_attention(v);
        } catch (const std::invalid_argument&) {
          throw cli::FlagError("--fp32-attention " + cli::quote_flag_value(v) +
                               " is not one of auto, fa2, materialized");
        }
        fp32_attention_given = true;
      } else if (k == "--f16-stats")
        f16_stats = true;
      else if (k == "--attention")
        tc.attention = parse_attention(take(args, i));
      else if (k == "--matmul")
        mm = parse_matmul(take(args, i));
      else if (k == "--seed")
        tc.seed = cli::parse_flag_uint(k, take(args, i), 0, UINT64_MAX);
      else if (k == "--log-every")
        tc.log_every = u32(1, L::max_steps);
      else if (k == "--eval-every")
        tc.eval_every = u32(0, L::max_steps);
      else if (k == "--eval-batches")
        tc.eval_batches = u32(1, L::max_eval_batches);
      else if (k == "--out")
        out = take(args, i);
      else if (k == "--checkpoint-every")
        tc.checkpoint_every = u32(0, L::max_steps);
      else if (k == "--resume")
        resume = take(args, i);
      else if (k == "--stop-at")
        stop_at = u32(1, L::max_steps);
      else if (k == "--profile")
        profile = u32(1, L::max_steps);
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
        throw cli::FlagError("unknown option " + cli::quote_flag_value(k) +
                             " (see wgslvk train --help)");
    }
    if (!resume.empty()) {
      if (!fixed_given.empty()) {
        std::string list;
        for (const auto& f : fixed_given) list += (list.empty() ? "" : ", ") + f;
        throw cli::FlagError(
            "--resume continues the checkpoint's run bit for bit, so its config "
            "fixes " +
            list + "; drop them (or start a new run without --resume)");
      }
      if (out.empty())
        throw cli::FlagError(
            "--resume needs --out <path> for the new checkpoint (give the resumed "
            "path itself to overwrite it)");
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "wgslvk train: %s\n", e.what());
    return 2;
  }
  try {
    TrainLog prior;
    if (!resume.empty()) {
      CheckpointSidecar sc = read_checkpoint_sidecar(resume);
      const uint32_t log_every = tc.log_every, eval_every = tc.eval_every,
                     checkpoint_every = tc.checkpoint_every;
      const TrainConfig given = tc;
      tc = sc.config;
      prior = std::move(sc.history);
      if (steps_given) tc.steps = given.steps;
      // Output cadence only (no effect on the weights): the command line wins where given.
      for (const auto& a : args) {
        if (a == "--log-every") tc.log_every = log_every;
        if (a == "--eval-every") tc.eval_every = eval_every;
        if (a == "--checkpoint-every") tc.checkpoint_every = checkpoint_every;
      }
    }
    if (!tc.mixed && (loss_scale_given || f16_stats || mixed_kernel != MixedKernel::Auto ||
                      mixed_attention_given))
      throw cli::FlagError(
          "--loss-scale, --mixed-kernel, --mixed-attention and --f16-stats go with --precision "
          "mixed");
    if (tc.mixed && fp32_attention_given)
      throw cli::FlagError(
          "--fp32-attention goes with f32 products (with --precision mixed: --mixed-attention)");
    check_train_config(tc);
    const ModelConfig mc = tc.model();
    if (stop_at > tc.steps)
      throw cli::FlagError("--stop-at " + std::to_string(stop_at) + " is past --steps " +
                           std::to_string(tc.steps));
    // Every output is checked before any work (a bad path once failed after the whole run).
    JsonLog json;
    if (json_path == "-") {
      json.f = stdout;
    } else if (!json_path.empty()) {
      json.f = open_output_stream(json_path);
      json.owned = true;
    }
    for (const std::string* p : {&out, &save_init, &png, &dump})
      if (!p->empty()) check_output_path(*p);
    if (!out.empty()) check_output_path(out + ".json");
    if (!save_init.empty()) check_output_path(save_init + ".json");
    Corpus corpus = load_corpus(corpus_dir, tc.val_fraction);
    if (!dump.empty()) {
      std::FILE* f = open_output_stream(dump);
      bool ok = true;
      for (uint32_t t = 1; t <= tc.steps && ok; ++t) {
        Batch b = make_batch(corpus.train, tc.batch, mc.context, tc.seed, t);
        ok = std::fwrite(b.tokens.data(), 4, b.tokens.size(), f) == b.tokens.size() &&
             std::fwrite(b.targets.data(), 4, b.targets.size(), f) == b.targets.size();
      }
      ok = std::fclose(f) == 0 && ok;
      if (!ok) throw std::runtime_error(dump + ": writing the batches failed");
      std::printf("wrote %u batches of %u x %u (u32 tokens, then targets) to %s\n", tc.steps,
                  tc.batch, mc.context, dump.c_str());
      return 0;
    }
    OpenedDevice od;
    try {
      od = open_training_device(selector, json.f == stdout ? nullptr : stdout, trace_dir);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wgslvk train: %s\n", e.what());
      return 3;
    }
    std::FILE* progress = json.f == stdout ? nullptr : stdout;
    if (progress) {
      std::printf(
          "model: %s  d_model %u  heads %u  layers %u  context %u  vocab %u  %.2fM parameters"
          "  (attention %s, matmul %s, state %s)\n",
          mc.name.c_str(), mc.d_model, mc.heads, mc.layers, mc.context, mc.vocab,
          mc.parameter_count() / 1e6, std::string(attention_name(tc.attention)).c_str(),
          std::string(matmul_name(mm)).c_str(), precision_label(tc).c_str());
      std::printf("corpus: %zu files, %zu train bytes, %zu validation bytes\n", corpus.files.size(),
                  corpus.train.size(), corpus.val.size());
    }
    GpuOptions gopt{tc.attention, mm};
    gopt.mixed = tc.mixed;
    gopt.loss_scale = tc.loss_scale;
    gopt.mixed_kernel = mixed_kernel;
    gopt.mixed_attention_fa2 = mixed_attention_fa2;
    gopt.fp32_attention = fp32_attention;
    GpuGpt model(od.device, mc, tc.batch, tc.adamw(), gopt);
    if (progress && tc.mixed)
      std::printf("mixed precision: products %s, attention %s, loss scale %g\n",
                  model.mixed_kernel_name().c_str(),
                  model.mixed_attention_materialized() ? "sgmm_f16_batched (materialized)" : "fa2",
                  double(model.loss_scale()));
    if (progress && !tc.mixed)
      std::printf("fp32 attention: %s\n", model.attention_materialized()
                                              ? "matmul_batched (materialized)"
                                              : std::string(attention_name(tc.attention)).c_str());
    if (!resume.empty()) {
      load_checkpoint(model, resume);
      if (progress)
        std::printf("resumed %s at step %llu\n", resume.c_str(),
                    (unsigned long long)model.optimizer().step_count());
    } else {
      model.set_params(init_params(mc, tc.seed));
    }
    const uint64_t start_step = model.optimizer().step_count();
    json.record({{"event", "start"},
                 {"log_format", "wgslvk-gpt-log-1"},
                 {"commit", kGitCommit},
                 {"device", describe_adapter(od.adapter)},
                 {"config", nlohmann::ordered_json::parse(config_json(tc))},
                 {"matmul", std::string(matmul_name(mm))},
                 {"resumed_from", resume.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(resume)},
                 {"start_step", start_step}});
    TrainHooks hooks;
    hooks.progress = progress;
    hooks.json = json.f;
    hooks.checkpoint_path = out;
    hooks.stop_at = stop_at;
    hooks.profile_step = profile;
    hooks.prior = resume.empty() ? nullptr : &prior;
    TrainLog log;
    try {
      if (!save_init.empty()) save_checkpoint(model, tc, save_init);
      log = train(model, tc, corpus, hooks);
    } catch (const std::exception& e) {
      json.record({{"event", "end"},
                   {"status", "error"},
                   {"step", model.optimizer().step_count()},
                   {"error", e.what()}});
      throw;
    }
    const uint64_t end_step = model.optimizer().step_count();
    bool png_ok = true;
    if (!png.empty()) png_ok = write_loss_png(log, png, "GPT " + mc.name + " loss");
    json.record(
        {{"event", "end"},
         {"status", !png_ok               ? "error"
                    : end_step < tc.steps ? "stopped"
                                          : "done"},
         {"step", end_step},
         {"steps_trained", end_step - start_step},
         {"tokens_per_s", log.tokens_per_s},
         {"step_ms", log.step_ms},
         {"png", png.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(png)}});
    if (progress)
      std::printf("done: %.0f tok/s, %.2f ms/step over %llu steps\n", log.tokens_per_s, log.step_ms,
                  (unsigned long long)(end_step - start_step));
    if (f16_stats && progress) {
      Batch b = make_batch(corpus.train, tc.batch, mc.context, tc.seed, tc.steps + 1);
      std::printf("f16 casts of one forward + backward (the batch of step %u, loss scale %g):\n",
                  tc.steps + 1, double(model.loss_scale()));
      std::printf(
          "| cast | elements | nonzero | nonzero -> 0 | subnormal | not finite | max |x| |\n"
          "|---|---:|---:|---:|---:|---:|---:|\n");
      for (const auto& c : model.cast_stats(b))
        std::printf("| %s | %llu | %llu | %llu | %llu | %llu | %.3g |\n", c.what.c_str(),
                    (unsigned long long)c.count, (unsigned long long)c.nonzero,
                    (unsigned long long)c.zero_from_nonzero, (unsigned long long)c.subnormal,
                    (unsigned long long)c.not_finite, c.max_abs);
    }
    if (!log.profile.empty() && progress) {
      std::printf("profile of step %u (%s, batch %u, context %u):\n", profile, mc.name.c_str(),
                  tc.batch, mc.context);
      print_profile(stdout, log.profile);
    }
    if (!png_ok) {
      std::fprintf(stderr, "wgslvk train: cannot write %s\n", png.c_str());
      return 1;
    }
    if (!png.empty() && progress) std::printf("loss curve: %s\n", png.c_str());
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "wgslvk train: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgslvk train: %s\n", e.what());
    return 1;
  }
}

}  // namespace
}  // namespace wgslvk::gpt
