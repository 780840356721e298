// Shared by the GLSL emitter's files: type utilities and the WGSL-semantics helpers (each a small
// GLSL function written into the output only when the translated code calls it).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ast.hpp"
#include "passes.hpp"

namespace wgslvk::wgsl::emit {

const Type* value_type(const Type* t);  // a Reference's store type; else t
const Type* store_type(const Type* t);  // through References and Pointers
const Type* scalar_of(const Type* t);   // of a scalar, vector, matrix or atomic
bool is_int(const Type* t);
bool is_signed(const Type* t);
bool is_float(const Type* t);
bool is_bool(const Type* t);
bool is_vector(const Type* t);
bool is_abstract_type(const Type* t);
std::string scalar_name(const Type* s);    // "float", "uint", "float16_t", ...
std::string vector_prefix(const Type* s);  // "vec", "uvec", "f16vec", ...

// The helpers a translation needs, in the order first needed (dependencies before their users).
class Helpers {
 public:
  // Each returns the helper's name, adding its definition on first use. `t` is the operand (or
  // result) type: an i32/u32/f32/f16 scalar or vector.
  std::string int_div(const Type* t);
  std::string int_mod(const Type* t);
  std::string float_mod(const Type* t);
  std::string float_to_int(const Type* from, const Type* to);  // saturating conversion
  std::string extract_bits(const Type* t);
  std::string insert_bits(const Type* t);
  std::string count_leading_zeros(const Type* t);
  std::string count_trailing_zeros(const Type* t);
  std::string int_dot(const Type* t);
  std::string dot4_packed(bool is_signed);
  std::string quantize_f16(const Type* t);
  std::string pack(const std::string& wgsl_name);    // pack4x8snorm, pack4xI8, ...
  std::string unpack(const std::string& wgsl_name);  // unpack4xI8, unpack4xU8
  std::string bitcast(const Type* from, const Type* to);
  // frexp / modf: `result` is the name of the GLSL result struct, `members` its fields.
  std::string frexp(const Type* t, const std::string& result);
  std::string modf(const Type* t, const std::string& result);

  std::string code() const;  // every definition, in order
  bool empty() const { return order_.empty(); }
  // Whether a definition is a GL_EXT_spirv_intrinsics declaration (quantize_f16's).
  bool uses_spirv_intrinsics() const { return has("wgsl_quantize_f16_float"); }

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::string> defs_;
  bool add(const std::string& name, const std::string& def);  // true when newly added
  bool has(const std::string& name) const { return defs_.count(name) != 0; }
};

std::string glsl_type_of(const Type* t);  // scalar or vector spelling (helpers only)

}  // namespace wgslvk::wgsl::emit
