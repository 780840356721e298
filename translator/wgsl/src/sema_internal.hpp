// Sema's internal interfaces: the type table (interning and layout, types.cpp), constant
// evaluation (const_eval.cpp) and the builtin function table (builtins.cpp), used by sema.cpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ast.hpp"

namespace wgslvk::wgsl {

// Interns types in Module::types (same structure -> same pointer) and fills their layout.
class TypeTable {
 public:
  explicit TypeTable(Module& m) : module_(m) {}
  const Type* void_() { return scalar(Type::Kind::Void); }
  const Type* bool_() { return scalar(Type::Kind::Bool); }
  const Type* abstract_int() { return scalar(Type::Kind::AbstractInt); }
  const Type* abstract_float() { return scalar(Type::Kind::AbstractFloat); }
  const Type* i32() { return scalar(Type::Kind::I32); }
  const Type* u32() { return scalar(Type::Kind::U32); }
  const Type* f32() { return scalar(Type::Kind::F32); }
  const Type* f16() { return scalar(Type::Kind::F16); }
  const Type* scalar(Type::Kind k);
  const Type* vec(const Type* elem, uint32_t n);
  const Type* mat(const Type* elem, uint32_t cols, uint32_t rows);
  // count 0: runtime-sized. count_override: the override-expression sizing it (count is then
  // its value with the pipeline constants applied).
  const Type* array(const Type* elem, uint64_t count, const Expr* count_override = nullptr);
  const Type* atomic(const Type* elem);
  const Type* ptr(AddressSpace s, const Type* elem, Access a);
  const Type* ref(AddressSpace s, const Type* elem, Access a);
  // Opaque handle types (Type::Kind::Texture's fields say what the arguments are).
  const Type* texture(uint32_t name, const Type* sampled, uint32_t format, Access access);
  const Type* sampler(bool comparison);
  // The struct's members must have their types, offsets and sizes filled (sema does it).
  const Type* struct_(const StructDecl* d, uint32_t align, uint64_t size);

  // Same shape (scalar, vecN, matCxR, array<_,N>) with element scalar `s`.
  const Type* with_scalar(const Type* t, const Type* s);
  // WGSL's concretization: abstract int -> i32, abstract float -> f32, element-wise.
  const Type* concretize(const Type* t);

  // The builtins' result structures (__frexp_result_f32, ...), made once per module.
  const Type* named_struct(const std::string& name) const {
    auto it = named_.find(name);
    return it == named_.end() ? nullptr : it->second;
  }
  void set_named_struct(const std::string& name, const Type* t) { named_[name] = t; }

 private:
  const Type* intern(const Type& t);
  Module& module_;
  using Key = std::tuple<int, const Type*, uint32_t, uint32_t, uint64_t, const Expr*, int, int,
                         const StructDecl*>;
  std::map<Key, const Type*> map_;
  std::map<std::string, const Type*> named_;
};

// Type predicates (types.cpp).
bool is_numeric_scalar(const Type* t);  // abstract/concrete ints and floats
bool is_concrete_scalar(const Type* t);
bool is_constructible(const Type* t);  // WGSL's "constructible"
bool is_host_shareable(const Type* t);
bool is_plain(const Type* t);  // scalars, vectors, matrices, atomics, arrays, structs
bool contains_atomic(const Type* t);
bool contains_runtime_array(const Type* t);
bool uses_f16(const Type* t);
const char* space_name(AddressSpace s);
const char* access_name(Access a);
// Automatic conversion rank (WGSL's ConversionRank) from `from` to `to`; nullopt if none.
std::optional<int> conversion_rank(const Type* from, const Type* to);
// The lowest-ranked type both convert to (for scalars/vectors/matrices/arrays of the same shape);
// nullptr when there is none.
const Type* common_type(TypeTable& tt, const Type* a, const Type* b);
// Number of scalar components (vector n, matrix c*r; 1 for scalars).
uint32_t component_count(const Type* t);

// ---- Constant evaluation (const_eval.cpp) -----------------------------------------------------
// Each returns nullopt with `error` set (a message, the "const-eval" rule) when the operation
// is out of range for the result type, divides by zero, and so on.

ConstValue zero_value(TypeTable& tt, const Type* t);
ConstValue scalar_value(const Type* t, Scalar s);
// Automatic (abstract -> concrete) and value conversions (f32(u), vec4<f32>(vec4<i32>)):
// element-wise to `to`, which has the same shape.
std::optional<ConstValue> convert_value(TypeTable& tt, const ConstValue& v, const Type* to,
                                        std::string& error);
// Rounds/checks a double to the range of a float scalar type (f32/f16 round to nearest even).
std::optional<double> to_float_type(double v, const Type* t, std::string& error);
// A conversion to a float scalar type (abstract -> concrete, f32 -> f16, a float literal with a
// suffix, a pipeline constant, quantizeToF16): a value beyond the type's finite range is an error
// even where it would round to the largest finite value (as Tint: checked before rounding).
std::optional<double> convert_to_float_type(double v, const Type* t, std::string& error);
std::optional<ConstValue> eval_unary(TypeTable& tt, Op op, const ConstValue& a, const Type* result,
                                     std::string& error);
// Operands already converted to their operator's parameter types (e.g. both f32, or vec + scalar).
std::optional<ConstValue> eval_binary(TypeTable& tt, Op op, const ConstValue& a,
                                      const ConstValue& b, const Type* result, std::string& error);
// Scalar accessors.
double as_double(const Scalar& s);
int64_t as_int(const Scalar& s);  // i32/u32/abstract int (u32 fits int64)
bool as_bool(const Scalar& s);
// Flattens all scalars of a value (vector, matrix, array, struct) in order.
void flatten(const ConstValue& v, std::vector<Scalar>& out);
// Element/column/component `i` of a composite value.
ConstValue value_element(TypeTable& tt, const ConstValue& v, uint64_t i);
// A value as WGSL source text, for messages ("vec2(1, 2)").
std::string value_text(const ConstValue& v);
bool values_equal(const ConstValue& a, const ConstValue& b);

// ---- Builtin functions (builtins.cpp) ---------------------------------------------------------

bool is_builtin_function(std::string_view name);

struct BuiltinMatch {
  const Type* result = nullptr;
  std::vector<const Type*> params;  // the parameter types the arguments convert to
  bool const_fn = false;            // a const function: const arguments give a const result
  bool must_use = true;
  bool needs_subgroups = false;
  int offset_arg = -1;     // a texture builtin's offset: a const-expression, each in [-8, 7]
  int component_arg = -1;  // textureGather's component: a const-expression in [0, 3]
  std::string error;       // set when no overload matches (the "type" rule)
};
// args: the arguments' types (references already loaded, pointers as pointers). `result_struct`
// creates the frexp/modf/atomicCompareExchangeWeak result structures.
BuiltinMatch match_builtin(TypeTable& tt, Module& m, std::string_view name,
                           const std::vector<const Type*>& template_args,
                           const std::vector<const Type*>& args);
// Evaluates a const builtin on arguments already converted to match.params.
std::optional<ConstValue> eval_builtin(TypeTable& tt, std::string_view name,
                                       const BuiltinMatch& match,
                                       const std::vector<ConstValue>& args, std::string& error);

}  // namespace wgslvk::wgsl
