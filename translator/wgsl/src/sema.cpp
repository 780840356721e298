// The resolver and type checker: WGSL's scoping, types, const-expressions and overrides, the
// validation rules of createShaderModule (and, with pipeline constants, of the pipeline's
// overrides), filling every `// sema:` field of ast.hpp. Messages follow Tint's wording where
// there is one. Errors never stop the walk early unless going on could only repeat them: a
// failed sub-expression yields no type and its parents stay silent.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "../../src/layout.hpp"
#include "passes.hpp"
#include "sema_internal.hpp"

namespace wgslvk::wgsl {

namespace {

using K = Type::Kind;
using translator::round_up;

// When an expression's value is known: at shader creation (const), at pipeline creation
// (override), or only at run time.
enum class EvalStage : uint8_t { Const, Override, Runtime };

// Bounds that keep hostile input from exhausting the stack or memory.
constexpr int kMaxResolveDepth = 256;            // nested lazy resolutions of module declarations
constexpr uint64_t kMaxConstScalars = 1u << 16;  // scalars in one const value
constexpr uint64_t kMaxConstWork = 1u << 22;     // scalars in all const values of a module

uint64_t scalar_count(const Type* t) {
  switch (t->kind) {
    case K::Array: {
      uint64_t e = scalar_count(t->elem);
      return t->count > UINT64_MAX / std::max<uint64_t>(e, 1) ? UINT64_MAX : t->count * e;
    }
    case K::Struct: {
      uint64_t s = 0;
      for (const auto& m : t->decl->members)
        s = std::min<uint64_t>(UINT64_MAX / 2, s + scalar_count(m.type));
      return s;
    }
    default:
      return component_count(t);
  }
}

const char* const kComputeBuiltins[][2] = {{"local_invocation_id", "vec3<u32>"},
                                           {"local_invocation_index", "u32"},
                                           {"global_invocation_id", "vec3<u32>"},
                                           {"workgroup_id", "vec3<u32>"},
                                           {"num_workgroups", "vec3<u32>"},
                                           {"subgroup_invocation_id", "u32"},
                                           {"subgroup_size", "u32"}};
const std::set<std::string_view> kOtherStageBuiltins = {
    "vertex_index", "instance_index", "position",       "front_facing",   "frag_depth",
    "sample_index", "sample_mask",    "clip_distances", "primitive_index"};

bool is_enumerant_space(std::string_view s) {
  return s == "function" || s == "private" || s == "workgroup" || s == "uniform" || s == "storage";
}

struct Scope {
  std::unordered_map<std::string, Decl*> names;
};

class Sema {
 public:
  Sema(Module& m, const std::map<std::string, double>& constants, Diags& d)
      : m_(m), constants_(constants), d_(d), tt_(m) {}

  bool run() {
    directives();
    // Module scope: every declaration visible everywhere (no duplicates).
    for (Decl* decl : m_.decls) {
      if (decl->name.empty()) continue;
      auto [it, fresh] = globals_.emplace(decl->name, decl);
      if (!fresh)
        error(decl->span, "resolve",
              "redeclaration of '" + decl->name + "' (previously declared at line " +
                  std::to_string(it->second->span.line) + ")");
    }
    for (Decl* decl : m_.decls) resolve_decl(decl);
    for (Expr* e : m_.const_asserts) const_assert(e);
    for (Decl* decl : m_.decls)
      if (decl->kind == DeclKind::Fn) function_body(static_cast<FnDecl*>(decl));
    apply_unknown_constants();
    assign_override_ids();
    call_graph();
    if (d_.ok()) alias_analysis();
    return d_.ok();
  }

 private:
  Module& m_;
  const std::map<std::string, double>& constants_;
  Diags& d_;
  TypeTable tt_;

  std::unordered_map<std::string, Decl*> globals_;
  std::vector<Scope> scopes_;
  std::unordered_map<const Decl*, int> state_;  // 1: resolving, 2: resolved
  std::vector<const Decl*> resolving_;
  std::unordered_map<const Expr*, EvalStage> stage_;
  std::unordered_map<const Expr*, ConstValue> override_values_;
  uint64_t const_work_ = 0;
  bool const_work_reported_ = false;
  std::map<uint32_t, const VarDecl*> override_ids_;

  // The function whose body is being checked, and where in it.
  FnDecl* fn_ = nullptr;
  // Calls of stage-restricted builtins in functions that are not entry points, checked against
  // the entry points that call them.
  static constexpr unsigned kComputeBit = 1, kFragmentBit = 2, kVertexBit = 4;
  static unsigned stage_bit(Stage s) {
    return s == Stage::Compute ? kComputeBit : s == Stage::Fragment ? kFragmentBit : kVertexBit;
  }
  struct StageCall {
    Span at;
    unsigned allowed;               // stage bits
    const char* what = "built-in";  // what is restricted: a builtin call, `discard`
  };
  std::unordered_map<const FnDecl*, std::vector<StageCall>> stage_calls_;

  // WGSL's alias analysis (spec "Alias Analysis", as Tint): per function, which pointer
  // parameters and module-scope variables it reads and writes (through its callees too); at each
  // call, two pointer arguments with the same root variable, or a pointer argument whose root
  // variable the callee also uses directly, are an error when either access writes.
  struct Accesses {
    std::unordered_map<const Decl*, unsigned> of;  // pointer parameter or module-scope var -> bits
  };
  static constexpr unsigned kRead = 1, kWrite = 2;
  struct AliasCall {
    const FnDecl* callee;
    std::vector<std::pair<size_t, const Decl*>> roots;  // pointer argument index -> its root
    std::vector<Span> spans;
  };
  std::unordered_map<const FnDecl*, Accesses> accesses_;
  std::unordered_map<const FnDecl*, std::vector<AliasCall>> alias_calls_;

  // The root variable (or pointer parameter) of a reference or pointer expression; nullptr if
  // none (a call's result, ...). Pointer `let`s are followed to their initializer.
  const Decl* alias_root(const Expr* e) {
    for (int guard = 0; e && guard < 100000; guard++) {
      if (e->kind == ExprKind::Ident) {
        const Decl* d = e->decl;
        if (d && d->kind == DeclKind::Let) {
          const auto* v = static_cast<const VarDecl*>(d);
          if (v->type && v->type->kind == K::Pointer && v->initializer) {
            e = v->initializer;
            continue;
          }
        }
        return d;
      }
      if (e->kind == ExprKind::Member || e->kind == ExprKind::Index ||
          (e->kind == ExprKind::Unary && (e->op == Op::Deref || e->op == Op::AddrOf))) {
        e = e->args.empty() ? nullptr : e->args[0];
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }

  void note_access(const Expr* e, unsigned bits) {
    if (!fn_) return;
    const Decl* r = alias_root(e);
    if (!r) return;
    if (r->kind == DeclKind::Param ||
        (r->kind == DeclKind::Var && static_cast<const VarDecl*>(r)->module_scope))
      accesses_[fn_].of[r] |= bits;
  }

  void alias_analysis() {
    // Callees first (the call graph has no recursion here), then each call site.
    std::vector<const FnDecl*> order;
    std::unordered_set<const FnDecl*> seen;
    for (Decl* d : m_.decls) {
      if (d->kind != DeclKind::Fn) continue;
      std::vector<std::pair<const FnDecl*, size_t>> stack{{static_cast<FnDecl*>(d), 0}};
      if (!seen.insert(stack.back().first).second) continue;
      while (!stack.empty()) {
        auto& [f, next] = stack.back();
        if (next < f->callees.size()) {
          const FnDecl* c = f->callees[next++];
          if (seen.insert(c).second) stack.push_back({c, 0});
          continue;
        }
        order.push_back(f);
        stack.pop_back();
      }
    }
    for (const FnDecl* f : order) {
      Accesses& mine = accesses_[f];
      for (const AliasCall& c : alias_calls_[f]) {
        const Accesses& theirs = accesses_[c.callee];
        auto param_bits = [&](size_t i) -> unsigned {
          if (i >= c.callee->params.size()) return 0;
          auto it = theirs.of.find(c.callee->params[i]);
          return it == theirs.of.end() ? 0 : it->second;
        };
        // Report the first violation of this call.
        bool reported = false;
        for (size_t a = 0; a < c.roots.size() && !reported; a++) {
          for (size_t b = a + 1; b < c.roots.size() && !reported; b++)
            if (c.roots[a].second == c.roots[b].second &&
                ((param_bits(c.roots[a].first) | param_bits(c.roots[b].first)) & kWrite) &&
                param_bits(c.roots[a].first) && param_bits(c.roots[b].first)) {
              error(c.spans[b], "type", "invalid aliased pointer argument");
              reported = true;
            }
          const Decl* r = c.roots[a].second;
          if (reported || r->kind != DeclKind::Var) continue;
          auto g = theirs.of.find(r);
          const unsigned pb = param_bits(c.roots[a].first);
          if (g != theirs.of.end() && pb && ((g->second | pb) & kWrite)) {
            error(c.spans[a], "type",
                  "invalid aliased pointer argument (the callee also uses '" + r->name +
                      "' directly)");
            reported = true;
          }
        }
        // The callee's accesses become the caller's: its module-scope variables, and through
        // each pointer argument the argument's root.
        for (const auto& [d, bits] : theirs.of)
          if (d->kind == DeclKind::Var) mine.of[d] |= bits;
        for (const auto& [i, r] : c.roots)
          if (unsigned pb = param_bits(i);
              pb && (r->kind == DeclKind::Param ||
                     (r->kind == DeclKind::Var && static_cast<const VarDecl*>(r)->module_scope)))
            mine.of[r] |= pb;
      }
    }
  }
  static std::string stage_text(Stage s) {
    return s == Stage::Vertex ? "vertex" : s == Stage::Fragment ? "fragment" : "compute";
  }
  // Enclosing loops ('L'), switch cases ('S') and continuing blocks ('C'), innermost last.
  std::string ctx_;
  const Stmt* allowed_break_if_ = nullptr;  // the last statement of the innermost continuing
  // Module-scope vars/overrides each module declaration and function uses directly.
  std::unordered_map<const Decl*, std::vector<VarDecl*>> deps_;
  const Decl* deps_owner_ = nullptr;
  std::unordered_map<const FnDecl*, std::vector<std::pair<FnDecl*, Span>>> calls_;

  // ---- diagnostics ----------------------------------------------------------------------------

  void error(Span at, const char* rule, std::string msg) {
    // The right side of `&&`/`||` whose const left side decides is typed, not evaluated: its
    // const-eval errors are not errors (Tint's rule; the CTS's short_circuiting_and_or).
    if (skip_const_eval_ && std::string_view(rule) == "const-eval") return;
    d_.error(at, rule, std::move(msg));
  }
  int skip_const_eval_ = 0;

  // An override-expression's error inside a function body (a zero divisor, clamp's low > high):
  // a pipeline-creation error of every entry point that reaches the function (call_graph()
  // hands them to Diags::pipeline); outside a function, an error now.
  struct PendingError {
    Span at;
    std::string rule, message;
  };
  std::unordered_map<const FnDecl*, std::vector<PendingError>> fn_pipeline_errors_;
  // In a module-scope declaration (an override's initializer, an override-sized array): an
  // error of the entry points that use the declaration (Tint evaluates override-expressions at
  // pipeline creation only); an alias's is never reported (Tint: unused, it is never checked).
  std::unordered_map<const Decl*, std::vector<PendingError>> decl_pipeline_errors_;
  const Decl* pending_decl_ = nullptr;
  void override_error(Span at, const char* rule, std::string msg) {
    if (skip_const_eval_ && std::string_view(rule) == "const-eval") return;
    if (fn_)
      fn_pipeline_errors_[fn_].push_back({at, rule, std::move(msg)});
    else if (pending_decl_)
      decl_pipeline_errors_[pending_decl_].push_back({at, rule, std::move(msg)});
    else
      error(at, rule, std::move(msg));
  }
  // A const-eval error of an expression of stage `s`: an override-expression's is a pipeline
  // error.
  void eval_error(Span at, EvalStage s, std::string msg) {
    if (s == EvalStage::Override)
      override_error(at, "const-eval", std::move(msg));
    else
      error(at, "const-eval", std::move(msg));
  }

  // ---- directives -----------------------------------------------------------------------------

  void directives() {
    for (const Directive& dir : m_.directives) {
      if (dir.kind == Directive::Kind::Enable) {
        for (const auto& n : dir.names) {
          if (n == "f16")
            m_.enables_f16 = true;
          else if (n == "subgroups")
            m_.enables_subgroups = true;
          else if (n == "subgroups_f16" || n == "clip_distances" || n == "dual_source_blending" ||
                   n == "chromium_experimental_subgroup_matrix")
            // Valid WGSL, but its device feature is never offered by wgslvk (render-only or not
            // enabled), and enabling an extension without the feature is invalid (WebGPU).
            error(dir.span, "extension",
                  "the extension '" + n + "' needs a device feature wgslvk does not offer");
          else
            error(dir.span, "extension", "unknown extension: '" + n + "'");
        }
      } else if (dir.kind == Directive::Kind::Requires) {
        // The language features wgslvk offers (the CTS provider's wgslLanguageFeatures lists the
        // same). readonly_and_readwrite_storage_textures is a statement about the language: the
        // read and read_write storage texture access modes and textureBarrier, which the front end
        // types (and the CTS's uniformity and parse tests use whatever the language features);
        // textures themselves are not run (the provider refuses creating one, clearly).
        static const std::set<std::string> known = {
            "packed_4x8_integer_dot_product", "unrestricted_pointer_parameters",
            "pointer_composite_access", "readonly_and_readwrite_storage_textures"};
        for (const auto& n : dir.names)
          if (!known.count(n)) error(dir.span, "extension", "feature '" + n + "' is not supported");
      }
    }
  }

  void need_f16(Span at) {
    if (!m_.enables_f16) error(at, "extension", "f16 type used without 'f16' extension enabled");
  }

  // ---- scopes ---------------------------------------------------------------------------------

  Decl* lookup(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->names.find(name);
      if (f != it->names.end()) return f->second;
    }
    auto g = globals_.find(name);
    return g == globals_.end() ? nullptr : g->second;
  }

  void declare(Decl* decl) {
    if (scopes_.empty()) return;
    auto [it, fresh] = scopes_.back().names.emplace(decl->name, decl);
    if (!fresh)
      error(decl->span, "resolve",
            "redeclaration of '" + decl->name + "' (previously declared at line " +
                std::to_string(it->second->span.line) + ":" + std::to_string(it->second->span.col) +
                ")");
  }

  // ---- values and stages ----------------------------------------------------------------------

  EvalStage stage(const Expr* e) {
    auto it = stage_.find(e);
    return it == stage_.end() ? EvalStage::Runtime : it->second;
  }
  const ConstValue* value(const Expr* e) {
    if (e->value) return &*e->value;
    auto it = override_values_.find(e);
    return it == override_values_.end() ? nullptr : &it->second;
  }
  void set_value(Expr* e, EvalStage s, std::optional<ConstValue> v) {
    stage_[e] = s;
    if (!v) return;
    // Every value held costs its scalars: bounded so that copies of a large constant cannot
    // exhaust memory.
    const_work_ += scalar_count(v->type);
    if (const_work_ > kMaxConstWork) {
      if (!const_work_reported_)
        error(e->span, "limit",
              "the module's const-expressions hold more than " + std::to_string(kMaxConstWork) +
                  " scalars in all; this front end evaluates less");
      const_work_reported_ = true;
      return;
    }
    if (s == EvalStage::Const)
      e->value = std::move(v);
    else if (s == EvalStage::Override)
      override_values_[e] = std::move(*v);
  }

  static const Type* load(const Type* t) { return t && t->kind == K::Reference ? t->elem : t; }

  // Converts an abstract expression in place to the concrete type it is used as (WGSL's
  // automatic conversion): its type and value become the converted ones. Returns false (with a
  // diagnostic) when the value does not fit.
  bool materialize(Expr* e, const Type* to) {
    if (!e->type || e->type == to || !to) return true;
    const Type* from = load(e->type);
    if (from == to) return true;
    if (!from->is_abstract()) return true;
    if (const ConstValue* v = value(e)) {
      std::string err;
      auto c = convert_value(tt_, *v, to, err);
      if (!c) {
        eval_error(e->span, stage(e), err);
        e->type = to;
        e->value.reset();
        return false;
      }
      if (e->value)
        e->value = std::move(*c);
      else
        override_values_[e] = std::move(*c);
    }
    e->type = to;
    if (e->kind == ExprKind::Call && e->target == CallTarget::Constructor) {
      e->names_type = to;
      if (e->callee) e->callee->names_type = to;
    }
    return true;
  }

  // Checks `e` can be used as a value of type `to` (loading a reference, converting an abstract
  // value); reports a "type" error naming `what` otherwise.
  bool convert_to(Expr* e, const Type* to, const std::string& what) {
    const Type* from = load(e->type);
    if (!from || !to) return false;
    if (from == to) return true;
    if (conversion_rank(from, to)) return materialize(e, to);
    error(e->span, "type",
          "cannot convert value of type '" + from->wgsl() + "' to type '" + to->wgsl() + "'" +
              (what.empty() ? "" : " (" + what + ")"));
    return false;
  }

  // A value that must have a concrete type (let, var initializers, arguments...).
  const Type* concrete(Expr* e) {
    const Type* t = load(e->type);
    if (!t) return nullptr;
    if (const Type* c = concrete_result_struct(t)) {
      // frexp/modf of an abstract float (always a const-expression): the value converts to the
      // f32 result structure, as WGSL concretizes __frexp_result_abstract & co.
      if (const ConstValue* v = value(e)) {
        std::string err;
        auto cv = convert_value(tt_, *v, c, err);
        if (!cv) {
          error(e->span, "const-eval", err);
          return c;
        }
        if (e->value)
          e->value = std::move(*cv);
        else
          override_values_[e] = std::move(*cv);
      }
      e->type = c;
      return c;
    }
    if (t->is_abstract()) {
      const Type* c = tt_.concretize(t);
      materialize(e, c);
      return c;
    }
    return t;
  }

  // The f32 result structure of frexp/modf for an abstract one (`__frexp_result_abstract`,
  // `__modf_result_vec3_abstract`, ...); nullptr for any other type.
  const Type* concrete_result_struct(const Type* t) {
    if (!t || t->kind != K::Struct || !t->decl || t->decl->members.empty()) return nullptr;
    const std::string& n = t->decl->name;
    const std::string tail = "_abstract";
    if (n.size() <= tail.size() || n.compare(n.size() - tail.size(), tail.size(), tail) != 0)
      return nullptr;
    bool frexp = n.rfind("__frexp_result", 0) == 0;
    if (!frexp && n.rfind("__modf_result", 0) != 0) return nullptr;
    const Type* arg = tt_.concretize(t->decl->members[0].type);
    BuiltinMatch bm = match_builtin(tt_, m_, frexp ? "frexp" : "modf", {}, {arg});
    return bm.result;
  }

  // ---- module declarations (resolved lazily: visible before their declaration) ---------------

  // Resolves a module-scope declaration on demand; false on a cycle.
  bool resolve_decl(Decl* decl) {
    int& st = state_[decl];
    if (st == 2) return true;
    if (st == 1) {
      std::string chain;
      bool in = false;
      for (const Decl* r : resolving_) {
        if (r == decl) in = true;
        if (in) chain += "'" + r->name + "' -> ";
      }
      error(decl->span, "resolve", "cyclic dependency found: " + chain + "'" + decl->name + "'");
      return false;
    }
    if (resolving_.size() >= size_t(kMaxResolveDepth)) {
      error(decl->span, "limit",
            "declarations depend on each other more than " + std::to_string(kMaxResolveDepth) +
                " levels deep");
      return false;
    }
    st = 1;
    resolving_.push_back(decl);
    // A module declaration sees module scope only: hide the function scopes meanwhile.
    std::vector<Scope> saved_scopes;
    std::swap(saved_scopes, scopes_);
    FnDecl* saved_fn = fn_;
    fn_ = nullptr;
    const Decl* saved_owner = deps_owner_;
    deps_owner_ = decl;
    const Decl* saved_pending = std::exchange(pending_decl_, decl);
    switch (decl->kind) {
      case DeclKind::Struct:
        struct_decl(static_cast<StructDecl*>(decl));
        break;
      case DeclKind::Alias: {
        auto* a = static_cast<AliasDecl*>(decl);
        a->type = resolve_type(a->type_expr);
        break;
      }
      case DeclKind::Fn:
        fn_signature(static_cast<FnDecl*>(decl));
        break;
      default:
        module_var(static_cast<VarDecl*>(decl));
        break;
    }
    deps_owner_ = saved_owner;
    pending_decl_ = saved_pending;
    fn_ = saved_fn;
    std::swap(saved_scopes, scopes_);
    resolving_.pop_back();
    state_[decl] = 2;
    return true;
  }

  void use_global(VarDecl* v) {
    const Decl* owner = fn_ ? fn_ : deps_owner_;
    if (!owner) return;
    auto& list = deps_[owner];
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  }

  // ---- types ----------------------------------------------------------------------------------

  std::optional<uint32_t> vec_width(std::string_view n) {
    if (n.size() >= 4 && n.substr(0, 3) == "vec" && n[3] >= '2' && n[3] <= '4') return n[3] - '0';
    return std::nullopt;
  }

  const Type* suffix_scalar(char c) {
    switch (c) {
      case 'f':
        return tt_.f32();
      case 'h':
        return tt_.f16();
      case 'i':
        return tt_.i32();
      case 'u':
        return tt_.u32();
      default:
        return nullptr;
    }
  }

  // Predeclared type names without template arguments (f32, vec4f, mat2x2h, ...); nullptr if
  // `n` is not one. `partial` is set for vec2/mat3x3/array written without template arguments.
  const Type* predeclared_type(const std::string& n, Span at, bool* partial = nullptr) {
    if (n == "bool") return tt_.bool_();
    if (n == "i32") return tt_.i32();
    if (n == "u32") return tt_.u32();
    if (n == "f32") return tt_.f32();
    if (n == "f16") {
      need_f16(at);
      return tt_.f16();
    }
    if (auto w = vec_width(n)) {
      if (n.size() == 4) {
        if (partial) *partial = true;
        return nullptr;
      }
      if (n.size() == 5 && n[4] != 'b')
        if (const Type* s = suffix_scalar(n[4])) {
          if (s == tt_.f16()) need_f16(at);
          return tt_.vec(s, *w);
        }
      return nullptr;
    }
    if (n.size() >= 6 && n.substr(0, 3) == "mat" && n[4] == 'x' && n[3] >= '2' && n[3] <= '4' &&
        n[5] >= '2' && n[5] <= '4') {
      if (n.size() == 6) {
        if (partial) *partial = true;
        return nullptr;
      }
      if (n.size() == 7 && (n[6] == 'f' || n[6] == 'h')) {
        if (n[6] == 'h') need_f16(at);
        return tt_.mat(suffix_scalar(n[6]), n[3] - '0', n[5] - '0');
      }
      return nullptr;
    }
    if (n == "array" || n == "atomic" || n == "ptr") {
      if (partial) *partial = true;
      return nullptr;
    }
    return nullptr;
  }

  bool is_type_name(const std::string& n) {
    static const std::set<std::string> templated = {"array", "atomic", "ptr",
                                                    "vec2",  "vec3",   "vec4"};
    if (templated.count(n)) return true;
    if (n == "bool" || n == "i32" || n == "u32" || n == "f32" || n == "f16") return true;
    if (vec_width(n) && n.size() == 5 && std::string("fhiu").find(n[4]) != std::string::npos)
      return true;
    if (n.size() >= 6 && n.substr(0, 3) == "mat" && n[4] == 'x' && n[3] >= '2' && n[3] <= '4' &&
        n[5] >= '2' && n[5] <= '4' &&
        (n.size() == 6 || (n.size() == 7 && (n[6] == 'f' || n[6] == 'h'))))
      return true;
    return n.substr(0, 8) == "texture_" || n == "sampler" || n == "sampler_comparison";
  }

  // A scalar element type for vec/mat template arguments.
  const Type* element_type(Expr* arg, bool matrix) {
    const Type* t = resolve_type(arg);
    if (!t) return nullptr;
    bool ok = matrix ? (t->kind == K::F32 || t->kind == K::F16)
                     : (t->is_scalar() && t->kind != K::AbstractInt && t->kind != K::AbstractFloat);
    if (!ok) {
      error(arg->span, "type",
            std::string(matrix ? "matrix" : "vector") + " element type must be " +
                (matrix ? "'f32' or 'f16'" : "a scalar") + ", not '" + t->wgsl() + "'");
      return nullptr;
    }
    return t;
  }

  std::optional<AddressSpace> space_of(const Expr* e) {
    if (!e || e->kind != ExprKind::Ident || !e->template_args.empty()) return std::nullopt;
    const std::string& s = e->text;
    if (s == "function") return AddressSpace::Function;
    if (s == "private") return AddressSpace::Private;
    if (s == "workgroup") return AddressSpace::Workgroup;
    if (s == "uniform") return AddressSpace::Uniform;
    if (s == "storage") return AddressSpace::Storage;
    if (s == "handle") return std::nullopt;
    return std::nullopt;
  }
  // Access modes (and address spaces) are enumerants a declaration of the same name hides
  // (WGSL's scoping; the CTS's shadow_hides_access_mode).
  std::optional<Access> access_of(const Expr* e) {
    if (!e || e->kind != ExprKind::Ident || !e->template_args.empty()) return std::nullopt;
    if (lookup(e->text)) return std::nullopt;
    if (e->text == "read") return Access::Read;
    if (e->text == "write") return Access::Write;
    if (e->text == "read_write") return Access::ReadWrite;
    return std::nullopt;
  }

  // The expression naming an override-sized array's count: array<T, x> is the same type
  // wherever x is the same override named alone (WGSL's type identity; the CTS's
  // types,array:valid same_override), so the first such expression stands for the others.
  std::unordered_map<const Decl*, const Expr*> override_counts_;
  const Expr* override_count(const Expr* e) {
    if (e->kind != ExprKind::Ident || !e->decl || e->decl->kind != DeclKind::Override) return e;
    return override_counts_.emplace(e->decl, e).first->second;
  }

  // An element count: a const-expression (or an override-expression, giving count_override)
  // of integer type, > 0.
  std::optional<std::pair<uint64_t, const Expr*>> array_count(Expr* e) {
    // A type's array count is evaluated even on a short-circuited right side.
    const int skip = std::exchange(skip_const_eval_, 0);
    const Type* t = check_value(e);
    skip_const_eval_ = skip;
    if (!t) return std::nullopt;
    if (!(t->kind == K::AbstractInt || t->kind == K::I32 || t->kind == K::U32)) {
      error(
          e->span, "type",
          "array count must evaluate to a constant integer expression or override variable, not '" +
              t->wgsl() + "'");
      return std::nullopt;
    }
    EvalStage s = stage(e);
    if (s == EvalStage::Runtime) {
      error(e->span, "type",
            "array count must evaluate to a constant integer expression or override variable");
      return std::nullopt;
    }
    const ConstValue* v = value(e);
    if (!v) {
      if (s == EvalStage::Override) return std::make_pair(uint64_t(0), override_count(e));
      return std::nullopt;  // already reported
    }
    int64_t n = as_int(v->scalars.at(0));
    // An override's count is checked when the pipeline is created (its value may change).
    if (n < 1 || n > int64_t(UINT32_MAX)) {
      std::string msg = "array count (" + std::to_string(n) + ") must " +
                        (n < 1 ? "be greater than 0" : "fit in a u32");
      if (s != EvalStage::Override) {
        error(e->span, "type", msg);
        return std::nullopt;
      }
      override_error(e->span, "type", msg);
      return std::make_pair(uint64_t(0), override_count(e));
    }
    return std::make_pair(uint64_t(n), s == EvalStage::Override ? override_count(e) : nullptr);
  }

  // Resolves a type expression (an identifier, maybe templated). nullptr after a diagnostic.
  const Type* resolve_type(Expr* e) {
    if (!e) return nullptr;
    if (e->kind != ExprKind::Ident) {
      error(e->span, "type", "expected a type");
      return nullptr;
    }
    const Type* t = resolve_type_ident(e);
    e->names_type = t;
    return t;
  }

  const Type* resolve_type_ident(Expr* e) {
    const std::string& n = e->text;
    auto& ta = e->template_args;
    if (Decl* decl = lookup(n)) {
      if (decl->kind == DeclKind::Struct || decl->kind == DeclKind::Alias) {
        if (!ta.empty()) {
          error(e->span, "type", "type '" + n + "' does not take template arguments");
          return nullptr;
        }
        e->decl = decl;
        if (!resolve_decl(decl)) return nullptr;
        return decl->kind == DeclKind::Struct ? static_cast<StructDecl*>(decl)->type
                                              : static_cast<AliasDecl*>(decl)->type;
      }
      error(e->span, "type", "cannot use " + decl_kind_name(decl) + " '" + n + "' as type");
      return nullptr;
    }
    bool partial = false;
    if (const Type* t = predeclared_type(n, e->span, &partial)) {
      if (!ta.empty()) {
        error(e->span, "type", "type '" + n + "' does not take template arguments");
        return nullptr;
      }
      return t;
    }
    if (auto w = vec_width(n); w && n.size() == 4) {
      if (ta.size() != 1) {
        error(e->span, "type", "'" + n + "' requires 1 template argument");
        return nullptr;
      }
      const Type* el = element_type(ta[0], false);
      return el ? tt_.vec(el, *w) : nullptr;
    }
    if (n.size() == 6 && n.substr(0, 3) == "mat" && partial) {
      if (ta.size() != 1) {
        error(e->span, "type", "'" + n + "' requires 1 template argument");
        return nullptr;
      }
      const Type* el = element_type(ta[0], true);
      return el ? tt_.mat(el, n[3] - '0', n[5] - '0') : nullptr;
    }
    if (n == "atomic") {
      if (ta.size() != 1) {
        error(e->span, "type", "'atomic' requires 1 template argument");
        return nullptr;
      }
      const Type* el = resolve_type(ta[0]);
      if (!el) return nullptr;
      if (el->kind != K::I32 && el->kind != K::U32) {
        error(ta[0]->span, "type",
              "atomic only supports i32 or u32 types, not '" + el->wgsl() + "'");
        return nullptr;
      }
      return tt_.atomic(el);
    }
    if (n == "array") {
      if (ta.empty() || ta.size() > 2) {
        error(e->span, "type", "'array' requires 1 or 2 template arguments");
        return nullptr;
      }
      const Type* el = resolve_type(ta[0]);
      if (!el) return nullptr;
      if (!is_plain(el) || contains_runtime_array(el) ||
          (el->kind == K::Array && el->count_override)) {
        error(ta[0]->span, "type",
              "'" + el->wgsl() + "' cannot be used as an element type of an array");
        return nullptr;
      }
      if (ta.size() == 1) return tt_.array(el, 0);
      auto count = array_count(ta[1]);
      if (!count) return nullptr;
      if (count->first * uint64_t(round_up(el->align, el->size)) > UINT32_MAX) {
        error(e->span, "type",
              "array byte size 0x" + std::to_string(count->first * round_up(el->align, el->size)) +
                  " must not exceed 0xffffffff bytes");
        return nullptr;
      }
      return tt_.array(el, count->first, count->second);
    }
    if (n == "ptr") {
      if (ta.size() < 2 || ta.size() > 3) {
        error(e->span, "type", "'ptr' requires 2 or 3 template arguments");
        return nullptr;
      }
      auto space = space_of(ta[0]);
      if (!space) {
        error(ta[0]->span, "type", "unresolved address space '" + expr_text(ta[0]) + "'");
        return nullptr;
      }
      const Type* el = resolve_type(ta[1]);
      if (!el) return nullptr;
      Access acc = *space == AddressSpace::Storage || *space == AddressSpace::Uniform
                       ? Access::Read
                       : Access::ReadWrite;
      if (ta.size() == 3) {
        auto a = access_of(ta[2]);
        if (!a) {
          error(ta[2]->span, "type", "unresolved access mode '" + expr_text(ta[2]) + "'");
          return nullptr;
        }
        if (*space != AddressSpace::Storage) {
          error(ta[2]->span, "address-space",
                "only pointers in <storage> address space may specify an access mode");
          return nullptr;
        }
        if (*a == Access::Write) {
          error(ta[2]->span, "address-space",
                "access mode 'write' is not valid for the 'storage' address space");
          return nullptr;
        }
        acc = *a;
      }
      if (!store_type_ok(el, *space, ta[1]->span, "pointer")) return nullptr;
      return tt_.ptr(*space, el, acc);
    }
    if (n == "sampler" || n == "sampler_comparison") {
      if (!ta.empty()) {
        error(e->span, "type", "type '" + n + "' does not take template arguments");
        return nullptr;
      }
      return tt_.sampler(n == "sampler_comparison");
    }
    if (const Type* t = texture_type(e); t || n.substr(0, 8) == "texture_") return t;
    if (is_enumerant_space(n) || n == "read" || n == "write" || n == "read_write") {
      error(e->span, "type", "cannot use enumerant '" + n + "' as type");
      return nullptr;
    }
    if (is_builtin_function(n)) {
      error(e->span, "type", "cannot use builtin function '" + n + "' as type");
      return nullptr;
    }
    error(e->span, "resolve", "unresolved type '" + n + "'");
    return nullptr;
  }

  // Texture types: checked as opaque handles (texture_type_names() says which take what).
  // nullptr if `e` names none (no diagnostic) or after a diagnostic.
  const Type* texture_type(Expr* e) {
    const std::string& n = e->text;
    auto& ta = e->template_args;
    const auto& names = texture_type_names();
    auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end()) {
      if (n.substr(0, 8) == "texture_") error(e->span, "resolve", "unresolved type '" + n + "'");
      return nullptr;
    }
    const uint32_t idx = uint32_t(it - names.begin());
    const bool sampled = idx <= 6, storage = n.substr(0, 16) == "texture_storage_";
    const size_t want = sampled ? 1 : storage ? 2 : 0;
    if (ta.size() != want) {
      error(e->span, "type",
            want == 0 ? "type '" + n + "' does not take template arguments"
                      : "'" + n + "' requires " + std::to_string(want) + " template argument" +
                            (want > 1 ? "s" : ""));
      return nullptr;
    }
    if (sampled) {
      const Type* st = resolve_type(ta[0]);
      if (!st) return nullptr;
      if (st->kind != K::F32 && st->kind != K::I32 && st->kind != K::U32) {
        error(ta[0]->span, "type",
              "the sampled type of '" + n + "' must be f32, i32 or u32, not '" + st->wgsl() + "'");
        return nullptr;
      }
      return tt_.texture(idx, st, 0, Access::None);
    }
    if (!storage) return tt_.texture(idx, nullptr, 0, Access::None);
    const auto& formats = texel_format_names();
    auto f = ta[0]->kind == ExprKind::Ident && ta[0]->template_args.empty()
                 ? std::find(formats.begin(), formats.end(), ta[0]->text)
                 : formats.end();
    if (f == formats.end()) {
      error(ta[0]->span, "type",
            "'" + expr_text(ta[0]) + "' is not a texel format of storage textures");
      return nullptr;
    }
    auto acc = access_of(ta[1]);
    if (!acc) {
      error(ta[1]->span, "type", "unresolved access mode '" + expr_text(ta[1]) + "'");
      return nullptr;
    }
    return tt_.texture(idx, nullptr, uint32_t(f - formats.begin()), *acc);
  }

  static std::string expr_text(const Expr* e) {
    return e->kind == ExprKind::Ident ? e->text : "expression";
  }

  static std::string decl_kind_name(const Decl* d) {
    switch (d->kind) {
      case DeclKind::Var:
        return "var";
      case DeclKind::Let:
        return "let";
      case DeclKind::Const:
        return "const";
      case DeclKind::Override:
        return "override";
      case DeclKind::Param:
        return "parameter";
      case DeclKind::Fn:
        return "function";
      case DeclKind::Struct:
        return "struct";
      case DeclKind::Alias:
        return "alias";
    }
    return "declaration";
  }

  // Store types of variables and pointers in each address space.
  bool store_type_ok(const Type* t, AddressSpace s, Span at, const char* what) {
    if (t->is_handle() && s != AddressSpace::Handle) {  // the handle space is never spelled
      error(at, "address-space",
            "type '" + t->wgsl() + "' cannot be used in address space '" + space_name(s) + "' (" +
                what + ")");
      return false;
    }
    if (s == AddressSpace::Storage || s == AddressSpace::Uniform) {
      if (!is_host_shareable(t)) {
        error(at, "address-space",
              "type '" + t->wgsl() + "' cannot be used in address space '" + space_name(s) +
                  "' as it is non-host-shareable");
        return false;
      }
      if (s == AddressSpace::Uniform && (contains_atomic(t) || contains_runtime_array(t))) {
        error(at, "address-space",
              "type '" + t->wgsl() +
                  "' cannot be used in address space 'uniform' as it is not constructible");
        return false;
      }
    }
    if (contains_runtime_array(t) && s != AddressSpace::Storage) {
      error(at, "address-space",
            std::string("runtime-sized arrays can only be used in the <storage> address space (") +
                what + " in '" + space_name(s) + "')");
      return false;
    }
    if (contains_atomic(t) && s != AddressSpace::Storage && s != AddressSpace::Workgroup) {
      error(at, "address-space",
            std::string("atomic variables must have <storage> or <workgroup> address space (") +
                what + " in '" + space_name(s) + "')");
      return false;
    }
    if (t->kind == K::Array && t->count_override && s != AddressSpace::Workgroup) {
      error(at, "address-space",
            "array with an 'override' element count can only be used as the store type of a "
            "'var<workgroup>'");
      return false;
    }
    return true;
  }

  // ---- structs --------------------------------------------------------------------------------

  std::optional<uint64_t> attr_u32(const Attribute& a, size_t i = 0) {
    if (a.args.size() <= i) {
      error(a.span, "attribute", "@" + a.name + " requires an argument");
      return std::nullopt;
    }
    Expr* e = a.args[i];
    const Type* t = check_value(e);
    if (!t) return std::nullopt;
    if (!(t->kind == K::AbstractInt || t->kind == K::I32 || t->kind == K::U32)) {
      error(e->span, "attribute", "@" + a.name + " must be an i32 or u32 value");
      return std::nullopt;
    }
    if (stage(e) != EvalStage::Const) {
      error(e->span, "attribute", "@" + a.name + " requires a const-expression");
      return std::nullopt;
    }
    const ConstValue* v = value(e);
    if (!v) return std::nullopt;
    int64_t n = as_int(v->scalars.at(0));
    if (n < 0 || n > int64_t(UINT32_MAX)) {
      error(e->span, "attribute", "@" + a.name + " value must be non-negative");
      return std::nullopt;
    }
    materialize(e, t->kind == K::AbstractInt ? tt_.i32() : t);
    return uint64_t(n);
  }

  void struct_decl(StructDecl* s) {
    uint64_t offset = 0;
    uint32_t align = 1;
    std::set<std::string> names;
    bool ok = true;
    for (size_t i = 0; i < s->members.size(); i++) {
      StructMember& mem = s->members[i];
      if (!names.insert(mem.name).second) {
        error(mem.span, "resolve", "redefinition of '" + mem.name + "'");
        ok = false;
      }
      const Type* t = resolve_type(mem.type_expr);
      if (!t) {
        ok = false;
        continue;
      }
      if (!is_plain(t) || (t->kind == K::Array && t->count_override)) {
        error(mem.span, "type",
              "'" + t->wgsl() + "' cannot be used as the type of a structure member");
        ok = false;
        continue;
      }
      if (contains_runtime_array(t) && i + 1 != s->members.size()) {
        error(mem.span, "type", "runtime arrays may only appear as the last member of a struct");
        ok = false;
      } else if (t->kind == K::Struct && contains_runtime_array(t)) {
        // Only a variable's store type may end in a runtime array: a struct holding one is not
        // a member type (Tint; the CTS's types,struct structure_structure_rta).
        error(mem.span, "type",
              "a struct containing a runtime-sized array cannot be nested inside another struct");
        ok = false;
      }
      mem.type = t;
      uint32_t a = t->align;
      uint64_t size = t->size;
      std::set<std::string> seen;
      for (const Attribute& at : mem.attrs) {
        if (!seen.insert(at.name).second) {
          error(at.span, "attribute", "duplicate @" + at.name + " attribute");
          continue;
        }
        if ((at.name == "align" || at.name == "size") && at.args.size() > 1) {
          error(at.span, "attribute", "@" + at.name + " takes one argument");
          continue;
        }
        if (at.name == "align") {
          auto v = attr_u32(at);
          if (!v) continue;
          if (*v == 0 || (*v & (*v - 1)) != 0) {
            error(at.span, "attribute", "@align value must be a positive, power-of-two integer");
            continue;
          }
          if (*v < t->align) {
            // WGSL: the alignment must be a multiple of the type's, wherever the struct is used
            // (or unused) and whatever the member's type (a bool too), as dawn.node 0.6.2 refuses.
            error(at.span, "attribute",
                  "@align(" + std::to_string(*v) + ") is smaller than the required alignment " +
                      std::to_string(t->align) + " of '" + t->wgsl() + "'");
            continue;
          }
          a = uint32_t(*v);
        } else if (at.name == "size") {
          auto v = attr_u32(at);
          if (!v) continue;
          if (contains_runtime_array(t)) {
            error(at.span, "attribute",
                  "@size can only be applied to members with a fixed footprint");
            continue;
          }
          if (*v < t->size) {
            error(at.span, "attribute",
                  "@size must be at least as big as the type's size (" + std::to_string(t->size) +
                      ")");
            continue;
          }
          size = *v;
        } else if (at.name == "builtin") {
          mem.builtin = builtin_name(at);
        } else if (at.name == "location" || at.name == "interpolate" || at.name == "invariant" ||
                   at.name == "blend_src") {
          // Inter-stage IO: valid WGSL, unused by compute (entry_io.cpp checks it).
          for (Expr* x : at.args)
            if (x->kind != ExprKind::Ident || at.name == "location") check_value(x);
        } else {
          error(at.span, "attribute",
                "attribute '" + at.name + "' is not valid for structure members");
        }
      }
      offset = round_up(a, offset);
      mem.offset = uint32_t(offset);
      mem.align = a;
      mem.size = size;
      offset += size;
      align = std::max(align, a);
      if (offset > UINT32_MAX) {
        error(mem.span, "type",
              "struct '" + s->name + "' has size 0x" + std::to_string(offset) +
                  " that exceeds 0xffffffff bytes");
        ok = false;
        break;
      }
    }
    if (s->members.empty()) {
      error(s->span, "type", "structures must have at least one member");
      ok = false;
    }
    if (!ok) return;
    s->type = tt_.struct_(s, align, round_up(align, offset));
  }

  std::string builtin_name(const Attribute& a) {
    if (a.args.size() != 1 || a.args[0]->kind != ExprKind::Ident) {
      error(a.span, "attribute", "@builtin requires one builtin value name");
      return "";
    }
    return a.args[0]->text;
  }

  // ---- module-scope var / const / override ----------------------------------------------------

  void module_var(VarDecl* v) {
    switch (v->kind) {
      case DeclKind::Const:
        const_decl(v);
        break;
      case DeclKind::Override:
        override_decl(v);
        break;
      case DeclKind::Var:
        var_decl(v);
        break;
      default:
        break;
    }
  }

  void const_decl(VarDecl* v) {
    for (const Attribute& a : v->attrs)
      error(a.span, "attribute",
            "attribute '" + a.name + "' is not valid for 'const' declarations");
    if (!v->initializer) {
      error(v->span, "type", "'const' declaration must have an initializer");
      return;
    }
    const Type* declared = v->type_expr ? resolve_type(v->type_expr) : nullptr;
    const Type* t = check_value(v->initializer);
    if (!t || (v->type_expr && !declared)) return;
    if (stage(v->initializer) != EvalStage::Const) {
      error(v->initializer->span, "type", "'const' initializer must be a const-expression");
      return;
    }
    if (declared) {
      if (!is_constructible(declared)) {
        error(v->type_expr->span, "type",
              "'const' type must be constructible, not '" + declared->wgsl() + "'");
        return;
      }
      if (!convert_to(v->initializer, declared, "'const' initializer")) return;
      t = declared;
    }
    if (!is_constructible(t)) {
      error(v->span, "type", "'const' type must be constructible, not '" + t->wgsl() + "'");
      return;
    }
    v->type = t;
    if (const ConstValue* cv = value(v->initializer)) v->value = *cv;
  }

  void override_decl(VarDecl* v) {
    const Type* declared = v->type_expr ? resolve_type(v->type_expr) : nullptr;
    const Type* t = declared;
    if (v->initializer) {
      const Type* it = check_value(v->initializer);
      if (!it) return;
      if (stage(v->initializer) == EvalStage::Runtime) {
        error(v->initializer->span, "type",
              "'override' initializer must be an override-expression");
        return;
      }
      if (declared) {
        // A value out of the declared type's range is reported (now, or for the pipeline) and
        // leaves the override typed, without a value.
        if (!convert_to(v->initializer, declared, "'override' initializer") &&
            load(v->initializer->type) != declared)
          return;
      } else {
        t = concrete(v->initializer);
      }
    }
    if (!t) {
      if (!v->type_expr && !v->initializer)
        error(v->span, "type", "override declaration requires a type or initializer");
      return;
    }
    if (!is_concrete_scalar(t)) {
      error(v->type_expr ? v->type_expr->span : v->span, "type",
            "'override' type must be a concrete scalar, not '" + t->wgsl() + "'");
      return;
    }
    v->type = t;
    for (const Attribute& a : v->attrs) {
      if (a.name == "id") {
        if (auto id = attr_u32(a)) {
          if (*id > 65535) {
            error(a.span, "attribute", "@id value must be between 0 and 65535");
            continue;
          }
          auto [it, fresh] = override_ids_.emplace(uint32_t(*id), v);
          if (!fresh)
            error(a.span, "attribute",
                  "@id values must be unique ('" + it->second->name + "' has @id(" +
                      std::to_string(*id) + "))");
          v->override_id = uint32_t(*id);
        }
      } else {
        error(a.span, "attribute",
              "attribute '" + a.name + "' is not valid for 'override' declarations");
      }
    }
    // The pipeline's value, by name or by @id, else the default.
    const double* given = nullptr;
    std::string key;
    if (auto it = constants_.find(v->name); it != constants_.end())
      given = &it->second, key = it->first;
    if (v->override_id)
      if (auto it = constants_.find(std::to_string(*v->override_id)); it != constants_.end())
        given = &it->second, key = it->first;
    if (given) {
      std::string err;
      auto cv = pipeline_value(*given, t, err);
      if (!cv) {
        error(v->span, "type", "pipeline constant '" + key + "': " + err);
        return;
      }
      v->value = *cv;
    } else if (v->initializer) {
      if (const ConstValue* cv = value(v->initializer)) v->value = *cv;
    }
  }

  // WebGPU's conversion of a GPUPipelineConstantValue (a double) to the override's type.
  std::optional<ConstValue> pipeline_value(double d, const Type* t, std::string& err) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", d);
    if (!std::isfinite(d)) {
      err = std::string("value ") + buf + " is not finite";
      return std::nullopt;
    }
    switch (t->kind) {
      case K::Bool:
        return scalar_value(t, Scalar{d != 0});
      case K::I32:
      case K::U32: {
        double lo = t->kind == K::I32 ? -2147483648.0 : 0,
               hi = t->kind == K::I32 ? 2147483647.0 : 4294967295.0;
        if (std::trunc(d) != d || d < lo || d > hi) {
          err = std::string("value ") + buf + " is not representable in type (" + t->wgsl() + ")";
          return std::nullopt;
        }
        return t->kind == K::I32 ? scalar_value(t, Scalar{int64_t(d)})
                                 : scalar_value(t, Scalar{uint64_t(d)});
      }
      default: {
        auto r = convert_to_float_type(d, t, err);
        if (!r) {
          err = std::string("value ") + buf + " is not representable in type (" + t->wgsl() + ")";
          return std::nullopt;
        }
        return scalar_value(t, Scalar{*r});
      }
    }
  }

  void apply_unknown_constants() {
    for (const auto& [key, val] : constants_) {
      bool found = false;
      for (Decl* d : m_.decls) {
        if (d->kind != DeclKind::Override) continue;
        auto* v = static_cast<VarDecl*>(d);
        if (v->name == key || (v->override_id && std::to_string(*v->override_id) == key))
          found = true;
      }
      if (!found)
        error({}, "resolve",
              "pipeline constant '" + key + "' does not name an override of the module");
    }
  }

  void assign_override_ids() {
    std::set<uint32_t> taken;
    for (Decl* d : m_.decls)
      if (d->kind == DeclKind::Override && static_cast<VarDecl*>(d)->override_id)
        taken.insert(*static_cast<VarDecl*>(d)->override_id);
    uint32_t next = 0;
    for (Decl* d : m_.decls) {
      if (d->kind != DeclKind::Override) continue;
      auto* v = static_cast<VarDecl*>(d);
      if (v->override_id) continue;
      while (taken.count(next)) next++;
      v->override_id = next;
      taken.insert(next);
    }
  }

  // var<space, access> at module or function scope.
  void var_decl(VarDecl* v) {
    AddressSpace space = v->module_scope ? AddressSpace::None : AddressSpace::Function;
    std::optional<Access> access;
    if (!v->var_template.empty()) {
      auto s = space_of(v->var_template[0]);
      if (!s) {
        error(v->var_template[0]->span, "address-space",
              "unresolved address space '" + expr_text(v->var_template[0]) + "'");
        return;
      }
      space = *s;
      if (v->var_template.size() > 1) {
        access = access_of(v->var_template[1]);
        if (!access) {
          error(v->var_template[1]->span, "address-space",
                "unresolved access mode '" + expr_text(v->var_template[1]) + "'");
          return;
        }
      }
      if (v->var_template.size() > 2) {
        error(v->var_template[2]->span, "address-space", "too many template arguments for 'var'");
        return;
      }
    }
    if (v->module_scope && space == AddressSpace::Function) {
      error(v->span, "address-space", "module-scope 'var' must not use address space 'function'");
      return;
    }
    if (!v->module_scope && space != AddressSpace::Function) {
      error(
          v->span, "address-space",
          std::string("function-scope 'var' declaration must use 'function' address space, not '") +
              space_name(space) + "'");
      return;
    }
    if (access && space != AddressSpace::Storage) {
      error(v->var_template[1]->span, "address-space",
            "only variables in <storage> address space may specify an access mode");
      return;
    }
    const Type* declared = v->type_expr ? resolve_type(v->type_expr) : nullptr;
    if (v->type_expr && !declared) {
      if (v->initializer) check_value(v->initializer);
      return;
    }
    const Type* t = declared;
    if (v->initializer) {
      const Type* it = check_value(v->initializer);
      if (!it) return;
      if (space == AddressSpace::Storage || space == AddressSpace::Uniform ||
          space == AddressSpace::Workgroup || space == AddressSpace::None) {
        error(v->initializer->span, "address-space",
              std::string("var of address space '") + space_name(space) +
                  "' cannot have an initializer. var initializers are only supported for the "
                  "address spaces 'private' and 'function'");
        return;
      }
      if (space == AddressSpace::Private && stage(v->initializer) == EvalStage::Runtime) {
        error(v->initializer->span, "address-space",
              "module-scope 'var' initializer must be a const-expression or override-expression");
        return;
      }
      if (declared) {
        if (!convert_to(v->initializer, declared, "initializer of '" + v->name + "'")) return;
      } else {
        t = concrete(v->initializer);
      }
    }
    if (!t) {
      error(v->span, "type", "'var' declaration requires a type or initializer");
      return;
    }
    Span tspan = v->type_expr ? v->type_expr->span : v->span;
    if (t->is_handle()) {  // textures and samplers: module scope, the handle address space
      if (!v->module_scope || space != AddressSpace::None) {
        error(tspan, "address-space",
              "a variable of type '" + t->wgsl() +
                  "' must be declared at module scope without an address space");
        return;
      }
      space = AddressSpace::Handle;
    }
    if (space == AddressSpace::None) {
      error(v->span, "address-space",
            "module-scope 'var' declarations that are not of texture or sampler types must "
            "provide an address space");
      return;
    }
    if (!store_type_ok(t, space, tspan, "variable")) return;
    if ((space == AddressSpace::Function || space == AddressSpace::Private) &&
        !is_constructible(t)) {
      error(
          tspan, "type",
          "function and private variables must have a constructible type, not '" + t->wgsl() + "'");
      return;
    }
    if (space == AddressSpace::Workgroup && !is_plain(t)) {
      error(tspan, "type", "workgroup variables must have a plain type");
      return;
    }
    if (space == AddressSpace::Storage) {
      if (access == Access::Write) {
        error(v->var_template[1]->span, "address-space",
              "access mode 'write' is not valid for the 'storage' address space");
        return;
      }
      if (access != Access::ReadWrite && contains_atomic(t)) {
        error(tspan, "address-space",
              "atomic variables in <storage> address space must have read_write access mode");
        return;
      }
    }
    if (space == AddressSpace::Uniform) uniform_layout(t, tspan);
    v->type = t;
    v->space = space;
    v->access = access ? *access
                       : (space == AddressSpace::Storage || space == AddressSpace::Uniform ||
                                  space == AddressSpace::Handle
                              ? Access::Read
                              : Access::ReadWrite);
    // @group/@binding for resources only.
    bool resource = space == AddressSpace::Storage || space == AddressSpace::Uniform ||
                    space == AddressSpace::Handle;
    bool reported_binding = false;
    for (const Attribute& a : v->attrs) {
      if (a.name == "group" || a.name == "binding") {
        auto n = attr_u32(a);
        if (!resource) {
          if (!reported_binding) {
            error(a.span, "attribute",
                  "non-resource variables must not have @group or @binding attributes");
            reported_binding = true;
          }
          continue;
        }
        if (n) (a.name == "group" ? v->group : v->binding) = uint32_t(*n);
      } else {
        error(a.span, "attribute",
              "attribute '" + a.name + "' is not valid for module-scope 'var'");
      }
    }
    auto has = [&](const char* n) {
      return std::any_of(v->attrs.begin(), v->attrs.end(),
                         [&](const Attribute& a) { return a.name == n; });
    };
    if (resource && (!has("group") || !has("binding")))
      error(v->span, "attribute", "resource variables require @group and @binding attributes");
  }

  // WGSL's uniform address space layout constraints.
  void uniform_layout(const Type* t, Span at) {
    std::set<const Type*> seen;
    std::function<void(const Type*)> walk = [&](const Type* x) {
      if (!seen.insert(x).second) return;
      if (x->kind == K::Array) {
        if (x->stride % 16 != 0) {
          error(at, "address-space",
                "'" + x->wgsl() +
                    "' cannot be used in address space 'uniform' as the element "
                    "stride (" +
                    std::to_string(x->stride) + " bytes) is not a multiple of 16 bytes");
          return;
        }
        walk(x->elem);
      } else if (x->kind == K::Struct) {
        const auto& ms = x->decl->members;
        for (size_t i = 0; i < ms.size(); i++) {
          const Type* mt = ms[i].type;
          uint32_t req = mt->align;
          if (mt->kind == K::Struct || mt->kind == K::Array)
            req = uint32_t(round_up(16, mt->align));
          if (ms[i].offset % req != 0) {
            error(at, "address-space",
                  "the offset of a struct member of type '" + mt->wgsl() +
                      "' in address space 'uniform' must be a multiple of " + std::to_string(req) +
                      " bytes, but '" + ms[i].name + "' is currently at offset " +
                      std::to_string(ms[i].offset) + " (in '" + x->decl->name + "')");
          }
          if (mt->kind == K::Struct && i + 1 < ms.size() &&
              ms[i + 1].offset - ms[i].offset < round_up(16, mt->size)) {
            error(at, "address-space",
                  "uniform storage requires that the number of bytes between the start of the "
                  "previous member of type struct and the current member be a multiple of 16 "
                  "bytes, but there are currently " +
                      std::to_string(ms[i + 1].offset - ms[i].offset) + " bytes between '" +
                      ms[i].name + "' and '" + ms[i + 1].name + "' (in '" + x->decl->name + "')");
          }
          walk(mt);
        }
      }
    };
    walk(t);
  }

  // ---- functions ------------------------------------------------------------------------------

  void fn_signature(FnDecl* f) {
    std::set<std::string> names;
    for (VarDecl* p : f->params) {
      if (!names.insert(p->name).second)
        error(p->span, "resolve", "redeclaration of parameter '" + p->name + "'");
      const Type* t = resolve_type(p->type_expr);
      if (!t) continue;
      if (!(is_constructible(t) || t->kind == K::Pointer || t->is_handle())) {
        error(p->type_expr->span, "type",
              "type of function parameter must be constructible, a pointer, a texture or a "
              "sampler, not '" +
                  t->wgsl() + "'");
        continue;
      }
      p->type = t;
      for (const Attribute& a : p->attrs) {
        if (a.name == "builtin")
          p->builtin = builtin_name(a);
        else if (a.name == "location" || a.name == "interpolate" || a.name == "invariant") {
          if (a.name == "location")  // its value: entry_io.cpp
            for (Expr* x : a.args) check_value(x);
        } else
          error(a.span, "attribute",
                "attribute '" + a.name + "' is not valid for function parameters");
      }
    }
    if (f->return_type) {
      const Type* rt = resolve_type(f->return_type);
      if (rt && !is_constructible(rt)) {
        error(f->return_type->span, "type",
              "function return type must be a constructible type, not '" + rt->wgsl() + "'");
        rt = nullptr;
      }
      f->return_type_resolved = rt;
      for (const Attribute& a : f->return_attrs) {
        if (a.name == "location")  // its value: entry_io.cpp
          for (Expr* x : a.args) check_value(x);
        else if (a.name != "builtin" && a.name != "interpolate" && a.name != "invariant" &&
                 a.name != "blend_src")
          error(a.span, "attribute",
                "attribute '" + a.name + "' is not valid for function return types");
      }
    } else {
      f->return_type_resolved = tt_.void_();
    }
    bool has_wg = false;
    for (const Attribute& a : f->attrs) {
      if (a.name == "compute" || a.name == "vertex" || a.name == "fragment") {
        if (f->stage != Stage::None)
          error(a.span, "attribute", "duplicate stage attribute on '" + f->name + "'");
        f->stage = a.name == "compute"  ? Stage::Compute
                   : a.name == "vertex" ? Stage::Vertex
                                        : Stage::Fragment;
      } else if (a.name == "workgroup_size") {
        has_wg = true;
      } else if (a.name == "must_use") {
        if (!f->return_type)
          error(a.span, "attribute",
                "@must_use can only be applied to functions that return a value");
      } else if (a.name == "diagnostic") {
      } else {
        error(a.span, "attribute", "attribute '" + a.name + "' is not valid for functions");
      }
    }
    if (f->stage == Stage::Compute && !has_wg)
      error(f->span, "entry-point",
            "a compute shader must include 'workgroup_size' in its attributes");
    if (f->stage != Stage::Compute && has_wg)
      error(f->span, "attribute", "the workgroup_size attribute is only valid for compute stages");
    for (const Attribute& a : f->attrs)
      if (a.name == "workgroup_size" && f->stage == Stage::Compute) workgroup_size(f, a);
    if (f->stage == Stage::Compute) entry_io(f);
    if (f->stage == Stage::None) {
      for (VarDecl* p : f->params)
        if (!p->builtin.empty())
          error(p->span, "attribute",
                "@builtin is only valid on the parameters of an entry point ('" + p->name + "')");
    }
  }

  void workgroup_size(FnDecl* f, const Attribute& a) {
    if (a.args.empty() || a.args.size() > 3) {
      error(a.span, "attribute", "@workgroup_size requires 1 to 3 arguments");
      return;
    }
    const Type* common = nullptr;
    bool ok = true;
    for (size_t i = 0; i < a.args.size(); i++) {
      Expr* e = a.args[i];
      const Type* t = check_value(e);
      if (!t) {
        ok = false;
        continue;
      }
      if (!(t->kind == K::AbstractInt || t->kind == K::I32 || t->kind == K::U32)) {
        error(e->span, "attribute",
              "workgroup_size argument must be either a literal, constant, or overridable of type "
              "abstract-integer, i32 or u32");
        ok = false;
        continue;
      }
      if (stage(e) == EvalStage::Runtime) {
        error(e->span, "attribute",
              "workgroup_size argument must be either a literal, constant, or overridable of type "
              "abstract-integer, i32 or u32");
        ok = false;
        continue;
      }
      if (t->kind != K::AbstractInt) {
        if (common && common != t) {
          error(e->span, "attribute",
                "workgroup_size arguments must be of the same type, either i32 or u32");
          ok = false;
        }
        common = t;
      }
    }
    if (!ok) return;
    const Type* to = common ? common : tt_.i32();
    for (size_t i = 0; i < a.args.size(); i++) {
      Expr* e = a.args[i];
      materialize(e, to);
      if (stage(e) == EvalStage::Override) f->workgroup_size_expr[i] = e;
      const ConstValue* v = value(e);
      if (!v) {
        if (stage(e) == EvalStage::Override)
          d_.pipeline_error(f->name, e->span, "entry-point",
                            "workgroup_size argument depends on an override that has no value "
                            "(give it a default or a pipeline constant)");
        continue;
      }
      int64_t n = as_int(v->scalars.at(0));
      if (n < 1) {
        // A const-expression below 1 is a module error; an override's value is the pipeline's.
        if (stage(e) == EvalStage::Override)
          d_.pipeline_error(f->name, e->span, "entry-point",
                            "workgroup_size argument must be at least 1");
        else
          error(e->span, "attribute", "workgroup_size argument must be at least 1");
        continue;
      }
      // The device's limits (maxComputeWorkgroupSizeX/Y/Z, maxComputeInvocationsPerWorkgroup)
      // are pipeline-creation checks: the runtime makes them against the device's limits
      // (wgsl_ports/RULES.md R13). Here only the bound of what glslang compiles, as a limit of
      // this implementation, at pipeline creation too.
      static const int64_t kCompiles[3] = {1024, 1024, 64};
      if (n > kCompiles[i]) {
        d_.pipeline_error(f->name, e->span, "limit",
                          std::string("workgroup_size ") + "xyz"[i] + " (" + std::to_string(n) +
                              ") is larger than this implementation compiles (" +
                              std::to_string(kCompiles[i]) + ", glslang's bound)");
      }
      f->workgroup_size[i] = uint32_t(std::min<int64_t>(n, UINT32_MAX));
    }
  }

  // Entry point inputs: builtins only (directly or through struct members), each once, each of
  // its type; no return value.
  void entry_io(FnDecl* f) {
    if (f->return_type)
      error(f->return_type->span, "entry-point", "a compute shader must not return a value");
    std::set<std::string> seen;
    auto check = [&](const std::string& name, const Type* t, Span at) {
      if (name.empty()) {
        error(at, "entry-point", "missing entry point IO attribute on parameter");
        return;
      }
      const char* want = nullptr;
      for (const auto& b : kComputeBuiltins)
        if (name == b[0]) want = b[1];
      if (!want) {
        if (kOtherStageBuiltins.count(name))
          error(at, "entry-point", "builtin(" + name + ") cannot be used for compute shader input");
        else
          error(at, "attribute", "unresolved builtin value '" + name + "'");
        return;
      }
      if ((name == "subgroup_invocation_id" || name == "subgroup_size") && !m_.enables_subgroups)
        error(at, "extension", "cannot use builtin(" + name + ") without 'enable subgroups;'");
      if (t && t->wgsl() != want)
        error(
            at, "entry-point",
            "store type of @builtin(" + name + ") must be '" + want + "', not '" + t->wgsl() + "'");
      if (!seen.insert(name).second)
        error(at, "entry-point", "@builtin(" + name + ") appears multiple times as pipeline input");
    };
    for (VarDecl* p : f->params) {
      if (!p->type) continue;
      if (p->builtin.empty() && p->type->kind == K::Struct) {
        for (const StructMember& mem : p->type->decl->members)
          check(mem.builtin, mem.type, mem.span);
        continue;
      }
      check(p->builtin, p->type, p->span);
    }
  }

  void function_body(FnDecl* f) {
    if (!f->body) return;
    fn_ = f;
    ctx_.clear();
    allowed_break_if_ = nullptr;
    scopes_.clear();
    scopes_.emplace_back();
    for (VarDecl* p : f->params) {
      if (p->type) scopes_.back().names.emplace(p->name, p);
    }
    unsigned behavior = block_body(f->body, false);
    const Type* rt = f->return_type_resolved;
    if (rt && rt->kind != K::Void && (behavior & kNext))
      error(f->span, "type", "missing return at end of function");
    scopes_.clear();
    fn_ = nullptr;
    // Workgroup-size overrides count as used by the entry point.
    for (const Expr* e : f->workgroup_size_expr)
      if (e) collect_override_refs(e, f);
  }

  void collect_override_refs(const Expr* e, const Decl* owner) {
    if (!e) return;
    if (e->kind == ExprKind::Ident && e->decl && e->decl->kind == DeclKind::Override) {
      auto& list = deps_[owner];
      auto* v = static_cast<VarDecl*>(e->decl);
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }
    for (const Expr* a : e->args) collect_override_refs(a, owner);
    for (const Expr* a : e->template_args) collect_override_refs(a, owner);
    if (e->callee) collect_override_refs(e->callee, owner);
  }

  // ---- statements (each returns its behaviors, WGSL's behavior analysis) ----------------------

  enum : unsigned { kNext = 1, kReturn = 2, kBreak = 4, kContinue = 8 };

  // A block in a new scope (or the function body's scope when `new_scope` is false).
  unsigned block_body(Stmt* b, bool new_scope = true) {
    if (new_scope) scopes_.emplace_back();
    unsigned behavior = statements(b->body);
    if (new_scope) scopes_.pop_back();
    return behavior;
  }

  unsigned statements(const std::vector<Stmt*>& list) {
    unsigned behavior = kNext;
    for (Stmt* s : list) {
      unsigned b = statement(s);
      if (behavior & kNext) behavior = (behavior & ~kNext) | b;
    }
    return behavior;
  }

  unsigned statement(Stmt* s) {
    if (!s) return kNext;
    // @diagnostic is the one attribute WGSL allows on a statement.
    for (const Attribute& a : s->attrs)
      if (a.name != "diagnostic")
        error(a.span, "attribute", "attribute '" + a.name + "' is not valid for statements");
    switch (s->kind) {
      case StmtKind::Block:
        return block_body(s);
      case StmtKind::Decl:
        local_decl(s->decl);
        return kNext;
      case StmtKind::Assign:
        assign(s);
        return kNext;
      case StmtKind::Increment:
      case StmtKind::Decrement:
        increment(s);
        return kNext;
      case StmtKind::Call:
        call_statement(s);
        return kNext;
      case StmtKind::Return:
        return_stmt(s);
        return kReturn;
      case StmtKind::If: {
        condition(s->expr, "if statement");
        unsigned b = block_body(s->then);
        b |= s->else_ ? statement(s->else_) : kNext;
        return b;
      }
      case StmtKind::Switch:
        return switch_stmt(s);
      case StmtKind::Loop: {
        scopes_.emplace_back();
        ctx_ += 'L';
        unsigned b = statements(s->then->body);
        if (s->continuing) {
          const Stmt* saved = allowed_break_if_;
          allowed_break_if_ = s->continuing->body.empty() ? nullptr : s->continuing->body.back();
          ctx_ += 'C';
          b |= block_body(s->continuing);
          ctx_.pop_back();
          allowed_break_if_ = saved;
          continue_before_decl(s);
        }
        ctx_.pop_back();
        scopes_.pop_back();
        return loop_behavior(s, b, false, "loop");
      }
      case StmtKind::For: {
        scopes_.emplace_back();
        if (s->init) statement(s->init);
        if (s->expr) condition(s->expr, "for-loop");
        ctx_ += 'L';
        unsigned b = block_body(s->then);
        ctx_ += 'C';  // the update statement is the loop's continuing
        if (s->update) statement(s->update);
        ctx_.resize(ctx_.size() - 2);
        scopes_.pop_back();
        return loop_behavior(s, b, s->expr != nullptr, "for-loop");
      }
      case StmtKind::While: {
        condition(s->expr, "while");
        ctx_ += 'L';
        unsigned b = block_body(s->then);
        ctx_.pop_back();
        return loop_behavior(s, b, true, "while");
      }
      case StmtKind::Break: {
        size_t at = ctx_.find_last_of("LSC");
        if (at == std::string::npos)
          error(s->span, "type", "break statement must be in a loop or switch case");
        else if (ctx_[at] == 'C')
          error(
              s->span, "type",
              "`break` must not be used to exit from a continuing block. Use `break if` instead.");
        return kBreak;
      }
      case StmtKind::BreakIf:
        if (ctx_.find('C') == std::string::npos)
          error(s->span, "type", "break-if must be in a continuing block");
        else if (s != allowed_break_if_)
          error(s->span, "type", "break-if must be the last statement in a continuing block");
        condition(s->expr, "break-if statement");
        return kBreak | kNext;
      case StmtKind::Continue: {
        size_t at = ctx_.find_last_of("LC");
        if (at == std::string::npos)
          error(s->span, "type", "continue statement must be in a loop");
        else if (ctx_[at] == 'C')
          error(s->span, "type", "continuing blocks must not contain a continue statement");
        return kContinue;
      }
      case StmtKind::Discard:
        // Fragment shaders only: an error in another entry point or in a function one calls
        // (checked with the call graph). Its behavior is {Next} (WGSL: discard demotes).
        if (fn_ && fn_->stage != Stage::None && fn_->stage != Stage::Fragment)
          error(s->span, "entry-point",
                "discard cannot be used by " + stage_text(fn_->stage) + " pipeline stage");
        else if (fn_ && fn_->stage == Stage::None)
          stage_calls_[fn_].push_back({s->span, kFragmentBit, "discard"});
        return kNext;
      case StmtKind::ConstAssert:
        const_assert(s->expr);
        return kNext;
    }
    return kNext;
  }

  // WGSL's behaviors of a loop: a break (or a condition) makes it end normally; one that can
  // neither end nor return is an error, as in Tint.
  // A `continue` of the loop (not of a nested one) in `s`.
  static const Stmt* loop_continue(const Stmt* s) {
    if (!s) return nullptr;
    switch (s->kind) {
      case StmtKind::Continue:
        return s;
      case StmtKind::Block:
        for (const Stmt* x : s->body)
          if (const Stmt* c = loop_continue(x)) return c;
        return nullptr;
      case StmtKind::If:
        if (const Stmt* c = loop_continue(s->then)) return c;
        return loop_continue(s->else_);
      case StmtKind::Switch:
        for (const SwitchCase& c : s->cases)
          if (const Stmt* x = loop_continue(c.body)) return x;
        return nullptr;
      default:
        return nullptr;  // loops: their continues are their own
    }
  }
  // An identifier of `names` used in `s` (expressions and nested statements), or nullptr.
  static const Expr* uses(const Stmt* s, const std::unordered_set<const Decl*>& names) {
    if (!s) return nullptr;
    std::function<const Expr*(const Expr*)> in = [&](const Expr* e) -> const Expr* {
      if (!e) return nullptr;
      if (e->kind == ExprKind::Ident && e->decl && names.count(e->decl)) return e;
      for (const Expr* a : e->args)
        if (const Expr* r = in(a)) return r;
      for (const Expr* a : e->template_args)
        if (const Expr* r = in(a)) return r;
      return in(e->callee);
    };
    if (s->decl)
      if (const Expr* r = in(s->decl->initializer)) return r;
    for (const Expr* e : {s->lhs, s->expr})
      if (const Expr* r = in(e)) return r;
    for (const Stmt* x : s->body)
      if (const Expr* r = uses(x, names)) return r;
    for (const Stmt* x : {s->then, s->else_, s->init, s->update, s->continuing})
      if (const Expr* r = uses(x, names)) return r;
    for (const SwitchCase& c : s->cases) {
      for (const Expr* e : c.selectors)
        if (const Expr* r = in(e)) return r;
      if (const Expr* r = uses(c.body, names)) return r;
    }
    return nullptr;
  }
  // WGSL: a `continue` must not come before a declaration that the continuing block uses
  // (the CTS's statement,continue:placement).
  void continue_before_decl(const Stmt* loop) {
    std::unordered_set<const Decl*> after;
    const Stmt* cont = nullptr;
    for (const Stmt* x : loop->then->body) {
      if (cont && x->kind == StmtKind::Decl && x->decl) after.insert(x->decl);
      if (!cont) cont = loop_continue(x);
    }
    if (after.empty()) return;
    if (const Expr* use = uses(loop->continuing, after))
      error(cont->span, "type",
            "continue statement bypasses declaration of '" + use->decl->name +
                "', which is used in the continuing block (line " + std::to_string(use->span.line) +
                ")");
  }

  unsigned loop_behavior(const Stmt* s, unsigned b, bool has_condition, const char* what) {
    bool breaks = b & kBreak;
    b &= ~(kBreak | kContinue | kNext);
    if (breaks || has_condition) b |= kNext;
    if (b == 0) error(s->span, "type", std::string(what) + " does not exit");
    return b;
  }

  void condition(Expr* e, const char* what) {
    const Type* t = check_value(e);
    if (t && t != tt_.bool_())
      error(e->span, "type", std::string(what) + " condition must be bool, got " + t->wgsl());
  }

  void const_assert(Expr* e) {
    if (!e) return;
    const Type* t = check_value(e);
    if (!t) return;
    if (t != tt_.bool_()) {
      error(e->span, "type", "const assertion condition must be a bool, got '" + t->wgsl() + "'");
      return;
    }
    if (stage(e) != EvalStage::Const) {
      error(e->span, "type", "const assertion requires a const-expression condition");
      return;
    }
    if (const ConstValue* v = value(e))
      if (!as_bool(v->scalars.at(0))) error(e->span, "const-eval", "const assertion failed");
  }

  void local_decl(VarDecl* v) {
    if (!v) return;
    switch (v->kind) {
      case DeclKind::Const:
        const_decl(v);
        break;
      case DeclKind::Var:
        var_decl(v);
        break;
      case DeclKind::Let: {
        for (const Attribute& a : v->attrs)
          error(a.span, "attribute",
                "attribute '" + a.name + "' is not valid for 'let' declarations");
        const Type* declared = v->type_expr ? resolve_type(v->type_expr) : nullptr;
        if (!v->initializer) {
          error(v->span, "type", "'let' declaration must have an initializer");
          break;
        }
        const Type* t = check_value(v->initializer);
        if (!t || (v->type_expr && !declared)) break;
        if (declared) {
          if (!convert_to(v->initializer, declared, "initializer of '" + v->name + "'")) break;
          t = declared;
        } else {
          t = concrete(v->initializer);
        }
        if (!(is_constructible(t) || t->kind == K::Pointer)) {
          error(v->span, "type",
                "the type of a 'let' must be constructible or a pointer, not '" + t->wgsl() + "'");
          break;
        }
        v->type = t;
        break;
      }
      case DeclKind::Override:
        error(v->span, "type", "'override' declarations are only valid at module scope");
        break;
      default:
        break;
    }
    // Declared after its initializer: `let x = x;` sees the outer x.
    declare(v);
  }

  // The root variable of a memory view, for messages.
  const Decl* root_decl(const Expr* e) {
    while (e) {
      if (e->kind == ExprKind::Ident) return e->decl;
      if (e->args.empty()) return nullptr;
      e = e->args[0];
    }
    return nullptr;
  }

  // lhs must be a reference with write access; returns its store type.
  const Type* writable(Expr* lhs) {
    const Type* t = check_expr(lhs);
    if (!t) return nullptr;
    if (t->kind != K::Reference) {
      const Decl* root = root_decl(lhs);
      if (root &&
          (root->kind == DeclKind::Let || root->kind == DeclKind::Const ||
           root->kind == DeclKind::Override || root->kind == DeclKind::Param) &&
          lhs->kind == ExprKind::Ident)
        error(lhs->span, "type",
              "cannot assign to " + decl_kind_name(root) + " '" + root->name + "'");
      else
        error(lhs->span, "type", "cannot assign to value of type '" + t->wgsl() + "'");
      return nullptr;
    }
    if (t->access == Access::Read) {
      error(lhs->span, "address-space",
            std::string("cannot store into a read-only type '") + t->wgsl() + "'");
      return nullptr;
    }
    note_access(lhs, kWrite);
    return t->elem;
  }

  void assign(Stmt* s) {
    if (!s->lhs) {  // _ = e
      const Type* t = check_expr(s->expr);
      if (t && !(is_constructible(load(t)) || load(t)->kind == K::Pointer || t->is_handle()))
        error(s->expr->span, "type",
              "cannot assign '" + load(t)->wgsl() +
                  "' to '_'. '_' can only be assigned a constructible, pointer, texture or sampler "
                  "type");
      if (t) concrete(s->expr);
      return;
    }
    const Type* store = writable(s->lhs);
    if (s->op == Op::None) {
      const Type* rt = check_value(s->expr);
      if (!store || !rt) return;
      if (!is_constructible(store)) {
        error(s->lhs->span, "type",
              "storage type of assignment must be constructible, not '" + store->wgsl() + "'");
        return;
      }
      convert_to(s->expr, store, "assignment");
      return;
    }
    // Compound assignment: lhs op rhs must type as the store type.
    const Type* rt = check_value(s->expr);
    if (!store || !rt) return;
    const Type* result = binary_type(s->op, store, rt, nullptr, s->expr, s->span);
    if (!result) return;
    partial_eval_ok(s->op, store, s->expr, s->span);
    if (result != store)
      error(s->span, "type", "cannot assign '" + result->wgsl() + "' to '" + store->wgsl() + "'");
  }

  void increment(Stmt* s) {
    const Type* store = writable(s->lhs);
    if (!store) return;
    if (store->kind != K::I32 && store->kind != K::U32)
      error(s->lhs->span, "type",
            std::string(s->kind == StmtKind::Increment ? "increment" : "decrement") +
                " statement can only be applied to an integer scalar, not '" + store->wgsl() + "'");
  }

  void call_statement(Stmt* s) {
    Expr* c = s->expr;
    if (!c || c->kind != ExprKind::Call) {
      if (c) check_expr(c);
      return;
    }
    const Type* t = check_expr(c, /*as_statement=*/true);
    (void)t;
  }

  void return_stmt(Stmt* s) {
    if (!fn_) return;
    if (ctx_.find('C') != std::string::npos)
      error(s->span, "type", "continuing blocks must not contain a return statement");
    const Type* rt = fn_->return_type_resolved;
    if (!s->expr) {
      if (rt && rt->kind != K::Void)
        error(s->span, "type", "missing return value, the function returns '" + rt->wgsl() + "'");
      return;
    }
    const Type* t = check_value(s->expr);
    if (!t || !rt) return;
    if (rt->kind == K::Void) {
      error(s->span, "type",
            "unexpected return value: function '" + fn_->name + "' has no return type");
      return;
    }
    convert_to(s->expr, rt, "return value of '" + fn_->name + "'");
  }

  unsigned switch_stmt(Stmt* s) {
    const Type* t = check_value(s->expr);
    // The selector and the case values share one type: concrete i32/u32 (abstract ints meet
    // at the lowest-ranked type all of them convert to).
    const Type* common = t;
    std::vector<Expr*> selectors;
    for (auto& c : s->cases)
      for (Expr* e : c.selectors) {
        const Type* et = check_value(e);
        if (!et) continue;
        if (stage(e) != EvalStage::Const) {
          error(e->span, "type", "case selector must be a const-expression");
          continue;
        }
        selectors.push_back(e);
        if (common) {
          const Type* u = common_type(tt_, common, et);
          if (!u) {
            error(e->span, "type",
                  "the case selector values must have the same type as the selector expression");
            continue;
          }
          common = u;
        }
      }
    if (common && common->kind == K::AbstractInt) common = tt_.i32();
    if (common && common->kind != K::I32 && common->kind != K::U32) {
      error(s->expr->span, "type",
            "switch statement selector expression must be of a scalar integer type");
      common = nullptr;
    }
    if (common) {
      materialize(s->expr, common);
      std::vector<std::pair<int64_t, Span>> seen;
      for (Expr* e : selectors) {
        if (!materialize(e, common)) continue;
        const ConstValue* v = value(e);
        if (!v) continue;
        int64_t x = as_int(v->scalars.at(0));
        for (auto& [y, at] : seen)
          if (x == y)
            error(e->span, "type",
                  "duplicate switch case '" + std::to_string(x) + "' (previous at line " +
                      std::to_string(at.line) + ")");
        seen.push_back({x, e->span});
      }
    }
    int defaults = 0;
    unsigned behavior = 0;
    ctx_ += 'S';
    for (auto& c : s->cases) {
      if (c.has_default && ++defaults == 2)
        error(c.span, "type", "switch statement must have exactly one default clause");
      behavior |= c.body ? block_body(c.body) : kNext;
    }
    ctx_.pop_back();
    if (defaults == 0) error(s->span, "type", "switch statement must have a default clause");
    if (behavior & kBreak) behavior = (behavior & ~kBreak) | kNext;
    return behavior ? behavior : kNext;
  }

  // ---- expressions ----------------------------------------------------------------------------

  // The expression's value type (references loaded); nullptr after a diagnostic.
  const Type* check_value(Expr* e) {
    const Type* t = check_expr(e);
    if (!t) return nullptr;
    if (t->kind == K::Void) {
      bool builtin = e->kind == ExprKind::Call && e->target == CallTarget::Builtin;
      error(e->span, "type",
            std::string(builtin ? "builtin function '" : "function '") +
                (e->callee ? e->callee->text : "") + "' does not return a value");
      return nullptr;
    }
    if (t->kind == K::Reference) note_access(e, kRead);
    return load(t);
  }

  const Type* check_expr(Expr* e, bool as_statement = false) {
    if (!e) return nullptr;
    if (e->type) return e->type;  // a shared node checked already
    const Type* t = nullptr;
    switch (e->kind) {
      case ExprKind::BoolLit:
        t = tt_.bool_();
        set_value(e, EvalStage::Const, scalar_value(t, Scalar{e->bool_value}));
        break;
      case ExprKind::IntLit:
        t = int_literal(e);
        break;
      case ExprKind::FloatLit:
        t = float_literal(e);
        break;
      case ExprKind::Ident:
        t = identifier(e);
        break;
      case ExprKind::Call:
        t = call(e, as_statement);
        break;
      case ExprKind::Index:
        t = index(e);
        break;
      case ExprKind::Member:
        t = member(e);
        break;
      case ExprKind::Unary:
        t = unary(e);
        break;
      case ExprKind::Binary:
        t = binary(e);
        break;
    }
    if (t && !e->type) e->type = t;
    return t;
  }

  const Type* int_literal(Expr* e) {
    const std::string& s = e->text;
    unsigned __int128 v = 0;
    bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    bool too_big = false;
    for (size_t i = hex ? 2 : 0; i < s.size(); i++) {
      char c = s[i];
      int d = (c >= '0' && c <= '9')   ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0 || d >= (hex ? 16 : 10)) {
        error(e->span, "syntax", "invalid integer literal '" + s + "'");
        return nullptr;
      }
      v = v * (hex ? 16 : 10) + unsigned(d);
      if (v > (unsigned __int128)UINT64_MAX) too_big = true, v = 0;
    }
    const Type* t = e->suffix == 'i'   ? tt_.i32()
                    : e->suffix == 'u' ? tt_.u32()
                                       : tt_.abstract_int();
    unsigned __int128 max = t->kind == K::I32   ? INT32_MAX
                            : t->kind == K::U32 ? UINT32_MAX
                                                : INT64_MAX;
    if (too_big || v > max) {
      error(e->span, "const-eval",
            "value " + s + (e->suffix ? std::string(1, e->suffix) : "") +
                " cannot be represented as '" + t->wgsl() + "'");
      return nullptr;
    }
    Scalar sc = t->kind == K::U32 ? Scalar{uint64_t(v)} : Scalar{int64_t(v)};
    set_value(e, EvalStage::Const, scalar_value(t, sc));
    return t;
  }

  const Type* float_literal(Expr* e) {
    const Type* t = e->suffix == 'f'   ? tt_.f32()
                    : e->suffix == 'h' ? tt_.f16()
                                       : tt_.abstract_float();
    if (t == tt_.f16()) need_f16(e->span);
    std::string s = e->text;
    // Decimal floats may end in an exponent-less '.', hex floats need strtod's hex form.
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) {
      error(e->span, "syntax", "invalid float literal '" + s + "'");
      return nullptr;
    }
    std::string err;
    auto r = std::isfinite(d) ? convert_to_float_type(d, t, err) : std::nullopt;
    if (!r) {
      error(e->span, "const-eval",
            "value " + s + (e->suffix ? std::string(1, e->suffix) : "") +
                " cannot be represented as '" + t->wgsl() + "'");
      return nullptr;
    }
    set_value(e, EvalStage::Const, scalar_value(t, Scalar{*r}));
    return t;
  }

  const Type* identifier(Expr* e) {
    Decl* decl = lookup(e->text);
    if (!decl) {
      bool partial = false;
      if (predeclared_type(e->text, e->span, &partial) || partial || is_type_name(e->text))
        error(e->span, "type", "cannot use type '" + e->text + "' as value");
      else if (is_builtin_function(e->text))
        error(e->span, "type", "missing '(' for builtin function call '" + e->text + "'");
      else
        error(e->span, "resolve", "unresolved value '" + e->text + "'");
      return nullptr;
    }
    e->decl = decl;
    if (!e->template_args.empty()) {
      error(e->span, "type", "'" + e->text + "' does not take template arguments");
      return nullptr;
    }
    switch (decl->kind) {
      case DeclKind::Fn:
        error(e->span, "type", "missing '(' for function call '" + e->text + "'");
        return nullptr;
      case DeclKind::Struct:
      case DeclKind::Alias:
        error(e->span, "type", "cannot use type '" + e->text + "' as value");
        return nullptr;
      default:
        break;
    }
    auto* v = static_cast<VarDecl*>(decl);
    if (v->module_scope) {
      if (!resolve_decl(v)) return nullptr;
      if (v->kind == DeclKind::Var || v->kind == DeclKind::Override) use_global(v);
    } else {
      v->used = true;
    }
    if (!v->type) return nullptr;  // its declaration failed (reported there)
    switch (v->kind) {
      case DeclKind::Var:
        stage_[e] = EvalStage::Runtime;
        // A texture or sampler variable's name is the handle itself, not a memory view.
        if (v->space == AddressSpace::Handle) return v->type;
        return tt_.ref(v->space, v->type, v->access);
      case DeclKind::Const:
        set_value(e, EvalStage::Const, v->value);
        return v->type;
      case DeclKind::Override:
        set_value(e, EvalStage::Override, v->value);
        return v->type;
      default:
        stage_[e] = EvalStage::Runtime;
        return v->type;
    }
  }

  // ---- calls ----------------------------------------------------------------------------------

  const Type* call(Expr* e, bool as_statement) {
    Expr* callee = e->callee;
    if (!callee || callee->kind != ExprKind::Ident) {
      error(e->span, "type", "invalid call target");
      return nullptr;
    }
    const std::string& n = callee->text;
    Decl* decl = lookup(n);
    if (decl) {
      callee->decl = decl;
      if (decl->kind == DeclKind::Fn) return user_call(e, static_cast<FnDecl*>(decl), as_statement);
      if (decl->kind == DeclKind::Struct || decl->kind == DeclKind::Alias) {
        const Type* t = resolve_type(callee);
        return t ? construct(e, t, as_statement) : (check_args(e), nullptr);
      }
      error(callee->span, "type", "cannot call " + decl_kind_name(decl) + " '" + n + "'");
      check_args(e);
      return nullptr;
    }
    bool partial = false;
    if (predeclared_type(n, callee->span, &partial) && callee->template_args.empty()) {
      const Type* t = resolve_type(callee);
      return t ? construct(e, t, as_statement) : nullptr;
    }
    if (partial) {
      if (callee->template_args.empty()) return infer_construct(e, as_statement);
      const Type* t = resolve_type(callee);
      if (!t) {
        check_args(e);
        return nullptr;
      }
      if (n == "array" && callee->template_args.size() == 1)
        return infer_construct(e, as_statement, t->elem);
      return construct(e, t, as_statement);
    }
    if (is_type_name(n)) {
      const Type* t = resolve_type(callee);
      if (!t) check_args(e);
      return t ? construct(e, t, as_statement) : nullptr;
    }
    if (is_builtin_function(n)) return builtin_call(e, as_statement);
    error(callee->span, "resolve", "unresolved call target '" + n + "'");
    check_args(e);
    return nullptr;
  }

  // Checks the arguments; returns their value types (pointers as pointers), false if any failed.
  bool check_args(Expr* e, std::vector<const Type*>* types = nullptr) {
    bool ok = true;
    for (Expr* a : e->args) {
      const Type* t = check_value(a);
      if (!t) ok = false;
      if (types) types->push_back(t);
    }
    return ok;
  }

  EvalStage args_stage(const Expr* e) {
    EvalStage s = EvalStage::Const;
    for (const Expr* a : e->args) s = std::max(s, stage(a));
    return s;
  }

  void must_use(Expr* e, bool as_statement, const std::string& what) {
    if (as_statement) error(e->span, "type", "ignoring return value of " + what);
  }

  const Type* user_call(Expr* e, FnDecl* f, bool as_statement) {
    e->target = CallTarget::Function;
    e->fn = f;
    resolve_decl(f);
    std::vector<const Type*> types;
    bool ok = check_args(e, &types);
    if (f->stage != Stage::None) {
      error(e->span, "type", "entry point functions cannot be the target of a function call");
      return nullptr;
    }
    if (fn_) {
      calls_[fn_].push_back({f, e->span});
      AliasCall ac{f, {}, {}};
      for (size_t i = 0; i < e->args.size() && i < types.size(); i++)
        if (types[i] && types[i]->kind == K::Pointer)
          if (const Decl* r = alias_root(e->args[i])) {
            ac.roots.push_back({i, r});
            ac.spans.push_back(e->args[i]->span);
          }
      if (!ac.roots.empty()) alias_calls_[fn_].push_back(std::move(ac));
    }
    if (e->args.size() != f->params.size()) {
      error(e->span, "type",
            std::string(e->args.size() < f->params.size() ? "too few" : "too many") +
                " arguments in call to '" + f->name + "', expected " +
                std::to_string(f->params.size()) + ", got " + std::to_string(e->args.size()));
      return nullptr;
    }
    if (!ok) return nullptr;
    for (size_t i = 0; i < e->args.size(); i++) {
      const Type* pt = f->params[i]->type;
      if (!pt) return nullptr;
      if (!convert_to(e->args[i], pt,
                      "argument " + std::to_string(i + 1) + " of '" + f->name + "'"))
        ok = false;
    }
    stage_[e] = EvalStage::Runtime;
    const Type* rt = f->return_type_resolved;
    if (!rt) return nullptr;
    if (as_statement && rt->kind != K::Void &&
        std::any_of(f->attrs.begin(), f->attrs.end(),
                    [](const Attribute& a) { return a.name == "must_use"; }))
      must_use(e, true, "function '" + f->name + "' annotated with @must_use");
    return ok ? rt : nullptr;
  }

  const Type* builtin_call(Expr* e, bool as_statement) {
    const std::string& n = e->callee->text;
    e->target = CallTarget::Builtin;
    std::vector<const Type*> targs;
    for (Expr* ta : e->callee->template_args) {
      const Type* t = resolve_type(ta);
      if (!t) return (check_args(e), nullptr);
      targs.push_back(t);
    }
    std::vector<const Type*> types;
    // Pointer-taking builtins: arguments keep their pointer types.
    if (!check_args(e, &types)) return nullptr;
    BuiltinMatch m = match_builtin(tt_, m_, n, targs, types);
    if (!m.result) {
      bool unsupported = m.error.find("this front end translates compute") != std::string::npos;
      error(e->span, unsupported ? "unsupported" : "type", m.error);
      return nullptr;
    }
    if (n == "ldexp" && m.params.size() == 2 && m.result->scalar() &&
        m.result->scalar()->kind == K::AbstractFloat &&
        m.params[1]->scalar()->kind != K::AbstractInt && args_stage(e) != EvalStage::Const)
      m.params[0] = m.result = tt_.with_scalar(m.result, tt_.f32());
    if (m.needs_subgroups && !m_.enables_subgroups)
      error(e->span, "extension",
            "cannot call built-in function '" + n + "' without extension 'subgroups'");
    // Barriers and workgroupUniformLoad: compute only; subgroup and quad builtins, and atomics
    // (WGSL: not in the vertex stage): compute and fragment.
    const bool not_vertex =
        n.substr(0, 8) == "subgroup" || n.substr(0, 4) == "quad" || n.substr(0, 6) == "atomic";
    if ((n == "workgroupBarrier" || n == "storageBarrier" || n == "textureBarrier" ||
         n == "workgroupUniformLoad" || not_vertex) &&
        fn_ && fn_->stage != Stage::None && fn_->stage != Stage::Compute &&
        !(not_vertex && fn_->stage == Stage::Fragment))
      error(e->span, "entry-point",
            "built-in cannot be used by " + stage_text(fn_->stage) + " pipeline stage");
    // Derivatives and implicit-derivative samples: fragment shaders only; barriers, subgroup
    // and quad builtins: compute only (above, for an entry point's own calls). A call in another
    // function is checked against each entry point that calls it (the call graph, below).
    const bool fragment_only = n.substr(0, 3) == "dpd" || n.substr(0, 6) == "fwidth" ||
                               n == "textureSample" || n == "textureSampleBias" ||
                               n == "textureSampleCompare";
    const bool compute_only = n == "workgroupBarrier" || n == "storageBarrier" ||
                              n == "textureBarrier" || n == "workgroupUniformLoad";
    if (fragment_only && fn_ && fn_->stage != Stage::None && fn_->stage != Stage::Fragment)
      error(e->span, "entry-point",
            "built-in cannot be used by " + stage_text(fn_->stage) + " pipeline stage");
    if ((fragment_only || compute_only || not_vertex) && fn_ && fn_->stage == Stage::None)
      stage_calls_[fn_].push_back({e->span, fragment_only  ? kFragmentBit
                                            : compute_only ? kComputeBit
                                                           : kComputeBit | kFragmentBit});
    // Accesses through pointer arguments (alias analysis): atomics write but atomicLoad;
    // workgroupUniformLoad reads; arrayLength does not access.
    if (n.substr(0, 6) == "atomic" || n == "workgroupUniformLoad")
      for (size_t i = 0; i < e->args.size() && i < types.size(); i++)
        if (types[i] && types[i]->kind == K::Pointer)
          note_access(e->args[i],
                      n == "atomicLoad" || n == "workgroupUniformLoad" ? kRead : kRead | kWrite);
    // bitcast of an abstract int: i32 where every component fits, else u32 (0xffffffff).
    if (n == "bitcast" && e->args.size() == 1 && types[0]->scalar() == tt_.abstract_int())
      if (const ConstValue* v = value(e->args[0]))
        for (const Scalar& x : v->scalars)
          if (as_int(x) > INT32_MAX) m.params[0] = tt_.with_scalar(types[0], tt_.u32());
    for (size_t i = 0; i < e->args.size() && i < m.params.size(); i++) {
      if (m.params[i]->kind == K::Pointer) continue;
      if (!convert_to(e->args[i], m.params[i],
                      "argument " + std::to_string(i + 1) + " of '" + n + "'"))
        return nullptr;
    }
    if ((n == "subgroupBroadcast" || n == "quadBroadcast") && e->args.size() == 2 &&
        stage(e->args[1]) != EvalStage::Const) {
      error(e->args[1]->span, "type",
            std::string("the ") + (n == "quadBroadcast" ? "id" : "sourceLaneIndex") +
                " argument of " + n + " must be a const-expression");
      return nullptr;
    }
    // A texture builtin's offset (each component in [-8, 7]) and textureGather's component (in
    // [0, 3]) are const-expressions.
    for (int i : {m.offset_arg, m.component_arg}) {
      if (i < 0 || size_t(i) >= e->args.size()) continue;
      const bool offset = i == m.offset_arg;
      const char* what = offset ? "offset" : "component";
      const ConstValue* v = stage(e->args[i]) == EvalStage::Const ? value(e->args[i]) : nullptr;
      if (!v) {
        error(e->args[i]->span, "type",
              std::string("the ") + what + " argument of " + n + " must be a const-expression");
        return nullptr;
      }
      for (const Scalar& x : v->scalars)
        if (offset ? (as_int(x) < -8 || as_int(x) > 7) : (as_int(x) < 0 || as_int(x) > 3)) {
          error(e->args[i]->span, "type",
                std::string("the ") + what + " argument of " + n + " must be in [" +
                    (offset ? "-8, 7" : "0, 3") + "], not " + value_text(*v));
          return nullptr;
        }
    }
    if (as_statement && m.must_use && m.result->kind != K::Void)
      must_use(e, true, "builtin '" + n + "'");
    // Evaluated when every argument is known and the builtin is a const function.
    EvalStage s = m.const_fn ? args_stage(e) : EvalStage::Runtime;
    if (s != EvalStage::Runtime) {
      std::vector<ConstValue> vals;
      for (Expr* a : e->args) {
        const ConstValue* v = value(a);
        if (!v) {
          stage_[e] = s;
          return m.result;
        }
        vals.push_back(*v);
      }
      std::string err;
      auto r = eval_builtin(tt_, n, m, vals, err);
      if (!r) {
        eval_error(e->span, s, err);
        stage_[e] = s;
        return m.result;
      }
      set_value(e, s, std::move(*r));
      return m.result;
    }
    // clamp(e, low, high) with low and high known checks low <= high whatever e is (Tint): a
    // module error for const-expressions, a pipeline error where an override gives one.
    // smoothstep(low, high, x) likewise checks low < high.
    const bool smooth = n == "smoothstep";
    const size_t lo_i = smooth ? 0 : 1;
    if ((n == "clamp" || smooth) && e->args.size() == 3 && m.params.size() == 3 &&
        m.params[lo_i]->scalar()) {
      const ConstValue* lo = value(e->args[lo_i]);
      const ConstValue* hi = value(e->args[lo_i + 1]);
      if (lo && hi && lo->scalars.size() == hi->scalars.size()) {
        const bool is_float = m.params[lo_i]->scalar()->is_float_scalar();
        for (size_t i = 0; i < lo->scalars.size(); i++) {
          const Scalar &l = lo->scalars[i], &h = hi->scalars[i];
          bool bad = is_float
                         ? (smooth ? as_double(l) >= as_double(h) : as_double(l) > as_double(h))
                         : (smooth ? as_int(l) >= as_int(h) : as_int(l) > as_int(h));
          if (!bad) continue;
          std::string msg = smooth ? "smoothstep called with 'low' (" + value_text(*lo) +
                                         ") not less than 'high' (" + value_text(*hi) + ")"
                                   : "clamp called with 'low' (" + value_text(*lo) +
                                         ") greater than 'high' (" + value_text(*hi) + ")";
          if (stage(e->args[lo_i]) == EvalStage::Const &&
              stage(e->args[lo_i + 1]) == EvalStage::Const)
            error(e->span, "const-eval", msg);
          else
            override_error(e->span, "const-eval", msg);
          break;
        }
      }
    }
    // ldexp(e1, e2) with e2 known checks e2 <= bias + 1 whatever e1 is (as clamp's bounds).
    if (n == "ldexp" && e->args.size() == 2 && m.params.size() == 2 && m.params[0]->scalar())
      if (const ConstValue* ex = value(e->args[1])) {
        const K k = m.params[0]->scalar()->kind;
        const int64_t bias = k == K::F16 ? 15 : k == K::F32 ? 127 : 1023;
        for (const Scalar& x : ex->scalars) {
          if (as_int(x) <= bias + 1) continue;
          std::string msg = "ldexp: the exponent " + std::to_string(as_int(x)) +
                            " is too large for '" + m.params[0]->scalar()->wgsl() + "'";
          if (stage(e->args[1]) == EvalStage::Const)
            error(e->span, "const-eval", msg);
          else
            override_error(e->span, "const-eval", msg);
          break;
        }
      }
    // extractBits(e, offset, count), insertBits(e, newbits, offset, count): offset + count
    // <= 32 once both are known, whatever e is (Tint; the CTS's count_offset).
    if ((n == "extractBits" || n == "insertBits") && e->args.size() == (n[0] == 'e' ? 3u : 4u)) {
      const size_t oi = e->args.size() - 2;
      const ConstValue* off = value(e->args[oi]);
      const ConstValue* cnt = value(e->args[oi + 1]);
      if (off && cnt && !off->scalars.empty() && !cnt->scalars.empty()) {
        const int64_t o = as_int(off->scalars[0]), c = as_int(cnt->scalars[0]);
        if (o + c > 32) {
          std::string msg = "'offset' + 'count' must be less than or equal to 32 (" + n +
                            " with offset " + std::to_string(o) + " and count " +
                            std::to_string(c) + ")";
          if (stage(e->args[oi]) == EvalStage::Const && stage(e->args[oi + 1]) == EvalStage::Const)
            error(e->span, "const-eval", msg);
          else
            override_error(e->span, "const-eval", msg);
        }
      }
    }
    stage_[e] = EvalStage::Runtime;
    return m.result;
  }

  // ---- value constructors ---------------------------------------------------------------------

  // A const/override value from the arguments' values (elements or scalars), when all known.
  void construct_value(
      Expr* e, const Type* t,
      const std::function<std::optional<ConstValue>(std::vector<ConstValue>&)>& build) {
    EvalStage s = args_stage(e);
    stage_[e] = s;
    if (s == EvalStage::Runtime) return;
    if (scalar_count(t) > kMaxConstScalars) {
      error(e->span, "limit",
            "the value of '" + t->wgsl() + "' has more than " + std::to_string(kMaxConstScalars) +
                " scalars; this front end evaluates smaller constants only");
      return;
    }
    std::vector<ConstValue> vals;
    for (Expr* a : e->args) {
      const ConstValue* v = value(a);
      if (!v) return;
      vals.push_back(*v);
    }
    auto r = build(vals);
    if (r) set_value(e, s, std::move(*r));
  }

  const Type* construct(Expr* e, const Type* t, bool as_statement) {
    e->target = CallTarget::Constructor;
    e->names_type = t;
    std::vector<const Type*> types;
    if (!check_args(e, &types)) return nullptr;
    if (as_statement) {
      error(e->span, "type", "value constructor evaluated but not used");
      return nullptr;
    }
    if (!is_constructible(t)) {
      error(e->span, "type", "type '" + t->wgsl() + "' is not constructible");
      return nullptr;
    }
    const size_t n = e->args.size();
    auto mismatch = [&]() -> const Type* {
      std::string list;
      for (size_t i = 0; i < types.size(); i++) list += (i ? ", " : "") + types[i]->wgsl();
      error(e->span, "type", "no matching constructor for '" + t->wgsl() + "(" + list + ")'");
      return nullptr;
    };
    if (n == 0) {
      construct_value(e, t,
                      [&](std::vector<ConstValue>&) { return std::optional(zero_value(tt_, t)); });
      return t;
    }
    if (t->is_scalar()) {
      // Conversion: any scalar to any scalar.
      if (n != 1 || !types[0]->is_scalar()) return mismatch();
      if (types[0]->is_abstract()) {
        // Abstract values convert at their own rank when they can (keeps range checks).
        if (conversion_rank(types[0], t)) materialize(e->args[0], t);
      }
      construct_value(e, t, [&](std::vector<ConstValue>& v) { return convert(e, v[0], t); });
      return t;
    }
    if (t->kind == K::Vector) {
      // Splat, conversion of a same-width vector, or components.
      if (n == 1 && types[0]->is_scalar()) {
        // A splat takes the element type (or an abstract value converting to it), not a value
        // conversion: vec2<bool>(1i) is invalid.
        if (!conversion_rank(types[0], t->elem)) return mismatch();
        materialize(e->args[0], t->elem);
        construct_value(e, t, [&](std::vector<ConstValue>& v) -> std::optional<ConstValue> {
          auto c = convert(e, v[0], t->elem);
          if (!c) return std::nullopt;
          ConstValue out;
          out.type = t;
          out.scalars.assign(t->n, c->scalars[0]);
          return out;
        });
        return t;
      }
      if (n == 1 && types[0]->kind == K::Vector && types[0]->n == t->n) {
        if (types[0]->is_abstract() && conversion_rank(types[0], t)) materialize(e->args[0], t);
        construct_value(e, t, [&](std::vector<ConstValue>& v) { return convert(e, v[0], t); });
        return t;
      }
      uint32_t count = 0;
      for (size_t i = 0; i < n; i++) {
        const Type* a = types[i];
        if (!(a->is_scalar() || a->kind == K::Vector)) return mismatch();
        const Type* want = a->kind == K::Vector ? tt_.vec(t->elem, a->n) : t->elem;
        if (!conversion_rank(a, want)) return mismatch();
        count += component_count(a);
      }
      if (count != t->n) return mismatch();
      for (size_t i = 0; i < n; i++)
        materialize(e->args[i],
                    types[i]->kind == K::Vector ? tt_.vec(t->elem, types[i]->n) : t->elem);
      construct_value(e, t, [&](std::vector<ConstValue>& v) {
        ConstValue out;
        out.type = t;
        for (auto& x : v) out.scalars.insert(out.scalars.end(), x.scalars.begin(), x.scalars.end());
        return std::optional(out);
      });
      return t;
    }
    if (t->kind == K::Matrix) {
      const Type* col = tt_.vec(t->elem, t->rows);
      if (n == 1 && types[0]->kind == K::Matrix && types[0]->n == t->n &&
          types[0]->rows == t->rows && types[0]->elem->is_float_scalar()) {
        if (types[0]->is_abstract()) materialize(e->args[0], t);
        construct_value(e, t, [&](std::vector<ConstValue>& v) { return convert(e, v[0], t); });
        return t;
      }
      bool columns = n == t->n && std::all_of(types.begin(), types.end(), [&](const Type* a) {
                       return conversion_rank(a, col).has_value();
                     });
      bool scalars = n == size_t(t->n) * t->rows &&
                     std::all_of(types.begin(), types.end(), [&](const Type* a) {
                       return conversion_rank(a, t->elem).has_value();
                     });
      if (!columns && !scalars) return mismatch();
      for (Expr* a : e->args) materialize(a, columns ? col : t->elem);
      construct_value(e, t, [&](std::vector<ConstValue>& v) {
        ConstValue out;
        out.type = t;
        for (auto& x : v) out.scalars.insert(out.scalars.end(), x.scalars.begin(), x.scalars.end());
        return std::optional(out);
      });
      return t;
    }
    if (t->kind == K::Array) {
      if (n != t->count) {
        error(e->span, "type",
              "array constructor has " + std::string(n < t->count ? "too few" : "too many") +
                  " elements: expected " + std::to_string(t->count) + ", found " +
                  std::to_string(n));
        return nullptr;
      }
      for (size_t i = 0; i < n; i++)
        if (!convert_to(e->args[i], t->elem, "array element " + std::to_string(i))) return nullptr;
      construct_value(e, t, [&](std::vector<ConstValue>& v) {
        ConstValue out;
        out.type = t;
        out.elements = v;
        return std::optional(out);
      });
      return t;
    }
    if (t->kind == K::Struct) {
      const auto& ms = t->decl->members;
      if (n != ms.size()) {
        error(e->span, "type",
              "structure constructor has too " + std::string(n < ms.size() ? "few" : "many") +
                  " inputs: expected " + std::to_string(ms.size()) + ", found " +
                  std::to_string(n));
        return nullptr;
      }
      for (size_t i = 0; i < n; i++)
        if (!convert_to(e->args[i], ms[i].type, "member '" + ms[i].name + "'")) return nullptr;
      construct_value(e, t, [&](std::vector<ConstValue>& v) {
        ConstValue out;
        out.type = t;
        out.elements = v;
        return std::optional(out);
      });
      return t;
    }
    return mismatch();
  }

  std::optional<ConstValue> convert(Expr* e, const ConstValue& v, const Type* to) {
    std::string err;
    auto r = convert_value(tt_, v, to, err);
    if (!r) eval_error(e->span, args_stage(e), err);
    return r;
  }

  // vec3(...), mat2x2(...), array(...), array<T>(...): the element type from the arguments.
  const Type* infer_construct(Expr* e, bool as_statement, const Type* array_elem = nullptr) {
    const std::string& n = e->callee->text;
    std::vector<const Type*> types;
    if (!check_args(e, &types)) return nullptr;
    auto fail = [&]() -> const Type* {
      std::string list;
      for (size_t i = 0; i < types.size(); i++) list += (i ? ", " : "") + types[i]->wgsl();
      error(e->span, "type", "no matching constructor for '" + n + "(" + list + ")'");
      return nullptr;
    };
    if (n == "array") {
      if (types.empty()) {
        error(e->span, "type", "cannot infer the element type of an empty array constructor");
        return nullptr;
      }
      const Type* el = array_elem;
      if (!el) {
        el = types[0];
        for (const Type* a : types) {
          el = common_type(tt_, el, a);
          if (!el) return fail();
        }
      }
      if (!is_constructible(el)) return fail();
      const Type* t = tt_.array(el, types.size());
      e->callee->names_type = t;
      return construct(e, t, as_statement);
    }
    if (auto w = vec_width(n)) {
      if (types.empty()) {
        // vec3() is vec3<abstract-int>()... WGSL: zero value of AbstractInt vector.
        const Type* t = tt_.vec(tt_.abstract_int(), *w);
        e->callee->names_type = t;
        return construct(e, t, as_statement);
      }
      const Type* s = nullptr;
      for (const Type* a : types) {
        const Type* as = a->scalar();
        if (!as || a->kind == K::Matrix) return fail();
        s = s ? common_type(tt_, s, as) : as;
        if (!s) return fail();
      }
      const Type* t = tt_.vec(s, *w);
      e->callee->names_type = t;
      return construct(e, t, as_statement);
    }
    if (n.size() == 6 && n.substr(0, 3) == "mat") {
      uint32_t c = n[3] - '0', r = n[5] - '0';
      const Type* s = nullptr;
      for (const Type* a : types) {
        const Type* as = a->scalar();
        if (!as) return fail();
        s = s ? common_type(tt_, s, as) : as;
        if (!s) return fail();
      }
      if (!s) return fail();
      if (s->kind == K::AbstractInt) s = tt_.abstract_float();
      if (!s->is_float_scalar()) return fail();
      const Type* t = tt_.mat(s, c, r);
      e->callee->names_type = t;
      return construct(e, t, as_statement);
    }
    return fail();
  }

  // ---- index, member, unary, binary -----------------------------------------------------------

  const Type* index(Expr* e) {
    if (e->args.size() != 2) return nullptr;
    Expr* base = e->args[0];
    Expr* idx = e->args[1];
    const Type* bt = check_expr(base);
    const Type* it = check_value(idx);
    if (!bt || !it) return nullptr;
    bool ref = bt->kind == K::Reference || bt->kind == K::Pointer;
    const Type* v = ref ? bt->elem : bt;
    if (!(it->kind == K::I32 || it->kind == K::U32 || it->kind == K::AbstractInt)) {
      error(idx->span, "type", "index must be of type 'i32' or 'u32', found: '" + it->wgsl() + "'");
      return nullptr;
    }
    const Type* el;
    uint64_t bound;
    switch (v->kind) {
      case K::Array:
        el = v->elem, bound = v->count_override ? 0 : v->count;
        break;
      case K::Vector:
        el = v->elem, bound = v->n;
        break;
      case K::Matrix:
        el = tt_.vec(v->elem, v->rows), bound = v->n;
        break;
      default:
        error(e->span, "type", "cannot index type '" + v->wgsl() + "'");
        return nullptr;
    }
    if (stage(idx) == EvalStage::Const) {
      if (const ConstValue* iv = value(idx)) {
        int64_t i = as_int(iv->scalars.at(0));
        if (i < 0 || (bound && uint64_t(i) >= bound)) {
          error(idx->span, "type",
                "index " + std::to_string(i) + " out of bounds" +
                    (bound ? " [0.." + std::to_string(bound - 1) + "]" : ""));
          return nullptr;
        }
      }
    } else if (stage(idx) == EvalStage::Override) {
      // An override index known at pipeline creation: the same bounds, a pipeline error.
      if (const ConstValue* iv = value(idx)) {
        int64_t i = as_int(iv->scalars.at(0));
        if (i < 0 || (bound && uint64_t(i) >= bound))
          override_error(idx->span, "type",
                         "index " + std::to_string(i) + " out of bounds" +
                             (bound ? " [0.." + std::to_string(bound - 1) + "]" : ""));
      }
    }
    if (it->kind == K::AbstractInt) materialize(idx, tt_.i32());
    if (ref) {
      stage_[e] = EvalStage::Runtime;
      return tt_.ref(bt->space, el, bt->access);
    }
    EvalStage s = std::max(stage(base), stage(idx));
    if (s == EvalStage::Runtime && v->is_abstract()) {
      // A runtime index into an abstract value: the value becomes concrete first.
      v = tt_.concretize(v);
      materialize(base, v);
      el = v->kind == K::Matrix ? tt_.vec(v->elem, v->rows) : v->elem;
    }
    stage_[e] = s;
    if (s != EvalStage::Runtime) {
      const ConstValue* bv = value(base);
      const ConstValue* iv = value(idx);
      if (bv && iv) {
        int64_t i = as_int(iv->scalars.at(0));
        if (i >= 0 && uint64_t(i) < component_count_of(bv))
          set_value(e, s, value_element(tt_, *bv, uint64_t(i)));
      }
    }
    return el;
  }

  static uint64_t component_count_of(const ConstValue* v) {
    if (v->type->kind == K::Array || v->type->kind == K::Struct) return v->elements.size();
    if (v->type->kind == K::Matrix) return v->type->n;
    return v->scalars.size();
  }

  const Type* member(Expr* e) {
    if (e->args.size() != 1) return nullptr;
    Expr* base = e->args[0];
    const Type* bt = check_expr(base);
    if (!bt) return nullptr;
    bool ref = bt->kind == K::Reference || bt->kind == K::Pointer;
    const Type* v = ref ? bt->elem : bt;
    const std::string& name = e->text;
    if (v->kind == K::Struct) {
      const auto& ms = v->decl->members;
      for (size_t i = 0; i < ms.size(); i++) {
        if (ms[i].name != name) continue;
        e->member_index = int(i);
        if (ref) {
          stage_[e] = EvalStage::Runtime;
          return tt_.ref(bt->space, ms[i].type, bt->access);
        }
        EvalStage s = stage(base);
        if (s != EvalStage::Runtime)
          if (const ConstValue* bv = value(base)) set_value(e, s, bv->elements.at(i));
        stage_[e] = s;
        return ms[i].type;
      }
      error(e->span, "type", "struct member " + name + " not found");
      return nullptr;
    }
    if (v->kind == K::Vector) {
      if (name.empty() || name.size() > 4) {
        error(e->span, "type", "invalid vector swizzle size");
        return nullptr;
      }
      static const std::string xyzw = "xyzw", rgba = "rgba";
      bool any_xyzw = false, any_rgba = false;
      for (char c : name) {
        size_t p = xyzw.find(c), q = rgba.find(c);
        if (p == std::string::npos && q == std::string::npos) {
          error(e->span, "type", "invalid vector swizzle character");
          return nullptr;
        }
        size_t i = p != std::string::npos ? p : q;
        (p != std::string::npos ? any_xyzw : any_rgba) = true;
        if (i >= v->n) {
          error(e->span, "type", "invalid vector swizzle member");
          return nullptr;
        }
        e->swizzle.push_back(uint8_t(i));
      }
      if (any_xyzw && any_rgba) {
        error(e->span, "type", "invalid mixing of vector swizzle characters rgba with xyzw");
        e->swizzle.clear();
        return nullptr;
      }
      if (ref && e->swizzle.size() == 1) {
        stage_[e] = EvalStage::Runtime;
        return tt_.ref(bt->space, v->elem, bt->access);
      }
      if (ref) note_access(base, kRead);  // a multi-component swizzle loads the vector
      const Type* rt =
          e->swizzle.size() == 1 ? v->elem : tt_.vec(v->elem, uint32_t(e->swizzle.size()));
      EvalStage s = ref ? EvalStage::Runtime : stage(base);
      stage_[e] = s;
      if (s != EvalStage::Runtime)
        if (const ConstValue* bv = value(base)) {
          ConstValue out;
          out.type = rt;
          for (uint8_t i : e->swizzle) out.scalars.push_back(bv->scalars.at(i));
          set_value(e, s, out);
        }
      return rt;
    }
    error(e->span, "type", "invalid member accessor expression on type '" + v->wgsl() + "'");
    return nullptr;
  }

  const Type* unary(Expr* e) {
    if (e->args.size() != 1) return nullptr;
    Expr* x = e->args[0];
    if (e->op == Op::AddrOf) {
      const Type* t = check_expr(x);
      if (!t) return nullptr;
      if (t->kind != K::Reference) {
        error(e->span, "type", "cannot take the address of a value");
        return nullptr;
      }
      if ((x->kind == ExprKind::Member && !x->swizzle.empty()) ||
          (x->kind == ExprKind::Index && x->args.size() == 2 && x->args[0]->type &&
           load(x->args[0]->type)->kind == K::Vector) ||
          (x->kind == ExprKind::Index && x->args[0]->type && x->args[0]->type->kind == K::Pointer &&
           x->args[0]->type->elem->kind == K::Vector)) {
        error(e->span, "type", "cannot take the address of a vector component");
        return nullptr;
      }
      stage_[e] = EvalStage::Runtime;
      return tt_.ptr(t->space, t->elem, t->access);
    }
    if (e->op == Op::Deref) {
      const Type* t = check_value(x);
      if (!t) return nullptr;
      if (t->kind != K::Pointer) {
        error(e->span, "type", "cannot dereference expression of type '" + t->wgsl() + "'");
        return nullptr;
      }
      stage_[e] = EvalStage::Runtime;
      return tt_.ref(t->space, t->elem, t->access);
    }
    const Type* t = check_value(x);
    if (!t) return nullptr;
    const Type* s = t->scalar();
    bool ok = s && t->kind != K::Matrix;
    if (e->op == Op::Neg)
      ok = ok && (s->is_float_scalar() || s->kind == K::I32 || s->kind == K::AbstractInt);
    // WGSL's negation takes scalars and vectors only: -m of a matrix is invalid (Tint).
    if (e->op == Op::Not) ok = ok && s->kind == K::Bool;
    if (e->op == Op::BitNot) ok = ok && s->is_integer_scalar();
    if (!ok) {
      error(e->span, "type",
            std::string("no matching overload for 'operator ") +
                (e->op == Op::Neg   ? "-"
                 : e->op == Op::Not ? "!"
                                    : "~") +
                " (" + t->wgsl() + ")'");
      return nullptr;
    }
    EvalStage st = stage(x);
    stage_[e] = st;
    if (st != EvalStage::Runtime)
      if (const ConstValue* v = value(x)) {
        std::string err;
        auto r = eval_unary(tt_, e->op, *v, t, err);
        if (!r)
          eval_error(e->span, st, err);
        else
          set_value(e, st, std::move(*r));
      }
    return t;
  }

  // The result type of `a op b` (value types), converting abstract operands in place; nullptr
  // after a diagnostic at `at`.
  const Type* binary_type(Op op, const Type* a, const Type* b, Expr* ea, Expr* eb, Span at) {
    auto fail = [&]() -> const Type* {
      static const char* names[] = {"",   "-",  "!",  "~",  "*", "&",  "+",  "-",
                                    "*",  "/",  "%",  "&",  "|", "^",  "<<", ">>",
                                    "&&", "||", "==", "!=", "<", "<=", ">",  ">="};
      error(at, "type",
            std::string("no matching overload for 'operator ") + names[int(op)] + " (" + a->wgsl() +
                ", " + b->wgsl() + ")'");
      return nullptr;
    };
    auto conv = [&](Expr* x, const Type* from, const Type* to) {
      if (from != to && x) materialize(x, to);
    };
    const bool ma = a->kind == K::Matrix, mb = b->kind == K::Matrix;
    switch (op) {
      case Op::LogAnd:
      case Op::LogOr:
        if (a != tt_.bool_() || b != tt_.bool_()) return fail();
        return a;
      case Op::Shl:
      case Op::Shr: {
        const Type* sa = a->scalar();
        if (!sa || ma || !sa->is_integer_scalar()) return fail();
        const Type* want = tt_.with_scalar(a, tt_.u32());
        if (!conversion_rank(b, want)) return fail();
        conv(eb, b, want);
        return a;
      }
      default:
        break;
    }
    if (ma || mb) {
      if (op == Op::Add || op == Op::Sub) {
        const Type* c = common_type(tt_, a, b);
        if (!c || !ma || !mb) return fail();
        conv(ea, a, c), conv(eb, b, c);
        return c;
      }
      if (op != Op::Mul) return fail();
      const Type* s =
          common_type(tt_, a->scalar() ? a->scalar() : a, b->scalar() ? b->scalar() : b);
      if (!s || !s->is_float_scalar()) return fail();
      if (s->kind == K::AbstractInt) s = tt_.abstract_float();
      const Type* na = tt_.with_scalar(a, s);
      const Type* nb = tt_.with_scalar(b, s);
      const Type* r = nullptr;
      if (ma && mb) {
        if (a->n != b->rows) return fail();
        r = tt_.mat(s, b->n, a->rows);
      } else if (ma && b->kind == K::Vector) {
        if (a->n != b->n) return fail();
        r = tt_.vec(s, a->rows);
      } else if (mb && a->kind == K::Vector) {
        if (a->n != b->rows) return fail();
        r = tt_.vec(s, b->n);
      } else if (ma && b->is_scalar()) {
        r = na;
      } else if (mb && a->is_scalar()) {
        r = nb;
      } else {
        return fail();
      }
      if (!conversion_rank(a, na) || !conversion_rank(b, nb)) return fail();
      conv(ea, a, na), conv(eb, b, nb);
      return r;
    }
    const Type* sa = a->scalar();
    const Type* sb = b->scalar();
    if (!sa || !sb) return fail();
    // Vector-scalar mixing for arithmetic: the scalar goes to the vector's element type.
    const Type* s = common_type(tt_, sa, sb);
    if (!s) return fail();
    if (a->kind == K::Vector && b->kind == K::Vector && a->n != b->n) return fail();
    bool mixed = (a->kind == K::Vector) != (b->kind == K::Vector);
    bool arithmetic =
        op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Mod;
    if (mixed && !arithmetic) return fail();
    const Type* ta = tt_.with_scalar(a, s);
    const Type* tb = tt_.with_scalar(b, s);
    const Type* shape = a->kind == K::Vector ? ta : tb;
    switch (op) {
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Div:
      case Op::Mod:
        if (!is_numeric_scalar(s)) return fail();
        conv(ea, a, ta), conv(eb, b, tb);
        return shape;
      case Op::And:
      case Op::Or:
      case Op::Xor:
        if (!(s->is_integer_scalar() || (s->kind == K::Bool && op != Op::Xor))) return fail();
        conv(ea, a, ta), conv(eb, b, tb);
        return shape;
      case Op::Eq:
      case Op::Ne:
      case Op::Lt:
      case Op::Le:
      case Op::Gt:
      case Op::Ge:
        if ((op != Op::Eq && op != Op::Ne) && s->kind == K::Bool) return fail();
        conv(ea, a, ta), conv(eb, b, tb);
        return tt_.with_scalar(shape, tt_.bool_());
      default:
        return fail();
    }
  }

  // Tint's checks on a const right operand whatever the left one: integer division by zero and
  // shifts of a concrete value by its bit width or more.
  // An override right operand (its pipeline value known) gets the same checks as pipeline
  // errors of the entry points reaching the expression (WebGPU's createComputePipeline).
  bool partial_eval_ok(Op op, const Type* lhs, const Expr* rhs, Span at) {
    const bool over = stage(rhs) == EvalStage::Override;
    if (stage(rhs) != EvalStage::Const && !over) return true;
    const ConstValue* v = value(rhs);
    const Type* rt = load(rhs->type);
    if (!v || !rt || !rt->scalar()) return true;
    auto fail = [&](std::string msg) {
      if (over) {
        override_error(at, "const-eval", std::move(msg));
        return true;
      }
      error(at, "const-eval", std::move(msg));
      return false;
    };
    if ((op == Op::Div || op == Op::Mod) && rt->scalar()->is_integer_scalar()) {
      for (const Scalar& x : v->scalars)
        if (as_int(x) == 0) return fail("integer division by zero is invalid");
    }
    if ((op == Op::Shl || op == Op::Shr) && lhs && lhs->scalar() && !lhs->is_abstract()) {
      for (const Scalar& x : v->scalars)
        if (as_int(x) >= 32)
          return fail(std::string("shift ") + (op == Op::Shl ? "left" : "right") +
                      " value must be less than the bit width of the lhs, which is 32");
    }
    return true;
  }

  const Type* binary(Expr* e) {
    if (e->args.size() != 2) return nullptr;
    Expr* l = e->args[0];
    Expr* r = e->args[1];
    const Type* a = check_value(l);
    // `false && x`, `true || x` with a const (or known override) left side: x is typed but
    // not evaluated, and the result is the left side.
    std::optional<ConstValue> decided;
    if (a && (e->op == Op::LogAnd || e->op == Op::LogOr) && stage(l) != EvalStage::Runtime)
      if (const ConstValue* va = value(l); va && va->type && va->type->kind == K::Bool &&
                                           va->scalars.size() == 1 &&
                                           as_bool(va->scalars[0]) == (e->op == Op::LogOr))
        decided = *va;
    if (decided) skip_const_eval_++;
    const Type* b = check_value(r);
    if (decided) skip_const_eval_--;
    if (!a || !b) return nullptr;
    const Type* t = binary_type(e->op, a, b, l, r, e->span);
    if (!t) return nullptr;
    if (!partial_eval_ok(e->op, load(l->type), r, e->span)) {
      stage_[e] = std::max(stage(l), stage(r));
      return t;
    }
    EvalStage s = std::max(stage(l), stage(r));
    // A runtime operand makes an abstract other operand concrete (materialized by binary_type
    // when the other side is concrete; both abstract is only possible for const operands).
    stage_[e] = s;
    if (decided && s != EvalStage::Runtime) {
      if (t == decided->type) set_value(e, s, std::move(*decided));
    } else if (s != EvalStage::Runtime) {
      const ConstValue* va = value(l);
      const ConstValue* vb = value(r);
      if (va && vb) {
        std::string err;
        std::optional<ConstValue> v;
        // Short-circuit operators: a false (true) lhs decides without the rhs.
        v = eval_binary(tt_, e->op, *va, *vb, t, err);
        if (!v)
          eval_error(e->span, s, err);
        else
          set_value(e, s, std::move(*v));
      }
    }
    return t;
  }

  // ---- the call graph: recursion, callees, static use -----------------------------------------

  // Iterative walks throughout: a hostile module may chain 10^5 functions or overrides.
  void call_graph() {
    // callees in first-call order.
    std::vector<FnDecl*> fns;
    for (Decl* d : m_.decls)
      if (d->kind == DeclKind::Fn) fns.push_back(static_cast<FnDecl*>(d));
    for (FnDecl* fn : fns)
      for (auto& [callee, at] : calls_[fn])
        if (std::find(fn->callees.begin(), fn->callees.end(), callee) == fn->callees.end())
          fn->callees.push_back(callee);
    // Recursion: a back edge of a depth-first walk.
    std::unordered_map<const FnDecl*, int> color;
    for (FnDecl* root : fns) {
      if (color[root]) continue;
      std::vector<std::pair<FnDecl*, size_t>> stack{{root, 0}};
      color[root] = 1;
      while (!stack.empty()) {
        auto& [f, next] = stack.back();
        if (next == f->callees.size()) {
          color[f] = 2;
          stack.pop_back();
          continue;
        }
        FnDecl* c = f->callees[next++];
        if (color[c] == 1) {
          std::string chain;
          bool in = false;
          for (auto& [p, _] : stack) {
            if (p == c) in = true;
            if (in) chain += "'" + p->name + "' -> ";
          }
          // Tint words recursion as a dependency cycle, at the function's declaration.
          error(c->span, "resolve", "cyclic dependency found: " + chain + "'" + c->name + "'");
        } else if (color[c] == 0) {
          color[c] = 1;
          stack.push_back({c, 0});
        }
      }
    }
    if (!d_.ok()) return;
    // globals_used: a function's own uses, with the declarations those depend on (an override
    // sizing a workgroup array, an override's initializer); for an entry point, everything it
    // reaches through its callees (static use, as Tint defines it).
    uint64_t work = 0;
    const uint64_t kMaxWork = uint64_t(1) << 24;
    // Breadth-first, so the list keeps first-use order.
    auto close_vars = [&](std::vector<VarDecl*> seeds, std::unordered_set<const VarDecl*>& seen,
                          std::vector<VarDecl*>& out) {
      for (size_t i = 0; i < seeds.size(); i++) {
        VarDecl* v = seeds[i];
        if (!seen.insert(v).second) continue;
        out.push_back(v);
        for (VarDecl* dep : deps_[v]) seeds.push_back(dep), work++;
      }
    };
    for (FnDecl* f : fns) {
      std::unordered_set<const VarDecl*> seen_var;
      std::vector<VarDecl*> out;
      if (f->stage == Stage::None) {
        close_vars(deps_[f], seen_var, out);
      } else {
        std::unordered_set<const FnDecl*> seen_fn{f};
        std::vector<FnDecl*> todo{f};
        for (size_t i = 0; i < todo.size() && work <= kMaxWork; i++) {
          FnDecl* g = todo[i];
          close_vars(deps_[g], seen_var, out);
          for (FnDecl* c : g->callees)
            if (seen_fn.insert(c).second) todo.push_back(c), work++;
        }
        for (VarDecl* v : out) v->used = true;
        // Stage-restricted builtins called by the functions this entry point calls.
        for (const FnDecl* g : todo)
          if (auto it = stage_calls_.find(g); it != stage_calls_.end())
            for (const StageCall& sc : it->second)
              if (!(sc.allowed & stage_bit(f->stage))) {
                error(sc.at, "entry-point",
                      std::string(sc.what) + " cannot be used by " + stage_text(f->stage) +
                          " pipeline stage (called by entry point '" + f->name + "')");
                break;
              }
        for (const FnDecl* g : todo)
          for (auto* errors : {&fn_pipeline_errors_[g], &decl_pipeline_errors_[g]})
            for (const PendingError& pe : *errors)
              d_.pipeline_error(f->name, pe.at, pe.rule, pe.message);
        for (const VarDecl* v : out)
          if (auto it = decl_pipeline_errors_.find(v); it != decl_pipeline_errors_.end())
            for (const PendingError& pe : it->second)
              d_.pipeline_error(f->name, pe.at, pe.rule, pe.message);
      }
      f->globals_used = std::move(out);
      if (work > kMaxWork) {
        error(f->span, "limit",
              "the call graph is too large to analyze (more than " + std::to_string(kMaxWork) +
                  " steps)");
        return;
      }
      if (f->stage != Stage::None) entry_point_resources(f);
    }
    // Overrides an entry point statically uses must have a value: a pipeline-creation error of
    // that entry point (WebGPU's createComputePipeline), not a module error.
    for (FnDecl* f : fns) {
      if (f->stage == Stage::None) continue;
      for (const VarDecl* v : f->globals_used)
        if (v->kind == DeclKind::Override && v->type && !v->value && !v->initializer)
          d_.pipeline_error(f->name, v->span, "entry-point",
                            "override '" + v->name +
                                "' has no default value and no pipeline constant was given for it");
    }
  }

  void entry_point_resources(FnDecl* f) {
    std::map<std::pair<uint32_t, uint32_t>, const VarDecl*> bindings;
    for (const VarDecl* v : f->globals_used) {
      // Writable storage (buffers, storage textures) not in the vertex stage, workgroup
      // variables in compute only (WGSL; the CTS's decl,var:shader_stage).
      if (v->kind == DeclKind::Var && v->type && f->stage != Stage::Compute) {
        const bool writable_texture =
            v->type->kind == K::Texture &&
            (v->type->access == Access::Write || v->type->access == Access::ReadWrite);
        std::string what;
        if (v->space == AddressSpace::Workgroup)
          what = "var with 'workgroup' address space";
        else if (f->stage == Stage::Vertex && v->space == AddressSpace::Storage &&
                 v->access == Access::ReadWrite)
          what = "var with 'storage' address space and 'read_write' access mode";
        else if (f->stage == Stage::Vertex && writable_texture)
          what = "writable storage texture '" + v->type->wgsl() + "'";
        if (!what.empty())
          error(v->span, "entry-point",
                what + " ('" + v->name + "') cannot be used by " + stage_text(f->stage) +
                    " pipeline stage (entry point '" + f->name + "')");
      }
      if (!v->group || !v->binding) continue;
      auto [it, fresh] = bindings.emplace(std::make_pair(*v->group, *v->binding), v);
      if (!fresh)
        error(v->span, "attribute",
              "entry point '" + f->name +
                  "' references multiple variables that use the same "
                  "resource binding @group(" +
                  std::to_string(*v->group) + "), @binding(" + std::to_string(*v->binding) +
                  ") ('" + it->second->name + "' and '" + v->name + "')");
    }
  }
};

}  // namespace

bool analyze(Module& module, const std::map<std::string, double>& constants, Diags& diags) {
  if (diags.file.empty()) diags.file = module.file;
  Sema s(module, constants, diags);
  bool ok = s.run();
  if (ok && diags.ok()) check_entry_io(module, diags);  // entry_io.cpp
  if (ok && diags.ok()) check_diagnostic_controls(module, diags);
  return ok && diags.ok();
}

}  // namespace wgslvk::wgsl
