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
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "data.hpp"
#include "optimizer/adamw.hpp"
#include "subgroup_matrix/reference.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::gpt {

// The seed's default forward matmul is vec4 ("vec4 is the default forward matmul"; row lengths
// multiples of 4, else blocked4). native is our tuned GEMM (matmul_native.wgsl). Decision: the
// trainer used native (gpt110m on an H200: 125 ms/step vs 137 with vec4, the same losses within
// f32 noise; bench/results/h200-2026-11-23-session4); where native's preconditions fail it falls
// back as vec4 does. The seed's vec4 stays selectable (--matmul vec4).
// native_auto (issue 23, the default until session 13): matmul::native_plan() per product: split-K
// (matmul_native_splitk + matmul_splitk_reduce, both in matmul_native.wgsl) where native's
// 128 x 128 grid has fewer than 66 tiles and K allows slices of >= 192; from 66 tiles
// matmul_native_k16 (128 x 64 tiles, K stages of 16, in matmul_native.wgsl) where K >= 512 and
// its grid fills the GPU's resident workgroups better than native's; native elsewhere
// (wgsl_ports/matmul/README.md: the measurements and the choice per GPT shape). Split-K sums in
// another order: losses within the documented bounds of native's, not bit-equal; k16 sums in
// native's order (the same bits on lavapipe). `native` keeps matmul_native everywhere (the losses
// of the runs before the change, bit for bit).
// native_auto_bmm (issue 23, session 13): native_auto, except the bias-free products whose
// 128 x 128 grid has at most 96 tiles and which native_plan() does not split run as one product
// of matmul_batched (64 x 64 tiles: 384 workgroups instead of k16's 192 at gpt110m's dX
// products; measured slower in the step: 51.3 vs 49.9 ms at gpt110m on an H200, a layer's dX and
// dW products overlap). native_auto_fwd (the default since session 13): native_auto, except the
// products with a bias (the forward's linear layers, which nothing overlaps) of at most 288 tiles
// with K >= 512 that native_plan() does not split: C = bias rows, then C += op(A) op(B), both on
// matmul_batched (gpt110m on an H200: 49.90-49.92 -> 49.43-49.46 ms/step; at the other presets
// no product qualifies). matmul_batched sums in native's order: the same bits as native_auto
// (tested on lavapipe; 200 of 200 losses identical on the H200). bench/results/h200-2026-11-27l-*.
enum class MatmulImpl { Vec4, Blocked4, Naive, Native, NativeAuto, NativeAutoBmm, NativeAutoFwd };
std::string_view matmul_name(MatmulImpl m);
MatmulImpl parse_matmul(std::string_view s);

// Mixed precision (issue 24, `wgslvk train --precision mixed`): every product of the step takes
// f16 inputs and accumulates in f32 into f32 outputs; everything else stays f32 (layernorm,
// attention, GELU, softmax and loss, the gradients, the optimizer's master weights and moments).
// The weights' f16 copy is the optimizer's f16 mirror (StatePrecision::F16Mirror: the update
// writes f16(w) as it writes w, so the copy is refreshed after each step at no extra pass); an
// activation or gradient that feeds a product is cast to f16 once after it was last written
// (matmul/cast_f16: round to nearest even on the bits, the same on every device; outputs that are
// not finite are counted, read_f16_overflow). The products run subgroup_matrix/sgmm_f16_tiled8_d2
// (tensor cores) where the device has the subgroup-matrix feature, else matmul/matmul_f16in (the
// same ABI and flags); a forward bias is added by elementwise/pos_embed_add over rows of one
// position (x[r, :] += b). `matmul` is not used for the products then.
// Loss scaling (static; auto: 32 x rows as a power of two): cross_entropy_backward's scale
// multiplies dlogits by loss_scale, so every
// gradient of the backward (all linear in dlogits) is loss_scale times the true one; a final
// matmul/scale_f32 pass over g multiplies by 1/loss_scale (a power of two: exact) before the
// optimizer. apps/gpt/README.md ("Mixed precision") has why, the measurements and the default.
enum class MixedKernel { Auto, F16In, Sgmm };

// The subgroup-matrix kernel of one mixed product on a device with `workgroup_storage` bytes of
// workgroup memory (Limits::max_compute_workgroup_storage_size): subgroup_matrix::plan()'s
// kernel where the device holds its workgroup memory (the kernel's reflected
// KernelInfo::workgroup_storage_bytes), else the one of plan()'s kernels that needs the least
// (sgmm_f16_tiled4_d4, grid subgroup_matrix::workgroups()), whose slots and bits are the same;
// std::nullopt where even that does not fit.
std::optional<subgroup_matrix::Plan> mixed_product_plan(const subgroup_matrix::Dims& d,
                                                        uint32_t workgroup_storage);
// The least workgroup memory any mixed product's kernel needs (sgmm_f16_tiled4_d4's, reflected):
// a device with the subgroup-matrix feature and at least this much runs every product on tensor
// cores.
uint32_t mixed_sgmm_min_workgroup_storage();

// The fp32 step's attention (issue 23; gpu_model.cpp, fp32_materialized_attention()): Auto runs
// S = Q K^T, O = P V and their gradients as batched fp32 products (matmul/matmul_batched, causal
// tiles and k ranges skipped) with attention/attn_softmax_mat and attn_dscores_mat between them
// where the rule says so, else the AttentionImpl kernels (FA2 by default).
enum class Fp32Attention { Auto, FA2, Materialized };
std::string_view fp32_attention_name(Fp32Attention a);
Fp32Attention parse_fp32_attention(std::string_view s);  // auto | fa2 | materialized
// Whether the shape fits the fp32 materialized attention on `dev` at all (the kernels' vec4 and
// grid rules, the matrices within the binding size and 4 GiB), and the Auto rule.
bool fp32_materialized_fits(const Device& dev, uint32_t B, uint32_t T, uint32_t H, uint32_t hd,
                            uint32_t layers);
bool fp32_materialized_attention(const Device& dev, uint32_t B, uint32_t T, uint32_t H, uint32_t hd,
                                 uint32_t layers);

struct GpuOptions {
  AttentionImpl attention = TrainConfig{}.attention;
  MatmulImpl matmul = MatmulImpl::NativeAutoFwd;
  bool mixed = false;
  // Mixed only: a power of two in [1, 2^24], or 0: auto (TrainConfig::loss_scale).
  float loss_scale = TrainConfig{}.loss_scale;
  MixedKernel mixed_kernel = MixedKernel::Auto;  // Auto: Sgmm where the device can, else F16In
  // Mixed only: keep the fp32 FA2 attention where the step would run it on tensor cores with the
  // score matrix materialized (gpu_model.cpp, materialized_attention(); a baseline to measure).
  bool mixed_attention_fa2 = false;
  // fp32 only: attention with the score matrix materialized as batched fp32 products
  // (matmul/matmul_batched) where fp32_materialized_attention() says so (Auto), always where the
  // shape allows it (Materialized), or never (FA2: the AttentionImpl kernels; a baseline).
  Fp32Attention fp32_attention = Fp32Attention::Auto;
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

  // Mixed precision: the product kernel in use ("matmul/matmul_f16in" or
  // "subgroup_matrix/sgmm_f16_tiled8_d2"; empty when not mixed), and the count of f16 casts whose
  // result was not finite since the model was built (waits for the queue).
  const std::string& mixed_kernel_name() const { return mixed_kernel_; }
  // Mixed precision: whether attention runs on tensor cores with the score matrix materialized
  // (sgmm_f16_batched products; apps/gpt/README.md "Mixed precision"), else the f32 FA2 kernels.
  bool mixed_attention_materialized() const { return mat_attention_; }
  // Whether the step's attention keeps the score matrix (mixed: on tensor cores, as above; fp32:
  // matmul_batched products, Fp32Attention).
  bool attention_materialized() const { return mat_attention_; }
  // The loss scale in use (auto resolved); 1 when not mixed.
  float loss_scale() const { return loss_scale_; }
  uint32_t read_f16_overflow();
  // What the f16 casts of one forward + backward on `b` produce (mixed only), per cast in step
  // order: the dispatches are submitted one at a time and each cast's input and output read back
  // (slow: a measurement). The gradients are left in g (as forward_backward leaves them).
  struct CastStat {
    std::string what;  // "fwd gpt.l0.ln1", "bwd gpt.dres", ...
    uint64_t count = 0;
    uint64_t zero_from_nonzero = 0;  // a nonzero f32 that became +-0 (underflow)
    uint64_t subnormal = 0;          // results in the f16 subnormal range (precision lost)
    uint64_t nonzero = 0;            // nonzero f32 inputs
    uint64_t not_finite = 0;         // +-inf or NaN results (overflow)
    double max_abs = 0;              // of the f32 input
  };
  std::vector<CastStat> cast_stats(const Batch& b);

 private:
  struct Acts;
  // build()'s helpers and pieces (embedding, per-layer forward, logits, loss, per-layer
  // backward, ...), each appending its dispatches to ops_ in step order.
  struct StepBuilder;
  void build();
  void check_mixed(const optimizer::AdamWOptions& adamw);  // and picks mixed_kernel_
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
  // Mixed precision: the product kernel, and each f16 cast's place in ops_ with its input and
  // output (cast_stats).
  std::string mixed_kernel_;
  bool mat_attention_ = false;  // check_mixed: materialized_attention(); fp32: Fp32Attention
  float loss_scale_ = 1.0f;
  struct CastOp {
    size_t op = 0;
    Buffer src, dst;
    uint64_t src_offset = 0, floats = 0;
  };
  std::vector<CastOp> casts_;
};

}  // namespace wgslvk::gpt
