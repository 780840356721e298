#include "adafactor.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

#include "wgslvk/kernels/adafactor/adafactor_apply_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_apply_2d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_ema_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_factor_ema.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_apply_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_apply_2d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_ema_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_factor_ema.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_row_rsqrt.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_sq_sums.hpp"
#include "wgslvk/kernels/adafactor/adafactor_multi_update_rms.hpp"
#include "wgslvk/kernels/adafactor/adafactor_row_rsqrt.hpp"
#include "wgslvk/kernels/adafactor/adafactor_sq_sums.hpp"
#include "wgslvk/kernels/adafactor/adafactor_update_rms.hpp"
#include "wgslvk/utils.hpp"

namespace wgslvk::adafactor {
namespace {

// The kernels, by their generated headers (wgslvk/kernels/adafactor/<entry>.hpp).
namespace kaf = wgslvk::kernels::adafactor;
// A range (buffer, offset, size) at kernel K's slot.
template <class K, class T>
KernelEntry<K> at(const BindingSlot<K, T>& slot, const BindGroupEntry& e) {
  return wgslvk::bind(slot, e.buffer, e.offset, e.size);
}
// K's dispatch on `grid`, labelled with its entry point (as the profile rows name it).
template <class K>
Dispatch dispatch_of(Device& d, PipelineCache& pipes, K, std::initializer_list<KernelEntry<K>> e,
                     Grid grid) {
  const std::string_view q = K::name;
  return make_dispatch(d, pipes, K{}, e, grid, std::string(q.substr(q.find('/') + 1)));
}

using optimizer::checkpoint_shape_str;

[[noreturn]] void fail(const std::string& rule, const std::string& msg) {
  throw ValidationError(rule, msg);
}

// Round-trip decimal of a double (from_chars reads it back bit for bit).
std::string fmt_double(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

}  // namespace

// ---- construction -------------------------------------------------------------------------------

MultiTensorAdafactor::MultiTensorAdafactor(Device& device, std::vector<optimizer::ParamSpec> params,
                                           AdafactorOptions options)
    : device_(device), opt_(options) {
  if (params.empty()) fail("value", "MultiTensorAdafactor: no parameters registered");
  try {
    check_hyper(opt_.hyper, "MultiTensorAdafactor: options.hyper");
  } catch (const std::invalid_argument& e) { fail("value", e.what()); }
  uint64_t binding = device_.limits().max_storage_buffer_binding_size;
  if (opt_.max_binding_bytes) binding = std::min(binding, opt_.max_binding_bytes);
  const uint32_t align = device_.storage_offset_alignment();
  layout_ = optimizer::make_layout(params, optimizer::StatePrecision::FP32, align, binding,
                                   "MultiTensorAdafactor");
  const uint64_t unit = align / 4;
  const uint32_t max_dim = device_.limits().max_compute_workgroups_per_dimension;
  uint64_t so = 0, sc = 0, sf = 0;
  auto take = [&](uint64_t& pos, uint64_t count) {
    pos = align_up(pos, unit);
    uint64_t at = pos;
    pos += std::max<uint64_t>(count, 1);
    return at;
  };
  for (const auto& p : layout_.params) {
    Tensor t;
    t.p = p;
    if (p.shape.size() > 2)
      fail("shape", "MultiTensorAdafactor: parameter '" + p.name + "' has shape " +
                        checkpoint_shape_str(p.shape) + " (rank " + std::to_string(p.shape.size()) +
                        "): only rank 0, 1 (full second moment) and 2 (factored) are supported");
    if (p.count * 4 > binding || p.count >= (uint64_t(1) << 31))
      fail("limits", "MultiTensorAdafactor: parameter '" + p.name + "' has " +
                         std::to_string(p.count) + " elements (" + std::to_string(p.count * 4) +
                         " bytes), above one storage binding (" + std::to_string(binding) +
                         " bytes): a tensor is never split");
    if (p.shape.size() == 2) {
      t.dims = dims_2d(uint32_t(p.shape[0]), uint32_t(p.shape[1]));
      if (t.dims.nbx > max_dim || t.dims.nby > max_dim)
        fail("limits", "MultiTensorAdafactor: parameter '" + p.name + "' of shape " +
                           checkpoint_shape_str(p.shape) + " needs a " +
                           std::to_string(t.dims.nbx) + " x " + std::to_string(t.dims.nby) +
                           " tile grid, above maxComputeWorkgroupsPerDimension " +
                           std::to_string(max_dim));
      t.row_var = take(so, t.dims.rows);
      t.col_var = take(so, t.dims.cols);
      t.row_part = take(sc, uint64_t(t.dims.nbx) * t.dims.rows);
      t.col_part = take(sc, uint64_t(t.dims.nby) * t.dims.cols);
      t.p_part = take(sc, t.dims.nparts);
      t.rms_part = take(sc, t.dims.nparts);
      t.rr = take(sf, t.dims.rows);
      t.rc = take(sf, t.dims.cols);
    } else {
      t.dims = dims_1d(uint32_t(p.count));
      t.v = take(so, p.count);
      t.rms_part = take(sc, t.dims.nparts);
      t.p_part = take(sc, t.dims.nparts);
    }
    tensors_.push_back(std::move(t));
  }
  state_elems_ = std::max<uint64_t>(align_up(so, unit), unit);
  scratch_elems_ = std::max<uint64_t>(align_up(sc, unit), unit);
  factor_elems_ = std::max<uint64_t>(align_up(sf, unit), unit);
  uslot_ = uint32_t(align_up(64, std::max<uint32_t>(device_.uniform_offset_alignment(), 16)));

  auto make = [&](const char* label, uint64_t bytes, BufferUsage usage) {
    if (bytes > device_.limits().max_buffer_size)
      fail("limits", std::string("MultiTensorAdafactor: buffer '") + label + "' needs " +
                         std::to_string(bytes) + " bytes, above maxBufferSize " +
                         std::to_string(device_.limits().max_buffer_size));
    return device_.create_buffer({label, align_up(bytes, 4), usage});
  };
  const BufferUsage st = BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst;
  w_ = make("adafactor.w", layout_.total * 4, st);
  g_ = make("adafactor.g", layout_.total * 4, st);
  state_ = make("adafactor.state", state_elems_ * 4, st);
  scratch_ = make("adafactor.partials", scratch_elems_ * 4, st);
  factors_ = make("adafactor.factors", factor_elems_ * 4, st);
  uniforms_ = make("adafactor.uniforms", uint64_t(2 + tensors_.size()) * uslot_,
                   BufferUsage::Uniform | BufferUsage::CopyDst);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    auto words = dims_words(tensors_[i].dims);
    device_.queue().write_buffer(uniforms_, uint64_t(2 + i) * uslot_, words.data(), sizeof words);
  }
  if (opt_.per_tensor)
    build_dispatches();
  else
    build_batched();
}

// ---- the batched step (adafactor_multi.wgsl) ------------------------------------------------------

namespace {
// adafactor_multi.wgsl's AfTensor, word for word
struct AfTensorWords {
  uint32_t wg_a, wg_b, decay_on, w, rows, cols, nbx, nby, nparts, n, s0, s1, row_part, col_part,
      p_part, rms_part, rr, rc, pad0, pad1;
};
static_assert(sizeof(AfTensorWords) == 80);

// A range of one mega-buffer, in elements: [lo, hi).
struct Span {
  uint64_t lo = UINT64_MAX, hi = 0;
  void add(uint64_t a, uint64_t count) {
    if (count == 0) return;
    lo = std::min(lo, a);
    hi = std::max(hi, a + count);
  }
  bool empty() const { return hi == 0; }
};
}  // namespace

void MultiTensorAdafactor::build_batched() {
  const Limits& lim = device_.limits();
  uint64_t binding = lim.max_storage_buffer_binding_size;
  if (opt_.max_binding_bytes) binding = std::min(binding, opt_.max_binding_bytes);
  if (opt_.group_bytes) binding = std::min(binding, opt_.group_bytes);  // a group's limit only
  const uint64_t align = device_.storage_offset_alignment();
  // per tensor: its ranges in w (= g), state, partials, factors
  struct Ranges {
    Span s[4];
  };
  auto ranges = [](const Tensor& t) {
    Ranges r;
    r.s[0].add(t.p.offset, t.p.count);
    if (t.dims.factored) {
      r.s[1].add(t.row_var, t.dims.rows);
      r.s[1].add(t.col_var, t.dims.cols);
      r.s[2].add(t.row_part, uint64_t(t.dims.nbx) * t.dims.rows);
      r.s[2].add(t.col_part, uint64_t(t.dims.nby) * t.dims.cols);
      r.s[3].add(t.rr, t.dims.rows);
      r.s[3].add(t.rc, t.dims.cols);
    } else {
      r.s[1].add(t.v, t.p.count);
    }
    r.s[2].add(t.p_part, t.dims.nparts);
    r.s[2].add(t.rms_part, t.dims.nparts);
    return r;
  };
  // binding groups: consecutive tensors (the buffers hold them in layout order) while every span fits
  std::vector<std::vector<size_t>> groups;
  std::vector<Ranges> granges;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (tensors_[i].p.count == 0) continue;  // no dispatches (as per tensor)
    const Ranges r = ranges(tensors_[i]);
    bool fits = !groups.empty();
    if (fits) {
      Ranges m = granges.back();
      for (int b = 0; b < 4; ++b) {
        if (!r.s[b].empty()) m.s[b].add(r.s[b].lo, r.s[b].hi - r.s[b].lo);
        if (!m.s[b].empty() && (m.s[b].hi - m.s[b].lo) * 4 > binding) fits = false;
      }
      if (fits) granges.back() = m;
    }
    if (!fits) {
      groups.emplace_back();
      granges.push_back(r);
    }
    groups.back().push_back(i);
  }
  groups_ = groups.size();
  // the tables: per group the 2-D entries, then the 1-D entries, each array on the alignment
  std::vector<AfTensorWords> words;
  struct GroupTables {
    uint64_t at2 = 0, n2 = 0, at1 = 0, n1 = 0;   // entry index, count
    uint64_t tiles = 0, fe = 0, e1 = 0, a1 = 0;  // workgroups per phase
  };
  std::vector<GroupTables> gt(groups.size());
  auto pad_to_align = [&] {
    while ((words.size() * sizeof(AfTensorWords)) % align) words.push_back({});
  };
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Ranges& m = granges[gi];
    auto rel = [&](int b, uint64_t at) { return uint32_t(at - m.s[b].lo); };
    for (int pass = 0; pass < 2; ++pass) {  // 0: 2-D, 1: 1-D
      pad_to_align();
      (pass == 0 ? gt[gi].at2 : gt[gi].at1) = words.size();
      for (size_t i : groups[gi]) {
        const Tensor& t = tensors_[i];
        if (t.dims.factored != (pass == 0)) continue;
        const Dims& d = t.dims;
        AfTensorWords e{};
        e.decay_on = t.p.decay ? 1 : 0;
        e.w = rel(0, t.p.offset);
        e.rows = d.rows, e.cols = d.cols, e.nbx = d.nbx, e.nby = d.nby, e.nparts = d.nparts,
        e.n = d.n;
        e.p_part = rel(2, t.p_part);
        e.rms_part = rel(2, t.rms_part);
        if (d.factored) {
          e.wg_a = uint32_t(gt[gi].tiles);
          e.wg_b = uint32_t(gt[gi].fe);
          gt[gi].tiles += uint64_t(d.nbx) * d.nby;
          gt[gi].fe += factor_ema_workgroups(d);
          e.s0 = rel(1, t.row_var), e.s1 = rel(1, t.col_var);
          e.row_part = rel(2, t.row_part), e.col_part = rel(2, t.col_part);
          e.rr = rel(3, t.rr), e.rc = rel(3, t.rc);
          ++gt[gi].n2;
        } else {
          e.wg_a = uint32_t(gt[gi].e1);
          e.wg_b = uint32_t(gt[gi].a1);
          gt[gi].e1 += d.nparts;
          gt[gi].a1 += div_ceil(d.n, kWG);
          e.s0 = rel(1, t.v);
          ++gt[gi].n1;
        }
        words.push_back(e);
      }
    }
    for (uint64_t c : {gt[gi].tiles, gt[gi].fe, gt[gi].e1, gt[gi].a1})
      if (c >= (uint64_t(1) << 32))
        fail("limits", "MultiTensorAdafactor: binding group " + std::to_string(gi) + " needs " +
                           std::to_string(c) + " workgroups in one phase, above 2^32");
  }
  if (words.empty()) words.push_back({});
  tables_ = device_.create_buffer({"adafactor.tables", words.size() * sizeof(AfTensorWords),
                                   BufferUsage::Storage | BufferUsage::CopyDst});
  device_.queue().write_buffer(tables_, 0, words.data(), words.size() * sizeof(AfTensorWords));

  PipelineCache pipes(device_);
  auto grid = [&](uint64_t workgroups) { return grid_for_workgroups(workgroups, lim); };
  const BindGroupEntry H{0, uniforms_, 0, 48};  // slot 0: the decay tensors' AfHp
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Ranges& m = granges[gi];
    const GroupTables& q = gt[gi];
    auto whole = [&](const Buffer& b, int k) {
      return BindGroupEntry{0, b, m.s[k].lo * 4, (m.s[k].hi - m.s[k].lo) * 4};
    };
    const BindGroupEntry W = whole(w_, 0), G = whole(g_, 0), S = whole(state_, 1),
                         P = whole(scratch_, 2);
    if (q.n2) {
      const BindGroupEntry T{0, tables_, q.at2 * sizeof(AfTensorWords),
                             q.n2 * sizeof(AfTensorWords)};
      namespace k = kaf::adafactor_multi_sq_sums::binding;
      dispatches_.push_back(dispatch_of(
          device_, pipes, kaf::adafactor_multi_sq_sums::Kernel{},
          {at(k::ms_tab, T), at(k::ms_hp, H), at(k::ms_g, G), at(k::ms_w, W), at(k::ms_part, P)},
          grid(q.tiles)));
    }
    if (q.n1) {
      const BindGroupEntry T{0, tables_, q.at1 * sizeof(AfTensorWords),
                             q.n1 * sizeof(AfTensorWords)};
      namespace k = kaf::adafactor_multi_ema_1d::binding;
      dispatches_.push_back(dispatch_of(device_, pipes, kaf::adafactor_multi_ema_1d::Kernel{},
                                        {at(k::me_tab, T), at(k::me_hp, H), at(k::me_g, G),
                                         at(k::me_w, W), at(k::me_state, S), at(k::me_part, P)},
                                        grid(q.e1)));
    }
    if (q.n2) {
      const BindGroupEntry T{0, tables_, q.at2 * sizeof(AfTensorWords),
                             q.n2 * sizeof(AfTensorWords)};
      const BindGroupEntry F = whole(factors_, 3);
      {
        namespace k = kaf::adafactor_multi_factor_ema::binding;
        dispatches_.push_back(dispatch_of(device_, pipes, kaf::adafactor_multi_factor_ema::Kernel{},
                                          {at(k::mf_tab, T), at(k::mf_hp, H), at(k::mf_part, P),
                                           at(k::mf_state, S), at(k::mf_fac, F)},
                                          grid(q.fe)));
      }
      {
        namespace k = kaf::adafactor_multi_row_rsqrt::binding;
        dispatches_.push_back(dispatch_of(
            device_, pipes, kaf::adafactor_multi_row_rsqrt::Kernel{},
            {at(k::mr_tab, T), at(k::mr_hp, H), at(k::mr_state, S), at(k::mr_fac, F)}, grid(q.n2)));
      }
      {
        namespace k = kaf::adafactor_multi_update_rms::binding;
        dispatches_.push_back(dispatch_of(device_, pipes, kaf::adafactor_multi_update_rms::Kernel{},
                                          {at(k::mu_tab, T), at(k::mu_hp, H), at(k::mu_g, G),
                                           at(k::mu_fac, F), at(k::mu_part, P)},
                                          grid(q.tiles)));
      }
      {
        namespace k = kaf::adafactor_multi_apply_2d::binding;
        dispatches_.push_back(dispatch_of(device_, pipes, kaf::adafactor_multi_apply_2d::Kernel{},
                                          {at(k::ma_tab, T), at(k::ma_hp, H), at(k::ma_w, W),
                                           at(k::ma_g, G), at(k::ma_fac, F), at(k::ma_part, P)},
                                          grid(q.tiles)));
      }
    }
    if (q.n1) {
      const BindGroupEntry T{0, tables_, q.at1 * sizeof(AfTensorWords),
                             q.n1 * sizeof(AfTensorWords)};
      namespace k = kaf::adafactor_multi_apply_1d::binding;
      dispatches_.push_back(dispatch_of(device_, pipes, kaf::adafactor_multi_apply_1d::Kernel{},
                                        {at(k::mb_tab, T), at(k::mb_hp, H), at(k::mb_w, W),
                                         at(k::mb_g, G), at(k::mb_state, S), at(k::mb_part, P)},
                                        grid(q.a1)));
    }
  }
}

void MultiTensorAdafactor::build_dispatches() {
  const Limits& lim = device_.limits();
  PipelineCache pipes(device_);
  auto f32 = [](const Buffer& b, uint64_t off, uint64_t count) {
    return BindGroupEntry{0, b, off * 4, std::max<uint64_t>(count, 1) * 4};
  };
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    if (t.p.count == 0) continue;
    const Dims& d = t.dims;
    const uint64_t hp = (t.p.decay ? 0 : 1) * uint64_t(uslot_), dims = uint64_t(2 + i) * uslot_;
    const BindGroupEntry W = f32(w_, t.p.offset, t.p.count), G = f32(g_, t.p.offset, t.p.count);
    const BindGroupEntry U{0, uniforms_, dims, 32}, H{0, uniforms_, hp, 48};
    const BindGroupEntry RMS = f32(scratch_, t.rms_part, d.nparts),
                         PP = f32(scratch_, t.p_part, d.nparts);
    if (d.factored) {
      const BindGroupEntry RP = f32(scratch_, t.row_part, uint64_t(d.nbx) * d.rows),
                           CP = f32(scratch_, t.col_part, uint64_t(d.nby) * d.cols),
                           RV = f32(state_, t.row_var, d.rows), CV = f32(state_, t.col_var, d.cols),
                           RR = f32(factors_, t.rr, d.rows), RC = f32(factors_, t.rc, d.cols);
      const Grid tiles{d.nbx, d.nby};
      {
        namespace k = kaf::adafactor_sq_sums::binding;
        dispatches_.push_back(dispatch_of(
            device_, pipes, kaf::adafactor_sq_sums::Kernel{},
            {at(k::sq_g, G), at(k::sq_w, W), at(k::sq_row_part, RP), at(k::sq_col_part, CP),
             at(k::sq_p_part, PP), at(k::sq_dims, U), at(k::sq_hp, H)},
            tiles));
      }
      {
        namespace k = kaf::adafactor_factor_ema::binding;
        dispatches_.push_back(dispatch_of(
            device_, pipes, kaf::adafactor_factor_ema::Kernel{},
            {at(k::fe_row_part, RP), at(k::fe_col_part, CP), at(k::fe_row_var, RV),
             at(k::fe_col_var, CV), at(k::fe_rc, RC), at(k::fe_dims, U), at(k::fe_hp, H)},
            grid_for_workgroups(factor_ema_workgroups(d), lim)));
      }
      {
        namespace k = kaf::adafactor_row_rsqrt::binding;
        dispatches_.push_back(dispatch_of(
            device_, pipes, kaf::adafactor_row_rsqrt::Kernel{},
            {at(k::rs_row_var, RV), at(k::rs_rr, RR), at(k::rs_dims, U), at(k::rs_hp, H)}, {1, 1}));
      }
      {
        namespace k = kaf::adafactor_update_rms::binding;
        dispatches_.push_back(dispatch_of(device_, pipes, kaf::adafactor_update_rms::Kernel{},
                                          {at(k::ur_g, G), at(k::ur_rr, RR), at(k::ur_rc, RC),
                                           at(k::ur_part, RMS), at(k::ur_dims, U), at(k::ur_hp, H)},
                                          tiles));
      }
      {
        namespace k = kaf::adafactor_apply_2d::binding;
        dispatches_.push_back(dispatch_of(
            device_, pipes, kaf::adafactor_apply_2d::Kernel{},
            {at(k::a2_w, W), at(k::a2_g, G), at(k::a2_rr, RR), at(k::a2_rc, RC),
             at(k::a2_rms_part, RMS), at(k::a2_p_part, PP), at(k::a2_dims, U), at(k::a2_hp, H)},
            tiles));
      }
    } else {
      const BindGroupEntry V = f32(state_, t.v, d.n);
      {
        namespace k = kaf::adafactor_ema_1d::binding;
        dispatches_.push_back(
            dispatch_of(device_, pipes, kaf::adafactor_ema_1d::Kernel{},
                        {at(k::e1_g, G), at(k::e1_w, W), at(k::e1_v, V), at(k::e1_rms_part, RMS),
                         at(k::e1_p_part, PP), at(k::e1_dims, U), at(k::e1_hp, H)},
                        grid_for_workgroups(d.nparts, lim)));
      }
      {
        namespace k = kaf::adafactor_apply_1d::binding;
        dispatches_.push_back(
            dispatch_of(device_, pipes, kaf::adafactor_apply_1d::Kernel{},
                        {at(k::a1_w, W), at(k::a1_g, G), at(k::a1_v, V), at(k::a1_rms_part, RMS),
                         at(k::a1_p_part, PP), at(k::a1_dims, U), at(k::a1_hp, H)},
                        grid_for_workgroups(div_ceil(d.n, kWG), lim)));
      }
    }
  }
}

void MultiTensorAdafactor::write_hp() {
  // slot 0: decay tensors, slot 1: no-decay tensors; the step t is the one being recorded
  for (int k = 0; k < 2; ++k) {
    auto words = hp_words(scalars(opt_.hyper, std::max<uint64_t>(t_, 1), k == 0));
    device_.queue().write_buffer(uniforms_, uint64_t(k) * uslot_, words.data(), sizeof words);
  }
}

void MultiTensorAdafactor::set_lr(double lr) {
  Hyper h = opt_.hyper;
  h.lr = lr;
  try {
    check_hyper(h, "MultiTensorAdafactor::set_lr");
  } catch (const std::invalid_argument& e) { fail("value", e.what()); }
  opt_.hyper = h;
}

// ---- steps --------------------------------------------------------------------------------------

void MultiTensorAdafactor::record_step(CommandEncoder& encoder,
                                       const std::optional<PassTimestampWrites>& timestamps) {
  ++t_;
  write_hp();
  ComputePassDescriptor pd;
  pd.label = "adafactor step " + std::to_string(t_);
  pd.timestamp_writes = timestamps;
  ComputePass pass = encoder.begin_compute_pass(pd);
  for (const auto& d : dispatches_) d.record(pass);
  pass.end();
}

void MultiTensorAdafactor::step() {
  CommandEncoder enc = device_.create_command_encoder({"adafactor step"});
  record_step(enc);
  device_.queue().submit(enc.finish());
}

// ---- host access --------------------------------------------------------------------------------

const MultiTensorAdafactor::Tensor& MultiTensorAdafactor::tensor(std::string_view name) const {
  for (const auto& t : tensors_)
    if (t.p.name == name) return t;
  std::string known;
  for (const auto& t : tensors_) known += (known.empty() ? "" : ", ") + t.p.name;
  fail("value", "MultiTensorAdafactor: no parameter '" + std::string(name) +
                    "' (registered: " + known + ")");
}

static void check_count(const char* fn, const MultiTensorAdafactor::Tensor& t, size_t got) {
  if (got != t.p.count)
    fail("shape", std::string("MultiTensorAdafactor::") + fn + ": parameter '" + t.p.name +
                      "' has " + std::to_string(t.p.count) + " elements (shape " +
                      checkpoint_shape_str(t.p.shape) + "), got " + std::to_string(got));
}

void MultiTensorAdafactor::set_weights(std::string_view name, std::span<const float> values) {
  const auto& t = tensor(name);
  check_count("set_weights", t, values.size());
  if (!values.empty())
    device_.queue().write_buffer(w_, t.p.offset * 4, values.data(), values.size_bytes());
}

void MultiTensorAdafactor::set_grads(std::string_view name, std::span<const float> values) {
  const auto& t = tensor(name);
  check_count("set_grads", t, values.size());
  if (!values.empty())
    device_.queue().write_buffer(g_, t.p.offset * 4, values.data(), values.size_bytes());
}

std::vector<float> MultiTensorAdafactor::read_f32(const Buffer& b, uint64_t offset,
                                                  uint64_t count) {
  if (count == 0) return {};
  return read<float>(device_, b, offset * 4, count);
}

std::vector<float> MultiTensorAdafactor::read_weights(std::string_view name) {
  const auto& t = tensor(name);
  return read_f32(w_, t.p.offset, t.p.count);
}
std::vector<float> MultiTensorAdafactor::read_grads(std::string_view name) {
  const auto& t = tensor(name);
  return read_f32(g_, t.p.offset, t.p.count);
}

static void need(const MultiTensorAdafactor::Tensor& t, bool factored, const char* fn) {
  if (t.dims.factored != factored)
    fail("value", std::string("MultiTensorAdafactor::") + fn + ": parameter '" + t.p.name +
                      "' of shape " + checkpoint_shape_str(t.p.shape) + " is " +
                      (t.dims.factored ? "factored (2-D)" : "1-D"));
}

std::vector<float> MultiTensorAdafactor::read_row_var(std::string_view name) {
  const auto& t = tensor(name);
  need(t, true, "read_row_var");
  return read_f32(state_, t.row_var, t.dims.rows);
}
std::vector<float> MultiTensorAdafactor::read_col_var(std::string_view name) {
  const auto& t = tensor(name);
  need(t, true, "read_col_var");
  return read_f32(state_, t.col_var, t.dims.cols);
}
std::vector<float> MultiTensorAdafactor::read_v(std::string_view name) {
  const auto& t = tensor(name);
  need(t, false, "read_v");
  return read_f32(state_, t.v, t.p.count);
}

uint64_t MultiTensorAdafactor::state_bytes(std::string_view name) const {
  const auto& t = tensor(name);
  if (t.p.count == 0) return 0;
  return t.dims.factored ? 4 * (uint64_t(t.dims.rows) + t.dims.cols) : 4 * t.p.count;
}
uint64_t MultiTensorAdafactor::state_bytes() const {
  uint64_t s = 0;
  for (const auto& t : tensors_) s += state_bytes(t.p.name);
  return s;
}
uint64_t MultiTensorAdafactor::scratch_bytes() const {
  return (scratch_elems_ + factor_elems_) * 4;
}

// ---- checkpoints --------------------------------------------------------------------------------

std::vector<optimizer::CheckpointTensor> checkpoint_tensors(const optimizer::Layout& layout) {
  std::vector<optimizer::CheckpointTensor> out;
  for (const auto& p : layout.params) {
    out.push_back({p.name, "F32", p.shape, p.count * 4});
    if (p.count == 0) continue;  // an empty tensor has no state
    if (p.shape.size() == 2) {   // factored (the constructor's rule)
      out.push_back({p.name + ".row_var", "F32", {p.shape[0]}, p.shape[0] * 4});
      out.push_back({p.name + ".col_var", "F32", {p.shape[1]}, p.shape[1] * 4});
    } else {
      out.push_back({p.name + ".variance", "F32", p.shape, p.count * 4});
    }
  }
  return out;
}

std::vector<uint8_t> encode_checkpoint(std::span<const optimizer::CheckpointTensor> tensors,
                                       std::span<const std::vector<uint8_t>> data,
                                       const CheckpointState& st) {
  const Hyper& h = st.hyper;
  const std::vector<std::pair<std::string, std::string>> md = {
      {"step", std::to_string(st.step)},
      {"lr", fmt_double(h.lr)},
      {"beta2_decay", fmt_double(h.beta2_decay)},
      {"eps1", fmt_double(h.eps1)},
      {"eps2", fmt_double(h.eps2)},
      {"d", fmt_double(h.d)},
      {"weight_decay", fmt_double(h.weight_decay)},
      {"relative_step", h.relative_step ? "true" : "false"},
      {"scale_parameter", h.scale_parameter ? "true" : "false"}};
  return optimizer::encode_safetensors_checkpoint(tensors, data, kCheckpointFormat, md);
}

DecodedCheckpoint decode_checkpoint(std::span<const uint8_t> file,
                                    std::span<const optimizer::CheckpointTensor> expected) {
  DecodedCheckpoint out;
  auto check = [&](const optimizer::CheckpointMetadata& md) {
    out.state.step = md.step();  // <= 2^53: t + 1 never wraps, t^beta2_decay stays meaningful
    Hyper h;
    h.lr = md.finite_double("lr");
    h.beta2_decay = md.finite_double("beta2_decay");
    h.eps1 = md.finite_double("eps1");
    h.eps2 = md.finite_double("eps2");
    h.d = md.finite_double("d");
    h.weight_decay = md.finite_double("weight_decay");
    h.relative_step = md.boolean("relative_step");
    h.scale_parameter = md.boolean("scale_parameter");
    try {
      check_hyper(h, "checkpoint");  // what the constructor refuses, load() refuses
    } catch (const std::invalid_argument& e) { throw optimizer::CheckpointError(e.what()); }
    out.state.hyper = h;
  };
  optimizer::DecodedSafetensors d = optimizer::decode_safetensors_checkpoint(
      file, {kCheckpointFormat, "wgslvk.adafactor.v1"}, expected, check);
  out.data_offset = d.data_offset;
  out.spans = std::move(d.spans);
  return out;
}

namespace {
// Where each checkpoint tensor lives on the device, in checkpoint_tensors' order.
struct Place {
  const Buffer* buffer;
  uint64_t byte_offset;
};
std::vector<Place> places(const std::vector<MultiTensorAdafactor::Tensor>& ts, const Buffer& w,
                          const Buffer& state) {
  std::vector<Place> out;
  for (const auto& t : ts) {
    out.push_back({&w, t.p.offset * 4});
    if (t.p.count == 0) continue;
    if (t.dims.factored) {
      out.push_back({&state, t.row_var * 4});
      out.push_back({&state, t.col_var * 4});
    } else {
      out.push_back({&state, t.v * 4});
    }
  }
  return out;
}
}  // namespace

void MultiTensorAdafactor::save(const std::string& path) {
  const auto tensors = checkpoint_tensors(layout_);
  const auto at = places(tensors_, w_, state_);
  std::vector<std::vector<uint8_t>> data(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].bytes)
      data[i] = device_.read_buffer(*at[i].buffer, at[i].byte_offset, tensors[i].bytes);
  optimizer::write_checkpoint_file(path, encode_checkpoint(tensors, data, {t_, opt_.hyper}),
                                   "MultiTensorAdafactor::save");
}

void MultiTensorAdafactor::load(const std::string& path) {
  const auto tensors = checkpoint_tensors(layout_);
  const auto at = places(tensors_, w_, state_);
  uint64_t data_bytes = 0;
  for (const auto& t : tensors) data_bytes += t.bytes;
  std::vector<uint8_t> file;
  DecodedCheckpoint d;
  try {
    file = optimizer::read_checkpoint_file(path, data_bytes);
    d = decode_checkpoint(file, tensors);
  } catch (const optimizer::CheckpointError& e) {
    throw optimizer::CheckpointError("MultiTensorAdafactor::load('" + path + "'): " + e.what() +
                                     "; nothing was changed");
  }
  // everything checked: apply
  const uint8_t* data = file.data() + d.data_offset;
  opt_.hyper = d.state.hyper;
  t_ = d.state.step;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].bytes)
      device_.queue().write_buffer(*at[i].buffer, at[i].byte_offset, data + d.spans[i].first,
                                   tensors[i].bytes);
  CommandEncoder enc = device_.create_command_encoder({"adafactor load"});
  enc.clear_buffer(g_);
  device_.queue().submit(enc.finish());
}

}  // namespace wgslvk::adafactor
