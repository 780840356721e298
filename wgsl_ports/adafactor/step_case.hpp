// One tensor's whole Adafactor step as a case's dispatches (every dispatch, as
// MultiTensorAdafactor records it), shared by the golden cases (cases.cpp) and the bench
// (bench.cpp): the caller adds w and g, this adds the state, the scratch outputs and the
// dispatches; the checks stay the caller's.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "adafactor/reference.hpp"
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

// Binds `names` to bindings 0.. in order, then the Dims and the hyperparameter uniforms.
inline void bind_step(validate::DispatchSpec& k, const std::vector<std::string>& names,
                      const Dims& d, const Scalars& sc) {
  uint32_t i = 0;
  for (const auto& n : names) validate::CaseBuilder::bind(k, i++, n);
  validate::CaseBuilder::bind_values(k, i++, dims_json(d));
  validate::CaseBuilder::bind_values(k, i, hp_json(sc));
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
    auto& k1 = b.dispatch("adafactor/adafactor_sq_sums");
    bind_step(k1, {"g", "w", "row_part", "col_part", "p_part"}, d, sc);
    k1.workgroups = tiles;
    if (first_only) return;
    auto& k2 = b.dispatch("adafactor/adafactor_factor_ema");
    bind_step(k2, {"row_part", "col_part", "row_var", "col_var", "rc"}, d, sc);
    k2.workgroups_1d = factor_ema_workgroups(d);
    auto& k3 = b.dispatch("adafactor/adafactor_row_rsqrt");
    bind_step(k3, {"row_var", "rr"}, d, sc);
    k3.workgroups_1d = 1;
    auto& k4 = b.dispatch("adafactor/adafactor_update_rms");
    bind_step(k4, {"g", "rr", "rc", "rms_part"}, d, sc);
    k4.workgroups = tiles;
    auto& k5 = b.dispatch("adafactor/adafactor_apply_2d");
    bind_step(k5, {"w", "g", "rr", "rc", "rms_part", "p_part"}, d, sc);
    k5.workgroups = tiles;
  } else {
    b.input("v", DType::F32, v);
    b.output("rms_part", DType::F32, d.nparts);
    b.output("p_part", DType::F32, d.nparts);
    auto& k1 = b.dispatch("adafactor/adafactor_ema_1d");
    bind_step(k1, {"g", "w", "v", "rms_part", "p_part"}, d, sc);
    k1.workgroups_1d = d.nparts;
    if (first_only) return;
    auto& k2 = b.dispatch("adafactor/adafactor_apply_1d");
    bind_step(k2, {"w", "g", "v", "rms_part", "p_part"}, d, sc);
    k2.workgroups_1d = (d.n + kWG - 1) / kWG;
  }
}

}  // namespace wgslvk::adafactor
