// The optimizer family's sweep cases (cases.cpp): the bench times these at its sweep sizes
// (bench.cpp, through wgslvk::bench::time_case), checked with the goldens' references and bounds.
// Inputs are generated (golden/README.md "generate", a choice over a fixed list of values): fast to
// make at 2^27 elements and a few hundred bytes in a `bench --dump` folder. Where the expected
// arrays would be too big, the reference computes and the case checks only the first `checked`
// elements (adamw_*); a reduction's single result is always checked in full.
#pragma once

#include <cstdint>
#include <string>

#include "wgslvk/validate/case.hpp"

namespace wgslvk::optimizer {

// "optimizer/adamw_update", "optimizer/adamw_update_f16", "optimizer/adamw_8bit_update" or
// "optimizer/adamw_8bit_update_vec4" (ours; w and g generated padded to a multiple of 4) over n
// elements (n < 2^32), one dispatch of ceil(n/256) workgroups, a few non-finite gradients. The
// first min(checked, n) elements of every output are checked (the 8-bit kernels: rounded up to
// whole 256-element blocks, as a block's scale depends on all of it). Throws std::invalid_argument
// for another kernel name or n out of range.
validate::Case adamw_sweep_case(const std::string& kernel, uint64_t n, uint64_t checked);

// reduce_norm_sq over n generated elements on `workgroups` workgroups (a bounded grid-stride
// launch), into an accumulator starting at 0; the sum is checked against the whole input.
validate::Case reduce_sweep_case(uint64_t n, uint32_t workgroups);

// The two-level norm of optimizer_native.wgsl on `workgroups` partials, max_grad_norm 1.0:
// Both: reduce_norm_sq_partials then finalize_grad_stats_partials (one case, two dispatches);
// Reduce: the first alone (the partials checked); Finalize: the second alone, on integer partials.
enum class TwoLevelPart { Both, Reduce, Finalize };
validate::Case norm_two_level_sweep_case(uint64_t n, uint32_t workgroups, TwoLevelPart part);

}  // namespace wgslvk::optimizer
