// Host API of the embedding kernels (the llm.istanbul study of 01_embedding.wgsl) on the wgslvk
// runtime: embed_lookup, embed_lookup_w16 and embed_backward in three variants (the
// deterministic one by two kernels, see "Deterministic backward kernels" below).
//
// Every call validates its inputs before any GPU work and throws wgslvk::ValidationError naming
// the kernel, the binding and the values: rule "shape" (dims or a buffer that does not fit them),
// "limits" (a binding larger than maxStorageBufferBindingSize, or an index past u32), "feature"
// (a device without shader-f16 for any kernel of 01_embedding.wgsl, whose `enable f16;` is
// module-wide as in a browser: only the deterministic backward runs without it; the float-atomic
// variant without float32-atomic-add).
//
// Out-of-vocabulary token ids: the kernels keep the seed's behaviour (lookup writes zeros, the
// backward skips the position). The seed's review (Finding 1) notes the silent zero-fill hides
// where corrupt input occurred, so every call also returns an OovReport: how many positions hold
// an id >= vocab_size, and the first of them. Decision: they are counted on the host. Tokens
// passed as a span are counted while they are uploaded (no GPU work, no extra sync); tokens
// already in a device buffer are read back once for the count (one copy of 4 B per token and a
// wait), which the deterministic backward needs anyway to sort positions by token.
//
// Lookup kernels (issue 15). Each lookup runs either the seed's port (embed_lookup /
// embed_lookup_w16: one invocation per output element) or our row-wise kernel
// (embed_lookup_rows / embed_lookup_w16_rows, embedding_native.wgsl: 16 B loads and stores, one
// token read per row, the f16 table as packed u32 pairs so no "shader-f16" needed). Both give the
// same output bit for bit. LookupPath::automatic (the default) takes the native kernel whenever
// its precondition holds, d_model % 4 == 0 (every GPT shape), and the port otherwise;
// LookupPath::port always takes the port; LookupPath::native refuses a d_model that is not a
// multiple of 4 (ValidationError "shape", naming dims.y and its value). Decision: automatic is the
// default because the outputs are identical and the native kernel is the faster one; the port
// stays selectable (and is what the goldens of embed_lookup / embed_lookup_w16 pin). Errors name
// the kernel the call would have run.
//
// lookup / lookup_w16 / backward record one dispatch, submit it and wait for it, so the results
// are visible to the next read_buffer. record_lookup / record_lookup_w16 / record_backward (like
// optimizer::MultiTensorAdamW::record_step) make the same checks, return the same OovReport and
// record the same dispatch as one compute pass into the caller's encoder instead, submitting and
// waiting for nothing: the synchronous calls are these plus a submit and a wait. The per-call
// buffers (tokens given on the host, the dims uniform, the deterministic variant's order and
// segments) are written through the queue at record time and kept alive by the recorded pass, so
// the caller may submit the encoder whenever it likes. Their tokens are host spans: tokens already
// in a device buffer need a read-back (a wait) to be counted, which a record call does not make.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference.hpp"  // Dims
#include "wgslvk/bind.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::embedding {

// Deterministic backward kernels (issue 15). embed_backward_deterministic (one invocation per
// table element) and embed_backward_rows (embedding_native.wgsl: a workgroup per segment, vec4
// rows, no atomics) take the same host-sorted segments and give the same result bit for bit: the
// sequential f32 sum in position order. Decision: BackwardVariant::Deterministic picks the kernel
// as LookupPath::automatic does: embed_backward_rows whenever d_model % 4 == 0 (every GPT shape),
// embed_backward_deterministic otherwise. The result does not depend on the choice, so the caller
// asking for "deterministic" gets the faster launch without asking; DeterministicRows and
// DeterministicPerElement pin one kernel (benchmarks, tests; DeterministicRows refuses a d_model
// that is not a multiple of 4 with a "shape" error naming dims.y).
enum class BackwardVariant {
  Cas,                // the seed's embed_backward: f32 add by a CAS loop on atomic<u32> (default)
  FloatAtomics,       // embed_backward_atomic_float: native atomicAdd, needs Float32AtomicAdd
  Deterministic,      // bitwise identical from run to run: rows when d_model % 4 == 0, else
                      // per element (see above)
  DeterministicRows,  // always embed_backward_rows; refuses d_model % 4 != 0
  DeterministicPerElement,  // always embed_backward_deterministic
};
// "cas", "float_atomics", "deterministic", "deterministic_rows", "deterministic_per_element"
std::string_view variant_name(BackwardVariant v);
// Whether v is one of the deterministic variants (exact vs ref::backward_sequential_f32).
bool is_deterministic(BackwardVariant v);
// The kernel ("embedding/embed_backward", ...) a backward with this variant and d_model runs; for
// DeterministicRows with d_model % 4 != 0 the rows kernel's name (the call itself is refused).
std::string_view variant_kernel(BackwardVariant v, uint32_t d_model);

// embed_backward_rows' launch: 64 invocations per workgroup serving
// lookup_rows_per_workgroup(d_model) segments (the lookups' lanes rule) and one chunk of up to
// 256 vec4 of a row; ceil(d_model / 1024) chunks per segment. Workgroups: ceil(n_segments /
// segments per workgroup) x chunks, laid out by grid_for_workgroups (2-D above 65535).
uint64_t backward_rows_workgroups(uint32_t n_segments, uint32_t d_model);

enum class LookupPath {
  automatic,  // native when d_model % 4 == 0, else the port (default)
  port,       // embed_lookup / embed_lookup_w16 (the seed's kernels; need "shader-f16")
  native,     // embed_lookup_rows / embed_lookup_w16_rows; refuses d_model % 4 != 0
};
std::string_view lookup_path_name(LookupPath p);  // "automatic", "port", "native"

// The native lookups' launch (embedding_native.wgsl): kLookupRowsWG invocations per workgroup,
// rows_per_wg = dims.w rows per workgroup: 64 / (the smallest power of two >= d_model / 4, at
// most 64), so 1 for d_model >= 256 - every GPT shape - and up to 64 for d_model = 4. d_model must
// be a multiple of 4 (checked by the callers). Workgroups: ceil(seq_len / rows_per_wg), laid out
// by grid_for_workgroups (2-D above 65535).
inline constexpr uint32_t kLookupRowsWG = 64;
uint32_t lookup_rows_per_workgroup(uint32_t d_model);
uint64_t lookup_rows_workgroups(uint32_t seq_len, uint32_t d_model);

struct OovReport {
  static constexpr size_t kMaxListed = 16;
  uint64_t count = 0;               // positions s with tokens[s] >= vocab_size
  std::vector<uint32_t> positions;  // the first min(count, kMaxListed) of them, ascending
  std::vector<uint32_t> ids;        // their token ids
  uint32_t vocab_size = 0;
  bool ok() const { return count == 0; }
  // "2 out-of-vocabulary token ids (vocab_size 1000): position 3 id 1000, position 9 id 4294967295"
  std::string message() const;
};
// Counts ids >= vocab_size (what every call below reports).
OovReport count_oov(std::span<const uint32_t> tokens, uint32_t vocab_size);

class Embedding {
 public:
  explicit Embedding(Device device, LookupPath lookup_path = LookupPath::automatic);

  // Which lookup kernels the calls below run (see "Lookup kernels" above).
  void set_lookup_path(LookupPath p) { lookup_path_ = p; }
  LookupPath lookup_path() const { return lookup_path_; }
  // The kernel ("embedding/embed_lookup_rows", ...) a lookup (w16: lookup_w16) with `dims` runs
  // under the current path; for LookupPath::native with d_model % 4 != 0 the native kernel's name
  // (the call itself is refused).
  std::string_view lookup_kernel(Dims dims, bool w16) const;

  // out[s*d_model + d] = table[tokens[s]*d_model + d], 0.0 where tokens[s] >= vocab_size.
  // table: f32 [vocab_size x d_model]; out: f32 [seq_len x d_model] (buffers at least that large;
  // both bound from offset 0). tokens: seq_len ids.
  OovReport lookup(std::span<const uint32_t> tokens, const Buffer& table, const Buffer& out,
                   Dims dims);
  OovReport lookup(const Buffer& tokens, const Buffer& table, const Buffer& out, Dims dims);

  // The same with the table in f16 storage (2 B per element). Needs Feature::ShaderF16.
  OovReport lookup_w16(std::span<const uint32_t> tokens, const Buffer& table_w16, const Buffer& out,
                       Dims dims);
  OovReport lookup_w16(const Buffer& tokens, const Buffer& table_w16, const Buffer& out, Dims dims);

  // grad_table[tokens[s]*d_model + d] += grad_out[s*d_model + d] over in-vocabulary positions,
  // skipping zero and non-finite gradients. grad_table is accumulated into (zero it first for a
  // fresh gradient). Bounds against ref::backward: see reference.hpp.
  OovReport backward(std::span<const uint32_t> tokens, const Buffer& grad_out,
                     const Buffer& grad_table, Dims dims,
                     BackwardVariant variant = BackwardVariant::Cas);
  OovReport backward(const Buffer& tokens, const Buffer& grad_out, const Buffer& grad_table,
                     Dims dims, BackwardVariant variant = BackwardVariant::Cas);

  // The record forms (see above); `timestamps`: written at the pass's beginning and end.
  OovReport record_lookup(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                          const Buffer& table, const Buffer& out, Dims dims,
                          const std::optional<PassTimestampWrites>& timestamps = std::nullopt);
  OovReport record_lookup_w16(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                              const Buffer& table_w16, const Buffer& out, Dims dims,
                              const std::optional<PassTimestampWrites>& timestamps = std::nullopt);
  OovReport record_backward(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                            const Buffer& grad_out, const Buffer& grad_table, Dims dims,
                            BackwardVariant variant = BackwardVariant::Cas,
                            const std::optional<PassTimestampWrites>& timestamps = std::nullopt);

  Device& device() { return device_; }

 private:
  struct Call;
  // Where a call's dispatch goes: the caller's encoder (record_*), or none (submit and wait).
  struct Recording {
    CommandEncoder* encoder = nullptr;
    std::optional<PassTimestampWrites> timestamps;
  };
  const ComputePipeline& pipeline(std::string_view kernel);
  OovReport run_lookup(bool w16, std::span<const uint32_t> tokens, const Buffer* token_buffer,
                       const Buffer& table, const Buffer& out, Dims dims, const Recording& rec);
  OovReport run_backward(std::span<const uint32_t> tokens, const Buffer* token_buffer,
                         const Buffer& grad_out, const Buffer& grad_table, Dims dims,
                         BackwardVariant variant, const Recording& rec);
  std::vector<uint32_t> read_tokens(std::string_view kernel, const Buffer& tokens, Dims dims);

  Device device_;
  LookupPath lookup_path_ = LookupPath::automatic;
  PipelineCache pipelines_;
};

}  // namespace wgslvk::embedding
