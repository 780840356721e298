// Host side of adafactor.wgsl: a multi-tensor Adafactor that a trainer calls once per step,
// beside optimizer::MultiTensorAdamW (wgsl_ports/optimizer/adamw.hpp), with
// torch.optim.Adafactor's definitions (adafactor/reference.hpp states them).
//
// Layout. Parameters are registered once (optimizer::ParamSpec: name, shape, decay) and laid out
// by optimizer::make_layout (the same w / g mega-buffers and alignment as AdamW: every tensor
// starts on the device's storage offset alignment; decay block first). A tensor of rank 2 is
// factored (row_var [R] + col_var [C] of state, torch's grad.dim() > 1 rule); rank 0 or 1 keeps
// the full second moment (v [n]); rank > 2 is refused (torch factors the last two dimensions per
// leading index, which this layout does not do). The state buffer holds each tensor's vectors,
// each on the alignment; two scratch buffers hold each tensor's per-workgroup partials
// (partials()) and rsqrt vectors (factors()) -- two, because WebGPU's usage scope (R11) forbids one
// buffer bound both read-only and writable in a dispatch, ranges apart or not -- together (2-D: R*ceil(C/256) + C*ceil(R/128) + R + C + 2*tiles floats, about 1.2% of R*C; 1-D:
// 2 * ceil(n/1024) floats), never read by the host and never carried between steps.
//
// step(): one compute pass, one submission, no read-back. Batched (default, adafactor_multi.wgsl):
// the tensors are cut into binding groups (consecutive tensors whose w, state, partials and
// factors ranges each fit one storage binding: one group unless the model is larger than a
// binding); per group 7 dispatches, one per phase -- sq_sums (all 2-D), ema_1d (all 1-D),
// factor_ema, row_rsqrt, update_rms, apply_2d, apply_1d -- each finding its tensor in a read-only
// table (tables(): per group a 2-D and a 1-D array of AfTensor, 80 bytes each). Per tensor
// (options.per_tensor), per 2-D tensor: sq_sums -> factor_ema
// -> row_rsqrt -> update_rms -> apply_2d; per 1-D tensor: ema_1d -> apply_1d (an empty tensor has
// none). The step's scalars (t^beta2_decay, rho, the decay factor) are computed on the host in
// double and written to the uniforms at record time. No atomics: bitwise reproducible (every
// partial count depends on the shape only).
//
// The gradient is not zeroed (torch's optimizer.step() leaves it too; AdamW's kernel zeroes it):
// write the next gradient with set_grads or overwrite g on the device.
//
// Errors: bad arguments throw wgslvk::ValidationError naming the call, the parameter and the
// values (rule "shape", "value", "limits"); checkpoint problems throw
// optimizer::CheckpointError and change nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adafactor/reference.hpp"
#include "optimizer/adamw.hpp"
#include "optimizer/safetensors_checkpoint.hpp"
#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::adafactor {

struct AdafactorOptions {
  Hyper hyper;  // torch.optim.Adafactor's arguments (reference.hpp)
  // Upper bound on one binding, below the device's maxStorageBufferBindingSize (0: the device's).
  // A tensor must fit one binding (it is never split: its sums are per tensor).
  uint64_t max_binding_bytes = 0;
  // false (default): the batched step of adafactor_multi.wgsl, one dispatch per phase over all
  // tensors (7 per binding group, below, whatever the tensor count); true: adafactor.wgsl's
  // kernels once per tensor (5 per 2-D, 2 per 1-D tensor). The two give the same bits.
  bool per_tensor = false;
  // Batched only: cut the binding groups at this many bytes of each buffer's span too (0: at the
  // binding limit only). Smaller groups run all seven phases over fewer tensors, so the second
  // and third reads of g (update_rms, apply) can hit the L2 cache (tens of MB) instead of memory,
  // at 7 dispatches per group; a tensor larger than this is a group of its own. The bits do not
  // depend on it (tested).
  uint64_t group_bytes = 0;
};

class MultiTensorAdafactor {
 public:
  MultiTensorAdafactor(Device& device, std::vector<optimizer::ParamSpec> params,
                       AdafactorOptions options = {});

  struct Tensor {
    optimizer::ParamEntry p;  // name, shape, offset in w / g (elements), count
    Dims dims;
    uint64_t row_var = 0, col_var = 0, v = 0;  // state offsets (elements); 2-D or 1-D
    uint64_t row_part = 0, col_part = 0, p_part = 0, rms_part = 0, rr = 0, rc = 0;  // scratch
  };
  const optimizer::Layout& layout() const { return layout_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const Tensor& tensor(std::string_view name) const;  // throws naming the known ones
  const AdafactorOptions& options() const { return opt_; }
  uint64_t step_count() const { return t_; }
  void set_lr(double lr);  // from the next step

  const Buffer& w() const { return w_; }
  const Buffer& g() const { return g_; }
  const Buffer& state() const { return state_; }
  const Buffer& partials() const { return scratch_; }  // per-workgroup partial sums
  const Buffer& factors() const { return factors_; }   // rsqrt(row) and rsqrt(col) vectors

  void set_weights(std::string_view name, std::span<const float> values);
  void set_grads(std::string_view name, std::span<const float> values);
  std::vector<float> read_weights(std::string_view name);
  std::vector<float> read_grads(std::string_view name);
  std::vector<float> read_row_var(std::string_view name);  // 2-D only
  std::vector<float> read_col_var(std::string_view name);  // 2-D only
  std::vector<float> read_v(std::string_view name);        // 1-D only

  // Optimizer state of one parameter, bytes: 2-D 4 * (R + C), 1-D 4 * n (padding excluded).
  uint64_t state_bytes(std::string_view name) const;
  uint64_t state_bytes() const;    // all parameters
  uint64_t scratch_bytes() const;  // partials + factors (per-step temporaries)
  uint64_t dispatches_per_step() const { return dispatches_.size(); }
  uint64_t binding_groups() const { return groups_; }  // batched: binding groups (0 per tensor)
  const Buffer& tables() const { return tables_; }     // batched: the tensor tables

  // One optimizer step: record_step into a new encoder and submit. Does not wait.
  void step();
  // Records step t+1 into `encoder` (one compute pass) and advances t. The step's uniforms are
  // written through the queue now, so submit the encoder before the next record_step.
  void record_step(CommandEncoder& encoder,
                   const std::optional<PassTimestampWrites>& timestamps = std::nullopt);

  // Safetensors checkpoint (format kCheckpointFormat, below): per parameter "<name>" (F32
  // weights) and "<name>.row_var" / "<name>.col_var" (2-D) or "<name>.variance" (1-D; none for an
  // empty tensor), F32, torch's state names; __metadata__ holds the format, the step, every
  // hyperparameter (round-trip decimal strings) and the whole-file CRC-32. The container is
  // optimizer/safetensors_checkpoint.hpp, hardened for untrusted files (it lists the checks);
  // load() also validates the hyperparameters with the constructor's check_hyper and the step
  // (<= 2^53), and checks everything before changing anything; on success it replaces w, the
  // state, t and the hyperparameters and zeroes g.
  void save(const std::string& path);
  void load(const std::string& path);

 private:
  void build_dispatches();
  void build_batched();
  void write_hp();
  std::vector<float> read_f32(const Buffer& b, uint64_t offset, uint64_t count);

  Device device_;
  AdafactorOptions opt_;
  optimizer::Layout layout_;
  std::vector<Tensor> tensors_;
  uint64_t t_ = 0;
  uint64_t state_elems_ = 0, scratch_elems_ = 0, factor_elems_ = 0;
  uint32_t uslot_ = 256;
  uint64_t groups_ = 0;
  Buffer w_, g_, state_, scratch_, factors_, uniforms_, tables_;
  std::vector<Dispatch> dispatches_;
};

// ---- checkpoints, device-free (what save / load use; the fuzz target and tests call them) ----------

// v2: the shared container, CRC over the whole file (v1's CRC covered the data only: refused).
inline constexpr const char* kCheckpointFormat = "wgslvk.adafactor.v2";

struct CheckpointState {
  uint64_t step = 0;
  Hyper hyper;
};
// The tensors a layout saves, in file order (per parameter: weights, then its state vectors).
std::vector<optimizer::CheckpointTensor> checkpoint_tensors(const optimizer::Layout& layout);
// The file's bytes: tensors[i]'s data is data[i].
std::vector<uint8_t> encode_checkpoint(std::span<const optimizer::CheckpointTensor> tensors,
                                       std::span<const std::vector<uint8_t>> data,
                                       const CheckpointState& state);
struct DecodedCheckpoint {
  CheckpointState state;
  uint64_t data_offset = 0;
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // per expected tensor, in the data section
};
// Throws optimizer::CheckpointError with the reason (no file name: load() adds it).
DecodedCheckpoint decode_checkpoint(std::span<const uint8_t> file,
                                    std::span<const optimizer::CheckpointTensor> expected);

}  // namespace wgslvk::adafactor
