// Constant evaluation: WGSL's const-expression semantics on ConstValue. Abstract ints are int64
// (overflow is an error), abstract floats double (a non-finite result is an error), concrete
// types keep their own range: i32/u32 overflow, division by zero and too-wide shifts are errors,
// f32/f16 results are rounded to nearest even in their type and must be finite. f32 +,-,*,/ are
// computed in double and rounded once, which is the correctly rounded f32 result (53 >= 2*24+2).
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "sema_internal.hpp"

namespace wgslvk::wgsl {

using K = Type::Kind;

double as_double(const Scalar& s) {
  if (auto* d = std::get_if<double>(&s.v)) return *d;
  if (auto* i = std::get_if<int64_t>(&s.v)) return double(*i);
  if (auto* u = std::get_if<uint64_t>(&s.v)) return double(*u);
  return std::get<bool>(s.v) ? 1.0 : 0.0;
}

int64_t as_int(const Scalar& s) {
  if (auto* i = std::get_if<int64_t>(&s.v)) return *i;
  if (auto* u = std::get_if<uint64_t>(&s.v)) return int64_t(*u);
  if (auto* d = std::get_if<double>(&s.v)) return int64_t(*d);
  return std::get<bool>(s.v) ? 1 : 0;
}

bool as_bool(const Scalar& s) {
  if (auto* b = std::get_if<bool>(&s.v)) return *b;
  return as_double(s) != 0;
}

namespace {

std::string num_text(double d) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.9g", d);
  return buf;
}

std::string scalar_text(const Scalar& s) {
  if (auto* b = std::get_if<bool>(&s.v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&s.v)) return std::to_string(*i);
  if (auto* u = std::get_if<uint64_t>(&s.v)) return std::to_string(*u);
  return num_text(std::get<double>(s.v));
}

std::string repr_error(const std::string& what, const Type* t) {
  return what + " cannot be represented as '" + t->wgsl() + "'";
}

// Rounds a finite double to the nearest binary16 value (ties to even); +-inf past the range.
double round_f16(double v) {
  double a = std::fabs(v);
  if (a == 0 || !std::isfinite(a)) return v;
  if (a >= 65520.0) return std::copysign(INFINITY, v);
  int ex;
  std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
  double ulp = a >= std::ldexp(1.0, -14) ? std::ldexp(1.0, ex - 11) : std::ldexp(1.0, -24);
  return std::copysign(std::nearbyint(a / ulp) * ulp, v);
}

}  // namespace

std::optional<double> to_float_type(double v, const Type* t, std::string& error) {
  double r = v;
  if (t->kind == K::F32)
    r = double(float(v));
  else if (t->kind == K::F16)
    r = round_f16(v);
  if (!std::isfinite(r)) {
    error = repr_error(std::isnan(v) ? "NaN" : num_text(v), t);
    return std::nullopt;
  }
  return r;
}

std::optional<double> convert_to_float_type(double v, const Type* t, std::string& error) {
  double max = t->kind == K::F32 ? double(FLT_MAX) : t->kind == K::F16 ? 65504.0 : DBL_MAX;
  if (std::fabs(v) > max) {  // checked before rounding: 3.40282347e38 does not round to FLT_MAX
    char buf[160];
    snprintf(buf, sizeof buf,
             "%.17g cannot be represented as '%s' (its largest finite value is %.17g)", v,
             t->wgsl().c_str(), max);
    error = buf;
    return std::nullopt;
  }
  return to_float_type(v, t, error);
}

ConstValue scalar_value(const Type* t, Scalar s) {
  ConstValue v;
  v.type = t;
  v.scalars.push_back(s);
  return v;
}

namespace {

Scalar zero_scalar(const Type* s) {
  switch (s->kind) {
    case K::Bool:
      return {false};
    case K::AbstractInt:
    case K::I32:
      return {int64_t(0)};
    case K::U32:
      return {uint64_t(0)};
    default:
      return {0.0};
  }
}

bool is_composite_of_values(const Type* t) { return t->kind == K::Array || t->kind == K::Struct; }

// Converts one scalar to scalar type `to` (value conversion; abstract -> concrete conversions
// are the same with range checks).
std::optional<Scalar> convert_scalar(const Scalar& s, const Type* from, const Type* to,
                                     std::string& error) {
  if (from == to) return s;
  switch (to->kind) {
    case K::Bool:
      return Scalar{as_bool(s)};
    case K::AbstractInt:
      if (from->kind == K::Bool) return Scalar{int64_t(as_bool(s))};
      return Scalar{as_int(s)};
    case K::I32:
    case K::U32: {
      bool is_i32 = to->kind == K::I32;
      int64_t lo = is_i32 ? INT32_MIN : 0, hi = is_i32 ? INT32_MAX : int64_t(UINT32_MAX);
      if (from->kind == K::Bool) {
        int64_t b = as_bool(s);
        return is_i32 ? Scalar{b} : Scalar{uint64_t(b)};
      }
      if (from->is_float_scalar()) {
        // Rounds toward zero, saturating (WGSL's float -> integer conversion).
        double d = std::trunc(as_double(s));
        int64_t r = d <= double(lo) ? lo : d >= double(hi) ? hi : int64_t(d);
        return is_i32 ? Scalar{r} : Scalar{uint64_t(r)};
      }
      int64_t v = as_int(s);
      if (from->kind == K::AbstractInt) {
        if (v < lo || v > hi) {
          error = repr_error(std::to_string(v), to);
          return std::nullopt;
        }
        return is_i32 ? Scalar{v} : Scalar{uint64_t(v)};
      }
      // i32 <-> u32: the same bits.
      uint32_t bits = uint32_t(v);
      return is_i32 ? Scalar{int64_t(int32_t(bits))} : Scalar{uint64_t(bits)};
    }
    case K::AbstractFloat:
    case K::F32:
    case K::F16: {
      double d = as_double(s);
      auto r = convert_to_float_type(d, to, error);
      if (!r) return std::nullopt;
      return Scalar{*r};
    }
    default:
      error = "cannot convert to '" + to->wgsl() + "'";
      return std::nullopt;
  }
}

}  // namespace

ConstValue zero_value(TypeTable& tt, const Type* t) {
  ConstValue v;
  v.type = t;
  if (t->kind == K::Array) {
    for (uint64_t i = 0; i < t->count; i++) v.elements.push_back(zero_value(tt, t->elem));
  } else if (t->kind == K::Struct) {
    for (const auto& m : t->decl->members) v.elements.push_back(zero_value(tt, m.type));
  } else if (const Type* s = t->scalar()) {
    v.scalars.assign(component_count(t), zero_scalar(s));
  }
  return v;
}

std::optional<ConstValue> convert_value(TypeTable& tt, const ConstValue& v, const Type* to,
                                        std::string& error) {
  if (v.type == to) return v;
  ConstValue out;
  out.type = to;
  if (is_composite_of_values(to)) {
    if (to->kind == K::Array) {
      for (const auto& e : v.elements) {
        auto c = convert_value(tt, e, to->elem, error);
        if (!c) return std::nullopt;
        out.elements.push_back(std::move(*c));
      }
    } else {
      for (size_t i = 0; i < v.elements.size() && i < to->decl->members.size(); i++) {
        auto c = convert_value(tt, v.elements[i], to->decl->members[i].type, error);
        if (!c) return std::nullopt;
        out.elements.push_back(std::move(*c));
      }
    }
    return out;
  }
  const Type* from_s = v.type->scalar();
  const Type* to_s = to->scalar();
  if (!from_s || !to_s) {
    error = "cannot convert '" + v.type->wgsl() + "' to '" + to->wgsl() + "'";
    return std::nullopt;
  }
  for (const auto& s : v.scalars) {
    auto c = convert_scalar(s, from_s, to_s, error);
    if (!c) return std::nullopt;
    out.scalars.push_back(*c);
  }
  return out;
}

void flatten(const ConstValue& v, std::vector<Scalar>& out) {
  if (!v.elements.empty() || is_composite_of_values(v.type)) {
    for (const auto& e : v.elements) flatten(e, out);
  } else {
    out.insert(out.end(), v.scalars.begin(), v.scalars.end());
  }
}

ConstValue value_element(TypeTable& tt, const ConstValue& v, uint64_t i) {
  const Type* t = v.type;
  if (is_composite_of_values(t)) return v.elements.at(i);
  if (t->kind == K::Vector) return scalar_value(t->elem, v.scalars.at(i));
  if (t->kind == K::Matrix) {
    ConstValue c;
    c.type = tt.vec(t->elem, t->rows);
    c.scalars.assign(v.scalars.begin() + i * t->rows, v.scalars.begin() + (i + 1) * t->rows);
    return c;
  }
  return v;
}

std::string value_text(const ConstValue& v) {
  if (v.type->is_scalar() && v.scalars.size() == 1) return scalar_text(v.scalars[0]);
  std::string s = v.type->wgsl() + "(";
  if (!v.elements.empty()) {
    for (size_t i = 0; i < v.elements.size(); i++) s += (i ? ", " : "") + value_text(v.elements[i]);
  } else {
    for (size_t i = 0; i < v.scalars.size(); i++) s += (i ? ", " : "") + scalar_text(v.scalars[i]);
  }
  return s + ")";
}

bool values_equal(const ConstValue& a, const ConstValue& b) {
  std::vector<Scalar> x, y;
  flatten(a, x);
  flatten(b, y);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); i++)
    if (x[i].v != y[i].v) return false;
  return true;
}

namespace {

// Concrete integer arithmetic wraps modulo 2^32, in const-expressions too (as Tint/Dawn).
Scalar wrap32(__int128 r, const Type* t) {
  uint32_t bits = uint32_t(uint64_t(r));
  if (t->kind == K::U32) return Scalar{uint64_t(bits)};
  return Scalar{int64_t(int32_t(bits))};
}

// Result of an integer operation checked against the range of scalar type t.
std::optional<Scalar> int_result(__int128 r, const Type* t, const std::string& expr,
                                 std::string& error) {
  __int128 lo, hi;
  if (t->kind == K::I32)
    lo = INT32_MIN, hi = INT32_MAX;
  else if (t->kind == K::U32)
    lo = 0, hi = UINT32_MAX;
  else
    lo = INT64_MIN, hi = INT64_MAX;
  if (r < lo || r > hi) {
    error = "'" + expr + "' cannot be represented as '" + t->wgsl() + "'";
    return std::nullopt;
  }
  if (t->kind == K::U32) return Scalar{uint64_t(r)};
  return Scalar{int64_t(r)};
}

const char* op_text(Op op) {
  switch (op) {
    case Op::Add:
      return "+";
    case Op::Sub:
      return "-";
    case Op::Mul:
      return "*";
    case Op::Div:
      return "/";
    case Op::Mod:
      return "%";
    case Op::And:
      return "&";
    case Op::Or:
      return "|";
    case Op::Xor:
      return "^";
    case Op::Shl:
      return "<<";
    case Op::Shr:
      return ">>";
    case Op::LogAnd:
      return "&&";
    case Op::LogOr:
      return "||";
    case Op::Eq:
      return "==";
    case Op::Ne:
      return "!=";
    case Op::Lt:
      return "<";
    case Op::Le:
      return "<=";
    case Op::Gt:
      return ">";
    case Op::Ge:
      return ">=";
    default:
      return "?";
  }
}

std::optional<Scalar> compare(Op op, int c) {
  switch (op) {
    case Op::Eq:
      return Scalar{c == 0};
    case Op::Ne:
      return Scalar{c != 0};
    case Op::Lt:
      return Scalar{c < 0};
    case Op::Le:
      return Scalar{c <= 0};
    case Op::Gt:
      return Scalar{c > 0};
    case Op::Ge:
      return Scalar{c >= 0};
    default:
      return std::nullopt;
  }
}

// One scalar operation; `t` is the operands' scalar type (the shift amount is u32).
std::optional<Scalar> scalar_binary(Op op, const Scalar& a, const Scalar& b, const Type* t,
                                    std::string& error) {
  std::string expr = scalar_text(a) + " " + op_text(op) + " " + scalar_text(b);
  if (t->kind == K::Bool) {
    bool x = as_bool(a), y = as_bool(b);
    switch (op) {
      case Op::And:
      case Op::LogAnd:
        return Scalar{x && y};
      case Op::Or:
      case Op::LogOr:
        return Scalar{x || y};
      case Op::Eq:
        return Scalar{x == y};
      case Op::Ne:
        return Scalar{x != y};
      default:
        break;
    }
  } else if (t->is_float_scalar()) {
    double x = as_double(a), y = as_double(b), r;
    switch (op) {
      case Op::Add:
        r = x + y;
        break;
      case Op::Sub:
        r = x - y;
        break;
      case Op::Mul:
        r = x * y;
        break;
      case Op::Div:
        r = x / y;
        break;
      case Op::Mod:
        // WGSL: x - y * trunc(x / y), each step in the type's precision.
        if (y == 0) {
          error = "'" + expr + "' cannot be represented as '" + t->wgsl() + "'";
          return std::nullopt;
        }
        {
          auto q = to_float_type(x / y, t, error);
          if (!q) return std::nullopt;
          auto p = to_float_type(y * std::trunc(*q), t, error);
          if (!p) return std::nullopt;
          r = x - *p;
        }
        break;
      default:
        return compare(op, x < y ? -1 : x > y ? 1 : 0);
    }
    if (!std::isfinite(r)) {
      error = "'" + expr + "' cannot be represented as '" + t->wgsl() + "'";
      return std::nullopt;
    }
    auto v = to_float_type(r, t, error);
    if (!v) {
      error = "'" + expr + "' cannot be represented as '" + t->wgsl() + "'";
      return std::nullopt;
    }
    return Scalar{*v};
  } else {
    __int128 x = as_int(a), y = as_int(b);
    unsigned bits = t->kind == K::AbstractInt ? 64 : 32;
    switch (op) {
      case Op::Add:
        if (t->kind != K::AbstractInt) return wrap32(x + y, t);
        return int_result(x + y, t, expr, error);
      case Op::Sub:
        if (t->kind != K::AbstractInt) return wrap32(x - y, t);
        return int_result(x - y, t, expr, error);
      case Op::Mul:
        if (t->kind != K::AbstractInt) return wrap32(x * y, t);
        return int_result(x * y, t, expr, error);
      case Op::Div:
      case Op::Mod:
        if (y == 0) {
          error = std::string("integer ") + (op == Op::Div ? "division" : "modulo") +
                  " by zero is invalid: '" + expr + "'";
          return std::nullopt;
        }
        // The most negative value % -1 is an error as its `/` is (WGSL; Tint's CheckedMod),
        // though the remainder itself (0) would fit.
        if (op == Op::Mod && y == -1 && t->kind != K::U32 &&
            x == (t->kind == K::I32 ? __int128(INT32_MIN) : __int128(INT64_MIN))) {
          error = "'" + expr + "' cannot be represented as '" + t->wgsl() + "'";
          return std::nullopt;
        }
        return int_result(op == Op::Div ? x / y : x % y, t, expr, error);
      case Op::And:
        return int_result(x & y, t, expr, error);
      case Op::Or:
        return int_result(x | y, t, expr, error);
      case Op::Xor:
        return int_result(x ^ y, t, expr, error);
      case Op::Shl:
      case Op::Shr: {
        // An abstract value shifted by 64 or more (Tint, the CTS's shift_*_abstract): right,
        // the sign fills it; left, only 0 stays representable.
        if (t->kind == K::AbstractInt && y >= 64 && (op == Op::Shr || x == 0))
          return Scalar{int64_t(op == Op::Shr && x < 0 ? -1 : 0)};
        if (y < 0 || y >= __int128(bits)) {
          error = std::string("shift ") + (op == Op::Shl ? "left" : "right") +
                  " value must be less than the bit width of the lhs, which is " +
                  std::to_string(bits) + ": '" + expr + "'";
          return std::nullopt;
        }
        unsigned s = unsigned(y);
        if (op == Op::Shr) return int_result(x >> s, t, expr, error);  // arithmetic if signed
        // Left shift (Tint's rule, for every integer type): a signed value must not change
        // sign (its s+1 most significant bits equal), an unsigned one must not lose set bits.
        uint64_t ux = uint64_t(int64_t(x)) & (bits == 64 ? ~0ull : 0xffffffffull);
        if (s > 0) {
          if (t->kind != K::U32) {
            uint64_t mask = (bits == 64 ? ~0ull : 0xffffffffull) & ~((1ull << (bits - s - 1)) - 1);
            if ((ux & mask) != 0 && (ux & mask) != mask) {
              error = "shift left operation results in sign change: '" + expr + "'";
              return std::nullopt;
            }
          } else if ((ux >> (bits - s)) != 0) {
            error = "'" + expr + "' cannot be represented as '" + t->wgsl() + "'";
            return std::nullopt;
          }
        }
        uint64_t r = (ux << s) & (bits == 64 ? ~0ull : 0xffffffffull);
        if (t->kind == K::U32) return Scalar{r};
        return Scalar{bits == 64 ? int64_t(r) : int64_t(int32_t(uint32_t(r)))};
      }
      default:
        return compare(op, x < y ? -1 : x > y ? 1 : 0);
    }
  }
  error = std::string("operator ") + op_text(op) + " is not defined on '" + t->wgsl() + "'";
  return std::nullopt;
}

// Dot product of n scalars with stride, in float type t, rounding each step.
std::optional<Scalar> dot_rounded(const std::vector<Scalar>& a, size_t a0, size_t as,
                                  const std::vector<Scalar>& b, size_t b0, size_t bs, size_t n,
                                  const Type* t, std::string& error) {
  Scalar acc{0.0};
  for (size_t k = 0; k < n; k++) {
    auto p = scalar_binary(Op::Mul, a[a0 + k * as], b[b0 + k * bs], t, error);
    if (!p) return std::nullopt;
    auto s = scalar_binary(Op::Add, acc, *p, t, error);
    if (!s) return std::nullopt;
    acc = *s;
  }
  return acc;
}

}  // namespace

std::optional<ConstValue> eval_unary(TypeTable& tt, Op op, const ConstValue& a, const Type* result,
                                     std::string& error) {
  (void)tt;
  ConstValue out;
  out.type = result;
  const Type* s = a.type->scalar();
  if (!s) {
    error = "invalid operand";
    return std::nullopt;
  }
  for (const auto& x : a.scalars) {
    switch (op) {
      case Op::Neg:
        if (s->is_float_scalar()) {
          out.scalars.push_back({-as_double(x)});
        } else {
          // -(i32 min) is itself (wraps); so is the abstract int's minimum (WGSL's arithmetic
          // expressions, Tint, the CTS's ai_arithmetic:negation).
          if (s->kind == K::I32) {
            out.scalars.push_back(wrap32(-__int128(as_int(x)), s));
            break;
          }
          const int64_t v = as_int(x);
          out.scalars.push_back({v == INT64_MIN ? v : -v});
        }
        break;
      case Op::Not:
        out.scalars.push_back({!as_bool(x)});
        break;
      case Op::BitNot:
        if (s->kind == K::U32)
          out.scalars.push_back({uint64_t(~uint32_t(as_int(x)))});
        else
          out.scalars.push_back({int64_t(~as_int(x))});
        break;
      default:
        error = "invalid unary operator";
        return std::nullopt;
    }
  }
  return out;
}

std::optional<ConstValue> eval_binary(TypeTable& tt, Op op, const ConstValue& a,
                                      const ConstValue& b, const Type* result, std::string& error) {
  const Type* ta = a.type;
  const Type* tb = b.type;
  ConstValue out;
  out.type = result;
  bool mat_a = ta->kind == K::Matrix, mat_b = tb->kind == K::Matrix;
  if (op == Op::Mul && (mat_a || mat_b) && !ta->is_scalar() && !tb->is_scalar()) {
    const Type* f = ta->elem;
    if (mat_a && mat_b) {  // matKxR * matCxK -> matCxR
      uint32_t R = ta->rows, K2 = ta->n, C = tb->n;
      for (uint32_t c = 0; c < C; c++)
        for (uint32_t r = 0; r < R; r++) {
          auto d = dot_rounded(a.scalars, r, R, b.scalars, c * K2, 1, K2, f, error);
          if (!d) return std::nullopt;
          out.scalars.push_back(*d);
        }
      return out;
    }
    if (mat_a) {  // matCxR * vecC -> vecR
      uint32_t R = ta->rows, C = ta->n;
      for (uint32_t r = 0; r < R; r++) {
        auto d = dot_rounded(a.scalars, r, R, b.scalars, 0, 1, C, f, error);
        if (!d) return std::nullopt;
        out.scalars.push_back(*d);
      }
      return out;
    }
    // vecR * matCxR -> vecC
    uint32_t R = tb->rows, C = tb->n;
    for (uint32_t c = 0; c < C; c++) {
      auto d = dot_rounded(a.scalars, 0, 1, b.scalars, c * R, 1, R, tb->elem, error);
      if (!d) return std::nullopt;
      out.scalars.push_back(*d);
    }
    return out;
  }
  // Component-wise, a scalar operand broadcast.
  const Type* s = ta->scalar();
  if (!s || !tb->scalar()) {
    error = "invalid operands";
    return std::nullopt;
  }
  size_t n = std::max(a.scalars.size(), b.scalars.size());
  for (size_t i = 0; i < n; i++) {
    const Scalar& x = a.scalars[a.scalars.size() == 1 ? 0 : i];
    const Scalar& y = b.scalars[b.scalars.size() == 1 ? 0 : i];
    auto r = scalar_binary(op, x, y, s, error);
    if (!r) return std::nullopt;
    out.scalars.push_back(*r);
  }
  return out;
}

}  // namespace wgslvk::wgsl
