// The CPU reference training (the seed's "WASM" path): the same model and step as GpuGpt, in
// double precision, chaining the families' reference functions (wgsl_ports/<family>/reference.hpp)
// and nothing else:
//   embedding::ref::lookup / backward   (f32 forms only: the table is the f32 parameter, so the
//                                        lookup is exact; the backward's contributions are the
//                                        double gradients rounded to f32 and its sum is double,
//                                        rounded once: ~6e-8 relative, far below any bound used)
//   elementwise::ref::pos_embed_add, residual_add, gelu_forward, gelu_backward   (double)
//   norm::ref::layernorm_forward, layernorm_backward                              (double)
//   matmul::ref::matmul, bias_grad                                                (double)
//   attention::ref::fa2_forward / fa2_backward (or naive_forward / naive_backward), dsum (double)
//   loss::ref::ce_forward, ce_mean, ce_backward                                   (double)
//   optimizer::ref reduce_norm_sq_exact, finalize_grad_stats_reference, adamw_update_reference
//     (their f32-in forms: the optimizer family has no double form. So, as on the GPU, parameters
//      and moments are stored in f32 between steps and each step's gradient is rounded to f32
//      before the update; inside, the update is computed in double and rounded once.)
// Parameters are f32 (the stored precision); activations and gradients are double.
#pragma once

#include <vector>

#include "config.hpp"
#include "data.hpp"
#include "optimizer/adamw.hpp"

namespace wgslvk::gpt {

class CpuGpt {
 public:
  CpuGpt(ModelConfig config, uint32_t batch, optimizer::AdamWOptions adamw,
         AttentionImpl attention = AttentionImpl::FA2);

  void set_params(const std::vector<std::vector<float>>& values);  // param_specs order
  const std::vector<std::vector<float>>& params() const { return w_; }
  const std::vector<std::vector<double>>& grads() const { return g_; }
  uint64_t step_count() const { return t_; }

  // Mean loss of a forward pass.
  double forward(const Batch& b);
  // Forward and backward: fills grads(); returns the mean loss.
  double forward_backward(const Batch& b);
  // One AdamW step at `lr` from the current grads() (t advances).
  void optimizer_step(float lr);
  // forward_backward + optimizer_step; returns the step's loss (before the update).
  double train_step(const Batch& b, float lr);

 private:
  struct Cache;
  double run(const Batch& b, bool backward);

  ModelConfig cfg_;
  uint32_t batch_;
  optimizer::AdamWOptions opt_;
  AttentionImpl attention_;
  std::vector<optimizer::ParamSpec> specs_;
  std::vector<std::vector<float>> w_, m_, v_;
  std::vector<std::vector<double>> g_;
  uint64_t t_ = 0;
};

}  // namespace wgslvk::gpt
