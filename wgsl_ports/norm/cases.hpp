// The norm family's case builders that tests need beyond the registered generators (cases too
// large for golden/: more than 65535 rows).
#pragma once

#include <cstdint>

#include "norm/reference.hpp"
#include "wgslvk/validate/case.hpp"

namespace wgslvk::validate {

// layernorm_backward_lean (the port's main kernel past kLeanMaxD) + layernorm_backward_lean_dparams
// (norm_native.wgsl) on fresh inputs from `seed`, checked against reference.hpp. finalize_rows != 0
// gives the finalize that row count instead of s.rows: a deliberately wrong host call (tests check
// it fails).
Case norm_lean_backward_case(uint64_t seed, norm::Shape s, uint32_t rows_per_block,
                             uint32_t finalize_rows = 0);

}  // namespace wgslvk::validate
