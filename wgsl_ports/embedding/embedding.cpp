#include "embedding.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <type_traits>

#include "wgslvk/kernels/embedding/embed_backward.hpp"
#include "wgslvk/kernels/embedding/embed_backward_atomic_float.hpp"
#include "wgslvk/kernels/embedding/embed_backward_deterministic.hpp"
#include "wgslvk/kernels/embedding/embed_backward_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16_rows.hpp"

namespace wgslvk::embedding {
namespace {

// The kernels, by their generated headers (wgslvk/kernels/embedding/<entry>.hpp).
namespace ke = wgslvk::kernels::embedding;
constexpr std::string_view kLookup = ke::embed_lookup::name;
constexpr std::string_view kLookupW16 = ke::embed_lookup_w16::name;
constexpr std::string_view kBackward = ke::embed_backward::name;
constexpr std::string_view kBackwardFloat = ke::embed_backward_atomic_float::name;
constexpr std::string_view kBackwardDet = ke::embed_backward_deterministic::name;
constexpr std::string_view kLookupRows = ke::embed_lookup_rows::name;
constexpr std::string_view kLookupW16Rows = ke::embed_lookup_w16_rows::name;
constexpr std::string_view kBackwardRows = ke::embed_backward_rows::name;
// @workgroup_size(256) of every embedding kernel but the *_rows ones.
constexpr uint32_t kWG = uint32_t(ke::embed_lookup::Kernel::workgroup_threads);
static_assert(ke::embed_lookup_w16::Kernel::workgroup_threads == kWG &&
              ke::embed_backward::Kernel::workgroup_threads == kWG &&
              ke::embed_backward_atomic_float::Kernel::workgroup_threads == kWG &&
              ke::embed_backward_deterministic::Kernel::workgroup_threads == kWG);
static_assert(ke::embed_lookup_rows::Kernel::workgroup_threads == kLookupRowsWG &&
              ke::embed_lookup_w16_rows::Kernel::workgroup_threads == kLookupRowsWG &&
              ke::embed_backward_rows::Kernel::workgroup_threads == kLookupRowsWG);

// One call binds whichever variant it runs at the same numbers: the lookups' and the backwards'
// slots, from their headers, checked here to agree (a kernel that moved one would not compile).
namespace lk = ke::embed_lookup::binding;
namespace bk = ke::embed_backward_deterministic::binding;
constexpr uint32_t kTokens = lk::tokens.binding, kTable = lk::table.binding, kOut = lk::out.binding,
                   kDims = lk::dims.binding;
constexpr uint32_t kGradOut = bk::grad_out.binding, kGradTable = bk::grad_table.binding,
                   kOrder = bk::order.binding, kSegStart = bk::seg_start.binding;
static_assert(ke::embed_lookup_w16::binding::tokens_w16.binding == kTokens &&
              ke::embed_lookup_w16::binding::table_w16.binding == kTable &&
              ke::embed_lookup_w16::binding::out_w16.binding == kOut &&
              ke::embed_lookup_w16::binding::dims_w16.binding == kDims);
static_assert(ke::embed_lookup_rows::binding::tokens.binding == kTokens &&
              ke::embed_lookup_rows::binding::table.binding == kTable &&
              ke::embed_lookup_rows::binding::out.binding == kOut &&
              ke::embed_lookup_rows::binding::dims.binding == kDims);
static_assert(ke::embed_lookup_w16_rows::binding::tokens.binding == kTokens &&
              ke::embed_lookup_w16_rows::binding::table_w16.binding == kTable &&
              ke::embed_lookup_w16_rows::binding::out_w16.binding == kOut &&
              ke::embed_lookup_w16_rows::binding::dims.binding == kDims);
static_assert(bk::tokens.binding == kTokens && bk::dims.binding == kDims);
static_assert(ke::embed_backward::binding::tokens.binding == kTokens &&
              ke::embed_backward::binding::grad_out.binding == kGradOut &&
              ke::embed_backward::binding::grad_table.binding == kGradTable &&
              ke::embed_backward::binding::dims.binding == kDims);
static_assert(ke::embed_backward_atomic_float::binding::tokens.binding == kTokens &&
              ke::embed_backward_atomic_float::binding::grad_out.binding == kGradOut &&
              ke::embed_backward_atomic_float::binding::grad_table.binding == kGradTable &&
              ke::embed_backward_atomic_float::binding::dims.binding == kDims);
static_assert(ke::embed_backward_rows::binding::tokens.binding == kTokens &&
              ke::embed_backward_rows::binding::grad_out4.binding == kGradOut &&
              ke::embed_backward_rows::binding::grad_table4.binding == kGradTable &&
              ke::embed_backward_rows::binding::dims.binding == kDims &&
              ke::embed_backward_rows::binding::order.binding == kOrder &&
              ke::embed_backward_rows::binding::seg_start.binding == kSegStart);
// The dims uniform: vec4<u32> in every kernel's header.
using DimsU = std::array<uint32_t, 4>;
static_assert(std::is_same_v<std::remove_cvref_t<decltype(lk::dims)>::value_type, DimsU>);

std::string s(uint64_t v) { return std::to_string(v); }

[[noreturn]] void fail(const char* rule, std::string_view kernel, const std::string& what) {
  throw ValidationError(rule, std::string(kernel) + ": " + what);
}

std::string buffer_name(const Buffer& b) {
  return b.label().empty() ? std::string("(unlabeled buffer)") : "'" + b.label() + "'";
}

// Shapes every kernel shares: d_model and vocab_size non-zero, the tokens count.
void check_dims(std::string_view kernel, Dims dims) {
  if (dims.d_model == 0) fail("shape", kernel, "dims.y (d_model) is 0");
  if (dims.vocab_size == 0) fail("shape", kernel, "dims.z (vocab_size) is 0");
}

void check_token_count(std::string_view kernel, size_t n, Dims dims) {
  if (n != dims.seq_len)
    fail("shape", kernel,
         "binding 0 `tokens` holds " + s(n) + " ids but dims.x (seq_len) is " + s(dims.seq_len));
}

// A storage binding of `elems` x `elem_bytes` from offset 0 of `buf`: within the device's
// maxStorageBufferBindingSize, indexable in u32 (the kernels' index type), inside the buffer.
// Returns the bound size (a multiple of 4, R4).
uint64_t check_binding(Device& dev, std::string_view kernel, uint32_t binding,
                       std::string_view name, const Buffer& buf, uint64_t elems,
                       uint32_t elem_bytes, const std::string& shape) {
  const uint64_t bytes = elems * elem_bytes;
  const uint64_t bound = align_up(bytes, 4);
  const uint64_t limit = dev.limits().max_storage_buffer_binding_size;
  const std::string what = "binding " + s(binding) + " `" + std::string(name) + "` (" + shape +
                           " x " + s(elem_bytes) + " B = " + s(bytes) + " bytes)";
  if (bound > limit)
    fail("limits", kernel,
         what + " is larger than maxStorageBufferBindingSize " + s(limit) +
             " of this device: one binding cannot hold it");
  if (elems > UINT32_MAX)
    fail("limits", kernel, what + " has more than 2^32 - 1 elements; the kernel indexes in u32");
  if (!buf) fail("shape", kernel, what + ": no buffer given");
  if (buf.size() < bound)
    fail("shape", kernel,
         what + " does not fit buffer " + buffer_name(buf) + " of " + s(buf.size()) + " bytes");
  return bound;
}

}  // namespace

std::string_view variant_name(BackwardVariant v) {
  switch (v) {
    case BackwardVariant::Cas:
      return "cas";
    case BackwardVariant::FloatAtomics:
      return "float_atomics";
    case BackwardVariant::Deterministic:
      return "deterministic";
    case BackwardVariant::DeterministicRows:
      return "deterministic_rows";
    case BackwardVariant::DeterministicPerElement:
      return "deterministic_per_element";
  }
  return "?";
}

bool is_deterministic(BackwardVariant v) {
  return v == BackwardVariant::Deterministic || v == BackwardVariant::DeterministicRows ||
         v == BackwardVariant::DeterministicPerElement;
}

std::string_view variant_kernel(BackwardVariant v, uint32_t d_model) {
  switch (v) {
    case BackwardVariant::Cas:
      return kBackward;
    case BackwardVariant::FloatAtomics:
      return kBackwardFloat;
    case BackwardVariant::Deterministic:  // decision: embedding.hpp, "Deterministic backward"
      return d_model % 4 == 0 ? kBackwardRows : kBackwardDet;
    case BackwardVariant::DeterministicRows:
      return kBackwardRows;
    case BackwardVariant::DeterministicPerElement:
      return kBackwardDet;
  }
  return kBackward;
}

std::string_view lookup_path_name(LookupPath p) {
  switch (p) {
    case LookupPath::automatic:
      return "automatic";
    case LookupPath::port:
      return "port";
    case LookupPath::native:
      return "native";
  }
  return "?";
}

uint32_t lookup_rows_per_workgroup(uint32_t d_model) {
  const uint32_t d4 = d_model / 4;
  uint32_t lanes = 1;
  while (lanes < d4 && lanes < kLookupRowsWG) lanes *= 2;
  return kLookupRowsWG / lanes;
}

uint64_t lookup_rows_workgroups(uint32_t seq_len, uint32_t d_model) {
  return div_ceil(uint64_t(seq_len), lookup_rows_per_workgroup(d_model));
}

uint64_t backward_rows_workgroups(uint32_t n_segments, uint32_t d_model) {
  const uint32_t per_wg = lookup_rows_per_workgroup(d_model);   // segments per workgroup
  const uint64_t chunk = uint64_t(kLookupRowsWG / per_wg) * 4;  // vec4 columns per workgroup
  return div_ceil(uint64_t(n_segments), per_wg) * div_ceil(uint64_t(d_model / 4), chunk);
}

std::string OovReport::message() const {
  if (count == 0) return "no out-of-vocabulary token ids";
  std::string m = s(count) + " out-of-vocabulary token id" + (count == 1 ? "" : "s") +
                  " (vocab_size " + s(vocab_size) + "):";
  for (size_t k = 0; k < positions.size(); ++k)
    m += std::string(k ? "," : "") + " position " + s(positions[k]) + " id " + s(ids[k]);
  if (count > positions.size()) m += ", ...";
  return m;
}

OovReport count_oov(std::span<const uint32_t> tokens, uint32_t vocab_size) {
  OovReport r;
  r.vocab_size = vocab_size;
  for (size_t p = 0; p < tokens.size(); ++p) {
    if (tokens[p] < vocab_size) continue;
    if (r.positions.size() < OovReport::kMaxListed) {
      r.positions.push_back(uint32_t(p));
      r.ids.push_back(tokens[p]);
    }
    ++r.count;
  }
  return r;
}

// ---- one dispatch -------------------------------------------------------------------------------

// The per-call buffers (tokens when given on the host, dims, the deterministic variant's order
// and segments) and the dispatch itself.
struct Embedding::Call {
  Device& dev;
  std::string_view kernel;
  std::vector<BindGroupEntry> entries;

  Buffer make(const std::string& what, BufferUsage usage, const void* data, uint64_t bytes) {
    Buffer b = dev.create_buffer(
        {std::string(kernel) + " " + what, align_up(bytes, 4), usage | BufferUsage::CopyDst});
    dev.queue().write_buffer(b, 0, data, bytes);
    return b;
  }
  void bind(uint32_t binding, const Buffer& b, uint64_t size) {
    entries.push_back({binding, b, 0, size});
  }
  void bind_u32s(uint32_t binding, const std::string& what, std::span<const uint32_t> v) {
    bind(binding, make(what, BufferUsage::Storage, v.data(), v.size_bytes()), v.size_bytes());
  }
  void bind_dims(DimsU dims) {  // vec4<u32> uniform, 16 bytes (R21)
    bind(kDims, make("dims", BufferUsage::Uniform, dims.data(), sizeof dims), sizeof dims);
  }
  // Records the dispatch as one compute pass into `encoder` (the recorded pass retains the
  // bind group and so the per-call buffers), or, without one, submits it and waits.
  void dispatch(const ComputePipeline& pipeline, uint64_t workgroups, CommandEncoder* encoder,
                const std::optional<PassTimestampWrites>& timestamps) {
    BindGroup group = dev.create_bind_group(
        {std::string(kernel) + " group 0", pipeline.get_bind_group_layout(0), entries});
    Grid grid = grid_for_workgroups(workgroups, dev.limits());
    CommandEncoder own;
    if (!encoder) own = dev.create_command_encoder({std::string(kernel)});
    CommandEncoder& enc = encoder ? *encoder : own;
    ComputePass pass = enc.begin_compute_pass({std::string(kernel), timestamps});
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group);
    pass.dispatch_workgroups(grid.x, grid.y);
    pass.end();
    if (encoder) return;
    dev.queue().submit(own.finish());
    dev.wait_idle();
  }
};

Embedding::Embedding(Device device, LookupPath lookup_path)
    : device_(std::move(device)), lookup_path_(lookup_path), pipelines_(device_) {}

std::string_view Embedding::lookup_kernel(Dims dims, bool w16) const {
  const bool native = lookup_path_ == LookupPath::native ||
                      (lookup_path_ == LookupPath::automatic && dims.d_model % 4 == 0);
  if (native) return w16 ? kLookupW16Rows : kLookupRows;
  return w16 ? kLookupW16 : kLookup;
}

const ComputePipeline& Embedding::pipeline(std::string_view name) { return pipelines_.get(name); }

static void require_features(Device& dev, std::string_view name);

// Reads device-held tokens back to count out-of-vocabulary ids; a call refused for its features
// or dims is refused before this read, i.e. before any GPU work.
std::vector<uint32_t> Embedding::read_tokens(std::string_view kernel, const Buffer& tokens,
                                             Dims dims) {
  require_features(device_, kernel);
  check_dims(kernel, dims);
  if (!tokens) fail("shape", kernel, "binding 0 `tokens`: no buffer given");
  const uint64_t want = uint64_t(dims.seq_len) * 4;
  if (tokens.size() != want)
    fail("shape", kernel,
         "binding 0 `tokens` buffer " + buffer_name(tokens) + " is " + s(tokens.size()) +
             " bytes but dims.x (seq_len) " + s(dims.seq_len) + " needs exactly " + s(want) +
             " (4 B per id)");
  if (!has(tokens.usage(), BufferUsage::CopySrc))
    fail("usage", kernel,
         "binding 0 `tokens` buffer " + buffer_name(tokens) +
             " lacks CopySrc usage, needed to count out-of-vocabulary ids on the host");
  return read<uint32_t>(device_, tokens);
}

// Features a kernel needs, checked before any GPU work with the reason spelled out.
// Decision (see 01_embedding.wgsl): the seed keeps embed_lookup_w16 in 01_embedding.wgsl, whose
// `enable f16;` is module-wide, so in a browser a device without "shader-f16" cannot create the
// module at all; the KernelInfo of every kernel declared in that file says so and we refuse them
// all alike. The kernels of embedding_native.wgsl (embed_backward_deterministic, embed_backward_rows
// and the row-wise lookups, which read the f16 table as u32 pairs) run without shader-f16.
static void require_features(Device& dev, std::string_view name) {
  const KernelInfo& k = kernel(name);
  const std::string device = "device '" + dev.adapter_name() + "'";
  if (k.needs_shader_f16 && !dev.has_feature(Feature::ShaderF16)) {
    if (name == kLookupW16)
      fail(
          "feature", name,
          device +
              " was created without \"shader-f16\" (Vulkan shaderFloat16 + "
              "storageBuffer16BitAccess), so binding 1 `table_w16: array<f16>` cannot be read; "
              "request Feature::ShaderF16 if the adapter has it, or use LookupPath::automatic or "
              "native (embed_lookup_w16_rows reads the table as u32 pairs) with d_model a multiple "
              "of 4");
    fail("feature", name,
         device + " was created without \"shader-f16\", and " + std::string(k.wgsl_file) +
             " starts with `enable f16;` (for embed_lookup_w16; WGSL enables are module-wide), "
             "so like a browser we cannot create this module without it; request "
             "Feature::ShaderF16, or use BackwardVariant::Deterministic for the backward and "
             "LookupPath::automatic or native (embedding_native.wgsl) with d_model a multiple "
             "of 4 for the lookups");
  }
  if (k.needs_float_atomics && !dev.has_feature(Feature::Float32AtomicAdd))
    fail("feature", name,
         device +
             " was created without float32-atomic-add (VK_EXT_shader_atomic_float "
             "shaderBufferFloat32AtomicAdd), needed for the native atomicAdd on binding 2 "
             "`grad_table`; use BackwardVariant::cas (the default)");
}

// ---- lookup -------------------------------------------------------------------------------------

OovReport Embedding::run_lookup(bool w16, std::span<const uint32_t> tokens,
                                const Buffer* token_buffer, const Buffer& table, const Buffer& out,
                                Dims dims, const Recording& rec) {
  const std::string_view name = lookup_kernel(dims, w16);
  const bool native = name == kLookupRows || name == kLookupW16Rows;
  require_features(device_, name);
  check_dims(name, dims);
  if (native && dims.d_model % 4 != 0)
    fail("shape", name,
         "dims.y (d_model) is " + s(dims.d_model) +
             ", not a multiple of 4: the row-wise kernel moves whole vec4<f32> (16 B) rows; use "
             "LookupPath::automatic or LookupPath::port, which run the seed's port for this shape");
  check_token_count(name, tokens.size(), dims);
  const uint32_t table_elem_bytes = w16 ? 2 : 4;
  const uint64_t table_bytes =
      check_binding(device_, name, kTable, w16 ? "table_w16" : "table", table,
                    uint64_t(dims.vocab_size) * dims.d_model, table_elem_bytes,
                    "vocab_size " + s(dims.vocab_size) + " x d_model " + s(dims.d_model));
  const uint64_t out_elems = uint64_t(dims.seq_len) * dims.d_model;
  const uint64_t out_bytes =
      check_binding(device_, name, kOut, w16 ? "out_w16" : "out", out, out_elems, 4,
                    "seq_len " + s(dims.seq_len) + " x d_model " + s(dims.d_model));
  OovReport report = count_oov(tokens, dims.vocab_size);
  if (dims.seq_len == 0) return report;  // nothing to dispatch (and no empty binding, R3)

  Call call{device_, name, {}};
  if (token_buffer)
    call.bind(kTokens, *token_buffer, tokens.size_bytes());
  else
    call.bind_u32s(kTokens, "tokens", tokens);
  call.bind(kTable, table, table_bytes);
  call.bind(kOut, out, out_bytes);
  if (native) {
    // Whole vec4 / vec2<u32> elements: with d_model % 4 == 0 both sizes are multiples of 16 / 8.
    call.bind_dims(
        {dims.seq_len, dims.d_model, dims.vocab_size, lookup_rows_per_workgroup(dims.d_model)});
    call.dispatch(pipeline(name), lookup_rows_workgroups(dims.seq_len, dims.d_model), rec.encoder,
                  rec.timestamps);
    return report;
  }
  call.bind_dims({dims.seq_len, dims.d_model, dims.vocab_size, 0});
  call.dispatch(pipeline(name), div_ceil(out_elems, kWG), rec.encoder, rec.timestamps);
  return report;
}

OovReport Embedding::lookup(std::span<const uint32_t> tokens, const Buffer& table,
                            const Buffer& out, Dims dims) {
  return run_lookup(false, tokens, nullptr, table, out, dims, {});
}

OovReport Embedding::lookup(const Buffer& tokens, const Buffer& table, const Buffer& out,
                            Dims dims) {
  auto host = read_tokens(lookup_kernel(dims, false), tokens, dims);
  return run_lookup(false, host, &tokens, table, out, dims, {});
}

OovReport Embedding::lookup_w16(std::span<const uint32_t> tokens, const Buffer& table_w16,
                                const Buffer& out, Dims dims) {
  return run_lookup(true, tokens, nullptr, table_w16, out, dims, {});
}

OovReport Embedding::lookup_w16(const Buffer& tokens, const Buffer& table_w16, const Buffer& out,
                                Dims dims) {
  auto host = read_tokens(lookup_kernel(dims, true), tokens, dims);
  return run_lookup(true, host, &tokens, table_w16, out, dims, {});
}

OovReport Embedding::record_lookup(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                                   const Buffer& table, const Buffer& out, Dims dims,
                                   const std::optional<PassTimestampWrites>& timestamps) {
  return run_lookup(false, tokens, nullptr, table, out, dims, {&encoder, timestamps});
}

OovReport Embedding::record_lookup_w16(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                                       const Buffer& table_w16, const Buffer& out, Dims dims,
                                       const std::optional<PassTimestampWrites>& timestamps) {
  return run_lookup(true, tokens, nullptr, table_w16, out, dims, {&encoder, timestamps});
}

// ---- backward -----------------------------------------------------------------------------------

OovReport Embedding::run_backward(std::span<const uint32_t> tokens, const Buffer* token_buffer,
                                  const Buffer& grad_out, const Buffer& grad_table, Dims dims,
                                  BackwardVariant variant, const Recording& rec) {
  const std::string_view name = variant_kernel(variant, dims.d_model);
  const bool rows = name == kBackwardRows;
  require_features(device_, name);
  check_dims(name, dims);
  if (rows && dims.d_model % 4 != 0)
    fail("shape", name,
         "dims.y (d_model) is " + s(dims.d_model) +
             ", not a multiple of 4: the row-wise kernel moves whole vec4<f32> (16 B) rows; use "
             "BackwardVariant::Deterministic or DeterministicPerElement, which run "
             "embed_backward_deterministic (the same result) for this shape");
  check_token_count(name, tokens.size(), dims);
  const uint64_t grad_elems = uint64_t(dims.seq_len) * dims.d_model;
  const uint64_t grad_bytes =
      check_binding(device_, name, kGradOut, "grad_out", grad_out, grad_elems, 4,
                    "seq_len " + s(dims.seq_len) + " x d_model " + s(dims.d_model));
  const uint64_t table_bytes = check_binding(
      device_, name, kGradTable, "grad_table", grad_table, uint64_t(dims.vocab_size) * dims.d_model,
      4, "vocab_size " + s(dims.vocab_size) + " x d_model " + s(dims.d_model));
  OovReport report = count_oov(tokens, dims.vocab_size);
  if (dims.seq_len == 0) return report;

  Call call{device_, name, {}};
  if (token_buffer)
    call.bind(kTokens, *token_buffer, tokens.size_bytes());
  else
    call.bind_u32s(kTokens, "tokens", tokens);
  call.bind(kGradOut, grad_out, grad_bytes);
  call.bind(kGradTable, grad_table, table_bytes);

  if (!is_deterministic(variant)) {
    call.bind_dims({dims.seq_len, dims.d_model, dims.vocab_size, 0});
    call.dispatch(pipeline(name), div_ceil(grad_elems, kWG), rec.encoder, rec.timestamps);
    return report;
  }

  // Deterministic: in-vocabulary positions stably sorted by token id (so position order within
  // a token), cut into one segment per distinct token.
  const ref::Segments seg = ref::deterministic_segments(tokens, dims.vocab_size);
  if (seg.order.empty()) return report;  // every id out of vocabulary: nothing to add
  const uint32_t n_segments = seg.count();

  call.bind_dims({dims.seq_len, dims.d_model, dims.vocab_size, n_segments});
  call.bind_u32s(kOrder, "order", seg.order);
  call.bind_u32s(kSegStart, "seg_start", seg.seg_start);
  const uint64_t workgroups = rows ? backward_rows_workgroups(n_segments, dims.d_model)
                                   : div_ceil(uint64_t(n_segments) * dims.d_model, kWG);
  call.dispatch(pipeline(name), workgroups, rec.encoder, rec.timestamps);
  return report;
}

OovReport Embedding::backward(std::span<const uint32_t> tokens, const Buffer& grad_out,
                              const Buffer& grad_table, Dims dims, BackwardVariant variant) {
  return run_backward(tokens, nullptr, grad_out, grad_table, dims, variant, {});
}

OovReport Embedding::backward(const Buffer& tokens, const Buffer& grad_out,
                              const Buffer& grad_table, Dims dims, BackwardVariant variant) {
  auto host = read_tokens(variant_kernel(variant, dims.d_model), tokens, dims);
  return run_backward(host, &tokens, grad_out, grad_table, dims, variant, {});
}

OovReport Embedding::record_backward(CommandEncoder& encoder, std::span<const uint32_t> tokens,
                                     const Buffer& grad_out, const Buffer& grad_table, Dims dims,
                                     BackwardVariant variant,
                                     const std::optional<PassTimestampWrites>& timestamps) {
  return run_backward(tokens, nullptr, grad_out, grad_table, dims, variant, {&encoder, timestamps});
}

}  // namespace wgslvk::embedding
