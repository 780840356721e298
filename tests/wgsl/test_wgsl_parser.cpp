// The WGSL parser (translator/wgsl/src/parser.cpp, lexer.cpp): every shipped WGSL file parses;
// the tree's shape for precedence, template lists (the spec's discovery cases), statements and
// attributes, written as S-expressions by a small dumper below; rejections with their line:col.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "../../translator/wgsl/src/lexer.hpp"
#include "../../translator/wgsl/src/passes.hpp"

namespace wgslvk::wgsl {
namespace {

// ---- S-expression dumper ----------------------------------------------------------------------

std::string op_name(Op op) {
  switch (op) {
    case Op::Neg:
      return "-";
    case Op::Not:
      return "!";
    case Op::BitNot:
      return "~";
    case Op::Deref:
      return "*";
    case Op::AddrOf:
      return "&";
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

std::string dump(const Expr* e) {
  if (!e) return "null";
  std::string s;
  switch (e->kind) {
    case ExprKind::BoolLit:
      return e->bool_value ? "true" : "false";
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
      s = e->text;
      if (e->suffix) s += e->suffix;
      return (e->kind == ExprKind::FloatLit ? "F:" : "I:") + s;
    case ExprKind::Ident:
      s = e->text;
      if (!e->template_args.empty()) {
        s += "<";
        for (size_t i = 0; i < e->template_args.size(); ++i)
          s += (i ? ", " : "") + dump(e->template_args[i]);
        s += ">";
      }
      return s;
    case ExprKind::Call:
      s = "(call " + dump(e->callee);
      for (const Expr* a : e->args) s += " " + dump(a);
      return s + ")";
    case ExprKind::Index:
      return "([] " + dump(e->args[0]) + " " + dump(e->args[1]) + ")";
    case ExprKind::Member:
      return "(. " + dump(e->args[0]) + " " + e->text + ")";
    case ExprKind::Unary:
      return "(" + op_name(e->op) + " " + dump(e->args[0]) + ")";
    case ExprKind::Binary:
      return "(" + op_name(e->op) + " " + dump(e->args[0]) + " " + dump(e->args[1]) + ")";
  }
  return "?";
}

std::string dump_attrs(const std::vector<Attribute>& attrs) {
  std::string s;
  for (const Attribute& a : attrs) {
    s += "@" + a.name;
    if (!a.args.empty()) {
      s += "(";
      for (size_t i = 0; i < a.args.size(); ++i) s += (i ? ", " : "") + dump(a.args[i]);
      s += ")";
    }
    s += " ";
  }
  return s;
}

std::string dump_var(const VarDecl* v) {
  static const char* kinds[] = {"var", "let", "const", "override", "param"};
  std::string s = dump_attrs(v->attrs) + "(" + kinds[static_cast<int>(v->kind)];
  if (!v->var_template.empty()) {
    s += "<";
    for (size_t i = 0; i < v->var_template.size(); ++i)
      s += (i ? ", " : "") + dump(v->var_template[i]);
    s += ">";
  }
  s += " " + v->name;
  if (v->type_expr) s += " : " + dump(v->type_expr);
  if (v->initializer) s += " = " + dump(v->initializer);
  return s + ")";
}

std::string dump(const Stmt* s) {
  if (!s) return "null";
  std::string a = dump_attrs(s->attrs);
  switch (s->kind) {
    case StmtKind::Block: {
      std::string b = a + "{";
      for (size_t i = 0; i < s->body.size(); ++i) b += (i ? " " : "") + dump(s->body[i]);
      return b + "}";
    }
    case StmtKind::Decl:
      return dump_var(s->decl);
    case StmtKind::Assign:
      if (!s->lhs) return "(_= " + dump(s->expr) + ")";
      return "(" + (s->op == Op::None ? std::string() : op_name(s->op)) + "= " + dump(s->lhs) +
             " " + dump(s->expr) + ")";
    case StmtKind::Increment:
      return "(++ " + dump(s->lhs) + ")";
    case StmtKind::Decrement:
      return "(-- " + dump(s->lhs) + ")";
    case StmtKind::Call:
      return dump(s->expr);
    case StmtKind::Return:
      return s->expr ? "(return " + dump(s->expr) + ")" : "(return)";
    case StmtKind::If:
      return a + "(if " + dump(s->expr) + " " + dump(s->then) +
             (s->else_ ? " else " + dump(s->else_) : "") + ")";
    case StmtKind::Switch: {
      std::string b = a + "(switch " + dump(s->expr);
      for (const SwitchCase& c : s->cases) {
        b += " (case";
        for (const Expr* sel : c.selectors) b += " " + dump(sel);
        if (c.has_default) b += " default";
        b += " " + dump(c.body) + ")";
      }
      return b + ")";
    }
    case StmtKind::Loop:
      return a + "(loop " + dump(s->then) +
             (s->continuing ? " continuing " + dump(s->continuing) : "") + ")";
    case StmtKind::For:
      return a + "(for " + dump(s->init) + " " + dump(s->expr) + " " + dump(s->update) + " " +
             dump(s->then) + ")";
    case StmtKind::While:
      return a + "(while " + dump(s->expr) + " " + dump(s->then) + ")";
    case StmtKind::Break:
      return "break";
    case StmtKind::BreakIf:
      return "(break-if " + dump(s->expr) + ")";
    case StmtKind::Continue:
      return "continue";
    case StmtKind::Discard:
      return "discard";
    case StmtKind::ConstAssert:
      return "(const_assert " + dump(s->expr) + ")";
  }
  return "?";
}

std::string dump(const Decl* d) {
  switch (d->kind) {
    case DeclKind::Fn: {
      const auto* f = static_cast<const FnDecl*>(d);
      std::string s = dump_attrs(f->attrs) + "(fn " + f->name + " (";
      for (size_t i = 0; i < f->params.size(); ++i) s += (i ? " " : "") + dump_var(f->params[i]);
      s += ")";
      if (f->return_type) s += " -> " + dump_attrs(f->return_attrs) + dump(f->return_type);
      return s + " " + dump(f->body) + ")";
    }
    case DeclKind::Struct: {
      const auto* st = static_cast<const StructDecl*>(d);
      std::string s = "(struct " + st->name;
      for (const StructMember& m : st->members)
        s += " (" + dump_attrs(m.attrs) + m.name + " : " + dump(m.type_expr) + ")";
      return s + ")";
    }
    case DeclKind::Alias: {
      const auto* al = static_cast<const AliasDecl*>(d);
      return "(alias " + al->name + " = " + dump(al->type_expr) + ")";
    }
    default:
      return dump_var(static_cast<const VarDecl*>(d));
  }
}

std::string dump(const Module& m) {
  std::string s;
  for (const Directive& d : m.directives) {
    static const char* kinds[] = {"enable", "requires", "diagnostic"};
    s += std::string("(") + kinds[static_cast<int>(d.kind)];
    for (const std::string& n : d.names) s += " " + n;
    s += ")\n";
  }
  for (const Decl* d : m.decls) s += dump(d) + "\n";
  for (const Expr* e : m.const_asserts) s += "(const_assert " + dump(e) + ")\n";
  return s;
}

// ---- helpers ----------------------------------------------------------------------------------

struct Parsed {
  std::unique_ptr<Module> module;
  Diags diags{"test.wgsl", {}, {}, {}};
};
Parsed parse_source(std::string_view src) {
  Parsed p;
  p.module = parse(src, p.diags);
  return p;
}

// The dump of a module, or the first diagnostic as "line:col: message [rule]".
std::string module_dump(std::string_view src) {
  Parsed p = parse_source(src);
  if (!p.module) {
    if (p.diags.list.empty()) return "no module and no diagnostic";
    const Diagnostic& d = p.diags.list.front();
    return std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message + " [" + d.rule +
           "]";
  }
  EXPECT_TRUE(p.diags.ok());
  return dump(*p.module);
}

// An expression, parsed as a const initializer on line 1 ("const x = " is 10 columns).
std::string expr(const std::string& e) {
  Parsed p = parse_source("const x = " + e + ";");
  if (!p.module) {
    const Diagnostic& d = p.diags.list.front();
    return "error " + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
  }
  return dump(static_cast<const VarDecl*>(p.module->decls.at(0))->initializer);
}

// A function body's statements ("fn f() {" and a line break come first: statements are on
// line 2 onwards).
std::string body(const std::string& stmts) {
  Parsed p = parse_source("fn f() {\n" + stmts + "\n}");
  if (!p.module) {
    const Diagnostic& d = p.diags.list.front();
    return "error " + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
  }
  return dump(static_cast<const FnDecl*>(p.module->decls.at(0))->body);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// ---- the shipped WGSL -------------------------------------------------------------------------

TEST(WgslParser, EveryShippedWgslFileParses) {
  const char* root = std::getenv("WGSLVK_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "WGSLVK_SOURCE_DIR is not set (CTest sets it)";
  std::vector<std::filesystem::path> files;
  for (const auto& family :
       std::filesystem::directory_iterator(std::filesystem::path(root) / "wgsl_ports")) {
    if (!family.is_directory()) continue;
    for (const auto& f : std::filesystem::directory_iterator(family.path()))
      if (f.path().extension() == ".wgsl") files.push_back(f.path());
  }
  ASSERT_GE(files.size(), 10u);
  // Each file's compute entry points, counted in the text: lines that start with @compute.
  const std::regex compute_line(R"(^\s*@compute\b)");
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    std::string src = read_file(file);
    Parsed p = parse_source(src);
    ASSERT_TRUE(p.module != nullptr) << (p.diags.list.empty() ? "" : p.diags.list.front().str());
    EXPECT_TRUE(p.diags.ok());
    size_t expected_entries = 0;
    std::istringstream lines(src);
    for (std::string line; std::getline(lines, line);)
      expected_entries += std::regex_search(line, compute_line);
    size_t entries = 0, fns = 0;
    for (const Decl* d : p.module->decls) {
      if (d->kind != DeclKind::Fn) continue;
      ++fns;
      const auto* f = static_cast<const FnDecl*>(d);
      ASSERT_NE(f->body, nullptr);
      for (const Attribute& a : f->attrs) entries += a.name == "compute";
    }
    EXPECT_GT(expected_entries, 0u);
    EXPECT_EQ(entries, expected_entries);
    EXPECT_GE(fns, entries);
  }
}

// ---- expressions ------------------------------------------------------------------------------

TEST(WgslParser, Precedence) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a / b % c * d"), "(* (% (/ a b) c) d)");
  EXPECT_EQ(expr("-a * b"), "(* (- a) b)");
  EXPECT_EQ(expr("a * -b"), "(* a (- b))");
  EXPECT_EQ(expr("- -a"), "(- (- a))");
  EXPECT_EQ(expr("--a"), "(- (- a))");
  EXPECT_EQ(expr("a--b"), "(- a (- b))");
  EXPECT_EQ(expr("!~*&a"), "(! (~ (* (& a))))");
  EXPECT_EQ(expr("&&a"), "(& (& a))");
  EXPECT_EQ(expr("a + b < c * d"), "(< (+ a b) (* c d))");
  EXPECT_EQ(expr("a << 2u"), "(<< a I:2u)");
  EXPECT_EQ(expr("a >> b < c"), "(< (>> a b) c)");
  EXPECT_EQ(expr("a < b && c >= d && e"), "(&& (&& (< a b) (>= c d)) e)");
  EXPECT_EQ(expr("a || b || c == d"), "(|| (|| a b) (== c d))");
  EXPECT_EQ(expr("a & b & c"), "(& (& a b) c)");
  EXPECT_EQ(expr("a ^ -b ^ c"), "(^ (^ a (- b)) c)");
  EXPECT_EQ(expr("a | (b & c)"), "(| a (& b c))");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(expr("x & (y ^ (z | w))"), "(& x (^ y (| z w)))");
  EXPECT_EQ(expr("(x + y) << (z >= w)"), "(<< (+ x y) (>= z w))");
  EXPECT_EQ(expr("x < (y > z)"), "(< x (> y z))");
  EXPECT_EQ(expr("x && (y || z)"), "(&& x (|| y z))");
  EXPECT_EQ(expr("a.b[c + 1].d.xyz"), "(. (. ([] (. a b) (+ c I:1)) d) xyz)");
  EXPECT_EQ(expr("-a.b"), "(- (. a b))");
  EXPECT_EQ(expr("*p.x"), "(* (. p x))");
  EXPECT_EQ(expr("(*p).x"), "(. (* p) x)");
  EXPECT_EQ(expr("f(a, b,)"), "(call f a b)");
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("vec4<f32>(1.0)"), "(call vec4<f32> F:1.0)");
  EXPECT_EQ(expr("bitcast<u32>(x) >> 23u"), "(>> (call bitcast<u32> x) I:23u)");
  EXPECT_EQ(expr("f(x)[0]"), "([] (call f x) I:0)");
}

TEST(WgslParser, OperatorMixingNeedsParentheses) {
  // Spec 8.19's corner cases, and the other pairs the grammar refuses; the error is at the
  // operator that may not follow (column counted from "const x = ", 10 characters).
  EXPECT_EQ(expr("x & y ^ z | w"), "error 1:17: mixing '&' and '^' requires parentheses");
  EXPECT_EQ(expr("x + y << z >= w"), "error 1:17: mixing '+' and '<<' requires parentheses");
  // x < y > z: by template list discovery, x<y> is a template list (then z is unexpected).
  EXPECT_EQ(expr("x < y > z"), "error 1:19: expected ';' for const declaration, found 'z'");
  EXPECT_EQ(expr("x == y < z"), "error 1:18: mixing '==' and '<' requires parentheses");
  EXPECT_EQ(expr("x && y || z"), "error 1:18: mixing '&&' and '||' requires parentheses");
  EXPECT_EQ(expr("a << b + c"), "error 1:18: mixing '<<' and '+' requires parentheses");
  EXPECT_EQ(expr("a << b << c"), "error 1:18: '<<' cannot be chained without parentheses");
  EXPECT_EQ(expr("a == b == c"), "error 1:18: '==' cannot be chained without parentheses");
  EXPECT_EQ(expr("a & b + c"), "error 1:17: mixing '&' and '+' requires parentheses");
  EXPECT_EQ(expr("a + b & c"), "error 1:17: mixing '+' and '&' requires parentheses");
  EXPECT_EQ(expr("a & b == c"), "error 1:17: mixing '&' and '==' requires parentheses");
  EXPECT_EQ(expr("a < b & c"), "error 1:17: mixing '<' and '&' requires parentheses");
  EXPECT_EQ(expr("a & b && c"), "error 1:17: mixing '&' and '&&' requires parentheses");
  EXPECT_EQ(expr("a || b & c"), "error 1:18: mixing '||' and '&' requires parentheses");
}

TEST(WgslParser, Literals) {
  EXPECT_EQ(expr("0"), "I:0");
  EXPECT_EQ(expr("0i"), "I:0i");
  EXPECT_EQ(expr("123u"), "I:123u");
  EXPECT_EQ(expr("0x1Fu"), "I:0x1Fu");
  EXPECT_EQ(expr("0X123"), "I:0X123");
  EXPECT_EQ(expr("0x1f"), "I:0x1f");  // 'f' is a hex digit, not a suffix
  EXPECT_EQ(expr("1f"), "F:1f");
  EXPECT_EQ(expr("0h"), "F:0h");
  EXPECT_EQ(expr("1e3"), "F:1e3");
  EXPECT_EQ(expr("1E-3f"), "F:1E-3f");
  EXPECT_EQ(expr(".5"), "F:.5");
  EXPECT_EQ(expr("1."), "F:1.");
  EXPECT_EQ(expr("01."), "F:01.");
  EXPECT_EQ(expr("0.e+4f"), "F:0.e+4f");
  EXPECT_EQ(expr("12.34"), "F:12.34");
  EXPECT_EQ(expr(".0f"), "F:.0f");
  EXPECT_EQ(expr("0x1p-3"), "F:0x1p-3");
  EXPECT_EQ(expr("0x1P+4f"), "F:0x1P+4f");
  EXPECT_EQ(expr("0xa.fp+2"), "F:0xa.fp+2");
  EXPECT_EQ(expr("0X.3"), "F:0X.3");
  EXPECT_EQ(expr("0x3p+2h"), "F:0x3p+2h");
  EXPECT_EQ(expr("0X1.fp-4"), "F:0X1.fp-4");
  EXPECT_EQ(expr("-1"), "(- I:1)");
  EXPECT_EQ(expr("true != false"), "(!= true false)");
  EXPECT_EQ(expr("012"), "error 1:11: integer literals cannot have leading zeros: '012'");
}

// ---- template lists ---------------------------------------------------------------------------

TEST(WgslParser, TemplateListDiscovery) {
  // The raw algorithm: offsets of the '<' and '>' it marks.
  auto lists = [](std::string_view s) {
    TemplateLists t = discover_template_lists(s);
    std::string out;
    for (size_t i = 0; i < t.starts.size(); ++i)
      out += "[" + std::to_string(t.starts[i]) + "," + std::to_string(t.ends[i]) + "]";
    return out;
  };
  EXPECT_EQ(lists("vec3<f32>"), "[4,8]");
  EXPECT_EQ(lists("array<vec4<f32>>"), "[10,14][5,15]");
  EXPECT_EQ(lists("a<b || c>d"), "");
  EXPECT_EQ(lists("a < b"), "");
  EXPECT_EQ(lists("a<<b>c"), "");
  EXPECT_EQ(lists("a<=b>c"), "");
  EXPECT_EQ(lists("A ( B < C, D > ( E ) )"), "[6,13]");
  EXPECT_EQ(lists("a<b>=c"), "[1,3]");
  EXPECT_EQ(lists("x = a[b<c]>d"), "");
  // Literals are skipped whole: the suffix of 1.0f is no name before a '<'.
  EXPECT_EQ(lists("f(1.0f<g>(2))"), "");
  EXPECT_EQ(lists("f(x1.0f<g>(2))"), "");
  EXPECT_EQ(lists("a /* < */ < b > c"), "[10,14]");
  // Through the parser.
  EXPECT_EQ(expr("array<vec4<f32>, 4>()"), "(call array<vec4<f32>, I:4>)");
  EXPECT_EQ(expr("array<vec4<f32>>()"), "(call array<vec4<f32>>)");
  EXPECT_EQ(expr("a<b || c>d"), "(|| (< a b) (> c d))");
  EXPECT_EQ(expr("a < b"), "(< a b)");
  EXPECT_EQ(expr("A(B<C, D>(E))"), "(call A (call B<C, D> E))");
  EXPECT_EQ(expr("A(B<C, D>E)"), "error 1:20: expected ')' for function call, found 'E'");
  // select(a<b, c>d) is a template list by the algorithm, so it does not parse.
  EXPECT_EQ(expr("select(a<b, c>d)"), "error 1:25: expected ')' for function call, found 'd'");
  EXPECT_EQ(expr("select(a<b, (c>d))"), "(call select (< a b) (> c d))");
  EXPECT_EQ(expr("a[b<c] > d"), "(> ([] a (< b c)) d)");
  EXPECT_EQ(expr("ptr<function, f32, >"), "ptr<function, f32>");
  EXPECT_EQ(module_dump("var<storage, read_write> x : array<u32>;"),
            "(var<storage, read_write> x : array<u32>)\n");
  EXPECT_EQ(module_dump("alias T = texture_storage_2d<rgba8unorm, write>;"),
            "(alias T = texture_storage_2d<rgba8unorm, write>)\n");
  EXPECT_EQ(body("x >>= 1u; y <<= 2u; z = a >> b;"), "{(>>= x I:1u) (<<= y I:2u) (= z (>> a b))}");
  EXPECT_EQ(expr("vec2<f32>()"), "(call vec2<f32>)");
  EXPECT_EQ(expr("f<>()"), "error 1:13: expected expression, found '>'");
}

// ---- statements -------------------------------------------------------------------------------

TEST(WgslParser, Statements) {
  EXPECT_EQ(body("var a : i32 = 1; let b = a; const c : u32 = 2u; var<function> d : f32;"),
            "{(var a : i32 = I:1) (let b = a) (const c : u32 = I:2u) (var<function> d : f32)}");
  EXPECT_EQ(body("a = 1; a += 2; a -= 3; a *= 4; a /= 5; a %= 6; a &= 7; a |= 8; a ^= 9;"),
            "{(= a I:1) (+= a I:2) (-= a I:3) (*= a I:4) (/= a I:5) (%= a I:6) (&= a I:7) "
            "(|= a I:8) (^= a I:9)}");
  EXPECT_EQ(body("_ = f(); a++; b[i].x--; *p = 1; (*q).y = 2; f(1, 2); workgroupBarrier();"),
            "{(_= (call f)) (++ a) (-- (. ([] b i) x)) (= (* p) I:1) (= (. (* q) y) I:2) "
            "(call f I:1 I:2) (call workgroupBarrier)}");
  EXPECT_EQ(body("return; ; {} discard;"), "{(return) {} discard}");
  EXPECT_EQ(body("if a { } else if b { x = 1; } else if c {} else { return 1; }"),
            "{(if a {} else (if b {(= x I:1)} else (if c {} else {(return I:1)})))}");
  EXPECT_EQ(body("if (a) {} else {}"), "{(if a {} else {})}");
  EXPECT_EQ(body("switch x { case 1, 2,: {} case default, 3 {} case 4: { break; } default {} }"),
            "{(switch x (case I:1 I:2 {}) (case I:3 default {}) (case I:4 {break}) "
            "(case default {}))}");
  EXPECT_EQ(body("switch (x) { default: {} }"), "{(switch x (case default {}))}");
  EXPECT_EQ(body("loop { if a { break; } continue; continuing { i++; break if i > 3; } }"),
            "{(loop {(if a {break}) continue} continuing {(++ i) (break-if (> i I:3))})}");
  EXPECT_EQ(body("loop { }"), "{(loop {})}");
  EXPECT_EQ(body("loop { continuing { } }"), "{(loop {} continuing {})}");
  EXPECT_EQ(body("for (var i = 0u; i < n; i++) { f(i); }"),
            "{(for (var i = I:0u) (< i n) (++ i) {(call f i)})}");
  EXPECT_EQ(body("for (;;) {}"), "{(for null null null {})}");
  EXPECT_EQ(body("for (i = 0; ; f()) {}"), "{(for (= i I:0) null (call f) {})}");
  EXPECT_EQ(body("while i < 4 { i += 1; }"), "{(while (< i I:4) {(+= i I:1)})}");
  EXPECT_EQ(body("const_assert 1 < 2;"), "{(const_assert (< I:1 I:2))}");
  EXPECT_EQ(body("let p = &a[0]; let v = *p;"), "{(let p = (& ([] a I:0))) (let v = (* p))}");
  // Statement attributes (compound, if, switch, loop, for, while; and on their bodies).
  EXPECT_EQ(body("@diagnostic(off, derivative_uniformity) if a @b {} else @c {}"),
            "{@diagnostic(off, derivative_uniformity) (if a @b {} else @c {})}");
  EXPECT_EQ(body("@a loop @b { continuing @c { } }"), "{@a (loop @b {} continuing @c {})}");
  EXPECT_EQ(body("@a switch x @b { default {} }"), "{@a @b (switch x (case default {}))}");
  EXPECT_EQ(body("@a for (;;) @b {} @c while d {} @e {}"),
            "{@a (for null null null @b {}) @c (while d {}) @e {}}");
  EXPECT_EQ(body("bitcast<u32>(x); f<i32>();"), "{(call bitcast<u32> x) (call f<i32>)}");
}

TEST(WgslParser, StatementRejections) {
  EXPECT_EQ(body("var a = 1"), "error 3:1: expected ';' for variable declaration, found '}'");
  EXPECT_EQ(body("let a;"), "error 2:6: expected '=' for let declaration, found ';'");
  EXPECT_EQ(body("break if a;"),
            "error 2:7: 'break if' must be the last statement of a "
            "continuing block");
  EXPECT_EQ(body("loop { continuing { break if a; i++; } }"),
            "error 2:33: 'break if' must be the last statement of a continuing block");
  EXPECT_EQ(body("loop { continuing {} i++; }"),
            "error 2:22: the continuing block must be the last statement of a loop, found 'i'");
  EXPECT_EQ(body("continuing {}"), "error 2:1: expected statement, found 'continuing'");
  EXPECT_EQ(body("switch x { case: {} }"), "error 2:16: expected case selector, found ':'");
  EXPECT_EQ(body("switch x { x {} }"),
            "error 2:12: expected 'case' or 'default' for switch statement, found 'x'");
  EXPECT_EQ(body("a + 1;"), "error 2:3: expected '=' for assignment, found '+'");
  EXPECT_EQ(body("if a b = 1;"), "error 2:6: expected '{' for if statement, found 'b'");
  EXPECT_EQ(body("@diagnostic(off, x) return;"),
            "error 2:21: attributes are not allowed on this statement, found 'return'");
  EXPECT_EQ(body("x = 1; }"), "error 3:1: unexpected token '}' at module scope");
}

// ---- declarations, attributes, directives -----------------------------------------------------

TEST(WgslParser, ModuleScope) {
  const char* src = R"(enable f16, subgroups,;
requires readonly_and_readwrite_storage_textures;
diagnostic(off, derivative_uniformity);
alias V = vec4<f32>;
struct S {
  @align(16) a : u32,
  @size(8) b : array<f32, 2>,
}
struct T { x : i32 }
const N : u32 = 4u;
override scale : f32 = 1.5;
@id(7) override k : u32;
@group(0) @binding(1) var<storage, read> data : array<S>;
var<workgroup> tile : array<f32, N>;
const_assert N > 2;
@compute @workgroup_size(64, 1, 1,)
fn main(@builtin(global_invocation_id) gid : vec3<u32>, @builtin(local_invocation_index) li : u32,) {
}
@fragment fn fs(@location(0) @interpolate(flat, either) c : vec4<f32>) -> @location(0) vec4<f32> {
  return c;
}
@must_use @diagnostic(warning, derivative_uniformity) fn g() -> i32 { return 1; }
fn h() @diagnostic(off, chromium.unreachable_code) { }
)";
  EXPECT_EQ(module_dump(src),
            "(enable f16 subgroups)\n"
            "(requires readonly_and_readwrite_storage_textures)\n"
            "(diagnostic off derivative_uniformity)\n"
            "(alias V = vec4<f32>)\n"
            "(struct S (@align(I:16) a : u32) (@size(I:8) b : array<f32, I:2>))\n"
            "(struct T (x : i32))\n"
            "(const N : u32 = I:4u)\n"
            "(override scale : f32 = F:1.5)\n"
            "@id(I:7) (override k : u32)\n"
            "@group(I:0) @binding(I:1) (var<storage, read> data : array<S>)\n"
            "(var<workgroup> tile : array<f32, N>)\n"
            "@compute @workgroup_size(I:64, I:1, I:1) (fn main (@builtin(global_invocation_id) "
            "(param gid : vec3<u32>) @builtin(local_invocation_index) (param li : u32)) {})\n"
            "@fragment (fn fs (@location(I:0) @interpolate(flat, either) (param c : vec4<f32>)) "
            "-> @location(I:0) vec4<f32> {(return c)})\n"
            "@must_use @diagnostic(warning, derivative_uniformity) (fn g () -> i32 "
            "{(return I:1)})\n"
            "(fn h () @diagnostic(off, chromium.unreachable_code) {})\n"
            "(const_assert (> N I:2))\n");

  Parsed p = parse_source(src);
  ASSERT_TRUE(p.module);
  const Module& m = *p.module;
  ASSERT_EQ(m.decls.size(), 12u);
  for (const Decl* d : m.decls) {
    if (d->kind == DeclKind::Var || d->kind == DeclKind::Const || d->kind == DeclKind::Override) {
      EXPECT_TRUE(static_cast<const VarDecl*>(d)->module_scope) << d->name;
    }
  }
  // Spans: declarations at their name, expressions at their first token.
  EXPECT_EQ(m.decls[3]->span.line, 10u);  // const N
  EXPECT_EQ(m.decls[3]->span.col, 7u);
  const auto* main_fn = static_cast<const FnDecl*>(m.decls[8]);
  EXPECT_EQ(main_fn->name, "main");
  EXPECT_EQ(main_fn->span.line, 17u);
  EXPECT_EQ(main_fn->params[1]->span.col, 90u);
  EXPECT_EQ(m.directives[2].span.line, 3u);
  const Expr* ca = m.const_asserts[0];
  EXPECT_EQ(ca->span.line, 15u);
  EXPECT_EQ(ca->span.col, 14u);
}

TEST(WgslParser, ModuleRejections) {
  EXPECT_EQ(module_dump("const a = 1;\nenable f16;"),
            "2:1: 'enable' directives must come before all global declarations [syntax]");
  EXPECT_EQ(module_dump("@group(0) const a = 1;"),
            "1:11: expected 'fn', 'var' or 'override' after attributes, found 'const' [syntax]");
  EXPECT_EQ(module_dump("var a : i32"),
            "1:12: expected ';' for variable declaration, found end of file [syntax]");
  EXPECT_EQ(module_dump("struct S {}"),
            "1:11: expected identifier for struct member, found '}' [syntax]");
  EXPECT_EQ(module_dump("struct S { a : i32,, }"),
            "1:20: expected identifier for struct member, found ',' [syntax]");
  EXPECT_EQ(module_dump("fn f() -> { }"),
            "1:11: expected type for function return type, found '{' [syntax]");
  EXPECT_EQ(module_dump("fn f()"),
            "1:7: expected '{' for function body, found end of file [syntax]");
  EXPECT_EQ(module_dump("const x = 1"),
            "1:12: expected ';' for const declaration, found end of file [syntax]");
  EXPECT_EQ(module_dump("x = 1;"), "1:1: unexpected token 'x' at module scope [syntax]");
  EXPECT_EQ(module_dump("let x = 1;"), "1:1: module-scope 'let' is invalid, use 'const' [syntax]");
  EXPECT_EQ(module_dump(";enable f16;"),
            "1:2: 'enable' directives must come before all global declarations [syntax]");
  EXPECT_EQ(module_dump("fn f() { fn g() {} }"), "1:10: expected statement, found 'fn' [syntax]");
  EXPECT_EQ(module_dump("enable ;"),
            "1:8: expected identifier for enable directive, found ';' [syntax]");
  // Attributes WGSL's grammar gives no parameter list (CTS shader_io,invariant:empty_parens).
  EXPECT_EQ(module_dump("struct S { @builtin(position) @invariant() p : vec4f }"),
            "1:41: attribute '@invariant' takes no parameter list [syntax]");
  EXPECT_EQ(module_dump("@compute() @workgroup_size(1) fn f() {}"),
            "1:9: attribute '@compute' takes no parameter list [syntax]");
  // One location holds one @diagnostic per rule (CTS diagnostic:duplicate_attribute_same_location).
  EXPECT_EQ(module_dump("fn f() { @diagnostic(off, x) @diagnostic(warning, x) while (true) {} }"),
            "1:30: conflicting diagnostic attribute: the rule 'x' has a diagnostic attribute "
            "already at this location [attribute]");
  EXPECT_EQ(
      module_dump("fn f() { switch 1 @diagnostic(off, x) @diagnostic(info, x) { default {} } }"),
      "1:39: conflicting diagnostic attribute: the rule 'x' has a diagnostic attribute "
      "already at this location [attribute]");
}

TEST(WgslParser, NamesKeywordsReservedWords) {
  EXPECT_EQ(module_dump("const class = 1;"), "1:7: 'class' is a reserved word [syntax]");
  EXPECT_EQ(module_dump("// null in a comment is fine\nconst a = null;"),
            "2:11: 'null' is a reserved word [syntax]");
  EXPECT_EQ(module_dump("const loop = 1;"),
            "1:7: expected identifier for const declaration, found 'loop' [syntax]");
  EXPECT_EQ(module_dump("const _ = 1;"),
            "1:7: expected identifier for const declaration, found '_' [syntax]");
  EXPECT_EQ(module_dump("const __a = 1;"),
            "1:7: identifiers must not start with two underscores: '__a' [syntax]");
  EXPECT_EQ(module_dump("const _a = 1;"), "(const _a = I:1)\n");
  EXPECT_EQ(module_dump("const f32 = 1;"), "(const f32 = I:1)\n");  // predeclared, not reserved
  EXPECT_EQ(module_dump("const Δέλτα = 1; const 朝焼け = Δέλτα;"),
            "(const Δέλτα = I:1)\n(const 朝焼け = Δέλτα)\n");
  EXPECT_EQ(module_dump("const a\xC2\xB7"
                        "b = 1;"),
            "(const a\xC2\xB7"
            "b = I:1)\n");  // U+00B7 continues
  EXPECT_EQ(module_dump("const \xC2\xB7 = 1;"),
            "1:7: invalid character U+00B7 in the source [syntax]");
  EXPECT_EQ(module_dump("const a = 1 \xE2\x82\xAC 2;"),
            "1:13: invalid character U+20AC in the source [syntax]");
  // Source text in messages is cut: a message stays short whatever the input.
  EXPECT_EQ(module_dump("const a = 1 " + std::string(10000, 'x') + ";"),
            "1:13: expected ';' for const declaration, found "
            "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' [syntax]");
  EXPECT_EQ(module_dump("const __" + std::string(10000, 'x') + " = 1;"),
            "1:7: identifiers must not start with two underscores: "
            "'__xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' [syntax]");
  // A multi-byte sequence cut by the end of the source (in a buffer of exactly its size, so a
  // sanitizer sees any read past it).
  for (std::string_view cut : {"\xE2", "\xE2\x80", "\xF0\x9F\x98", "\xC2"}) {
    std::vector<char> buf(cut.begin(), cut.end());
    Parsed p = parse_source(std::string_view(buf.data(), buf.size()));
    EXPECT_EQ(p.module, nullptr);
    ASSERT_EQ(p.diags.list.size(), 1u);
    EXPECT_EQ(p.diags.list[0].message, "invalid UTF-8 in the source (byte 0)");
  }
  EXPECT_EQ(module_dump("const a = \xFF;"), "1:11: invalid UTF-8 in the source (byte 10) [syntax]");
  // A null character, even in a comment.
  EXPECT_EQ(module_dump(std::string("// a \0 b\nconst a = 1;", 21)),
            "1:6: null character in the source (byte 5) [syntax]");
}

TEST(WgslParser, CommentsAndLineBreaks) {
  EXPECT_EQ(module_dump("/* a /* nested */ still comment */ const a = 1; // tail"),
            "(const a = I:1)\n");
  EXPECT_EQ(module_dump("/* a /* nested */ const a = 1;"),
            "1:1: unterminated block comment [syntax]");
  // Every line break of spec 3.2 counts one line: LF, VT, FF, CR, CRLF, NEL, LS, PS.
  std::string src =
      "const a = 1;\n\v\f\r\r\n\xC2\x85\xE2\x80\xA8\xE2\x80\xA9"
      "const b = ;";
  EXPECT_EQ(module_dump(src), "9:11: expected expression, found ';' [syntax]");
  // Blankspace that is not a line break: tab, LRM, RLM.
  EXPECT_EQ(module_dump("const\t\xE2\x80\x8E"
                        "a\xE2\x80\x8F = 1;"),
            "(const a = I:1)\n");
  // A line comment ends at any line break.
  EXPECT_EQ(module_dump("// c\xE2\x80\xA8"
                        "const a = 1;"),
            "(const a = I:1)\n");
}

TEST(WgslParser, NestingLimits) {
  auto rule_of = [](const std::string& src) {
    Parsed p = parse_source(src);
    return p.module ? std::string("parsed") : p.diags.list.front().rule;
  };
  std::string deep_parens =
      "const a = " + std::string(100, '(') + "1" + std::string(100, ')') + ";";
  EXPECT_EQ(rule_of(deep_parens), "parsed");
  std::string too_deep = "const a = " + std::string(500, '(') + "1" + std::string(500, ')') + ";";
  EXPECT_EQ(rule_of(too_deep), "limit");
  EXPECT_EQ(rule_of("const a = " + std::string(100000, '-') + "1;"), "limit");
  EXPECT_EQ(rule_of("const a = " + std::string(100000, '!') + "1;"), "limit");
  std::string deep_types = "var<private> a : ";
  for (int i = 0; i < 300; ++i) deep_types += "array<";
  deep_types += "f32";
  for (int i = 0; i < 300; ++i) deep_types += ", 1>";
  EXPECT_EQ(rule_of(deep_types + ";"), "limit");
  std::string blocks = "fn f() {" + std::string(300, '{') + std::string(300, '}') + "}";
  EXPECT_EQ(rule_of(blocks), "limit");
  std::string ifs = "fn f() {";
  for (int i = 0; i < 300; ++i) ifs += "if a {";
  ifs += std::string(300, '}') + "}";
  EXPECT_EQ(rule_of(ifs), "limit");
  std::string lhs = "fn f() {" + std::string(300, '*') + "p = 1; }";
  EXPECT_EQ(rule_of(lhs), "limit");
  // Chains build trees as deep as they are long (a + b + c is ((a + b) + c)), and the passes
  // after the parser recurse over trees: a chain counts as nesting too.
  auto else_ifs = [](int n) {
    std::string s = "fn f() { if a {}";
    for (int i = 0; i < n; ++i) s += " else if a {}";
    return s + " }";
  };
  EXPECT_EQ(rule_of(else_ifs(100)), "parsed");
  EXPECT_EQ(rule_of(else_ifs(5000)), "limit");
  auto sum = [](int n, const char* op) {
    std::string s = "const a = 1";
    for (int i = 0; i < n; ++i) s += std::string(" ") + op + " 1";
    return s + ";";
  };
  for (const char* op : {"+", "*", "&", "|", "^", "&&", "||"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(rule_of(sum(100, op)), "parsed");
    EXPECT_EQ(rule_of(sum(5000, op)), "limit");
  }
  std::string members = "const a = b";
  for (int i = 0; i < 5000; ++i) members += ".x";
  EXPECT_EQ(rule_of(members + ";"), "limit");
  std::string indices = "const a = b";
  for (int i = 0; i < 5000; ++i) indices += "[0]";
  EXPECT_EQ(rule_of(indices + ";"), "limit");
}

}  // namespace
}  // namespace wgslvk::wgsl
