// The one checked parser for every command's numeric flags (issue 26: `--steps -1` ran 2^32 - 1
// steps, `--steps 4294967296` ran 0, `--seed 0x10` was seed 0, and errors said "stoul"). Header
// only, so cli/ and the apps' commands share it without a link dependency.
//
// Integers: decimal digits, or 0x/0X and hex digits; no sign, space, suffix or fraction. Reals: a
// finite decimal number (from_chars' general format: 1e-3, 0.5, -2). Both within [lo, hi]. A bad
// value throws FlagError (a std::invalid_argument, so the commands report it as a usage error)
// naming the flag, the value (bounded, control bytes escaped) and the accepted range.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace wgslvk::cli {

struct FlagError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// `v` quoted for a message: at most 40 bytes, bytes outside printable ASCII as \xNN.
inline std::string quote_flag_value(std::string_view v) {
  std::string q = "'";
  for (size_t i = 0; i < v.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(v[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      q += char(c);
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      q += b;
    }
  }
  if (v.size() > 40) q += "...";
  return q + "'";
}

inline std::string flag_range_text(double lo, double hi) {
  char b[96];
  std::snprintf(b, sizeof b, "[%g, %g]", lo, hi);
  return b;
}

inline uint64_t parse_flag_uint(std::string_view flag, std::string_view v, uint64_t lo,
                                uint64_t hi) {
  auto range = [&] { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; };
  const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  const char* b = v.data() + (hex ? 2 : 0);
  const char* e = v.data() + v.size();
  uint64_t x = 0;
  auto r = std::from_chars(b, e, x, hex ? 16 : 10);
  // from_chars takes no sign for unsigned types, so "-1" stops at '-' and is refused here.
  if (v.empty() || b == e || r.ptr != e ||
      (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
    throw FlagError(std::string(flag) + ": " + quote_flag_value(v) +
                    " is not a whole number (decimal, or hex after 0x); give one in " + range());
  if (r.ec == std::errc::result_out_of_range || x < lo || x > hi)
    throw FlagError(std::string(flag) + ": " + quote_flag_value(v) + " is outside " + range());
  return x;
}

// The same for a narrower unsigned type: hi must fit in T.
template <class T>
T parse_flag_uint_as(std::string_view flag, std::string_view v, T lo,
                     T hi = std::numeric_limits<T>::max()) {
  static_assert(std::is_unsigned_v<T>);
  return T(parse_flag_uint(flag, v, lo, hi));
}

inline double parse_flag_real(std::string_view flag, std::string_view v, double lo, double hi) {
  double x = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x, std::chars_format::general);
  if (v.empty() || r.ptr != v.data() + v.size() || r.ec != std::errc() || !std::isfinite(x))
    throw FlagError(std::string(flag) + ": " + quote_flag_value(v) +
                    " is not a finite decimal number; give one in " + flag_range_text(lo, hi));
  if (!(x >= lo && x <= hi))
    throw FlagError(std::string(flag) + ": " + quote_flag_value(v) + " is outside " +
                    flag_range_text(lo, hi));
  return x;
}

// A real that is stored as float: the range is checked on the double, so 1e39 is refused rather
// than becoming +inf.
inline float parse_flag_float(std::string_view flag, std::string_view v, float lo, float hi) {
  return float(parse_flag_real(flag, v, lo, hi));
}

}  // namespace wgslvk::cli
