// Comparing one output against its expected values: exact (bitwise) or within a ULP bound
// measured against the value itself or a stated magnitude (golden/README.md, "Comparisons").
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "wgslvk/validate/case.hpp"

namespace wgslvk::validate {

struct CheckResult {
  std::string buffer;
  std::string expected_file;
  CheckSpec::Mode mode = CheckSpec::Mode::Exact;
  double bound = 0;  // ULP bound (0 for exact; per-element bounds: the largest)
  bool per_element_bound = false;
  double bound_at_worst = 0;  // the bound at worst_index
  std::string reason;
  uint64_t begin = 0, end = 0;  // element range compared
  uint64_t mismatches = 0;      // elements over the bound (exact: differing)
  double worst_ulp = 0;         // largest error seen, in ULP (exact: 0 or inf)
  uint64_t worst_index = 0;
  // First element over the bound: its index and both values as text ("1.5 (0x3fc00000)").
  uint64_t first_index = 0;
  std::string first_actual, first_expected;
  bool pass() const { return mismatches == 0; }
  // "w[12]: got 1.5 (0x3fc00000), expected 1.25 (0x3fa00000), 3.0 ULP > bound 2; 7 of 1024
  // elements differ"
  std::string describe() const;
};

// Error of `actual` against `expected` element i, in ULP of the expected type at
// max(|expected|, magnitude); "self" magnitude is the integer distance on the float line.
// Non-finite expected values must be matched in kind (NaN by any NaN, +-inf exactly).
CheckResult compare(const CheckSpec& check, std::span<const uint8_t> actual);

// Text of element i of a typed byte array: "1.5 (0x3fc00000)" for floats, "7 (0x00000007)" else.
std::string element_text(DType t, std::span<const uint8_t> bytes, uint64_t i);

// One unit in the last place of `t` (f32 or f16) at magnitude |x| (subnormal spacing below the
// smallest normal).
double ulp_at(DType t, double x);

}  // namespace wgslvk::validate
