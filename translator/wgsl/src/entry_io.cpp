// WGSL's entry point IO rules for every stage (WGSL "Entry Point Inputs and Outputs": built-in
// values, user-defined IO with @location, @interpolate, @invariant), checked after sema on an
// analyzed module. wgslvk translates only compute entry points, but a module WebGPU refuses at
// createShaderModule must be refused here too, vertex and fragment entry points included: the
// WebGPU CTS's shader_io validation tests (cts/README.md). Messages follow Tint's wording.
//
// Compute inputs' built-ins are sema's (sema.cpp entry_io); this pass adds what sema leaves:
// non-entry functions carrying IO attributes, vertex and fragment IO (built-in table by stage and
// direction, types, duplicates, locations and their types and values, interpolation, the integral
// flat rule, invariant, the vertex position output), nested IO structures, and user-defined IO
// on compute entry points.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "passes.hpp"

namespace wgslvk::wgsl {
namespace {

using K = Type::Kind;
enum class Dir { In, Out };

struct BuiltinRow {
  const char* name;
  Stage stage;
  Dir dir;
  const char* type;  // Type::wgsl() spelling; "" for clip_distances (array<f32, 1..8>)
};
// WGSL's built-in input and output values (the table of "Built-in Values").
const BuiltinRow kBuiltins[] = {
    {"vertex_index", Stage::Vertex, Dir::In, "u32"},
    {"instance_index", Stage::Vertex, Dir::In, "u32"},
    {"position", Stage::Vertex, Dir::Out, "vec4<f32>"},
    {"clip_distances", Stage::Vertex, Dir::Out, ""},
    {"position", Stage::Fragment, Dir::In, "vec4<f32>"},
    {"front_facing", Stage::Fragment, Dir::In, "bool"},
    {"frag_depth", Stage::Fragment, Dir::Out, "f32"},
    {"sample_index", Stage::Fragment, Dir::In, "u32"},
    {"sample_mask", Stage::Fragment, Dir::In, "u32"},
    {"sample_mask", Stage::Fragment, Dir::Out, "u32"},
    {"subgroup_invocation_id", Stage::Fragment, Dir::In, "u32"},
    {"subgroup_size", Stage::Fragment, Dir::In, "u32"},
    {"local_invocation_id", Stage::Compute, Dir::In, "vec3<u32>"},
    {"local_invocation_index", Stage::Compute, Dir::In, "u32"},
    {"global_invocation_id", Stage::Compute, Dir::In, "vec3<u32>"},
    {"workgroup_id", Stage::Compute, Dir::In, "vec3<u32>"},
    {"num_workgroups", Stage::Compute, Dir::In, "vec3<u32>"},
    {"subgroup_invocation_id", Stage::Compute, Dir::In, "u32"},
    {"subgroup_size", Stage::Compute, Dir::In, "u32"},
};

bool is_io_attribute(const std::string& n) {
  return n == "builtin" || n == "location" || n == "interpolate" || n == "invariant";
}

const char* stage_word(Stage s) {
  return s == Stage::Vertex ? "vertex" : s == Stage::Fragment ? "fragment" : "compute";
}

// Whether an expression names an override anywhere (a location must be a const-expression).
bool uses_override(const Expr* e) {
  if (!e) return false;
  if (e->decl && e->decl->kind == DeclKind::Override) return true;
  for (const Expr* a : e->args)
    if (uses_override(a)) return true;
  return uses_override(e->callee);
}

class EntryIo {
 public:
  EntryIo(const Module& m, Diags& d) : m_(m), d_(d) {}

  void run() {
    for (const Decl* decl : m_.decls) {
      if (decl->kind != DeclKind::Fn) continue;
      const auto* f = static_cast<const FnDecl*>(decl);
      if (f->stage == Stage::None)
        non_entry(f);
      else
        entry(f);
    }
  }

 private:
  void error(Span at, const char* rule, std::string message) {
    d_.error(at, rule, std::move(message));
  }

  // @location, @interpolate, @invariant on a plain function's parameters (sema reports @builtin)
  // and any IO attribute on its return type.
  void non_entry(const FnDecl* f) {
    for (const VarDecl* p : f->params)
      for (const Attribute& a : p->attrs)
        if (a.name == "location" || a.name == "interpolate" || a.name == "invariant")
          error(a.span, "attribute",
                "@" + a.name + " is only valid on the parameters of an entry point ('" + p->name +
                    "')");
    for (const Attribute& a : f->return_attrs)
      error(a.span, "attribute",
            "attribute '" + a.name + "' is not valid for non-entry point function return types");
  }

  struct Site {
    Span span;
    const std::vector<Attribute>* attrs;
    const Type* type;
    std::string what;  // for messages: "parameter 'x'", "member 'S.m'", "return value"
  };

  void entry(const FnDecl* f) {
    std::vector<Site> in, out;
    for (const VarDecl* p : f->params) {
      if (!p->type) continue;
      collect(p->span, p->attrs, p->type, "parameter '" + p->name + "'", in);
    }
    const Type* rt = f->return_type_resolved;
    if (rt && rt->kind != K::Void)
      collect(f->return_type ? f->return_type->span : f->span, f->return_attrs, rt, "return value",
              out);
    else
      for (const Attribute& a : f->return_attrs)
        error(a.span, "attribute", "attribute '" + a.name + "' on a function returning nothing");
    bool position_out = false;
    for (int d = 0; d < 2; d++) {
      const Dir dir = d == 0 ? Dir::In : Dir::Out;
      std::set<std::string> builtins;
      std::set<int64_t> locations;
      for (const Site& s : d == 0 ? in : out) {
        std::string b = site(f->stage, dir, s, builtins, locations);
        if (b == "position" && dir == Dir::Out) position_out = true;
      }
    }
    if (f->stage == Stage::Vertex && !position_out)
      error(f->return_type ? f->return_type->span : f->span, "entry-point",
            "a vertex shader must include the 'position' builtin in its return type");
  }

  // A parameter or return value: itself an IO site, or a structure whose members are (nested
  // structures are not IO).
  void collect(Span span, const std::vector<Attribute>& attrs, const Type* t, std::string what,
               std::vector<Site>& out) {
    if (t->kind != K::Struct || !t->decl) {
      out.push_back({span, &attrs, t, std::move(what)});
      return;
    }
    for (const Attribute& a : attrs)
      if (is_io_attribute(a.name))
        error(a.span, "attribute",
              "entry point IO attributes must not be used on structure " + what + "s");
    for (const StructMember& mem : t->decl->members) {
      if (!mem.type) continue;
      if (mem.type->kind == K::Struct) {
        error(mem.span, "entry-point",
              "nested structures cannot be used for entry point IO ('" + t->decl->name + "." +
                  mem.name + "')");
        continue;
      }
      out.push_back(
          {mem.span, &mem.attrs, mem.type, "member '" + t->decl->name + "." + mem.name + "'"});
    }
  }

  // Checks one IO site; returns its builtin's name, if any.
  std::string site(Stage stage, Dir dir, const Site& s, std::set<std::string>& builtins,
                   std::set<int64_t>& locations) {
    const Attribute *builtin = nullptr, *location = nullptr, *interpolate = nullptr,
                    *invariant = nullptr;
    std::set<std::string> seen;
    for (const Attribute& a : *s.attrs) {
      if (!is_io_attribute(a.name)) continue;
      if (!seen.insert(a.name).second) {
        error(a.span, "attribute", "duplicate " + a.name + " attribute");
        continue;
      }
      (a.name == "builtin"       ? builtin
       : a.name == "location"    ? location
       : a.name == "interpolate" ? interpolate
                                 : invariant) = &a;
    }
    const std::string io = dir == Dir::In ? "input" : "output";
    if (builtin && location) {
      error(location->span, "attribute", "multiple entry point IO attributes on " + s.what);
      return "";
    }
    if (!builtin && !location) {
      // Compute inputs: sema reports them.
      if (!(stage == Stage::Compute && dir == Dir::In))
        error(s.span, "entry-point", "missing entry point IO attribute on " + s.what);
      return "";
    }
    std::string name;
    if (builtin) {
      if (builtin->args.size() == 1 && builtin->args[0]->kind == ExprKind::Ident)
        name = builtin->args[0]->text;
      if (stage != Stage::Compute || dir == Dir::Out) check_builtin(stage, dir, s, *builtin, name);
      if (!name.empty() && !builtins.insert(name).second && stage != Stage::Compute)
        error(builtin->span, "entry-point",
              "@builtin(" + name + ") appears multiple times as pipeline " + io);
    }
    if (location) {
      check_location(stage, dir, s, *location, locations);
      if (interpolate) check_interpolate(*interpolate);
      if (is_integral(s.type) && ((stage == Stage::Vertex && dir == Dir::Out) ||
                                  (stage == Stage::Fragment && dir == Dir::In))) {
        bool flat = interpolate && !interpolate->args.empty() &&
                    interpolate->args[0]->kind == ExprKind::Ident &&
                    interpolate->args[0]->text == "flat";
        if (!flat)
          error(s.span, "entry-point",
                std::string("integral user-defined ") + stage_word(stage) + " " + io +
                    "s must have a flat interpolation attribute (" + s.what + ")");
      }
    } else if (interpolate) {
      error(interpolate->span, "attribute",
            "@interpolate can only be used with @location (" + s.what + ")");
    }
    if (invariant) {
      if (!invariant->args.empty())
        error(invariant->span, "attribute", "@invariant takes no arguments");
      if (name != "position")
        error(invariant->span, "attribute",
              "@invariant must only be applied to a position builtin (" + s.what + ")");
    }
    return name;
  }

  void check_builtin(Stage stage, Dir dir, const Site& s, const Attribute& a,
                     const std::string& name) {
    if (name.empty()) return;  // sema reported the malformed attribute
    const BuiltinRow* row = nullptr;
    bool known = false;
    for (const BuiltinRow& r : kBuiltins) {
      if (name != r.name) continue;
      known = true;
      if (r.stage == stage && r.dir == dir) row = &r;
    }
    const std::string io = dir == Dir::In ? "input" : "output";
    if (!known) {
      error(a.span, "attribute", "unresolved builtin value '" + name + "'");
      return;
    }
    if (!row) {
      error(a.span, "entry-point",
            "@builtin(" + name + ") cannot be used for " + stage_word(stage) + " shader " + io);
      return;
    }
    if (name == "clip_distances") {
      // Needs `enable clip_distances`, which this front end does not accept: never valid here.
      error(a.span, "extension",
            "cannot use builtin(clip_distances) without 'enable clip_distances;'");
      return;
    }
    if ((name == "subgroup_invocation_id" || name == "subgroup_size") && !m_.enables_subgroups)
      error(a.span, "extension", "cannot use builtin(" + name + ") without 'enable subgroups;'");
    if (s.type->wgsl() != row->type)
      error(a.span, "entry-point",
            "store type of @builtin(" + name + ") must be '" + row->type + "', not '" +
                s.type->wgsl() + "'");
  }

  void check_location(Stage stage, Dir dir, const Site& s, const Attribute& a,
                      std::set<int64_t>& locations) {
    if (stage == Stage::Compute) {
      error(a.span, "entry-point", "@location cannot be used by compute shaders (" + s.what + ")");
      return;
    }
    const Type* t = s.type;
    const Type* sc = t->kind == K::Vector ? t->elem : t;
    if (!sc ||
        !(sc->kind == K::F32 || sc->kind == K::F16 || sc->kind == K::I32 || sc->kind == K::U32) ||
        !(t->is_scalar() || t->kind == K::Vector))
      error(s.span, "entry-point",
            "cannot apply @location to declaration of type '" + t->wgsl() +
                "': @location must only be applied to numeric scalars and vectors");
    if (a.args.size() != 1) {
      error(a.span, "attribute", "@location requires one argument");
      return;
    }
    const Expr* e = a.args[0];
    if (uses_override(e) || !e->value || !e->type ||
        !(e->type->kind == K::AbstractInt || e->type->kind == K::I32 || e->type->kind == K::U32) ||
        e->value->scalars.size() != 1) {
      error(e->span, "attribute", "@location value must be a const-expression of type i32 or u32");
      return;
    }
    const Scalar& v = e->value->scalars[0];
    int64_t n = std::holds_alternative<int64_t>(v.v)    ? std::get<int64_t>(v.v)
                : std::holds_alternative<uint64_t>(v.v) ? int64_t(std::get<uint64_t>(v.v))
                                                        : -1;
    if (n < 0) {
      error(e->span, "attribute", "@location value must be non-negative");
      return;
    }
    if (!locations.insert(n).second)
      error(a.span, "entry-point",
            "@location(" + std::to_string(n) + ") appears multiple times as pipeline " +
                (dir == Dir::In ? "input" : "output"));
  }

  void check_interpolate(const Attribute& a) {
    if (a.args.empty() || a.args.size() > 2) {
      error(a.span, "attribute", "@interpolate requires 1 or 2 arguments");
      return;
    }
    for (const Expr* x : a.args)
      if (x->kind != ExprKind::Ident || !x->template_args.empty()) {
        error(x->span, "attribute", "@interpolate arguments must be enumerants");
        return;
      }
    const std::string& type = a.args[0]->text;
    if (type != "perspective" && type != "linear" && type != "flat") {
      error(a.args[0]->span, "attribute",
            "invalid interpolation type '" + type + "' (perspective, linear or flat)");
      return;
    }
    if (a.args.size() < 2) return;
    const std::string& sampling = a.args[1]->text;
    bool ok = type == "flat"
                  ? (sampling == "first" || sampling == "either")
                  : (sampling == "center" || sampling == "centroid" || sampling == "sample");
    if (!ok)
      error(a.args[1]->span, "attribute",
            "invalid interpolation sampling '" + sampling + "' for interpolation type '" + type +
                "'");
  }

  static bool is_integral(const Type* t) {
    const Type* sc = t->kind == K::Vector ? t->elem : t;
    return sc && (sc->kind == K::I32 || sc->kind == K::U32);
  }

  const Module& m_;
  Diags& d_;
};

// ---- diagnostic directives and attributes (WGSL "Diagnostics") ----------------------------------
// A severity is one of error, warning, info, off; two directives for the same rule must agree on
// the severity; one location (a function, a compound statement) holds at most one @diagnostic per
// rule. An unknown rule name of one token is a warning (as Tint's "unrecognized diagnostic rule");
// one of two tokens (`chromium.x`) is ignored.

bool valid_severity(const std::string& s) {
  return s == "error" || s == "warning" || s == "info" || s == "off";
}

void check_severity(const std::string& severity, Span at, Diags& d) {
  if (!valid_severity(severity))
    d.error(at, "attribute",
            "invalid diagnostic severity '" + severity + "' (error, warning, info or off)");
}

void check_rule_name(const std::string& rule, Span at, Diags& d) {
  if (rule.find('.') != std::string::npos || rule == "derivative_uniformity" ||
      rule == "subgroup_uniformity")
    return;
  d.warning(at, "attribute",
            "unrecognized diagnostic rule '" + rule +
                "' (known: 'derivative_uniformity', 'subgroup_uniformity')");
}

void check_diagnostic_attrs(const std::vector<Attribute>& attrs, Diags& d) {
  std::set<std::string> rules;
  for (const Attribute& a : attrs) {
    if (a.name != "diagnostic" || a.args.size() != 2) continue;
    check_severity(a.args[0]->text, a.span, d);
    check_rule_name(a.args[1]->text, a.args[1]->span, d);
    if (!rules.insert(a.args[1]->text).second)
      d.error(a.span, "attribute",
              "conflicting diagnostic attribute: the rule '" + a.args[1]->text +
                  "' has a diagnostic attribute already at this location");
  }
}

void check_statement_diagnostics(const Stmt* s, Diags& d, int depth) {
  if (!s || depth > kMaxNesting) return;
  // Only a compound statement's attributes are one location for certain (the parser gathers
  // those of a switch statement and of its body together).
  if (s->kind == StmtKind::Block)
    check_diagnostic_attrs(s->attrs, d);
  else
    for (const Attribute& a : s->attrs)
      if (a.name == "diagnostic" && a.args.size() == 2) {
        check_severity(a.args[0]->text, a.span, d);
        check_rule_name(a.args[1]->text, a.args[1]->span, d);
      }
  for (const Stmt* b : s->body) check_statement_diagnostics(b, d, depth + 1);
  for (const Stmt* x : {s->then, s->else_, s->init, s->update, s->continuing})
    check_statement_diagnostics(x, d, depth + 1);
  for (const SwitchCase& c : s->cases) check_statement_diagnostics(c.body, d, depth + 1);
}

}  // namespace

void check_entry_io(const Module& module, Diags& diags) { EntryIo(module, diags).run(); }

void check_diagnostic_controls(const Module& module, Diags& diags) {
  std::map<std::string, std::string> severity_of;  // directives: rule -> severity
  for (const Directive& dir : module.directives) {
    if (dir.kind != Directive::Kind::Diagnostic || dir.names.size() != 2) continue;
    check_severity(dir.names[0], dir.span, diags);
    check_rule_name(dir.names[1], dir.span, diags);
    auto [it, fresh] = severity_of.emplace(dir.names[1], dir.names[0]);
    if (!fresh && it->second != dir.names[0])
      diags.error(dir.span, "attribute",
                  "conflicting diagnostic directive: the rule '" + dir.names[1] + "' is '" +
                      it->second + "' in an earlier directive and '" + dir.names[0] + "' here");
  }
  for (const Decl* decl : module.decls) {
    if (decl->kind != DeclKind::Fn) continue;
    const auto* f = static_cast<const FnDecl*>(decl);
    check_diagnostic_attrs(f->attrs, diags);
    check_statement_diagnostics(f->body, diags, 0);
  }
}

}  // namespace wgslvk::wgsl
