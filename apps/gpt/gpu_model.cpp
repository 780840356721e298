#include "gpu_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "attention/host.hpp"
#include "attention/reference.hpp"
#include "elementwise/reference.hpp"
#include "embedding/reference.hpp"
#include "loss/reference.hpp"
#include "matmul/reference.hpp"
#include "norm/reference.hpp"
#include "subgroup_matrix/reference.hpp"  // plan(): the mixed products' kernel per shape
#include "wgslvk/kernels/attention/attn_dqkv.hpp"
#include "wgslvk/kernels/attention/attn_dscores.hpp"
#include "wgslvk/kernels/attention/attn_dscores_fa2.hpp"
#include "wgslvk/kernels/attention/attn_dscores_mat.hpp"
#include "wgslvk/kernels/attention/attn_dsum.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2.hpp"
#include "wgslvk/kernels/attention/attn_scores.hpp"
#include "wgslvk/kernels/attention/attn_softmax.hpp"
#include "wgslvk/kernels/attention/attn_softmax_mat.hpp"
#include "wgslvk/kernels/attention/attn_weighted_sum.hpp"
#include "wgslvk/kernels/elementwise/gelu_backward.hpp"
#include "wgslvk/kernels/elementwise/gelu_forward.hpp"
#include "wgslvk/kernels/elementwise/pos_embed_add.hpp"
#include "wgslvk/kernels/elementwise/residual_add.hpp"
#include "wgslvk/kernels/elementwise/residual_add_inplace.hpp"
#include "wgslvk/kernels/embedding/embed_backward_deterministic.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/loss/cross_entropy_backward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_forward.hpp"
#include "wgslvk/kernels/loss/cross_entropy_mean.hpp"
#include "wgslvk/kernels/matmul/cast_f16.hpp"
#include "wgslvk/kernels/matmul/matmul_batched.hpp"
#include "wgslvk/kernels/matmul/matmul_bias_grad.hpp"
#include "wgslvk/kernels/matmul/matmul_blocked4.hpp"
#include "wgslvk/kernels/matmul/matmul_f16in.hpp"
#include "wgslvk/kernels/matmul/matmul_naive.hpp"
#include "wgslvk/kernels/matmul/matmul_native.hpp"
#include "wgslvk/kernels/matmul/matmul_native_k16.hpp"
#include "wgslvk/kernels/matmul/matmul_native_splitk.hpp"
#include "wgslvk/kernels/matmul/matmul_splitk_reduce.hpp"
#include "wgslvk/kernels/matmul/matmul_vec4.hpp"
#include "wgslvk/kernels/matmul/scale_f32.hpp"
#include "wgslvk/kernels/norm/layernorm_backward.hpp"
#include "wgslvk/kernels/norm/layernorm_backward_lean_dparams.hpp"
#include "wgslvk/kernels/norm/layernorm_forward.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_batched.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled4_d4.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_d2.hpp"
#include "wgslvk/kernels/subgroup_matrix/sgmm_f16_tiled8_d4.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/reusable.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::gpt {

std::string_view matmul_name(MatmulImpl m) {
  switch (m) {
    case MatmulImpl::Vec4:
      return "vec4";
    case MatmulImpl::Blocked4:
      return "blocked4";
    case MatmulImpl::Naive:
      return "naive";
    case MatmulImpl::Native:
      return "native";
    case MatmulImpl::NativeAuto:
      return "native_auto";
    case MatmulImpl::NativeAutoBmm:
      return "native_auto_bmm";
    case MatmulImpl::NativeAutoFwd:
      return "native_auto_fwd";
  }
  return "?";
}

MatmulImpl parse_matmul(std::string_view s) {
  for (auto m : {MatmulImpl::Vec4, MatmulImpl::Blocked4, MatmulImpl::Naive, MatmulImpl::Native,
                 MatmulImpl::NativeAuto, MatmulImpl::NativeAutoBmm, MatmulImpl::NativeAutoFwd})
    if (matmul_name(m) == s) return m;
  throw std::invalid_argument(
      "unknown matmul '" + std::string(s) +
      "' (vec4, blocked4, naive, native, native_auto, native_auto_bmm, native_auto_fwd)");
}

std::string_view fp32_attention_name(Fp32Attention a) {
  switch (a) {
    case Fp32Attention::Auto:
      return "auto";
    case Fp32Attention::FA2:
      return "fa2";
    case Fp32Attention::Materialized:
      return "materialized";
  }
  return "?";
}

Fp32Attention parse_fp32_attention(std::string_view s) {
  for (auto a : {Fp32Attention::Auto, Fp32Attention::FA2, Fp32Attention::Materialized})
    if (fp32_attention_name(a) == s) return a;
  throw std::invalid_argument("unknown fp32 attention '" + std::string(s) +
                              "' (auto, fa2, materialized)");
}

// matmul_batched's shape rules (matmul_batched.wgsl): every M, N, K, row length, stride and
// offset a multiple of 4 (here T, hd and so d, 3 d), the tiles and the B H products within the
// grid's limit; the matrices the step keeps (P per layer and one dP / dS scratch, f32) within
// the binding size and 4 GiB in all.
bool fp32_materialized_fits(const Device& dev, uint32_t B, uint32_t T, uint32_t H, uint32_t hd,
                            uint32_t layers) {
  const uint64_t n = uint64_t(B) * H * T * T;
  const uint64_t tiles = uint64_t((T + 63) / 64) * ((T + 63) / 64);
  const uint32_t lim = dev.limits().max_compute_workgroups_per_dimension;
  return T % 4 == 0 && hd % 4 == 0 && tiles <= lim && uint64_t(B) * H <= lim &&
         n * 4 <= dev.limits().max_storage_buffer_binding_size &&
         n * 4 * (uint64_t(layers) + 1) <= (uint64_t(4) << 30);
}

// The fp32 rule (Fp32Attention::Auto): where the shape fits, for T <= 1024 (the mixed step's
// bound: beyond it FA2's O(T) memory wins; the matrices are 4 B H T^2 bytes a layer). Why: FA2's
// backward is bound by fp32 issue in per-row FMA loops (9.6 of gpt110m's 65.7 ms profiled step
// on an H200, 27d) where the six products are register-tiled GEMMs that skip the causal half
// (CAUSAL_TILES, K_FROM_ROW, K_TO_ROW). Measured on an H200 (bench/results/h200-2026-11-27j-train,
// wall ms/step FA2 -> materialized): gpt110m (T 256, hd 64) 57.8 -> 49.9, xl (T 256, hd 32)
// 6.16 -> 5.46, large 2.28 -> 2.06, medium 1.99 -> 1.82, small (T 64) 1.11 -> 1.02: faster at
// every preset. Contexts above 256 are not measured (the bound is the mixed rule's).
bool fp32_materialized_attention(const Device& dev, uint32_t B, uint32_t T, uint32_t H, uint32_t hd,
                                 uint32_t layers) {
  return T <= 1024 && fp32_materialized_fits(dev, B, T, H, hd, layers);
}

namespace {
// A binding range: a buffer, a byte offset and a byte size (0: to the end).
struct Range {
  Buffer buf;
  uint64_t offset = 0, size = 0;
  // At a kernel's named binding (its generated header's slot).
  template <class K, class T>
  KernelEntry<K> at(const BindingSlot<K, T>& slot) const {
    return bind(slot, buf, offset, size ? std::optional<uint64_t>(size) : std::nullopt);
  }
};
Range whole(const Buffer& b) { return Range{b, 0, 0}; }

// The kernels of the step, by their generated headers (translator/README.md).
namespace ks = wgslvk::kernels;
namespace lnf = ks::norm::layernorm_forward;
namespace lnb = ks::norm::layernorm_backward;  // its lean variant has the same bindings
namespace lnd = ks::norm::layernorm_backward_lean_dparams;
namespace fa2 = ks::attention::attn_fwd_fa2;       // its wide variant has the same bindings
namespace fa2b = ks::attention::attn_dscores_fa2;  // every FA2 backward kernel: the same bindings
namespace ce_fwd = ks::loss::cross_entropy_forward;
namespace ce_mean = ks::loss::cross_entropy_mean;
namespace ce_bwd = ks::loss::cross_entropy_backward;
namespace ew = ks::elementwise;
namespace emb = ks::embedding;
namespace att = ks::attention;
namespace mmk = ks::matmul;
// The mixed products: matmul_f16in's slots bind sgmm_f16_tiled8_d2 too (the same ABI, asserted
// below; entries_for checks each binding's kind and WGSL type when sgmm is the kernel in use).
namespace f16in = mmk::matmul_f16in;
namespace sgmm = ks::subgroup_matrix::sgmm_f16_tiled8_d2;
template <class A, class B>
constexpr bool same_slot(const A& a, const B& b) {
  return a.group == b.group && a.binding == b.binding && a.type == b.type &&
         std::is_same_v<typename A::value_type, typename B::value_type>;
}
// The four slots of a subgroup-matrix kernel subgroup_matrix::plan() may pick.
template <class A, class B, class C, class D>
constexpr bool f16in_slots_bind(const A& a, const B& b, const C& c, const D& d) {
  return same_slot(f16in::binding::fa_in, a) && same_slot(f16in::binding::fb_in, b) &&
         same_slot(f16in::binding::fc_out, c) && same_slot(f16in::binding::fdims, d);
}
namespace sgmm_d4 = ks::subgroup_matrix::sgmm_f16_tiled8_d4;
namespace sgmm_t4 = ks::subgroup_matrix::sgmm_f16_tiled4_d4;
namespace sgmm_b = ks::subgroup_matrix::sgmm_f16_batched;
namespace bm32 = mmk::matmul_batched;
// matmul_batched's causal flags (matmul_batched.wgsl): skip the output tiles above the diagonal,
// start / end each tile's sum over k at its rows (the skipped terms are exact zeros of P or dS).
constexpr uint32_t kCausalTiles = 16, kKFromRow = 32, kKToRow = 64;

// Attention in the mixed step on tensor cores, the score matrix materialized (apps/gpt/README.md,
// "Mixed precision"): S = Q K^T and O = P V forward, dV = P^T dO, dP = dO V^T, dQ = dS K and
// dK = dS^T Q backward as batched f16 products with f32 accumulation (sgmm_f16_batched, one
// product per (batch, head), reading the heads' columns of qkv / dy in place), the causal softmax
// and dS = scale P (dP - dsum) in f32 (attn_softmax_mat, attn_dscores_mat). The rule: on the
// subgroup-matrix products only (matmul_f16in has no batched form: CI's lavapipe keeps FA2), for
// T <= 1024, B H T^2 a multiple of 4 (whole vec4<f16> copies) within the device's storage binding
// size, and the matrices it keeps (per layer P in f32 and its f16 copy, 6 bytes an element, plus
// one dP/dS scratch) within 4 GiB; else the fp32 FA2 kernels. Why: these products cost
// 12 B H T^2 hd flops per layer (the causal half included) against FA2's FMA loops, which are
// bound by fp32 issue; at gpt110m's T = 256 the matrices are 25 MB a layer, at T = 1024 400 MB
// (the 4 GiB bound then holds up to ~10 layers at B H = 96), beyond that FA2's O(T) memory wins.
bool materialized_attention(const Device& dev, bool sgmm_products, uint32_t B, uint32_t T,
                            uint32_t H, uint32_t layers) {
  const uint64_t n = uint64_t(B) * H * T * T;
  return sgmm_products && T <= 1024 && n % 4 == 0 &&
         n * 4 <= dev.limits().max_storage_buffer_binding_size &&
         n * (6 * uint64_t(layers) + 4) <= (uint64_t(4) << 30) &&
         sgmm_b::Kernel::info().workgroup_storage_bytes <=
             dev.limits().max_compute_workgroup_storage_size;
}

static_assert(f16in_slots_bind(sgmm::binding::ta_in, sgmm::binding::tb_in, sgmm::binding::tc_out,
                               sgmm::binding::tdims) &&
              f16in_slots_bind(sgmm_d4::binding::ta_in, sgmm_d4::binding::tb_in,
                               sgmm_d4::binding::tc_out, sgmm_d4::binding::tdims) &&
              f16in_slots_bind(sgmm_t4::binding::ta_in, sgmm_t4::binding::tb_in,
                               sgmm_t4::binding::tc_out, sgmm_t4::binding::tdims));
// Workgroup counts below come from the headers (Kernel::workgroups): 256 invocations each, as
// the step always counted them.
static_assert(ks::embedding::embed_lookup::Kernel::workgroup_threads == 256);
static_assert(ks::embedding::embed_backward_deterministic::Kernel::workgroup_threads == 256);
static_assert(att::attn_scores::Kernel::workgroup_threads == 256);
static_assert(att::attn_softmax::Kernel::workgroup_threads == 256);
static_assert(att::attn_weighted_sum::Kernel::workgroup_threads == 256);
static_assert(att::attn_dsum::Kernel::workgroup_threads == 256);
static_assert(att::attn_dscores::Kernel::workgroup_threads == 256);
static_assert(att::attn_dqkv::Kernel::workgroup_threads == 256);
}  // namespace

struct GpuGpt::Acts {
  struct Layer {
    Buffer x, h1, mean1, rstd1, qkv, att, y, lse, xm, h2, mean2, rstd2, f, g;
  };
  std::vector<Layer> layers;
  Buffer xL, hf, meanf, rstdf, logits, loss_rows, lse_ce, stats;
  Buffer tokens, targets, order, seg_start, embed_bwd_u;
  Buffer t_d, dres, dx, dff_a, dff_b, dh, dy, dsum, dqkv, dscores, dlogits, partials;
  Buffer loss_log, dummy;
  Buffer one_row;       // (1, 0, 0, 0): native_auto_fwd's bias rows (StepBuilder::mm)
  Buffer f16_overflow;  // mixed precision: cast_f16's count of results that are not finite
  std::vector<Buffer> uniforms;
};

GpuGpt::GpuGpt(Device device, ModelConfig config, uint32_t batch, optimizer::AdamWOptions adamw,
               GpuOptions options)
    : dev_(std::move(device)),
      cfg_(std::move(config)),
      batch_(batch),
      gopt_(options),
      pipes_(dev_) {
  cfg_.validate();
  if (batch_ == 0) throw std::invalid_argument("GpuGpt: batch must be positive");
  if (gopt_.mixed) check_mixed(adamw);
  if (!gopt_.mixed && gopt_.attention != AttentionImpl::Naive) {
    const uint32_t B = batch_, T = cfg_.context, H = cfg_.heads, hd = cfg_.head_dim();
    switch (gopt_.fp32_attention) {
      case Fp32Attention::Auto:
        mat_attention_ = fp32_materialized_attention(dev_, B, T, H, hd, cfg_.layers);
        break;
      case Fp32Attention::Materialized:
        if (!fp32_materialized_fits(dev_, B, T, H, hd, cfg_.layers))
          throw std::invalid_argument(
              "fp32 attention 'materialized': the shape (batch " + std::to_string(B) +
              ", context " + std::to_string(T) + ", heads " + std::to_string(H) + ", head_dim " +
              std::to_string(hd) +
              ") does not fit matmul_batched (multiples of 4) or the device's buffers");
        mat_attention_ = true;
        break;
      case Fp32Attention::FA2:
        break;
    }
  }
  opt_ = std::make_unique<optimizer::MultiTensorAdamW>(dev_, param_specs(cfg_), adamw);
  build();
}

GpuGpt::~GpuGpt() = default;

// What build() appends to ops_, piece by piece: the model's sizes, the uniforms many dispatches
// share, the dispatch helpers (one per kernel or product) and the pieces of the step in order.
struct GpuGpt::StepBuilder {
  GpuGpt& m;
  Acts& A;
  const uint32_t B, T, d, F, V, H, hd;
  const uint64_t R;
  const bool fa2;
  const attention::Fa2Backward fa2_bwd;
  const bool mat;  // the score matrix materialized: mixed on tensor cores, fp32 matmul_batched
  const norm::Shape ns;
  const uint32_t rpb;  // the lean layernorm pair's rows per block
  Buffer ln_u, attn_u, ce_u, u_d, u_f, emb_u, pe_u;
  // Split-K reduces (native_auto) wait here until the next dispatch that is not a split-K
  // product, so the dX and dW products of a layer still run side by side.
  std::vector<std::function<void()>> pending_reduces;
  bool adding_split = false;
  std::map<std::pair<uint64_t, size_t>, Buffer> splitk_scratch;

  explicit StepBuilder(GpuGpt& model)
      : m(model),
        A(*model.a_),
        B(model.batch_),
        T(model.cfg_.context),
        d(model.cfg_.d_model),
        F(model.cfg_.d_ff()),
        V(model.cfg_.vocab),
        H(model.cfg_.heads),
        hd(model.cfg_.head_dim()),
        R(uint64_t(B) * T),
        fa2(model.gopt_.attention != AttentionImpl::Naive),
        // fa2_tiled: attn_bwd_fa2_tiled4 or attn_bwd_fa2_tiled (the same jobs, tiles and
        // summation orders) as attention/host.hpp's measured rule picks (xl: tiled4).
        fa2_bwd(model.gopt_.attention == AttentionImpl::FA2Tiled
                    ? attention::fa2_backward_tiled_for(attention::make_shape(B, T, H, hd))
                : model.gopt_.attention == AttentionImpl::FA2Wide ? attention::Fa2Backward::Wide
                                                                  : attention::Fa2Backward::Ported),
        mat(model.mat_attention_),
        ns{uint32_t(R), d},
        rpb(norm::lean_rows_per_block(ns)) {
    make_uniforms();
  }

  // ---- buffers and uniforms ----
  Buffer buf(const std::string& label, uint64_t floats) {
    return utils::make_buffer(m.dev_, label, floats * 4);
  }
  Buffer uni(const void* data, uint64_t size) {
    A.uniforms.push_back(utils::make_uniform(m.dev_, "gpt.uniform", data, size));
    return A.uniforms.back();
  }
  // A uniform for `slot` (its header's type), kept with the step's uniforms.
  template <class Kn, class Ty>
  Buffer uni(const BindingSlot<Kn, Ty>& slot, const std::type_identity_t<Ty>& value) {
    A.uniforms.push_back(make_uniform(m.dev_, slot, value, "gpt.uniform"));
    return A.uniforms.back();
  }
  // The uniforms many dispatches share (each kernel's header declares its struct).
  void make_uniforms() {
    ln_u =
        uni(lnf::binding::lf,
            lnf::LnParams{
                .rows = uint32_t(R), .d = d, .eps = float(m.cfg_.ln_eps), .rows_per_block = rpb});
    attn_u = uni(fa2::binding::p_fwd, fa2::AttnParams{.batch = B,
                                                      .seq = T,
                                                      .heads = H,
                                                      .head_dim = hd,
                                                      .scale = attention::default_scale(hd)});
    ce_u = uni(ce_fwd::binding::cf,
               ce_fwd::CeParams{.rows = uint32_t(R),
                                .vocab = V,
                                .ignore_index = 0xFFFFFFFFu,
                                .scale = m.loss_scale_});  // mixed: the loss scale, else 1
    // The elementwise kernels' vec4<u32> dims: x = vec4 count (residual adds over R x d, GELU
    // over R x F).
    u_d = uni(ew::residual_add::binding::ra_dims, {uint32_t(R * d / 4), 0, 0, 0});
    u_f = uni(ew::gelu_forward::binding::gf_dims, {uint32_t(R * F / 4), 0, 0, 0});
    // Embedding dims (seq_len, d_model, vocab_size, w); the backward's w (n_segments) is
    // written per step (upload).
    emb_u = uni(emb::embed_lookup::binding::dims, {uint32_t(R), d, V, 0});
    A.embed_bwd_u = uni(emb::embed_backward_deterministic::binding::dims, {uint32_t(R), d, V, 0});
    pe_u = uni(ew::pos_embed_add::binding::pe_dims, {uint32_t(R * d / 4), d / 4, T, 0});
  }
  // Parameter `name`'s range of the weights / of the gradients.
  Range W(const std::string& name) const {
    const auto& p = m.opt_->param(name);
    return Range{m.opt_->w(), p.offset * 4, p.count * 4};
  }
  Range G(const std::string& name) const {
    const auto& p = m.opt_->param(name);
    return Range{m.opt_->g(), p.offset * 4, p.count * 4};
  }

  // ---- dispatches ----
  void flush_reduces() {
    auto todo = std::move(pending_reduces);
    pending_reduces.clear();
    for (auto& f : todo) f();
  }
  void add(const std::string& name, std::vector<BindGroupEntry> entries, uint32_t x, uint32_t y = 1,
           uint32_t z = 1) {
    if (!adding_split) flush_reduces();
    if (!f16_copies.empty()) note_writes(name, entries);
    m.ops_.push_back(make_dispatch(m.dev_, m.pipes_, kernel(name), std::move(entries), {x, y, z}));
  }
  void add_flat(const std::string& name, std::vector<BindGroupEntry> entries, uint64_t workgroups) {
    Grid g = grid_for_workgroups(std::max<uint64_t>(1, workgroups), m.dev_.limits());
    add(name, std::move(entries), g.x, g.y);
  }
  // The typed forms: the kernel of a generated header (or `name`, a variant with its bindings),
  // every entry one of its slots.
  template <class K>
  void add_k(K, std::initializer_list<KernelEntry<K>> e, uint32_t x, uint32_t y, uint32_t z,
             std::string_view name = K::name) {
    const KernelInfo& k = kernel(name);
    add(k.qualified_name(), entries_for(k, e), x, y, z);
  }
  template <class K>
  void add_flat_k(K, std::initializer_list<KernelEntry<K>> e, uint64_t workgroups,
                  std::string_view name = K::name) {
    const KernelInfo& k = kernel(name);
    add_flat(k.qualified_name(), entries_for(k, e), workgroups);
  }

  // ---- mixed precision (GpuOptions::mixed) ----
  // The f16 copy of an activation or gradient range a product reads: cast once after the range
  // was last written (fresh until a dispatch binds its buffer writable again).
  struct F16Copy {
    Buffer src;
    uint64_t offset = 0, floats = 0;
    Buffer f16;
    bool fresh = false;
  };
  std::vector<F16Copy> f16_copies;
  void note_writes(const std::string& name, const std::vector<BindGroupEntry>& entries) {
    const KernelInfo& k = kernel(name);
    for (const auto& e : entries) {
      const KernelBinding* kb = k.find_binding(0, e.binding);
      if (!kb || kb->type != BindingType::Storage) continue;
      for (auto& c : f16_copies)
        if (c.src == e.buffer) c.fresh = false;
    }
  }
  static uint64_t f16_bytes(uint64_t floats) { return (floats + 3) / 4 * 8; }  // whole vec4<f16>
  // The f16 range a product binds for the f32 range r of `floats` elements: a weight's f16 mirror
  // (the optimizer keeps it equal to f16(w)), else the range's cast.
  Range half_of(const Range& r, uint64_t floats) {
    if (r.buf == m.opt_->w()) return Range{m.opt_->w16(), r.offset / 2, f16_bytes(floats)};
    if (floats % 4)
      throw std::invalid_argument("GpuGpt (mixed): an f16 cast of " + std::to_string(floats) +
                                  " elements (not a multiple of 4) in " + r.buf.label());
    auto it = std::find_if(f16_copies.begin(), f16_copies.end(), [&](const F16Copy& c) {
      return c.src == r.buf && c.offset == r.offset && c.floats == floats;
    });
    if (it == f16_copies.end()) {
      F16Copy c{r.buf, r.offset, floats,
                utils::make_buffer(m.dev_, r.buf.label() + ".f16", f16_bytes(floats)), false};
      f16_copies.push_back(c);
      it = f16_copies.end() - 1;
    }
    if (!it->fresh) {
      using namespace mmk::cast_f16::binding;
      Buffer u = uni(cs_dims, {uint32_t(floats / 4), 0, 0, 0});  // vec4 count
      m.casts_.push_back({m.ops_.size(), r.buf, it->f16, r.offset, floats});
      const Buffer f16 = it->f16;
      add_flat_k(mmk::cast_f16::Kernel{},
                 {Range{r.buf, r.offset, floats * 4}.at(cs_in), whole(f16).at(cs_out),
                  whole(A.f16_overflow).at(cs_overflow), whole(u).at(cs_dims)},
                 mmk::cast_f16::Kernel::workgroups(floats / 4));
      it->fresh = true;  // (the cast binds its source read-only: note_writes left it alone)
    }
    return Range{it->f16, 0, 0};
  }
  // c (+)= a b (+ bias) with f16 inputs and f32 accumulation: sgmm_f16_tiled8_d2 or matmul_f16in
  // (their uniform: M, N, K and the flags TRANS_A, TRANS_B, ACCUMULATE), then the bias as
  // pos_embed_add over rows of one position.
  void mm_mixed(const Range& a, const Range& b, const Range& c, const Range* bias,
                matmul::Dims md) {
    const Range a16 = half_of(a, md.a_count()), b16 = half_of(b, md.b_count());
    using namespace f16in::binding;
    Buffer u = uni(fdims, {md.M, md.N, md.K,
                           md.flags & (matmul::kTransA | matmul::kTransB | matmul::kAccumulate)});
    std::string_view kname = m.mixed_kernel_;
    uint64_t gx = (uint64_t(md.N) + 31) / 32, gy = (uint64_t(md.M) + 31) / 32;  // matmul_f16in
    if (m.mixed_kernel_ == sgmm::name) {
      // The subgroup-matrix kernel measured fastest for this product's shape and flags
      // (subgroup_matrix::plan(); every one it picks has tiled8_d2's slots and gives its bits).
      // Where the device lacks that kernel's workgroup memory, the plan kernel that needs the
      // least (mixed_product_plan; check_mixed made sure that one fits).
      namespace smx = wgslvk::subgroup_matrix;
      const smx::Plan p = *mixed_product_plan(
          smx::Dims{md.M, md.N, md.K, md.flags & (smx::TRANS_A | smx::TRANS_B | smx::ACCUMULATE)},
          m.dev_.limits().max_compute_workgroup_storage_size);
      kname = p.kernel;
      gx = p.workgroups[0];
      gy = p.workgroups[1];
    }
    const uint32_t lim = m.dev_.limits().max_compute_workgroups_per_dimension;
    if (gx > lim || gy > lim)
      throw std::invalid_argument("GpuGpt (mixed): a product of " + std::to_string(md.M) + " x " +
                                  std::to_string(md.N) + " needs a grid over the device's limit");
    add_k(f16in::Kernel{}, {a16.at(fa_in), b16.at(fb_in), c.at(fc_out), whole(u).at(fdims)},
          uint32_t(gx), uint32_t(gy), 1, kname);
    if (bias) {
      if (md.N % 4) throw std::invalid_argument("GpuGpt (mixed): a bias of odd width");
      using namespace ew::pos_embed_add::binding;
      Buffer ub = uni(pe_dims, {uint32_t(uint64_t(md.M) * md.N / 4), md.N / 4, 1, 0});
      add_flat_k(ew::pos_embed_add::Kernel{}, {c.at(pe_x), bias->at(pe_pos), whole(ub).at(pe_dims)},
                 ew_wg(uint64_t(md.M) * md.N));
    }
  }
  // g *= 1 / loss scale over the whole gradient buffer (every gradient is loss-scaled), in
  // chunks of the optimizer's layout (each within the binding limit).
  void unscale_grads() {
    const auto& L = m.opt_->layout();
    const float s = 1.0f / m.loss_scale_;
    for (uint64_t at = 0; at < L.total; at += L.chunk) {
      const uint64_t n = std::min(L.chunk, L.total - at);
      using namespace mmk::scale_f32::binding;
      Buffer u = uni(sdims, {uint32_t(n / 4), std::bit_cast<uint32_t>(s), 0, 0});
      add_flat_k(mmk::scale_f32::Kernel{},
                 {Range{m.opt_->g(), at * 4, n * 4}.at(sx), whole(u).at(sdims)},
                 mmk::scale_f32::Kernel::workgroups(n / 4));
    }
  }

  // native_auto_bmm / native_auto_fwd (gpu_model.hpp): whether the product runs as one product
  // of matmul_batched (64 x 64 tiles, four times native's workgroups) instead of native_plan()'s
  // choice, never where native_plan() splits. _bmm: the bias-free products whose 128 x 128 grid
  // is at most 96 tiles (at gpt110m the dX products with 768 columns); _fwd (the default): the
  // products with a bias (the forward's linear layers) of at most 288 tiles with K >= 512, not
  // accumulating (at gpt110m qkv, attn_proj and mlp_down forward; at the smaller presets none:
  // their K >= 512 products are split, so they run native_auto's kernels, as measured).
  // matmul_batched sums each element in one fma chain in k order as matmul_native / _k16 do and
  // adds old C after (ACCUMULATE): the same bits where the device contracts alike.
  bool gemm_on_batched(const matmul::Dims& md) const {
    const MatmulImpl mi = m.gopt_.matmul;
    if (mi != MatmulImpl::NativeAutoBmm && mi != MatmulImpl::NativeAutoFwd) return false;
    if ((md.M | md.N | md.K) % 4 != 0) return false;
    if (matmul::native_plan(md).variant == matmul::NativePlan::Variant::SplitK) return false;
    const uint64_t tiles128 = uint64_t((md.M + 127) / 128) * ((md.N + 127) / 128);
    if (mi == MatmulImpl::NativeAutoFwd)
      return (md.flags & matmul::kAddBias) && !(md.flags & matmul::kAccumulate) && md.K >= 512 &&
             tiles128 <= 288;
    return !(md.flags & matmul::kAddBias) && tiles128 <= 96;
  }

  // c = a b (+ bias) with the product's matmul kernel (GpuOptions::matmul).
  void mm(const Range& a, const Range& b, const Range& c, const Range* bias, matmul::Dims md) {
    if (m.gopt_.mixed) return mm_mixed(a, b, c, bias, md);
    if (bias) md.flags |= matmul::kAddBias;
    const Range bb = bias ? *bias : whole(A.dummy);
    const bool autoplan = m.gopt_.matmul == MatmulImpl::NativeAuto ||
                          m.gopt_.matmul == MatmulImpl::NativeAutoBmm ||
                          m.gopt_.matmul == MatmulImpl::NativeAutoFwd;
    if (autoplan && matmul::supports(matmul::Kernel::Native, md)) {
      if (gemm_on_batched(md)) {  // one product on matmul_batched's 64 x 64 tiles
        using namespace bm32::binding;
        const uint32_t TA = matmul::kTransA, TB = matmul::kTransB;
        const uint64_t tiles = uint64_t((md.M + 63) / 64) * ((md.N + 63) / 64);
        const Side cs{0, md.N, 0, 0};
        uint32_t flags = md.flags & (TA | TB | matmul::kAccumulate);
        if (md.flags & matmul::kAddBias) {
          // C = bias in every row first: a K = 4 product of the row (1, 0, 0, 0) (A.one_row, row
          // length 0: every row the same) and the bias as each of B's 4 rows (row length 0):
          // fma(1, b, 0) = b, then fma(0, b, b) = b. Then C = C + op(A) op(B) (ACCUMULATE):
          // b + sum, the bits of native's sum + b.
          Buffer ub0 = uni(bmdims, batch_dims<bm32::BmmDims>(Side{}, Side{}, cs, md.M, md.N, 4, 0));
          add_flat_k(bm32::Kernel{},
                     {whole(A.one_row).at(bma), bias->at(bmb), c.at(bmc), whole(ub0).at(bmdims)},
                     tiles);
          flags |= matmul::kAccumulate;
        }
        const Side as{0, (md.flags & TA) ? md.M : md.K, 0, 0};
        const Side bs{0, (md.flags & TB) ? md.K : md.N, 0, 0};
        Buffer ub = uni(bmdims, batch_dims<bm32::BmmDims>(as, bs, cs, md.M, md.N, md.K, flags));
        add_flat_k(bm32::Kernel{}, {a.at(bma), b.at(bmb), c.at(bmc), whole(ub).at(bmdims)}, tiles);
        return;
      }
      const matmul::NativePlan plan = matmul::native_plan(md);
      if (plan.variant == matmul::NativePlan::Variant::SplitK) {
        // Partials in a scratch buffer per (size, place among the split products whose reduces
        // are pending): a layer's dX and dW never share one; a later product reuses it after
        // the reduce that read it (the runtime's barrier orders the two).
        const uint32_t S = plan.splits;
        const uint64_t floats = matmul::splitk_partial_floats(md, S);
        Buffer& part = splitk_scratch[{floats, pending_reduces.size()}];
        if (!part) part = buf("gpt.splitk_partials", floats);
        namespace sk = mmk::matmul_native_splitk;
        namespace rk = mmk::matmul_splitk_reduce;
        Buffer us = uni(sk::binding::ndims, {md.M, md.N, md.K, matmul::splitk_flags(md, S)});
        Buffer ur = uni(rk::binding::rk_dims,
                        {md.M, md.N, S, md.flags & (matmul::kAddBias | matmul::kAccumulate)});
        adding_split = true;
        add_flat_k(sk::Kernel{},
                   {a.at(sk::binding::na), b.at(sk::binding::nb), whole(part).at(sk::binding::nc),
                    whole(us).at(sk::binding::ndims)},
                   matmul::splitk_workgroups(md, S));
        adding_split = false;
        pending_reduces.push_back([this, part, c, bb, ur, md] {
          using namespace rk::binding;
          add_flat_k(rk::Kernel{},
                     {whole(part).at(rk_part), c.at(rk_c), bb.at(rk_bias), whole(ur).at(rk_dims)},
                     matmul::splitk_reduce_workgroups(md));
        });
        return;
      }
      if (plan.variant == matmul::NativePlan::Variant::K16) {  // 128 x 64 tiles, K stages of 16
        namespace h = mmk::matmul_native_k16;
        product(h::Kernel{}, h::binding::na, h::binding::nb, h::binding::nc, h::binding::nbias,
                h::binding::ndims, a, b, c, bb, md, matmul::native_k16_workgroups(md));
        return;
      }
    }
    matmul::Kernel k = matmul::Kernel::Naive;
    switch (m.gopt_.matmul) {
      case MatmulImpl::Vec4:
        k = matmul::vec4_or_fallback(md);
        break;
      case MatmulImpl::Blocked4:
        k = matmul::Kernel::Blocked4;
        break;
      case MatmulImpl::Naive:
        k = matmul::Kernel::Naive;
        break;
      case MatmulImpl::Native:
      case MatmulImpl::NativeAuto:
      case MatmulImpl::NativeAutoBmm:
      case MatmulImpl::NativeAutoFwd:
        k = matmul::supports(matmul::Kernel::Native, md) ? matmul::Kernel::Native
                                                         : matmul::vec4_or_fallback(md);
        break;
    }
    const uint64_t wg = matmul::workgroups(k, md);
    switch (k) {  // each kernel by its own header (vec4 and native read vec4<f32> rows)
      case matmul::Kernel::Naive: {
        namespace h = mmk::matmul_naive::binding;
        return product(mmk::matmul_naive::Kernel{}, h::a, h::b, h::c, h::bias, h::dims, a, b, c, bb,
                       md, wg);
      }
      case matmul::Kernel::Blocked4: {
        namespace h = mmk::matmul_blocked4::binding;
        return product(mmk::matmul_blocked4::Kernel{}, h::a, h::b, h::c, h::bias, h::dims, a, b, c,
                       bb, md, wg);
      }
      case matmul::Kernel::Vec4: {
        namespace h = mmk::matmul_vec4::binding;
        return product(mmk::matmul_vec4::Kernel{}, h::a4, h::b4, h::c, h::bias, h::dims, a, b, c,
                       bb, md, wg);
      }
      case matmul::Kernel::Native: {
        namespace h = mmk::matmul_native::binding;
        return product(mmk::matmul_native::Kernel{}, h::na, h::nb, h::nc, h::nbias, h::ndims, a, b,
                       c, bb, md, wg);
      }
      default:
        throw std::logic_error("GpuGpt: matmul kernel " + matmul::qualified_name(k) +
                               " is not one the step picks");
    }
  }
  // One product c = a b (+ bias) (md.flags) on a matmul kernel whose bindings are A, B, C, the bias
  // and the dims uniform (M, N, K, flags), each given as that kernel's slot.
  template <class K, class TA, class TB, class TC, class TBias, class TDims>
  void product(K tag, const BindingSlot<K, TA>& sa, const BindingSlot<K, TB>& sb,
               const BindingSlot<K, TC>& sc, const BindingSlot<K, TBias>& sbias,
               const BindingSlot<K, TDims>& sdims, const Range& a, const Range& b, const Range& c,
               const Range& bias, const matmul::Dims& md, uint64_t workgroups) {
    Buffer u = uni(sdims, {md.M, md.N, md.K, md.flags});
    add_flat_k(tag, {a.at(sa), b.at(sb), c.at(sc), bias.at(sbias), whole(u).at(sdims)}, workgroups);
  }
  // db = column sums of dY [M, N], with matmul::bias_grad_lanes() row lanes per column (more
  // workgroups where N is small; the lanes fix the summation order).
  void bias_grad(const Range& dyr, const Range& db, uint32_t M, uint32_t N) {
    const uint32_t lanes = matmul::bias_grad_lanes(M, N);
    namespace bg = mmk::matmul_bias_grad;
    Buffer u = uni(bg::binding::bg_dims, {M, N, 0, lanes});
    add_flat_k(bg::Kernel{},
               {dyr.at(bg::binding::dy), db.at(bg::binding::db), whole(u).at(bg::binding::bg_dims)},
               matmul::bias_grad_workgroups(N, lanes));
  }
  void ln_fwd(const Buffer& x, const std::string& pname, const Buffer& y, const Buffer& mean,
              const Buffer& rstd) {
    using namespace lnf::binding;
    add_flat_k(
        lnf::Kernel{},
        {whole(x).at(lf_x), W(pname + ".weight").at(lf_gamma), W(pname + ".bias").at(lf_beta),
         whole(y).at(lf_y), whole(mean).at(lf_mean), whole(rstd).at(lf_rstd), whole(ln_u).at(lf)},
        norm::forward_workgroups(ns));
  }
  void ln_bwd(const Buffer& x, const std::string& pname, const Buffer& dyb, const Buffer& mean,
              const Buffer& rstd, const Buffer& dxb) {
    // norm_native.wgsl's lean pair (README of wgsl_ports/norm: faster than the port's at every
    // GPT shape on an H200); past kLeanMaxD its main kernel is the port's.
    using namespace lnb::binding;
    add_flat_k(lnb::Kernel{},
               {whole(x).at(lb_x), W(pname + ".weight").at(lb_gamma), whole(dyb).at(lb_dy),
                whole(mean).at(lb_mean), whole(rstd).at(lb_rstd), whole(dxb).at(lb_dx),
                whole(A.partials).at(lb_partials), whole(ln_u).at(lb)},
               norm::backward_blocks(ns, rpb), norm::lean_main_kernel(d));
    add_flat_k(lnd::Kernel{},
               {whole(A.partials).at(lnd::binding::ld_partials),
                G(pname + ".weight").at(lnd::binding::ld_dgamma),
                G(pname + ".bias").at(lnd::binding::ld_dbeta), whole(ln_u).at(lnd::binding::ld)},
               norm::lean_dparams_workgroups(ns));
  }
  uint64_t ew_wg(uint64_t n) const { return elementwise::workgroups_for(n); }
  // out = a + t_d (the elementwise residual add over R x d)
  void residual_add(const Buffer& a, const Buffer& out) {
    using namespace ew::residual_add::binding;
    add_flat_k(
        ew::residual_add::Kernel{},
        {whole(a).at(ra_a), whole(A.t_d).at(ra_b), whole(out).at(ra_out), whole(u_d).at(ra_dims)},
        ew_wg(R * d));
  }
  // dres += dx
  void residual_add_inplace() {
    using namespace ew::residual_add_inplace::binding;
    add_flat_k(ew::residual_add_inplace::Kernel{},
               {whole(A.dres).at(ri_a), whole(A.dx).at(ri_b), whole(u_d).at(ri_dims)},
               ew_wg(R * d));
  }

  // ---- the pieces of the step, in order ----

  // x_0 = wte[tokens] + wpe
  void embedding_forward() {
    namespace el = emb::embed_lookup;
    add_flat_k(el::Kernel{},
               {whole(A.tokens).at(el::binding::tokens), W("wte").at(el::binding::table),
                whole(A.layers[0].x).at(el::binding::out), whole(emb_u).at(el::binding::dims)},
               el::Kernel::workgroups(R * d));
    add_flat_k(ew::pos_embed_add::Kernel{},
               {whole(A.layers[0].x).at(ew::pos_embed_add::binding::pe_x),
                W("wpe").at(ew::pos_embed_add::binding::pe_pos),
                whole(pe_u).at(ew::pos_embed_add::binding::pe_dims)},
               ew_wg(R * d));
  }

  // y = attention(qkv) of layer L: FA2 (its wide variant per GpuOptions) or the naive path that
  // keeps the attention matrix.
  void attention_forward(const Acts::Layer& L) {
    if (mat) return mat_attention_forward(L);
    if (fa2) {
      using namespace fa2::binding;
      if (m.gopt_.attention == AttentionImpl::FA2Tiled) {  // attn_fwd_fa2_tiled: its own grid
        const auto k = attention::fa2_forward_tiled_dispatch(attention::make_shape(B, T, H, hd));
        add_k(fa2::Kernel{},
              {whole(attn_u).at(p_fwd), whole(L.qkv).at(qkv_fwd), whole(L.y).at(out_fwd),
               whole(L.lse).at(lse_fwd)},
              k.x, k.y, k.z, k.kernel);
        return;
      }
      // The wide variant has the FA2 kernel's ABI and dispatch: a host switches by name.
      const std::string fa2_suffix = m.gopt_.attention == AttentionImpl::FA2 ? "" : "_wide";
      const uint32_t qt = (T + attention::kTile - 1) / attention::kTile;
      add_k(fa2::Kernel{},
            {whole(attn_u).at(p_fwd), whole(L.qkv).at(qkv_fwd), whole(L.y).at(out_fwd),
             whole(L.lse).at(lse_fwd)},
            qt, H, B, std::string(fa2::name) + fa2_suffix);
      return;
    }
    namespace sc = att::attn_scores;
    namespace sm = att::attn_softmax;
    namespace ws = att::attn_weighted_sum;
    add_flat_k(sc::Kernel{},
               {whole(attn_u).at(sc::binding::p_scores), whole(L.qkv).at(sc::binding::qkv_scores),
                whole(L.att).at(sc::binding::att_scores)},
               sc::Kernel::workgroups(uint64_t(B) * H * T * T));
    add_flat_k(
        sm::Kernel{},
        {whole(attn_u).at(sm::binding::p_softmax), whole(L.att).at(sm::binding::att_softmax)},
        sm::Kernel::workgroups(uint64_t(B) * H * T));
    add_flat_k(ws::Kernel{},
               {whole(attn_u).at(ws::binding::p_wsum), whole(L.qkv).at(ws::binding::qkv_wsum),
                whole(L.att).at(ws::binding::att_wsum), whole(L.y).at(ws::binding::out_wsum)},
               ws::Kernel::workgroups(R * d));
  }

  // ---- attention on tensor cores, the score matrix materialized (materialized_attention()) ----
  // Per (batch b, head h), product z = b H + h of sgmm_f16_batched: C_z (+)= op(A_z) op(B_z) with
  // A_z at a_off + b a_outer + h a_inner, rows a_ld apart (likewise B, C); M, N, K and the flags
  // as the matmul family's.
  struct Side {
    uint32_t off, ld, outer, inner;
  };
  // The uniform of both batched kernels (sgmm_f16_batched's BatchDims, matmul_batched's BmmDims:
  // the same fields): the shape, flags and each side's offset and strides.
  template <class Dims>
  Dims batch_dims(Side a, Side b, Side c, uint32_t M, uint32_t N, uint32_t K,
                  uint32_t flags) const {
    Dims u{};
    u.mnkf = {M, N, K, flags};
    u.ld = {a.ld, b.ld, c.ld, H};
    u.ab = {a.outer, a.inner, b.outer, b.inner};
    u.cb = {c.outer, c.inner, 0, 0};
    u.off = {a.off, b.off, c.off, 0};
    return u;
  }
  void bmm(const Range& a16, Side a, const Range& b16, Side b, const Range& c, Side cs, uint32_t M,
           uint32_t N, uint32_t K, uint32_t flags) {
    using namespace sgmm_b::binding;
    Buffer ub = uni(tdims, batch_dims<sgmm_b::BatchDims>(a, b, cs, M, N, K, flags));
    const subgroup_matrix::Dims sd{M, N, K, flags};
    const auto g = subgroup_matrix::workgroups(sd);  // 64x64 blocks, as sgmm_f16_tiled4_d4
    add_k(sgmm_b::Kernel{}, {a16.at(ta_in), b16.at(tb_in), c.at(tc_out), whole(ub).at(tdims)}, g[0],
          g[1], B * H);
  }
  // The layouts: qkv [B T][3 d] (head h's q, k, v at columns h hd, d + h hd, 2 d + h hd), y and dy
  // [B T][d], the matrices [B H][T][T].
  Side q_side(uint32_t part) const { return {part * d, 3 * d, T * 3 * d, hd}; }
  Side o_side() const { return {0, d, T * d, hd}; }
  Side s_side() const { return {0, T, H * T * T, T * T}; }
  uint64_t att_floats() const { return uint64_t(B) * H * T * T; }

  // fp32 (matmul_batched): C_z (+)= op(A_z) op(B_z) per (batch, head), the same layouts as bmm.
  void bmm32(const Range& a, Side as, const Range& b, Side bs, const Range& c, Side cs, uint32_t M,
             uint32_t N, uint32_t K, uint32_t flags) {
    using namespace bm32::binding;
    Buffer ub = uni(bmdims, batch_dims<bm32::BmmDims>(as, bs, cs, M, N, K, flags));
    const uint32_t tiles = ((M + 63) / 64) * ((N + 63) / 64);
    add_k(bm32::Kernel{}, {a.at(bma), b.at(bmb), c.at(bmc), whole(ub).at(bmdims)}, tiles, 1, B * H);
  }
  // The fp32 forward: S = Q K^T (the tiles above the diagonal skipped: the softmax reads j <= i
  // only), P = causal softmax in place, O = P V (k up to each tile's last row).
  void mat32_attention_forward(const Acts::Layer& L) {
    const uint32_t TB = matmul::kTransB;
    bmm32(whole(L.qkv), q_side(0), whole(L.qkv), q_side(1), whole(L.att), s_side(), T, T, hd,
          TB | kCausalTiles);
    namespace sm = att::attn_softmax_mat;
    add_flat_k(sm::Kernel{},
               {whole(attn_u).at(sm::binding::p_smat), whole(L.att).at(sm::binding::att_smat)},
               uint64_t(B) * H * T);  // a workgroup per row
    bmm32(whole(L.att), s_side(), whole(L.qkv), q_side(2), whole(L.y), o_side(), T, hd, T, kKToRow);
  }
  // The fp32 backward after attn_dsum: dV = P^T dO (k from each tile's first row), dP = dO V^T
  // (tiles above the diagonal skipped: attn_dscores_mat reads j <= i only), dS in place,
  // dQ = dS K (k up to the tile's last row), dK = dS^T Q (k from its first row).
  void mat32_attention_backward(const Acts::Layer& L) {
    const uint32_t TA = matmul::kTransA, TB = matmul::kTransB;
    const Range dqkv = whole(A.dqkv), ds = whole(A.dscores), qkv = whole(L.qkv);
    bmm32(whole(L.att), s_side(), whole(A.dy), o_side(), dqkv, q_side(2), T, hd, T, TA | kKFromRow);
    bmm32(whole(A.dy), o_side(), qkv, q_side(2), ds, s_side(), T, T, hd, TB | kCausalTiles);
    namespace dm = att::attn_dscores_mat;
    add_flat_k(
        dm::Kernel{},
        {whole(attn_u).at(dm::binding::p_dsmat), whole(L.att).at(dm::binding::att_dsmat),
         whole(A.dsum).at(dm::binding::dsum_dsmat), whole(A.dscores).at(dm::binding::ds_dsmat)},
        dm::Kernel::workgroups(att_floats()));
    bmm32(ds, s_side(), qkv, q_side(1), dqkv, q_side(0), T, hd, T, kKToRow);
    bmm32(ds, s_side(), qkv, q_side(0), dqkv, q_side(1), T, hd, T, TA | kKFromRow);
  }

  // S = Q K^T (raw), P = causal softmax(scale S) in place (L.att), O = P V into y.
  void mat_attention_forward(const Acts::Layer& L) {
    if (!m.gopt_.mixed) return mat32_attention_forward(L);
    using namespace subgroup_matrix;
    const Range qkv16 = half_of(whole(L.qkv), R * 3 * d);
    bmm(qkv16, q_side(0), qkv16, q_side(1), whole(L.att), s_side(), T, T, hd, TRANS_B);
    namespace sm = att::attn_softmax_mat;
    add_flat_k(sm::Kernel{},
               {whole(attn_u).at(sm::binding::p_smat), whole(L.att).at(sm::binding::att_smat)},
               uint64_t(B) * H * T);  // a workgroup per row
    const Range p16 = half_of(whole(L.att), att_floats());
    bmm(p16, s_side(), qkv16, q_side(2), whole(L.y), o_side(), T, hd, T, 0);
  }
  // After attn_dsum: dV = P^T dO, dP = dO V^T (into dscores), dS = scale P (dP - dsum) in place,
  // dQ = dS K, dK = dS^T Q, each into its columns of dqkv.
  void mat_attention_backward(const Acts::Layer& L) {
    if (!m.gopt_.mixed) return mat32_attention_backward(L);
    using namespace subgroup_matrix;
    const Range qkv16 = half_of(whole(L.qkv), R * 3 * d);   // the forward's copy (still fresh)
    const Range p16 = half_of(whole(L.att), att_floats());  // likewise
    const Range do16 = half_of(whole(A.dy), R * d);
    const Range dqkv = whole(A.dqkv);
    bmm(p16, s_side(), do16, o_side(), dqkv, q_side(2), T, hd, T, TRANS_A);
    bmm(do16, o_side(), qkv16, q_side(2), whole(A.dscores), s_side(), T, T, hd, TRANS_B);
    namespace dm = att::attn_dscores_mat;
    add_flat_k(
        dm::Kernel{},
        {whole(attn_u).at(dm::binding::p_dsmat), whole(L.att).at(dm::binding::att_dsmat),
         whole(A.dsum).at(dm::binding::dsum_dsmat), whole(A.dscores).at(dm::binding::ds_dsmat)},
        dm::Kernel::workgroups(att_floats()));
    const Range ds16 = half_of(whole(A.dscores), att_floats());
    bmm(ds16, s_side(), qkv16, q_side(1), dqkv, q_side(0), T, hd, T, 0);
    bmm(ds16, s_side(), qkv16, q_side(0), dqkv, q_side(1), T, hd, T, TRANS_A);
  }

  // Block l: x -> ln1 -> qkv -> attention -> proj (+ x) -> ln2 -> fc -> GELU -> proj (+ xm).
  void layer_forward(uint32_t l) {
    auto& L = A.layers[l];
    const std::string p = "h." + std::to_string(l) + ".";
    const Buffer& xnext = l + 1 < m.cfg_.layers ? A.layers[l + 1].x : A.xL;
    ln_fwd(L.x, p + "ln1", L.h1, L.mean1, L.rstd1);
    Range bq = W(p + "attn.qkv.bias");
    mm(whole(L.h1), W(p + "attn.qkv.weight"), whole(L.qkv), &bq,
       matmul::Dims::forward(R, d, 3 * d));
    attention_forward(L);
    Range bo = W(p + "attn.proj.bias");
    mm(whole(L.y), W(p + "attn.proj.weight"), whole(A.t_d), &bo, matmul::Dims::forward(R, d, d));
    residual_add(L.x, L.xm);
    ln_fwd(L.xm, p + "ln2", L.h2, L.mean2, L.rstd2);
    Range bf = W(p + "mlp.fc.bias");
    mm(whole(L.h2), W(p + "mlp.fc.weight"), whole(L.f), &bf, matmul::Dims::forward(R, d, F));
    add_flat_k(ew::gelu_forward::Kernel{},
               {whole(L.f).at(ew::gelu_forward::binding::gf_x),
                whole(L.g).at(ew::gelu_forward::binding::gf_y),
                whole(u_f).at(ew::gelu_forward::binding::gf_dims)},
               ew_wg(R * F));
    Range bp = W(p + "mlp.proj.bias");
    mm(whole(L.g), W(p + "mlp.proj.weight"), whole(A.t_d), &bp, matmul::Dims::forward(R, F, d));
    residual_add(L.xm, xnext);
  }

  // The final layernorm and logits = lnf wte^T (B = wte stored [V, d] = [N, K]: TRANS_B).
  void logits() {
    ln_fwd(A.xL, "lnf", A.hf, A.meanf, A.rstdf);
    mm(whole(A.hf), W("wte"), whole(A.logits), nullptr,
       matmul::Dims{uint32_t(R), V, d, matmul::kTransB});
  }

  loss::Shape loss_shape() const { return {uint32_t(R), V, 0xFFFFFFFFu}; }

  // Per-row cross-entropy and its mean (stats).
  void loss_forward() {
    add_flat_k(ce_fwd::Kernel{},
               {whole(A.logits).at(ce_fwd::binding::cf_logits),
                whole(A.targets).at(ce_fwd::binding::cf_targets),
                whole(A.loss_rows).at(ce_fwd::binding::cf_loss),
                whole(A.lse_ce).at(ce_fwd::binding::cf_lse), whole(ce_u).at(ce_fwd::binding::cf)},
               loss::row_workgroups(loss_shape()));
    add_flat_k(
        ce_mean::Kernel{},
        {whole(A.loss_rows).at(ce_mean::binding::cm_loss),
         whole(A.targets).at(ce_mean::binding::cm_targets),
         whole(A.stats).at(ce_mean::binding::cm_stats), whole(ce_u).at(ce_mean::binding::cm)},
        1);
  }

  // dlogits, then through the logits product (dlnf, d wte) and the final layernorm into dres.
  void loss_backward() {
    {
      using namespace ce_bwd::binding;
      add_flat_k(ce_bwd::Kernel{},
                 {whole(A.logits).at(cb_logits), whole(A.targets).at(cb_targets),
                  whole(A.lse_ce).at(cb_lse), whole(A.stats).at(cb_stats),
                  whole(A.dlogits).at(cb_dlogits), whole(ce_u).at(cb)},
                 loss::row_workgroups(loss_shape()));
    }
    // dlnf = dlogits wte (B = wte stored [K=V, N=d]); d wte = dlogits^T lnf
    mm(whole(A.dlogits), W("wte"), whole(A.dh), nullptr, matmul::Dims{uint32_t(R), d, V, 0});
    mm(whole(A.dlogits), whole(A.hf), G("wte"), nullptr,
       matmul::Dims{V, d, uint32_t(R), matmul::kTransA});
    ln_bwd(A.xL, "lnf", A.dh, A.meanf, A.rstdf, A.dres);
  }

  // dqkv from dy (the attention output's gradient) of layer L, after attn_dsum.
  void attention_backward(const Acts::Layer& L) {
    {
      namespace ds = att::attn_dsum;
      add_flat_k(ds::Kernel{},
                 {whole(attn_u).at(ds::binding::p_dsum), whole(L.y).at(ds::binding::out_dsum),
                  whole(A.dy).at(ds::binding::dout_dsum), whole(A.dsum).at(ds::binding::dsum)},
                 ds::Kernel::workgroups(uint64_t(B) * H * T));
    }
    if (mat) return mat_attention_backward(L);
    if (fa2) {
      using namespace fa2b::binding;
      for (const auto& k :
           attention::fa2_backward_dispatches(attention::make_shape(B, T, H, hd), fa2_bwd))
        add_k(fa2b::Kernel{},
              {whole(attn_u).at(p_dsf), whole(L.qkv).at(qkv_dsf), whole(A.dy).at(dout_dsf),
               whole(L.lse).at(lse_dsf), whole(A.dsum).at(dsum_dsf), whole(A.dqkv).at(dqkv_dsf)},
              k.x, k.y, k.z, k.kernel);
      return;
    }
    namespace dsc = att::attn_dscores;
    namespace dq = att::attn_dqkv;
    add_flat_k(
        dsc::Kernel{},
        {whole(attn_u).at(dsc::binding::p_dscores), whole(L.qkv).at(dsc::binding::qkv_dscores),
         whole(L.att).at(dsc::binding::att_dscores), whole(A.dy).at(dsc::binding::dout_dscores),
         whole(A.dsum).at(dsc::binding::dsum_dscores), whole(A.dscores).at(dsc::binding::dscores)},
        dsc::Kernel::workgroups(uint64_t(B) * H * T * T));
    add_flat_k(
        dq::Kernel{},
        {whole(attn_u).at(dq::binding::p_dqkv), whole(L.qkv).at(dq::binding::qkv_dqkv),
         whole(L.att).at(dq::binding::att_dqkv), whole(A.dy).at(dq::binding::dout_dqkv),
         whole(A.dscores).at(dq::binding::dscores_dqkv), whole(A.dqkv).at(dq::binding::dqkv_naive)},
        dq::Kernel::workgroups(R * 3 * d));
  }

  // Block l backward: dres (the gradient of its output) through the MLP, ln2, the attention and
  // ln1, each residual branch added back into dres; parameter gradients into G.
  void layer_backward(uint32_t l) {
    auto& L = A.layers[l];
    const std::string p = "h." + std::to_string(l) + ".";
    // MLP: x_{l+1} = xm + g Wfc2 + b
    mm(whole(A.dres), W(p + "mlp.proj.weight"), whole(A.dff_a), nullptr,
       matmul::Dims::grad_input(R, F, d));
    mm(whole(L.g), whole(A.dres), G(p + "mlp.proj.weight"), nullptr,
       matmul::Dims::grad_weight(R, F, d));
    bias_grad(whole(A.dres), G(p + "mlp.proj.bias"), R, d);
    add_flat_k(ew::gelu_backward::Kernel{},
               {whole(L.f).at(ew::gelu_backward::binding::gb_x),
                whole(A.dff_a).at(ew::gelu_backward::binding::gb_dy),
                whole(A.dff_b).at(ew::gelu_backward::binding::gb_dx),
                whole(u_f).at(ew::gelu_backward::binding::gb_dims)},
               ew_wg(R * F));
    mm(whole(A.dff_b), W(p + "mlp.fc.weight"), whole(A.dh), nullptr,
       matmul::Dims::grad_input(R, d, F));
    mm(whole(L.h2), whole(A.dff_b), G(p + "mlp.fc.weight"), nullptr,
       matmul::Dims::grad_weight(R, d, F));
    bias_grad(whole(A.dff_b), G(p + "mlp.fc.bias"), R, F);
    ln_bwd(L.xm, p + "ln2", A.dh, L.mean2, L.rstd2, A.dx);
    residual_add_inplace();
    // attention: xm = x + y Wo + b
    mm(whole(A.dres), W(p + "attn.proj.weight"), whole(A.dy), nullptr,
       matmul::Dims::grad_input(R, d, d));
    mm(whole(L.y), whole(A.dres), G(p + "attn.proj.weight"), nullptr,
       matmul::Dims::grad_weight(R, d, d));
    bias_grad(whole(A.dres), G(p + "attn.proj.bias"), R, d);
    attention_backward(L);
    mm(whole(A.dqkv), W(p + "attn.qkv.weight"), whole(A.dh), nullptr,
       matmul::Dims::grad_input(R, d, 3 * d));
    mm(whole(L.h1), whole(A.dqkv), G(p + "attn.qkv.weight"), nullptr,
       matmul::Dims::grad_weight(R, d, 3 * d));
    bias_grad(whole(A.dqkv), G(p + "attn.qkv.bias"), R, 3 * d);
    ln_bwd(L.x, p + "ln1", A.dh, L.mean1, L.rstd1, A.dx);
    residual_add_inplace();
  }

  // d wpe (the bias gradient over the batch) and d wte's lookup part (deterministic scatter).
  void embedding_backward() {
    bias_grad(whole(A.dres), G("wpe"), B, T * d);
    namespace eb = emb::embed_backward_deterministic;
    add_flat_k(
        eb::Kernel{},
        {whole(A.tokens).at(eb::binding::tokens), whole(A.dres).at(eb::binding::grad_out),
         G("wte").at(eb::binding::grad_table), whole(A.embed_bwd_u).at(eb::binding::dims),
         whole(A.order).at(eb::binding::order), whole(A.seg_start).at(eb::binding::seg_start)},
        eb::Kernel::workgroups(R * d));
  }
};

void GpuGpt::build() {
  a_ = std::make_unique<Acts>();
  make_buffers();
  StepBuilder s(*this);
  // ---- forward ----
  s.embedding_forward();
  for (uint32_t l = 0; l < cfg_.layers; ++l) s.layer_forward(l);
  s.logits();
  s.flush_reduces();
  logits_end_ = ops_.size();
  s.loss_forward();
  s.flush_reduces();
  fwd_end_ = ops_.size();
  // ---- backward ----
  s.loss_backward();
  for (uint32_t l = cfg_.layers; l-- > 0;) s.layer_backward(l);
  s.embedding_backward();
  if (gopt_.mixed) s.unscale_grads();
  s.flush_reduces();
}

void GpuGpt::check_mixed(const optimizer::AdamWOptions& adamw) {
  const std::string dev = dev_.adapter_name();
  if (!dev_.has_feature(Feature::ShaderF16))
    throw std::invalid_argument(
        "mixed precision needs the shader-f16 feature (f16 storage and "
        "arithmetic); the device '" +
        dev + "' lacks it");
  if (adamw.precision != optimizer::StatePrecision::F16Mirror)
    throw std::invalid_argument(
        "mixed precision reads the weights' f16 copy from the optimizer's f16 mirror: the "
        "optimizer state must be f16_mirror, not " +
        std::string(optimizer::precision_name(adamw.precision)));
  float s = gopt_.loss_scale;
  if (s == 0.0f) {  // auto: 32 x rows, rounded down to a power of two, within [1, 2^24]
    const double want = std::min(0x1p24, 32.0 * double(batch_) * cfg_.context);
    int ex = 0;
    std::frexp(want, &ex);
    s = float(std::ldexp(1.0, ex - 1));
  }
  loss_scale_ = s;
  int e = 0;
  if (!(s >= 1.0f && s <= 0x1p24f) || std::frexp(s, &e) != 0.5f)
    throw std::invalid_argument("mixed precision: the loss scale " + std::to_string(s) +
                                " is not a power of two in [1, 2^24]");
  const uint32_t need = mixed_sgmm_min_workgroup_storage();
  const bool sgmm_ok = dev_.has_feature(Feature::SubgroupMatrix) &&
                       dev_.limits().max_compute_workgroup_storage_size >= need;
  if (gopt_.mixed_kernel == MixedKernel::Sgmm && !sgmm_ok)
    throw std::invalid_argument(
        "mixed precision on subgroup matrices needs the chromium-experimental-subgroup-matrix "
        "feature and " +
        std::to_string(need) + " bytes of workgroup memory (sgmm_f16_tiled4_d4's); the device '" +
        dev + "' has " + std::to_string(dev_.limits().max_compute_workgroup_storage_size) +
        " bytes" + (dev_.has_feature(Feature::SubgroupMatrix) ? "" : " and not the feature"));
  mixed_kernel_ = gopt_.mixed_kernel == MixedKernel::F16In || !sgmm_ok ? std::string(f16in::name)
                                                                       : std::string(sgmm::name);
  mat_attention_ = !gopt_.mixed_attention_fa2 &&
                   materialized_attention(dev_, mixed_kernel_ == sgmm::name, batch_, cfg_.context,
                                          cfg_.heads, cfg_.layers);
}

std::optional<subgroup_matrix::Plan> mixed_product_plan(const subgroup_matrix::Dims& d,
                                                        uint32_t workgroup_storage) {
  const subgroup_matrix::Plan p = subgroup_matrix::plan(d);
  if (kernel(p.kernel).workgroup_storage_bytes <= workgroup_storage) return p;
  const uint32_t least = mixed_sgmm_min_workgroup_storage();
  if (least > workgroup_storage) return std::nullopt;
  // The name's view is of the header's string literal: null-terminated, as Plan::kernel is.
  return subgroup_matrix::Plan{sgmm_t4::name.data(), subgroup_matrix::workgroups(d), least};
}

uint32_t mixed_sgmm_min_workgroup_storage() {
  const uint32_t t4 = sgmm_t4::Kernel::info().workgroup_storage_bytes;
  // tiled4_d4 (64x64 blocks) needs the least of plan()'s kernels; the reflection says so or this
  // fallback would be wrong.
  if (t4 > sgmm::Kernel::info().workgroup_storage_bytes ||
      t4 > sgmm_d4::Kernel::info().workgroup_storage_bytes)
    throw std::logic_error("sgmm_f16_tiled4_d4 needs more workgroup memory than tiled8_d2/d4");
  return t4;
}

uint32_t GpuGpt::read_f16_overflow() {
  if (!a_->f16_overflow) return 0;
  return read<uint32_t>(dev_, a_->f16_overflow, 0, 1)[0];
}

std::vector<GpuGpt::CastStat> GpuGpt::cast_stats(const Batch& b) {
  if (!gopt_.mixed) throw std::invalid_argument("cast_stats: the model is not mixed precision");
  upload(b);
  std::vector<CastStat> out;
  size_t next = 0;
  for (size_t i = 0; i < ops_.size(); ++i) {
    CommandEncoder enc = dev_.create_command_encoder({"gpt.cast_stats"});
    record_ops(enc, i, i + 1, "gpt.cast_stats");
    dev_.queue().submit(enc.finish());
    if (next >= casts_.size() || casts_[next].op != i) continue;
    const CastOp& c = casts_[next++];
    auto x = read<float>(dev_, c.src, c.src_offset, c.floats);
    auto h = read<uint16_t>(dev_, c.dst, 0, c.floats);
    CastStat st;
    st.what = std::string(i < fwd_end_ ? "fwd " : "bwd ") + c.src.label();
    st.count = c.floats;
    for (uint64_t k = 0; k < c.floats; ++k) {
      const bool zero = (h[k] & 0x7fffu) == 0, inf_nan = (h[k] & 0x7c00u) == 0x7c00u;
      st.nonzero += x[k] != 0.0f;
      st.zero_from_nonzero += zero && x[k] != 0.0f;
      st.subnormal += !zero && (h[k] & 0x7c00u) == 0;
      st.not_finite += inf_nan;
      st.max_abs = std::max(st.max_abs, double(std::fabs(x[k])));
    }
    out.push_back(st);
  }
  dev_.wait_idle();
  return out;
}

void GpuGpt::make_buffers() {
  Acts& A = *a_;
  const uint32_t B = batch_, T = cfg_.context, d = cfg_.d_model, F = cfg_.d_ff(), V = cfg_.vocab;
  const uint32_t H = cfg_.heads;
  const uint64_t R = uint64_t(B) * T;
  const bool fa2 = gopt_.attention != AttentionImpl::Naive;
  const bool mat = mat_attention_;
  auto buf = [&](const std::string& label, uint64_t floats) {
    return utils::make_buffer(dev_, label, floats * 4);
  };
  for (uint32_t l = 0; l < cfg_.layers; ++l) {
    Acts::Layer L;
    std::string p = "gpt.l" + std::to_string(l) + ".";
    L.x = buf(p + "x", R * d);
    L.h1 = buf(p + "ln1", R * d);
    L.mean1 = buf(p + "mean1", R);
    L.rstd1 = buf(p + "rstd1", R);
    L.qkv = buf(p + "qkv", R * 3 * d);
    if (!fa2 || mat) L.att = buf(p + "att", uint64_t(B) * H * T * T);
    L.y = buf(p + "attn_out", R * d);
    L.lse = buf(p + "lse", uint64_t(B) * H * T);
    L.xm = buf(p + "xm", R * d);
    L.h2 = buf(p + "ln2", R * d);
    L.mean2 = buf(p + "mean2", R);
    L.rstd2 = buf(p + "rstd2", R);
    L.f = buf(p + "fc", R * F);
    L.g = buf(p + "gelu", R * F);
    A.layers.push_back(L);
  }
  A.xL = buf("gpt.xL", R * d);
  A.hf = buf("gpt.lnf", R * d);
  A.meanf = buf("gpt.meanf", R);
  A.rstdf = buf("gpt.rstdf", R);
  A.logits = buf("gpt.logits", R * V);
  A.loss_rows = buf("gpt.loss_rows", R);
  A.lse_ce = buf("gpt.lse_ce", R);
  A.stats = buf("gpt.stats", 4);
  A.tokens = buf("gpt.tokens", R);
  A.targets = buf("gpt.targets", R);
  A.order = buf("gpt.order", R);
  A.seg_start = buf("gpt.seg_start", R + 1);
  A.t_d = buf("gpt.tmp_d", R * d);
  A.dres = buf("gpt.dres", R * d);
  A.dx = buf("gpt.dx", R * d);
  A.dff_a = buf("gpt.dff_a", R * F);
  A.dff_b = buf("gpt.dff_b", R * F);
  A.dh = buf("gpt.dh", R * d);
  A.dy = buf("gpt.dy", R * d);
  A.dsum = buf("gpt.dsum", uint64_t(B) * H * T);
  A.dqkv = buf("gpt.dqkv", R * 3 * d);
  if (!fa2 || mat) A.dscores = buf("gpt.dscores", uint64_t(B) * H * T * T);
  A.dlogits = buf("gpt.dlogits", R * V);
  const norm::Shape ns{uint32_t(R), d};
  const uint32_t rpb = norm::lean_rows_per_block(ns);  // the lean pair's default blocks
  A.partials = buf("gpt.ln_partials", norm::partials_count(ns, rpb));
  A.loss_log = buf("gpt.loss_log", kLossLogSlots);
  A.dummy = buf("gpt.no_bias", 4);
  if (gopt_.matmul == MatmulImpl::NativeAutoFwd) {
    A.one_row = utils::make_buffer(dev_, "gpt.one_row", 16);
    const float one_row[4] = {1.0f, 0.0f, 0.0f, 0.0f};
    write<float>(dev_, A.one_row, one_row);
  }
  if (gopt_.mixed) A.f16_overflow = buf("gpt.f16_overflow", 1);
}

void GpuGpt::set_params(const std::vector<std::vector<float>>& values) {
  auto specs = param_specs(cfg_);
  if (values.size() != specs.size()) throw std::invalid_argument("set_params: wrong tensor count");
  for (size_t i = 0; i < specs.size(); ++i) opt_->set_weights(specs[i].name, values[i]);
}

std::vector<std::vector<float>> GpuGpt::read_params() {
  std::vector<std::vector<float>> out;
  for (const auto& s : param_specs(cfg_)) out.push_back(opt_->read_weights(s.name));
  return out;
}

std::vector<std::vector<float>> GpuGpt::read_grads() {
  std::vector<std::vector<float>> out;
  for (const auto& s : param_specs(cfg_)) out.push_back(opt_->read_grads(s.name));
  return out;
}

void GpuGpt::upload(const Batch& b) {
  const uint64_t R = uint64_t(batch_) * cfg_.context;
  if (b.tokens.size() != R || b.targets.size() != R)
    throw std::invalid_argument("GpuGpt: batch has " + std::to_string(b.tokens.size()) +
                                " tokens, the model takes " + std::to_string(R));
  Acts& A = *a_;
  write<uint32_t>(dev_, A.tokens, b.tokens);
  write<uint32_t>(dev_, A.targets, b.targets);
  auto seg = embedding::ref::deterministic_segments(b.tokens, cfg_.vocab);
  if (!seg.order.empty()) write<uint32_t>(dev_, A.order, seg.order);
  write<uint32_t>(dev_, A.seg_start, seg.seg_start);
  write_uniform(dev_, kernels::embedding::embed_backward_deterministic::binding::dims,
                A.embed_bwd_u, {uint32_t(R), cfg_.d_model, cfg_.vocab, seg.count()});
}

void GpuGpt::record_ops(CommandEncoder& enc, size_t begin, size_t end, const std::string& label,
                        const QuerySet* timestamps) {
  ComputePass pass = enc.begin_compute_pass({label});
  if (timestamps) pass.write_timestamp(*timestamps, uint32_t(begin));
  for (size_t i = begin; i < end; ++i) {
    ops_[i].record(pass);
    if (timestamps) pass.write_timestamp(*timestamps, uint32_t(i + 1));
  }
  pass.end();
}

std::vector<GpuGpt::ProfileRow> GpuGpt::profile_step(const Batch& b, float lr, uint32_t slot) {
  if (!dev_.has_feature(Feature::TimestampQuery))
    throw std::runtime_error("profile_step: the device lacks timestamp-query");
  if (slot >= kLossLogSlots)
    throw std::invalid_argument("profile_step: loss-log slot out of range");
  const uint32_t n = uint32_t(ops_.size());
  QuerySet qs = dev_.create_query_set(
      {.label = "gpt.profile",
       .count = uint32_t(n + 1 + optimizer::MultiTensorAdamW::kStepTimestamps)});
  upload(b);
  opt_->set_lr(lr);
  CommandEncoder enc = dev_.create_command_encoder({"gpt.step.profiled"});
  record_ops(enc, 0, ops_.size(), "gpt.forward_backward", &qs);
  enc.copy_buffer_to_buffer(a_->stats, 0, a_->loss_log, uint64_t(slot) * 4, 4);
  opt_->record_step(enc, qs, n + 1);
  dev_.queue().submit(enc.finish());
  auto ts = dev_.read_timestamps(qs);
  std::vector<ProfileRow> rows;
  std::map<std::string, size_t> at;
  auto add = [&](const std::string& k, double ms) {
    auto it = at.find(k);
    if (it == at.end()) {
      it = at.emplace(k, rows.size()).first;
      rows.push_back({k, 0, 0});
    }
    rows[it->second].dispatches += 1;
    rows[it->second].ms += ms;
  };
  auto dt = [&](uint32_t a, uint32_t b) {
    return ts[b] >= ts[a] ? double(ts[b] - ts[a]) * 1e-6 : 0.0;
  };
  for (uint32_t i = 0; i < n; ++i)
    add(std::string(i < fwd_end_ ? "fwd " : "bwd ") + ops_[i].label, dt(i, i + 1));
  const char* phases[4] = {"adamw reduce_norm_sq", "adamw finalize_grad_stats",
                           "adamw update (decay block)", "adamw update (no-decay block)"};
  for (uint32_t p = 0; p < 4; ++p) add(phases[p], dt(n + 1 + p, n + 2 + p));
  return rows;
}

void GpuGpt::train_step(const Batch& b, float lr, uint32_t slot) {
  if (slot >= kLossLogSlots) throw std::invalid_argument("train_step: loss-log slot out of range");
  upload(b);
  opt_->set_lr(lr);
  if (is_traced(dev_)) {  // a WebGPU replay submits a command buffer once: encode every step
    CommandEncoder enc = dev_.create_command_encoder({"gpt.step"});
    record_ops(enc, 0, ops_.size(), "gpt.forward_backward");
    enc.copy_buffer_to_buffer(a_->stats, 0, a_->loss_log, uint64_t(slot) * 4, 4);
    opt_->record_step(enc);
    dev_.queue().submit(enc.finish());
    return;
  }
  // The forward and backward never change: encoded once, resubmitted every step (the batch
  // arrived by the queue writes above, which run first). The loss-log slot and the optimizer's
  // step (its bias-correction write) change: a small buffer of their own after it.
  if (!step_cb_) {
    CommandEncoder enc = create_reusable_command_encoder(dev_, "gpt.forward_backward");
    record_ops(enc, 0, ops_.size(), "gpt.forward_backward");
    step_cb_ = enc.finish();
  }
  dev_.queue().submit(step_cb_);
  CommandEncoder enc = dev_.create_command_encoder({"gpt.step"});
  enc.copy_buffer_to_buffer(a_->stats, 0, a_->loss_log, uint64_t(slot) * 4, 4);
  opt_->record_step(enc);
  dev_.queue().submit(enc.finish());
}

void GpuGpt::forward_backward(const Batch& b) {
  upload(b);
  CommandEncoder enc = dev_.create_command_encoder({"gpt.fwd_bwd"});
  record_ops(enc, 0, ops_.size(), "gpt.forward_backward");
  dev_.queue().submit(enc.finish());
  dev_.wait_idle();
}

float GpuGpt::eval_loss(const Batch& b) {
  upload(b);
  CommandEncoder enc = dev_.create_command_encoder({"gpt.eval"});
  record_ops(enc, 0, fwd_end_, "gpt.forward");
  dev_.queue().submit(enc.finish());
  return read<float>(dev_, a_->stats, 0, 1)[0];
}

std::vector<float> GpuGpt::read_loss_log(uint32_t n) {
  return read<float>(dev_, a_->loss_log, 0, std::min(n, kLossLogSlots));
}

std::vector<float> GpuGpt::logits_row(const std::vector<uint32_t>& tokens, uint32_t row) {
  Batch b;
  b.tokens = tokens;
  b.targets.assign(tokens.size(), 0);
  upload(b);
  CommandEncoder enc = dev_.create_command_encoder({"gpt.logits"});
  record_ops(enc, 0, logits_end_, "gpt.forward");
  dev_.queue().submit(enc.finish());
  return read<float>(dev_, a_->logits, uint64_t(row) * cfg_.vocab * 4, cfg_.vocab);
}

}  // namespace wgslvk::gpt
