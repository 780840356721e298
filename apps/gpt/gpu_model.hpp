// The GPT training step on the GPU, built only from the ported kernels of the embedding, matmul,
// norm, elementwise, attention, loss and optimizer families. Parameters and gradients are
// sub-ranges of MultiTensorAdamW's mega-buffers w and g (bound at their offsets), activations are
// one buffer per saved tensor (so no dispatch binds one buffer both writable and read-only: R11).
//
// One training step = two submissions: a compute pass with the forward and backward dispatches
// (the runtime orders them), encoded once and resubmitted every step (a reusable command buffer;
// on a traced device it is encoded per step), then a copy of the mean loss into a loss-log slot
// and MultiTensorAdamW::record_step's pass (gradient norm, clip, the decay- and no-decay-block
// updates; it zeroes g). The queue writes the batch (tokens, targets, the deterministic embedding
// backward's segments) and the optimizer's uniforms, which the GPU takes before the step's
// commands; the host waits for nothing: no read-back inside a step, the loss log is read once per
// logging interval, and the host prepares the next steps while the GPU runs this one.
//
// Dispatch list (per layer l, rows R = B*T):
//   forward:  embed_lookup(tokens, wte) -> x0; pos_embed_add(x0, wpe);
//             ln1 = layernorm_forward(x_l); qkv = matmul(ln1, Wqkv, +b);
//             FA2: attn_fwd_fa2(qkv) -> y, lse | naive: attn_scores, attn_softmax,
//             attn_weighted_sum; t = matmul(y, Wo, +b); xm = residual_add(x_l, t); ln2 =
//             layernorm_forward(xm); f = matmul(ln2, Wfc, +b); g = gelu_forward(f); t = matmul(g,
//             Wfc2, +b); x_{l+1} = residual_add(xm, t); lnf = layernorm_forward(x_L); logits =
//             matmul(lnf, wte^T) (tied); cross_entropy_forward, cross_entropy_mean.
//   backward: cross_entropy_backward -> dlogits; dlnf = dlogits wte; d wte = dlogits^T lnf;
//             layernorm_backward(+dparams) -> dres; per layer from the last:
//             dg = dres Wfc2^T, dWfc2 = g^T dres, dbfc2 = matmul_bias_grad(dres);
//             df = gelu_backward(f, dg); dln2 = df Wfc^T, dWfc, dbfc; layernorm_backward -> dx;
//             residual_add_inplace(dres, dx); dy = dres Wo^T, dWo, dbo; attn_dsum;
//             FA2: attn_dscores_fa2 + attn_dv_fa2 | naive: attn_dscores + attn_dqkv -> dqkv;
//             dln1 = dqkv Wqkv^T, dWqkv, dbqkv; layernorm_backward -> dx; residual_add_inplace.
//             Then d wpe = matmul_bias_grad over dres viewed as [B, T*d] (the column sums over the
//             batch: our use of the bias-gradient kernel for the position embedding, which has no
//             kernel of its own), and embed_backward_deterministic(tokens, dres) adds into d wte
//             (on top of the logits' contribution: it starts from the table's current value).
//   optimizer: MultiTensorAdamW::record_step.
// Every gradient's first writer overwrites (no ACCUMULATE), so g needs no clear; the optimizer
// leaves it zero anyway. Everything is deterministic (fixed summation orders, the deterministic
// norm and embedding backward): the same inputs give the same bits, which resume relies on.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "data.hpp"
#include "optimizer/adamw.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::gpt {

// The seed's default forward matmul is vec4 ("vec4 is the default forward matmul"; row lengths
// multiples of 4, else blocked4). native is our tuned GEMM (matmul_native.wgsl). Decision: the
// trainer used native (gpt110m on an H200: 125 ms/step vs 137 with vec4, the same losses within
// f32 noise; bench/results/h200-2026-11-23-session4); where native's preconditions fail it falls
// back as vec4 does. The seed's vec4 stays selectable (--matmul vec4).
// native_auto (issue 23, now the default): matmul::native_plan() per product: split-K
// (matmul_native_splitk + matmul_splitk_reduce, both in matmul_native.wgsl) where native's
// 128 x 128 grid has fewer than 66 tiles and K allows slices of >= 192; from 66 tiles
// matmul_native_k16 (128 x 64 tiles, K stages of 16, in matmul_native.wgsl) where K >= 512 and
// its grid fills the GPU's resident workgroups better than native's; native elsewhere
// (wgsl_ports/matmul/README.md: the measurements and the choice per GPT shape). Split-K sums in
// another order: losses within the documented bounds of native's, not bit-equal; k16 sums in
// native's order (the same bits on lavapipe). `native` keeps matmul_native everywhere (the losses
// of the runs before the change, bit for bit).
enum class MatmulImpl { Vec4, Blocked4, Naive, Native, NativeAuto };
std::string_view matmul_name(MatmulImpl m);
MatmulImpl parse_matmul(std::string_view s);

struct GpuOptions {
  AttentionImpl attention = TrainConfig{}.attention;
  MatmulImpl matmul = MatmulImpl::NativeAuto;
};

class GpuGpt {
 public:
  // batch: sequences per step; every step uses the model's full context.
  GpuGpt(Device device, ModelConfig config, uint32_t batch, optimizer::AdamWOptions adamw,
         GpuOptions options = {});
  ~GpuGpt();

  const ModelConfig& config() const { return cfg_; }
  uint32_t batch() const { return batch_; }
  optimizer::MultiTensorAdamW& optimizer() { return *opt_; }
  Device& device() { return dev_; }

  // Parameters in param_specs order.
  void set_params(const std::vector<std::vector<float>>& values);
  std::vector<std::vector<float>> read_params();
  std::vector<std::vector<float>> read_grads();

  // One training step (one submission); the mean loss of the step goes to loss-log slot `slot`.
  void train_step(const Batch& b, float lr, uint32_t slot);
  // Forward and backward only (gradients stay in g; no optimizer step), waited for.
  void forward_backward(const Batch& b);
  // Forward only; returns the mean loss (one read-back).
  float eval_loss(const Batch& b);
  // Reads slots [0, n) of the loss log (waits for the queue).
  std::vector<float> read_loss_log(uint32_t n);
  static constexpr uint32_t kLossLogSlots = 4096;
  // Logits [vocab] of row `row` after a forward of `tokens` (batch * context ids).
  std::vector<float> logits_row(const std::vector<uint32_t>& tokens, uint32_t row);

  // train_step with a timestamp after every dispatch (ComputePass::write_timestamp, needs
  // Feature::TimestampQuery) and MultiTensorAdamW's five phase timestamps: the same dispatches,
  // so the step's result is the same bits. Waits, and returns the step's time per kernel
  // (forward and backward rows separate, then the optimizer's phases), in dispatch order of
  // first use. Each dispatch's time runs from the previous timestamp to its own, so it includes
  // the barrier before it.
  struct ProfileRow {
    std::string kernel;  // "fwd matmul/matmul_vec4", "bwd norm/layernorm_backward", "adamw update"
    uint32_t dispatches = 0;
    double ms = 0;
  };
  std::vector<ProfileRow> profile_step(const Batch& b, float lr, uint32_t slot);

  // Dispatches of one step's first pass (forward + backward).
  size_t pass_dispatches() const { return ops_.size(); }

 private:
  struct Acts;
  // build()'s helpers and pieces (embedding, per-layer forward, logits, loss, per-layer
  // backward, ...), each appending its dispatches to ops_ in step order.
  struct StepBuilder;
  void build();
  void make_buffers();  // the activations, gradients and batch buffers of Acts
  void upload(const Batch& b);
  void record_ops(CommandEncoder& enc, size_t begin, size_t end, const std::string& label,
                  const QuerySet* timestamps = nullptr);

  Device dev_;
  ModelConfig cfg_;
  uint32_t batch_;
  GpuOptions gopt_;
  std::unique_ptr<optimizer::MultiTensorAdamW> opt_;
  std::vector<Dispatch> ops_;  // each labelled with its kernel's qualified name
  std::unique_ptr<Acts> a_;
  size_t logits_end_ = 0, fwd_end_ = 0;
  PipelineCache pipes_;
  CommandBuffer step_cb_;  // the forward + backward pass, reusable (train_step)
};

}  // namespace wgslvk::gpt
