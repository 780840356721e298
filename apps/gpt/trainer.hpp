// The training loop of `wgslvk train`, checkpoints and the loss-curve PNG, as a library so the
// tests drive the same code as the command.
//
// Checkpoint = two files: <path> (MultiTensorAdamW::save: the f32 weights under their parameter
// names, the optimizer state, the step, the hyperparameters, a CRC; safetensors, so PyTorch opens
// it) and <path>.json (the model config and the TrainConfig, format "wgslvk-gpt-1"). Resume loads
// both; the batches are a function of (seed, step) and every kernel of the step is deterministic,
// so training from a checkpoint continues bit for bit as the uninterrupted run would have
// (tests/gpt checks it).
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "config.hpp"
#include "data.hpp"
#include "gpu_model.hpp"

namespace wgslvk::gpt {

struct LogPoint {
  uint32_t step = 0;
  float loss = 0;  // the step's training loss
  float lr = 0;
};
struct EvalPoint {
  uint32_t step = 0;
  float val_loss = 0;
};
struct TrainLog {
  std::vector<LogPoint> train;
  std::vector<EvalPoint> val;
  double tokens_per_s = 0, step_ms = 0;     // over the whole run (excluding evals)
  std::vector<GpuGpt::ProfileRow> profile;  // hooks.profile_step's per-kernel times
};

// A checkpoint's <path>.json: the TrainConfig, and the loss history up to the checkpoint (so the
// log and the PNG of a resumed run start at step 1). Untrusted on reading: at most
// kMaxSidecarBytes, strict JSON (depth-limited, no duplicate keys), every field of the expected
// type and in TrainLimits, names known, the model section consistent with the train section, no
// unknown field; errors name the file, the field and the value.
struct CheckpointSidecar {
  TrainConfig config;
  TrainLog history;  // empty for files written before the history was kept
};
inline constexpr uint64_t kMaxSidecarBytes = uint64_t(64) << 20;
inline constexpr size_t kMaxHistoryPoints = 1'000'000;  // per series; a longer run keeps its tail

// Writes <path>.json (config and `history`, when given) and <path> (MultiTensorAdamW::save), each
// through a temporary and a rename, refusing symlinks at either name.
void save_checkpoint(GpuGpt& model, const TrainConfig& tc, const std::string& path,
                     const TrainLog* history = nullptr);
// The sidecar of the checkpoint at `path` (throws std::runtime_error "<path>.json: ...").
CheckpointSidecar read_checkpoint_sidecar(const std::string& path);
TrainConfig read_checkpoint_config(const std::string& path);  // read_checkpoint_sidecar().config
// Loads weights, optimizer state and step into a model built from read_checkpoint_config().
void load_checkpoint(GpuGpt& model, const std::string& path);

std::string config_json(const TrainConfig& tc);                // one line, without history
CheckpointSidecar sidecar_from_json(const std::string& json);  // throws std::runtime_error
TrainConfig config_from_json(const std::string& json);         // sidecar_from_json().config

struct TrainHooks {
  std::FILE* progress = stdout;     // progress lines (nullptr: quiet)
  std::FILE* json = nullptr;        // JSON lines (one object per log/eval/checkpoint event)
  std::string checkpoint_path;      // "" : no checkpoints
  uint32_t profile_step = 0;        // run this step through GpuGpt::profile_step (same bits)
  uint32_t stop_at = 0;             // stop (and checkpoint) after this step; 0: tc.steps.
                                    // The schedule still runs to tc.steps, so a resumed run
                                    // continues exactly as the uninterrupted one.
  const TrainLog* prior = nullptr;  // the resumed checkpoint's history: the returned log and
                                    // every checkpoint continue it
};

// Trains from the model's current step (optimizer().step_count()) to tc.steps (or stop_at).
TrainLog train(GpuGpt& model, const TrainConfig& tc, const Corpus& corpus, const TrainHooks& hooks);

// The validation loss: mean over tc.eval_batches batches of the validation split (seeded by
// tc.seed ^ a constant, fixed: every evaluation sees the same batches).
float validation_loss(GpuGpt& model, const TrainConfig& tc, const Corpus& corpus);

// The per-kernel table of a profiled step: | kernel | dispatches | ms | % of step |.
void print_profile(std::FILE* out, const std::vector<GpuGpt::ProfileRow>& rows);

// Loss curve: training loss per step and validation points.
bool write_loss_png(const TrainLog& log, const std::string& path, const std::string& title);

}  // namespace wgslvk::gpt
