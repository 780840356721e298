// The WGSL resolver, type checker and const-evaluator (translator/wgsl/src/sema.cpp, types.cpp,
// builtins.cpp, const_eval.cpp), through parse() + analyze() directly: every shipped WGSL file
// analyzes clean with every expression typed; expression types, const values (abstract math, f32
// rounding), struct layouts, overrides and pipeline constants, the call graph; and rejections,
// each with its rule and line:col.
#include <cfloat>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "../../translator/wgsl/src/passes.hpp"

namespace wgslvk::wgsl {
namespace {

struct Analyzed {
  std::unique_ptr<Module> module;
  Diags diags;
  bool ok = false;
};

Analyzed run(const std::string& src, const std::map<std::string, double>& constants = {}) {
  Analyzed a;
  a.diags.file = "t.wgsl";
  a.module = parse(src, a.diags);
  if (!a.module || !a.diags.ok()) return a;
  a.module->file = "t.wgsl";
  a.ok = analyze(*a.module, constants, a.diags) && a.diags.ok();
  return a;
}

std::string all_diags(const Diags& d) {
  std::string s;
  for (const auto& x : d.list)
    s += std::to_string(x.line) + ":" + std::to_string(x.col) + " [" + x.rule + "] " + x.message +
         "\n";
  return s;
}

// translate_to_glsl's first diagnostic for `entry` of `src` (createComputePipeline with these
// pipeline constants; "" names the only entry point), or "ok" when it translates.
std::string pipeline_error(const std::string& src, const std::string& entry,
                           std::map<std::string, double> constants = {}) {
  TranslateOptions o;
  o.file_name = "t.wgsl";
  o.entry_point = entry;
  o.constants = std::move(constants);
  try {
    translate_to_glsl(src, o);
    return std::string("ok");
  } catch (const Error& e) { return e.diagnostics.at(0).str(); }
}

Analyzed ok(const std::string& src, const std::map<std::string, double>& constants = {}) {
  Analyzed a = run(src, constants);
  EXPECT_TRUE(a.ok) << all_diags(a.diags) << "in:\n" << src;
  return a;
}

// Expects analysis to fail with a diagnostic of `rule` at line:col (among possibly others).
void rejects(const std::string& src, const std::string& rule, uint32_t line, uint32_t col,
             const std::string& message_part = "") {
  Analyzed a = run(src);
  EXPECT_FALSE(a.ok) << src;
  bool found = false;
  for (const auto& x : a.diags.list)
    if (x.rule == rule && x.line == line && x.col == col &&
        x.message.find(message_part) != std::string::npos)
      found = true;
  EXPECT_TRUE(found) << "expected [" << rule << "] at " << line << ":" << col << " containing '"
                     << message_part << "', got:\n"
                     << all_diags(a.diags) << "in:\n"
                     << src;
}

Decl* find_decl(Module& m, const std::string& name) {
  for (Decl* d : m.decls)
    if (d->name == name) return d;
  // Function-scope declarations.
  Decl* found = nullptr;
  std::function<void(Stmt*)> walk = [&](Stmt* s) {
    if (!s || found) return;
    if (s->kind == StmtKind::Decl && s->decl && s->decl->name == name) found = s->decl;
    for (Stmt* b : s->body) walk(b);
    walk(s->then), walk(s->else_), walk(s->init), walk(s->update), walk(s->continuing);
    for (auto& c : s->cases) walk(c.body);
  };
  for (Decl* d : m.decls)
    if (d->kind == DeclKind::Fn) walk(static_cast<FnDecl*>(d)->body);
  return found;
}

VarDecl* var(Analyzed& a, const std::string& name) {
  auto* d = static_cast<VarDecl*>(find_decl(*a.module, name));
  EXPECT_NE(d, nullptr) << name;
  return d;
}

// The type of `let/const name`'s initializer (its value type).
std::string init_type(Analyzed& a, const std::string& name) {
  VarDecl* v = var(a, name);
  if (!v || !v->initializer || !v->initializer->type) return "<none>";
  const Type* t = v->initializer->type;
  return (t->kind == Type::Kind::Reference ? t->elem : t)->wgsl();
}

double scalar0(const ConstValue& v) {
  const Scalar& s = v.scalars.at(0);
  if (auto* d = std::get_if<double>(&s.v)) return *d;
  if (auto* i = std::get_if<int64_t>(&s.v)) return double(*i);
  if (auto* u = std::get_if<uint64_t>(&s.v)) return double(*u);
  return std::get<bool>(s.v);
}

// Every expression under a function body has a type; Idents in value position have a decl.
void expect_all_typed(Module& m, const std::string& file) {
  size_t count = 0;
  std::function<void(Expr*)> expr = [&](Expr* e) {
    if (!e) return;
    count++;
    EXPECT_NE(e->type, nullptr) << file << ":" << e->span.line << ":" << e->span.col << " '"
                                << e->text << "' has no type";
    if (e->kind == ExprKind::Ident) {
      EXPECT_NE(e->decl, nullptr) << file << ":" << e->span.line << ":" << e->span.col;
    }
    if (e->kind == ExprKind::BoolLit || e->kind == ExprKind::IntLit ||
        e->kind == ExprKind::FloatLit) {
      EXPECT_TRUE(e->value.has_value()) << file << ":" << e->span.line << ":" << e->span.col;
      if (e->value && e->type) {
        EXPECT_EQ(e->value->type, e->type) << file << ":" << e->span.line;
      }
    }
    if (e->kind == ExprKind::Call) {
      EXPECT_NE(e->target, CallTarget::Unresolved) << file << ":" << e->span.line;
    }
    for (Expr* a : e->args) expr(a);
  };
  std::function<void(Stmt*)> stmt = [&](Stmt* s) {
    if (!s) return;
    if (s->kind == StmtKind::Decl && s->decl) {
      EXPECT_NE(s->decl->type, nullptr) << file << ":" << s->span.line << " " << s->decl->name;
      expr(s->decl->initializer);
    }
    expr(s->lhs);
    expr(s->expr);
    for (Stmt* b : s->body) stmt(b);
    stmt(s->then), stmt(s->else_), stmt(s->init), stmt(s->update), stmt(s->continuing);
    for (auto& c : s->cases) {
      for (Expr* x : c.selectors) expr(x);
      stmt(c.body);
    }
  };
  for (Decl* d : m.decls) {
    if (d->kind == DeclKind::Fn) stmt(static_cast<FnDecl*>(d)->body);
    if (d->kind == DeclKind::Var || d->kind == DeclKind::Const || d->kind == DeclKind::Override) {
      EXPECT_NE(static_cast<VarDecl*>(d)->type, nullptr) << file << " " << d->name;
      expr(static_cast<VarDecl*>(d)->initializer);
    }
  }
  EXPECT_GT(count, 0u) << file;
}

// ---- every shipped kernel -----------------------------------------------------------------------

TEST(WgslSema, ShippedFilesAnalyzeClean) {
  const char* root = std::getenv("WGSLVK_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "WGSLVK_SOURCE_DIR is not set";
  size_t files = 0, entries = 0;
  for (const auto& dir :
       std::filesystem::directory_iterator(std::filesystem::path(root) / "wgsl_ports")) {
    if (!dir.is_directory()) continue;
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      if (f.path().extension() != ".wgsl") continue;
      std::ifstream in(f.path());
      std::stringstream ss;
      ss << in.rdbuf();
      Analyzed a = run(ss.str());
      ASSERT_TRUE(a.ok) << f.path() << "\n" << all_diags(a.diags);
      expect_all_typed(*a.module, f.path().string());
      for (Decl* d : a.module->decls) {
        if (d->kind != DeclKind::Fn) continue;
        auto* fn = static_cast<FnDecl*>(d);
        if (fn->stage != Stage::Compute) continue;
        entries++;
        EXPECT_GE(fn->workgroup_size[0] * fn->workgroup_size[1] * fn->workgroup_size[2], 1u);
        for (VarDecl* g : fn->globals_used) EXPECT_TRUE(g->used) << g->name;
      }
      files++;
    }
  }
  EXPECT_GE(files, 16u);
  EXPECT_GE(entries, 60u);
}

// ---- types of expressions -----------------------------------------------------------------------

TEST(WgslSema, ExpressionTypes) {
  Analyzed a = ok(R"(
struct S { a: f32, b: vec2<u32> }
fn f(p: ptr<function, vec4<f32>>) -> f32 { return (*p).x + p.y; }
@compute @workgroup_size(1) fn main() {
  let i = 1;
  let fl = 1.5;
  let v3 = vec3(1, 2, 3);
  let v4 = vec4(1.0);
  let v2 = vec2<f32>(1.0, 2.0);
  let mix3 = vec3(v2, 5);
  let arr = array(1, 2u);
  let sw = v4.zyx;
  let one = v4.r;
  let s = S(1.0, vec2(1u, 2u));
  let m = s.b;
  let mat = mat2x3<f32>(vec3(1.0), vec3(2.0));
  let mv = mat * v2;
  let vm = vec3<f32>() * mat;
  let mm = mat * mat2x2<f32>();
  let cmp = v4 < vec4(2.0);
  let sh = v3 << vec3(1u);
  let zero = f32();
  var w = vec4<f32>();
  let q = f(&w);
  let h = 2 * v4;
  let bits = bitcast<u32>(1.0);
  let sel = select(1, 2, true);
  let mx = max(1u, 2);
}
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(init_type(a, "i"), "i32");
  EXPECT_EQ(init_type(a, "fl"), "f32");
  EXPECT_EQ(init_type(a, "v3"), "vec3<i32>");
  EXPECT_EQ(init_type(a, "v4"), "vec4<f32>");
  EXPECT_EQ(init_type(a, "mix3"), "vec3<f32>");
  EXPECT_EQ(init_type(a, "arr"), "array<u32, 2>");
  EXPECT_EQ(init_type(a, "sw"), "vec3<f32>");
  EXPECT_EQ(init_type(a, "one"), "f32");
  EXPECT_EQ(init_type(a, "m"), "vec2<u32>");
  EXPECT_EQ(init_type(a, "mv"), "vec3<f32>");
  EXPECT_EQ(init_type(a, "vm"), "vec2<f32>");
  EXPECT_EQ(init_type(a, "mm"), "mat2x3<f32>");
  EXPECT_EQ(init_type(a, "cmp"), "vec4<bool>");
  EXPECT_EQ(init_type(a, "sh"), "vec3<i32>");
  EXPECT_EQ(init_type(a, "zero"), "f32");
  EXPECT_EQ(init_type(a, "q"), "f32");
  EXPECT_EQ(init_type(a, "h"), "vec4<f32>");
  EXPECT_EQ(init_type(a, "bits"), "u32");
  EXPECT_EQ(init_type(a, "sel"), "i32");
  EXPECT_EQ(init_type(a, "mx"), "u32");
  Expr* sw = var(a, "sw")->initializer;
  EXPECT_EQ(sw->swizzle, (std::vector<uint8_t>{2, 1, 0}));
  EXPECT_EQ(var(a, "m")->initializer->member_index, 1);
  EXPECT_EQ(var(a, "w")->type->wgsl(), "vec4<f32>");
  EXPECT_EQ(var(a, "w")->space, AddressSpace::Function);
  // A reference for a variable's memory view; its address a pointer.
  Expr* call = var(a, "q")->initializer;
  EXPECT_EQ(call->target, CallTarget::Function);
  EXPECT_EQ(call->args[0]->type->wgsl(), "ptr<function, vec4<f32>, read_write>");
  EXPECT_EQ(call->args[0]->args[0]->type->wgsl(), "ref<function, vec4<f32>, read_write>");
  EXPECT_EQ(var(a, "bits")->initializer->value.has_value(), true);
  EXPECT_EQ(scalar0(*var(a, "bits")->initializer->value), double(0x3f800000u));
  // Interning: the same structure is the same pointer.
  EXPECT_EQ(var(a, "v4")->type, var(a, "w")->type);
}

// ---- const values -------------------------------------------------------------------------------

TEST(WgslSema, ConstValuesAbstractAndRounding) {
  Analyzed a = ok(R"(
const big = 4294967296 * 4;
const af = 1 + 2.5;
const third: f32 = 1.0 / 3.0;
const prod = 0.1f * 3.0f;
const neg = -2147483647i - 1i;
const shifted = 1u << 31u;
const vecsum = vec3(1, 2, 3) + vec3(10, 20, 30);
const picked = vecsum.zx;
const arr = array(1.5, 2.5, 3.5);
const elem = arr[2];
const root = sqrt(2.0);
const clamped = clamp(5, 0, 3);
const packed = pack4x8unorm(vec4(0.0, 1.0, 0.5, 0.25));
const dotp = dot4I8Packed(0xff01ff02u, 0x01010101u);
const half = quantizeToF16(1.0009765625f + 0.0001f);
const ibits = extractBits(0xf0i, 4u, 4u);
const m = mat2x2(1.0, 2.0, 3.0, 4.0) * vec2(1.0, 1.0);
const wraps = 2147483647i + 1i;
const uwraps = 0u - 1u;
const shl = -1i << 31u;
const negmin = -(-2147483647i - 1i);
const allbits = bitcast<f32>(0xbf800000);
)");
  ASSERT_TRUE(a.ok);
  auto val = [&](const std::string& n) -> const ConstValue& {
    static ConstValue none;
    VarDecl* v = var(a, n);
    if (!v || !v->value) {
      ADD_FAILURE() << n << " has no value";
      return none;
    }
    return *v->value;
  };
  EXPECT_EQ(val("big").type->wgsl(), "abstract-int");
  EXPECT_EQ(std::get<int64_t>(val("big").scalars[0].v), int64_t(17179869184));
  EXPECT_EQ(val("af").type->wgsl(), "abstract-float");
  EXPECT_EQ(scalar0(val("af")), 3.5);
  // Abstract float division in double, then rounded to f32 exactly once.
  EXPECT_EQ(scalar0(val("third")), double(float(1.0 / 3.0)));
  EXPECT_EQ(scalar0(val("prod")), double(0.1f * 3.0f));
  EXPECT_EQ(scalar0(val("neg")), -2147483648.0);
  EXPECT_EQ(scalar0(val("shifted")), 2147483648.0);
  EXPECT_EQ(val("vecsum").scalars.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(val("vecsum").scalars[2].v), 33);
  EXPECT_EQ(val("picked").type->wgsl(), "vec2<abstract-int>");
  EXPECT_EQ(std::get<int64_t>(val("picked").scalars[1].v), 11);
  EXPECT_EQ(scalar0(val("elem")), 3.5);
  EXPECT_EQ(scalar0(val("root")), std::sqrt(2.0));
  EXPECT_EQ(scalar0(val("clamped")), 3);
  // pack4x8unorm: floor(0.5 + 255 * e) per byte: 0, 255, 128, 64.
  EXPECT_EQ(scalar0(val("packed")), double(0x4080ff00u));
  // bytes (2, -1, 1, -1) . (1, 1, 1, 1) = 1
  EXPECT_EQ(scalar0(val("dotp")), 1);
  EXPECT_EQ(scalar0(val("half")), 1.0009765625);
  EXPECT_EQ(scalar0(val("ibits")), -1);  // 0b1111 sign-extended
  // Concrete integer +, -, * and negation wrap, in const-expressions too (Tint, Dawn).
  EXPECT_EQ(scalar0(val("wraps")), -2147483648.0);
  EXPECT_EQ(scalar0(val("uwraps")), 4294967295.0);
  EXPECT_EQ(scalar0(val("shl")), -2147483648.0);
  EXPECT_EQ(scalar0(val("negmin")), -2147483648.0);
  EXPECT_EQ(scalar0(val("allbits")), -1.0);  // 0xbf800000 only fits u32
  EXPECT_EQ(val("m").type->wgsl(), "vec2<abstract-float>");
  EXPECT_EQ(std::get<double>(val("m").scalars[0].v), 4.0);
  EXPECT_EQ(std::get<double>(val("m").scalars[1].v), 6.0);
}

TEST(WgslSema, F16RoundsToNearestEven) {
  Analyzed a = ok(R"(
enable f16;
const h: f16 = 1.0009765625 + 0.0001;
const tie: f16 = 2049.0;
const small: f16 = 0.00000005;
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(scalar0(*var(a, "h")->value), 1.0009765625);              // f16's ulp at 1 is 2^-10
  EXPECT_EQ(scalar0(*var(a, "tie")->value), 2048.0);                  // halfway: to even
  EXPECT_EQ(scalar0(*var(a, "small")->value), std::ldexp(1.0, -24));  // the smallest subnormal
  rejects("enable f16;\nconst big: f16 = 65520.0;\n", "const-eval", 2, 18,
          "cannot be represented as 'f16'");
}

TEST(WgslSema, AbstractConstMaterializesAtItsUse) {
  Analyzed a = ok(R"(
const c = 0.1;
@compute @workgroup_size(1) fn main() {
  let x: f32 = c;
  let y = c * 2;
  let z: u32 = 3;
}
)");
  ASSERT_TRUE(a.ok);
  Expr* x = var(a, "x")->initializer;
  EXPECT_EQ(x->type->wgsl(), "f32");
  ASSERT_TRUE(x->value);
  EXPECT_EQ(scalar0(*x->value), double(0.1f));
  EXPECT_EQ(var(a, "y")->type->wgsl(), "f32");
  EXPECT_EQ(scalar0(*var(a, "y")->initializer->value), double(float(0.2)));
  EXPECT_EQ(var(a, "z")->initializer->type->wgsl(), "u32");
  EXPECT_TRUE(std::holds_alternative<uint64_t>(var(a, "z")->initializer->value->scalars[0].v));
}

// ---- layouts ------------------------------------------------------------------------------------

TEST(WgslSema, StructLayouts) {
  Analyzed a = ok(R"(
struct A { a: vec3<f32>, b: f32, c: array<vec2<f32>, 3>, d: mat3x3<f32> }
struct B { x: u32, @align(16) y: u32, @size(20) z: u32, w: vec2<u32> }
struct C { n: u32, data: array<vec3<f32>> }
struct U { h: vec4<f32>, inner: B, tail: f32 }
@group(0) @binding(0) var<storage, read_write> c: C;
@group(0) @binding(1) var<uniform> u: U;
@compute @workgroup_size(1) fn main() { _ = c.n; _ = u.tail; }
)");
  ASSERT_TRUE(a.ok);
  auto* A = static_cast<StructDecl*>(find_decl(*a.module, "A"));
  EXPECT_EQ(A->members[0].offset, 0u);
  EXPECT_EQ(A->members[1].offset, 12u);
  EXPECT_EQ(A->members[2].offset, 16u);
  EXPECT_EQ(A->members[2].size, 24u);
  EXPECT_EQ(A->members[3].offset, 48u);
  EXPECT_EQ(A->members[3].size, 48u);
  EXPECT_EQ(A->type->size, 96u);
  EXPECT_EQ(A->type->align, 16u);
  auto* B = static_cast<StructDecl*>(find_decl(*a.module, "B"));
  EXPECT_EQ(B->members[1].offset, 16u);
  EXPECT_EQ(B->members[2].offset, 20u);
  EXPECT_EQ(B->members[2].size, 20u);
  EXPECT_EQ(B->members[3].offset, 40u);
  EXPECT_EQ(B->type->size, 48u);
  auto* C = static_cast<StructDecl*>(find_decl(*a.module, "C"));
  EXPECT_EQ(C->members[1].offset, 16u);
  EXPECT_EQ(C->members[1].type->stride, 16u);
  EXPECT_EQ(C->members[1].type->count, 0u);
  auto* U = static_cast<StructDecl*>(find_decl(*a.module, "U"));
  EXPECT_EQ(U->members[1].offset, 16u);
  EXPECT_EQ(U->members[2].offset, 64u);
  EXPECT_EQ(var(a, "c")->group, 0u);
  EXPECT_EQ(var(a, "c")->binding, 0u);
  EXPECT_EQ(var(a, "c")->access, Access::ReadWrite);
  EXPECT_EQ(var(a, "u")->access, Access::Read);
}

TEST(WgslSema, UniformLayoutRules) {
  // Array stride 4 in uniform.
  rejects(
      "@group(0) @binding(0) var<uniform> u: array<vec4<f32>, 2>;\n"
      "struct S { a: array<f32, 4> }\n"
      "@group(0) @binding(1) var<uniform> s: S;\n"
      "@compute @workgroup_size(1) fn main() { _ = s.a[0]; }\n",
      "address-space", 3, 39, "stride (4 bytes) is not a multiple of 16");
  // A struct member right after a struct member needs 16-byte spacing.
  rejects(
      "struct In { a: f32 }\nstruct S { i: In, b: f32 }\n"
      "@group(0) @binding(0) var<uniform> s: S;\n"
      "@compute @workgroup_size(1) fn main() { _ = s.b; }\n",
      "address-space", 3, 39, "between 'i' and 'b'");
}

// ---- overrides and entry points -----------------------------------------------------------------

TEST(WgslSema, OverridesAndPipelineConstants) {
  const std::string src = R"(
override wg: u32 = 64;
@id(7) override scale: f32 = 1.5;
override flag: bool;
override twice = wg * 2;
var<workgroup> tile: array<f32, twice>;
@compute @workgroup_size(wg, 2) fn main() {
  if (flag) { tile[0] = scale; }
}
)";
  {
    Analyzed a = ok(src, {{"flag", 1}});
    ASSERT_TRUE(a.ok);
    auto* f = static_cast<FnDecl*>(find_decl(*a.module, "main"));
    EXPECT_EQ(f->workgroup_size[0], 64u);
    EXPECT_EQ(f->workgroup_size[1], 2u);
    EXPECT_NE(f->workgroup_size_expr[0], nullptr);
    EXPECT_EQ(f->workgroup_size_expr[1], nullptr);
    EXPECT_EQ(var(a, "scale")->override_id, 7u);
    EXPECT_EQ(var(a, "wg")->override_id, 0u);
    EXPECT_EQ(var(a, "flag")->override_id, 1u);
    EXPECT_EQ(var(a, "twice")->type->wgsl(), "u32");
    EXPECT_EQ(scalar0(*var(a, "twice")->value), 128);
    const Type* tile = var(a, "tile")->type;
    EXPECT_NE(tile->count_override, nullptr);
    EXPECT_EQ(tile->count, 128u);
    // Static use through the override-sized array and the workgroup size.
    std::set<std::string> used;
    for (VarDecl* v : f->globals_used) used.insert(v->name);
    EXPECT_EQ(used, (std::set<std::string>{"wg", "flag", "tile", "twice", "scale"}));
  }
  {
    // By name and by @id; converted to the override's type.
    Analyzed a = ok(src, {{"wg", 128}, {"7", 0.1}, {"flag", 0}});
    ASSERT_TRUE(a.ok);
    auto* f = static_cast<FnDecl*>(find_decl(*a.module, "main"));
    EXPECT_EQ(f->workgroup_size[0], 128u);
    EXPECT_EQ(scalar0(*var(a, "scale")->value), double(0.1f));
    EXPECT_EQ(scalar0(*var(a, "twice")->value), 256);
  }
  // No value for an override the entry point uses: not a module error (createShaderModule
  // accepts it), a pipeline-creation error of that entry point.
  {
    Analyzed a = run(src);
    EXPECT_TRUE(a.ok) << all_diags(a.diags);
    std::string pipeline;
    for (const auto& p : a.diags.pipeline)
      pipeline += p.entry_point + " " + std::to_string(p.diagnostic.line) + ":" +
                  std::to_string(p.diagnostic.col) + " [" + p.diagnostic.rule + "] " +
                  p.diagnostic.message + "\n";
    EXPECT_NE(pipeline.find("main 4:10 [entry-point] override 'flag' has no default"),
              std::string::npos)
        << pipeline;
  }
  // A value the type cannot hold; an unknown key.
  EXPECT_FALSE(run(src, {{"flag", 1}, {"wg", 1.5}}).ok);
  EXPECT_FALSE(run(src, {{"flag", 1}, {"wg", -1}}).ok);
  EXPECT_FALSE(run(src, {{"flag", 1}, {"nope", 1}}).ok);
  // The device's workgroup size limits are the runtime's pipeline check (R13), not sema's:
  // 512 is accepted; beyond glslang's bound it is a pipeline error of the entry point.
  EXPECT_TRUE(run(src, {{"flag", 1}, {"wg", 512}}).ok);
  Analyzed big = run(src, {{"flag", 1}, {"wg", 4096}});
  EXPECT_TRUE(big.ok) << all_diags(big.diags);
  ASSERT_EQ(big.diags.pipeline.size(), 1u);
  EXPECT_EQ(big.diags.pipeline[0].entry_point, "main");
  EXPECT_NE(big.diags.pipeline[0].diagnostic.message.find("workgroup_size x (4096) is larger"),
            std::string::npos)
      << big.diags.pipeline[0].diagnostic.message;
}

// WebGPU raises these at createComputePipeline, for the entry point that statically uses the
// override: check_module (createShaderModule) accepts the module, translate_to_glsl refuses only
// that entry point, and a pipeline constant makes it translate.
// abs of the largest negative value is itself for every signed integer type, AbstractInt too
// (the CTS's abs:abstract_int expects it; no const-eval error).
TEST(WgslSema, AbsOfTheLargestNegativeAbstractIntIsItself) {
  Analyzed a =
      ok("const m = abs(-9223372036854775807 - 1);\nconst i = abs(i32(-2147483647 - 1));\n");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(std::get<int64_t>(var(a, "m")->value->scalars.at(0).v), INT64_MIN);
  EXPECT_EQ(std::get<int64_t>(var(a, "i")->value->scalars.at(0).v), int64_t(INT32_MIN));
}

TEST(WgslSema, OverrideWithoutValueIsAPipelineError) {
  const std::string src = R"(
override n: u32;
override size: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn uses() { out[0] = n; }
@compute @workgroup_size(1) fn does_not() { out[0] = 1u; }
@compute @workgroup_size(size) fn sized() { out[0] = 2u; }
@compute @workgroup_size(512) fn big() { out[0] = 3u; }
)";
  EXPECT_NO_THROW(check_module(src, "t.wgsl"));
  auto translate = [&](const std::string& entry, std::map<std::string, double> constants = {}) {
    return pipeline_error(src, entry, std::move(constants));
  };
  EXPECT_EQ(translate("uses"),
            "t.wgsl:2:10: error: override 'n' has no default value and no pipeline constant was "
            "given for it [entry-point]");
  EXPECT_EQ(translate("uses", {{"n", 3}}), "ok");
  EXPECT_EQ(translate("does_not"), "ok");
  EXPECT_NE(translate("sized").find("7:26: error: workgroup_size argument depends on an override "
                                    "that has no value"),
            std::string::npos)
      << translate("sized");
  EXPECT_EQ(translate("sized", {{"size", 64}}), "ok");
  // 512 invocations: over WebGPU's default limit, which the runtime checks against the device's
  // limits when the pipeline is created (R13); the front end translates it.
  EXPECT_EQ(translate("big"), "ok");
}

// A runtime expression with a known override operand (the CTS's div_rem and clamp validation):
// a zero integer divisor or clamp's low > high is a pipeline error of the entry points that
// reach it; with constants for both, a module error.
TEST(WgslSema, OverrideOperandsOfRuntimeExpressionsArePipelineErrors) {
  const std::string src = R"(
override d: i32 = 1;
override lo: f32 = 0.0;
var<private> x: i32 = 7;
fn div() -> i32 { return x / vec2<i32>(1, d).y; }
fn cl(v: f32) -> f32 { return clamp(v, lo, 1.0); }
@compute @workgroup_size(1) fn a() { x = div(); }
@compute @workgroup_size(1) fn b() { _ = cl(2.0); }
)";
  auto translate = [&](const std::string& entry, std::map<std::string, double> constants = {}) {
    return pipeline_error(src, entry, std::move(constants));
  };
  EXPECT_NO_THROW(check_module(src, "t.wgsl"));
  EXPECT_EQ(translate("a", {}), "ok");
  EXPECT_EQ(translate("a", {{"d", 0}}),
            "t.wgsl:5:26: error: integer division by zero is invalid [const-eval]");
  EXPECT_EQ(translate("b", {{"d", 0}}), "ok");  // b does not reach the division
  EXPECT_EQ(translate("b", {{"lo", 2}}),
            "t.wgsl:6:31: error: clamp called with 'low' (2) greater than 'high' (1) [const-eval]");
  EXPECT_EQ(translate("a", {{"lo", 2}}), "ok");
  // Both bounds const-expressions: a module error, whatever the entry points use.
  rejects("fn f(v: f32) -> f32 { return clamp(v, 2.0, 1.0); }\n", "const-eval", 1, 30,
          "greater than 'high'");
}

TEST(WgslSema, EntryPointBuiltinsAndCallGraph) {
  Analyzed a = ok(R"(
struct In { @builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32> }
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<storage, read> unused: array<u32>;
var<private> counter: u32;
fn helper(i: u32) { buf[i] = counter; }
fn outer(i: u32) { helper(i); helper(i + 1); }
@compute @workgroup_size(8, 4) fn main(@builtin(global_invocation_id) gid: vec3<u32>, inp: In) {
  outer(gid.x + inp.li);
}
)");
  ASSERT_TRUE(a.ok);
  auto* f = static_cast<FnDecl*>(find_decl(*a.module, "main"));
  auto* outer = static_cast<FnDecl*>(find_decl(*a.module, "outer"));
  auto* helper = static_cast<FnDecl*>(find_decl(*a.module, "helper"));
  EXPECT_EQ(f->stage, Stage::Compute);
  EXPECT_EQ(f->workgroup_size[0], 8u);
  EXPECT_EQ(f->workgroup_size[1], 4u);
  EXPECT_EQ(f->workgroup_size[2], 1u);
  EXPECT_EQ(f->params[0]->builtin, "global_invocation_id");
  EXPECT_EQ(f->callees, std::vector<FnDecl*>{outer});
  EXPECT_EQ(outer->callees, std::vector<FnDecl*>{helper});
  EXPECT_EQ(f->globals_used.size(), 2u);
  EXPECT_TRUE(var(a, "buf")->used);
  EXPECT_TRUE(var(a, "counter")->used);
  EXPECT_FALSE(var(a, "unused")->used);
  auto* in = static_cast<StructDecl*>(find_decl(*a.module, "In"));
  EXPECT_EQ(in->members[0].builtin, "local_invocation_index");
}

TEST(WgslSema, ScopesAndShadowing) {
  Analyzed a = ok(R"(
@compute @workgroup_size(1) fn main() {
  let x = 1;
  {
    let x = 2.0;
    let y = x;
  }
  let z = x;
  for (var i = 0u; i < 4; i++) { let x = i; }
  loop {
    let k = 1;
    continuing { break if k == 1; }
  }
  let later = uses_later();
}
fn uses_later() -> i32 { return K; }
const K = 3;
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(init_type(a, "y"), "f32");
  EXPECT_EQ(init_type(a, "z"), "i32");
  EXPECT_EQ(init_type(a, "later"), "i32");
}

// ---- rejections: rule and line:col --------------------------------------------------------------

const char* kMain = "@compute @workgroup_size(1) fn main() {\n";

TEST(WgslSema, RejectsResolveErrors) {
  rejects(std::string(kMain) + "  let a = b;\n}\n", "resolve", 2, 11, "unresolved value 'b'");
  rejects(std::string(kMain) + "  let a = 1;\n  let a = 2;\n}\n", "resolve", 3, 7,
          "redeclaration of 'a'");
  rejects(std::string(kMain) + "  foo();\n}\n", "resolve", 2, 3, "unresolved call target 'foo'");
  rejects("const a = b;\nconst b = a;\n" + std::string(kMain) + "}\n", "resolve", 1, 7,
          "cyclic dependency");
  rejects("fn f() {}\nfn f() {}\n", "resolve", 2, 4, "redeclaration of 'f'");
  rejects("var<private> x: foo;\n", "resolve", 1, 17, "unresolved type 'foo'");
}

TEST(WgslSema, RejectsTypeErrors) {
  rejects(std::string(kMain) + "  let a: f32 = 1u;\n}\n", "type", 2, 16,
          "cannot convert value of type 'u32' to type 'f32'");
  rejects(std::string(kMain) + "  let a = 1.0 + 1u;\n}\n", "type", 2, 11, "operator +");
  rejects(std::string(kMain) + "  let a = max(1.0f, 1i);\n}\n", "type", 2, 11,
          "no matching call to 'max(f32, i32)'");
  rejects(std::string(kMain) + "  let a = 1;\n  a = 2;\n}\n", "type", 3, 3,
          "cannot assign to let 'a'");
  rejects(std::string(kMain) + "  var v = vec4<f32>();\n  let s = v.xr;\n}\n", "type", 3, 11,
          "invalid mixing of vector swizzle characters");
  rejects(std::string(kMain) + "  var v = vec4<f32>();\n  let s = v.xyzwx;\n}\n", "type", 3, 11);
  rejects(std::string(kMain) + "  var v = vec3<f32>();\n  let s = v[3];\n}\n", "type", 3, 13,
          "index 3 out of bounds [0..2]");
  rejects(std::string(kMain) + "  var a: array<i32, 4>;\n  a[-1] = 0;\n}\n", "type", 3, 5,
          "index -1 out of bounds");
  rejects("fn f() -> i32 { if (true) { return 1; } }\n", "type", 1, 4, "missing return");
  rejects("fn f() { g(); }\nfn g() { f(); }\n", "resolve", 1, 4,
          "cyclic dependency found: 'f' -> 'g' -> 'f'");
  rejects(std::string(kMain) + "  max(1, 2);\n}\n", "type", 2, 3,
          "ignoring return value of builtin 'max'");
  rejects(std::string(kMain) + "  if (1) {}\n}\n", "type", 2, 7, "condition must be bool");
  rejects(std::string(kMain) + "  break;\n}\n", "type", 2, 3, "break statement must be in a loop");
  rejects(std::string(kMain) + "  loop { continuing { break; } }\n}\n", "type", 2, 23,
          "must not be used to exit from a continuing block");
  rejects(std::string(kMain) + "  loop { continuing { if (true) { continue; } } }\n}\n", "type", 2,
          35, "continuing blocks must not contain a continue statement");
  rejects(std::string(kMain) + "  loop { }\n}\n", "type", 2, 3, "loop does not exit");
  rejects(std::string(kMain) + "  var x = 1;\n  x = x / 0;\n}\n", "const-eval", 3, 7,
          "integer division by zero is invalid");
  rejects(std::string(kMain) + "  var x = 1u;\n  x <<= 32u;\n}\n", "const-eval", 3, 3,
          "shift left value must be less than the bit width of the lhs, which is 32");
  rejects(std::string(kMain) + "  let f = workgroupBarrier;\n}\n", "type", 2, 11, "missing '('");
  rejects(std::string(kMain) + "  let x = workgroupBarrier();\n}\n", "type", 2, 11,
          "builtin function 'workgroupBarrier' does not return a value");
  rejects(std::string(kMain) + "  vec2<f32>();\n}\n", "type", 2, 3,
          "value constructor evaluated but not used");
  rejects(std::string(kMain) + "  var v = vec2<f32>();\n  let p = &v.x;\n}\n", "type", 3, 11,
          "address of a vector component");
  rejects(std::string(kMain) + "  switch 1 { case 1: {} case 1: {} default: {} }\n}\n", "type", 2,
          30, "duplicate switch case '1'");
  rejects(std::string(kMain) + "  let a = S(1);\n}\nstruct S { a: f32, b: f32 }\n", "type", 2, 11,
          "too few inputs");
  rejects(std::string(kMain) + "  let a = vec3<f32>(1.0, 2.0);\n}\n", "type", 2, 11,
          "no matching constructor");
  rejects("@group(0) @binding(0) var<storage> b: array<u32>;\n" + std::string(kMain) +
              "  b[0] = 1u;\n}\n",
          "address-space", 3, 3, "read-only");
}

TEST(WgslSema, RejectsConstEvalErrors) {
  rejects("const a = 9223372036854775807 + 1;\n", "const-eval", 1, 11, "cannot be represented");
  rejects("const a = 1 << 63;\n", "const-eval", 1, 11, "sign change");
  rejects("const a = 1i << 31u;\n", "const-eval", 1, 11, "sign change");
  rejects("const a = 3u << 31u;\n", "const-eval", 1, 11, "cannot be represented as 'u32'");
  rejects("const m = -2147483647i - 1i;\nconst a = m / -1i;\n", "const-eval", 2, 11,
          "cannot be represented as 'i32'");
  rejects("const a = 1i / 0i;\n", "const-eval", 1, 11, "division by zero");
  // i32's (and abstract int's) most negative value % -1: an error, as its `/` (CTS div_rem
  // scalar_vector_out_of_range); one above it is fine.
  rejects("const m = i32(-2147483648);\nconst a = m % -1i;\n", "const-eval", 2, 11,
          "cannot be represented as 'i32'");
  rejects("const m = vec2<i32>(1, i32(-2147483648));\nconst a = m % vec2(1i, -1i);\n", "const-eval",
          2, 11, "cannot be represented as 'i32'");
  rejects("const a = (-9223372036854775807 - 1) % -1;\n", "const-eval", 1, 12,
          "cannot be represented");
  rejects("const a = 5u % 0u;\n", "const-eval", 1, 11, "division by zero is invalid");
  rejects("const a = 1u << 32u;\n", "const-eval", 1, 11, "less than the bit width");
  rejects("const a = sqrt(-1.0);\n", "const-eval", 1, 11, "sqrt");
  rejects("const a = log(0.0);\n", "const-eval", 1, 11, "log");
  rejects("const a: f32 = 1e39;\n", "const-eval", 1, 16, "cannot be represented as 'f32'");
  rejects("const a = 3.0e38f * 10.0f;\n", "const-eval", 1, 11, "cannot be represented as 'f32'");
  rejects("const a = 4294967296u;\n", "const-eval", 1, 11, "cannot be represented as 'u32'");
  rejects("const a = -2147483648i;\n", "const-eval", 1, 12, "cannot be represented as 'i32'");
  rejects("const a = clamp(1, 3, 2);\n", "const-eval", 1, 11, "low is greater than high");
  rejects("const a = extractBits(1u, 30u, 4u);\n", "const-eval", 1, 11, "bit width");
  rejects("const_assert 1 > 2;\n", "const-eval", 1, 14, "const assertion failed");
  rejects(std::string(kMain) + "  var x = 1;\n  const c = x;\n}\n", "type", 3, 13,
          "const-expression");
}

// A conversion to f32 or f16 (an abstract float materialized, a suffixed literal, f16(f32)) is
// range-checked before rounding, as Tint: 3.40282347e38 is above FLT_MAX (3.4028234663852886e38)
// though it rounds to it, and Chrome refuses it ("cannot be represented as 'f32'"). The bounds
// themselves are accepted.
// An override-sized array named through an alias is one type at every use of the alias, even
// when its count is an expression (`n * 2`), as Tint resolves an alias once: a workgroup variable
// of it, a pointer parameter and a let of pointer type to it agree.
TEST(WgslSema, OverrideSizedArrayThroughAnAliasIsOneType) {
  Analyzed a = ok(R"(
override n = 4;
alias A = array<u32, n * 2>;
alias B = array<u32, n>;
var<workgroup> w: A;
var<workgroup> v: B;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
fn f(p: ptr<workgroup, A>) { p[1] = 2u; }
fn g(p: ptr<workgroup, array<u32, n>>) { p[1] = 3u; }
@compute @workgroup_size(1) fn main() {
  f(&w);
  g(&v);
  let q: ptr<workgroup, A> = &w;
  o[0] = q[1] + w[1] + v[1];
}
)");
  ASSERT_TRUE(a.ok);
}

TEST(WgslSema, RemainderOfTheLeastIntegerByMinusOneIsAnError) {
  Analyzed a = ok("const a = i32(-2147483647) % -1i;\nconst b = 7 % -1;\n");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(scalar0(*var(a, "a")->value), 0);
  EXPECT_EQ(scalar0(*var(a, "b")->value), 0);
}

TEST(WgslSema, FloatConversionIsRangeCheckedBeforeRounding) {
  Analyzed a = ok(R"(
enable f16;
const lo: f32 = -3.4028234663852886e38;
const hi = 3.4028234663852886e38f;
const h: f16 = 65504.0;
const hn = -65504.0h;
const q = quantizeToF16(65504.0f);
fn f() -> f32 { var m = -3.4028234663852886e38; return m; }
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(scalar0(*var(a, "lo")->value), -double(FLT_MAX));
  EXPECT_EQ(scalar0(*var(a, "hi")->value), double(FLT_MAX));
  EXPECT_EQ(scalar0(*var(a, "h")->value), 65504.0);
  EXPECT_EQ(scalar0(*var(a, "hn")->value), -65504.0);
  rejects("fn f() -> f32 { var m = -3.40282347e38; return m; }\n", "const-eval", 1, 25,
          "cannot be represented as 'f32'");
  rejects("const a: f32 = 3.40282347e38;\n", "const-eval", 1, 16, "cannot be represented as 'f32'");
  rejects("const a = 3.40282347e38f;\n", "const-eval", 1, 11, "cannot be represented as 'f32'");
  rejects("const a = vec2<f32>(1.0, -3.4028235e38);\n", "const-eval", 1, 26,
          "cannot be represented as 'f32'");
  rejects("enable f16;\nconst big: f16 = 65505.0;\n", "const-eval", 2, 18,
          "cannot be represented as 'f16'");
  rejects("enable f16;\nconst big = 65505.0h;\n", "const-eval", 2, 13,
          "cannot be represented as 'f16'");
  rejects("enable f16;\nconst big = f16(65510.0f);\n", "const-eval", 2, 13,
          "cannot be represented as 'f16'");
  rejects("enable f16;\nconst big = quantizeToF16(65510.0f);\n", "const-eval", 2, 13,
          "cannot be represented as 'f16'");
  // Arithmetic in f32 rounds its exact result: FLT_MAX + 1 is FLT_MAX, not an error.
  Analyzed b = ok("const s = 3.4028234663852886e38f + 1.0f;\n");
  ASSERT_TRUE(b.ok);
  EXPECT_EQ(scalar0(*var(b, "s")->value), double(FLT_MAX));
}

// Session 11's CTS fixes (cts/README.md's triage): short circuits, override initializers as
// pipeline errors, const-eval step by step in the concrete type, splats, abstract shifts and
// negation, extractBits/insertBits bounds, atomics in the vertex stage.
TEST(WgslSema, ShortCircuitedRightSidesAreTypedNotEvaluated) {
  Analyzed a = ok(R"(
const zero = 0i;
const x = false && (1 / zero) == 0;
const y = true || sqrt(-1.0) == 0;
fn f() { let z = false && i32(1 << 31u) < 0; }
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(scalar0(*var(a, "x")->value), 0);
  EXPECT_EQ(scalar0(*var(a, "y")->value), 1);
  // The deciding side the other way: evaluated, and an error.
  rejects("const zero = 0i;\nconst x = true && (1 / zero) == 0;\n", "const-eval", 2, 20,
          "division by zero");
  rejects("const x = false || sqrt(-1.0) == 0;\n", "const-eval", 1, 20, "sqrt");
  // Still typed: a type error on the right is an error.
  rejects("const x = false && 1.0;\n", "type", 1, 11);
  // An array count on the right side is evaluated (the CTS's invalid_array_count_on_rhs).
  rejects("const v = 1;\nconst x = false && array<i32, v - 2>()[0] == 0;\n", "type", 2, 31,
          "greater than 0");
}

TEST(WgslSema, OverrideInitializerErrorsArePipelineErrors) {
  const std::string src = R"(
override cond: bool;
override z = 0i;
override foo = cond && (1 / z) == 0;
override other = 1 / z;
@compute @workgroup_size(1) fn a() { _ = foo; }
@compute @workgroup_size(1) fn b() { _ = cond; }
)";
  auto translate = [&](const std::string& entry, std::map<std::string, double> constants = {}) {
    return pipeline_error(src, entry, std::move(constants));
  };
  EXPECT_NO_THROW(check_module(src, "t.wgsl"));
  EXPECT_EQ(translate("a", {{"cond", 0}}), "ok");  // && short-circuits
  EXPECT_EQ(translate("a", {{"cond", 1}}),
            "t.wgsl:4:25: error: integer division by zero is invalid [const-eval]");
  EXPECT_EQ(translate("a", {{"cond", 1}, {"z", 2}}), "ok");
  EXPECT_EQ(translate("b", {{"cond", 1}}), "ok");  // b uses neither foo nor other
  // An override index out of an array's bounds.
  const std::string idx = R"(override x: i32;
@group(0) @binding(0) var<storage> v: array<u32>;
fn y() -> u32 { let t = array(1, 2, 3)[x]; let u = v[x]; return 0; }
@compute @workgroup_size(1) fn a() { _ = y(); }
)";
  EXPECT_NO_THROW(check_module(idx, "t.wgsl"));
  auto run_idx = [&](double x) { return pipeline_error(idx, "", {{"x", x}}); };
  EXPECT_EQ(run_idx(2), "ok");
  EXPECT_EQ(run_idx(3), "t.wgsl:3:40: error: index 3 out of bounds [0..2] [type]");
  EXPECT_EQ(run_idx(-1), "t.wgsl:3:40: error: index -1 out of bounds [0..2] [type]");
}

TEST(WgslSema, ConstEvalChecksEachStepInTheConcreteType) {
  // 2e19^2 = 4e38 overflows f32 (and 300^2 f16) before the square root brings it back.
  rejects("const n = normalize(vec2<f32>(2e19f, 1.0f));\n", "const-eval", 1, 11,
          "intermediate value");
  rejects("const n = length(vec2<f32>(2e19f, 1.0f));\n", "const-eval", 1, 11, "intermediate");
  rejects("enable f16;\nconst n = length(vec2<f16>(300.0h, 0.0h));\n", "const-eval", 2, 11,
          "intermediate value is not representable as 'f16'");
  rejects("const n = distance(vec2<f32>(2e19f, 0.0f), vec2<f32>());\n", "const-eval", 1, 11);
  rejects("const n = dot(vec2<f32>(2e19f, 0.0f), vec2<f32>(2e19f, 0.0f));\n", "const-eval", 1, 11);
  rejects("const n = cross(vec3<f32>(2e19f, 1.0f, 0.0f), vec3<f32>(1.0f, 2e19f, 0.0f));\n",
          "const-eval", 1, 11);
  rejects("const n = faceForward(vec2f(1.0), vec2f(2e19f, 0.0f), vec2f(2e19f, 0.0f));\n",
          "const-eval", 1, 11);
  rejects("const n = refract(vec2f(1.0f, 0.0f), vec2f(1.0f, 0.0f), 2e19f);\n", "const-eval", 1, 11);
  // (1 - 2) * 3e38 fits, 3e38 * 2 does not: the sum would.
  rejects("const n = mix(3e38f, 3e38f, 2.0f);\n", "const-eval", 1, 11);
  // The same in abstract float fits; a scalar's length is its magnitude (no square).
  Analyzed a = ok(R"(
const n = normalize(vec2(2e19, 1.0));
const l = length(-1e200);
const d = distance(1e300, -1e300);
const m = mix(3e38f, 3e38f, 0.5f);
const r = refract(vec2f(1.0f, 0.0f), vec2f(1.0f, 0.0f), 2.0f);
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(scalar0(*var(a, "n")->value), 1.0);
  EXPECT_EQ(scalar0(*var(a, "l")->value), 1e200);
  EXPECT_EQ(scalar0(*var(a, "d")->value), 2e300);
  EXPECT_EQ(scalar0(*var(a, "m")->value), double(3e38f));
  // k = 1 - 2^2 * (1 - 1^2) = 1; 2 * 1 - (2 * 1 + sqrt(1)) * 1 = -1.
  EXPECT_EQ(scalar0(*var(a, "r")->value), -1.0);
}

TEST(WgslSema, SplatsShiftsNegationAndBitRanges) {
  // A typed splat takes its element type (or an abstract value), not a conversion.
  rejects("const v = vec2<bool>(1i);\n", "type", 1, 11, "no matching constructor");
  rejects("const v = vec3<f32>(1u);\n", "type", 1, 11, "no matching constructor");
  Analyzed a = ok(R"(
const s = vec3<f32>(1);
const r = -5 >> 100u;
const q = 5 >> 64u;
const z = 0 << 65u;
const n = -(-9223372036854775807 - 1);
)");
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(scalar0(*var(a, "s")->value), 1.0);
  EXPECT_EQ(scalar0(*var(a, "r")->value), -1);
  EXPECT_EQ(scalar0(*var(a, "q")->value), 0);
  EXPECT_EQ(scalar0(*var(a, "z")->value), 0);
  EXPECT_EQ(std::get<int64_t>(var(a, "n")->value->scalars.at(0).v), INT64_MIN);
  rejects("const z = 1 << 64u;\n", "const-eval", 1, 11);
  // Each product of an abstract dot must fit in 64 bits (4 * (-2^63)^2 wraps 128 bits to 0).
  rejects("const m = -9223372036854775807 - 1;\nconst d = dot(vec4(m), vec4(m));\n", "const-eval",
          2, 11, "overflow");
  // offset + count <= 32 once both are known, e at run time.
  rejects("fn f(e: u32) -> u32 { return extractBits(e, 30u, 4u); }\n", "const-eval", 1, 30,
          "less than or equal to 32");
  rejects("fn f(e: u32) -> u32 { return insertBits(e, e, 33u, 0u); }\n", "const-eval", 1, 30);
  ok("fn f(e: u32) -> u32 { return extractBits(e, 16u, 16u) + insertBits(e, e, 31u, 1u); }\n");
  // ptr<storage, T, write> does not exist; -m of a matrix is no overload.
  rejects("alias T = ptr<storage, u32, write>;\n", "address-space", 1, 29, "'write'");
  rejects("var<private> m: mat2x2f;\nfn f() { _ = -m; }\n", "type", 2, 14, "operator -");
  // Override-sized arrays: the count is the pipeline's to check (an unused alias never is),
  // and the same override named alone is the same type.
  ok("override x = 0;\nalias T = array<u32, x>;\noverride y = -1;\nalias U = array<u32, y>;\n");
  ok(R"(requires unrestricted_pointer_parameters;
override x: u32;
var<workgroup> v: array<u32, x>;
fn bar(p: ptr<workgroup, array<u32, x>>) {}
fn foo() { bar(&v); }
)");
  // Workgroup variables in compute only; writable storage not in the vertex stage.
  rejects("var<workgroup> w: u32;\n@fragment fn f() { _ = w; }\n", "entry-point", 1, 16,
          "fragment");
  rejects(R"(@group(0) @binding(0) var<storage, read_write> b: u32;
@vertex fn v() -> @builtin(position) vec4f { _ = b; return vec4f(); }
)",
          "entry-point", 1, 48, "vertex");
  ok(R"(@group(0) @binding(0) var<storage, read_write> b: u32;
@fragment fn f() { _ = b; }
)");
  // A continue before a declaration the continuing block uses.
  rejects("fn f() { loop { continue; let c = false; continuing { break if c; } } }\n", "type", 1,
          17, "bypasses declaration of 'c'");
  rejects("fn f() { loop { if false { continue; } let c = false; continuing { break if c; } } }\n",
          "type", 1, 28, "bypasses");
  ok("fn f() { loop { continue; let c = false; continuing { break if false; } } }\n");
  ok("fn f() { loop { let c = false; if c { continue; } continuing { break if c; } } }\n");
  // A struct ending in a runtime array is not a member type; a declaration hides an access mode.
  rejects("struct S { x: array<u32> }\nstruct T { x: S }\n", "type", 2, 12, "nested");
  rejects("var<private> read: i32;\n@group(0) @binding(0) var<storage, read> a: i32;\n",
          "address-space", 2, 36, "unresolved access mode 'read'");
  // discard: fragment shaders only (directly or through a call); its behavior is {Next}, so a
  // loop of discards alone does not exit.
  ok("fn f() { discard; }\n@fragment fn g() { f(); }\nfn h() { while true { discard; } }\n");
  rejects("fn f() { discard; }\n@compute @workgroup_size(1) fn c() { f(); }\n", "entry-point", 1,
          10, "discard cannot be used by compute pipeline stage");
  rejects("@compute @workgroup_size(1) fn c() { discard; }\n", "entry-point", 1, 38, "discard");
  rejects("fn f() { loop { discard; } }\n", "type", 1, 10);
  // atomicLoad's result may be ignored (not @must_use).
  ok("var<workgroup> w: atomic<u32>;\nfn f() { atomicLoad(&w); }\n");
  // Atomics: not in the vertex stage.
  rejects(R"(@group(0) @binding(0) var<storage, read_write> a: atomic<i32>;
@vertex fn v() -> @builtin(position) vec4<f32> {
  _ = atomicAdd(&a, 1);
  return vec4<f32>();
}
)",
          "entry-point", 3, 7, "vertex");
  ok(R"(@group(0) @binding(0) var<storage, read_write> a: atomic<i32>;
@fragment fn f() -> @location(0) vec4<f32> {
  _ = atomicAdd(&a, 1);
  return vec4<f32>();
}
)");
}

TEST(WgslSema, RejectsAddressSpaceAttributeEntryPointExtension) {
  rejects("@group(0) var<storage> b: array<u32>;\n", "attribute", 1, 24,
          "resource variables require @group and @binding");
  rejects("@group(0) @binding(0) var<private> p: u32;\n", "attribute", 1, 1,
          "non-resource variables must not have @group or @binding");
  rejects(std::string(kMain) + "  var<private> y: f32;\n}\n", "address-space", 2, 16,
          "function-scope 'var'");
  rejects("var<workgroup> w: u32 = 1u;\n", "address-space", 1, 25, "cannot have an initializer");
  rejects("var<private> r: array<u32>;\n", "address-space", 1, 17, "runtime-sized");
  rejects("var<private> a: atomic<u32>;\n", "address-space", 1, 17, "atomic");
  rejects("@group(0) @binding(0) var<uniform> u: bool;\n", "address-space", 1, 39,
          "non-host-shareable");
  rejects("@compute fn main() {}\n", "entry-point", 1, 13, "workgroup_size");
  rejects("@compute @workgroup_size(0) fn main() {}\n", "attribute", 1, 26, "at least 1");
  rejects("@compute @workgroup_size(1i, 1u) fn main() {}\n", "attribute", 1, 30, "same type");
  // Over WebGPU's default maxComputeInvocationsPerWorkgroup: a pipeline-creation limit.
  ok("@compute @workgroup_size(16, 16, 2) fn main() {}\n");
  rejects("@compute @workgroup_size(1) fn main(x: u32) {}\n", "entry-point", 1, 37,
          "missing entry point IO attribute");
  rejects("@compute @workgroup_size(1) fn main(@builtin(local_invocation_id) x: u32) {}\n",
          "entry-point", 1, 67, "must be 'vec3<u32>'");
  rejects("@compute @workgroup_size(1) fn main(@builtin(position) x: vec4<f32>) {}\n",
          "entry-point", 1, 56, "cannot be used for compute shader input");
  rejects("var<private> h: f16;\n", "extension", 1, 17, "f16");
  rejects("enable foo;\n", "extension", 1, 1, "unknown extension: 'foo'");
  rejects(std::string(kMain) + "  let b = subgroupElect();\n}\n", "extension", 2, 11, "subgroups");
  rejects(
      "@group(0) @binding(0) var<storage, read_write> a: u32;\n"
      "@group(0) @binding(0) var<storage, read_write> b: u32;\n" +
          std::string(kMain) + "  a = b;\n}\n",
      "attribute", 2, 48, "same resource binding");
  // Attribute placement and arity (CTS shader_io align, size, pipeline_stage placement).
  rejects("struct S { @align(4) @align(4) a: u32 }\n", "attribute", 1, 22, "duplicate @align");
  rejects("struct S { @align(4, 2) a: u32 }\n", "attribute", 1, 12, "takes one argument");
  // @align below the member type's alignment: refused wherever the struct is used, or unused,
  // and for a bool too (dawn.node 0.6.2 refuses all of these: "alignment must be a multiple of").
  rejects("struct S { a: u32, @align(4) b: vec4<f32> }\n", "attribute", 1, 20,
          "@align(4) is smaller than the required alignment 16 of 'vec4<f32>'");
  rejects("struct S { a: u32, @align(4) b: vec4<f32> }\n" + std::string(kMain) +
              "  var p: S;\n  p.b.x = 1.0;\n}\n",
          "attribute", 1, 20, "smaller than the required alignment 16");
  rejects("struct S { a: u32, @align(2) b: bool }\nvar<private> p: S;\n", "attribute", 1, 20,
          "@align(2) is smaller than the required alignment 4 of 'bool'");
  ok("struct S { a: u32, @align(32) b: bool, @align(16) c: vec4<f32> }\n" + std::string(kMain) +
     "  var p: S;\n  p.b = true;\n}\n");
  rejects("fn f() -> @compute vec4<f32> { return vec4<f32>(); }\n", "attribute", 1, 11,
          "not valid for function return types");
  rejects(std::string(kMain) + "  @align(4) while (false) {}\n}\n", "attribute", 2, 3,
          "not valid for statements");
}

// Textures and samplers are checked as opaque handle types (createShaderModule's rules), not
// translated: the CTS's validation tests declare them beside what they test.
TEST(WgslSema, TextureAndSamplerTypes) {
  ok(R"(
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var sc: sampler_comparison;
@group(0) @binding(3) var st: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(4) var d: texture_depth_cube_array;
@group(0) @binding(5) var m: texture_multisampled_2d<i32>;
@group(0) @binding(6) var e: texture_external;
@group(0) @binding(7) var a: texture_2d_array<u32,>;
@group(1) @binding(0) var<storage, read_write> o: array<u32>;
alias T = texture_storage_3d<r32float, read_write>;
@group(1) @binding(1) var aliased: T;
fn takes(x: texture_2d<f32>, y: sampler) { _ = x; _ = y; }
@compute @workgroup_size(1) fn main() { takes(t, s); o[0] = 1u; }
)");
  rejects("@group(0) @binding(0) var t: texture_2d<bool>;\n", "type", 1, 41,
          "must be f32, i32 or u32");
  rejects("@group(0) @binding(0) var t: texture_2d<1.0>;\n", "type", 1, 41, "expected a type");
  rejects("@group(0) @binding(0) var t: texture_2d;\n", "type", 1, 30, "requires 1 template");
  rejects("@group(0) @binding(0) var t: texture_depth_2d<f32>;\n", "type", 1, 30,
          "does not take template arguments");
  rejects("@group(0) @binding(0) var t: texture_storage_2d<r8unorm, write>;\n", "type", 1, 49,
          "not a texel format");
  rejects("@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, storage>;\n", "type", 1, 61,
          "unresolved access mode");
  rejects("@group(0) @binding(0) var<private> t: texture_external;\n", "address-space", 1, 39,
          "at module scope without an address space");
  rejects("@group(0) @binding(0) var<storage, read> t: texture_depth_2d;\n", "address-space", 1, 45,
          "without an address space");
  rejects(std::string(kMain) + "  var s: sampler;\n}\n", "address-space", 2, 10, "at module scope");
  rejects(
      "@group(0) @binding(0) var foo: sampler;\n"
      "@group(0) @binding(1) var bar: sampler = foo;\n",
      "address-space", 2, 42, "cannot have an initializer");
  rejects("var t: texture_2d<f32>;\n", "attribute", 1, 5, "require @group and @binding");
  rejects("struct S { s: sampler }\n", "type", 1, 12, "structure member");
  rejects("var<private> a: array<sampler, 2>;\n", "type", 1, 23, "element type of an array");
  rejects("@group(0) @binding(0) var t: texture_2d<f32>;\n" + std::string(kMain) +
              "  let b = t == t;\n}\n",
          "type", 3, 11, "no matching overload");
  rejects("fn f() -> sampler {}\n", "type", 1, 11, "constructible");
  rejects(
      "@group(0) @binding(0) var t: texture_2d<f32>;\n"
      "@group(0) @binding(0) var s: sampler;\n" +
          std::string(kMain) + "  _ = t; _ = s;\n}\n",
      "attribute", 2, 27, "same resource binding");
  rejects("@group(0) @binding(0) var t: texture_9d<f32>;\n", "resolve", 1, 30,
          "unresolved type 'texture_9d'");
  // readonly_and_readwrite_storage_textures is offered (the language: read and read_write
  // storage textures and textureBarrier are typed; textures are not run): its `requires` is
  // accepted, an unknown language feature is not.
  ok("requires readonly_and_readwrite_storage_textures;\n" + std::string(kMain) +
     "  textureBarrier();\n}\n");
  rejects("requires readonly_and_readwrite_storage_texturez;\n", "extension", 1, 1,
          "'readonly_and_readwrite_storage_texturez' is not supported");
  ok(std::string(kMain) + "  textureBarrier();\n}\n");
}

// Derivatives and textureSample/Bias/Compare are typed (fragment stage only, through the call
// graph too) so that the uniformity analysis sees them; they are not translated.
TEST(WgslSema, DerivativesAndImplicitSamplesAreTypedForFragmentShaders) {
  ok(R"(
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var d: texture_depth_2d_array;
@group(0) @binding(3) var sc: sampler_comparison;
fn helper(x: f32) -> f32 { return dpdx(x) + fwidthFine(vec2(x, 1.0)).y; }
@fragment fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
  let c = textureSample(t, s, uv) + textureSampleBias(t, s, uv, 0.5, vec2<i32>(1, 1));
  let z: f32 = textureSampleCompare(d, sc, uv, 2u, 0.5);
  return c * helper(uv.x) * z;
}
)");
  const std::string decls =
      "@group(0) @binding(0) var t: texture_2d<f32>;\n@group(0) @binding(1) var s: sampler;\n";
  rejects(decls + std::string(kMain) + "  _ = dpdx(1.0);\n}\n", "entry-point", 4, 7,
          "cannot be used by compute pipeline stage");
  rejects(
      decls + "fn f() { _ = textureSample(t, s, vec2f()); }\n" + std::string(kMain) + "  f();\n}\n",
      "entry-point", 3, 14, "called by entry point 'main'");
  rejects("fn f() { workgroupBarrier(); }\n@fragment fn main() { f(); }\n", "entry-point", 1, 10,
          "cannot be used by fragment pipeline stage");
  rejects(decls + "@fragment fn main() { _ = textureSample(t, s, 1.0); }\n", "type", 3, 47,
          "argument 3 of 'textureSample'");
  rejects(decls + "@fragment fn main() { _ = textureSampleCompare(t, s, vec2f(), 1.0); }\n", "type",
          3, 27, "no matching call");
  rejects("@fragment fn main() { _ = dpdx(1i); }\n", "type", 1, 27, "no matching call");
  // Subgroup builtins are allowed in fragment shaders, through a helper too.
  ok("enable subgroups;\nfn f() -> f32 { return subgroupAdd(1.0); }\n"
     "@fragment fn main() -> @location(0) vec4f { return vec4f(f()); }\n");
}

// The other texture builtins are typed for createShaderModule's rules (overloads, const offsets
// and components, the uniformity analysis); an entry point using them is still not translated.
TEST(WgslSema, TextureBuiltinsAreTypedForValidation) {
  ok(R"(
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var d: texture_depth_2d_array;
@group(0) @binding(3) var sc: sampler_comparison;
@group(0) @binding(4) var st: texture_storage_2d_array<r32uint, read_write>;
@group(0) @binding(5) var m: texture_multisampled_2d<i32>;
@group(0) @binding(6) var c: texture_cube_array<u32>;
@group(0) @binding(7) var e: texture_external;
fn f(uv: vec2f) -> vec4f {
  let size: vec2u = textureDimensions(t) + textureDimensions(t, 1) + textureDimensions(e);
  let n: u32 = textureNumLevels(t) + textureNumLayers(d) + textureNumSamples(m);
  let l: vec4f = textureLoad(t, vec2i(1, 2), 0) + textureLoad(e, size);
  let li: vec4i = textureLoad(m, size, 3u);
  let dl: f32 = textureLoad(d, size, 1, 0u);
  let sl: vec4u = textureLoad(st, vec2u(0), 1);
  textureStore(st, vec2i(0), 2u, sl);
  let g: vec4u = textureGather(2, c, s, vec3f(), 1i);
  let gd: vec4f = textureGather(d, s, uv, 1, vec2i(-8, 7)) + textureGatherCompare(d, sc, uv, 0, 0.5);
  let sv = textureSampleLevel(t, s, uv, 0.0, vec2i(1)) + textureSampleGrad(t, s, uv, uv, uv)
         + textureSampleBaseClampToEdge(e, s, uv);
  let dz: f32 = textureSampleLevel(d, s, uv, 0u, 1) + textureSampleCompareLevel(d, sc, uv, 0, 1.0);
  return l + sv + vec4f(f32(n) + dl + dz) + vec4f(li) + vec4f(g) + gd;
}
@compute @workgroup_size(1) fn main() { _ = f(vec2f()); }
)");
  const std::string decls =
      "@group(0) @binding(0) var t: texture_2d<f32>;\n@group(0) @binding(1) var s: sampler;\n"
      "@group(0) @binding(2) var w: texture_storage_1d<rgba8sint, write>;\n";
  auto in_main = [&](const std::string& body) { return decls + kMain + body + "\n}\n"; };
  rejects(in_main("  _ = textureNumSamples(t);"), "type", 5, 7, "no matching call");
  rejects(in_main("  _ = textureLoad(t, vec2i());"), "type", 5, 7, "no matching call");
  rejects(in_main("  _ = textureLoad(w, 1);"), "type", 5, 7, "no matching call");   // write-only
  rejects(in_main("  textureStore(w, 1, vec4f());"), "type", 5, 22, "argument 3");  // vec4i
  rejects(in_main("  let o = vec2i(1);\n  _ = textureSampleLevel(t, s, vec2f(), 0.0, o);"), "type",
          6, 46, "offset argument of textureSampleLevel must be a const-expression");
  rejects(in_main("  _ = textureSampleLevel(t, s, vec2f(), 0.0, vec2i(8, 0));"), "type", 5, 46,
          "must be in [-8, 7]");
  rejects(in_main("  _ = textureGather(4, t, s, vec2f());"), "type", 5, 21, "must be in [0, 3]");
}

// Attributes: once per object, one argument where WGSL gives one; @must_use needs a result; a
// pointer's store type is not a texture or sampler; an extension whose device feature wgslvk
// never offers is a validation error, not a translation gap; builtin domain rules checked when
// the arguments they concern are known.
TEST(WgslSema, AttributeExtensionAndBuiltinDomainRules) {
  rejects("@group(0) @binding(1) @binding(2) var<storage> a: i32;\n", "attribute", 1, 23,
          "duplicate @binding");
  rejects("@group(0, 1) @binding(1) var<storage> a: i32;\n", "attribute", 1, 1, "takes one");
  rejects("@id(1, 2) override o: i32;\n", "attribute", 1, 1, "takes one");
  rejects("@compute @workgroup_size(1) @workgroup_size(2) fn main() {}\n", "attribute", 1, 29,
          "duplicate @workgroup_size");
  rejects("@must_use fn b() {}\n", "attribute", 1, 1, "return a value");
  rejects("fn f(p: ptr<function, texture_external>) {}\n", "address-space", 1, 23,
          "cannot be used in address space 'function'");
  rejects("enable clip_distances;\n", "extension", 1, 1, "wgslvk does not offer");
  rejects("enable dual_source_blending;\n", "extension", 1, 1, "wgslvk does not offer");
  // smoothstep: low < high with both known (a module error for const-expressions).
  rejects(std::string(kMain) + "  var x: f32;\n  _ = smoothstep(1.0, 1.0, x);\n}\n", "const-eval",
          3, 7, "not less than 'high'");
  rejects(std::string(kMain) + "  _ = smoothstep(2.0, 1.0, 0.5);\n}\n", "const-eval", 2, 7, "");
  ok(std::string(kMain) + "  var x: f32;\n  _ = smoothstep(0.0, 1.0, x);\n}\n");
  // pack2x16float: a value beyond f16's range is an error even where it would round to 65504.
  rejects(std::string(kMain) + "  _ = pack2x16float(vec2f(65505.0, 0.0));\n}\n", "const-eval", 2, 7,
          "outside f16's range");
  ok(std::string(kMain) + "  _ = pack2x16float(vec2f(65504.0, -65504.0));\n}\n");
  // ldexp: a known exponent above bias + 1 is an error whatever the other argument is.
  rejects(std::string(kMain) + "  var x: f32;\n  _ = ldexp(x, 129);\n}\n", "const-eval", 3, 7,
          "too large");
  ok(std::string(kMain) + "  var x: f32;\n  _ = ldexp(x, 128);\n}\n");
  // ldexp(abstract float, i32) is evaluated as an abstract float when const (as Tint), f32 else.
  ok("const v = ldexp(-1.7976931348623157e+308, i32(-1025));\n");
  rejects("fn f(e: i32) -> f32 { return ldexp(1e300, e); }\n", "const-eval", 1, 36, "");
}

// WGSL's alias analysis: two pointer arguments with one root variable, or a pointer argument to
// a variable the callee also uses, are an error when either access writes (through callees too).
TEST(WgslSema, AliasAnalysisOfPointerArguments) {
  const std::string decls =
      "var<private> x: i32;\nvar<private> y: i32;\n"
      "fn w(p: ptr<private, i32>, q: ptr<private, i32>) { *p = *q; }\n"
      "fn r(p: ptr<private, i32>, q: ptr<private, i32>) -> i32 { return *p + *q; }\n"
      "fn g(p: ptr<private, i32>) { *p = x; }\n"
      "fn via(p: ptr<private, i32>, q: ptr<private, i32>) { w(p, q); }\n";
  ok(decls + "fn c() { w(&x, &y); _ = r(&x, &x); g(&y); via(&x, &y); }\n");
  rejects(decls + "fn c() { w(&x, &x); }\n", "type", 7, 16, "invalid aliased pointer argument");
  rejects(decls + "fn c() { g(&x); }\n", "type", 7, 12, "uses 'x' directly");
  rejects(decls + "fn c() { via(&y, &y); }\n", "type", 7, 18, "invalid aliased pointer argument");
  rejects(
      "fn wf(p: ptr<function, i32>, q: ptr<function, i32>) { *p = *q; }\n"
      "fn c() { var a: array<i32, 2>; let p = &a[0]; wf(p, &a[1]); }\n",
      "type", 2, 53, "invalid aliased pointer argument");
  // A multi-component swizzle through a pointer reads it.
  rejects(
      "var<private> v: vec4i;\n"
      "fn sw(pa: ptr<private, vec4i>, pb: ptr<private, vec4i>) { *pa += vec4i(1); let t = "
      "(*pb).wzyx; }\n"
      "fn c() { sw(&v, &v); }\n",
      "type", 3, 17, "invalid aliased pointer argument");
  // Not an access: taking the address again.
  ok("fn n(p: ptr<function, i32>, q: ptr<function, i32>) { let t = &*&(*p); *q = 1; }\n"
     "fn c() { var v: i32; n(&v, &v); }\n");
}

TEST(WgslSema, AcceptsWhatWgslAllows) {
  // Pointer parameters in every address space (unrestricted_pointer_parameters), pointer
  // composite access, workgroupUniformLoad, atomics, subgroups, f16.
  ok(R"(
enable f16;
enable subgroups;
struct S { v: array<atomic<u32>, 4> }
@group(0) @binding(0) var<storage, read_write> s: S;
@group(0) @binding(1) var<uniform> u: vec4<f32>;
var<workgroup> w: array<f32, 64>;
var<workgroup> flag: u32;
fn store_p(p: ptr<storage, S, read_write>) { atomicAdd(&p.v[0], 1u); }
fn read_u(p: ptr<uniform, vec4<f32>>) -> f32 { return p.x; }
fn wg(p: ptr<workgroup, array<f32, 64>>, i: u32) -> f32 { return p[i]; }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32,
                                     @builtin(subgroup_size) sgs: u32) {
  store_p(&s);
  let h: f16 = 1.5h;
  let hv = vec2<f16>(h) * 2.0;
  w[li] = read_u(&u) + f32(hv.x) + wg(&w, li);
  let f = workgroupUniformLoad(&flag);
  let old = atomicCompareExchangeWeak(&s.v[1], 0u, f);
  if (old.exchanged) { w[0] = f32(old.old_value); }
  let total = subgroupAdd(w[li]);
  let e = frexp(1.5);
  let m = modf(vec2(1.5f, -2.25f));
  var x = 0u;
  switch li { case 0u, 1u: { x = 1u; } case 2u: { x = 2u; } default: { x = u32(total); } }
}
)");
}

TEST(WgslSema, LongChainsNeitherOverflowTheStackNorHang) {
  // 20000 functions calling each other in a chain, 20000 overrides each from the previous one:
  // the call graph and the dependency walks are iterative.
  std::string src = "fn f0() {}\noverride o0: u32 = 1;\n";
  for (int i = 1; i < 20000; i++) {
    src += "fn f" + std::to_string(i) + "() { f" + std::to_string(i - 1) + "(); }\n";
    src += "override o" + std::to_string(i) + " = o" + std::to_string(i - 1) + " + 1;\n";
  }
  src += "@compute @workgroup_size(1) fn main() { f19999(); _ = o19999; }\n";
  Analyzed a = ok(src);
  ASSERT_TRUE(a.ok);
  auto* f = static_cast<FnDecl*>(find_decl(*a.module, "main"));
  EXPECT_EQ(f->globals_used.size(), 20000u);
  EXPECT_EQ(scalar0(*var(a, "o19999")->value), 20000);
  // A const too large to hold is a "limit" diagnostic, not an allocation of gigabytes.
  rejects("const a = array<u32, 100000000>();\n", "limit", 1, 11, "scalars");
}

TEST(WgslSema, NeverCrashesOnBrokenInput) {
  // Broken programs the parser accepts: analysis reports and returns.
  const char* cases[] = {
      "struct S { a: S }",
      "alias A = B; alias B = A;",
      "const a = array<i32, 100000000>();",
      "var<private> x = x;",
      "fn f(p: ptr<function, i32>) { *p = *p + p; }",
      "const c = vec4(1)[5];",
      "const c = bitcast<vec2<f16>>(1u);",
      "fn f() -> i32 { loop { } }",
      "@compute @workgroup_size(1) fn main() { let a = array(); }",
      "@compute @workgroup_size(1) fn main() { let a = vec3(); _ = a; }",
      "@compute @workgroup_size(1) fn main() { _ = main; }",
      "override o: u32; var<workgroup> a: array<u32, o>; @compute @workgroup_size(1) fn main() { _ "
      "= a[0]; }",
  };
  for (const char* c : cases) {
    Analyzed a = run(c);
    (void)a;
  }
  SUCCEED();
}

}  // namespace
}  // namespace wgslvk::wgsl
