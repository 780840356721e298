#include "wgslvk/validate/compare.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "wgslvk/numeric.hpp"

namespace wgslvk::validate {

double ulp_at(DType t, double x) {
  x = std::fabs(x);
  int mant = t == DType::F16 ? 10 : 23, emin = t == DType::F16 ? -14 : -126;
  if (x == 0 || !std::isfinite(x)) return std::ldexp(1.0, emin - mant);
  int e = std::ilogb(x);
  if (e < emin) e = emin;
  return std::ldexp(1.0, e - mant);
}

namespace {
uint64_t raw(std::span<const uint8_t> b, size_t sz, uint64_t i) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + i * sz, sz);
  return v;
}
double as_double(DType t, uint64_t bits) {
  switch (t) {
    case DType::F32:
      return std::bit_cast<float>(uint32_t(bits));
    case DType::F16:
      return f16_bits_to_f32(uint16_t(bits));
    case DType::I32:
      return int32_t(uint32_t(bits));
    case DType::I16:
      return int16_t(uint16_t(bits));
    case DType::I8:
      return int8_t(uint8_t(bits));
    default:
      return double(bits);
  }
}
}  // namespace

std::string element_text(DType t, std::span<const uint8_t> bytes, uint64_t i) {
  size_t sz = dtype_size(t);
  uint64_t bits = raw(bytes, sz, i);
  char buf[96];
  if (dtype_is_float(t)) {
    double v = as_double(t, bits);
    std::snprintf(buf, sizeof buf, "%.9g (0x%0*llx)", v, int(sz * 2), (unsigned long long)bits);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f (0x%0*llx)", as_double(t, bits), int(sz * 2),
                  (unsigned long long)bits);
  }
  return buf;
}

CheckResult compare(const CheckSpec& c, std::span<const uint8_t> actual) {
  CheckResult r;
  r.buffer = c.buffer;
  r.expected_file = c.expected_file;
  r.mode = c.mode;
  r.bound = c.mode == CheckSpec::Mode::Ulp ? c.bound : 0;
  r.reason = c.reason;
  r.begin = c.begin;
  r.end = c.range_end();
  r.per_element_bound = !c.bound_file.empty();
  DType t = c.expected.dtype;
  auto bound_of = [&](uint64_t i) -> double {
    if (c.mode == CheckSpec::Mode::Exact) return 0.0;
    if (!r.per_element_bound) return c.bound;
    size_t bs = dtype_size(c.bound_data.dtype);
    return as_double(c.bound_data.dtype, raw(c.bound_data.bytes, bs, i));
  };
  if (r.per_element_bound) {
    r.bound = 0;
    for (uint64_t i = c.begin; i < c.range_end(); ++i) r.bound = std::max(r.bound, bound_of(i));
  }
  size_t sz = dtype_size(t);
  std::span<const uint8_t> exp(c.expected.bytes);
  bool have_first = false;
  auto note = [&](uint64_t i, double err) {
    ++r.mismatches;
    if (!have_first) {
      have_first = true;
      r.first_index = i;
      r.first_actual = element_text(t, actual, i);
      r.first_expected = element_text(t, exp, i);
    }
    (void)err;
  };
  for (uint64_t i = r.begin; i < r.end; ++i) {
    uint64_t a = raw(actual, sz, i), e = raw(exp, sz, i);
    double err;
    if (c.mode == CheckSpec::Mode::Exact) {
      err = a == e ? 0.0 : INFINITY;
    } else {
      double av = as_double(t, a), ev = as_double(t, e);
      if (std::isnan(ev) || std::isinf(ev)) {
        bool ok = std::isnan(ev) ? std::isnan(av) : a == e;
        err = ok ? 0.0 : INFINITY;
      } else if (!std::isfinite(av)) {
        err = INFINITY;
      } else if (c.magnitude == CheckSpec::Magnitude::Self) {
        err = t == DType::F16 ? double(ulp_distance_f16(uint16_t(a), uint16_t(e)))
                              : double(ulp_distance(std::bit_cast<float>(uint32_t(a)),
                                                    std::bit_cast<float>(uint32_t(e))));
      } else {
        double m = c.magnitude == CheckSpec::Magnitude::Scalar
                       ? c.magnitude_scalar
                       : std::fabs(as_double(
                             c.magnitude_data.dtype,
                             raw(c.magnitude_data.bytes, dtype_size(c.magnitude_data.dtype), i)));
        err = std::fabs(av - ev) / ulp_at(t, std::max(std::fabs(ev), m));
      }
    }
    double b = bound_of(i);
    if (i == r.begin || err > r.worst_ulp) {
      r.worst_index = i;
      r.worst_ulp = err;
      r.bound_at_worst = b;
    }
    if (err > b) note(i, err);
  }
  return r;
}

std::string CheckResult::describe() const {
  char buf[160];
  std::string s = buffer + "[" + std::to_string(first_index) + "]: got " + first_actual +
                  ", expected " + first_expected;
  if (mode == CheckSpec::Mode::Exact) {
    s += " (exact comparison)";
  } else {
    std::snprintf(buf, sizeof buf, " (worst error %.3g ULP at [%llu], bound %g ULP%s)", worst_ulp,
                  (unsigned long long)worst_index, bound_at_worst,
                  per_element_bound ? " there" : "");
    s += buf;
  }
  s += "; " + std::to_string(mismatches) + " of " + std::to_string(end - begin) +
       " elements differ (range [" + std::to_string(begin) + ", " + std::to_string(end) +
       "), expected from " + expected_file + ")";
  return s;
}

}  // namespace wgslvk::validate
