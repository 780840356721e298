// Host side of the optimizer kernels (12_optimizer.wgsl, from its llm.istanbul study):
// a multi-tensor AdamW that a trainer calls once per step, and the one-call AdamW of
// the popcornAdamW_f32 specification (a fused single-call AdamW).
//
// Layout. Parameters are registered once (name, shape, decay or not) and laid out in one
// mega-buffer per role: w, g, m, v (fp32 state), plus the f16 mirror, or the 8-bit state (packed
// m and v codes, one scale per 256-element block for each) instead of m and v. The decay block
// comes first, then the no-decay block, as the seed describes. Every tensor starts at a multiple
// of `unit` elements, the smallest count that puts every sub-range the engine binds, in every
// buffer, on the device's storage offset alignment A (bytes):
//   f32 roles A/4 elements; f16 mirror A/2; packed 8-bit codes A (4 per u32); block scales
//   64*A (one f32 per 256 elements) -- unit is the largest of those the chosen precision uses.
// So the same layout serves the multi-tensor mode (one sub-range per block) and the per-tensor
// mode (one sub-range per tensor), and 8-bit quantization blocks never straddle two tensors.
// Padding is inert: it is zero and the update maps zero state to zero. In the multi-tensor mode a
// block's dispatch covers the padding between its tensors (it stays exactly 0); padding after a
// block's last tensor, and all padding in the per-tensor mode, is never written (the Float8Blocks vec4
// update reads w and g up to the end of the range's last vec4, up to 3 padding floats).
//
// A block (or, per tensor, a tensor) larger than the binding limit (maxStorageBufferBindingSize,
// or Options::max_binding_bytes when lower) is split into chunks of a whole number of units, one
// dispatch each, so it never fails for size.
//
// step(): reduce_norm_sq over g -> finalize_grad_stats -> update(decay block) -> update(no-decay
// block), recorded in one compute pass, one submission, no read-back. beta1^t and beta2^t are
// computed on the host in double and rounded to f32. The norm accumulator is zeroed by
// finalize_grad_stats itself (atomicExchange), so the step needs no clear command.
//
// Deterministic norm (NormMode::Deterministic, the default): reduce_norm_sq_partials writes one
// partial per workgroup, finalize_grad_stats_partials sums them in a fixed tree: the same bits on
// every run (the partial count per chunk comes from the layout alone: default_norm_workgroups).
// The seed's CAS accumulation (NormMode::Atomic) stays ported, validated and selectable; its
// result depends on the order the workgroups finish in.
// Why the default is the two-level norm (issue 15: "the API's default step should be the fastest
// one that is correct"): on an H200 (bench/results/h200-2026-11-22/, 110M parameters, 111
// tensors) the fp32 step took 0.98-0.99 ms = 1.06x its byte limit with it and 1.13-1.14 ms =
// 1.22x with the seed's CAS norm, and it is bitwise reproducible.
//
// Profiling: record_step(encoder, query_set, base) writes kStepTimestamps timestamps, base+0 at
// the pass's beginning, then after the reduce, the finalize, the decay-block updates and the
// no-decay updates (base+4, the pass's end): four phase times from the API itself.
//
// Errors: bad arguments throw wgslvk::ValidationError naming the call, the parameter and the
// values (rule "shape", "value", "limits", "feature"); checkpoint problems throw
// CheckpointError and change nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::optimizer {

enum class StatePrecision {
  FP32,          // m, v f32 (adamw_update): 8 bytes of state per parameter
  F16Mirror,     // FP32 plus the fused f16 copy of w (adamw_update_f16, needs shader-f16)
  Float8Blocks,  // 8-bit m, v (adamw_8bit_update[_vec4]): 2 + 8/256 bytes of state per parameter
};
enum class NormMode { Atomic, Deterministic };
// The kernel of the Float8Blocks update (issue 15). Both give bit-identical w, g, codes and scales (the
// same f32 expressions in the same order, the same integer requantization; tested):
//   Vec4 (default): adamw_8bit_update_vec4 (optimizer_native.wgsl, ours): 64 invocations per
//       256-element block, 4 elements each (vec4 w/g, whole packed code words), a 64 -> 8 -> 1
//       block max (2 barriers), per-block constants once per invocation; w and g are bound
//       rounded up to whole vec4s (the layout's padding: read, never written).
//   Seed: the seed's adamw_8bit_update (12_optimizer.wgsl): one element per invocation, an
//       8-level workgroup tree for the block max, a workgroup pass to pack the codes.
// Why the default (wgsl_ports/optimizer/README.md, "The 8-bit update"): the seed kernel ran at
// 38-46% of the copy roofline on an H200, limited by its barriers and per-element work, not bytes.
enum class Int8Update { Seed, Vec4 };
enum class UpdateMode { MultiTensor, PerTensor };

std::string_view precision_name(StatePrecision p);  // "fp32", "f16_mirror", "int8"

struct ParamSpec {
  std::string name;
  std::vector<uint64_t> shape;  // elements = product (an empty shape is a scalar)
  bool decay = true;            // false: norms, biases (no weight decay)
};

struct AdamWOptions {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
  // Global gradient-norm clipping; nullopt turns it off (the kernel then gets 1e30, so
  // clipScale = min(1, 1e30 / norm) = 1 exactly, with no infinity in the shader).
  std::optional<float> max_grad_norm = 1.0f;
  StatePrecision precision = StatePrecision::FP32;
  NormMode norm = NormMode::Deterministic;  // faster and reproducible (see above)
  Int8Update int8_update =
      Int8Update::Vec4;  // StatePrecision::Float8Blocks only; same bits either way
  UpdateMode mode = UpdateMode::MultiTensor;
  // Upper bound on one binding, below the device's maxStorageBufferBindingSize (0: the device's).
  uint64_t max_binding_bytes = 0;
  // Workgroups of the gradient-norm reduce per chunk of g (0: default_norm_workgroups, derived
  // from the chunk's element count). Atomic: how many CAS-adds land on the one accumulator;
  // Deterministic: the number of partial sums, i.e. the shape of the fixed summation tree.
  // Either way clamped to [1, ceil(n/256)]; at most 2^20.
  uint32_t norm_workgroups = 0;
};

// What the constructor (and load(), for a checkpoint's values) accepts: lr finite >= 0, beta1 and
// beta2 in [0, 1), eps finite > 0, weight_decay finite >= 0, max_grad_norm finite > 0 or nullopt.
// Throws ValidationError("value") naming `who`, the field and the value.
void check_adamw_options(const AdamWOptions& o, const std::string& who);

// The default norm launch for a chunk of n elements (see adamw.cpp for the measurements):
//   Atomic:        ceil(sqrt(ceil(n/256))), at most 1024 -- each CAS-add costs a fixed slot in
//                  a serialized chain, each workgroup reads at a bounded rate: the sum of both
//                  is smallest near sqrt(n/256).
//   Deterministic: ceil(n / 1024) partials (4 elements per thread), at most 1024 -- no CAS
//                  chain: about one resident wave on an H200; the finalize's one workgroup
//                  reads them all (measured best or within 0.5% from 1M to 128M).
// A function of n only (never of the device), so the deterministic sum's shape is fixed.
uint32_t default_norm_workgroups(NormMode mode, uint64_t n);

struct ParamEntry {
  std::string name;
  std::vector<uint64_t> shape;
  bool decay = true;
  uint64_t offset = 0;  // first element in the mega-buffers
  uint64_t count = 0;   // elements
};

struct Layout {
  uint32_t alignment = 0;  // bytes, the device's storage offset alignment
  uint64_t unit = 0;       // elements: every tensor and block starts at a multiple of this
  uint64_t decay_begin = 0, decay_end = 0;  // elements [begin, end), end = last tensor's end
  uint64_t no_decay_begin = 0, no_decay_end = 0;
  uint64_t total = 0;              // elements per f32 role buffer (a multiple of unit)
  uint64_t chunk = 0;              // elements per dispatch at most (a multiple of unit)
  std::vector<ParamEntry> params;  // decay ones first, each group in registration order
};
// The layout alone (no device): what the constructor uses. `caller` prefixes error messages
// ("MultiTensorAdamW", "MultiTensorAdafactor": the layout is shared).
Layout make_layout(std::span<const ParamSpec> params, StatePrecision precision, uint32_t alignment,
                   uint64_t max_binding_bytes, std::string_view caller = "MultiTensorAdamW");

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MultiTensorAdamW {
 public:
  MultiTensorAdamW(Device& device, std::vector<ParamSpec> params, AdamWOptions options = {});

  const Layout& layout() const { return layout_; }
  const AdamWOptions& options() const { return opt_; }
  uint64_t step_count() const { return t_; }
  // Changes take effect from the next step (the uniform slots are rewritten then).
  void set_lr(float lr);

  // The mega-buffers (Storage | CopySrc | CopyDst). m/v exist for FP32 and F16Mirror, w16 for
  // F16Mirror, the packed codes and scales for Float8Blocks. grad_stats holds [gradNorm, clipScale] of
  // the last step.
  const Buffer& w() const { return w_; }
  const Buffer& g() const { return g_; }
  const Buffer& m() const { return m_; }
  const Buffer& v() const { return v_; }
  const Buffer& w16() const { return w16_; }
  const Buffer& m_packed() const { return mq_; }
  const Buffer& v_packed() const { return vq_; }
  const Buffer& m_scale() const { return ms_; }
  const Buffer& v_scale() const { return vs_; }
  const Buffer& grad_stats() const { return stats_; }

  const ParamEntry& param(std::string_view name) const;  // throws naming the known ones

  // Host access by parameter (queue writes; reads wait for the queue).
  void set_weights(std::string_view name, std::span<const float> values);  // also the f16 mirror
  void set_grads(std::string_view name, std::span<const float> values);
  std::vector<float> read_weights(std::string_view name);
  std::vector<float> read_grads(std::string_view name);
  std::vector<float> read_m(
      std::string_view name);  // FP32/F16Mirror: f32; Float8Blocks: dequantized
  std::vector<float> read_v(std::string_view name);
  std::vector<uint16_t> read_w16(std::string_view name);  // F16Mirror only
  float read_grad_norm();
  float read_clip_scale();

  // One optimizer step: record_step into a new encoder and submit. Does not wait.
  void step();
  // Records step t+1 into `encoder` (one compute pass) and advances t. The step's uniforms
  // (beta^t) are written through the queue now, so submit the encoder before the next
  // record_step (two steps recorded into one encoder both use the later step's uniforms: fine for
  // timing, wrong for training). `timestamps`: written at the pass's beginning and end.
  void record_step(CommandEncoder& encoder,
                   const std::optional<PassTimestampWrites>& timestamps = std::nullopt);
  // The same, with timestamps between the phases (ComputePass::write_timestamp, a native
  // extension): query_set[base + 0..4] = pass beginning, after reduce, after finalize, after the
  // decay-block updates, after the no-decay updates (pass end). An empty block gives a zero-length
  // phase. Throws ValidationError ("value") when the set holds fewer than base + 5 queries.
  static constexpr uint32_t kStepTimestamps = 5;
  void record_step(CommandEncoder& encoder, const QuerySet& query_set, uint32_t base);

  // Dispatches per phase of record_step (for profile tables) and the norm's workgroups per chunk.
  struct PhaseDispatches {
    uint32_t reduce = 0, finalize = 0, update_decay = 0, update_no_decay = 0;
  };
  PhaseDispatches phase_dispatches() const { return phases_; }
  const std::vector<uint32_t>& norm_workgroups() const { return norm_wgs_; }

  // Bytes of optimizer state per parameter (m and v, or codes and scales), padding excluded.
  double state_bytes_per_param() const;

  // Safetensors checkpoint: per parameter "<name>" (F32 weights), "<name>.exp_avg" and
  // "<name>.exp_avg_sq" (F32), or for Float8Blocks "<name>.exp_avg.q8" / "<name>.exp_avg_sq.q8" (U8
  // codes) and "<name>.exp_avg.scale" / "<name>.exp_avg_sq.scale" (F32 per 256-element block);
  // __metadata__ holds the step, the hyperparameters, the precision, the 8-bit scheme and a CRC-32
  // of the whole file (header and data), all as strings. load() checks everything before changing
  // anything (a regular file of the expected size, JSON depth and duplicate keys, the CRC, the
  // hyperparameters against check_adamw_options, step <= 2^53, names, dtypes, shapes, offsets, the
  // precision); on success it replaces w, the state, t and the hyperparameters, rebuilds the f16
  // mirror and zeroes g. The code and the format's rules: checkpoint.{hpp,cpp}.
  void save(const std::string& path);
  void load(const std::string& path);

 private:
  void build_dispatches();
  void record(CommandEncoder& encoder, const std::optional<PassTimestampWrites>& timestamps,
              const QuerySet* phases, uint32_t base);
  void write_uniforms();
  void write_role(const Buffer& b, uint64_t byte_offset, const void* data, uint64_t bytes);
  void write_mirror(const ParamEntry& p, std::span<const float> values);  // w16 from f32 weights
  // m or v of one parameter: the f32 role, or for Float8Blocks its codes decoded with the block scales
  std::vector<float> read_state(std::string_view name, const Buffer& f32, const Buffer& codes,
                                const Buffer& scales, float (*decode)(uint32_t, float));
  std::vector<uint8_t> read_bytes(const Buffer& b, uint64_t byte_offset, uint64_t bytes);

  Device device_;
  AdamWOptions opt_;
  Layout layout_;
  uint64_t t_ = 0;
  uint32_t uslot_ = 256;  // uniform slot stride
  Buffer w_, g_, m_, v_, w16_, mq_, vq_, ms_, vs_, stats_, acc_, partials_, uniforms_;
  std::vector<uint32_t> norm_wgs_;  // reduce workgroups (= partial slots) per chunk
  PhaseDispatches phases_;
  std::vector<Dispatch> norm_, update_;  // norm_: reduces then the finalize; update_: decay first
};

// ---- one-call AdamW (the popcornAdamW_f32 specification) ----------------------------------------
// popcornAdamW_f32's contract on wgslvk buffers: param, m, v updated in place, grad read-only, no
// clipping, no finite guard, bias corrections from the caller (bc1 = 1 - beta1^t,
// bc2 = 1 - beta2^t). Elements [0, n) of each buffer; records one dispatch per chunk of at most
// maxStorageBufferBindingSize bytes and submits them (does not wait). Throws ValidationError
// ("value") for n beyond a buffer, a non-positive or non-finite bias correction, or buffers that
// alias.
void adamw_one_call(Device& device, const Buffer& param, const Buffer& grad, const Buffer& m,
                    const Buffer& v, float lr, float beta1, float beta2, float epsilon,
                    float weight_decay, float bias_correction1, float bias_correction2, uint64_t n);

}  // namespace wgslvk::optimizer
