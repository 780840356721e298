// Host API of the embedding kernels (shared/seeds/001_dd8b91b13902cd4b.txt) on the wgslvk
// runtime: embed_lookup, embed_lookup_w16 and embed_backward in three variants.
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
#include "wgslvk/runtime.hpp"

namespace wgslvk::embedding {

enum class BackwardVariant {
  cas,            // the seed's embed_backward: f32 add by a CAS loop on atomic<u32> (default)
  float_atomics,  // embed_backward_atomic_float: native atomicAdd, needs Feature::FloatAtomics
  deterministic,  // embed_backward_deterministic: bitwise identical from run to run
};
std::string_view variant_name(BackwardVariant v);     // "cas", "float_atomics", "deterministic"
std::string_view variant_kernel(BackwardVariant v);   // "embedding/embed_backward", ...

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
  explicit Embedding(Device device);

  // out[s*d_model + d] = table[tokens[s]*d_model + d], 0.0 where tokens[s] >= vocab_size.
  // table: f32 [vocab_size x d_model]; out: f32 [seq_len x d_model] (buffers at least that large;
  // both bound from offset 0). tokens: seq_len ids.
  OovReport lookup(std::span<const uint32_t> tokens, const Buffer& table, const Buffer& out,
                   Dims dims);
  OovReport lookup(const Buffer& tokens, const Buffer& table, const Buffer& out, Dims dims);

  // The same with the table in f16 storage (2 B per element). Needs Feature::ShaderF16.
  OovReport lookup_w16(std::span<const uint32_t> tokens, const Buffer& table_w16,
                       const Buffer& out, Dims dims);
  OovReport lookup_w16(const Buffer& tokens, const Buffer& table_w16, const Buffer& out,
                       Dims dims);

  // grad_table[tokens[s]*d_model + d] += grad_out[s*d_model + d] over in-vocabulary positions,
  // skipping zero and non-finite gradients. grad_table is accumulated into (zero it first for a
  // fresh gradient). Bounds against ref::backward: see reference.hpp.
  OovReport backward(std::span<const uint32_t> tokens, const Buffer& grad_out,
                     const Buffer& grad_table, Dims dims,
                     BackwardVariant variant = BackwardVariant::cas);
  OovReport backward(const Buffer& tokens, const Buffer& grad_out, const Buffer& grad_table,
                     Dims dims, BackwardVariant variant = BackwardVariant::cas);

  // The record forms (see above); `timestamps`: written at the pass's beginning and end.
  OovReport record_lookup(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                          const Buffer& table, const Buffer& out, Dims dims,
                          const std::optional<PassTimestampWrites>& timestamps = std::nullopt);
  OovReport record_lookup_w16(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                              const Buffer& table_w16, const Buffer& out, Dims dims,
                              const std::optional<PassTimestampWrites>& timestamps = std::nullopt);
  OovReport record_backward(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                            const Buffer& grad_out, const Buffer& grad_table, Dims dims,
                            BackwardVariant variant = BackwardVariant::cas,
                            const std::optional<PassTimestampWrites>& timestamps = std::nullopt);

  Device& device() { return device_; }

 private:
  struct Call;
  // Where a call's dispatch goes: the caller's encoder (record_*), or none (submit and wait).
  struct Recording {
    CommandEncoder* encoder = nullptr;
    std::optional<PassTimestampWrites> timestamps;
  };
  ComputePipeline& pipeline(std::string_view kernel);
  OovReport run_lookup(std::string_view kernel, std::span<const uint32_t> tokens,
                       const Buffer* token_buffer, const Buffer& table, const Buffer& out,
                       Dims dims, uint32_t table_elem_bytes, const Recording& rec);
  OovReport run_backward(std::span<const uint32_t> tokens, const Buffer* token_buffer,
                         const Buffer& grad_out, const Buffer& grad_table, Dims dims,
                         BackwardVariant variant, const Recording& rec);
  std::vector<uint32_t> read_tokens(std::string_view kernel, const Buffer& tokens, Dims dims);

  Device device_;
  std::map<std::string, ComputePipeline, std::less<>> pipelines_;
};

}  // namespace wgslvk::embedding
