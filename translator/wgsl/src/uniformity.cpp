// WGSL's uniformity analysis (spec "Uniformity Analysis"), built the way Tint builds it
// (src/tint/lang/wgsl/resolver/uniformity.cc in google/dawn), because Dawn's verdict is the one a
// browser user meets: one graph per function, functions analyzed callees first, a violation when
// RequiredToBeUniform reaches MayBeNonUniform, the tags of each function (call site, return value,
// parameters, pointer parameters' contents) used at its call sites. Where Tint differs from the
// spec text (e.g. loops' resulting control flow, the extra argument nodes), Tint is followed.
//
// With the `subgroup_uniformity` language feature (shipped in Chrome and in dawn.node 0.6.2) the
// analysis runs twice, as Tint does: at workgroup scope (barriers, workgroupUniformLoad,
// derivatives) and at subgroup scope (subgroup and quad builtins, which then also yield uniform
// values and see `subgroup_id` as uniform). As in Tint, each requirement carries the severity of
// the `diagnostic` filter in effect where it arises (`derivative_uniformity`,
// `subgroup_uniformity`; barriers are always errors): one RequiredToBeUniform node per severity
// (error, warning, info), call-site and parameter tags with theirs; a violation of a warning or
// info requirement is reported as a warning or info (getCompilationInfo) and the analysis goes on,
// `off` removes the requirement.
//
// The first violation found is reported, at the builtin call (or at the argument that must be
// uniform) with Tint's message; Tint's notes (where control flow diverged, where the non-uniform
// value came from) follow in the message as "; line:col: note".
#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "passes.hpp"

namespace wgslvk::wgsl {
namespace {

// A bound on the graph of one function (loops add nodes per in-scope variable, so a hostile module
// could grow it quadratically): past it the module is refused with a "limit" diagnostic.
constexpr size_t kMaxNodesPerFunction = 1u << 20;

enum class Scope : uint8_t { Workgroup, Subgroup };

// Statement behaviors (spec "Statements Behavior Analysis", as Tint computes them).
using Behaviors = uint8_t;
constexpr Behaviors kNext = 1, kBreak = 2, kContinue = 4, kReturn = 8;

struct Node {
  enum Type : uint8_t {
    Regular,
    CallArgumentValue,
    CallArgumentContents,
    CallPointerArgumentResult,
    CallReturnValue,
    PointerParameterContents,
  };
  Type type = Regular;
  bool affects_control_flow = false;
  // What the node stands for, for the notes: at most one is set.
  const Expr* expr = nullptr;
  const Stmt* stmt = nullptr;
  const VarDecl* var = nullptr;  // a parameter or a local variable's declaration
  uint32_t arg_index = 0;
  std::vector<Node*> edges;
  Node* visited_from = nullptr;

  void add_edge(Node* to) {
    if (to && std::find(edges.begin(), edges.end(), to) == edges.end()) edges.push_back(to);
  }
};

enum class ParamTag : uint8_t {
  NoRestriction,
  ValueRequiredToBeUniform,
  ContentsRequiredToBeUniform
};

// Severities of a uniformity requirement, most severe first; kOff: no requirement.
constexpr int kSeverities = 3, kOff = -1;
const char* const kSeverityName[kSeverities] = {"error", "warning", "info"};

struct ParamInfo {
  const VarDecl* decl = nullptr;
  bool is_pointer = false;
  ParamTag tag_direct = ParamTag::NoRestriction;
  int direct_severity = 0;  // tag_direct's
  ParamTag tag_retval = ParamTag::NoRestriction;
  bool pointer_may_become_non_uniform = false;
  std::vector<size_t> ptr_output_source_values, ptr_output_source_contents;
  Node* value = nullptr;
  Node* ptr_input_contents = nullptr;
  Node* ptr_output_contents = nullptr;
};

// Map from variables to their current value node, scoped with respect to control flow.
class ScopeStack {
 public:
  ScopeStack() : scopes_(1) {}
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  void set(const VarDecl* v, Node* n) { scopes_.back()[v] = n; }
  Node* get(const VarDecl* v) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(v);
      if (f != it->end()) return f->second;
    }
    return nullptr;
  }
  std::unordered_map<const VarDecl*, Node*>& top() { return scopes_.back(); }

 private:
  std::vector<std::unordered_map<const VarDecl*, Node*>> scopes_;
};

// Variable values at the boundaries of a loop or switch.
struct LoopSwitchInfo {
  std::vector<std::pair<const VarDecl*, Node*>> in_nodes, continuing_nodes, exit_nodes;
};

Node*& slot(std::vector<std::pair<const VarDecl*, Node*>>& m, const VarDecl* v) {
  for (auto& p : m)
    if (p.first == v) return p.second;
  m.emplace_back(v, nullptr);
  return m.back().second;
}

struct FunctionInfo {
  const FnDecl* fn = nullptr;
  int callsite_severity = kOff;  // CallSiteRequiredToBeUniform.<severity>, kOff: no restriction
  bool return_may_be_non_uniform = false;
  std::vector<ParamInfo> params;

  std::deque<Node> nodes;
  Node* required[kSeverities] = {};  // RequiredToBeUniform.error, .warning, .info
  Node* may_be_non_uniform = nullptr;
  Node* cf_start = nullptr;
  Node* value_return = nullptr;

  ScopeStack variables;
  // The mutable variables in scope (function-scope `var`s and pointer parameters' contents), in
  // declaration order, with the number of enclosing loops/switches at their declaration.
  std::vector<std::pair<const VarDecl*, size_t>> local_vars;
  std::unordered_set<const VarDecl*> partial_ptrs;
  std::unordered_map<const Stmt*, LoopSwitchInfo> loop_switch;

  Node* make() {
    nodes.emplace_back();
    return &nodes.back();
  }
  void reset_visited() {
    for (auto& n : nodes) n.visited_from = nullptr;
  }
};

// A diagnostic filter in effect: `diagnostic(severity, rule)` on the module, a function or a
// statement.
struct Filter {
  std::string severity, rule;
};

struct LimitExceeded {};

const VarDecl* as_var(const Decl* d) {
  if (!d) return nullptr;
  switch (d->kind) {
    case DeclKind::Var:
    case DeclKind::Let:
    case DeclKind::Const:
    case DeclKind::Override:
    case DeclKind::Param:
      return static_cast<const VarDecl*>(d);
    default:
      return nullptr;
  }
}

const VarDecl* ident_var(const Expr* e) {
  return e && e->kind == ExprKind::Ident ? as_var(e->decl) : nullptr;
}

bool has_attr(const std::vector<Attribute>& attrs, const char* name) {
  for (const auto& a : attrs)
    if (a.name == name) return true;
  return false;
}

// The builtin a parameter or struct member carries: sema's field, else the attribute as written.
std::string builtin_of(const std::string& sema_builtin, const std::vector<Attribute>& attrs) {
  if (!sema_builtin.empty()) return sema_builtin;
  for (const auto& a : attrs)
    if (a.name == "builtin" && !a.args.empty() && a.args[0]->kind == ExprKind::Ident)
      return a.args[0]->text;
  return {};
}

Stage stage_of(const FnDecl* f) {
  if (f->stage != Stage::None) return f->stage;
  if (has_attr(f->attrs, "compute")) return Stage::Compute;
  if (has_attr(f->attrs, "fragment")) return Stage::Fragment;
  if (has_attr(f->attrs, "vertex")) return Stage::Vertex;
  return Stage::None;
}

bool decl_is_pointer(const VarDecl* v) {
  if (v->type) return v->type->kind == Type::Kind::Pointer;
  if (v->type_expr) return v->type_expr->kind == ExprKind::Ident && v->type_expr->text == "ptr";
  return v->initializer && v->initializer->kind == ExprKind::Unary &&
         v->initializer->op == Op::AddrOf;
}

const Type* param_pointer_type(const VarDecl* v) {
  return v->type && v->type->kind == Type::Kind::Pointer ? v->type : nullptr;
}

bool is_pointer_expr(const Expr* e) {
  if (e->type) return e->type->kind == Type::Kind::Pointer;
  if (e->kind == ExprKind::Unary && e->op == Op::AddrOf) return true;
  const VarDecl* v = ident_var(e);
  return v && v->kind != DeclKind::Var && decl_is_pointer(v);
}

// A read_write storage texture (the handle, or a view of a variable holding it): textureLoad of
// one may return what another invocation stored, so its result may be non-uniform (the WGSL
// specification's ReturnValueMayBeNonUniform for textureLoad on a read_write storage texture).
bool is_read_write_storage_texture(const Expr* e) {
  const Type* t = e->type;
  if (t && t->kind == Type::Kind::Reference) t = t->elem;
  return t && t->kind == Type::Kind::Texture && t->access == Access::ReadWrite;
}

// Whether an expression is a memory view (WGSL's reference type): the load rule applies to it
// where a value is needed. Sema's type when there is one, else the shape of the expression.
bool is_reference_expr(const Expr* e) {
  if (e->type) return e->type->kind == Type::Kind::Reference;
  switch (e->kind) {
    case ExprKind::Ident: {
      const VarDecl* v = ident_var(e);
      return v && v->kind == DeclKind::Var;
    }
    case ExprKind::Unary:
      return e->op == Op::Deref;
    case ExprKind::Index:
      return is_reference_expr(e->args[0]) || is_pointer_expr(e->args[0]);
    case ExprKind::Member:
      return e->swizzle.size() <= 1 &&
             (is_reference_expr(e->args[0]) || is_pointer_expr(e->args[0]));
    default:
      return false;
  }
}

bool is_read_only_global(const VarDecl* v) {
  return v->space == AddressSpace::Uniform || v->space == AddressSpace::Handle ||
         v->access == Access::Read;
}

bool is_mutable_global(const VarDecl* v) {
  return v->kind == DeclKind::Var && v->module_scope && !is_read_only_global(v);
}

// The variable (or pointer parameter) a memory view or pointer expression originates from.
const VarDecl* root_identifier(const Expr* e, int depth = 0) {
  if (!e || depth > 256) return nullptr;
  switch (e->kind) {
    case ExprKind::Ident: {
      const VarDecl* v = ident_var(e);
      if (!v) return nullptr;
      if (v->kind == DeclKind::Let && decl_is_pointer(v))
        return root_identifier(v->initializer, depth + 1);
      return v;
    }
    case ExprKind::Unary:
      if (e->op == Op::AddrOf || e->op == Op::Deref) return root_identifier(e->args[0], depth + 1);
      return nullptr;
    case ExprKind::Index:
    case ExprKind::Member:
      return root_identifier(e->args[0], depth + 1);
    default:
      return nullptr;
  }
}

// The width of the vector a swizzle chain starts from (0 when not a vector).
uint32_t swizzled_vector_width(const Expr* m) {
  const Expr* base = m->args[0];
  while (base->kind == ExprKind::Member && !base->swizzle.empty()) base = base->args[0];
  const Type* t = base->type;
  while (t && (t->kind == Type::Kind::Reference || t->kind == Type::Kind::Pointer)) t = t->elem;
  return t && t->kind == Type::Kind::Vector ? t->n : 0;
}

enum class BuiltinKind : uint8_t {
  Other,
  Barrier,
  WorkgroupUniformLoad,
  Derivative,  // derivatives, textureSample, textureSampleBias, textureSampleCompare
  Atomic,
  Subgroup,
};

BuiltinKind classify_builtin(const std::string& n) {
  static const std::unordered_map<std::string, BuiltinKind> kinds = [] {
    std::unordered_map<std::string, BuiltinKind> m;
    for (const char* s : {"workgroupBarrier", "storageBarrier", "textureBarrier"})
      m[s] = BuiltinKind::Barrier;
    m["workgroupUniformLoad"] = BuiltinKind::WorkgroupUniformLoad;
    for (const char* s : {"dpdx", "dpdxCoarse", "dpdxFine", "dpdy", "dpdyCoarse", "dpdyFine",
                          "fwidth", "fwidthCoarse", "fwidthFine", "textureSample",
                          "textureSampleBias", "textureSampleCompare"})
      m[s] = BuiltinKind::Derivative;
    for (const char* s :
         {"atomicLoad", "atomicStore", "atomicAdd", "atomicSub", "atomicMax", "atomicMin",
          "atomicAnd", "atomicOr", "atomicXor", "atomicExchange", "atomicCompareExchangeWeak"})
      m[s] = BuiltinKind::Atomic;
    for (const char* s : {"subgroupBallot",
                          "subgroupElect",
                          "subgroupBroadcast",
                          "subgroupBroadcastFirst",
                          "subgroupShuffle",
                          "subgroupShuffleXor",
                          "subgroupShuffleUp",
                          "subgroupShuffleDown",
                          "subgroupAdd",
                          "subgroupInclusiveAdd",
                          "subgroupExclusiveAdd",
                          "subgroupMul",
                          "subgroupInclusiveMul",
                          "subgroupExclusiveMul",
                          "subgroupAnd",
                          "subgroupOr",
                          "subgroupXor",
                          "subgroupMin",
                          "subgroupMax",
                          "subgroupAll",
                          "subgroupAny",
                          "quadBroadcast",
                          "quadSwapX",
                          "quadSwapY",
                          "quadSwapDiagonal"})
      m[s] = BuiltinKind::Subgroup;
    return m;
  }();
  auto it = kinds.find(n);
  return it == kinds.end() ? BuiltinKind::Other : it->second;
}

// Subgroup builtins whose result is uniform at subgroup scope.
bool subgroup_uniform_result(const std::string& n) {
  static const std::unordered_set<std::string> names = {"subgroupAdd",
                                                        "subgroupAll",
                                                        "subgroupAnd",
                                                        "subgroupAny",
                                                        "subgroupBallot",
                                                        "subgroupBroadcast",
                                                        "subgroupBroadcastFirst",
                                                        "subgroupMax",
                                                        "subgroupMin",
                                                        "subgroupMul",
                                                        "subgroupOr",
                                                        "subgroupXor"};
  return names.count(n) != 0;
}

std::string callee_name(const Expr* call) {
  return call->callee && call->callee->kind == ExprKind::Ident ? call->callee->text : "";
}

std::string at(Span s) { return std::to_string(s.line) + ":" + std::to_string(s.col); }

// Where an expression begins in the source, as Tint places an expression's diagnostics: a binary
// expression, an index or a member access begins with its left operand.
Span start(const Expr* e) {
  while (
      (e->kind == ExprKind::Binary || e->kind == ExprKind::Index || e->kind == ExprKind::Member) &&
      !e->args.empty() && e->args[0]->span.line)
    e = e->args[0];
  return e->span;
}

// ---- Behaviors --------------------------------------------------------------------------------

class BehaviorMap {
 public:
  Behaviors of(const Stmt* s) {
    if (!s) return kNext;
    auto it = memo_.find(s);
    if (it != memo_.end()) return it->second;
    Behaviors b = compute(s);
    memo_[s] = b;
    return b;
  }

 private:
  Behaviors sequence(const std::vector<Stmt*>& body) {
    Behaviors b = kNext;
    for (const Stmt* s : body) {
      Behaviors bs = of(s);
      b = Behaviors((b & ~kNext) | bs);
      if (!(bs & kNext)) break;
    }
    return b;
  }
  Behaviors compute(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Block:
        return sequence(s->body);
      case StmtKind::Return:
        return kReturn;
      case StmtKind::Break:
        return kBreak;
      case StmtKind::Continue:
        return kContinue;
      case StmtKind::BreakIf:
        return kNext | kBreak;
      case StmtKind::If:
        return Behaviors(of(s->then) | (s->else_ ? of(s->else_) : kNext));
      case StmtKind::Switch: {
        Behaviors b = 0;
        for (const auto& c : s->cases) b |= of(c.body);
        if (b & kBreak) b |= kNext;
        return Behaviors(b & ~kBreak);
      }
      case StmtKind::Loop: {
        Behaviors b = of(s->then);
        if (s->continuing && b != kReturn) b |= of(s->continuing);
        b = (b & kBreak) ? Behaviors(b | kNext) : Behaviors(b & ~kNext);
        return Behaviors(b & ~(kBreak | kContinue));
      }
      case StmtKind::For:
      case StmtKind::While: {
        Behaviors b = kNext;
        if (s->init) b |= of(s->init);
        if (s->update) b |= of(s->update);
        b |= of(s->then);
        bool exits = s->kind == StmtKind::While || s->expr || (b & kBreak);
        b = exits ? Behaviors(b | kNext) : Behaviors(b & ~kNext);
        return Behaviors(b & ~(kBreak | kContinue));
      }
      default:
        return kNext;
    }
  }
  std::unordered_map<const Stmt*, Behaviors> memo_;
};

// ---- The analysis -----------------------------------------------------------------------------

class UniformityGraph {
 public:
  UniformityGraph(const Module& m, Diags& d, Scope scope) : module_(m), diags_(d), scope_(scope) {
    for (const auto& dir : m.directives)
      if (dir.kind == Directive::Kind::Diagnostic && dir.names.size() >= 2)
        module_filters_.push_back({dir.names[0], dir.names[1]});
  }

  // Analyzes every function, callees first; false after reporting the first violation.
  bool build() {
    for (const FnDecl* f : dependency_order())
      if (!process_function(f)) return false;
    return true;
  }

 private:
  const Module& module_;
  Diags& diags_;
  const Scope scope_;
  std::unordered_map<const FnDecl*, FunctionInfo> functions_;
  FunctionInfo* fn_ = nullptr;
  BehaviorMap behaviors_;
  std::vector<Filter> module_filters_;
  std::vector<Filter> filters_;  // the function's and the enclosing statements', innermost last
  std::vector<const Stmt*> constructs_;  // enclosing loops and switches, innermost last

  // -- call graph --
  static void calls_in_expr(const Expr* e, std::vector<const FnDecl*>& out) {
    if (!e) return;
    if (e->kind == ExprKind::Call && e->fn) out.push_back(e->fn);
    for (const Expr* a : e->args) calls_in_expr(a, out);
  }
  static void calls_in_stmt(const Stmt* s, std::vector<const FnDecl*>& out) {
    if (!s) return;
    calls_in_expr(s->lhs, out);
    calls_in_expr(s->expr, out);
    if (s->decl) calls_in_expr(s->decl->initializer, out);
    for (const Stmt* c : s->body) calls_in_stmt(c, out);
    for (const Stmt* c : {s->then, s->else_, s->init, s->update, s->continuing})
      calls_in_stmt(c, out);
    for (const auto& c : s->cases) calls_in_stmt(c.body, out);
  }

  // Functions in an order where every callee precedes its callers (iterative: a call chain is
  // not bounded by the nesting limit). A call cycle (refused by sema) is broken arbitrarily.
  std::vector<const FnDecl*> dependency_order() const {
    std::vector<const FnDecl*> order;
    std::unordered_map<const FnDecl*, int> state;  // 1: on the stack, 2: done
    for (const Decl* d : module_.decls) {
      if (d->kind != DeclKind::Fn) continue;
      const auto* root = static_cast<const FnDecl*>(d);
      if (state[root]) continue;
      struct Frame {
        const FnDecl* f;
        std::vector<const FnDecl*> callees;
        size_t next = 0;
      };
      std::vector<Frame> stack;
      auto enter = [&](const FnDecl* f) {
        state[f] = 1;
        Frame fr{f, {}, 0};
        calls_in_stmt(f->body, fr.callees);
        stack.push_back(std::move(fr));
      };
      enter(root);
      while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next < top.callees.size()) {
          const FnDecl* c = top.callees[top.next++];
          if (!state[c]) enter(c);
          continue;
        }
        state[top.f] = 2;
        order.push_back(top.f);
        stack.pop_back();
      }
    }
    return order;
  }

  // -- nodes --
  Node* create(const Expr* e = nullptr, const Stmt* s = nullptr, const VarDecl* v = nullptr) {
    if (fn_->nodes.size() >= kMaxNodesPerFunction) throw LimitExceeded{};
    Node* n = fn_->make();
    n->expr = e;
    n->stmt = s;
    n->var = v;
    return n;
  }

  // The severity in effect for a filterable rule at the current point: the innermost filter,
  // else the module's directive, else "error". An index into kSeverityName, or kOff.
  int rule_severity(const char* rule) const {
    auto index = [](const std::string& s) {
      for (int i = 0; i < kSeverities; ++i)
        if (s == kSeverityName[i]) return i;
      return kOff;
    };
    for (auto it = filters_.rbegin(); it != filters_.rend(); ++it)
      if (it->rule == rule) return index(it->severity);
    for (auto it = module_filters_.rbegin(); it != module_filters_.rend(); ++it)
      if (it->rule == rule) return index(it->severity);
    return 0;
  }

  size_t push_filters(const std::vector<Attribute>& attrs) {
    size_t pushed = 0;
    for (const auto& a : attrs) {
      if (a.name != "diagnostic" || a.args.size() < 2) continue;
      if (a.args[0]->kind != ExprKind::Ident || a.args[1]->kind != ExprKind::Ident) continue;
      filters_.push_back({a.args[0]->text, a.args[1]->text});
      ++pushed;
    }
    return pushed;
  }
  void pop_filters(size_t n) { filters_.resize(filters_.size() - n); }

  bool is_workgroup_uniform_builtin(const std::string& b) const {
    if (b == "num_subgroups" || b == "num_workgroups" || b == "subgroup_size" ||
        b == "workgroup_id")
      return true;
    return b == "subgroup_id" && scope_ == Scope::Subgroup;
  }

  // -- functions --
  bool process_function(const FnDecl* f) {
    FunctionInfo& info = functions_[f];
    fn_ = &info;
    info.fn = f;
    for (Node*& r : info.required) r = create();
    info.may_be_non_uniform = create();
    info.cf_start = create();
    if (f->return_type) info.value_return = create();
    info.params.resize(f->params.size());
    for (size_t i = 0; i < f->params.size(); ++i) {
      const VarDecl* p = f->params[i];
      ParamInfo& pi = info.params[i];
      pi.decl = p;
      pi.value = create(nullptr, nullptr, p);
      pi.is_pointer = decl_is_pointer(p);
      if (pi.is_pointer) {
        pi.ptr_input_contents = create(nullptr, nullptr, p);
        pi.ptr_input_contents->type = Node::PointerParameterContents;
        pi.ptr_output_contents = create();
        info.variables.set(p, pi.ptr_input_contents);
        info.local_vars.emplace_back(p, 0);
      } else {
        info.variables.set(p, pi.value);
      }
    }

    filters_.clear();
    constructs_.clear();
    push_filters(f->attrs);
    try {
      if (f->body) process_block(info.cf_start, f->body, nullptr, true);
    } catch (const LimitExceeded&) {
      diags_.error(f->span, "limit",
                   "the uniformity graph of '" + f->name + "' exceeds " +
                       std::to_string(kMaxNodesPerFunction) + " nodes");
      return false;
    }

    auto param_tag = [&](const std::unordered_set<Node*>& reachable, size_t i) {
      const ParamInfo& pi = info.params[i];
      if (pi.is_pointer) {
        if (reachable.count(pi.ptr_input_contents)) return ParamTag::ContentsRequiredToBeUniform;
        if (reachable.count(pi.value)) return ParamTag::ValueRequiredToBeUniform;
      } else if (reachable.count(info.variables.get(pi.decl))) {
        return ParamTag::ValueRequiredToBeUniform;
      }
      return ParamTag::NoRestriction;
    };

    // Most severe first: a tag takes the severity of the first requirement that sets it. A
    // violation of an error requirement ends the analysis; of a warning or info one, it is
    // reported and the analysis goes on.
    for (int sev = 0; sev < kSeverities; ++sev) {
      info.reset_visited();
      std::unordered_set<Node*> reachable;
      traverse(info.required[sev], &reachable);
      if (reachable.count(info.may_be_non_uniform)) {
        make_error(info, info.may_be_non_uniform, sev);
        if (sev == 0) return false;
        flush(kSeverityName[sev]);
      }
      if (reachable.count(info.cf_start) && info.callsite_severity == kOff)
        info.callsite_severity = sev;
      for (size_t i = 0; i < f->params.size(); ++i) {
        ParamInfo& pi = info.params[i];
        if (pi.tag_direct != ParamTag::NoRestriction) continue;
        pi.tag_direct = param_tag(reachable, i);
        pi.direct_severity = sev;
      }
    }
    if (info.value_return) {
      info.reset_visited();
      std::unordered_set<Node*> reachable;
      traverse(info.value_return, &reachable);
      info.return_may_be_non_uniform = reachable.count(info.may_be_non_uniform) != 0;
      for (size_t i = 0; i < f->params.size(); ++i)
        info.params[i].tag_retval = param_tag(reachable, i);
    }
    for (auto& pi : info.params) {
      if (!pi.ptr_output_contents) continue;
      info.reset_visited();
      std::unordered_set<Node*> reachable;
      traverse(pi.ptr_output_contents, &reachable);
      pi.pointer_may_become_non_uniform = reachable.count(info.may_be_non_uniform) != 0;
      for (size_t j = 0; j < f->params.size(); ++j) {
        ParamTag t = param_tag(reachable, j);
        if (t == ParamTag::ContentsRequiredToBeUniform) pi.ptr_output_source_contents.push_back(j);
        if (t == ParamTag::ValueRequiredToBeUniform) pi.ptr_output_source_values.push_back(j);
      }
    }
    return true;
  }

  // -- statements --
  bool declared_inside(size_t var_depth, const Stmt* construct) const {
    for (size_t i = 0; i < constructs_.size(); ++i)
      if (constructs_[i] == construct) return var_depth > i;
    return false;
  }

  // The innermost enclosing loop (any kind; with `or_switch` a switch too).
  const Stmt* enclosing(bool or_switch) const {
    for (auto it = constructs_.rbegin(); it != constructs_.rend(); ++it) {
      StmtKind k = (*it)->kind;
      if (k == StmtKind::Loop || k == StmtKind::For || k == StmtKind::While) return *it;
      if (or_switch && k == StmtKind::Switch) return *it;
    }
    return nullptr;
  }

  // Values of the variables declared outside `target` flow to its exit.
  void propagate_to_exit(const Stmt* target) {
    if (!target) return;
    LoopSwitchInfo& info = fn_->loop_switch[target];
    for (const auto& [var, depth] : fn_->local_vars) {
      if (declared_inside(depth, target)) continue;
      Node*& exit = slot(info.exit_nodes, var);
      if (!exit) exit = create();
      exit->add_edge(fn_->variables.get(var));
    }
  }

  Node* process_block(Node* cf, const Stmt* block, const Stmt* loop, bool function_body) {
    std::unordered_map<const VarDecl*, Node*> scoped;
    size_t vars_before = fn_->local_vars.size();
    fn_->variables.push();
    for (const Stmt* s : block->body) {
      cf = process_statement(cf, s);
      if (!(behaviors_.of(s) & kNext)) break;
    }
    if (loop) {
      // The end of a `loop` body: its continuing block, then the values flowing to the next
      // iteration.
      LoopSwitchInfo& info = fn_->loop_switch[loop];
      Behaviors body = behaviors_.of(block);
      if (body & (kNext | kContinue)) {
        if (loop->continuing) {
          for (auto& [var, node] : info.continuing_nodes) {
            if (body & kNext) {
              if (Node* end_of_body = fn_->variables.get(var)) node->add_edge(end_of_body);
            }
            fn_->variables.set(var, node);
          }
          cf = process_statement(cf, loop->continuing);
        }
        for (auto& [var, in] : info.in_nodes) {
          Node* out = fn_->variables.get(var);
          if (out != in) in->add_edge(out);
        }
      }
    }
    if (function_body) {
      for (auto& pi : fn_->params)
        if (pi.ptr_output_contents) pi.ptr_output_contents->add_edge(fn_->variables.get(pi.decl));
    }
    scoped = std::move(fn_->variables.top());
    fn_->variables.pop();
    if (behaviors_.of(block) & kNext)
      for (auto& [var, node] : scoped) fn_->variables.set(var, node);
    fn_->local_vars.resize(std::min(fn_->local_vars.size(), vars_before));
    return cf;
  }

  Node* process_statement(Node* cf, const Stmt* s) {
    size_t filters = push_filters(s->attrs);
    Node* out = process_statement_inner(cf, s);
    pop_filters(filters);
    return out;
  }

  Node* process_statement_inner(Node* cf, const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Assign: {
        if (!s->lhs) {
          process_expression(cf, s->expr);
          return cf;
        }
        if (s->op != Op::None) {
          // `a op= b` is `let p = &a; *p = *p op b;`
          auto [l1, ident] = process_lvalue(cf, s->lhs);
          Node* lhs_load = ident ? fn_->variables.get(ident) : nullptr;
          Node* v2 = process_expression(cf, s->expr);
          Node* result = create();
          result->add_edge(v2);
          result->add_edge(lhs_load);
          l1->add_edge(result);
          if (ident) fn_->variables.set(ident, l1);
          return cf;
        }
        auto [v_l, ident] = process_lvalue(cf, s->lhs);
        Node* v_r = process_expression(cf, s->expr);
        v_l->add_edge(v_r);
        if (ident) fn_->variables.set(ident, v_l);
        return cf;
      }
      case StmtKind::Increment:
      case StmtKind::Decrement: {
        auto [l1, ident] = process_lvalue(cf, s->lhs);
        Node* lhs_load = ident ? fn_->variables.get(ident) : nullptr;
        Node* result = create();
        result->add_edge(cf);
        result->add_edge(lhs_load);
        l1->add_edge(result);
        if (ident) fn_->variables.set(ident, l1);
        return cf;
      }
      case StmtKind::Block:
        return process_block(cf, s, nullptr, false);
      case StmtKind::Break: {
        propagate_to_exit(enclosing(true));
        return cf;
      }
      case StmtKind::BreakIf: {
        Node* v_cond = process_expression(cf, s->expr);
        Node* v = create(nullptr, s);
        v->affects_control_flow = true;
        v->add_edge(v_cond);
        propagate_to_exit(enclosing(false));
        if (behaviors_.of(s) != kNext) {
          Node* cf_end = create();
          cf_end->add_edge(v);
          return cf_end;
        }
        return cf;
      }
      case StmtKind::Call:
        process_expression(cf, s->expr);
        return cf;
      case StmtKind::Continue: {
        const Stmt* loop = enclosing(false);
        if (!loop) return cf;
        LoopSwitchInfo& info = fn_->loop_switch[loop];
        bool has_continuing =
            (loop->kind == StmtKind::Loop && loop->continuing && !loop->continuing->body.empty()) ||
            (loop->kind == StmtKind::For && loop->update);
        if (has_continuing) {
          for (const auto& [var, depth] : fn_->local_vars) {
            Node*& in = slot(info.continuing_nodes, var);
            if (!in) in = create(nullptr, nullptr, var);
            in->add_edge(fn_->variables.get(var));
          }
        } else {
          for (auto& [var, in] : info.in_nodes) {
            Node* out = fn_->variables.get(var);
            if (out != in) in->add_edge(out);
          }
        }
        return cf;
      }
      case StmtKind::Discard:
      case StmtKind::ConstAssert:
        return cf;
      case StmtKind::For:
        return process_for(cf, s);
      case StmtKind::While:
        return process_while(cf, s);
      case StmtKind::Loop:
        return process_loop(cf, s);
      case StmtKind::If:
        return process_if(cf, s);
      case StmtKind::Switch:
        return process_switch(cf, s);
      case StmtKind::Return: {
        if (s->expr) {
          Node* v = process_expression(cf, s->expr);
          if (fn_->value_return) fn_->value_return->add_edge(v);
        }
        for (auto& pi : fn_->params)
          if (pi.ptr_output_contents) pi.ptr_output_contents->add_edge(fn_->variables.get(pi.decl));
        return cf;
      }
      case StmtKind::Decl: {
        const VarDecl* v = s->decl;
        if (!v) return cf;
        Node* node = cf;
        if (v->initializer) {
          node = process_expression(cf, v->initializer);
          if (decl_is_pointer(v) && is_partial_pointer(v->initializer)) fn_->partial_ptrs.insert(v);
        }
        fn_->variables.set(v, node);
        if (v->kind == DeclKind::Var) fn_->local_vars.emplace_back(v, constructs_.size());
        return cf;
      }
    }
    return cf;
  }

  // Input nodes at the top of a loop for the variables declared before it.
  void make_loop_in_nodes(LoopSwitchInfo& info, bool with_decl) {
    for (const auto& [var, depth] : fn_->local_vars) {
      Node* in = create(nullptr, nullptr, with_decl ? var : nullptr);
      in->add_edge(fn_->variables.get(var));
      slot(info.in_nodes, var) = in;
      fn_->variables.set(var, in);
    }
  }
  void loop_in_edges(LoopSwitchInfo& info) {
    for (auto& [var, in] : info.in_nodes) {
      Node* out = fn_->variables.get(var);
      if (out != in) in->add_edge(out);
    }
  }
  void exits_to_outer_scope(LoopSwitchInfo& info) {
    for (auto& [var, node] : info.exit_nodes) fn_->variables.set(var, node);
  }

  Node* process_for(Node* cf, const Stmt* f) {
    Node* cf_iter_start = create();
    constructs_.push_back(f);  // the initializer's variable belongs to the loop
    size_t vars_before = fn_->local_vars.size();
    Node* cf_init_end = cf;
    if (f->init) cf_init_end = process_statement(cf, f->init);
    Node* cf_body_start = cf_iter_start;
    LoopSwitchInfo& info = fn_->loop_switch[f];
    make_loop_in_nodes(info, false);
    if (f->expr) {
      Node* v = process_expression(cf_iter_start, f->expr);
      Node* cond_end = create(nullptr, f);
      cond_end->affects_control_flow = true;
      cond_end->add_edge(v);
      cf_body_start = cond_end;
      for (const auto& [var, depth] : fn_->local_vars) {
        Node*& exit = slot(info.exit_nodes, var);
        if (!exit) exit = create();
        exit->add_edge(fn_->variables.get(var));
      }
    }
    Node* cf1 = process_statement(cf_body_start, f->then);
    Behaviors body = behaviors_.of(f->then);
    bool next_or_continue = body & (kNext | kContinue);
    Node* cf_end_of_iter = cf1;
    if (f->update && next_or_continue) {
      for (auto& [var, node] : info.continuing_nodes) {
        if (body & kNext) {
          if (Node* end_of_body = fn_->variables.get(var)) node->add_edge(end_of_body);
        }
        fn_->variables.set(var, node);
      }
      cf_end_of_iter = process_statement(cf1, f->update);
    }
    if (next_or_continue) cf_iter_start->add_edge(cf_end_of_iter);
    cf_iter_start->add_edge(cf_init_end);
    loop_in_edges(info);
    exits_to_outer_scope(info);
    fn_->local_vars.resize(std::min(fn_->local_vars.size(), vars_before));
    fn_->loop_switch.erase(f);
    constructs_.pop_back();
    if (body & kReturn) return next_or_continue ? cf_iter_start : cf1;
    return cf;
  }

  Node* process_while(Node* cf, const Stmt* w) {
    Node* cfx = create();
    constructs_.push_back(w);
    LoopSwitchInfo& info = fn_->loop_switch[w];
    make_loop_in_nodes(info, false);
    Node* v = process_expression(cfx, w->expr);
    Node* cond_end = create(nullptr, w);
    cond_end->affects_control_flow = true;
    cond_end->add_edge(v);
    for (const auto& [var, depth] : fn_->local_vars) {
      Node*& exit = slot(info.exit_nodes, var);
      if (!exit) exit = create();
      exit->add_edge(fn_->variables.get(var));
    }
    Node* cf1 = process_statement(cond_end, w->then);
    cfx->add_edge(cf1);
    cfx->add_edge(cf);
    loop_in_edges(info);
    exits_to_outer_scope(info);
    fn_->loop_switch.erase(w);
    constructs_.pop_back();
    return behaviors_.of(w) == kNext ? cf : cfx;
  }

  Node* process_loop(Node* cf, const Stmt* l) {
    Node* cfx = create();
    constructs_.push_back(l);
    LoopSwitchInfo& info = fn_->loop_switch[l];
    make_loop_in_nodes(info, true);
    // The continuing block is processed at the end of the body's block, where the body's
    // declarations are still visible.
    size_t filters = l->then ? push_filters(l->then->attrs) : 0;
    Node* cf1 = l->then ? process_block(cfx, l->then, l, false) : cfx;
    pop_filters(filters);
    if (behaviors_.of(l->then) & (kNext | kContinue)) cfx->add_edge(cf1);
    cfx->add_edge(cf);
    exits_to_outer_scope(info);
    fn_->loop_switch.erase(l);
    constructs_.pop_back();
    return (behaviors_.of(l) & kReturn) ? cf1 : cf;
  }

  Node* process_if(Node* cf, const Stmt* i) {
    Node* v_cond = process_expression(cf, i->expr);
    Node* v = create(nullptr, i);
    v->affects_control_flow = true;
    v->add_edge(v_cond);

    auto in_scope = [&](const Stmt* s, std::unordered_map<const VarDecl*, Node*>& assigned) {
      fn_->variables.push();
      Node* out = process_statement(v, s);
      assigned = fn_->variables.top();
      fn_->variables.pop();
      return out;
    };
    std::unordered_map<const VarDecl*, Node*> true_vars, false_vars;
    Node* cf1 = in_scope(i->then, true_vars);
    bool true_next = behaviors_.of(i->then) & kNext, false_next = true;
    Node* cf2 = nullptr;
    if (i->else_) {
      cf2 = in_scope(i->else_, false_vars);
      false_next = behaviors_.of(i->else_) & kNext;
    }
    for (const auto& [var, depth] : fn_->local_vars) {
      auto t = true_vars.find(var), f = false_vars.find(var);
      if (t == true_vars.end() && f == false_vars.end()) continue;
      Node* out = create();
      if (true_next) out->add_edge(t != true_vars.end() ? t->second : fn_->variables.get(var));
      if (false_next) out->add_edge(f != false_vars.end() ? f->second : fn_->variables.get(var));
      fn_->variables.set(var, out);
    }
    if (behaviors_.of(i) != kNext) {
      Node* cf_end = create();
      cf_end->add_edge(cf1);
      cf_end->add_edge(cf2);
      return cf_end;
    }
    return cf;
  }

  Node* process_switch(Node* cf, const Stmt* s) {
    Node* v_cond = process_expression(cf, s->expr);
    Node* v = create(nullptr, s);
    v->affects_control_flow = true;
    v->add_edge(v_cond);
    Node* cf_end = behaviors_.of(s) != kNext ? create() : nullptr;
    constructs_.push_back(s);
    LoopSwitchInfo& info = fn_->loop_switch[s];
    for (const auto& c : s->cases) {
      fn_->variables.push();
      Node* cf_n = c.body ? process_statement(v, c.body) : v;
      if (cf_end) cf_end->add_edge(cf_n);
      if (behaviors_.of(c.body) & kNext) propagate_to_exit(s);
      fn_->variables.pop();
    }
    exits_to_outer_scope(info);
    fn_->loop_switch.erase(s);
    constructs_.pop_back();
    return cf_end ? cf_end : cf;
  }

  // -- expressions --
  Node* process_ident(Node* cf, const Expr* ident, bool load_rule) {
    Node* node = create(ident);
    const VarDecl* var = ident_var(ident);
    if (!var) {
      node->add_edge(cf);
      return node;
    }
    if (var->kind == DeclKind::Param) {
      const FnDecl* owner = fn_->fn;
      Stage stage = stage_of(owner);
      if (stage != Stage::None) {
        // Entry point inputs: only some builtins are uniform, and only in compute.
        auto non_uniform = [&](const std::string& sema_builtin,
                               const std::vector<Attribute>& attrs) {
          std::string b = builtin_of(sema_builtin, attrs);
          if (b.empty() || stage != Stage::Compute) return true;
          return !is_workgroup_uniform_builtin(b);
        };
        bool uniform = true;
        if (var->type && var->type->kind == Type::Kind::Struct && var->type->decl) {
          for (const auto& m : var->type->decl->members)
            if (non_uniform(m.builtin, m.attrs)) uniform = false;
        } else {
          uniform = !non_uniform(var->builtin, var->attrs);
        }
        node->add_edge(uniform ? cf : fn_->may_be_non_uniform);
        return node;
      }
      node->add_edge(cf);
      size_t index = 0;
      while (index < fn_->params.size() && fn_->params[index].decl != var) ++index;
      if (index == fn_->params.size()) return node;
      const ParamInfo& pi = fn_->params[index];
      if (pi.is_pointer) {
        if (load_rule) {
          const Type* pt = param_pointer_type(var);
          bool contents_tracked = !pt || pt->space == AddressSpace::Function ||
                                  pt->access == Access::Read || pt->space == AddressSpace::Uniform;
          node->add_edge(contents_tracked ? fn_->variables.get(var) : fn_->may_be_non_uniform);
        } else {
          node->add_edge(pi.value);
        }
      } else {
        node->add_edge(fn_->variables.get(var));
      }
      return node;
    }
    if (var->module_scope) {
      node->add_edge(is_mutable_global(var) && load_rule ? fn_->may_be_non_uniform : cf);
      return node;
    }
    // A function-scope declaration.
    node->add_edge(cf);
    Node* local_value = fn_->variables.get(var);
    if (var->kind != DeclKind::Var && decl_is_pointer(var)) {
      if (load_rule) {
        const VarDecl* root = root_identifier(ident);
        if (root && root->module_scope) {
          if (!is_read_only_global(root)) node->add_edge(fn_->may_be_non_uniform);
        } else if (root) {
          node->add_edge(fn_->variables.get(root));
        }
      }
      node->add_edge(local_value);
    } else if (var->kind == DeclKind::Var) {
      if (load_rule) node->add_edge(local_value);
    } else {
      node->add_edge(local_value);
    }
    return node;
  }

  // `value_context`: the expression is used as a value, so the load rule applies to it when it
  // is a memory view; the base of an index or member access and the operand of & and * are not.
  Node* process_expression(Node* cf, const Expr* e, bool load_rule = false,
                           bool value_context = true) {
    if (!e) return cf;
    if (value_context && is_reference_expr(e)) load_rule = true;
    switch (e->kind) {
      case ExprKind::BoolLit:
      case ExprKind::IntLit:
      case ExprKind::FloatLit:
        return cf;
      case ExprKind::Ident:
        return process_ident(cf, e, load_rule);
      case ExprKind::Call:
        return process_call(cf, e);
      case ExprKind::Index: {
        Node* v1 = process_expression(cf, e->args[1]);
        Node* v2 = process_expression(cf, e->args[0], load_rule, false);
        Node* result = create();
        result->add_edge(v1);
        result->add_edge(v2);
        return result;
      }
      case ExprKind::Member:
        // A swizzle of several components reads a value from its base (the load applies there);
        // a struct member or one component is a view into the base.
        // On a pointer (pointer_composite_access: `(&v).yw`, `p.yw`) the load is through it.
        if (e->swizzle.size() > 1) {
          if (is_pointer_expr(e->args[0])) return process_expression(cf, e->args[0], true, false);
          return process_expression(cf, e->args[0], false, true);
        }
        return process_expression(cf, e->args[0], load_rule, false);
      case ExprKind::Unary: {
        // The operand of & and * is a memory view or a pointer, not a loaded value; the others
        // (-, !, ~) take a value.
        bool view = e->op == Op::AddrOf || e->op == Op::Deref;
        return process_expression(cf, e->args[0], view && load_rule, !view);
      }
      case ExprKind::Binary: {
        if (e->op == Op::LogAnd || e->op == Op::LogOr) {
          Node* v1 = process_expression(cf, e->args[0]);
          Node* v1_cf = create(e);
          v1_cf->affects_control_flow = true;
          v1_cf->add_edge(v1);
          fn_->variables.push();
          Node* v2 = process_expression(v1_cf, e->args[1]);
          auto rhs_vars = fn_->variables.top();
          fn_->variables.pop();
          for (const auto& [var, depth] : fn_->local_vars) {
            auto it = rhs_vars.find(var);
            if (it == rhs_vars.end()) continue;
            Node* out = create();
            out->add_edge(it->second);
            out->add_edge(fn_->variables.get(var));
            fn_->variables.set(var, out);
          }
          return v2;
        }
        Node* v1 = process_expression(cf, e->args[0]);
        Node* v2 = process_expression(cf, e->args[1]);
        Node* result = create(e);
        result->add_edge(v1);
        result->add_edge(v2);
        return result;
      }
    }
    return cf;
  }

  bool is_partial_pointer(const Expr* e) const {
    while (e->kind == ExprKind::Unary && (e->op == Op::Deref || e->op == Op::AddrOf))
      e = e->args[0];
    if (const VarDecl* v = ident_var(e)) return fn_->partial_ptrs.count(v) != 0;
    return e->kind == ExprKind::Index || e->kind == ExprKind::Member;
  }

  struct LValue {
    Node* new_val;
    const VarDecl* root;
  };

  LValue process_lvalue(Node* cf, const Expr* e, bool dereferencing = false, bool partial = false) {
    switch (e->kind) {
      case ExprKind::Ident: {
        const VarDecl* var = ident_var(e);
        LValue result{nullptr, nullptr};
        if (!var || var->module_scope) {
          result = {fn_->may_be_non_uniform, nullptr};
        } else if (var->kind == DeclKind::Param) {
          // A parameter is assigned only through a pointer.
          Node* value = create();
          for (auto& pi : fn_->params)
            if (pi.decl == var) value->add_edge(pi.value);
          result = {value, var};
        } else if (dereferencing) {
          const VarDecl* root = root_identifier(var->initializer);
          Node* value = create();
          value->add_edge(fn_->variables.get(var));
          result = {value, root};
        } else {
          result = {create(), var};
        }
        if (partial && result.root) {
          if (Node* old_value = fn_->variables.get(result.root))
            result.new_val->add_edge(old_value);
        }
        return result;
      }
      case ExprKind::Index: {
        dereferencing = dereferencing || is_pointer_expr(e->args[0]);
        Node* v1 = process_expression(cf, e->args[1]);
        LValue l2 = process_lvalue(cf, e->args[0], dereferencing, true);
        l2.new_val->add_edge(v1);
        return l2;
      }
      case ExprKind::Member: {
        dereferencing = dereferencing || is_pointer_expr(e->args[0]);
        bool full_swizzle = !e->swizzle.empty() && e->swizzle.size() == swizzled_vector_width(e);
        return process_lvalue(cf, e->args[0], dereferencing, partial || !full_swizzle);
      }
      case ExprKind::Unary:
        if (e->op == Op::Deref)
          return process_lvalue(cf, e->args[0], true, partial || is_partial_pointer(e));
        return process_lvalue(cf, e->args[0], false, partial);
      default: {
        // Not a memory view (sema refuses it): analyze it as a value.
        Node* v = process_expression(cf, e);
        Node* n = create();
        n->add_edge(v);
        return {n, nullptr};
      }
    }
  }

  Node* process_call(Node* cf, const Expr* call) {
    const std::string name = callee_name(call);
    std::vector<Node*> args, ptrarg_contents(call->args.size(), nullptr);
    for (size_t i = 0; i < call->args.size(); ++i) {
      Node* arg_i = process_expression(cf, call->args[i]);
      Node* arg = create(call);
      arg->type = Node::CallArgumentValue;
      arg->arg_index = uint32_t(i);
      arg->add_edge(arg_i);
      if (is_pointer_expr(call->args[i])) {
        Node* contents = create(call);
        contents->type = Node::CallArgumentContents;
        contents->arg_index = uint32_t(i);
        const VarDecl* root = root_identifier(call->args[i]);
        if (root && root->module_scope) {
          if (!is_read_only_global(root)) contents->add_edge(fn_->may_be_non_uniform);
        } else if (root) {
          contents->add_edge(fn_->variables.get(root));
        }
        contents->add_edge(arg);
        ptrarg_contents[i] = contents;
      }
      args.push_back(arg);
    }

    Node* call_node = create(call);
    call_node->add_edge(cf);
    Node* result = create(call);
    result->type = Node::CallReturnValue;

    int callsite_severity = kOff;
    bool return_non_uniform = false;
    const FunctionInfo* callee = nullptr;
    BuiltinKind bk = BuiltinKind::Other;
    if (call->target == CallTarget::Function && call->fn) {
      auto it = functions_.find(call->fn);
      if (it != functions_.end()) {
        callee = &it->second;
        callsite_severity = callee->callsite_severity;
        return_non_uniform = callee->return_may_be_non_uniform;
      }
    } else if (call->target == CallTarget::Builtin) {
      bk = classify_builtin(name);
      switch (bk) {
        case BuiltinKind::Barrier:
        case BuiltinKind::WorkgroupUniformLoad:
          callsite_severity = scope_ == Scope::Workgroup ? 0 : kOff;
          break;
        case BuiltinKind::Derivative:
          callsite_severity =
              scope_ == Scope::Workgroup ? rule_severity("derivative_uniformity") : kOff;
          return_non_uniform = true;
          break;
        case BuiltinKind::Atomic:
          return_non_uniform = true;
          break;
        case BuiltinKind::Subgroup:
          callsite_severity =
              scope_ == Scope::Subgroup ? rule_severity("subgroup_uniformity") : kOff;
          return_non_uniform = !(scope_ == Scope::Subgroup && subgroup_uniform_result(name));
          break;
        case BuiltinKind::Other:
          if (name == "textureLoad" && !call->args.empty() &&
              is_read_write_storage_texture(call->args[0]))
            return_non_uniform = true;
          break;
      }
    }

    if (return_non_uniform) result->add_edge(fn_->may_be_non_uniform);
    result->add_edge(call_node);

    for (size_t i = 0; i < args.size(); ++i) {
      if (callee) {
        if (i >= callee->params.size()) break;
        const ParamInfo& pi = callee->params[i];
        Node* required = fn_->required[pi.direct_severity];
        if (pi.tag_direct == ParamTag::ValueRequiredToBeUniform) required->add_edge(args[i]);
        if (pi.tag_direct == ParamTag::ContentsRequiredToBeUniform)
          required->add_edge(ptrarg_contents[i]);
        if (pi.tag_retval == ParamTag::ValueRequiredToBeUniform) result->add_edge(args[i]);
        if (pi.tag_retval == ParamTag::ContentsRequiredToBeUniform)
          result->add_edge(ptrarg_contents[i]);
        if (is_pointer_expr(call->args[i])) {
          Node* ptr_result = create(call);
          ptr_result->type = Node::CallPointerArgumentResult;
          ptr_result->arg_index = uint32_t(i);
          if (pi.pointer_may_become_non_uniform) {
            ptr_result->add_edge(fn_->may_be_non_uniform);
          } else {
            ptr_result->add_edge(call_node);
            for (size_t src : pi.ptr_output_source_values)
              if (src < args.size()) ptr_result->add_edge(args[src]);
            for (size_t src : pi.ptr_output_source_contents)
              if (src < args.size()) ptr_result->add_edge(ptrarg_contents[src]);
          }
          if (const VarDecl* root = root_identifier(call->args[i])) {
            Node* old_value = fn_->variables.get(root);
            if (is_partial_pointer(call->args[i]) && old_value) ptr_result->add_edge(old_value);
            fn_->variables.set(root, ptr_result);
          }
        }
      } else if (bk == BuiltinKind::WorkgroupUniformLoad && scope_ == Scope::Workgroup) {
        fn_->required[0]->add_edge(args[i]);
      } else if (bk == BuiltinKind::Subgroup && i == 1 &&
                 (name == "subgroupShuffleDown" || name == "subgroupShuffleUp" ||
                  name == "subgroupShuffleXor")) {
        int sev = scope_ == Scope::Subgroup ? rule_severity("subgroup_uniformity") : kOff;
        if (sev != kOff) fn_->required[sev]->add_edge(args[i]);
      } else {
        result->add_edge(args[i]);
      }
    }
    // Added last, so that the traversal (last edge first) reports the call-site requirement.
    if (callsite_severity != kOff) fn_->required[callsite_severity]->add_edge(call_node);
    return result;
  }

  // -- traversal and reporting --
  static void traverse(Node* source, std::unordered_set<Node*>* reachable) {
    std::vector<Node*> to_visit{source};
    while (!to_visit.empty()) {
      Node* node = to_visit.back();
      to_visit.pop_back();
      if (reachable) reachable->insert(node);
      for (Node* to : node->edges) {
        if (!to->visited_from) {
          to->visited_from = node;
          to_visit.push_back(to);
        }
      }
    }
  }

  // Notes are collected here and appended to the error's message.
  std::vector<std::string> notes_;
  void note(Span s, const std::string& text) { notes_.push_back(at(s) + ": " + text); }

  const char* var_kind(const VarDecl* v) const {
    switch (v->space) {
      case AddressSpace::Storage:
        return "read_write storage buffer ";
      case AddressSpace::Workgroup:
        return "workgroup storage variable ";
      case AddressSpace::Private:
        return "module-scope private variable ";
      default:
        return "";
    }
  }
  const char* param_kind(const VarDecl* p) const {
    if (has_attr(p->attrs, "builtin") || !p->builtin.empty()) return "builtin ";
    if (has_attr(p->attrs, "location")) return "user-defined input ";
    return "parameter ";
  }
  std::string owner_name(const VarDecl* param) const {
    for (const auto& [f, info] : functions_)
      for (const VarDecl* p : f->params)
        if (p == param) return f->name;
    return "";
  }

  void show_source_of_non_uniformity(const Node* n) {
    if (!n) return;
    if (n->expr && n->expr->kind == ExprKind::Ident) {
      const VarDecl* var = ident_var(n->expr);
      if (var && var->kind == DeclKind::Param)
        note(start(n->expr), std::string(param_kind(var)) + "'" + n->expr->text + "' of '" +
                                 owner_name(var) + "' may be non-uniform");
      else if (var)
        note(start(n->expr), std::string("reading from ") + var_kind(var) + "'" + n->expr->text +
                                 "' may result in a non-uniform value");
      return;
    }
    if (n->var) {
      if (n->var->kind == DeclKind::Param) {
        if (n->type == Node::PointerParameterContents)
          note(n->var->span, "parameter '" + n->var->name + "' of '" + owner_name(n->var) +
                                 "' may point to a non-uniform value");
        else
          note(n->var->span, std::string(param_kind(n->var)) + "'" + n->var->name + "' of '" +
                                 owner_name(n->var) + "' may be non-uniform");
      } else {
        note(n->var->span, std::string("reading from ") + var_kind(n->var) + "'" + n->var->name +
                               "' may result in a non-uniform value");
      }
      return;
    }
    if (n->expr && n->expr->kind == ExprKind::Call) {
      const Expr* c = n->expr;
      std::string target = callee_name(c);
      switch (n->type) {
        case Node::CallReturnValue:
          note(start(c), "return value of '" + target + "' may be non-uniform");
          break;
        case Node::CallArgumentContents: {
          const VarDecl* root =
              n->arg_index < c->args.size() ? root_identifier(c->args[n->arg_index]) : nullptr;
          if (root)
            note(root->span, std::string("reading from ") + var_kind(root) + "'" + root->name +
                                 "' may result in a non-uniform value");
          break;
        }
        case Node::CallArgumentValue:
          if (n->arg_index < c->args.size())
            note(start(c->args[n->arg_index]), "passing non-uniform pointer to '" + target +
                                                   "' may produce a non-uniform output");
          break;
        case Node::CallPointerArgumentResult:
          if (n->arg_index < c->args.size())
            note(start(c->args[n->arg_index]),
                 "contents of pointer may become non-uniform after calling '" + target + "'");
          break;
        default:
          break;
      }
      return;
    }
    if (n->expr) note(start(n->expr), "result of expression may be non-uniform");
  }

  static Node* trace_back_until_control_flow(Node* start) {
    for (Node* n = start; n; n = n->visited_from)
      if (n->affects_control_flow) return n;
    return nullptr;
  }

  void show_control_flow_divergence(FunctionInfo& function, Node* required, Node* source) {
    function.reset_visited();
    traverse(required, nullptr);
    Node* non_uniform = source;
    if (non_uniform == function.may_be_non_uniform) non_uniform = non_uniform->visited_from;
    if (!non_uniform) return;
    if (Node* cf = trace_back_until_control_flow(non_uniform)) {
      Span s = cf->stmt ? cf->stmt->span : cf->expr ? start(cf->expr) : Span{};
      note(s, "control flow depends on possibly non-uniform value");
    }
    show_source_of_non_uniformity(non_uniform);
  }

  // The builtin call below `call` that requires uniformity (following user functions down).
  const Expr* find_builtin_requiring_uniformity(const Expr* call) {
    for (int depth = 0; call && depth < 100000; ++depth) {
      if (call->target != CallTarget::Function || !call->fn) return call;
      auto it = functions_.find(call->fn);
      if (it == functions_.end()) return call;
      const Expr* child = nullptr;
      for (const Node* r : it->second.required) {
        for (const Node* n : r->edges)
          if (n->type == Node::Regular && n->expr && n->expr->kind == ExprKind::Call) {
            child = n->expr;
            break;
          }
        if (child) break;
      }
      if (!child) return call;
      call = child;
    }
    return call;
  }

  const FnDecl* function_containing(const Expr* call) const {
    for (const auto& [f, info] : functions_)
      for (const Node& n : info.nodes)
        if (n.expr == call) return f;
    return nullptr;
  }

  // Reports the violation: the primary error at the builtin call or argument, the notes after.
  // `depth` bounds the descent into callees through arguments required to be uniform.
  // `severity`: which of the function's RequiredToBeUniform nodes reached `source`.
  void make_error(FunctionInfo& function, Node* source, int severity, int depth = 0) {
    Node* required = function.required[severity];
    function.reset_visited();
    traverse(required, nullptr);
    Node* cause = source;
    while (cause && cause->visited_from != required) cause = cause->visited_from;
    if (!cause || !cause->expr || cause->expr->kind != ExprKind::Call) {
      primary({}, "a uniformity requirement is not met in '" + function.fn->name + "'");
      return;
    }
    const Expr* call = cause->expr;
    std::string func_name = callee_name(call);
    if (cause->type == Node::CallArgumentValue || cause->type == Node::CallArgumentContents) {
      bool is_value = cause->type == Node::CallArgumentValue;
      Span arg_span =
          cause->arg_index < call->args.size() ? start(call->args[cause->arg_index]) : start(call);
      if (call->target == CallTarget::Function && call->fn && functions_.count(call->fn) &&
          depth < 64) {
        FunctionInfo& next = functions_[call->fn];
        if (cause->arg_index < next.params.size()) {
          ParamInfo& pi = next.params[cause->arg_index];
          make_error(next, is_value ? pi.value : pi.ptr_input_contents, pi.direct_severity,
                     depth + 1);
        }
        note(arg_span, std::string("possibly non-uniform value passed") +
                           (is_value ? "" : " via pointer") + " here");
      } else {
        primary(arg_span, "'" + func_name + "' requires argument " +
                              std::to_string(cause->arg_index) + " to " +
                              (is_value ? "be uniform" : "have uniform contents"));
      }
      show_source_of_non_uniformity(source->visited_from);
      return;
    }
    const Expr* builtin_call = find_builtin_requiring_uniformity(call);
    primary(start(builtin_call), "'" + callee_name(builtin_call) + "' must only be called from " +
                                     (scope_ == Scope::Subgroup ? "subgroup " : "") +
                                     "uniform control flow");
    if (builtin_call != call) {
      std::string how =
          function_containing(builtin_call) == call->fn ? "called " : "called indirectly ";
      note(start(call), how + "by '" + func_name + "' from '" + function.fn->name + "'");
    }
    show_control_flow_divergence(function, cause, source);
  }

  bool have_primary_ = false;
  Span primary_span_;
  std::string primary_message_;
  void primary(Span s, std::string message) {
    if (have_primary_) return;
    have_primary_ = true;
    primary_span_ = s;
    primary_message_ = std::move(message);
  }

 public:
  // Emits the violation gathered by make_error: the error once build() returned false, or a
  // warning or info as soon as it is found (then gathering starts afresh).
  void flush(const char* severity = "error") {
    if (!have_primary_) return;
    std::string msg = primary_message_;
    for (const auto& n : notes_) msg += "; " + n;
    if (std::string_view(severity) == "error")
      diags_.error(primary_span_, "uniformity", msg);
    else
      diags_.warning(primary_span_, "uniformity", msg, severity);
    have_primary_ = false;
    notes_.clear();
  }
};

}  // namespace

void check_uniformity(const Module& module, Diags& diags) {
  for (Scope scope : {Scope::Workgroup, Scope::Subgroup}) {
    UniformityGraph graph(module, diags, scope);
    if (!graph.build()) {
      graph.flush();
      return;
    }
  }
}

}  // namespace wgslvk::wgsl
