// The GLSL 450 emitter: one analyzed compute entry point (and only what it reaches) as the GLSL
// transliteration a hand port would be, with WGSL's semantics where GLSL's differ. Every such
// difference is a small helper emitted only when used (emit_helpers.cpp) or a comment in the
// output; the decisions are in translator/wgsl/README.md, "The GLSL it writes".
//
// Shape of the work: main() is written first; user functions are written on demand at their
// first call (per specialization, see pointers below), so a callee is always complete before its
// caller and lands earlier in the file; the structs, constants, resources and helpers that the
// written code used are collected on the way and declared above it in module order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "emit_internal.hpp"
#include "emit_names.hpp"
#include "passes.hpp"

namespace wgslvk::wgsl {
namespace emit {

// ---- Types ----------------------------------------------------------------------------------

const Type* value_type(const Type* t) {
  while (t && t->kind == Type::Kind::Reference) t = t->elem;
  return t;
}

const Type* store_type(const Type* t) {
  while (t && (t->kind == Type::Kind::Reference || t->kind == Type::Kind::Pointer)) t = t->elem;
  return t;
}

const Type* scalar_of(const Type* t) {
  t = value_type(t);
  if (!t) return nullptr;
  switch (t->kind) {
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Atomic:
      return t->elem;
    default:
      return t->is_scalar() ? t : nullptr;
  }
}

bool is_int(const Type* t) {
  const Type* s = scalar_of(t);
  return s && (s->kind == Type::Kind::I32 || s->kind == Type::Kind::U32 ||
               s->kind == Type::Kind::AbstractInt);
}
bool is_signed(const Type* t) {
  const Type* s = scalar_of(t);
  return s && (s->kind == Type::Kind::I32 || s->kind == Type::Kind::AbstractInt);
}
bool is_float(const Type* t) {
  const Type* s = scalar_of(t);
  return s && s->is_float_scalar();
}
bool is_bool(const Type* t) {
  const Type* s = scalar_of(t);
  return s && s->kind == Type::Kind::Bool;
}
bool is_vector(const Type* t) {
  t = value_type(t);
  return t && t->kind == Type::Kind::Vector;
}
bool is_abstract_type(const Type* t) {
  t = value_type(t);
  if (!t) return false;
  if (t->kind == Type::Kind::AbstractInt || t->kind == Type::Kind::AbstractFloat) return true;
  if (t->kind == Type::Kind::Vector || t->kind == Type::Kind::Matrix ||
      t->kind == Type::Kind::Array)
    return is_abstract_type(t->elem);
  return false;
}

std::string scalar_name(const Type* s) {
  switch (s ? s->kind : Type::Kind::Void) {
    case Type::Kind::Bool:
      return "bool";
    case Type::Kind::AbstractInt:
    case Type::Kind::I32:
      return "int";
    case Type::Kind::U32:
      return "uint";
    case Type::Kind::AbstractFloat:
    case Type::Kind::F32:
      return "float";
    case Type::Kind::F16:
      return "float16_t";
    default:
      return "void";
  }
}

std::string vector_prefix(const Type* s) {
  switch (s ? s->kind : Type::Kind::Void) {
    case Type::Kind::Bool:
      return "bvec";
    case Type::Kind::AbstractInt:
    case Type::Kind::I32:
      return "ivec";
    case Type::Kind::U32:
      return "uvec";
    case Type::Kind::F16:
      return "f16vec";
    default:
      return "vec";
  }
}

}  // namespace emit

using namespace emit;

namespace {

// ---- Literals -------------------------------------------------------------------------------

std::string f32_literal(double v) {
  float f = float(v);
  if (std::isnan(f)) return "uintBitsToFloat(0x7fc00000u)";
  if (std::isinf(f)) return f > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)";
  char buf[64];
  // Whole numbers read best as such ("80.0", not "8e+01"); they print exactly.
  if (f == std::trunc(f) && std::fabs(f) < 1e16f) {
    std::snprintf(buf, sizeof buf, "%.1f", double(f));
    return buf;
  }
  // The shortest decimal that reads back as the same f32, also through a double (glslang parses
  // literals as double, then rounds).
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, double(f));
    if (std::strtof(buf, nullptr) == f && float(std::strtod(buf, nullptr)) == f) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

struct Ex {
  std::string s;
  int prec = 100;  // C precedence: 100 primary, 14 unary, 13 * / %, 12 + -, 11 shifts,
                   // 10 relational, 9 equality, 8 &, 7 ^, 6 |, 5 &&, 3 ||, 2 ?:
};

int binary_prec(Op op) {
  switch (op) {
    case Op::Mul:
    case Op::Div:
    case Op::Mod:
      return 13;
    case Op::Add:
    case Op::Sub:
      return 12;
    case Op::Shl:
    case Op::Shr:
      return 11;
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return 10;
    case Op::Eq:
    case Op::Ne:
      return 9;
    case Op::And:
      return 8;
    case Op::Xor:
      return 7;
    case Op::Or:
      return 6;
    case Op::LogAnd:
      return 5;
    case Op::LogOr:
      return 3;
    default:
      return 0;
  }
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

std::string paren_if(const Ex& e, int min_prec) {
  return e.prec < min_prec ? "(" + e.s + ")" : e.s;
}

// The C (and GLSL) grammar's view of a WGSL expression: parenthesize a child whose precedence is
// below the parent's; the right operand also at equal precedence (left associativity).
std::string bin(const Ex& a, const char* op, const Ex& b, int prec) {
  return paren_if(a, prec) + " " + op + " " + paren_if(b, prec + 1);
}

std::string swizzle_text(const std::vector<uint8_t>& sw) {
  std::string s;
  for (uint8_t c : sw) s += "xyzw"[c & 3];
  return s;
}

struct LoopInfo {
  const Stmt* continuing = nullptr;  // Loop: its continuing block (may be null)
  bool is_loop_stmt = false;         // `loop` (else for/while: GLSL's own continue is exact)
  int switch_depth = 0;              // switches entered since this loop
  // A `loop` whose continuing ends in `break if`, inside a switch of it: the flag its `break if`
  // sets before leaving the switch (GLSL's break leaves the switch, not the loop).
  std::string break_flag;
};

struct Scope {
  std::set<std::string> names;
};

// A pointer argument in storage/uniform/workgroup space: the root variable and the access path
// with its dynamic indices as parameters ($0, $1, ...) of the specialization.
struct PtrArg {
  std::string path;                 // "buf[$0].x"
  std::vector<std::string> values;  // the index expressions at the call site
  std::vector<std::string> types;   // their GLSL types

  // The GLSL lvalue: the path with the values in place.
  std::string text() const {
    std::string t = path;
    for (size_t k = 0; k < values.size(); ++k) {
      std::string tok = "$" + std::to_string(k) + "$";
      for (size_t at; (at = t.find(tok)) != std::string::npos;)
        t.replace(at, tok.size(), values[k]);
    }
    return t;
  }
};

// One function being written (a user function specialization or main).
struct FnCtx {
  const FnDecl* fn = nullptr;
  bool is_entry = false;
  std::map<const Decl*, std::string> names;  // locals and value parameters
  std::map<const Decl*, PtrArg> aliases;     // pointers: the memory they designate, as GLSL
  std::vector<Scope> scopes;
  std::vector<LoopInfo> loops;
  std::vector<std::string>* pre = nullptr;  // lines the current statement needs before it
  int calls = 0;          // calls with side effects written so far in the current statement
  int short_circuit = 0;  // inside the right operand of && or ||
  std::string out;
  int indent = 1;
};

class Emitter {
 public:
  Emitter(const Module& m, const FnDecl& entry, const EmitOptions& o, Diags& d)
      : m_(m), entry_(entry), opt_(o), diags_(d) {}

  std::string run();

 private:
  const Module& m_;
  const FnDecl& entry_;
  const EmitOptions& opt_;
  Diags& diags_;
  Helpers helpers_;

  std::map<const Decl*, std::string> global_names_;
  std::set<std::string> global_taken_;  // every module-scope GLSL name (and specializations)
  std::set<const Decl*> used_globals_;  // vars, consts, overrides the written code names
  std::map<std::string, const VarDecl*> struct_resources_;  // GLSL name -> struct-typed buffer
  std::set<const StructDecl*> used_structs_;
  std::vector<const StructDecl*> struct_order_;
  std::map<std::string, std::string> specializations_;  // key -> GLSL function name
  std::vector<std::string> functions_;                  // finished function definitions
  std::vector<std::string> builtin_structs_;            // result structs of builtins
  std::set<std::string> builtin_struct_names_;
  FnCtx* fx_ = nullptr;
  bool uses_subgroups_ = false, uses_f16_ = false, failed_ = false;
  std::set<std::string> subgroup_exts_;
  bool need_memory_scope_ = false;

  // -- diagnostics
  void unsupported(Span at, const std::string& what) {
    bool repeat = !diags_.list.empty() && diags_.list.back().message == what &&
                  diags_.list.back().line == at.line && diags_.list.back().col == at.col;
    if (!repeat && diags_.list.size() < 32) diags_.error(at, "unsupported", what);
    failed_ = true;
  }

  // -- names
  void assign_global_names();
  std::string global_name(const Decl* d);
  std::string member_name(const std::string& n) { return mangle(n); }
  std::string fresh_local(const std::string& base);
  std::string declare_local(const Decl* d);
  std::string struct_name(const Type* t);

  // -- types
  std::string type_name(const Type* t, Span at);
  std::string decl_text(const Type* t, const std::string& name, Span at);
  std::string zero_value(const Type* t, Span at);
  uint64_t leaf_count(const Type* t);
  bool glslang_misfolds(const Type* t);
  void use_struct(const StructDecl* s, Span at);

  // -- values
  std::string literal(const ConstValue& v, const Type* want, Span at);
  std::string scalar_literal(const Scalar& s, const Type* t);

  // -- expressions
  Ex expr(const Expr* e, const Type* want = nullptr);
  Ex expr_uncached(const Expr* e, const Type* want);
  std::string value(const Expr* e, const Type* want = nullptr) { return expr(e, want).s; }
  // A condition or selector: GLSL's own parentheses stand for the source's.
  std::string cond(const Expr* e, const Type* want = nullptr) { return expr_uncached(e, want).s; }
  std::string lvalue(const Expr* e);
  std::string index_text(const Expr* base_expr, const std::string& base, const Expr* idx);
  Ex binary(const Expr* e);
  Ex unary(const Expr* e);
  Ex call(const Expr* e);
  Ex construct(const Expr* e);
  Ex builtin(const Expr* e);
  Ex user_call(const Expr* e);
  Ex ident(const Expr* e, const Type* want);
  Ex struct_resource_load(const VarDecl* v);
  const VarDecl* resource_of(const Expr* e);
  // A local initialized before the current statement. `what` (at `at`) is the operation that
  // needs it; `calls_before` the side-effecting calls written before that operation began.
  std::string hoist(const std::string& type, const std::string& base, const std::string& init,
                    Span at = {}, const std::string& what = {}, int calls_before = 0);
  PtrArg pointer_path(const Expr* e);
  void collect_path(const Expr* e, PtrArg& p);
  const Type* arg_want(const Expr* call, size_t i, const std::string& name);

  // -- statements
  void line(const std::string& s);
  void stmt(const Stmt* s);
  void block_body(const Stmt* s);
  void stmts_in_scope(const std::vector<Stmt*>& body);
  void emit_with_pre(const std::function<std::string()>& make);
  void assign(const Stmt* s);
  void loop_stmt(const Stmt* s);
  void for_stmt(const Stmt* s);
  void switch_stmt(const Stmt* s);
  void continuing_inline(const LoopInfo& l);
  void var_decl(const VarDecl* v, Span at);
  std::string simple_stmt_text(const Stmt* s);  // for-loop init/update
  void zero_fill(const std::string& lv, const Type* t, Span at);

  // -- functions
  std::string function(const FnDecl* f, const std::vector<const PtrArg*>& ptrs,
                       const std::string& key);
  std::string main_function();
  std::string workgroup_zero_init();

  // -- declarations
  std::string declarations();
  std::string resource_decl(const VarDecl* v);

  // -- host-shareable layouts (see "Buffer layouts" in translator/wgsl/README.md)
  struct HostType {
    bool lowered = false;    // its GLSL type is not the value type's: a load converts it
    bool columns = false;    // a matrix held as its column vectors (std140 pads them to 16 bytes)
    std::string base, dims;  // the GLSL declaration: `base name dims`
    uint64_t align = 4, size = 0;  // GLSL's layout of it as a block or struct member
    std::string load;              // lowered, not columns: the helper returning the WGSL value
    std::string why;               // what GLSL cannot express, if anything
  };
  std::map<std::pair<const Type*, bool>, HostType> host_types_;
  std::vector<std::string> host_structs_;  // definitions, each after what it uses
  std::vector<std::string> host_loads_;    // load helpers, each after what it calls
  std::set<std::string> host_names_;
  HostType host(const Type* t, bool std140);
  HostType host_struct(const Type* t, bool std140);
  std::string matrix_wrapper(const Type* m, std::string& load);
  std::string pad_members(uint64_t from, uint64_t to, bool std140, int& n,
                          const std::string& first_prefix = {});
  std::string columns_value(const Type* m, const std::string& prefix, const std::string& name);
  int rule_of(const Expr* e);
  std::string load_value(const Expr* e, const std::string& text);
  void store_parts(const std::string& lv, const std::string& v, const Type* t,
                   std::vector<std::string>& out, Span at);
  bool has_call(const Expr* e);
  bool has_effects(const Expr* e);
  bool in_for_header_ = false;  // a for-loop's condition or update: no statement can be hoisted
  // A vec3<f16> or matCx3<f16>, which a storage buffer is given in parts (see is_f16x3's use).
  static bool is_f16x3(const Type* t) {
    return t && t->elem && t->elem->kind == Type::Kind::F16 &&
           ((t->kind == Type::Kind::Matrix && t->rows == 3) ||
            (t->kind == Type::Kind::Vector && t->n == 3));
  }
  // `lv.xy = v.xy, lv.z = v.z` for each 3-vector of t (v names a value: it is read per part).
  static std::string split_f16x3_store(const std::string& lv, const std::string& v, const Type* t) {
    auto one = [](const std::string& l, const std::string& r) {
      return l + ".xy = " + r + ".xy, " + l + ".z = " + r + ".z";
    };
    if (t->kind == Type::Kind::Vector) return one(lv, v);
    std::string out;
    for (uint32_t k = 0; k < t->n; ++k) {
      std::string c = "[" + std::to_string(k) + "]";
      out += (k ? ", " : "") + one(lv + c, v + c);
    }
    return out;
  }
};

// ---- Names ----------------------------------------------------------------------------------

void Emitter::assign_global_names() {
  std::set<std::string> wgsl_names;
  for (const Decl* d : m_.decls) wgsl_names.insert(d->name);
  for (const Decl* d : m_.decls) {
    std::string n = mangle(d->name);
    if (n != d->name || global_taken_.count(n)) {
      while (global_taken_.count(n) || (n != d->name && wgsl_names.count(n))) n += "_w";
    }
    global_taken_.insert(n);
    global_names_[d] = n;
    if (d->kind == DeclKind::Var) {
      const auto* v = static_cast<const VarDecl*>(d);
      if (v->type && v->type->kind == Type::Kind::Struct &&
          (v->space == AddressSpace::Storage || v->space == AddressSpace::Uniform))
        struct_resources_[n] = v;
    }
  }
}

std::string Emitter::global_name(const Decl* d) {
  auto it = global_names_.find(d);
  if (it != global_names_.end()) return it->second;
  return mangle(d->name);
}

std::string Emitter::fresh_local(const std::string& base0) {
  std::string base = mangle(base0);
  auto taken = [&](const std::string& n) {
    if (glsl_reserved(n) || global_taken_.count(n)) return true;
    for (const Scope& s : fx_->scopes)
      if (s.names.count(n)) return true;
    return false;
  };
  std::string n = base;
  for (int i = 1; taken(n); ++i) n = base + "_" + std::to_string(i);
  fx_->scopes.back().names.insert(n);
  return n;
}

std::string Emitter::declare_local(const Decl* d) {
  std::string n = fresh_local(d->name);
  fx_->names[d] = n;
  return n;
}

std::string Emitter::struct_name(const Type* t) {
  const StructDecl* s = t->decl;
  if (!s) return "wgsl_struct";
  auto it = global_names_.find(s);
  if (it != global_names_.end()) return it->second;
  // A builtin's result structure (frexp, modf, atomicCompareExchangeWeak): WGSL names them with
  // a `__` prefix, which GLSL reserves.
  std::string n = s->name;
  while (!n.empty() && n[0] == '_') n.erase(0, 1);
  return "wgsl_" + n;
}

// ---- Types ----------------------------------------------------------------------------------

void Emitter::use_struct(const StructDecl* s, Span at) {
  if (!s || used_structs_.count(s)) return;
  used_structs_.insert(s);
  for (const StructMember& mb : s->members) type_name(mb.type, at);  // members' structs first
  if (!global_names_.count(s)) {
    // A builtin result struct: declared with the helpers' structs.
    std::string text = "struct " + struct_name(s->type) + " {\n";
    for (const StructMember& mb : s->members)
      text += "    " + decl_text(mb.type, member_name(mb.name), at) + ";\n";
    text += "};\n";
    if (builtin_struct_names_.insert(struct_name(s->type)).second) builtin_structs_.push_back(text);
    return;
  }
  struct_order_.push_back(s);
}

std::string Emitter::type_name(const Type* t, Span at) {
  t = value_type(t);
  if (!t) return "void";
  switch (t->kind) {
    case Type::Kind::Void:
      return "void";
    case Type::Kind::Bool:
    case Type::Kind::AbstractInt:
    case Type::Kind::I32:
    case Type::Kind::U32:
    case Type::Kind::AbstractFloat:
    case Type::Kind::F32:
      return scalar_name(t);
    case Type::Kind::F16:
      uses_f16_ = true;
      return "float16_t";
    case Type::Kind::Vector:
      if (t->elem && t->elem->kind == Type::Kind::F16) uses_f16_ = true;
      return vector_prefix(t->elem) + std::to_string(t->n);
    case Type::Kind::Matrix: {
      std::string p = "mat";
      if (t->elem && t->elem->kind == Type::Kind::F16) {
        uses_f16_ = true;
        p = "f16mat";
      }
      return p + std::to_string(t->n) + "x" + std::to_string(t->rows);
    }
    case Type::Kind::Atomic:
      return scalar_name(t->elem);
    case Type::Kind::Struct:
      use_struct(t->decl, at);
      return struct_name(t);
    case Type::Kind::Array: {
      std::string dims;
      const Type* e = t;
      while (e && e->kind == Type::Kind::Array) {
        if (e->count == 0) {
          if (e->count_override) {
            unsupported(at, "an array sized by an override whose value sema did not apply");
            return "void";
          }
          dims += "[]";
        } else {
          dims += "[" + std::to_string(e->count) + "]";
        }
        e = e->elem;
      }
      return type_name(e, at) + dims;
    }
    case Type::Kind::Pointer:
    case Type::Kind::Reference:
      return type_name(t->elem, at);
    case Type::Kind::Texture:
    case Type::Kind::Sampler:
      unsupported(at, "texture and sampler types (" + t->wgsl() +
                          "): they are checked, not translated; the translator is compute on "
                          "storage and uniform buffers");
      return "void";
  }
  return "void";
}

// `T name` with GLSL's array suffix: "float name[4][2]".
std::string Emitter::decl_text(const Type* t, const std::string& name, Span at) {
  std::string full = type_name(t, at);
  size_t b = full.find('[');
  if (b == std::string::npos) return full + " " + name;
  return full.substr(0, b) + " " + name + full.substr(b);
}

uint64_t Emitter::leaf_count(const Type* t) {
  t = value_type(t);
  if (!t) return 1;
  if (t->kind == Type::Kind::Array) return std::max<uint64_t>(t->count, 1) * leaf_count(t->elem);
  if (t->kind == Type::Kind::Struct && t->decl) {
    uint64_t n = 0;
    for (const auto& mb : t->decl->members) n += leaf_count(mb.type);
    return std::max<uint64_t>(n, 1);
  }
  return 1;
}

// Whether a constant of type t reaches a constructor glslang (12.0, the one linked) folds
// wrongly: a one-element array whose element is an array of two or more matrices
// (`mat2x2[1][3](mat2x2[3](mat2x2(0.0), ...))` becomes a constant whose 2nd and 3rd matrices
// are junk, 0x1p+128 in the SPIR-V, with or without spirv-opt; `mat2x2[3](...)`,
// `mat2x2[2][3](...)` and arrays of structs holding matrices fold right). The CTS's zero_init
// read such private and function variables as non-zero on lavapipe and on the H200.
bool misfolded_constructor(const Type* t) {
  t = value_type(t);
  if (!t || t->kind != Type::Kind::Array || t->count != 1) return false;
  const Type* e = value_type(t->elem);
  if (!e || e->kind != Type::Kind::Array || e->count < 2) return false;
  while (e && e->kind == Type::Kind::Array) e = value_type(e->elem);
  return e && e->kind == Type::Kind::Matrix;
}

bool Emitter::glslang_misfolds(const Type* t) {
  t = value_type(t);
  if (!t) return false;
  if (t->kind == Type::Kind::Array) return misfolded_constructor(t) || glslang_misfolds(t->elem);
  if (t->kind == Type::Kind::Struct && t->decl)
    for (const auto& mb : t->decl->members)
      if (glslang_misfolds(mb.type)) return true;
  return false;
}

std::string Emitter::zero_value(const Type* t, Span at) {
  t = value_type(t);
  switch (t->kind) {
    case Type::Kind::Bool:
      return "false";
    case Type::Kind::AbstractInt:
    case Type::Kind::I32:
      return "0";
    case Type::Kind::U32:
      return "0u";
    case Type::Kind::AbstractFloat:
    case Type::Kind::F32:
      return "0.0";
    case Type::Kind::F16:
      uses_f16_ = true;
      return "float16_t(0.0)";
    case Type::Kind::Atomic:
      return zero_value(t->elem, at);
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
      return type_name(t, at) + "(" + zero_value(t->elem, at) + ")";
    case Type::Kind::Array: {
      if (misfolded_constructor(t))
        unsupported(at, "a zero value of type " + t->wgsl() +
                            " in an expression (glslang folds its constructor wrongly)");
      std::string s = type_name(t, at) + "(";
      std::string z = zero_value(t->elem, at);
      for (uint64_t i = 0; i < t->count; ++i) s += (i ? ", " : "") + z;
      return s + ")";
    }
    case Type::Kind::Struct: {
      std::string s = type_name(t, at) + "(";
      bool first = true;
      for (const auto& mb : t->decl->members) {
        s += (first ? "" : ", ") + zero_value(mb.type, at);
        first = false;
      }
      return s + ")";
    }
    default:
      unsupported(at, "a zero value of type " + t->wgsl());
      return "0";
  }
}

// ---- Constant values ------------------------------------------------------------------------

std::string Emitter::scalar_literal(const Scalar& s, const Type* t) {
  double d = 0;
  int64_t i = 0;
  bool is_b = false, b = false;
  std::visit(
      [&](auto x) {
        using X = decltype(x);
        if constexpr (std::is_same_v<X, bool>) {
          is_b = true;
          b = x;
        } else if constexpr (std::is_same_v<X, double>) {
          d = x;
          i = int64_t(x);
        } else {
          d = double(x);
          i = int64_t(x);
        }
      },
      s.v);
  switch (t ? t->kind : Type::Kind::AbstractInt) {
    case Type::Kind::Bool:
      return (is_b ? b : d != 0) ? "true" : "false";
    case Type::Kind::U32:
      return std::to_string(uint32_t(uint64_t(i))) + "u";
    case Type::Kind::F32:
    case Type::Kind::AbstractFloat:
      return f32_literal(d);
    case Type::Kind::F16:
      uses_f16_ = true;
      return "float16_t(" + f32_literal(d) + ")";
    default: {
      int32_t v = int32_t(i);
      if (v == INT32_MIN) return "(-2147483647 - 1)";
      return std::to_string(v);
    }
  }
}

// A constant as a GLSL literal of the concrete type `want` (abstract values take its scalar).
std::string Emitter::literal(const ConstValue& v, const Type* want, Span at) {
  const Type* t = value_type(v.type);
  const Type* ws = scalar_of(want);
  auto sc = [&](const Type* own) {
    const Type* s = scalar_of(own);
    if (s && (s->kind == Type::Kind::AbstractInt || s->kind == Type::Kind::AbstractFloat) && ws &&
        ws->kind != Type::Kind::Bool)
      return ws;
    if (s && s->kind == Type::Kind::AbstractInt) return ws ? ws : s;
    return s;
  };
  switch (t->kind) {
    case Type::Kind::Vector:
    case Type::Kind::Matrix: {
      const Type* s = sc(t);
      std::string prefix = t->kind == Type::Kind::Vector
                               ? vector_prefix(s) + std::to_string(t->n)
                               : std::string(s && s->kind == Type::Kind::F16 ? "f16mat" : "mat") +
                                     std::to_string(t->n) + "x" + std::to_string(t->rows);
      if (s && s->kind == Type::Kind::F16) uses_f16_ = true;
      bool all_same = !v.scalars.empty();
      for (const auto& x : v.scalars)
        all_same = all_same && scalar_literal(x, s) == scalar_literal(v.scalars[0], s);
      if (all_same && t->kind == Type::Kind::Vector)
        return prefix + "(" + scalar_literal(v.scalars[0], s) + ")";
      std::string r = prefix + "(";
      for (size_t i = 0; i < v.scalars.size(); ++i)
        r += (i ? ", " : "") + scalar_literal(v.scalars[i], s);
      return r + ")";
    }
    case Type::Kind::Array: {
      if (misfolded_constructor(t))
        unsupported(at,
                    "a constant of type " + t->wgsl() + " (glslang folds its constructor wrongly)");
      const Type* want_elem =
          want && value_type(want)->kind == Type::Kind::Array ? value_type(want)->elem : want;
      std::string elem_name;
      std::string r;
      for (size_t i = 0; i < v.elements.size(); ++i)
        r += (i ? ", " : "") + literal(v.elements[i], want_elem, at);
      if (is_abstract_type(t)) {
        const Type* e = t->elem;
        elem_name =
            want_elem && !is_abstract_type(want_elem) ? type_name(want_elem, at) : type_name(e, at);
        return elem_name + "[" + std::to_string(t->count) + "](" + r + ")";
      }
      return type_name(t, at) + "(" + r + ")";
    }
    case Type::Kind::Struct: {
      std::string r = type_name(t, at) + "(";
      for (size_t i = 0; i < v.elements.size(); ++i)
        r += (i ? ", " : "") + literal(v.elements[i], t->decl->members[i].type, at);
      return r + ")";
    }
    default:
      if (v.scalars.empty()) {
        unsupported(at, "a constant of type " + t->wgsl() + " without a value");
        return "0";
      }
      return scalar_literal(v.scalars[0], sc(t));
  }
}

const Type* builtin_scalar(Type::Kind k) {
  static const Type types[] = {
      [] {
        Type t;
        t.kind = Type::Kind::I32;
        t.align = 4;
        t.size = 4;
        return t;
      }(),
      [] {
        Type t;
        t.kind = Type::Kind::U32;
        t.align = 4;
        t.size = 4;
        return t;
      }(),
      [] {
        Type t;
        t.kind = Type::Kind::F32;
        t.align = 4;
        t.size = 4;
        return t;
      }(),
      [] {
        Type t;
        t.kind = Type::Kind::Bool;
        return t;
      }(),
  };
  switch (k) {
    case Type::Kind::I32:
      return &types[0];
    case Type::Kind::U32:
      return &types[1];
    case Type::Kind::F32:
      return &types[2];
    default:
      return &types[3];
  }
}

// ---- Expressions ----------------------------------------------------------------------------

std::string Emitter::hoist(const std::string& type, const std::string& base,
                           const std::string& init, Span at, const std::string& what,
                           int calls_before) {
  // A hoisted evaluation runs before the whole statement: exact only if nothing with side
  // effects comes before it in WGSL's left-to-right order, and if it is not conditional.
  if (calls_before > 0)
    unsupported(at, what +
                        " after a call with side effects in the same statement (hoisting it "
                        "before the statement would reorder them)");
  if (fx_->short_circuit > 0)
    unsupported(at, what + " on the right of && or || (hoisted, it would run unconditionally)");
  std::string n = fresh_local(base);
  fx_->pre->push_back(type + " " + n + " = " + init + ";");
  return n;
}

const VarDecl* Emitter::resource_of(const Expr* e) {
  if (e->kind != ExprKind::Ident || !e->decl || e->decl->kind != DeclKind::Var) return nullptr;
  const auto* v = static_cast<const VarDecl*>(e->decl);
  if (!v->module_scope) return nullptr;
  return v;
}

Ex Emitter::expr(const Expr* e, const Type* want) {
  Ex r = expr_uncached(e, want);
  if (e->parenthesized && r.prec < 100 && r.prec > 0) r = {"(" + r.s + ")", 100};
  return r;
}

Ex Emitter::expr_uncached(const Expr* e, const Type* want) {
  if (!e->type && !e->names_type) {
    unsupported(e->span, "an expression without a type from sema");
    return {"0"};
  }
  // A const-expression: its exact value. Named constants keep their name where GLSL has them.
  if (e->value && e->kind != ExprKind::Ident) {
    const Type* t = value_type(e->type);
    // Integer arithmetic of constants reads as written: WGSL rejects any overflow or division by
    // zero in a const-expression, so GLSL's folding gives the same value. Not when an abstract
    // operand does not fit the concrete type (`vec2(4294967296) / 0x100000000` materialized as
    // vec2<u32>: the operands were evaluated in 64 bits).
    auto concrete = [&](const Expr* a) {
      if (!a || !a->type) return false;
      if (!is_abstract_type(value_type(a->type))) return true;
      if (!a->value || !a->value->elements.empty() || !t) return false;
      const Type* s = scalar_of(t);
      if (!s) return false;
      const bool u = s->kind == Type::Kind::U32;
      for (const Scalar& x : a->value->scalars) {
        if (const auto* i = std::get_if<int64_t>(&x.v)) {
          if (u ? (*i < 0 || *i > int64_t(UINT32_MAX)) : (*i < INT32_MIN || *i > INT32_MAX))
            return false;
        } else if (const auto* w = std::get_if<uint64_t>(&x.v)) {
          if (*w > (u ? uint64_t(UINT32_MAX) : uint64_t(INT32_MAX))) return false;
        } else {
          return false;
        }
      }
      return true;
    };
    bool keep = e->kind == ExprKind::Binary && t && !is_abstract_type(t) && is_int(t) &&
                e->args.size() == 2 && concrete(e->args[0]) && concrete(e->args[1]) &&
                (e->op == Op::Add || e->op == Op::Sub || e->op == Op::Mul || e->op == Op::And ||
                 e->op == Op::Or || e->op == Op::Xor ||
                 (!is_signed(t) && (e->op == Op::Div || e->op == Op::Mod)));
    if (!keep) {
      std::string s = literal(*e->value, want ? want : e->type, e->span);
      return {s, s[0] == '-' ? 14 : 100};
    }
  }
  switch (e->kind) {
    case ExprKind::BoolLit:
      return {e->bool_value ? "true" : "false"};
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
      unsupported(e->span, "a literal without a value from sema");
      return {"0"};
    case ExprKind::Ident:
      return ident(e, want);
    case ExprKind::Call:
      return call(e);
    case ExprKind::Index:
    case ExprKind::Member: {
      const Type* bt = e->args[0]->type;
      bool mem = bt && (bt->kind == Type::Kind::Reference || bt->kind == Type::Kind::Pointer);
      if (mem) return {load_value(e, lvalue(e))};
      std::string base = paren_if(expr(e->args[0]), 100);
      if (e->kind == ExprKind::Member) {
        if (!e->swizzle.empty()) return {base + "." + swizzle_text(e->swizzle)};
        return {base + "." + member_name(e->text)};
      }
      return {index_text(e->args[0], base, e->args[1])};
    }
    case ExprKind::Unary:
      return unary(e);
    case ExprKind::Binary:
      return binary(e);
  }
  return {"0"};
}

Ex Emitter::struct_resource_load(const VarDecl* v) {
  // A struct-typed resource is a block whose members are the struct's (the ABI check compares
  // them member by member), so a whole-value load is the struct built from the members.
  const Type* t = v->type;
  std::string inst = global_name(v);
  std::string s = type_name(t, v->span) + "(";
  bool first = true;
  for (const auto& mb : t->decl->members) {
    // Members whose GLSL layout is lowered convert (see "Buffer layouts").
    HostType h = host(mb.type, v->space == AddressSpace::Uniform);
    std::string m = inst + "." + member_name(mb.name);
    if (h.columns)
      m = columns_value(store_type(mb.type), inst + ".", member_name(mb.name));
    else if (h.lowered)
      m = h.load + "(" + m + ")";
    s += (first ? "" : ", ") + m;
    first = false;
  }
  return {s + ")"};
}

Ex Emitter::ident(const Expr* e, const Type* want) {
  if (e->names_type) return {type_name(e->names_type, e->span)};
  const Decl* d = e->decl;
  if (!d) {
    unsupported(e->span, "the name '" + e->text + "' (unresolved)");
    return {"0"};
  }
  if (d->kind == DeclKind::Const || d->kind == DeclKind::Override) {
    const auto* v = static_cast<const VarDecl*>(d);
    if (v->module_scope && v->type && !is_abstract_type(v->type) && v->value) {
      used_globals_.insert(d);
      return {global_name(d)};
    }
    if (!v->module_scope && fx_->names.count(d)) return {fx_->names[d]};
    const ConstValue* cv = e->value ? &*e->value : v->value ? &*v->value : nullptr;
    if (!cv) {
      unsupported(e->span, "the constant '" + d->name + "' has no value");
      return {"0"};
    }
    std::string s = literal(*cv, want ? want : e->type, e->span);
    return {s, s[0] == '-' ? 14 : 100};
  }
  if (d->kind == DeclKind::Var || d->kind == DeclKind::Let || d->kind == DeclKind::Param) {
    const auto* v = static_cast<const VarDecl*>(d);
    if (auto a = fx_->aliases.find(d); a != fx_->aliases.end()) return {a->second.text()};
    if (v->module_scope) {
      used_globals_.insert(d);
      const Type* t = value_type(e->type);
      // A load of the whole struct-typed resource (members and indices go through lvalue()).
      if (t && t->kind == Type::Kind::Struct && e->type && e->type->kind == Type::Kind::Reference &&
          (v->space == AddressSpace::Storage || v->space == AddressSpace::Uniform))
        return struct_resource_load(v);
      if (e->type && e->type->kind == Type::Kind::Reference) return {load_value(e, lvalue(e))};
      return {global_name(d)};
    }
    auto it = fx_->names.find(d);
    if (it != fx_->names.end()) return {it->second};
    unsupported(e->span, "the name '" + d->name + "' (not declared in this function)");
    return {"0"};
  }
  unsupported(e->span, "the name '" + d->name + "' as a value");
  return {"0"};
}

// The memory a reference or pointer expression designates, as a GLSL lvalue.
std::string Emitter::lvalue(const Expr* e) {
  switch (e->kind) {
    case ExprKind::Ident: {
      const Decl* d = e->decl;
      if (d && fx_->aliases.count(d)) return fx_->aliases[d].text();
      if (d && d->kind == DeclKind::Var && static_cast<const VarDecl*>(d)->module_scope) {
        used_globals_.insert(d);
        const auto* v = static_cast<const VarDecl*>(d);
        // A uniform matrix held as its columns (std140 would pad them) is read as a value.
        if (v->space == AddressSpace::Uniform && v->type && v->type->kind == Type::Kind::Matrix &&
            host(v->type, true).columns)
          return columns_value(v->type, "", global_name(d));
        return global_name(d);
      }
      if (d && fx_->names.count(d)) return fx_->names[d];
      unsupported(e->span, "a reference to '" + e->text + "'");
      return "x";
    }
    case ExprKind::Unary:
      if (e->op == Op::Deref || e->op == Op::AddrOf) return lvalue(e->args[0]);
      break;
    case ExprKind::Index: {
      std::string base = lvalue(e->args[0]);
      std::string text = index_text(e->args[0], base, e->args[1]);
      // An element of a uniform array of matrices held as columns: the matrix value.
      const Type* bt = store_type(e->args[0]->type);
      if (rule_of(e->args[0]) == 140 && bt && bt->kind == Type::Kind::Array && bt->elem &&
          bt->elem->kind == Type::Kind::Matrix && host(bt->elem, true).columns) {
        std::string load;
        matrix_wrapper(bt->elem, load);
        return load + "(" + text + ")";
      }
      return text;
    }
    case ExprKind::Member: {
      const Type* mt = store_type(e->type);
      if (e->swizzle.empty() && rule_of(e->args[0]) == 140 && mt &&
          mt->kind == Type::Kind::Matrix && host(mt, true).columns) {
        // A uniform struct's matrix held as its columns: read as a value, its path written once
        // per column (so a path with a call is refused).
        if (has_call(e->args[0]))
          unsupported(e->span,
                      "a uniform matrix member held as columns, reached through a call's result");
        return columns_value(mt, lvalue(e->args[0]) + ".", member_name(e->text));
      }
      std::string base = lvalue(e->args[0]);
      if (!e->swizzle.empty()) return base + "." + swizzle_text(e->swizzle);
      return base + "." + member_name(e->text);
    }
    default:
      break;
  }
  // Not a memory view: a value (e.g. a call's result indexed); GLSL indexes values alike.
  return paren_if(expr(e), 100);
}

// base[idx] with WGSL's robustness (Tint's policy): a dynamic index into a fixed-size array,
// vector or matrix is clamped to count - 1, into a runtime-sized array to arrayLength - 1; a
// constant index is in range already (WGSL rejects one that is not), except into a runtime-sized
// array, where it is clamped too.
std::string Emitter::index_text(const Expr* base_expr, const std::string& base, const Expr* idx) {
  const Type* ct = store_type(base_expr->type);
  std::string i;
  bool is_const = idx->value.has_value();
  bool idx_signed = is_signed(idx->type);
  if (is_const) {
    // As u32 where it will be clamped (a constant index is never negative: WGSL rejects that).
    i = idx->value->scalars.empty()
            ? literal(*idx->value, idx->type, idx->span)
            : scalar_literal(idx->value->scalars[0], builtin_scalar(Type::Kind::U32));
    idx_signed = false;
  } else {
    i = value(idx);
  }
  if (!opt_.robust_access || !ct) return base + "[" + i + "]";
  uint64_t count = 0;
  bool runtime = false;
  switch (ct->kind) {
    case Type::Kind::Array:
      count = ct->count;
      runtime = count == 0;
      break;
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
      count = ct->n;
      break;
    default:
      return base + "[" + i + "]";
  }
  if (is_const && !runtime) return base + "[" + literal(*idx->value, idx->type, idx->span) + "]";
  std::string ui = idx_signed ? "uint(" + i + ")" : i;
  if (runtime) return base + "[min(" + ui + ", uint(" + base + ".length()) - 1u)]";
  return base + "[min(" + ui + ", " + std::to_string(count - 1) + "u)]";
}

Ex Emitter::unary(const Expr* e) {
  const Expr* a = e->args[0];
  switch (e->op) {
    case Op::Neg:
      return {"-" + paren_if(expr(a, e->type), 14), 14};
    case Op::Not:
      if (is_vector(e->type)) return {"not(" + value(a) + ")"};
      return {"!" + paren_if(expr(a), 14), 14};
    case Op::BitNot:
      return {"~" + paren_if(expr(a, e->type), 14), 14};
    case Op::Deref: {
      // *p as a value: the memory p designates (a struct-typed resource is built member-wise).
      if (a->kind == ExprKind::Unary && a->op == Op::AddrOf) return expr(a->args[0]);
      std::string lv = lvalue(a);
      if (auto r = struct_resources_.find(lv); r != struct_resources_.end())
        return struct_resource_load(r->second);
      return {load_value(e, lv)};
    }
    case Op::AddrOf:
      return {lvalue(a)};
    default:
      break;
  }
  unsupported(e->span, "this unary operator");
  return {"0"};
}

Ex Emitter::binary(const Expr* e) {
  const Expr* a = e->args[0];
  const Expr* b = e->args[1];
  const Type* ta = value_type(a->type);
  const Type* tb = value_type(b->type);
  // Abstract operands take the other side's concrete type.
  const Type* wa = is_abstract_type(ta) && !is_abstract_type(tb) ? scalar_of(tb) : nullptr;
  const Type* wb = is_abstract_type(tb) && !is_abstract_type(ta) ? scalar_of(ta) : nullptr;
  if (e->op == Op::Shl || e->op == Op::Shr) wb = nullptr;
  Ex x = expr(a, wa);
  bool sc = e->op == Op::LogAnd || e->op == Op::LogOr;
  fx_->short_circuit += sc;
  Ex y = expr(b, wb);
  fx_->short_circuit -= sc;
  if (e->op == Op::Shl || e->op == Op::Shr) {
    // WGSL masks a shift amount to the bit width; GLSL leaves amounts >= 32 undefined. A
    // constant amount is < 32 already (WGSL rejects one that is not).
    if (b->value) {
      std::string ys = literal(*b->value, nullptr, b->span);
      if (ys.back() != 'u' && ys.find('(') == std::string::npos) ys += "u";
      return {bin(x, op_text(e->op), {ys, 100}, 11), 11};
    }
    std::string mask = is_vector(tb) ? type_name(tb, e->span) + "(31u)" : "31u";
    return {paren_if(x, 11) + " " + op_text(e->op) + " (" + paren_if(y, 8) + " & " + mask + ")",
            11};
  }
  const Type* rt = value_type(e->type);
  bool vec_operands = is_vector(ta) || is_vector(tb);
  switch (e->op) {
    case Op::Div:
    case Op::Mod: {
      if (is_float(rt)) {
        if (e->op == Op::Div) return {bin(x, "/", y, 13), 13};
        // WGSL's float % truncates (x - y * trunc(x / y)); GLSL's mod() floors.
        std::string h = helpers_.float_mod(rt);
        std::string xs = x.s, ys = y.s;  // a scalar operand of a vector % is splatted
        if (is_vector(rt) && !is_vector(ta)) xs = type_name(rt, e->span) + "(" + xs + ")";
        if (is_vector(rt) && !is_vector(tb)) ys = type_name(rt, e->span) + "(" + ys + ")";
        return {h + "(" + xs + ", " + ys + ")"};
      }
      // Integer: WGSL defines x / 0 = x, x % 0 = 0 and INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0
      // (GLSL leaves them undefined). A constant divisor that is none of these needs no helper,
      // except signed % (GLSL's % is undefined for negative operands).
      bool safe = false;
      if (b->value) {
        safe = true;
        for (const auto& s : b->value->scalars) {
          int64_t v = 0;
          std::visit([&](auto q) { v = int64_t(q); }, s.v);
          if (v == 0 || (is_signed(rt) && v == -1)) safe = false;
        }
        if (b->value->scalars.empty()) safe = false;
        if (is_signed(rt) && e->op == Op::Mod) safe = false;
      }
      if (safe) return {bin(x, op_text(e->op), y, 13), 13};
      std::string h = e->op == Op::Div ? helpers_.int_div(rt) : helpers_.int_mod(rt);
      std::string xs = x.s, ys = y.s;
      if (is_vector(rt) && !is_vector(ta)) xs = type_name(rt, e->span) + "(" + xs + ")";
      if (is_vector(rt) && !is_vector(tb)) ys = type_name(rt, e->span) + "(" + ys + ")";
      return {h + "(" + xs + ", " + ys + ")"};
    }
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      if (vec_operands) {
        const char* f = e->op == Op::Lt   ? "lessThan"
                        : e->op == Op::Le ? "lessThanEqual"
                        : e->op == Op::Gt ? "greaterThan"
                        : e->op == Op::Ge ? "greaterThanEqual"
                        : e->op == Op::Eq ? "equal"
                                          : "notEqual";
        return {std::string(f) + "(" + x.s + ", " + y.s + ")"};
      }
      return {bin(x, op_text(e->op), y, binary_prec(e->op)), binary_prec(e->op)};
    case Op::And:
    case Op::Or:
      if (is_bool(rt)) {
        // WGSL's & and | on bool evaluate both sides; GLSL has them only as && and ||.
        std::string u = is_vector(rt) ? "uvec" + std::to_string(rt->n) : "uint";
        std::string bt = is_vector(rt) ? "bvec" + std::to_string(rt->n) : "bool";
        return {bt + "(" + u + "(" + x.s + ") " + op_text(e->op) + " " + u + "(" + y.s + "))"};
      }
      break;
    default:
      break;
  }
  int p = binary_prec(e->op);
  return {bin(x, op_text(e->op), y, p), p};
}

// ---- Calls ----------------------------------------------------------------------------------

// The concrete type an abstract argument of a builtin call takes.
const Type* Emitter::arg_want(const Expr* c, size_t i, const std::string& name) {
  const Expr* a = c->args[i];
  if (!is_abstract_type(a->type)) return nullptr;
  if ((name == "ldexp" && i == 1)) return builtin_scalar(Type::Kind::I32);
  if ((name == "extractBits" && i >= 1) || (name == "insertBits" && i >= 2) ||
      ((name == "subgroupBroadcast" || name == "subgroupShuffle" || name == "subgroupShuffleXor" ||
        name == "subgroupShuffleUp" || name == "subgroupShuffleDown" || name == "quadBroadcast") &&
       i == 1))
    return builtin_scalar(Type::Kind::U32);
  if (name == "select" && i == 2) return nullptr;
  if (name.rfind("atomic", 0) == 0) return scalar_of(store_type(c->args[0]->type));
  for (size_t k = 0; k < c->args.size(); ++k) {
    if (name == "select" && k == 2) continue;
    if (!is_abstract_type(c->args[k]->type) && scalar_of(c->args[k]->type) &&
        !is_bool(c->args[k]->type))
      return scalar_of(c->args[k]->type);
  }
  const Type* r = scalar_of(c->type);
  return r && !is_bool(r) ? r : nullptr;
}

Ex Emitter::call(const Expr* e) {
  switch (e->target) {
    case CallTarget::Constructor:
      return construct(e);
    case CallTarget::Function:
      return user_call(e);
    case CallTarget::Builtin:
      return builtin(e);
    default:
      break;
  }
  unsupported(e->span, "a call sema did not resolve");
  return {"0"};
}

Ex Emitter::construct(const Expr* e) {
  const Type* t = value_type(e->type);
  if (e->args.empty()) return {zero_value(t, e->span)};
  std::string tn = type_name(t, e->span);
  auto elem_want = [&](size_t i) -> const Type* {
    switch (t->kind) {
      case Type::Kind::Vector:
      case Type::Kind::Matrix:
        return t->elem;
      case Type::Kind::Array:
        return t->elem;
      case Type::Kind::Struct:
        return i < t->decl->members.size() ? t->decl->members[i].type : nullptr;
      default:
        return t;
    }
  };
  // A conversion of one value: float -> integer saturates in WGSL (GLSL: undefined out of
  // range); everything else is GLSL's conversion constructor.
  if (e->args.size() == 1 && (t->is_scalar() || t->kind == Type::Kind::Vector)) {
    const Expr* a = e->args[0];
    const Type* at = value_type(a->type);
    bool same_shape =
        at && (t->is_scalar() ? at->is_scalar() : at->kind == Type::Kind::Vector && at->n == t->n);
    if (same_shape && !is_abstract_type(at)) {
      if (glsl_type_of(at) == tn) return expr(a);
      if (is_float(at) && is_int(t)) return {helpers_.float_to_int(at, t) + "(" + value(a) + ")"};
      return {tn + "(" + value(a) + ")"};
    }
  }
  std::string s = tn + "(";
  for (size_t i = 0; i < e->args.size(); ++i)
    s += (i ? ", " : "") + value(e->args[i], elem_want(i));
  return {s + ")"};
}

void Emitter::collect_path(const Expr* e, PtrArg& p) {
  if ((e->kind == ExprKind::Index || e->kind == ExprKind::Member) && rule_of(e) == 140) {
    const Type* t = store_type(e->type);
    if (t && t->kind == Type::Kind::Matrix && host(t, true).columns) {
      unsupported(e->span, "a pointer to a uniform " + t->wgsl() +
                               " held as its columns (std140 would pad them)");
      return;
    }
  }
  switch (e->kind) {
    case ExprKind::Unary:
      if (e->op == Op::AddrOf || e->op == Op::Deref) return collect_path(e->args[0], p);
      break;
    case ExprKind::Ident: {
      const Decl* d = e->decl;
      if (d && fx_->aliases.count(d)) {
        // Already a pointer: its path and index values (locals or parameters here).
        p = fx_->aliases[d];
        return;
      }
      p.path = lvalue(e);
      return;
    }
    case ExprKind::Index: {
      collect_path(e->args[0], p);
      std::string base_now = p.text();
      std::string full = index_text(e->args[0], base_now, e->args[1]);
      std::string idx = full.substr(base_now.size() + 1, full.size() - base_now.size() - 2);
      if (e->args[1]->value && idx.find("length()") == std::string::npos) {
        p.path += "[" + idx + "]";
      } else {
        p.path += "[$" + std::to_string(p.values.size()) + "$]";
        p.values.push_back(idx);
        p.types.push_back(opt_.robust_access || !is_signed(e->args[1]->type) ? "uint" : "int");
      }
      return;
    }
    case ExprKind::Member:
      collect_path(e->args[0], p);
      p.path += "." + (e->swizzle.empty() ? member_name(e->text) : swizzle_text(e->swizzle));
      return;
    default:
      break;
  }
  unsupported(e->span, "this pointer expression");
}

PtrArg Emitter::pointer_path(const Expr* e) {
  PtrArg p;
  collect_path(e, p);
  return p;
}

Ex Emitter::user_call(const Expr* e) {
  const FnDecl* f = e->fn;
  if (!f) {
    unsupported(e->span, "a call without its function");
    return {"0"};
  }
  std::vector<PtrArg> ptrs(f->params.size());
  std::vector<const PtrArg*> spec(f->params.size(), nullptr);
  std::string key = global_name(f) + "(";
  std::vector<std::string> args, extra;
  for (size_t i = 0; i < f->params.size() && i < e->args.size(); ++i) {
    const VarDecl* prm = f->params[i];
    const Type* pt = prm->type;
    if (pt && pt->kind == Type::Kind::Pointer &&
        (pt->space == AddressSpace::Function || pt->space == AddressSpace::Private)) {
      // ptr<function|private>: an inout parameter (see function()).
      args.push_back(lvalue(e->args[i]));
      key += "inout,";
    } else if (pt && pt->kind == Type::Kind::Pointer) {
      // ptr<storage|uniform|workgroup>: the function is specialized for the root variable; the
      // path's dynamic indices become parameters.
      ptrs[i] = pointer_path(e->args[i]);
      // The values are the caller's; the callee sees parameters in their place.
      key += ptrs[i].path + "/" + std::to_string(ptrs[i].values.size()) + ",";
      for (size_t k = 0; k < ptrs[i].values.size(); ++k) extra.push_back(ptrs[i].values[k]);
      spec[i] = &ptrs[i];
    } else {
      args.push_back(value(e->args[i], pt));
      key += ",";
    }
  }
  key += ")";
  std::string name;
  if (auto it = specializations_.find(key); it != specializations_.end()) {
    name = it->second;
  } else {
    name = function(f, spec, key);
  }
  for (auto& x : extra) args.push_back(x);
  ++fx_->calls;
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return {s + ")"};
}

Ex Emitter::builtin(const Expr* e) {
  const std::string name = e->callee ? e->callee->text : "";
  const auto& A = e->args;
  const Type* rt = value_type(e->type);
  auto a = [&](size_t i) { return value(A[i], arg_want(e, i, name)); };
  auto args = [&]() {
    std::string s;
    for (size_t i = 0; i < A.size(); ++i) s += (i ? ", " : "") + a(i);
    return s;
  };
  auto fn = [&](const std::string& g) { return Ex{g + "(" + args() + ")"}; };
  auto at = [&](size_t i) { return value_type(A[i]->type); };

  static const std::set<std::string> same = {
      "abs",  "acos",      "acosh",     "asin",       "asinh",   "atan",        "atanh",
      "ceil", "cos",       "cosh",      "cross",      "degrees", "determinant", "distance",
      "exp",  "exp2",      "floor",     "fma",        "fract",   "length",      "log",
      "log2", "mix",       "normalize", "pow",        "radians", "reflect",     "refract",
      "sign", "sin",       "sinh",      "smoothstep", "sqrt",    "step",        "tan",
      "tanh", "transpose", "trunc",     "min",        "max",     "ldexp"};
  static const std::map<std::string, std::string> renamed = {
      {"atan2", "atan"},
      {"inverseSqrt", "inversesqrt"},
      {"round", "roundEven"},  // WGSL rounds halfway cases to even
      {"faceForward", "faceforward"},
      {"reverseBits", "bitfieldReverse"},
      {"pack2x16float", "packHalf2x16"},
      {"unpack4x8snorm", "unpackSnorm4x8"},
      {"unpack4x8unorm", "unpackUnorm4x8"},
      {"unpack2x16snorm", "unpackSnorm2x16"},
      {"unpack2x16unorm", "unpackUnorm2x16"},
      {"unpack2x16float", "unpackHalf2x16"},
  };
  static const std::map<std::string, std::string> subgroup = {
      {"subgroupAdd", "arithmetic"},
      {"subgroupMul", "arithmetic"},
      {"subgroupMin", "arithmetic"},
      {"subgroupMax", "arithmetic"},
      {"subgroupAnd", "arithmetic"},
      {"subgroupOr", "arithmetic"},
      {"subgroupXor", "arithmetic"},
      {"subgroupExclusiveAdd", "arithmetic"},
      {"subgroupExclusiveMul", "arithmetic"},
      {"subgroupInclusiveAdd", "arithmetic"},
      {"subgroupInclusiveMul", "arithmetic"},
      {"subgroupAll", "vote"},
      {"subgroupAny", "vote"},
      {"subgroupBallot", "ballot"},
      {"subgroupBroadcast", "ballot"},
      {"subgroupBroadcastFirst", "ballot"},
      {"subgroupElect", "basic"},
      {"subgroupShuffle", "shuffle"},
      {"subgroupShuffleXor", "shuffle"},
      {"subgroupShuffleUp", "shuffle_relative"},
      {"subgroupShuffleDown", "shuffle_relative"},
      {"quadBroadcast", "quad"},
      {"quadSwapX", "quad"},
      {"quadSwapY", "quad"},
      {"quadSwapDiagonal", "quad"},
  };
  // WGSL's abs of an unsigned integer is the value (GLSL has no unsigned abs).
  if (name == "abs" && scalar_of(rt) && scalar_of(rt)->kind == Type::Kind::U32) return expr(A[0]);
  if (same.count(name)) return fn(name);
  if (auto r = renamed.find(name); r != renamed.end()) return fn(r->second);
  if (auto s = subgroup.find(name); s != subgroup.end()) {
    uses_subgroups_ = true;
    subgroup_exts_.insert("basic");
    subgroup_exts_.insert(s->second);
    std::string g = name;
    if (name == "quadBroadcast") g = "subgroupQuadBroadcast";
    if (name == "quadSwapX") g = "subgroupQuadSwapHorizontal";
    if (name == "quadSwapY") g = "subgroupQuadSwapVertical";
    if (name == "quadSwapDiagonal") g = "subgroupQuadSwapDiagonal";
    return fn(g);
  }
  if (name == "clamp") {
    if (is_float(rt)) return fn("clamp");
    // WGSL's integer clamp is min(max(e, low), high), defined even when low > high.
    return {"min(max(" + a(0) + ", " + a(1) + "), " + a(2) + ")"};
  }
  if (name == "saturate") {
    std::string z = scalar_of(rt)->kind == Type::Kind::F16 ? "float16_t(0.0)" : "0.0";
    std::string o = scalar_of(rt)->kind == Type::Kind::F16 ? "float16_t(1.0)" : "1.0";
    return {"clamp(" + a(0) + ", " + z + ", " + o + ")"};
  }
  if (name == "all" || name == "any") {
    if (!is_vector(at(0))) return expr(A[0]);  // all(b) == any(b) == b for a bool
    return fn(name);
  }
  if (name == "select") {
    // select(f, t, cond): a scalar condition picks a whole value; a vector one per component.
    if (is_vector(at(2))) return {"mix(" + a(0) + ", " + a(1) + ", " + a(2) + ")"};
    return {paren_if(expr(A[2]), 3) + " ? " + paren_if(expr(A[1], arg_want(e, 1, name)), 3) +
                " : " + paren_if(expr(A[0], arg_want(e, 0, name)), 2),
            2};
  }
  if (name == "dot") {
    if (is_float(at(0))) return fn("dot");
    return {helpers_.int_dot(at(0)) + "(" + args() + ")"};
  }
  if (name == "countOneBits") return {glsl_type_of(rt) + "(bitCount(" + a(0) + "))"};
  if (name == "countLeadingZeros") return {helpers_.count_leading_zeros(rt) + "(" + a(0) + ")"};
  if (name == "countTrailingZeros") return {helpers_.count_trailing_zeros(rt) + "(" + a(0) + ")"};
  if (name == "firstLeadingBit") {
    // findMSB gives -1 (all ones as u32) for 0 and, for i32, the highest bit that differs from
    // the sign: WGSL's firstLeadingBit exactly.
    if (is_signed(rt)) return fn("findMSB");
    return {glsl_type_of(rt) + "(findMSB(" + a(0) + "))"};
  }
  if (name == "firstTrailingBit") {
    if (is_signed(rt)) return fn("findLSB");
    return {glsl_type_of(rt) + "(findLSB(" + a(0) + "))"};
  }
  if (name == "extractBits") return {helpers_.extract_bits(rt) + "(" + args() + ")"};
  if (name == "insertBits") return {helpers_.insert_bits(rt) + "(" + args() + ")"};
  if (name == "dot4I8Packed") return {helpers_.dot4_packed(true) + "(" + args() + ")"};
  if (name == "dot4U8Packed") return {helpers_.dot4_packed(false) + "(" + args() + ")"};
  if (name == "quantizeToF16") return {helpers_.quantize_f16(rt) + "(" + a(0) + ")"};
  if (name == "pack4x8snorm" || name == "pack4x8unorm" || name == "pack2x16snorm" ||
      name == "pack2x16unorm" || name == "pack4xI8" || name == "pack4xU8" ||
      name == "pack4xI8Clamp" || name == "pack4xU8Clamp")
    return {helpers_.pack(name) + "(" + a(0) + ")"};
  if (name == "unpack4xI8" || name == "unpack4xU8")
    return {helpers_.unpack(name) + "(" + a(0) + ")"};
  if (name == "frexp" || name == "modf") {
    if (!rt || rt->kind != Type::Kind::Struct || !rt->decl) {
      unsupported(e->span, name + " without its result structure from sema");
      return {"0"};
    }
    std::string sn = type_name(rt, e->span);
    const Type* xt = at(0);
    if (is_abstract_type(xt)) {
      unsupported(e->span, name + " of an abstract value that is not a const-expression");
      return {"0"};
    }
    return {(name == "frexp" ? helpers_.frexp(xt, sn) : helpers_.modf(xt, sn)) + "(" + a(0) + ")"};
  }
  if (name == "bitcast") {
    const Type* from = at(0);
    if (is_abstract_type(from)) return {glsl_type_of(rt) + "(" + a(0) + ")"};
    std::string F = glsl_type_of(from), T = glsl_type_of(rt);
    if (F == T) return expr(A[0]);
    bool f16 = scalar_of(from)->kind == Type::Kind::F16 || scalar_of(rt)->kind == Type::Kind::F16;
    if (f16) return {helpers_.bitcast(from, rt) + "(" + a(0) + ")"};
    if (is_float(from))
      return {std::string(is_signed(rt) ? "floatBitsToInt" : "floatBitsToUint") + "(" + a(0) + ")"};
    if (is_float(rt))
      return {std::string(is_signed(from) ? "intBitsToFloat" : "uintBitsToFloat") + "(" + a(0) +
              ")"};
    return {T + "(" + a(0) + ")"};
  }
  if (name == "arrayLength") {
    // The runtime-sized array's element count in the bound range (GLSL's .length() is that).
    return {"uint(" + lvalue(A[0]) + ".length())"};
  }
  const int calls_before = fx_->calls;
  if (name.rfind("atomic", 0) == 0) {
    const Type* et = scalar_of(store_type(A[0]->type));
    struct Count {
      int& n;
      ~Count() { ++n; }
    } count{fx_->calls};
    std::string lv = lvalue(A[0]);
    std::string zero = et && et->kind == Type::Kind::U32 ? "0u" : "0";
    if (name == "atomicLoad") return {"atomicOr(" + lv + ", " + zero + ")"};
    if (name == "atomicStore") return {"atomicExchange(" + lv + ", " + a(1) + ")"};
    if (name == "atomicSub") {
      if (et && et->kind == Type::Kind::U32)
        return {"atomicAdd(" + lv + ", 0u - " + paren_if(expr(A[1], et), 12) + ")"};
      return {"atomicAdd(" + lv + ", -" + paren_if(expr(A[1], et), 14) + ")"};
    }
    if (name == "atomicAdd" || name == "atomicMax" || name == "atomicMin" || name == "atomicAnd" ||
        name == "atomicOr" || name == "atomicXor" || name == "atomicExchange")
      return {name + "(" + lv + ", " + a(1) + ")"};
    if (name == "atomicCompareExchangeWeak") {
      // WGSL returns {old_value, exchanged}; GLSL's atomicCompSwap the old value only (it is
      // strong: it fails only when the value differs, which WGSL's weak form allows too).
      std::string sn = type_name(rt, e->span);
      std::string T = scalar_name(et);
      const char* what = "atomicCompareExchangeWeak";
      std::string cmp = hoist(T, "cmp", a(1), e->span, what, calls_before);
      std::string old = hoist(T, "old", "atomicCompSwap(" + lv + ", " + cmp + ", " + a(2) + ")",
                              e->span, what, calls_before);
      return {sn + "(" + old + ", " + old + " == " + cmp + ")"};
    }
  }
  if (name == "workgroupBarrier") return {"barrier()"};
  if (name == "storageBarrier") {
    need_memory_scope_ = true;
    return {
        "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, "
        "gl_SemanticsAcquireRelease)"};
  }
  if (name == "workgroupUniformLoad") {
    // A barrier, the load, a barrier: Tint's translation.
    const Type* t = store_type(A[0]->type);
    std::string lv = lvalue(A[0]);
    std::string tn = type_name(t, e->span);
    const char* what = "workgroupUniformLoad";
    fx_->pre->push_back("barrier();  // workgroupUniformLoad");
    std::string tmp = hoist(tn, "uniform_load", lv, e->span, what, calls_before);
    fx_->pre->push_back("barrier();");
    return {tmp};
  }
  unsupported(e->span, "the builtin function '" + name + "'");
  return {"0"};
}

// ---- Statements -----------------------------------------------------------------------------

void Emitter::line(const std::string& s) {
  fx_->out += std::string(size_t(fx_->indent) * 4, ' ') + s + "\n";
}

// Writes what `make` returns as one line, after the lines its expressions hoisted.
void Emitter::emit_with_pre(const std::function<std::string()>& make) {
  std::vector<std::string> pre;
  auto* saved = fx_->pre;
  fx_->pre = &pre;
  fx_->calls = 0;
  std::string text = make();
  fx_->pre = saved;
  for (const auto& p : pre) line(p);
  if (!text.empty()) line(text);
}

void Emitter::stmts_in_scope(const std::vector<Stmt*>& body) {
  fx_->scopes.emplace_back();
  for (const Stmt* s : body) stmt(s);
  fx_->scopes.pop_back();
}

// The statements of a Block, one indent deeper, in a new scope (the caller writes the braces).
void Emitter::block_body(const Stmt* s) {
  ++fx_->indent;
  if (s)
    stmts_in_scope(s->kind == StmtKind::Block ? s->body : std::vector<Stmt*>{const_cast<Stmt*>(s)});
  --fx_->indent;
}

void Emitter::zero_fill(const std::string& lv, const Type* t, Span at) {
  t = value_type(t);
  if (leaf_count(t) <= 64 && !glslang_misfolds(t)) {
    line(lv + " = " + zero_value(t, at) + ";");
    return;
  }
  if (t->kind == Type::Kind::Array && t->count == 1) {
    zero_fill(lv + "[0]", t->elem, at);
    return;
  }
  if (t->kind == Type::Kind::Array) {
    std::string i = fresh_local("i");
    line("for (uint " + i + " = 0u; " + i + " < " + std::to_string(t->count) + "u; ++" + i + ") {");
    ++fx_->indent;
    fx_->scopes.emplace_back();
    zero_fill(lv + "[" + i + "]", t->elem, at);
    fx_->scopes.pop_back();
    --fx_->indent;
    line("}");
    return;
  }
  if (t->kind == Type::Kind::Struct) {
    for (const auto& mb : t->decl->members) zero_fill(lv + "." + member_name(mb.name), mb.type, at);
    return;
  }
  line(lv + " = " + zero_value(t, at) + ";");
}

void Emitter::var_decl(const VarDecl* v, Span at) {
  const Type* t = v->type;
  if (v->kind == DeclKind::Const) {
    // Used by value where it is abstract; a concrete one reads as a GLSL const.
    if (t && !is_abstract_type(t) && v->value) {
      std::string lit = literal(*v->value, t, at);
      std::string n = declare_local(v);
      line("const " + decl_text(t, n, at) + " = " + lit + ";");
    }
    return;
  }
  if (t && t->kind == Type::Kind::Pointer) {
    if (v->kind != DeclKind::Let || !v->initializer) {
      unsupported(at, "a pointer variable");
      return;
    }
    // let p = &a[i]: an alias of that memory; its dynamic indices are evaluated here, once.
    emit_with_pre([&] {
      PtrArg p = pointer_path(v->initializer);
      for (size_t k = 0; k < p.values.size(); ++k)
        p.values[k] = hoist(p.types[k], v->name + "_index", p.values[k]);
      fx_->aliases[v] = p;
      return std::string();
    });
    return;
  }
  emit_with_pre([&] {
    std::string init;
    bool big_zero = false;
    if (v->initializer) {
      init = value(v->initializer, t);
    } else if (leaf_count(t) > 64 || glslang_misfolds(t)) {
      big_zero = true;
    } else {
      init = zero_value(t, at);  // WGSL zero-initialises function variables
    }
    std::string n = declare_local(v);
    if (big_zero) {
      line(decl_text(t, n, at) + ";  // zero-initialised below (WGSL)");
      zero_fill(n, t, at);
      return std::string();
    }
    return decl_text(t, n, at) + " = " + init + ";";
  });
}

// An assignment as GLSL text without the ';' (also a for-loop update).
std::string Emitter::simple_stmt_text(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::Increment:
      return lvalue(s->lhs) + "++";
    case StmtKind::Decrement:
      return lvalue(s->lhs) + "--";
    case StmtKind::Call:
      return value(s->expr);
    case StmtKind::Assign: {
      if (!s->lhs) {
        // `_ = e`: evaluated for its effects and its static use (a use of a resource counts in
        // WebGPU's layout "auto"), into a throwaway local.
        const Type* t = value_type(s->expr->type);
        if (s->expr->value) return "";
        if (t && t->kind == Type::Kind::Pointer) {
          const Type* st = store_type(t);
          std::string lv = lvalue(s->expr);
          // A buffer holding a runtime-sized array (itself, or a struct ending in one) cannot be
          // copied in GLSL: its length is the use (the buffer stays statically used, and the
          // access path's indices are still evaluated by lvalue()).
          while (st && st->kind == Type::Kind::Struct && st->decl && !st->decl->members.empty() &&
                 st->decl->members.back().type &&
                 st->decl->members.back().type->kind == Type::Kind::Array &&
                 st->decl->members.back().type->count == 0) {
            lv += "." + member_name(st->decl->members.back().name);
            st = st->decl->members.back().type;
          }
          if (st && st->kind == Type::Kind::Array && st->count == 0)
            return "uint " + fresh_local("phony") + " = uint(" + lv + ".length())";
          // A whole struct-typed resource is a block: its value is built from the members.
          const Expr* root = s->expr;
          while (root->kind == ExprKind::Unary && root->op == Op::AddrOf) root = root->args[0];
          if (const VarDecl* r = resource_of(root);
              r && r->type && r->type->kind == Type::Kind::Struct && r->type->decl)
            lv = struct_resource_load(r).s;
          else
            lv = load_value(s->expr, lv);
          return decl_text(st, fresh_local("phony"), s->span) + " = " + lv;
        }
        std::string v = value(s->expr);
        return decl_text(t, fresh_local("phony"), s->span) + " = " + v;
      }
      const Type* lt = store_type(s->lhs->type);
      const VarDecl* r = resource_of(s->lhs);
      // `*p = v` where p designates the whole struct-typed buffer (a pointer parameter or let).
      if (!r && lt && lt->kind == Type::Kind::Struct && s->lhs->kind == ExprKind::Unary &&
          s->lhs->op == Op::Deref && s->lhs->args[0]->kind == ExprKind::Ident)
        if (auto it = struct_resources_.find(lvalue(s->lhs)); it != struct_resources_.end())
          r = it->second;
      if (r && lt && lt->kind == Type::Kind::Struct && r->space == AddressSpace::Storage &&
          lt->decl) {
        // The block's members are the struct's (as for a whole-value load), so the value is
        // evaluated once into a local and stored member by member.
        std::string lv = lvalue(s->lhs);
        std::string v = value(s->expr, lt);
        std::string tmp = hoist(type_name(lt, s->span), "value", v, s->span,
                                "assigning a whole struct-typed storage buffer", 0);
        std::vector<std::string> parts;
        for (const auto& mb : lt->decl->members)
          store_parts(lv + "." + member_name(mb.name), tmp + "." + member_name(mb.name), mb.type,
                      parts, s->span);
        std::string out;
        for (const auto& x : parts) out += (out.empty() ? "" : ", ") + x;
        return out;
      }
      if (rule_of(s->lhs) == 430 && lt && host(lt, false).lowered) {
        // A value whose buffer layout has padding (or holds such a value): evaluated once into a
        // local, then stored member by member, so no padding byte is written.
        if (has_call(s->lhs))
          unsupported(s->span, "storing a " + lt->wgsl() +
                                   " member by member through a path with a call (written "
                                   "once per member)");
        std::string lv = lvalue(s->lhs);
        std::string v = value(s->expr, lt);
        std::string tmp = hoist(type_name(lt, s->span), "value", v, s->span,
                                "storing a value whose buffer layout has padding", 0);
        std::vector<std::string> parts;
        store_parts(lv, tmp, lt, parts, s->span);
        std::string out;
        for (const auto& x : parts) out += (out.empty() ? "" : ", ") + x;
        return out;
      }
      if (s->op == Op::None && rule_of(s->lhs) == 430 && is_f16x3(lt) && !has_call(s->lhs) &&
          !has_effects(s->expr) && !in_for_header_) {
        // A vec3<f16> or matCx3<f16> into a storage buffer: each 3-vector as a .xy store and a .z
        // store. NVIDIA (H200, 580.159) stores the third component of a whole 3 x f16 store as
        // its f32 bits (4 bytes, over the padding) when the value comes from a uniform buffer
        // (cts/f16_probe: the CTS's f16_conversion f16_mat uniform 4x3 and f16_arithmetic
        // negation uniform vec3 cases). The value, free of calls with effects, is evaluated once
        // into a local first (it may read what it replaces); in a for-loop header, which cannot
        // hold that local, it is stored whole.
        std::string lv = lvalue(s->lhs);
        std::string tmp = hoist(type_name(lt, s->span), "value", value(s->expr, lt), s->span,
                                "storing a 3-component f16 vector in two parts", 0);
        return split_f16x3_store(lv, tmp, lt);
      }
      std::string lv = lvalue(s->lhs);
      if (s->op == Op::None) return lv + " = " + value(s->expr, lt);
      const Type* rt = value_type(s->expr->type);
      const Type* want = is_abstract_type(rt) ? scalar_of(lt) : nullptr;
      // GLSL has no &= or |= on bool: those go through the binary operator, as / and %.
      const bool bool_op = (s->op == Op::And || s->op == Op::Or) && is_bool(scalar_of(lt));
      switch (bool_op ? Op::Div : s->op) {
        case Op::Add:
        case Op::Sub:
        case Op::Mul:
        case Op::And:
        case Op::Or:
        case Op::Xor:
          return lv + " " + op_text(s->op) + "= " + value(s->expr, want);
        case Op::Shl:
        case Op::Shr: {
          if (s->expr->value)
            return lv + " " + op_text(s->op) + "= " +
                   value(s->expr, builtin_scalar(Type::Kind::U32));
          std::string mask = is_vector(rt) ? glsl_type_of(rt) + "(31u)" : "31u";
          return lv + " " + op_text(s->op) + "= " + paren_if(expr(s->expr), 8) + " & " + mask;
        }
        case Op::Div:
        case Op::Mod: {
          // Through the binary operator's rules (helpers where WGSL and GLSL differ); the
          // lvalue is written twice, which is exact when it has no side effects.
          for (const Expr* x = s->lhs; x;) {
            if (x->kind == ExprKind::Index && !x->args[1]->value) {
              std::function<bool(const Expr*)> has_call = [&](const Expr* q) {
                if (q->kind == ExprKind::Call) return true;
                for (const Expr* c : q->args)
                  if (has_call(c)) return true;
                return false;
              };
              if (has_call(x->args[1])) {
                unsupported(s->span, std::string("a compound ") + op_text(s->op) +
                                         "= whose left side indexes with a call");
                return "";
              }
            }
            x = (x->kind == ExprKind::Index || x->kind == ExprKind::Member ||
                 x->kind == ExprKind::Unary)
                    ? x->args[0]
                    : nullptr;
          }
          Expr fake;
          fake.kind = ExprKind::Binary;
          fake.op = s->op;
          fake.span = s->span;
          fake.type = lt;
          fake.args = {s->lhs, s->expr};
          return lv + " = " + binary(&fake).s;
        }
        default:
          break;
      }
      unsupported(s->span, "this compound assignment");
      return "";
    }
    case StmtKind::Decl: {
      const VarDecl* v = s->decl;
      if (v->kind == DeclKind::Const || (v->type && v->type->kind == Type::Kind::Pointer)) {
        unsupported(s->span, "a const or pointer declaration in a for-loop header");
        return "";
      }
      std::string init =
          v->initializer ? value(v->initializer, v->type) : zero_value(v->type, s->span);
      return decl_text(v->type, declare_local(v), s->span) + " = " + init;
    }
    default:
      unsupported(s->span, "this statement in a for-loop header");
      return "";
  }
}

void Emitter::continuing_inline(const LoopInfo& l) {
  if (!l.continuing) return;
  const auto& body = l.continuing->body;
  if (body.empty()) return;
  line("{  // continuing");
  ++fx_->indent;
  fx_->scopes.emplace_back();
  for (const Stmt* s : body) {
    if (s->kind == StmtKind::BreakIf) {
      if (l.switch_depth > 0) {
        if (l.break_flag.empty()) {
          unsupported(s->span,
                      "`continue` inside a switch of a loop whose continuing has `break if`");
          continue;
        }
        // Leaves the switch; after each switch of the loop, `if (flag) { break; }`.
        emit_with_pre(
            [&] { return "if (" + cond(s->expr) + ") { " + l.break_flag + " = true; break; }"; });
        continue;
      }
      emit_with_pre([&] { return "if (" + cond(s->expr) + ") { break; }"; });
    } else {
      stmt(s);
    }
  }
  fx_->scopes.pop_back();
  --fx_->indent;
  line("}");
}

// loop { body continuing { c; break if x; } }: for (;;) with the continuing written at the end
// of the body and before every `continue` of this loop (which would otherwise skip it), as Tint.
void Emitter::loop_stmt(const Stmt* s) {
  line("for (;;) {");
  ++fx_->indent;
  fx_->scopes.emplace_back();
  fx_->loops.push_back({s->continuing, true, 0, {}});
  if (s->then)
    for (const Stmt* b : s->then->body) stmt(b);
  LoopInfo l = fx_->loops.back();
  continuing_inline(l);
  fx_->loops.pop_back();
  fx_->scopes.pop_back();
  --fx_->indent;
  line("}");
}

void Emitter::for_stmt(const Stmt* s) {
  // GLSL's for has WGSL's semantics (continue runs the update); the header must not need
  // hoisted statements.
  fx_->scopes.emplace_back();
  std::vector<std::string> pre;
  auto* saved = fx_->pre;
  fx_->pre = &pre;
  fx_->calls = 0;
  std::string init = s->init ? simple_stmt_text(s->init) : "";
  fx_->pre = saved;
  for (const auto& p : pre) line(p);
  pre.clear();
  fx_->pre = &pre;
  in_for_header_ = true;
  std::string cond = s->expr ? this->cond(s->expr) : "";
  std::string update = s->update ? simple_stmt_text(s->update) : "";
  in_for_header_ = false;
  fx_->pre = saved;
  if (!pre.empty()) unsupported(s->span, "a for-loop condition or update that needs statements");
  line("for (" + init + "; " + cond + "; " + update + ") {");
  fx_->loops.push_back({nullptr, false, 0, {}});
  block_body(s->then);
  fx_->loops.pop_back();
  line("}");
  fx_->scopes.pop_back();
}

void Emitter::switch_stmt(const Stmt* s) {
  const Type* st = value_type(s->expr->type);
  if (is_abstract_type(st)) st = builtin_scalar(Type::Kind::I32);
  if (!fx_->loops.empty()) {
    LoopInfo& l = fx_->loops.back();
    if (l.switch_depth == 0 && l.is_loop_stmt && l.continuing && !l.continuing->body.empty() &&
        l.continuing->body.back()->kind == StmtKind::BreakIf) {
      l.break_flag = fresh_local("break_if");
      line("bool " + l.break_flag + " = false;  // set by `break if` in a continue of the switch");
    }
  }
  emit_with_pre([&] {
    return "switch (" + cond(s->expr, st) +
           ") {  // each case ends in break: WGSL's never fall through";
  });
  if (!fx_->loops.empty()) ++fx_->loops.back().switch_depth;
  ++fx_->indent;
  for (const SwitchCase& c : s->cases) {
    std::string labels;
    for (const Expr* sel : c.selectors) {
      if (!sel->value) {
        unsupported(sel->span, "a case selector without a value");
        continue;
      }
      labels += (labels.empty() ? "" : " ") + ("case " + literal(*sel->value, st, sel->span) + ":");
    }
    if (c.has_default) labels += std::string(labels.empty() ? "" : " ") + "default:";
    line(labels + " {");
    block_body(c.body);
    line("} break;");
  }
  --fx_->indent;
  if (!fx_->loops.empty()) --fx_->loops.back().switch_depth;
  line("}");
  if (!fx_->loops.empty() && !fx_->loops.back().break_flag.empty()) {
    LoopInfo& l = fx_->loops.back();
    line("if (" + l.break_flag + ") { break; }");
    if (l.switch_depth == 0) l.break_flag.clear();
  }
}

void Emitter::stmt(const Stmt* s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Block:
      line("{");
      block_body(s);
      line("}");
      return;
    case StmtKind::Decl:
      var_decl(s->decl, s->span);
      return;
    case StmtKind::Assign:
    case StmtKind::Increment:
    case StmtKind::Decrement:
    case StmtKind::Call:
      emit_with_pre([&] {
        std::string t = simple_stmt_text(s);
        return t.empty() ? t : t + ";";
      });
      return;
    case StmtKind::Return:
      if (fx_->is_entry || !s->expr) {
        line("return;");
        return;
      }
      emit_with_pre(
          [&] { return "return " + value(s->expr, fx_->fn->return_type_resolved) + ";"; });
      return;
    case StmtKind::If: {
      emit_with_pre([&] { return "if (" + cond(s->expr) + ") {"; });
      block_body(s->then);
      const Stmt* e = s->else_;
      int extra = 0;
      while (e) {
        if (e->kind == StmtKind::If) {
          std::vector<std::string> pre;
          auto* saved = fx_->pre;
          fx_->pre = &pre;
          fx_->calls = 0;
          std::string cond = this->cond(e->expr);
          fx_->pre = saved;
          if (pre.empty()) {
            line("} else if (" + cond + ") {");
          } else {
            line("} else {");
            ++fx_->indent;
            ++extra;
            for (const auto& p : pre) line(p);
            line("if (" + cond + ") {");
          }
          block_body(e->then);
          e = e->else_;
        } else {
          line("} else {");
          block_body(e);
          e = nullptr;
        }
      }
      line("}");
      for (; extra > 0; --extra) {
        --fx_->indent;
        line("}");
      }
      return;
    }
    case StmtKind::Switch:
      switch_stmt(s);
      return;
    case StmtKind::Loop:
      loop_stmt(s);
      return;
    case StmtKind::For:
      for_stmt(s);
      return;
    case StmtKind::While: {
      std::vector<std::string> pre;
      auto* saved = fx_->pre;
      fx_->pre = &pre;
      fx_->calls = 0;
      std::string cond = this->cond(s->expr);
      fx_->pre = saved;
      if (!pre.empty()) unsupported(s->span, "a while condition that needs statements");
      line("while (" + cond + ") {");
      fx_->loops.push_back({nullptr, false, 0, {}});
      block_body(s->then);
      fx_->loops.pop_back();
      line("}");
      return;
    }
    case StmtKind::Break:
      line("break;");
      return;
    case StmtKind::BreakIf:
      unsupported(s->span, "`break if` outside a continuing block's end");
      return;
    case StmtKind::Continue:
      if (!fx_->loops.empty() && fx_->loops.back().is_loop_stmt && fx_->loops.back().continuing &&
          !fx_->loops.back().continuing->body.empty()) {
        line("{");
        ++fx_->indent;
        continuing_inline(fx_->loops.back());
        line("continue;");
        --fx_->indent;
        line("}");
        return;
      }
      line("continue;");
      return;
    case StmtKind::Discard:
      unsupported(s->span, "`discard` (fragment shaders only; this emitter writes compute)");
      return;
    case StmtKind::ConstAssert:
      return;  // checked by sema
  }
}

// ---- Functions ------------------------------------------------------------------------------

// One user function, specialized for the pointer arguments in `ptrs` (null where the parameter
// is a value or an inout pointer). Written completely (its callees first) before it returns.
std::string Emitter::function(const FnDecl* f, const std::vector<const PtrArg*>& ptrs,
                              const std::string& key) {
  std::string name = global_name(f);
  bool specialized = false;
  for (const PtrArg* p : ptrs) specialized = specialized || p;
  if (specialized) {
    std::string roots;
    for (const PtrArg* p : ptrs)
      if (p) roots += "_" + p->path.substr(0, p->path.find_first_of("[."));
    std::string base = name + roots;
    name = base;
    for (int i = 2; global_taken_.count(name); ++i) name = base + "_" + std::to_string(i);
    global_taken_.insert(name);
  }
  specializations_[key] = name;

  FnCtx ctx;
  ctx.fn = f;
  ctx.scopes.emplace_back();
  FnCtx* saved = fx_;
  fx_ = &ctx;
  std::string params, comment;
  std::vector<std::string> extra_params;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const VarDecl* p = f->params[i];
    const Type* t = p->type;
    if (t && t->kind == Type::Kind::Pointer &&
        (t->space == AddressSpace::Function || t->space == AddressSpace::Private)) {
      std::string n = declare_local(p);
      params += (params.empty() ? "" : ", ") + ("inout " + decl_text(t->elem, n, p->span));
      comment +=
          "// `" + p->name + "` is a ptr<" +
          (t->space == AddressSpace::Function ? std::string("function") : std::string("private")) +
          ">: an inout parameter. Copy-in/copy-out is exact: WGSL forbids the function to reach "
          "the same memory another way while it writes it (alias analysis).\n";
    } else if (t && t->kind == Type::Kind::Pointer) {
      const PtrArg* a = i < ptrs.size() ? ptrs[i] : nullptr;
      if (!a) {
        unsupported(p->span, "a pointer parameter without its argument");
        continue;
      }
      PtrArg alias = *a;
      for (size_t k = 0; k < a->values.size(); ++k) {
        std::string pn = fresh_local(p->name + "_" + std::to_string(k));
        extra_params.push_back(a->types[k] + " " + pn);
        alias.values[k] = pn;
      }
      std::string path = alias.text();
      ctx.aliases[p] = alias;
      comment += "// `" + p->name + "` is a pointer into `" +
                 path.substr(0, path.find_first_of("[.")) +
                 "`: GLSL has no pointers, so the function is specialized for it (`" + p->name +
                 "` is `" + path + "` here).\n";
    } else {
      std::string n = declare_local(p);
      params += (params.empty() ? "" : ", ") + decl_text(t, n, p->span);
    }
  }
  for (const auto& x : extra_params) params += (params.empty() ? "" : ", ") + x;
  ctx.indent = 1;
  if (f->body)
    for (const Stmt* s : f->body->body) stmt(s);
  std::string rt = f->return_type_resolved ? type_name(f->return_type_resolved, f->span) : "void";
  std::string text = comment + rt + " " + name + "(" + params + ") {\n" + ctx.out + "}\n";
  fx_ = saved;
  functions_.push_back(text);
  return name;
}

// Workgroup memory is zeroed as Tint's ZeroInitWorkgroupMemory does: every leaf of a variable
// (a scalar, vector, matrix or atomic; structs are walked member by member, nested ones too)
// is stored by the invocations striding over the element count of the arrays around it, from
// gl_LocalInvocationIndex. One constructor store of a whole struct (`v = S(T[67](...), ...)` by
// one invocation) costs lavapipe's LLVM minutes per pipeline; these loops cost it nothing. The
// leaves of one variable with the same element count share a loop.
std::string Emitter::workgroup_zero_init() {
  struct Leaf {
    std::vector<std::string> parts;  // access path text; an array's index goes between parts
    std::vector<uint64_t> dims;      // the arrays' lengths, outermost first (parts = dims + 1)
    const Type* type;
  };
  std::string out;
  uint64_t wg =
      uint64_t(entry_.workgroup_size[0]) * entry_.workgroup_size[1] * entry_.workgroup_size[2];
  for (const Decl* d : m_.decls) {
    if (d->kind != DeclKind::Var || !used_globals_.count(d)) continue;
    const auto* v = static_cast<const VarDecl*>(d);
    if (v->space != AddressSpace::Workgroup) continue;
    std::vector<Leaf> leaves;
    std::function<void(const Type*, Leaf)> walk = [&](const Type* t, Leaf l) {
      t = value_type(t);
      if (t->kind == Type::Kind::Array) {
        l.dims.push_back(t->count);
        l.parts.emplace_back();
        walk(t->elem, std::move(l));
      } else if (t->kind == Type::Kind::Struct && t->decl) {
        for (const auto& mb : t->decl->members) {
          Leaf m = l;
          m.parts.back() += "." + member_name(mb.name);
          walk(mb.type, std::move(m));
        }
      } else {
        l.type = t;
        leaves.push_back(std::move(l));
      }
    };
    walk(v->type, Leaf{{global_name(v)}, {}, nullptr});
    // Group the stores by element count, in the order of their first leaf.
    std::vector<std::pair<uint64_t, std::string>> groups;
    for (const Leaf& l : leaves) {
      uint64_t total = 1;
      for (uint64_t x : l.dims) total *= x;
      std::string lv = l.parts[0];
      uint64_t inner = total;
      for (size_t k = 0; k < l.dims.size(); ++k) {
        inner /= l.dims[k];
        std::string idx = "wgsl_i";
        if (inner > 1) idx += " / " + std::to_string(inner) + "u";
        if (k > 0) idx = "(" + idx + ") % " + std::to_string(l.dims[k]) + "u";
        lv += "[" + idx + "]" + l.parts[k + 1];
      }
      std::string store = lv + " = " + zero_value(l.type, v->span) + ";";
      uint64_t key = l.dims.empty() ? 0 : total;  // 0: no array, one invocation stores it
      auto g = std::find_if(groups.begin(), groups.end(), [&](auto& e) { return e.first == key; });
      if (g == groups.end())
        groups.emplace_back(key, store);
      else
        g->second += " " + store;
    }
    for (const auto& [total, body] : groups) {
      if (total == 0)
        out += "    if (gl_LocalInvocationIndex == 0u) { " + body + " }\n";
      else if (total <= wg)
        out += "    if (gl_LocalInvocationIndex < " + std::to_string(total) +
               "u) { uint wgsl_i = gl_LocalInvocationIndex; " + body + " }\n";
      else
        out += "    for (uint wgsl_i = gl_LocalInvocationIndex; wgsl_i < " + std::to_string(total) +
               "u; wgsl_i += " + std::to_string(wg) + "u) { " + body + " }\n";
    }
  }
  if (out.empty()) return out;
  return "    // WGSL zero-initialises workgroup memory: the invocations stride over it, then a\n"
         "    // barrier (Tint's ZeroInitWorkgroupMemory).\n" +
         out + "    barrier();\n";
}

std::string Emitter::main_function() {
  FnCtx ctx;
  ctx.fn = &entry_;
  ctx.is_entry = true;
  ctx.scopes.emplace_back();
  fx_ = &ctx;
  static const std::map<std::string, std::pair<std::string, std::string>> builtins = {
      {"global_invocation_id", {"gl_GlobalInvocationID", ""}},
      {"local_invocation_id", {"gl_LocalInvocationID", ""}},
      {"local_invocation_index", {"gl_LocalInvocationIndex", ""}},
      {"workgroup_id", {"gl_WorkGroupID", ""}},
      {"num_workgroups", {"gl_NumWorkGroups", ""}},
      {"subgroup_invocation_id", {"gl_SubgroupInvocationID", "basic"}},
      {"subgroup_size", {"gl_SubgroupSize", "basic"}},
  };
  auto builtin_value = [&](const std::string& b, Span at) -> std::string {
    auto it = builtins.find(b);
    if (it == builtins.end()) {
      unsupported(at, "the entry point input @builtin(" + b + ")");
      return "0u";
    }
    if (!it->second.second.empty()) {
      uses_subgroups_ = true;
      subgroup_exts_.insert(it->second.second);
    }
    return it->second.first;
  };
  std::string prologue;
  for (const VarDecl* p : entry_.params) {
    const Type* t = p->type;
    std::string n = declare_local(p);
    std::string init;
    if (!p->builtin.empty()) {
      init = builtin_value(p->builtin, p->span);
    } else if (t && t->kind == Type::Kind::Struct && t->decl) {
      init = type_name(t, p->span) + "(";
      bool first = true;
      for (const auto& mb : t->decl->members) {
        init += (first ? "" : ", ") + builtin_value(mb.builtin, mb.span);
        first = false;
      }
      init += ")";
    } else {
      unsupported(p->span, "an entry point input that is not a @builtin");
    }
    prologue += "    " + decl_text(t, n, p->span) + " = " + init + ";\n";
  }
  ctx.indent = 1;
  if (entry_.body)
    for (const Stmt* s : entry_.body->body) stmt(s);
  std::string body = ctx.out;

  // Module-scope private variables start at their initializer or zero, per invocation.
  ctx.out.clear();
  for (const Decl* d : m_.decls) {
    if (d->kind != DeclKind::Var || !used_globals_.count(d)) continue;
    const auto* v = static_cast<const VarDecl*>(d);
    if (v->space != AddressSpace::Private) continue;
    if (v->initializer)
      line(global_name(v) + " = " + value(v->initializer, v->type) + ";");
    else
      zero_fill(global_name(v), v->type, v->span);
  }
  std::string priv = ctx.out;
  if (!priv.empty()) priv = "    // WGSL private variables: their initializer, else zero.\n" + priv;
  fx_ = nullptr;
  return "void main() {\n" + prologue + workgroup_zero_init() + priv + body + "}\n";
}

// ---- Declarations ---------------------------------------------------------------------------

uint64_t round_up(uint64_t a, uint64_t x) { return a ? (x + a - 1) / a * a : x; }

std::string camel(const std::string& n) {
  std::string s;
  bool up = true;
  for (char c : n) {
    if (c == '_') {
      up = true;
      continue;
    }
    s += up ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return s.empty() ? "B" : s;
}

// ---- Buffer layouts -------------------------------------------------------------------------
//
// A uniform block is std140, a storage block std430. Where those place something elsewhere than
// WGSL does, the type is lowered to a GLSL type with exactly WGSL's offsets and strides:
//  - a struct gets a copy `wgsl_<S>_std140` / `_std430` with padding members (`wgsl_pad<k>`)
//    before members WGSL places later (@align, @size, a nested struct's members) and after the
//    last one (@size, or a struct's own @align);
//  - a matrix whose std140 column stride is not WGSL's (matCx2<f32>, the f16 matrices) is its
//    column vectors: members `wgsl_col<k>_<m>` in a struct or block, a struct `wgsl_matCxR_<T>_
//    std140 { wgsl_col<k> }` as an array element (uniform buffers are read-only: only loads);
//  - an array of lowered elements is an array of their lowered type.
// Loads convert to the WGSL value with a helper (`wgsl_load_...`); stores into a lowered type are
// written member by member, so padding bytes are never written. The ABI check
// (translator/src/abi_check.cpp) reads these names the same way.

int Emitter::rule_of(const Expr* e) {
  const Type* t = e ? e->type : nullptr;
  if (!t || (t->kind != Type::Kind::Reference && t->kind != Type::Kind::Pointer)) return 0;
  if (t->space == AddressSpace::Uniform) return 140;
  if (t->space == AddressSpace::Storage) return 430;
  return 0;
}

// A call that must not be evaluated twice: a user function, an atomic, a barrier-like or
// subgroup builtin. Constructors and the other builtins are values.
bool Emitter::has_effects(const Expr* e) {
  if (!e) return false;
  if (e->kind == ExprKind::Call) {
    if (e->target != CallTarget::Constructor && e->target != CallTarget::Builtin) return true;
    if (e->target == CallTarget::Builtin) {
      const std::string& n = e->callee ? e->callee->text : std::string();
      if (n.empty() || n.rfind("atomic", 0) == 0 || n.rfind("subgroup", 0) == 0 ||
          n.rfind("quad", 0) == 0 || n == "workgroupUniformLoad" ||
          n.find("Barrier") != std::string::npos)
        return true;
    }
  }
  for (const Expr* c : e->args)
    if (has_effects(c)) return true;
  return false;
}

bool Emitter::has_call(const Expr* e) {
  if (!e) return false;
  if (e->kind == ExprKind::Call) return true;
  for (const Expr* c : e->args)
    if (has_call(c)) return true;
  return false;
}

std::string Emitter::pad_members(uint64_t from, uint64_t to, bool std140, int& n,
                                 const std::string& first_prefix) {
  std::string out;
  auto add = [&](const std::string& t, uint64_t count) {
    out += "    " + (out.empty() ? first_prefix : std::string()) + t + " wgsl_pad" +
           std::to_string(n++) + (count > 1 ? "[" + std::to_string(count) + "]" : "") + ";\n";
  };
  if (from % 4 == 2 && from < to) {
    uses_f16_ = true;
    add("float16_t", 1);
    from += 2;
  }
  if (std140) {
    // std140 arrays have a 16-byte stride: uints up to a 16-byte boundary, then uvec4s.
    while (from % 16 && from + 4 <= to) {
      add("uint", 1);
      from += 4;
    }
    if (to >= from + 16) {
      uint64_t k = (to - from) / 16;
      add("uvec4", k);
      from += 16 * k;
    }
    while (from + 4 <= to) {
      add("uint", 1);
      from += 4;
    }
  } else if (to >= from + 4) {
    uint64_t k = (to - from) / 4;
    add("uint", k);
    from += 4 * k;
  }
  if (from < to) {
    uses_f16_ = true;
    add("float16_t", 1);
  }
  return out;
}

std::string Emitter::columns_value(const Type* m, const std::string& prefix,
                                   const std::string& name) {
  std::string s = type_name(m, {}) + "(";
  for (uint32_t k = 0; k < m->n; ++k)
    s += (k ? ", " : "") + prefix + "wgsl_col" + std::to_string(k) + "_" + name;
  return s + ")";
}

// The struct holding a std140 matrix's columns as an array element, and its load helper.
std::string Emitter::matrix_wrapper(const Type* m, std::string& load) {
  bool f16 = m->elem && m->elem->kind == Type::Kind::F16;
  std::string shape = "mat" + std::to_string(m->n) + "x" + std::to_string(m->rows);
  std::string name = "wgsl_" + shape + (f16 ? "_f16" : "_f32") + "_std140";
  load = "wgsl_load_" + shape + (f16 ? "_f16" : "_f32") + "_std140";
  if (host_names_.insert(name).second) {
    std::string col = vector_prefix(m->elem) + std::to_string(m->rows);
    std::string def = "struct " + name + " {  // " + m->wgsl() +
                      " in a uniform array: its columns at WGSL's stride (std140 pads them)\n";
    std::string args;
    for (uint32_t k = 0; k < m->n; ++k) {
      def += "    " + col + " wgsl_col" + std::to_string(k) + ";\n";
      args += (k ? ", " : "") + std::string("h.wgsl_col") + std::to_string(k);
    }
    host_structs_.push_back(def + "};\n");
    host_loads_.push_back(type_name(m, {}) + " " + load + "(" + name + " h) { return " +
                          type_name(m, {}) + "(" + args + "); }\n");
  }
  return name;
}

Emitter::HostType Emitter::host(const Type* t, bool std140) {
  t = store_type(t);
  auto key = std::make_pair(t, std140);
  if (auto it = host_types_.find(key); it != host_types_.end()) return it->second;
  HostType h;
  switch (t->kind) {
    case Type::Kind::Bool:
    case Type::Kind::I32:
    case Type::Kind::U32:
    case Type::Kind::F32:
    case Type::Kind::F16:
    case Type::Kind::Atomic:
    case Type::Kind::Vector: {
      const Type* sc = t->kind == Type::Kind::Vector || t->kind == Type::Kind::Atomic ? t->elem : t;
      uint64_t s = sc && sc->kind == Type::Kind::F16 ? 2 : 4;
      uint64_t n = t->kind == Type::Kind::Vector ? t->n : 1;
      h.align = n == 1 ? s : n == 2 ? 2 * s : 4 * s;
      h.size = n * s;
      h.base = type_name(t, {});
      break;
    }
    case Type::Kind::Matrix: {
      uint64_t s = t->elem && t->elem->kind == Type::Kind::F16 ? 2 : 4;
      uint64_t vec_align = t->rows == 2 ? 2 * s : 4 * s;
      uint64_t col_align = std140 ? round_up(16, vec_align) : vec_align;
      uint64_t stride = round_up(col_align, t->rows * s);
      uint64_t wgsl_stride = round_up(vec_align, t->rows * s);
      if (stride == wgsl_stride) {
        h.align = col_align;
        h.size = t->n * stride;
        h.base = type_name(t, {});
      } else {
        h.lowered = h.columns = true;
        h.align = vec_align;
        h.size = t->n * wgsl_stride;
        h.base = vector_prefix(t->elem) + std::to_string(t->rows);
        type_name(t, {});
      }
      break;
    }
    case Type::Kind::Array: {
      HostType e = host(t->elem, std140);
      h.why = e.why;
      std::string elem_load = e.load;
      if (e.columns) {
        e.base = matrix_wrapper(store_type(t->elem), elem_load);
        e.dims.clear();
        e.align = 16;
        e.size = round_up(16, e.size);
      }
      h.lowered = e.lowered;
      h.align = std140 ? round_up(16, e.align) : e.align;
      uint64_t stride = round_up(h.align, e.size);
      if (t->stride && stride != t->stride && h.why.empty())
        h.why = t->wgsl() + " has stride " + std::to_string(t->stride) + " in WGSL but " +
                std::to_string(stride) + " in GLSL's " + (std140 ? "std140" : "std430");
      h.size = std::max<uint64_t>(t->count, 1) * stride;
      h.base = e.base;
      h.dims = (t->count ? "[" + std::to_string(t->count) + "]" : std::string("[]")) + e.dims;
      if (h.lowered && t->count > 0) {
        h.load = "wgsl_load_array" + std::to_string(host_loads_.size());
        std::string vt = type_name(t, {});
        size_t b = vt.find('[');
        std::string def = vt + " " + h.load + "(" + h.base + " h" + h.dims + ") {\n    " +
                          vt.substr(0, b) + " r" + vt.substr(b) + ";\n    for (uint i = 0u; i < " +
                          std::to_string(t->count) + "u; ++i) { r[i] = " + elem_load +
                          "(h[i]); }\n    return r;\n}\n";
        host_loads_.push_back(def);
      }
      break;
    }
    case Type::Kind::Struct:
      h = host_struct(t, std140);
      break;
    default:
      h.why = "type " + t->wgsl() + " in a buffer";
      break;
  }
  host_types_[key] = h;
  return h;
}

Emitter::HostType Emitter::host_struct(const Type* t, bool std140) {
  HostType h;
  const StructDecl* s = t->decl;
  if (!s) {
    h.why = "a struct without its declaration";
    return h;
  }
  std::string members, args;
  uint64_t cur = 0, align = 1;
  int pads = 0;
  bool lowered = false;
  auto place = [&](uint64_t off, uint64_t a, const std::string& what) {
    uint64_t natural = round_up(a, cur);
    if ((off < natural || off % a) && h.why.empty())
      h.why = what + " of struct " + s->name + " is at offset " + std::to_string(off) +
              " in WGSL, which GLSL's " + (std140 ? "std140" : "std430") +
              " cannot place it at (alignment " + std::to_string(a) + ", previous member ends at " +
              std::to_string(cur) + ")";
    if (off > natural) {
      members += pad_members(cur, off, std140, pads);
      lowered = true;
    }
  };
  for (const StructMember& mb : s->members) {
    HostType m = host(mb.type, std140);
    if (h.why.empty()) h.why = m.why;
    std::string mn = member_name(mb.name);
    align = std::max(align, m.align);
    const Type* mt = store_type(mb.type);
    if (m.columns) {
      lowered = true;
      uint64_t stride = m.size / mt->n;
      uint64_t col_size = mt->rows * (mt->elem && mt->elem->kind == Type::Kind::F16 ? 2 : 4);
      for (uint32_t k = 0; k < mt->n; ++k) {
        uint64_t off = mb.offset + k * stride;
        place(off, m.align, "member '" + mb.name + "'");
        members += "    " + m.base + " wgsl_col" + std::to_string(k) + "_" + mn + ";\n";
        cur = off + col_size;
      }
      args += (args.empty() ? "" : ", ") + columns_value(mt, "h.", mn);
      continue;
    }
    place(mb.offset, m.align, "member '" + mb.name + "'");
    members += "    " + m.base + " " + mn + m.dims + ";\n";
    cur = mb.offset + m.size;
    lowered = lowered || m.lowered;
    args += (args.empty() ? "" : ", ") + (m.lowered ? m.load + "(h." + mn + ")" : "h." + mn);
  }
  uint64_t salign = std140 ? round_up(16, align) : align;
  if (round_up(salign, cur) != t->size && cur < t->size) {
    members += pad_members(cur, t->size, std140, pads);
    cur = t->size;
    lowered = true;
  }
  h.align = salign;
  h.size = round_up(salign, cur);
  if (!lowered) {
    h.base = type_name(t, {});
    return h;
  }
  h.lowered = true;
  std::string sn = global_name(s);
  std::string suffix = std140 ? "_std140" : "_std430";
  h.base = "wgsl_" + sn + suffix;
  h.load = "wgsl_load_" + sn + suffix;
  if (host_names_.insert(h.base).second) {
    host_structs_.push_back("struct " + h.base + " {  // " + s->name + " with WGSL's layout in " +
                            (std140 ? "a uniform" : "a storage") + " buffer\n" + members + "};\n");
    std::string vt = type_name(t, {});
    host_loads_.push_back(vt + " " + h.load + "(" + h.base + " h) { return " + vt + "(" + args +
                          "); }\n");
  }
  return h;
}

// A load from a buffer of a lowered type: the WGSL value, through its helper.
std::string Emitter::load_value(const Expr* e, const std::string& text) {
  int rule = rule_of(e);
  if (!rule) return text;
  const Type* t = store_type(e->type);
  if (!t || (t->kind == Type::Kind::Array && t->count == 0)) return text;
  HostType h = host(t, rule == 140);
  if (!h.lowered || h.columns) return text;
  if (h.load.empty()) {
    unsupported(e->span, "a load of " + t->wgsl() + " from a buffer whose GLSL layout is lowered");
    return text;
  }
  return h.load + "(" + text + ")";
}

// `lv = v` where lv's GLSL type is lowered: member by member, never writing padding.
void Emitter::store_parts(const std::string& lv, const std::string& v, const Type* t,
                          std::vector<std::string>& out, Span at) {
  t = store_type(t);
  HostType h = host(t, false);
  if (!h.lowered) {
    out.push_back(is_f16x3(t) ? split_f16x3_store(lv, v, t) : lv + " = " + v);
    return;
  }
  if (out.size() > 256) {
    unsupported(at, "storing a " + t->wgsl() + " member by member (more than 256 stores)");
    return;
  }
  if (t->kind == Type::Kind::Struct && t->decl) {
    for (const auto& mb : t->decl->members)
      store_parts(lv + "." + member_name(mb.name), v + "." + member_name(mb.name), mb.type, out,
                  at);
    return;
  }
  if (t->kind == Type::Kind::Array && t->count > 0) {
    for (uint64_t i = 0; i < t->count; ++i)
      store_parts(lv + "[" + std::to_string(i) + "]", v + "[" + std::to_string(i) + "]", t->elem,
                  out, at);
    return;
  }
  unsupported(at, "storing a " + t->wgsl() + " into a buffer whose GLSL layout is lowered");
}

std::string Emitter::resource_decl(const VarDecl* v) {
  const Type* t = v->type;
  bool uniform = v->space == AddressSpace::Uniform;
  bool std140 = uniform;
  if (!v->group || !v->binding) {
    unsupported(v->span, "a resource variable without @group/@binding");
    return "";
  }
  if (*v->binding >= 1000) {
    // WebGPU's maxBindingsPerBindGroup: pipeline creation refuses it (and glslang too).
    unsupported(v->span, "@binding(" + std::to_string(*v->binding) + ") of " + v->name +
                             " is above WebGPU's maxBindingsPerBindGroup (1000)");
    return "";
  }
  std::string block = camel(global_name(v));
  while (global_taken_.count(block) || glsl_reserved(block)) block += "Block";
  global_taken_.insert(block);
  std::string head = "layout(set = " + std::to_string(*v->group) +
                     ", binding = " + std::to_string(*v->binding) +
                     (uniform ? ", std140) uniform " : ", std430) ");
  if (!uniform) head += std::string(v->access == Access::Read ? "readonly " : "") + "buffer ";
  std::string members, why;
  std::string inst;
  uint64_t end = 0;
  int pads = 0;
  bool runtime_tail = false;
  auto columns = [&](const Type* m, const HostType& h, uint64_t offset, const std::string& name) {
    uint64_t stride = h.size / m->n;
    uint64_t es = m->elem && m->elem->kind == Type::Kind::F16 ? 2 : 4;
    for (uint32_t k = 0; k < m->n; ++k)
      members += "    layout(offset = " + std::to_string(offset + k * stride) + ") " + h.base +
                 " wgsl_col" + std::to_string(k) + "_" + name + ";\n";
    end = offset + (m->n - 1) * stride + m->rows * es;
  };
  if (t->kind == Type::Kind::Struct && t->decl) {
    // The block's members are the struct's (the ABI check compares them one by one), with an
    // explicit offset where GLSL's rule would place a member elsewhere than WGSL does.
    inst = " " + global_name(v);
    uint64_t off = 0;
    for (const auto& mb : t->decl->members) {
      const Type* mt = store_type(mb.type);
      runtime_tail = mt && mt->kind == Type::Kind::Array && mt->count == 0;
      HostType l = host(mb.type, std140);
      if (why.empty()) why = l.why;
      if (l.columns) {
        columns(mt, l, mb.offset, member_name(mb.name));
        off = end;
        continue;
      }
      uint64_t natural = round_up(l.align, off);
      std::string lay;
      if (natural != mb.offset) {
        if (mb.offset < natural || mb.offset % l.align) {
          if (why.empty())
            why = "member '" + mb.name + "' is at offset " + std::to_string(mb.offset) +
                  " in WGSL, which GLSL's " + (std140 ? "std140" : "std430") +
                  " cannot place it at (alignment " + std::to_string(l.align) + ")";
        }
        lay = "layout(offset = " + std::to_string(mb.offset) + ") ";
      }
      members += "    " + lay + l.base + " " + member_name(mb.name) + l.dims + ";\n";
      off = mb.offset + l.size;
      end = off;
    }
  } else {
    HostType l = host(t, std140);
    why = l.why;
    if (l.columns) {
      columns(t, l, 0, global_name(v));
    } else {
      end = l.size;
      members = "    " + l.base + " " + global_name(v) + l.dims + ";\n";
    }
  }
  // The ABI check compares WGSL's SizeOf with GLSL's extent rounded up to WGSL's alignment:
  // trailing padding WGSL has (a last member's @size) is declared as padding members.
  // (A struct's SizeOf is rounded up to its alignment; a vec3's is not: 12 bytes.)
  uint64_t glsl_size =
      t->kind == Type::Kind::Struct ? round_up(std::max<uint32_t>(t->align, 1), end) : end;
  if (why.empty() && t->size && !runtime_tail && glsl_size != t->size) {
    if (end < t->size && t->kind == Type::Kind::Struct) {
      members +=
          pad_members(end, t->size, std140, pads, "layout(offset = " + std::to_string(end) + ") ");
    } else {
      why = v->name + " is " + std::to_string(t->size) +
            " bytes in WGSL but GLSL's block would be " + std::to_string(end);
    }
  }
  if (!why.empty()) unsupported(v->span, "the layout of " + v->name + ": " + why);
  return head + block + " {\n" + members + "}" + inst + ";";
}

std::string Emitter::declarations() {
  std::string consts, resources, shared, privates;
  for (const Decl* d : m_.decls) {
    if (!used_globals_.count(d)) continue;
    if (d->kind == DeclKind::Const || d->kind == DeclKind::Override) {
      const auto* v = static_cast<const VarDecl*>(d);
      if (!v->value) {
        unsupported(v->span,
                    "the " + std::string(d->kind == DeclKind::Override ? "override" : "constant") +
                        " '" + v->name + "' has no value");
        continue;
      }
      std::string lit = literal(*v->value, v->type, v->span);
      consts += "const " + decl_text(v->type, global_name(v), v->span) + " = " + lit + ";" +
                (d->kind == DeclKind::Override
                     ? "  // override " + v->name + ": the pipeline's value, else its default"
                     : "") +
                "\n";
      continue;
    }
    if (d->kind != DeclKind::Var) continue;
    const auto* v = static_cast<const VarDecl*>(d);
    switch (v->space) {
      case AddressSpace::Storage:
      case AddressSpace::Uniform:
        resources += resource_decl(v) + "\n";
        break;
      case AddressSpace::Workgroup:
        shared += "shared " + decl_text(v->type, global_name(v), v->span) + ";\n";
        break;
      case AddressSpace::Private:
        privates += decl_text(v->type, global_name(v), v->span) + ";  // var<private>\n";
        break;
      case AddressSpace::Handle:
        unsupported(v->span, "the " + v->type->wgsl() + " '" + v->name +
                                 "' (texture and sampler variables are checked, not translated)");
        break;
      default:
        unsupported(v->span, "a module-scope variable in this address space (" + v->name + ")");
    }
  }
  std::string structs;
  for (const StructDecl* s : struct_order_) {
    structs += "struct " + global_name(s) + " {\n";
    for (const auto& mb : s->members)
      structs += "    " + decl_text(mb.type, member_name(mb.name), mb.span) + ";\n";
    structs += "};\n";
  }
  for (const auto& b : builtin_structs_) structs += b;
  for (const auto& h : host_structs_) structs += h;
  std::string out;
  auto section = [&](const std::string& s) {
    if (!s.empty()) out += "\n" + s;
  };
  section(structs);
  section(consts);
  section(resources);
  section(shared);
  section(privates);
  return out;
}

std::string Emitter::run() {
  assign_global_names();
  std::string main = main_function();
  std::string decls = declarations();  // may still add structs: built after everything else
  std::string out;
  out += "// Translated from " +
         (opt_.source_name.empty() ? std::string("WGSL") : opt_.source_name) + ", entry point " +
         entry_.name + ", by wgslvk's WGSL front end.\n";
  out +=
      "// WGSL's semantics where GLSL's differ are spelled out (helpers named wgsl_*); see\n"
      "// translator/wgsl/README.md, \"The GLSL it writes\".\n";
  out += "#version 450\n";
  if (m_.enables_f16 || uses_f16_)
    out +=
        "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
        "#extension GL_EXT_shader_16bit_storage : require\n";
  for (const char* ext :
       {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "quad"})
    if (subgroup_exts_.count(ext))
      out += std::string("#extension GL_KHR_shader_subgroup_") + ext + " : require\n";
  if (need_memory_scope_) out += "#extension GL_KHR_memory_scope_semantics : require\n";
  if (helpers_.uses_spirv_intrinsics()) out += "#extension GL_EXT_spirv_intrinsics : require\n";
  out += "\nlayout(local_size_x = " + std::to_string(entry_.workgroup_size[0]) +
         ", local_size_y = " + std::to_string(entry_.workgroup_size[1]) +
         ", local_size_z = " + std::to_string(entry_.workgroup_size[2]) + ") in;";
  bool wg_override = entry_.workgroup_size_expr[0] || entry_.workgroup_size_expr[1] ||
                     entry_.workgroup_size_expr[2];
  out += wg_override ? "  // @workgroup_size with the overrides' values\n" : "\n";
  if (m_.enables_f16 || uses_f16_)
    out +=
        "\n// glslang declares SPIR-V's Float16 capability only for some uses of float16_t (not\n"
        "// for a builtin applied to a value loaded from a buffer, e.g. abs(b.x), which spirv-val\n"
        "// then refuses); a private float16_t variable declares it.\n"
        "float16_t wgsl_f16_capability;\n";
  out += decls;
  if (!host_loads_.empty()) {
    out += "\n// Loads from buffers whose layout is lowered: the WGSL values.\n";
    for (const auto& h : host_loads_) out += h;
  }
  if (!helpers_.empty()) out += "\n" + helpers_.code();
  for (const auto& f : functions_) out += "\n" + f;
  out += "\n" + main;
  return out;
}

}  // namespace

std::string emit_glsl(const Module& module, const FnDecl& entry, const EmitOptions& options,
                      Diags& diags) {
  if (entry.stage != Stage::Compute) {
    diags.error(
        entry.span, "unsupported",
        "entry point '" + entry.name + "' is not @compute: the emitter writes compute shaders");
    return {};
  }
  Emitter e(module, entry, options, diags);
  std::string s = e.run();
  return diags.ok() ? s : std::string();
}

}  // namespace wgslvk::wgsl
