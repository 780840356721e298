// The GPT trainer's configuration: model presets, the parameter layout, the initial weights, and
// the training hyperparameter defaults. Every default lives here, in one place (seed 004: "the
// most expensive bug in this project" was a browser default learning rate 10x off the Python
// reference's; tests/gpt checks these constants, and `wgslvk train`, the CPU reference and the
// PyTorch peer all take them from here or from the checkpoint's sidecar).
//
// Model (GPT-2 shaped, pre-LN): token embedding wte [V, d] + position embedding wpe [T, d];
// per layer: x += proj(attn(ln1(x))), x += fc2(gelu(fc(ln2(x)))); final layernorm; logits =
// lnf(x) wte^T (tied: the output head is the token embedding, as in GPT-2); softmax
// cross-entropy over the next byte. Linear layers store W as [d_in, d_out] (y = x W + b, the
// matmul family's row-major forward) with a bias. Layernorm eps 1e-5.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "optimizer/adamw.hpp"

namespace wgslvk::gpt {

struct ModelConfig {
  std::string name;
  uint32_t vocab = 256;   // byte-level tokenizer
  uint32_t context = 64;  // T
  uint32_t d_model = 96;
  uint32_t heads = 3;
  uint32_t layers = 2;
  uint32_t mlp_mult = 4;
  double ln_eps = 1e-5;
  uint32_t head_dim() const { return d_model / heads; }
  uint32_t d_ff() const { return mlp_mult * d_model; }
  uint64_t parameter_count() const;
  // Throws std::invalid_argument when the kernels cannot take the shape (d % 4, d % heads,
  // head_dim <= 128, vocab % 4).
  void validate() const;
};

// Presets. Seed 004 names d_model only (Small 96, Medium 128, Large 192, XL 256); heads, layers
// and context are ours: head_dim 32 for the four seed presets (FA2's private state stays small),
// GPT-2's 64 for gpt110m. Byte vocabulary 256 everywhere.
//   small    d 96,  3 heads, 2 layers,  context 64    (0.25M parameters)
//   medium   d 128, 4 heads, 4 layers,  context 128   (0.84M)
//   large    d 192, 6 heads, 4 layers,  context 128   (1.85M)
//   xl       d 256, 8 heads, 6 layers,  context 256   (4.87M)
//   gpt110m  d 768, 12 heads, 15 layers, context 256  (106.7M: the optimizer benchmark's ~110M)
std::vector<ModelConfig> presets();
ModelConfig preset(std::string_view name);  // throws std::invalid_argument listing the names

// ---- parameters ---------------------------------------------------------------------------------
// Names as in the safetensors checkpoint (and as apps/gpt/peer_torch_train.py reads them):
//   wte [V, d], wpe [T, d], h.<l>.ln1.weight/.bias [d], h.<l>.attn.qkv.weight [d, 3d] + .bias [3d],
//   h.<l>.attn.proj.weight [d, d] + .bias, h.<l>.ln2.weight/.bias, h.<l>.mlp.fc.weight [d, 4d] +
//   .bias [4d], h.<l>.mlp.proj.weight [4d, d] + .bias [d], lnf.weight/.bias [d].
// Decision: weight decay on the 2-D tensors (embeddings and matrices), none on biases and
// layernorm parameters (nanoGPT's split).
std::vector<optimizer::ParamSpec> param_specs(const ModelConfig& c);

// GPT-2 initialization from `seed`: N(0, 0.02) for wte, wpe and the matrices, the residual
// projections (attn.proj, mlp.proj) N(0, 0.02 / sqrt(2 layers)); biases 0, layernorm weight 1,
// bias 0. Normals from our own Box-Muller over splitmix64 (std::normal_distribution is not the
// same on every standard library), so every platform gets the same bits. One vector per spec,
// in param_specs order.
std::vector<std::vector<float>> init_params(const ModelConfig& c, uint64_t seed);

// ---- training hyperparameters: THE defaults
// ------------------------------------------------------
enum class Schedule { Constant, Cosine };
std::string_view schedule_name(Schedule s);
Schedule parse_schedule(std::string_view s);  // throws std::invalid_argument naming s
// "fp32", "f16_mirror", "int8" (optimizer::precision_name); throws std::invalid_argument naming s
optimizer::StatePrecision parse_precision(std::string_view s);
// `--precision` (and a checkpoint's "precision"): the optimizer state's names above, or "mixed"
// (issue 24): f16 product inputs with f32 accumulation (GpuOptions::mixed) over f32 master
// weights whose f16 mirror (f16_mirror state) is the products' weight copy. Sets
// TrainConfig::precision and mixed; throws std::invalid_argument naming s and the known names.
struct TrainConfig;
void set_precision(TrainConfig& c, std::string_view s);
std::string precision_label(const TrainConfig& c);  // "mixed" or the state's name
// FA2: the log's FlashAttention-2 kernels (one invocation per Q row); FA2Wide: ours, the same
// algorithm and ABI with 8 invocations per row (attention_native.wgsl); Naive: the log's starting
// point, keeping the attention matrix. FA2Tiled, the default: the tiled FA2 forward and our
// one-dispatch tiled backward (attn_fwd_fa2_tiled, attn_bwd_fa2_tiled: 32 x 32 register tiles;
// attention/host.hpp).
// gpt110m on an H200 (bench/results/h200-2026-11-23-session4): 72.8 ms/step vs 79.6 (FA2Wide) and
// 125 (FA2), native matmul, the same losses.
enum class AttentionImpl { FA2, FA2Wide, FA2Tiled, Naive };
std::string_view attention_name(AttentionImpl a);   // "fa2", "fa2_wide", "fa2_tiled", "naive"
AttentionImpl parse_attention(std::string_view s);  // throws std::invalid_argument naming s

struct TrainConfig {
  std::string preset = "small";
  uint32_t steps = 1000;
  uint32_t batch = 8;
  uint32_t context = 0;  // 0: the preset's context (a smaller one shrinks wpe to it)
  // Seed 004: the Python reference's learning rate, 3e-4 (the browser's 3e-3 was "the most
  // expensive bug"). AdamW betas/eps/decay/clip as the optimizer family's defaults.
  float lr = 3e-4f;
  float min_lr_ratio = 0.1f;  // cosine decays to lr * this
  uint32_t warmup_steps = 0;  // 0: min(100, steps / 10)
  Schedule schedule = Schedule::Cosine;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
  std::optional<float> max_grad_norm = 1.0f;
  optimizer::StatePrecision precision = optimizer::StatePrecision::FP32;
  bool mixed = false;  // --precision mixed (then precision is F16Mirror)
  // Mixed only: the static loss scale, a power of two in [1, 2^24], or 0: auto, 32 x rows (batch x
  // context) rounded down to a power of two, which undoes the mean's 1/rows so the scaled
  // dlogits stay within 32 on every shape (apps/gpt/README.md, "Mixed precision": dlogits and the
  // deeper gradients in f16 underflow without a scale; gpt110m: auto = 65536).
  float loss_scale = 0.0f;
  AttentionImpl attention = AttentionImpl::FA2Tiled;
  uint64_t seed = 1234;
  uint32_t log_every = 10;    // the loss is read back once per interval
  uint32_t eval_every = 100;  // validation loss (eval_batches batches) every N steps
  uint32_t eval_batches = 4;
  uint32_t checkpoint_every = 0;  // 0: only at the end when --out is given
  double val_fraction = 0.1;      // held-out tail of every corpus file

  uint32_t effective_warmup() const;
  ModelConfig model() const;  // the preset with context applied
  // The AdamW options these hyperparameters give (deterministic gradient norm: the step is
  // bitwise reproducible, which resume relies on).
  optimizer::AdamWOptions adamw() const;
};

// The accepted range of TrainConfig's numeric fields: `wgslvk train`'s flags and a checkpoint's
// .json take the same ones (issue 26: numbers wrapped, val_fraction 2.0 ran past the corpus).
struct TrainLimits {
  static constexpr uint32_t max_steps = 100'000'000;  // also warmup, stop-at, the intervals
  static constexpr uint32_t max_batch = 4096;
  static constexpr uint32_t max_context = 4096;
  static constexpr uint32_t max_eval_batches = 100'000;
  static constexpr double max_lr = 100;  // also weight decay; AdamW refuses negative values
  static constexpr double max_grad_norm = 1e30;
  static constexpr double min_val_fraction = 0.001, max_val_fraction = 0.5;
};
// Throws std::invalid_argument "<field> = <value> is outside [lo, hi]" for the first field out of
// TrainLimits (or of AdamW's own checks), or naming an unknown preset.
void check_train_config(const TrainConfig& c);

// Learning rate for step t (1-based): linear warmup to lr over effective_warmup() steps, then
// constant or cosine from lr to lr * min_lr_ratio at t = steps.
float lr_at(const TrainConfig& c, uint32_t t);

}  // namespace wgslvk::gpt
