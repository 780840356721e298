// One tensor's whole Adafactor step as a case's dispatches (every dispatch, as
// MultiTensorAdafactor records it), shared by the golden cases (cases.cpp) and the bench
// (bench.cpp): the caller adds w and g, this adds the state, the scratch outputs and the
// dispatches; the checks stay the caller's.
#pragma once

#include <array>
#include <bit>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "adafactor/reference.hpp"
#include "wgslvk/kernels/adafactor/adafactor_apply_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_apply_2d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_ema_1d.hpp"
#include "wgslvk/kernels/adafactor/adafactor_factor_ema.hpp"
#include "wgslvk/kernels/adafactor/adafactor_row_rsqrt.hpp"
#include "wgslvk/kernels/adafactor/adafactor_sq_sums.hpp"
#include "wgslvk/kernels/adafactor/adafactor_update_rms.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::adafactor {

// The Dims and the hyperparameter uniforms as case values.
inline validate::ojson dims_json(const Dims& d) {
  validate::ojson a = validate::ojson::array(), s = validate::ojson::array();
  for (uint32_t x : dims_words(d)) a.push_back(x);
  s.push_back({{"u32", a}});
  return s;
}
inline validate::ojson hp_json(const Scalars& sc) {
  validate::ojson a = validate::ojson::array(), s = validate::ojson::array();
  for (float x : hp_words(sc)) a.push_back(validate::json_f32(x));
  s.push_back({{"f32", a}});
  return s;
}

// A uniform from its generated struct, written as dims_json/hp_json write it: the inline
// segments as an array even when there is one (the committed goldens' form).
template <class K, class T>
void bind_uniform_array(validate::DispatchSpec& k, const BindingSlot<K, T>& slot, const T& v) {
  validate::CaseBuilder::bind_uniform(k, slot, v);
  validate::ojson& seg = k.bindings.back().inline_values;
  if (!seg.is_array()) seg = validate::ojson::array({seg});
}

// A dispatch of kernel K (one of the single-tensor step's kernels, by its generated header):
// each storage slot bound to a buffer of the case, then its AfDims and AfHp uniforms (the
// words of dims_words / hp_words as the header's structs). A slot of another kernel does not
// compile.
template <class K, class D, class H>
validate::DispatchSpec& step_dispatch(
    validate::CaseBuilder& b,
    std::initializer_list<std::pair<BindingSlot<K, float>, const char*>> bufs,
    const BindingSlot<K, D>& dims, const BindingSlot<K, H>& hp, const Dims& d, const Scalars& sc) {
  auto& k = b.dispatch(K{});
  for (const auto& [slot, name] : bufs) validate::CaseBuilder::bind(k, slot, name);
  bind_uniform_array(k, dims, std::bit_cast<D>(dims_words(d)));
  bind_uniform_array(k, hp, std::bit_cast<H>(hp_words(sc)));
  return k;
}

// The step's kernels, each with the case's buffer names at its slots.
namespace kaf = wgslvk::kernels::adafactor;
inline validate::DispatchSpec& sq_sums_dispatch(validate::CaseBuilder& b, const Dims& d,
                                                const Scalars& sc) {
  namespace k = kaf::adafactor_sq_sums::binding;
  return step_dispatch<kaf::adafactor_sq_sums::Kernel>(b,
                                                       {{k::sq_g, "g"},
                                                        {k::sq_w, "w"},
                                                        {k::sq_row_part, "row_part"},
                                                        {k::sq_col_part, "col_part"},
                                                        {k::sq_p_part, "p_part"}},
                                                       k::sq_dims, k::sq_hp, d, sc);
}
inline validate::DispatchSpec& factor_ema_dispatch(validate::CaseBuilder& b, const Dims& d,
                                                   const Scalars& sc) {
  namespace k = kaf::adafactor_factor_ema::binding;
  return step_dispatch<kaf::adafactor_factor_ema::Kernel>(b,
                                                          {{k::fe_row_part, "row_part"},
                                                           {k::fe_col_part, "col_part"},
                                                           {k::fe_row_var, "row_var"},
                                                           {k::fe_col_var, "col_var"},
                                                           {k::fe_rc, "rc"}},
                                                          k::fe_dims, k::fe_hp, d, sc);
}
inline validate::DispatchSpec& row_rsqrt_dispatch(validate::CaseBuilder& b, const Dims& d,
                                                  const Scalars& sc) {
  namespace k = kaf::adafactor_row_rsqrt::binding;
  return step_dispatch<kaf::adafactor_row_rsqrt::Kernel>(
      b, {{k::rs_row_var, "row_var"}, {k::rs_rr, "rr"}}, k::rs_dims, k::rs_hp, d, sc);
}
inline validate::DispatchSpec& update_rms_dispatch(validate::CaseBuilder& b, const Dims& d,
                                                   const Scalars& sc) {
  namespace k = kaf::adafactor_update_rms::binding;
  return step_dispatch<kaf::adafactor_update_rms::Kernel>(
      b, {{k::ur_g, "g"}, {k::ur_rr, "rr"}, {k::ur_rc, "rc"}, {k::ur_part, "rms_part"}}, k::ur_dims,
      k::ur_hp, d, sc);
}
inline validate::DispatchSpec& apply_2d_dispatch(validate::CaseBuilder& b, const Dims& d,
                                                 const Scalars& sc) {
  namespace k = kaf::adafactor_apply_2d::binding;
  return step_dispatch<kaf::adafactor_apply_2d::Kernel>(b,
                                                        {{k::a2_w, "w"},
                                                         {k::a2_g, "g"},
                                                         {k::a2_rr, "rr"},
                                                         {k::a2_rc, "rc"},
                                                         {k::a2_rms_part, "rms_part"},
                                                         {k::a2_p_part, "p_part"}},
                                                        k::a2_dims, k::a2_hp, d, sc);
}
inline validate::DispatchSpec& ema_1d_dispatch(validate::CaseBuilder& b, const Dims& d,
                                               const Scalars& sc) {
  namespace k = kaf::adafactor_ema_1d::binding;
  return step_dispatch<kaf::adafactor_ema_1d::Kernel>(b,
                                                      {{k::e1_g, "g"},
                                                       {k::e1_w, "w"},
                                                       {k::e1_v, "v"},
                                                       {k::e1_rms_part, "rms_part"},
                                                       {k::e1_p_part, "p_part"}},
                                                      k::e1_dims, k::e1_hp, d, sc);
}
inline validate::DispatchSpec& apply_1d_dispatch(validate::CaseBuilder& b, const Dims& d,
                                                 const Scalars& sc) {
  namespace k = kaf::adafactor_apply_1d::binding;
  return step_dispatch<kaf::adafactor_apply_1d::Kernel>(b,
                                                        {{k::a1_w, "w"},
                                                         {k::a1_g, "g"},
                                                         {k::a1_v, "v"},
                                                         {k::a1_rms_part, "rms_part"},
                                                         {k::a1_p_part, "p_part"}},
                                                        k::a1_dims, k::a1_hp, d, sc);
}

// The state inputs (2-D: row_var, col_var; 1-D: v), the scratch outputs and the step's
// dispatches on d. `first_only`: the first dispatch alone (2-D: sq_sums; 1-D: ema_1d).
inline void add_step(validate::CaseBuilder& b, const Dims& d, const Scalars& sc,
                     const std::vector<float>& row_var, const std::vector<float>& col_var,
                     const std::vector<float>& v, bool first_only = false) {
  using validate::DType;
  if (d.factored) {
    const std::array<uint32_t, 3> tiles{d.nbx, d.nby, 1};
    b.input("row_var", DType::F32, row_var);
    b.input("col_var", DType::F32, col_var);
    b.output("row_part", DType::F32, uint64_t(d.nbx) * d.rows);
    b.output("col_part", DType::F32, uint64_t(d.nby) * d.cols);
    b.output("p_part", DType::F32, d.nparts);
    b.output("rms_part", DType::F32, d.nparts);
    b.output("rr", DType::F32, d.rows);
    b.output("rc", DType::F32, d.cols);
    sq_sums_dispatch(b, d, sc).workgroups = tiles;
    if (first_only) return;
    factor_ema_dispatch(b, d, sc).workgroups_1d = factor_ema_workgroups(d);
    row_rsqrt_dispatch(b, d, sc).workgroups_1d = 1;
    update_rms_dispatch(b, d, sc).workgroups = tiles;
    apply_2d_dispatch(b, d, sc).workgroups = tiles;
  } else {
    b.input("v", DType::F32, v);
    b.output("rms_part", DType::F32, d.nparts);
    b.output("p_part", DType::F32, d.nparts);
    ema_1d_dispatch(b, d, sc).workgroups_1d = d.nparts;
    if (first_only) return;
    apply_1d_dispatch(b, d, sc).workgroups_1d = (d.n + kWG - 1) / kWG;
  }
}

}  // namespace wgslvk::adafactor
