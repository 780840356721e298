// The WGSL front end's syntax tree and its semantic annotations: the contract between the parser
// (parser.cpp fills the syntax), the resolver and type checker (sema.cpp fills the `// sema:`
// fields), the uniformity analysis (uniformity.cpp reads them) and the GLSL emitter
// (emit_glsl.cpp reads them). Nodes are owned by their Module (arena of unique_ptrs); every other
// pointer is a non-owning reference into the same Module, valid for the Module's life.
//
// The grammar follows the WGSL spec's recursive-descent grammar, including its template lists:
// `vec4<f32>`, `array<u32, 4>`, `ptr<storage, T, read_write>`, `bitcast<u32>` are all a
// "template-elaborated identifier" (an Ident expression whose template_args are expressions;
// a type is an identifier). Types and expressions therefore share the Expr node, and sema decides
// what each identifier names.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wgslvk::wgsl {

// 1-based line and column (columns count bytes) in the source file.
struct Span {
  uint32_t line = 0, col = 0;
};

// ---- Types (created and interned by sema; the parser never makes one) -------------------------

enum class AddressSpace : uint8_t { None, Function, Private, Workgroup, Uniform, Storage, Handle };
enum class Access : uint8_t { None, Read, Write, ReadWrite };

struct StructDecl;
struct Expr;

struct Type {
  enum class Kind : uint8_t {
    Void,
    Bool,
    AbstractInt,
    AbstractFloat,
    I32,
    U32,
    F32,
    F16,
    Vector,     // elem, n (2..4)
    Matrix,     // elem (f32/f16/abstract float), n = columns, rows
    Array,      // elem, count (0: runtime-sized), count_override if sized by an override
    Struct,     // decl
    Atomic,     // elem (i32/u32)
    Pointer,    // elem = store type, space, access
    Reference,  // the type of a memory view (WGSL's ref<S, T, A>); loads give elem
    // Opaque handle types, checked but not translated (the translator is compute on storage
    // buffers): n = the texture type's index in texture_type_names(), elem = the sampled type
    // (f32/i32/u32) of sampled and multisampled textures, count = the texel format's index in
    // texel_format_names() and access = the access mode of storage textures.
    Texture,
    Sampler,  // n = 1: sampler_comparison
  };
  Kind kind = Kind::Void;
  const Type* elem = nullptr;
  uint32_t n = 0;     // vector width, matrix columns
  uint32_t rows = 0;  // matrix rows
  uint64_t count = 0;
  const Expr* count_override = nullptr;  // array<T, OVERRIDE_EXPR> (workgroup arrays only)
  AddressSpace space = AddressSpace::None;
  Access access = Access::None;
  const StructDecl* decl = nullptr;

  bool is_scalar() const { return kind >= Kind::Bool && kind <= Kind::F16; }
  bool is_abstract() const;  // AbstractInt/AbstractFloat, or a vector/matrix/array of them
  bool is_float_scalar() const {
    return kind == Kind::AbstractFloat || kind == Kind::F32 || kind == Kind::F16;
  }
  bool is_integer_scalar() const {
    return kind == Kind::AbstractInt || kind == Kind::I32 || kind == Kind::U32;
  }
  // The scalar of a scalar, vector or matrix (itself for a scalar); nullptr otherwise.
  const Type* scalar() const;
  // Memory layout for host-shareable and workgroup types (WGSL's AlignOf/SizeOf; runtime-sized
  // arrays count one element). Filled by sema when the type is created.
  uint32_t align = 0;
  uint64_t size = 0;
  uint32_t stride = 0;       // arrays: the element stride
  std::string wgsl() const;  // WGSL spelling, for messages: "vec4<f32>", "ptr<storage, u32, read>"
  bool is_handle() const { return kind == Kind::Texture || kind == Kind::Sampler; }
};

// WGSL's texture type names (Type::n of a Texture) and storage texel formats (Type::count).
const std::vector<std::string>& texture_type_names();
const std::vector<std::string>& texel_format_names();

// ---- Compile-time values (const-expressions; overrides with their pipeline value) -------------

// A scalar constant. Abstract ints are held as int64_t, abstract floats as double; concrete
// scalars hold their exact value (f32/f16 values are representable in double).
struct Scalar {
  std::variant<bool, int64_t, uint64_t, double> v;
};
struct ConstValue {
  const Type* type = nullptr;
  std::vector<Scalar> scalars;  // scalar: 1; vector: n; matrix: column-major; array/struct: flat
                                // element by element in declaration order
  std::vector<ConstValue> elements;  // arrays and structs: one per element/member (then
                                     // `scalars` is empty)
};

// ---- Expressions ------------------------------------------------------------------------------

enum class ExprKind : uint8_t {
  BoolLit,   // true / false
  IntLit,    // 1, 1i, 1u, 0x1f  (suffix: 0 abstract, 'i', 'u')
  FloatLit,  // 1.0, 1f, 1h, 0x1p4 (suffix: 0 abstract, 'f', 'h')
  Ident,     // a name, optionally templated: f32, vec4<f32>, x, bitcast<u32> (callee)
  Call,      // callee(args): function, builtin function or value constructor (incl. type alias)
  Index,     // base[index]
  Member,    // base.name (struct member or vector swizzle)
  Unary,     // op operand: - ! ~ * (deref) & (address-of)
  Binary,    // lhs op rhs
};

enum class Op : uint8_t {
  None,
  // unary
  Neg,
  Not,     // !
  BitNot,  // ~
  Deref,   // *p
  AddrOf,  // &v
  // binary
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  And,     // &
  Or,      // |
  Xor,     // ^
  Shl,     // <<
  Shr,     // >>
  LogAnd,  // &&
  LogOr,   // ||
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
};

struct Decl;
struct FnDecl;

// What sema found a Call's callee to be.
enum class CallTarget : uint8_t {
  Unresolved,
  Function,     // a user function: fn
  Builtin,      // a builtin function: builtin (its name is the callee text)
  Constructor,  // a value constructor / conversion of `type` (vec4<f32>(...), f32(x), S(...))
};

struct Expr {
  ExprKind kind = ExprKind::BoolLit;
  Span span;
  bool parenthesized = false;  // written inside ( ) in the source (the emitter may keep them)

  // Syntax
  bool bool_value = false;
  std::string text;  // Ident: name; Member: member name; literals: the source spelling
  char suffix = 0;   // literal suffix ('i','u','f','h') or 0
  Op op = Op::None;
  std::vector<Expr*> template_args;  // Ident: vec4<f32> -> [f32]; array<u32, 4> -> [u32, 4]
  Expr* callee = nullptr;            // Call: an Ident (possibly templated)
  std::vector<Expr*> args;           // Call: arguments; Index: {base, index}; Member: {base};
                                     // Unary: {operand}; Binary: {lhs, rhs}

  // sema:
  const Type* type = nullptr;        // the expression's type; a Reference type for memory views
  std::optional<ConstValue> value;   // set when the expression is a const-expression
  Decl* decl = nullptr;              // Ident: the declaration it names (variable, param, fn, ...)
  const Type* names_type = nullptr;  // Ident used as a type (or Call to a constructor): the type
  CallTarget target = CallTarget::Unresolved;
  FnDecl* fn = nullptr;  // Call of a user function
  // Member on a vector: the swizzle's component indices (0..3); empty for a struct member.
  std::vector<uint8_t> swizzle;
  int member_index = -1;  // Member on a struct: the member's index
};

// ---- Attributes -------------------------------------------------------------------------------

struct Attribute {
  std::string name;  // without '@': "group", "binding", "builtin", "workgroup_size", "compute"
  std::vector<Expr*> args;
  Span span;
};

// ---- Declarations -----------------------------------------------------------------------------

enum class DeclKind : uint8_t { Var, Let, Const, Override, Param, Fn, Struct, Alias };

struct Decl {
  DeclKind kind;
  std::string name;
  Span span;
  std::vector<Attribute> attrs;
  explicit Decl(DeclKind k) : kind(k) {}
  virtual ~Decl() = default;
};

// var / let / const / override (module scope or function scope), and function parameters.
struct VarDecl : Decl {
  using Decl::Decl;
  // var<space, access>: the template args as written (identifiers), empty when none
  std::vector<Expr*> var_template;
  Expr* type_expr = nullptr;    // may be null when inferred
  Expr* initializer = nullptr;  // may be null
  bool module_scope = false;

  // sema:
  const Type* type = nullptr;  // the store type (var) or value type (let/const/override/param)
  AddressSpace space = AddressSpace::None;  // var only (function-scope var: Function)
  Access access = Access::None;
  std::optional<uint32_t> group, binding;  // resource variables
  std::optional<uint32_t> override_id;     // @id, or assigned by sema in declaration order
  std::optional<ConstValue> value;         // const: its value; override: default, if any
  std::string builtin;  // Param / struct member of an entry point: @builtin(name), else empty
  bool used = false;    // referenced by some function reachable from an entry point
};

struct StructMember {
  std::string name;
  Span span;
  std::vector<Attribute> attrs;
  Expr* type_expr = nullptr;
  // sema:
  const Type* type = nullptr;
  uint32_t offset = 0, align = 0;
  uint64_t size = 0;
  std::string builtin;  // @builtin on an entry point I/O struct member
};

struct StructDecl : Decl {
  StructDecl() : Decl(DeclKind::Struct) {}
  std::vector<StructMember> members;
  // sema:
  const Type* type = nullptr;
};

struct AliasDecl : Decl {
  AliasDecl() : Decl(DeclKind::Alias) {}
  Expr* type_expr = nullptr;
  // sema:
  const Type* type = nullptr;
};

struct Stmt;

enum class Stage : uint8_t { None, Compute, Vertex, Fragment };

struct FnDecl : Decl {
  FnDecl() : Decl(DeclKind::Fn) {}
  std::vector<VarDecl*> params;  // kind Param
  Expr* return_type = nullptr;   // null for no return value
  std::vector<Attribute> return_attrs;
  Stmt* body = nullptr;  // a Block

  // sema:
  Stage stage = Stage::None;
  uint32_t workgroup_size[3] = {1, 1, 1};
  const Expr* workgroup_size_expr[3] = {nullptr, nullptr, nullptr};  // when an override
  const Type* return_type_resolved = nullptr;                        // Void type when none
  std::vector<FnDecl*> callees;        // user functions called, in first-call order
  std::vector<VarDecl*> globals_used;  // module-scope vars/overrides used, directly
};

// ---- Statements -------------------------------------------------------------------------------

enum class StmtKind : uint8_t {
  Block,      // { body }
  Decl,       // var / let / const in a function: decl
  Assign,     // lhs = rhs, lhs op= rhs (op != None), `_ = rhs` (lhs null: phony assignment)
  Increment,  // lhs++
  Decrement,  // lhs--
  Call,       // a function call statement: expr (a Call)
  Return,     // return expr?
  If,         // if cond body else_?   (else_ is a Block or an If)
  Switch,     // switch expr { cases }
  Loop,       // loop { body continuing { continuing } }  (continuing may hold break_if)
  For,        // for (init; cond; update) body
  While,      // while cond body
  Break,
  BreakIf,  // `break if expr;` (last statement of a continuing block)
  Continue,
  Discard,
  ConstAssert,  // const_assert expr
};

struct SwitchCase {
  std::vector<Expr*> selectors;  // empty with is_default and no selectors
  bool has_default = false;      // `default` alone or among the selectors
  Stmt* body = nullptr;          // a Block
  Span span;
};

struct Stmt {
  StmtKind kind = StmtKind::Block;
  Span span;
  std::vector<Attribute> attrs;  // statement attributes (e.g. @diagnostic); kept, not used
  std::vector<Stmt*> body;       // Block
  VarDecl* decl = nullptr;       // Decl
  Expr* lhs = nullptr;           // Assign/Increment/Decrement
  Expr* expr = nullptr;    // Assign: rhs; Call; Return value; If/While/BreakIf/ConstAssert: cond;
                           // Switch: selector; For: cond (may be null)
  Op op = Op::None;        // compound assignment's operator
  Stmt* then = nullptr;    // If: the Block; For/While/Loop: the body Block
  Stmt* else_ = nullptr;   // If
  Stmt* init = nullptr;    // For (Decl, Assign, Increment, Decrement or Call), may be null
  Stmt* update = nullptr;  // For (Assign, Increment, Decrement or Call), may be null
  Stmt* continuing = nullptr;  // Loop: the continuing Block, may be null
  std::vector<SwitchCase> cases;
};

// ---- The module -------------------------------------------------------------------------------

struct Directive {
  enum class Kind : uint8_t { Enable, Requires, Diagnostic } kind;
  std::vector<std::string> names;  // enable f16, subgroups; requires ...; diagnostic(sev, rule)
  Span span;
};

struct Module {
  std::string file;  // for diagnostics
  std::vector<Directive> directives;
  std::vector<Decl*> decls;          // module-scope declarations in source order
  std::vector<Expr*> const_asserts;  // module-scope const_assert expressions

  // sema:
  bool enables_f16 = false, enables_subgroups = false;

  // The arena.
  template <class T, class... A>
  T* make(A&&... a) {
    auto p = std::make_unique<T>(std::forward<A>(a)...);
    T* raw = p.get();
    if constexpr (std::is_base_of_v<Decl, T>)
      decls_owned.push_back(std::move(p));
    else if constexpr (std::is_same_v<T, Expr>)
      exprs_owned.push_back(std::move(p));
    else
      stmts_owned.push_back(std::move(p));
    return raw;
  }
  // Types are interned by sema (same structure -> same pointer); owned here.
  std::deque<Type> types;

 private:
  std::vector<std::unique_ptr<Decl>> decls_owned;
  std::vector<std::unique_ptr<Expr>> exprs_owned;
  std::vector<std::unique_ptr<Stmt>> stmts_owned;
};

}  // namespace wgslvk::wgsl
