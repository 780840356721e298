#include "adamw.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "reference.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update_vec4.hpp"
#include "wgslvk/kernels/optimizer/adamw_one_call.hpp"
#include "wgslvk/kernels/optimizer/adamw_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_update_f16.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats.hpp"
#include "wgslvk/kernels/optimizer/finalize_grad_stats_partials.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq.hpp"
#include "wgslvk/kernels/optimizer/reduce_norm_sq_partials.hpp"
#include "wgslvk/numeric.hpp"

namespace wgslvk::optimizer {
namespace {

// The kernels, by their generated headers (wgslvk/kernels/optimizer/<entry>.hpp).
namespace ko = wgslvk::kernels::optimizer;
// Elements per workgroup of every update kernel (256 invocations of one element; the vec4 8-bit
// update: 64 of 4) and invocations per workgroup of the reduces.
constexpr uint32_t kWG = uint32_t(ko::adamw_update::Kernel::workgroup_threads);
static_assert(ko::adamw_update_f16::Kernel::workgroup_threads == kWG &&
              ko::adamw_8bit_update::Kernel::workgroup_threads == kWG &&
              ko::adamw_8bit_update_vec4::Kernel::workgroup_threads * 4 == kWG &&
              ko::adamw_one_call::Kernel::workgroup_threads == kWG &&
              ko::reduce_norm_sq::Kernel::workgroup_threads == kWG &&
              ko::reduce_norm_sq_partials::Kernel::workgroup_threads == kWG);
// Atomic norm: ceil(sqrt(ceil(n/256))) workgroups, at most 1024. The CAS chain on the one word
// costs ~0.35 us per workgroup (1024 wg: a fixed ~0.36 ms at any n) and one grid-stride
// workgroup reads ~2.8 GB/s (64 wg at 128M: 180 GB/s), so t(w) ~ 4n/(w * 2.8 GB/s) + w * 0.35 us
// is smallest near w = sqrt(n/256). H200, wgslvk bench --only norm,step (bench/results/
// h200-2026-11-22-norm), ms for this rule vs a constant 1024 / 256 workgroups:
//   1M 0.034 (64 wg) vs 0.358 / 0.077; 16M 0.174 (256) vs 0.379 / 0.174;
//   64M 0.338 (512) vs 0.454 / 0.449; 128M 0.495 (725) vs 0.555 / 0.814.
// Still 13-26% of the copy roofline: the serialized CAS is the seed's design (NormMode::Atomic).
constexpr uint32_t kAtomicMaxWorkgroups = 1024;
// Deterministic norm: ceil(n / (256 * 4)) partials, at most 1024 (the same run, pair of
// reduce_norm_sq_partials + finalize_grad_stats_partials in one pass, ms by partial count
// 512 / 1024 / 2048 / 4096 / 8192):
//   1M   0.0120 / 0.0120 / 0.0136 / 0.0159 / -       4M  0.0192 / 0.0154 / 0.0166 / 0.0192 / 0.0241
//   16M  0.0694 / 0.0456 / 0.0463 / 0.0481 / 0.0530  64M 0.2184 / 0.1252 / 0.1254 / 0.1288 / 0.1329
//   128M 0.4160 / 0.2307 / 0.2296 / 0.2324 / 0.2355
// 1024 is best or within 0.5% everywhere (about one resident wave: 132 SMs x 8 workgroups); 512
// lacks memory parallelism from 4M up; more partials only add waves and finalize reads (the
// finalize alone: 7.7 us at 1024, 9.0 us at 8192). The reduce itself stays at ~57% of the copy
// roofline at any count >= 1024: the limit is the kernel's shape (presumably its scalar loads
// in a grid-stride loop), not the launch. Below 1M elements, 4 elements per thread keeps every workgroup busy.
constexpr uint64_t kDetElemsPerThread = 4;
constexpr uint32_t kDetMaxPartials = 1024;
constexpr uint32_t kMaxNormWorkgroups = 1u << 20;
constexpr float kClipOff = 1e30f;  // min(1, 1e30 / norm) == 1, no infinity

[[noreturn]] void fail(const std::string& rule, const std::string& msg) {
  throw ValidationError(rule, msg);
}

uint64_t elements_of(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string shape_str(const std::vector<uint64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::string fmt_float(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", double(f));
  return buf;
}

}  // namespace

uint32_t default_norm_workgroups(NormMode mode, uint64_t n) {
  const uint64_t full = std::max<uint64_t>(1, div_ceil(n, kWG));  // one element per thread
  uint64_t w;
  if (mode == NormMode::Atomic) {
    w = uint64_t(std::ceil(std::sqrt(double(full))));
    while (w * w < full) ++w;  // exact integer ceil(sqrt), whatever the libm rounding
    while (w > 1 && (w - 1) * (w - 1) >= full) --w;
    w = std::min<uint64_t>(w, kAtomicMaxWorkgroups);
  } else {
    w = std::min<uint64_t>(div_ceil(full, kDetElemsPerThread), kDetMaxPartials);
  }
  return uint32_t(std::clamp<uint64_t>(w, 1, full));
}

std::string_view precision_name(StatePrecision p) {
  switch (p) {
    case StatePrecision::FP32:
      return "fp32";
    case StatePrecision::F16Mirror:
      return "f16_mirror";
    case StatePrecision::Float8Blocks:
      return "int8";
  }
  return "?";
}

void check_adamw_options(const AdamWOptions& o, const std::string& who) {
  auto refuse = [&](const std::string& what) { fail("value", who + ": " + what); };
  if (o.max_grad_norm && !(*o.max_grad_norm > 0.0f && std::isfinite(*o.max_grad_norm)))
    refuse("max_grad_norm = " + fmt_float(*o.max_grad_norm) +
           " (finite and > 0, or nullopt for no clipping)");
  if (!(o.lr >= 0.0f && std::isfinite(o.lr)))
    refuse("lr = " + fmt_float(o.lr) + " (finite and >= 0)");
  if (!(o.beta1 >= 0.0f && o.beta1 < 1.0f))
    refuse("beta1 = " + fmt_float(o.beta1) + " (in [0, 1))");
  if (!(o.beta2 >= 0.0f && o.beta2 < 1.0f))
    refuse("beta2 = " + fmt_float(o.beta2) + " (in [0, 1))");
  if (!(o.eps > 0.0f && std::isfinite(o.eps)))
    refuse("eps = " + fmt_float(o.eps) + " (finite and > 0)");
  if (!(o.weight_decay >= 0.0f && std::isfinite(o.weight_decay)))
    refuse("weight_decay = " + fmt_float(o.weight_decay) + " (finite and >= 0)");
}

// ---- layout -------------------------------------------------------------------------------------

Layout make_layout(std::span<const ParamSpec> params, StatePrecision precision, uint32_t alignment,
                   uint64_t max_binding_bytes, std::string_view caller) {
  const std::string who(caller);
  if (alignment < 4 || !std::has_single_bit(alignment))
    fail("limits", who + ": storage offset alignment " + std::to_string(alignment) +
                       " is not a power of two >= 4");
  Layout L;
  L.alignment = alignment;
  uint64_t unit = alignment / 4;  // f32 roles
  if (precision == StatePrecision::F16Mirror) unit = std::max<uint64_t>(unit, alignment / 2);
  if (precision == StatePrecision::Float8Blocks)  // codes, block scales
    unit = std::max<uint64_t>({unit, alignment, uint64_t(alignment / 4) * 256});
  L.unit = unit;

  std::map<std::string, int> seen;
  for (const auto& p : params) {
    if (p.name.empty()) fail("value", who + ": a parameter has an empty name");
    if (seen[p.name]++) fail("value", who + ": parameter '" + p.name + "' registered twice");
  }
  uint64_t pos = 0;
  for (int pass = 0; pass < 2; ++pass) {
    bool decay = pass == 0;
    pos = align_up(pos, unit);
    uint64_t begin = pos, end = pos;
    for (const auto& p : params) {
      if (p.decay != decay) continue;
      ParamEntry e{p.name, p.shape, p.decay, 0, elements_of(p.shape)};
      pos = align_up(pos, unit);
      e.offset = pos;
      pos += e.count;
      if (e.count) end = pos;
      L.params.push_back(std::move(e));
    }
    if (end == begin) pos = begin;
    (decay ? L.decay_begin : L.no_decay_begin) = begin;
    (decay ? L.decay_end : L.no_decay_end) = end;
  }
  L.total = std::max<uint64_t>(align_up(pos, unit), unit);
  // u32 indices in the kernels and the 2-D grid: one binding holds < 2^32 elements
  uint64_t limit = std::min<uint64_t>(max_binding_bytes / 4, uint64_t(1) << 31);
  L.chunk = limit / unit * unit;
  if (L.chunk == 0)
    fail("limits", who + ": maxStorageBufferBindingSize " + std::to_string(max_binding_bytes) +
                       " holds less than one layout unit (" + std::to_string(unit) +
                       " f32 elements)");
  return L;
}

// ---- construction -------------------------------------------------------------------------------

MultiTensorAdamW::MultiTensorAdamW(Device& device, std::vector<ParamSpec> params,
                                   AdamWOptions options)
    : device_(device), opt_(options) {
  if (params.empty()) fail("value", "MultiTensorAdamW: no parameters registered");
  if (opt_.precision == StatePrecision::F16Mirror && !device_.has_feature(Feature::ShaderF16))
    fail("feature",
         "MultiTensorAdamW: state precision f16_mirror needs adamw_update_f16, which "
         "needs the \"shader-f16\" feature; device '" +
             device_.adapter_name() + "' was created without it");
  check_adamw_options(opt_, "MultiTensorAdamW");
  uint64_t binding = device_.limits().max_storage_buffer_binding_size;
  if (opt_.max_binding_bytes) binding = std::min(binding, opt_.max_binding_bytes);
  layout_ = make_layout(params, opt_.precision, device_.storage_offset_alignment(), binding);
  uslot_ = std::max<uint32_t>(device_.uniform_offset_alignment(), 16);

  const uint64_t n = layout_.total;
  auto make = [&](const char* label, uint64_t bytes) {
    if (bytes > device_.limits().max_buffer_size)
      fail("limits", std::string("MultiTensorAdamW: buffer '") + label + "' needs " +
                         std::to_string(bytes) + " bytes, above maxBufferSize " +
                         std::to_string(device_.limits().max_buffer_size));
    return device_.create_buffer(
        {label, align_up(bytes, 4),
         BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst});
  };
  w_ = make("adamw.w", n * 4);
  g_ = make("adamw.g", n * 4);
  if (opt_.precision == StatePrecision::Float8Blocks) {
    mq_ = make("adamw.m_packed", n);
    vq_ = make("adamw.v_packed", n);
    ms_ = make("adamw.m_scale", n / 256 * 4);
    vs_ = make("adamw.v_scale", n / 256 * 4);
  } else {
    m_ = make("adamw.m", n * 4);
    v_ = make("adamw.v", n * 4);
  }
  if (opt_.precision == StatePrecision::F16Mirror) w16_ = make("adamw.w16", n * 2);
  stats_ = make("adamw.grad_stats", 256);
  acc_ = make("adamw.norm_sq_acc", 256);
  build_dispatches();
}

void MultiTensorAdamW::build_dispatches() {
  const Layout& L = layout_;
  const Limits& lim = device_.limits();
  std::vector<uint32_t> sizes;  // one u32 uniform per dispatch, slots 4...
  auto size_slot = [&](uint64_t count) {
    sizes.push_back(uint32_t(count));
    return uint64_t(4 + sizes.size() - 1) * uslot_;
  };
  struct Pending {
    const KernelInfo* k;
    std::vector<BindGroupEntry> e;
    Grid grid;
  };
  std::vector<Pending> norm, update;
  // uniforms_ does not exist yet: entries name it after creation (buffer filled in below)
  const uint64_t used_end = std::max(L.decay_end, L.no_decay_end);

  // gradient norm over g[0, used_end): padding is zero (or non-finite and skipped)
  if (opt_.norm_workgroups > kMaxNormWorkgroups)
    fail("value", "MultiTensorAdamW: norm_workgroups = " + std::to_string(opt_.norm_workgroups) +
                      " (at most " + std::to_string(kMaxNormWorkgroups) + "; 0: size-derived)");
  // workgroups per chunk: from the option or the chunk's size, never from the device (the
  // deterministic sum's tree is fixed by the layout)
  std::vector<uint64_t> pofs;  // partial slots of chunk k start at pofs[k] bytes (aligned)
  uint64_t pend = 0;
  norm_wgs_.clear();
  for (uint64_t c = 0; c < used_end; c += L.chunk) {
    uint64_t cnt = std::min(L.chunk, used_end - c);
    uint64_t full = std::max<uint64_t>(1, div_ceil(cnt, kWG));
    uint32_t w = opt_.norm_workgroups ? uint32_t(std::min<uint64_t>(opt_.norm_workgroups, full))
                                      : default_norm_workgroups(opt_.norm, cnt);
    norm_wgs_.push_back(w);
    pend = align_up(pend, L.alignment);
    pofs.push_back(pend);
    pend += uint64_t(w) * 4;
  }
  // slots between chunks (alignment gaps) are never written: zero from creation, they add 0
  if (opt_.norm == NormMode::Deterministic)
    partials_ =
        device_.create_buffer({"adamw.partials", std::max<uint64_t>(align_up(pend, 4), 4),
                               BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst});
  for (uint64_t c = 0, k = 0; c < used_end; c += L.chunk, ++k) {
    uint64_t cnt = std::min(L.chunk, used_end - c);
    uint64_t slot = size_slot(cnt);
    Grid grid = grid_for_workgroups(norm_wgs_[k], lim);
    if (opt_.norm == NormMode::Atomic) {
      namespace r = ko::reduce_norm_sq;
      norm.push_back(
          {&r::Kernel::info(),
           entries_for(r::Kernel::info(), {wgslvk::bind(r::binding::data, g_, c * 4, cnt * 4),
                                           wgslvk::bind(r::binding::result, acc_, 0, 4),
                                           wgslvk::bind(r::binding::n, {}, slot, 16)}),
           grid});
    } else {
      namespace r = ko::reduce_norm_sq_partials;
      norm.push_back(
          {&r::Kernel::info(),
           entries_for(r::Kernel::info(), {wgslvk::bind(r::binding::data_det, g_, c * 4, cnt * 4),
                                           wgslvk::bind(r::binding::partials, partials_, pofs[k],
                                                        uint64_t(norm_wgs_[k]) * 4),
                                           wgslvk::bind(r::binding::n_det, {}, slot, 16)}),
           grid});
    }
  }
  phases_ = {};
  phases_.reduce = uint32_t(norm.size());
  phases_.finalize = 1;
  if (opt_.norm == NormMode::Atomic) {
    namespace f = ko::finalize_grad_stats;
    norm.push_back(
        {&f::Kernel::info(),
         entries_for(f::Kernel::info(),
                     {wgslvk::bind(f::binding::norm_sq_acc, acc_, 0, 4),
                      wgslvk::bind(f::binding::grad_stats_out, stats_, 0, 8),
                      wgslvk::bind(f::binding::max_grad_norm, {}, 3 * uint64_t(uslot_), 16)}),
         {1, 1}});
  } else {
    namespace f = ko::finalize_grad_stats_partials;
    norm.push_back(
        {&f::Kernel::info(),
         entries_for(
             f::Kernel::info(),
             {wgslvk::bind(f::binding::partials_in, partials_, 0, std::max<uint64_t>(pend, 4)),
              wgslvk::bind(f::binding::grad_stats_det, stats_, 0, 8),
              wgslvk::bind(f::binding::max_grad_norm_det, {}, 3 * uint64_t(uslot_), 16)}),
         {1, 1}});
  }

  // updates: one range per block (multi-tensor) or per tensor, chunked
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [begin, end)
  std::vector<bool> decays;
  if (opt_.mode == UpdateMode::MultiTensor) {
    if (L.decay_end > L.decay_begin)
      ranges.push_back({L.decay_begin, L.decay_end}), decays.push_back(true);
    if (L.no_decay_end > L.no_decay_begin)
      ranges.push_back({L.no_decay_begin, L.no_decay_end}), decays.push_back(false);
  } else {
    for (const auto& p : L.params)
      if (p.count) ranges.push_back({p.offset, p.offset + p.count}), decays.push_back(p.decay);
  }
  const bool q8v4 =
      opt_.precision == StatePrecision::Float8Blocks && opt_.int8_update == Int8Update::Vec4;
  // adamw_8bit_update_vec4 reads w and g as whole vec4s: bind ceil(cnt/4) of them. A range ends
  // at a tensor's end; the rest of its vec4 is layout padding inside the buffer (total and every
  // chunk are multiples of unit, itself a multiple of 4 for Float8Blocks), read and never written.
  const uint64_t wg_elems_mult = q8v4 ? 4 : 1;
  for (size_t r = 0; r < ranges.size(); ++r) {
    uint64_t hp = (decays[r] ? 0 : 1) * uint64_t(uslot_), bias = 2 * uint64_t(uslot_);
    for (uint64_t c = ranges[r].first; c < ranges[r].second; c += L.chunk) {
      uint64_t cnt = std::min(L.chunk, ranges[r].second - c);
      uint64_t slot = size_slot(cnt);
      Grid grid = grid_for_workgroups(div_ceil(cnt, kWG), lim);
      // Each kernel's own slots (its generated header); the uniforms (slot, hp, bias) are
      // ranges of uniforms_, named once it exists.
      const uint64_t f32s = cnt * 4, q8_wg = align_up(cnt, wg_elems_mult) * 4;
      const uint64_t codes = align_up(cnt, 4), scales = div_ceil(cnt, 256) * 4;
      if (opt_.precision == StatePrecision::Float8Blocks && q8v4) {
        namespace q = ko::adamw_8bit_update_vec4;
        namespace b = q::binding;
        update.push_back(
            {&q::Kernel::info(),
             entries_for(
                 q::Kernel::info(),
                 {wgslvk::bind(b::w_v4, w_, c * 4, q8_wg), wgslvk::bind(b::g_v4, g_, c * 4, q8_wg),
                  wgslvk::bind(b::m_packed_v4, mq_, c, codes),
                  wgslvk::bind(b::v_packed_v4, vq_, c, codes),
                  wgslvk::bind(b::m_scale_v4, ms_, c / 256 * 4, scales),
                  wgslvk::bind(b::v_scale_v4, vs_, c / 256 * 4, scales),
                  wgslvk::bind(b::grad_stats_v4, stats_, 0, 8),
                  wgslvk::bind(b::size_v4, {}, slot, 16), wgslvk::bind(b::hp_v4, {}, hp, 16),
                  wgslvk::bind(b::bias_v4, {}, bias, 16)}),
             grid});
      } else if (opt_.precision == StatePrecision::Float8Blocks) {
        namespace q = ko::adamw_8bit_update;
        namespace b = q::binding;
        update.push_back(
            {&q::Kernel::info(),
             entries_for(
                 q::Kernel::info(),
                 {wgslvk::bind(b::w_q8, w_, c * 4, q8_wg), wgslvk::bind(b::g_q8, g_, c * 4, q8_wg),
                  wgslvk::bind(b::m_packed, mq_, c, codes),
                  wgslvk::bind(b::v_packed, vq_, c, codes),
                  wgslvk::bind(b::m_scale, ms_, c / 256 * 4, scales),
                  wgslvk::bind(b::v_scale, vs_, c / 256 * 4, scales),
                  wgslvk::bind(b::grad_stats_q8, stats_, 0, 8),
                  wgslvk::bind(b::size_q8, {}, slot, 16), wgslvk::bind(b::hp_q8, {}, hp, 16),
                  wgslvk::bind(b::bias_q8, {}, bias, 16)}),
             grid});
      } else if (opt_.precision == StatePrecision::F16Mirror) {
        namespace u = ko::adamw_update_f16;
        namespace b = u::binding;
        update.push_back(
            {&u::Kernel::info(),
             entries_for(
                 u::Kernel::info(),
                 {wgslvk::bind(b::w_mp, w_, c * 4, f32s), wgslvk::bind(b::g_mp, g_, c * 4, f32s),
                  wgslvk::bind(b::m_buf_mp, m_, c * 4, f32s),
                  wgslvk::bind(b::v_buf_mp, v_, c * 4, f32s),
                  wgslvk::bind(b::grad_stats_mp, stats_, 0, 8),
                  wgslvk::bind(b::size_mp, {}, slot, 16), wgslvk::bind(b::hp_mp, {}, hp, 16),
                  wgslvk::bind(b::bias_mp, {}, bias, 16),
                  wgslvk::bind(b::dst_w16, w16_, c * 2, align_up(cnt * 2, 4))}),
             grid});
      } else {
        namespace u = ko::adamw_update;
        namespace b = u::binding;
        update.push_back(
            {&u::Kernel::info(),
             entries_for(
                 u::Kernel::info(),
                 {wgslvk::bind(b::w, w_, c * 4, f32s), wgslvk::bind(b::g, g_, c * 4, f32s),
                  wgslvk::bind(b::m_buf, m_, c * 4, f32s), wgslvk::bind(b::v_buf, v_, c * 4, f32s),
                  wgslvk::bind(b::grad_stats, stats_, 0, 8), wgslvk::bind(b::size, {}, slot, 16),
                  wgslvk::bind(b::hp, {}, hp, 16), wgslvk::bind(b::bias, {}, bias, 16)}),
             grid});
      }
      ++(decays[r] ? phases_.update_decay : phases_.update_no_decay);
    }
  }

  uniforms_ = device_.create_buffer({"adamw.uniforms", uint64_t(4 + sizes.size()) * uslot_,
                                     BufferUsage::Uniform | BufferUsage::CopyDst});
  for (size_t i = 0; i < sizes.size(); ++i)
    device_.queue().write_buffer(uniforms_, uint64_t(4 + i) * uslot_, &sizes[i], 4);
  write_uniforms();

  PipelineCache pipes(device_);
  auto realize = [&](std::vector<Pending>& in, std::vector<Dispatch>& out) {
    for (auto& p : in) {
      Dispatch op;
      op.label = p.k->qualified_name();
      op.pipeline = pipes.get(*p.k);
      for (auto& e : p.e)
        if (!e.buffer) e.buffer = uniforms_;
      BindGroupDescriptor d{std::string(p.k->name), op.pipeline.get_bind_group_layout(0), p.e};
      op.groups.emplace_back(0, device_.create_bind_group(d));
      op.workgroups = {p.grid.x, p.grid.y, 1};
      out.push_back(std::move(op));
    }
  };
  realize(norm, norm_);
  realize(update, update_);
}

void MultiTensorAdamW::write_uniforms() {
  std::array<float, 4> hp_d{opt_.lr, opt_.beta1, opt_.beta2, opt_.weight_decay};
  std::array<float, 4> hp_n{opt_.lr, opt_.beta1, opt_.beta2, 0.0f};
  float mgn = opt_.max_grad_norm ? *opt_.max_grad_norm : kClipOff;
  device_.queue().write_buffer(uniforms_, 0, hp_d.data(), 16);
  device_.queue().write_buffer(uniforms_, uslot_, hp_n.data(), 16);
  std::array<float, 4> mg{mgn, 0, 0, 0};
  device_.queue().write_buffer(uniforms_, 3 * uint64_t(uslot_), mg.data(), 16);
}

void MultiTensorAdamW::set_lr(float lr) {
  if (!(lr >= 0.0f && std::isfinite(lr)))
    fail("value", "MultiTensorAdamW::set_lr: lr = " + fmt_float(lr));
  opt_.lr = lr;
  write_uniforms();
}

// ---- steps --------------------------------------------------------------------------------------

void MultiTensorAdamW::record_step(CommandEncoder& encoder,
                                   const std::optional<PassTimestampWrites>& timestamps) {
  record(encoder, timestamps, nullptr, 0);
}

void MultiTensorAdamW::record_step(CommandEncoder& encoder, const QuerySet& query_set,
                                   uint32_t base) {
  if (!query_set || uint64_t(base) + kStepTimestamps > query_set.count())
    fail("value", "MultiTensorAdamW::record_step: query set of " +
                      std::to_string(query_set ? query_set.count() : 0) + " queries, base " +
                      std::to_string(base) + " needs " + std::to_string(kStepTimestamps) +
                      " from there");
  record(encoder, PassTimestampWrites{query_set, base, base + kStepTimestamps - 1}, &query_set,
         base);
}

void MultiTensorAdamW::record(CommandEncoder& encoder,
                              const std::optional<PassTimestampWrites>& timestamps,
                              const QuerySet* phases, uint32_t base) {
  ++t_;
  // beta^t on the host (seed: "Compute beta_t for the current step (host)")
  std::array<float, 4> bias{float(std::pow(double(opt_.beta1), double(t_))),
                            float(std::pow(double(opt_.beta2), double(t_))), opt_.eps,
                            float(t_ & 0xffffffu)};  // t: the 8-bit kernel's rounding seed
  device_.queue().write_buffer(uniforms_, 2 * uint64_t(uslot_), bias.data(), 16);
  ComputePassDescriptor pd;
  pd.label = "adamw step " + std::to_string(t_);
  pd.timestamp_writes = timestamps;
  ComputePass pass = encoder.begin_compute_pass(pd);
  // phase ends (dispatch counts into norm_ then update_): after reduce, finalize, decay updates
  const size_t ends[3] = {phases_.reduce, size_t(phases_.reduce) + phases_.finalize,
                          size_t(phases_.reduce) + phases_.finalize + phases_.update_decay};
  size_t i = 0;
  auto mark = [&] {
    if (!phases) return;
    for (uint32_t p = 0; p < 3; ++p)
      if (ends[p] == i) pass.write_timestamp(*phases, base + 1 + p);
  };
  mark();  // empty phases at the start
  for (const auto* list : {&norm_, &update_})
    for (const auto& d : *list) {
      d.record(pass);
      ++i;
      mark();
    }
  pass.end();
}

void MultiTensorAdamW::step() {
  CommandEncoder enc = device_.create_command_encoder({"adamw step"});
  record_step(enc);
  device_.queue().submit(enc.finish());
}

double MultiTensorAdamW::state_bytes_per_param() const {
  return opt_.precision == StatePrecision::Float8Blocks ? 2.0 + 8.0 / 256.0 : 8.0;
}

// ---- host access --------------------------------------------------------------------------------

const ParamEntry& MultiTensorAdamW::param(std::string_view name) const {
  for (const auto& p : layout_.params)
    if (p.name == name) return p;
  std::string known;
  for (const auto& p : layout_.params) known += (known.empty() ? "" : ", ") + p.name;
  fail("value",
       "MultiTensorAdamW: no parameter '" + std::string(name) + "' (registered: " + known + ")");
}

void MultiTensorAdamW::write_role(const Buffer& b, uint64_t off, const void* data, uint64_t bytes) {
  if (bytes == 0) return;
  if (off % 4 == 0 && bytes % 4 == 0) {
    device_.queue().write_buffer(b, off, data, bytes);
    return;
  }
  // f16 / byte runs that end mid-word: the rest of the word is padding (tensors start on a unit)
  std::vector<uint8_t> tmp(align_up(bytes, 4), 0);
  std::memcpy(tmp.data(), data, bytes);
  device_.queue().write_buffer(b, off, tmp.data(), tmp.size());
}

std::vector<uint8_t> MultiTensorAdamW::read_bytes(const Buffer& b, uint64_t off, uint64_t bytes) {
  if (bytes == 0) return {};
  uint64_t lo = off / 4 * 4, hi = align_up(off + bytes, 4);
  auto all = device_.read_buffer(b, lo, hi - lo);
  return std::vector<uint8_t>(all.begin() + (off - lo), all.begin() + (off - lo) + bytes);
}

static void check_count(const char* fn, const ParamEntry& p, size_t got) {
  if (got != p.count)
    fail("shape", std::string("MultiTensorAdamW::") + fn + ": parameter '" + p.name + "' has " +
                      std::to_string(p.count) + " elements (shape " + shape_str(p.shape) +
                      "), got " + std::to_string(got));
}

void MultiTensorAdamW::set_weights(std::string_view name, std::span<const float> values) {
  const auto& p = param(name);
  check_count("set_weights", p, values.size());
  write_role(w_, p.offset * 4, values.data(), values.size_bytes());
  if (w16_) write_mirror(p, values);
}

void MultiTensorAdamW::write_mirror(const ParamEntry& p, std::span<const float> values) {
  std::vector<uint16_t> h(values.size());
  for (size_t i = 0; i < h.size(); ++i) h[i] = f32_to_f16_bits(values[i]);
  write_role(w16_, p.offset * 2, h.data(), h.size() * 2);
}

void MultiTensorAdamW::set_grads(std::string_view name, std::span<const float> values) {
  const auto& p = param(name);
  check_count("set_grads", p, values.size());
  write_role(g_, p.offset * 4, values.data(), values.size_bytes());
}

static std::vector<float> as_floats(const std::vector<uint8_t>& b) {
  std::vector<float> f(b.size() / 4);
  if (!f.empty()) std::memcpy(f.data(), b.data(), f.size() * 4);
  return f;
}

std::vector<float> MultiTensorAdamW::read_weights(std::string_view name) {
  const auto& p = param(name);
  return as_floats(read_bytes(w_, p.offset * 4, p.count * 4));
}
std::vector<float> MultiTensorAdamW::read_grads(std::string_view name) {
  const auto& p = param(name);
  return as_floats(read_bytes(g_, p.offset * 4, p.count * 4));
}

std::vector<float> MultiTensorAdamW::read_state(std::string_view name, const Buffer& f32,
                                                const Buffer& codes, const Buffer& scales,
                                                float (*decode)(uint32_t, float)) {
  const auto& p = param(name);
  if (opt_.precision != StatePrecision::Float8Blocks)
    return as_floats(read_bytes(f32, p.offset * 4, p.count * 4));
  auto c = read_bytes(codes, p.offset, p.count);
  auto sc = as_floats(read_bytes(scales, p.offset / 256 * 4, div_ceil(p.count, 256) * 4));
  std::vector<float> out(p.count);
  for (size_t i = 0; i < p.count; ++i) out[i] = decode(c[i], sc[i / 256]);
  return out;
}

std::vector<float> MultiTensorAdamW::read_m(std::string_view name) {
  return read_state(name, m_, mq_, ms_, q8_decode_m);
}

std::vector<float> MultiTensorAdamW::read_v(std::string_view name) {
  return read_state(name, v_, vq_, vs_, q8_decode_v);
}

std::vector<uint16_t> MultiTensorAdamW::read_w16(std::string_view name) {
  const auto& p = param(name);
  if (!w16_)
    fail("value", "MultiTensorAdamW::read_w16: state precision is " +
                      std::string(precision_name(opt_.precision)) + ", not f16_mirror");
  auto b = read_bytes(w16_, p.offset * 2, p.count * 2);
  std::vector<uint16_t> h(p.count);
  if (!h.empty()) std::memcpy(h.data(), b.data(), h.size() * 2);
  return h;
}

float MultiTensorAdamW::read_grad_norm() { return read<float>(device_, stats_, 0, 2)[0]; }
float MultiTensorAdamW::read_clip_scale() { return read<float>(device_, stats_, 0, 2)[1]; }

// ---- one-call AdamW ------------------------------------------------------------------------------

void adamw_one_call(Device& device, const Buffer& param, const Buffer& grad, const Buffer& m,
                    const Buffer& v, float lr, float beta1, float beta2, float epsilon,
                    float weight_decay, float bias_correction1, float bias_correction2,
                    uint64_t n) {
  const char* fn = "adamw_one_call (optimizer/adamw_one_call)";
  const Buffer* bufs[4] = {&param, &grad, &m, &v};
  const char* names[4] = {"param", "grad", "m", "v"};
  for (int i = 0; i < 4; ++i) {
    if (!*bufs[i])
      fail("value", std::string(fn) + ": binding " + std::to_string(i) + " (" + names[i] +
                        ") is a null buffer");
    if (bufs[i]->size() < n * 4)
      fail("value", std::string(fn) + ": binding " + std::to_string(i) + " (" + names[i] +
                        "): buffer '" + bufs[i]->label() + "' holds " +
                        std::to_string(bufs[i]->size() / 4) + " floats, n = " + std::to_string(n));
    for (int j = 0; j < i; ++j)
      if (*bufs[i] == *bufs[j])
        fail("value", std::string(fn) + ": " + names[j] + " and " + names[i] +
                          " are the same buffer '" + bufs[i]->label() + "'");
  }
  for (auto [nm, bc] :
       {std::pair{"bias_correction1", bias_correction1}, {"bias_correction2", bias_correction2}})
    if (!(bc > 0.0f && std::isfinite(bc)))
      fail("value", std::string(fn) + ": " + nm + " = " + fmt_float(bc) +
                        " (the caller passes 1 - beta^t, in (0, 1])");
  if (n == 0) return;
  const uint32_t align = device.storage_offset_alignment();
  const uint64_t unit = align / 4;
  const uint64_t chunk =
      std::min<uint64_t>(device.limits().max_storage_buffer_binding_size / 4, uint64_t(1) << 31) /
      unit * unit;
  const uint32_t us = std::max<uint32_t>(device.uniform_offset_alignment(), 16);
  const uint64_t nchunks = div_ceil(n, chunk);
  Buffer u = device.create_buffer(
      {"adamw_one_call.uniforms", (2 + nchunks) * us, BufferUsage::Uniform | BufferUsage::CopyDst});
  std::array<float, 4> hp{lr, beta1, beta2, weight_decay},
      bc{bias_correction1, bias_correction2, epsilon, 0};
  device.queue().write_buffer(u, 0, hp.data(), 16);
  device.queue().write_buffer(u, us, bc.data(), 16);
  namespace oc = ko::adamw_one_call;
  ComputePipeline pipe = device.create_compute_pipeline({"", &oc::Kernel::info(), {}, false});
  CommandEncoder enc = device.create_command_encoder({"adamw_one_call"});
  ComputePass pass = enc.begin_compute_pass({"adamw_one_call", std::nullopt});
  pass.set_pipeline(pipe);
  for (uint64_t k = 0; k < nchunks; ++k) {
    uint64_t c = k * chunk, cnt = std::min(chunk, n - c);
    uint32_t sz = uint32_t(cnt);
    device.queue().write_buffer(u, (2 + k) * us, &sz, 4);
    namespace b = oc::binding;
    BindGroup bg = device.create_bind_group(
        {"adamw_one_call", pipe.get_bind_group_layout(0),
         entries_for(
             oc::Kernel::info(),
             {wgslvk::bind(b::param_oc, param, c * 4, cnt * 4),
              wgslvk::bind(b::grad_oc, grad, c * 4, cnt * 4),
              wgslvk::bind(b::m_oc, m, c * 4, cnt * 4), wgslvk::bind(b::v_oc, v, c * 4, cnt * 4),
              wgslvk::bind(b::size_oc, u, (2 + k) * us, 16), wgslvk::bind(b::hp_oc, u, 0, 16),
              wgslvk::bind(b::bc_oc, u, us, 16)})});
    pass.set_bind_group(0, bg);
    Grid grid = grid_for_workgroups(div_ceil(cnt, kWG), device.limits());
    pass.dispatch_workgroups(grid.x, grid.y);
  }
  pass.end();
  device.queue().submit(enc.finish());
}

}  // namespace wgslvk::optimizer
