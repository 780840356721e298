// The WGSL parser: recursive descent over the tokens of lexer.cpp, following the spec's grammar
// for recursive-descent parsing (spec section 18) and its expression grammar (8.18), including the
// operator groups WGSL refuses to mix without parentheses (8.19).
//
// Spans: every node's span is its first token (a binary expression's is its left operand's first
// token, a call's its callee's); declarations (VarDecl, FnDecl, StructDecl, AliasDecl, struct
// members) carry the span of their name. Literal text is the source spelling without the suffix
// ("0x1f", "1e3", ".5"); a negative literal is Unary Neg of the literal.
// The first syntax error stops the parse (parse() returns nullptr).
// Depth: nesting (parentheses, calls, templates, unary operators, blocks) and chains (a + b + c,
// a.b[c].d, else-if) both count toward kMaxNesting ("limit" beyond it), separately for
// expressions and statements, so the trees are at most about kMaxNesting deep and the passes after
// the parser may recurse over them.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "lexer.hpp"
#include "passes.hpp"

namespace wgslvk::wgsl {
namespace {

struct SyntaxError {
  Span at;
  std::string rule;
  std::string message;
};

using TK = Token::Kind;

std::string_view op_text(Op op) {
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
      return "";
  }
}

// The binary operator a punctuation token spells, or Op::None. Template delimiters are other
// token kinds, so '<' and '>' here are always comparisons.
Op binary_op(const Token& t) {
  if (t.kind != TK::Punct) return Op::None;
  static constexpr std::pair<std::string_view, Op> kOps[] = {
      {"+", Op::Add},     {"-", Op::Sub},    {"*", Op::Mul}, {"/", Op::Div},  {"%", Op::Mod},
      {"&", Op::And},     {"|", Op::Or},     {"^", Op::Xor}, {"<<", Op::Shl}, {">>", Op::Shr},
      {"&&", Op::LogAnd}, {"||", Op::LogOr}, {"==", Op::Eq}, {"!=", Op::Ne},  {"<", Op::Lt},
      {"<=", Op::Le},     {">", Op::Gt},     {">=", Op::Ge}};
  for (const auto& [text, op] : kOps)
    if (t.text == text) return op;
  return Op::None;
}

Op compound_assign_op(const Token& t) {
  if (t.kind != TK::Punct) return Op::None;
  static constexpr std::pair<std::string_view, Op> kOps[] = {
      {"+=", Op::Add}, {"-=", Op::Sub}, {"*=", Op::Mul}, {"/=", Op::Div},  {"%=", Op::Mod},
      {"&=", Op::And}, {"|=", Op::Or},  {"^=", Op::Xor}, {"<<=", Op::Shl}, {">>=", Op::Shr}};
  for (const auto& [text, op] : kOps)
    if (t.text == text) return op;
  return Op::None;
}

bool is_relational(Op op) {
  return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt ||
         op == Op::Ge;
}
bool is_multiplicative(Op op) { return op == Op::Mul || op == Op::Div || op == Op::Mod; }
bool is_additive(Op op) { return op == Op::Add || op == Op::Sub; }

class Parser {
 public:
  Parser(std::vector<Token> tokens, Module& module) : t_(std::move(tokens)), m_(module) {}

  void translation_unit() {
    while (peek().keyword("enable") || peek().keyword("requires") || peek().keyword("diagnostic"))
      directive();
    while (peek().kind != TK::End) global_decl();
  }

 private:
  std::vector<Token> t_;
  size_t i_ = 0;
  Module& m_;
  int expr_depth_ = 0, stmt_depth_ = 0;

  // Bounds the recursion (passes.hpp kMaxNesting): expressions and templates on one counter,
  // statements on another.
  struct Nest {
    int& depth;
    Nest(Parser& p, int& d, const char* what) : depth(d) {
      if (++depth > kMaxNesting)
        p.fail(p.peek().span,
               std::string(what) + " nesting is deeper than " + std::to_string(kMaxNesting) +
                   " levels",
               "limit");
    }
    ~Nest() { --depth; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };
  // A chain (a + b + c, a.b.c, else if ...) builds a tree as deep as it is long: each link
  // counts one level until the chain ends, so every later pass may recurse over the tree.
  struct Chain {
    Parser& p;
    int& depth;
    const char* what;
    int links = 0;
    Chain(Parser& parser, int& d, const char* w) : p(parser), depth(d), what(w) {}
    void link() {
      ++links;
      if (++depth > kMaxNesting)
        p.fail(p.peek().span,
               std::string(what) + " nesting is deeper than " + std::to_string(kMaxNesting) +
                   " levels",
               "limit");
    }
    ~Chain() { depth -= links; }
    Chain(const Chain&) = delete;
    Chain& operator=(const Chain&) = delete;
  };

  // ---- tokens ---------------------------------------------------------------------------------

  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  Token next() {
    Token t = t_[i_];
    if (i_ + 1 < t_.size()) ++i_;
    return t;
  }
  bool punct(std::string_view p) const { return peek().punct(p); }
  bool keyword(std::string_view k) const { return peek().keyword(k); }
  bool match(std::string_view p) {
    if (!punct(p)) return false;
    next();
    return true;
  }
  // Consumes the first `len` characters of the current token as a token of their own and leaves
  // the rest current: '--' in an expression is '-' '-', '&&' as a unary operator is '&' '&' (the
  // spec's longest token that is valid where it appears).
  Token take_prefix(size_t len) {
    Token first = t_[i_];
    first.text = first.text.substr(0, len);
    Token& rest = t_[i_];
    rest.text = rest.text.substr(len);
    rest.offset += static_cast<uint32_t>(len);
    rest.span.col += static_cast<uint32_t>(len);
    return first;
  }

  std::string describe(const Token& t) const {
    if (t.kind == TK::End) return "end of file";
    std::string s(t.text);
    if (t.suffix) s += t.suffix;
    return quote_source(s);
  }
  [[noreturn]] void fail(Span at, std::string message, std::string rule = "syntax") {
    throw SyntaxError{at, std::move(rule), std::move(message)};
  }
  [[noreturn]] void fail_expected(std::string_view what, std::string_view context) {
    std::string msg = "expected " + std::string(what);
    if (!context.empty()) msg += " for " + std::string(context);
    msg += ", found " + describe(peek());
    fail(peek().span, std::move(msg));
  }
  Token expect(std::string_view p, std::string_view context) {
    if (!punct(p)) fail_expected("'" + std::string(p) + "'", context);
    return next();
  }
  Token expect_keyword(std::string_view k, std::string_view context) {
    if (!keyword(k)) fail_expected("'" + std::string(k) + "'", context);
    return next();
  }
  Token expect_ident(std::string_view context) {
    if (peek().kind != TK::Ident) fail_expected("identifier", context);
    return next();
  }

  // ---- nodes ----------------------------------------------------------------------------------

  Expr* make_expr(ExprKind kind, Span at) {
    Expr* e = m_.make<Expr>();
    e->kind = kind;
    e->span = at;
    return e;
  }
  Expr* make_binary(Op op, Expr* lhs, Expr* rhs) {
    Expr* e = make_expr(ExprKind::Binary, lhs->span);
    e->op = op;
    e->args = {lhs, rhs};
    return e;
  }
  Stmt* make_stmt(StmtKind kind, Span at) {
    Stmt* s = m_.make<Stmt>();
    s->kind = kind;
    s->span = at;
    return s;
  }

  // ---- directives and attributes --------------------------------------------------------------

  void directive() {
    Token kw = next();
    Directive d;
    d.span = kw.span;
    if (kw.text == "diagnostic") {
      d.kind = Directive::Kind::Diagnostic;
      auto [severity, rule] = diagnostic_control("diagnostic directive");
      d.names = {std::move(severity), std::move(rule)};
      expect(";", "diagnostic directive");
    } else {
      d.kind = kw.text == "enable" ? Directive::Kind::Enable : Directive::Kind::Requires;
      std::string context = std::string(kw.text) + " directive";
      d.names.emplace_back(expect_ident(context).text);
      while (match(",")) {
        if (punct(";")) break;
        d.names.emplace_back(expect_ident(context).text);
      }
      expect(";", context);
    }
    m_.directives.push_back(std::move(d));
  }

  // '(' severity ',' rule ('.' name)? ','? ')', of the diagnostic directive and attribute.
  std::pair<std::string, std::string> diagnostic_control(std::string_view context) {
    expect("(", context);
    std::string severity(expect_ident("diagnostic severity").text);
    expect(",", context);
    std::string rule(expect_ident("diagnostic rule name").text);
    if (match(".")) rule += "." + std::string(expect_ident("diagnostic rule name").text);
    match(",");
    expect(")", context);
    return {std::move(severity), std::move(rule)};
  }

  // One location (a statement's attributes, a switch body's) holds at most one @diagnostic per
  // rule (WGSL "Diagnostics"); a switch statement's and its body's are two locations, which sema
  // no longer tells apart once gathered, so this is checked here.
  void unique_diagnostic_rules(const std::vector<Attribute>& attrs) {
    std::vector<std::string> rules;
    for (const Attribute& a : attrs) {
      if (a.name != "diagnostic" || a.args.size() != 2) continue;
      if (std::find(rules.begin(), rules.end(), a.args[1]->text) != rules.end())
        fail(a.span,
             "conflicting diagnostic attribute: the rule '" + a.args[1]->text +
                 "' has a diagnostic attribute already at this location",
             "attribute");
      rules.push_back(a.args[1]->text);
    }
  }

  std::vector<Attribute> attributes() {
    std::vector<Attribute> attrs;
    while (punct("@")) {
      Attribute a;
      a.span = next().span;
      const Token& name = peek();
      if (name.kind != TK::Ident && name.kind != TK::Keyword) fail_expected("attribute name", "");
      a.name = std::string(next().text);
      if (a.name == "diagnostic") {
        // The rule name may be "a.b": kept as written in one identifier.
        Span at = peek().span;
        auto [severity, rule] = diagnostic_control("diagnostic attribute");
        Expr* s = make_expr(ExprKind::Ident, at);
        s->text = std::move(severity);
        Expr* r = make_expr(ExprKind::Ident, at);
        r->text = std::move(rule);
        a.args = {s, r};
      } else if (a.name == "invariant" || a.name == "must_use" || a.name == "const" ||
                 a.name == "compute" || a.name == "vertex" || a.name == "fragment") {
        // WGSL's grammar gives these no parameter list at all: `@invariant()` is an error.
        if (peek().text == "(")
          fail(peek().span, "attribute '@" + a.name + "' takes no parameter list");
      } else if (match("(")) {
        a.args = expression_list(")", "attribute " + quote_source(a.name));
      }
      // An attribute once per object (WGSL "Attributes"; @diagnostic: once per rule, above),
      // and those with one parameter take exactly one.
      if (a.name != "diagnostic")
        for (const Attribute& b : attrs)
          if (b.name == a.name) fail(a.span, "duplicate @" + a.name + " attribute", "attribute");
      static const std::set<std::string> one = {"align", "binding",  "group", "id",
                                                "index", "location", "size"};
      if (one.count(a.name) && a.args.size() > 1)
        fail(a.span, "@" + a.name + " takes one argument", "attribute");
      attrs.push_back(std::move(a));
    }
    return attrs;
  }

  // expression (',' expression)* ','? close — the list may be empty; consumes `close`.
  std::vector<Expr*> expression_list(std::string_view close, const std::string& context) {
    std::vector<Expr*> list;
    while (!punct(close)) {
      list.push_back(expression());
      if (!match(",")) break;
    }
    expect(close, context);
    return list;
  }

  // ---- module-scope declarations --------------------------------------------------------------

  void global_decl() {
    if (match(";")) return;
    if (keyword("enable") || keyword("requires") || keyword("diagnostic"))
      fail(peek().span, "'" + std::string(peek().text) +
                            "' directives must come before all global declarations");
    std::vector<Attribute> attrs = attributes();
    if (keyword("fn")) return function(std::move(attrs));
    if (keyword("var") || keyword("override")) {
      bool is_var = keyword("var");
      VarDecl* v = is_var ? var_decl() : override_decl();
      v->attrs = std::move(attrs);
      v->module_scope = true;
      expect(";", is_var ? "variable declaration" : "override declaration");
      m_.decls.push_back(v);
      return;
    }
    if (!attrs.empty())
      fail(peek().span,
           "expected 'fn', 'var' or 'override' after attributes, found " + describe(peek()));
    if (keyword("const")) {
      VarDecl* v = value_decl(DeclKind::Const, "const declaration");
      v->module_scope = true;
      expect(";", "const declaration");
      m_.decls.push_back(v);
    } else if (keyword("alias")) {
      next();
      auto* a = m_.make<AliasDecl>();
      Token name = expect_ident("type alias");
      a->name = std::string(name.text);
      a->span = name.span;
      expect("=", "type alias");
      a->type_expr = type_specifier("type alias");
      expect(";", "type alias");
      m_.decls.push_back(a);
    } else if (keyword("struct")) {
      struct_decl();
    } else if (keyword("const_assert")) {
      next();
      m_.const_asserts.push_back(expression());
      expect(";", "const assertion");
    } else if (keyword("let")) {
      fail(peek().span, "module-scope 'let' is invalid, use 'const'");
    } else {
      fail(peek().span, "unexpected token " + describe(peek()) + " at module scope");
    }
  }

  void struct_decl() {
    next();
    auto* s = m_.make<StructDecl>();
    Token name = expect_ident("struct declaration");
    s->name = std::string(name.text);
    s->span = name.span;
    expect("{", "struct declaration");
    do {
      if (punct("}") && !s->members.empty()) break;  // trailing comma
      StructMember member;
      member.attrs = attributes();
      Token mname = expect_ident("struct member");
      member.name = std::string(mname.text);
      member.span = mname.span;
      expect(":", "struct member");
      member.type_expr = type_specifier("struct member");
      s->members.push_back(std::move(member));
    } while (match(","));
    expect("}", "struct declaration");
    m_.decls.push_back(s);
  }

  void function(std::vector<Attribute> attrs) {
    next();
    auto* f = m_.make<FnDecl>();
    f->attrs = std::move(attrs);
    Token name = expect_ident("function declaration");
    f->name = std::string(name.text);
    f->span = name.span;
    expect("(", "function declaration");
    while (!punct(")")) {
      auto* p = m_.make<VarDecl>(DeclKind::Param);
      p->attrs = attributes();
      Token pname = expect_ident("parameter");
      p->name = std::string(pname.text);
      p->span = pname.span;
      expect(":", "parameter");
      p->type_expr = type_specifier("parameter");
      f->params.push_back(p);
      if (!match(",")) break;
    }
    expect(")", "function declaration");
    if (match("->")) {
      f->return_attrs = attributes();
      f->return_type = type_specifier("function return type");
    }
    if (!punct("{") && !punct("@")) fail_expected("'{'", "function body");
    f->body = compound_statement("function body");
    m_.decls.push_back(f);
  }

  // ident ('<' template args '>')?
  Expr* type_specifier(std::string_view context) {
    if (peek().kind != TK::Ident) fail_expected("type", context);
    return ident_expression();
  }

  // 'var' template? ident (':' type)? ('=' expression)?
  VarDecl* var_decl() {
    next();
    auto* v = m_.make<VarDecl>(DeclKind::Var);
    if (peek().kind == TK::TemplateStart) v->var_template = template_args();
    optionally_typed_ident(*v, "variable declaration");
    if (match("=")) v->initializer = expression();
    return v;
  }
  VarDecl* override_decl() {
    next();
    auto* v = m_.make<VarDecl>(DeclKind::Override);
    optionally_typed_ident(*v, "override declaration");
    if (match("=")) v->initializer = expression();
    return v;
  }
  // 'const' / 'let': the initializer is required.
  VarDecl* value_decl(DeclKind kind, std::string_view context) {
    next();
    auto* v = m_.make<VarDecl>(kind);
    optionally_typed_ident(*v, context);
    expect("=", context);
    v->initializer = expression();
    return v;
  }
  void optionally_typed_ident(VarDecl& v, std::string_view context) {
    Token name = expect_ident(context);
    v.name = std::string(name.text);
    v.span = name.span;
    if (match(":")) v.type_expr = type_specifier(context);
  }

  // ---- statements -----------------------------------------------------------------------------

  // attribute* '{' statement* '}'
  Stmt* compound_statement(std::string_view context) {
    Nest nest(*this, stmt_depth_, "statement");
    std::vector<Attribute> attrs = attributes();
    Token open = expect("{", context);
    Stmt* block = make_stmt(StmtKind::Block, open.span);
    block->attrs = std::move(attrs);
    while (!punct("}")) {
      if (peek().kind == TK::End) fail_expected("'}'", context);
      if (Stmt* s = statement()) block->body.push_back(s);
    }
    next();
    return block;
  }

  bool starts_call() const {
    return peek().kind == TK::Ident && (peek(1).punct("(") || peek(1).kind == TK::TemplateStart);
  }

  // One statement; nullptr for the empty statement ';'.
  Stmt* statement() {
    Span at = peek().span;
    std::vector<Attribute> attrs = attributes();
    Stmt* s = nullptr;
    if (punct("{")) {
      Stmt* block = compound_statement("block statement");
      block->attrs.insert(block->attrs.begin(), attrs.begin(), attrs.end());
      return block;
    }
    if (keyword("if"))
      s = if_statement();
    else if (keyword("switch"))
      s = switch_statement();
    else if (keyword("loop"))
      s = loop_statement();
    else if (keyword("for"))
      s = for_statement();
    else if (keyword("while"))
      s = while_statement();
    if (s) {
      unique_diagnostic_rules(attrs);
      s->attrs.insert(s->attrs.begin(), attrs.begin(), attrs.end());
      return s;
    }
    if (!attrs.empty())
      fail(peek().span, "attributes are not allowed on this statement, found " + describe(peek()));
    if (match(";")) return nullptr;
    at = peek().span;
    if (keyword("return")) {
      next();
      s = make_stmt(StmtKind::Return, at);
      if (!punct(";")) s->expr = expression();
      expect(";", "return statement");
    } else if (keyword("var") || keyword("let") || keyword("const")) {
      s = decl_statement();
      expect(";", "variable declaration");
    } else if (keyword("const_assert")) {
      next();
      s = make_stmt(StmtKind::ConstAssert, at);
      s->expr = expression();
      expect(";", "const assertion");
    } else if (keyword("break")) {
      next();
      if (keyword("if"))
        fail(peek().span, "'break if' must be the last statement of a continuing block");
      s = make_stmt(StmtKind::Break, at);
      expect(";", "break statement");
    } else if (keyword("continue")) {
      next();
      s = make_stmt(StmtKind::Continue, at);
      expect(";", "continue statement");
    } else if (keyword("discard")) {
      next();
      s = make_stmt(StmtKind::Discard, at);
      expect(";", "discard statement");
    } else if (starts_call()) {
      s = call_statement();
      expect(";", "function call");
    } else if (punct("_") || punct("*") || punct("&") || punct("(") || peek().kind == TK::Ident) {
      s = updating_statement();
      expect(";", s->kind == StmtKind::Assign      ? "assignment statement"
                  : s->kind == StmtKind::Increment ? "increment statement"
                                                   : "decrement statement");
    } else {
      fail(peek().span, "expected statement, found " + describe(peek()));
    }
    return s;
  }

  Stmt* decl_statement() {
    Span at = peek().span;
    VarDecl* v = keyword("var")   ? var_decl()
                 : keyword("let") ? value_decl(DeclKind::Let, "let declaration")
                                  : value_decl(DeclKind::Const, "const declaration");
    Stmt* s = make_stmt(StmtKind::Decl, at);
    s->decl = v;
    return s;
  }

  Stmt* call_statement() {
    Span at = peek().span;
    Expr* callee = ident_expression();
    Stmt* s = make_stmt(StmtKind::Call, at);
    s->expr = call(callee);
    return s;
  }

  // lhs ('=' | op=) expression, lhs '++', lhs '--', '_' '=' expression.
  Stmt* updating_statement() {
    Span at = peek().span;
    if (match("_")) {
      Stmt* s = make_stmt(StmtKind::Assign, at);
      expect("=", "phony assignment");
      s->expr = expression();
      return s;
    }
    Expr* lhs = lhs_expression();
    if (punct("++") || punct("--")) {
      Stmt* s = make_stmt(next().text == "++" ? StmtKind::Increment : StmtKind::Decrement, at);
      s->lhs = lhs;
      return s;
    }
    Stmt* s = make_stmt(StmtKind::Assign, at);
    s->lhs = lhs;
    if (Op op = compound_assign_op(peek()); op != Op::None) {
      next();
      s->op = op;
    } else if (!match("=")) {
      fail_expected("'='", "assignment");
    }
    s->expr = expression();
    return s;
  }

  Stmt* if_statement() {
    Stmt* first = make_stmt(StmtKind::If, next().span);
    first->expr = expression();
    first->then = compound_statement("if statement");
    Stmt* last = first;
    Chain chain(*this, stmt_depth_, "statement");
    while (keyword("else")) {
      next();
      if (keyword("if")) {
        chain.link();
        Stmt* s = make_stmt(StmtKind::If, next().span);
        s->expr = expression();
        s->then = compound_statement("if statement");
        last->else_ = s;
        last = s;
        continue;
      }
      last->else_ = compound_statement("else statement");
      break;
    }
    return first;
  }

  Stmt* switch_statement() {
    Stmt* s = make_stmt(StmtKind::Switch, next().span);
    s->expr = expression();
    std::vector<Attribute> body_attrs = attributes();
    unique_diagnostic_rules(body_attrs);
    s->attrs.insert(s->attrs.end(), body_attrs.begin(), body_attrs.end());
    expect("{", "switch statement");
    while (!punct("}")) {
      SwitchCase c;
      c.span = peek().span;
      if (keyword("default")) {
        next();
        c.has_default = true;
      } else if (keyword("case")) {
        next();
        do {
          if (punct(":") || punct("{") || punct("@")) {
            if (c.selectors.empty() && !c.has_default) fail_expected("case selector", "");
            break;  // trailing comma
          }
          if (keyword("default")) {
            next();
            c.has_default = true;
          } else {
            c.selectors.push_back(expression());
          }
        } while (match(","));
      } else {
        fail_expected("'case' or 'default'", "switch statement");
      }
      match(":");
      c.body = compound_statement("case statement");
      s->cases.push_back(std::move(c));
    }
    next();
    return s;
  }

  Stmt* loop_statement() {
    Stmt* s = make_stmt(StmtKind::Loop, next().span);
    Nest nest(*this, stmt_depth_, "statement");
    std::vector<Attribute> attrs = attributes();
    Token open = expect("{", "loop statement");
    Stmt* body = make_stmt(StmtKind::Block, open.span);
    body->attrs = std::move(attrs);
    s->then = body;
    while (!punct("}")) {
      if (peek().kind == TK::End) fail_expected("'}'", "loop statement");
      if (keyword("continuing")) {
        s->continuing = continuing_block();
        if (!punct("}"))
          fail(peek().span, "the continuing block must be the last statement of a loop, found " +
                                describe(peek()));
        break;
      }
      if (Stmt* st = statement()) body->body.push_back(st);
    }
    next();
    return s;
  }

  // 'continuing' attribute* '{' statement* ('break' 'if' expression ';')? '}'
  Stmt* continuing_block() {
    next();
    Nest nest(*this, stmt_depth_, "statement");
    std::vector<Attribute> attrs = attributes();
    Token open = expect("{", "continuing block");
    Stmt* block = make_stmt(StmtKind::Block, open.span);
    block->attrs = std::move(attrs);
    while (!punct("}")) {
      if (peek().kind == TK::End) fail_expected("'}'", "continuing block");
      if (keyword("break") && peek(1).keyword("if")) {
        Stmt* b = make_stmt(StmtKind::BreakIf, next().span);
        next();
        b->expr = expression();
        expect(";", "break if statement");
        block->body.push_back(b);
        if (!punct("}"))
          fail(peek().span, "'break if' must be the last statement of a continuing block");
        break;
      }
      if (Stmt* st = statement()) block->body.push_back(st);
    }
    next();
    return block;
  }

  Stmt* for_statement() {
    Stmt* s = make_stmt(StmtKind::For, next().span);
    expect("(", "for loop");
    if (!punct(";")) {
      if (keyword("var") || keyword("let") || keyword("const"))
        s->init = decl_statement();
      else if (starts_call())
        s->init = call_statement();
      else
        s->init = updating_statement();
    }
    expect(";", "initializer in for loop");
    if (!punct(";")) s->expr = expression();
    expect(";", "condition in for loop");
    if (!punct(")")) s->update = starts_call() ? call_statement() : updating_statement();
    expect(")", "for loop");
    s->then = compound_statement("for loop");
    return s;
  }

  Stmt* while_statement() {
    Stmt* s = make_stmt(StmtKind::While, next().span);
    s->expr = expression();
    s->then = compound_statement("while loop");
    return s;
  }

  // ---- expressions ----------------------------------------------------------------------------

  // lhs_expression: ('*' | '&')* (ident | '(' lhs ')') component_or_swizzle_specifier?
  Expr* lhs_expression() {
    Nest nest(*this, expr_depth_, "expression");
    if (punct("*") || punct("&") || punct("&&")) {
      Token t = punct("&&") ? take_prefix(1) : next();  // '&&x' is &(&x)
      Expr* e = make_expr(ExprKind::Unary, t.span);
      e->op = t.text == "*" ? Op::Deref : Op::AddrOf;
      e->args = {lhs_expression()};
      return e;
    }
    Expr* core = nullptr;
    if (peek().kind == TK::Ident) {
      Token t = next();
      core = make_expr(ExprKind::Ident, t.span);
      core->text = std::string(t.text);
    } else if (punct("(")) {
      next();
      core = lhs_expression();
      expect(")", "expression");
      core->parenthesized = true;
    } else {
      fail_expected("identifier", "assignment");
    }
    return postfix(core);
  }

  Expr* expression() {
    Nest nest(*this, expr_depth_, "expression");
    Chain chain(*this, expr_depth_, "expression");
    Expr* lhs = unary();
    if (Op op = binary_op(peek()); op == Op::And || op == Op::Or || op == Op::Xor) {
      // bitwise_expression: one operator, repeated, over unary expressions.
      while (binary_op(peek()) == op) {
        chain.link();
        next();
        lhs = make_binary(op, lhs, unary());
      }
    } else {
      lhs = relational(lhs);
      if (Op lop = binary_op(peek()); lop == Op::LogAnd || lop == Op::LogOr) {
        while (binary_op(peek()) == lop) {
          chain.link();
          next();
          lhs = make_binary(lop, lhs, relational(unary()));
        }
      }
    }
    if (Op more = binary_op(peek()); more != Op::None) {
      // WGSL requires parentheses between these operator groups (spec 8.19).
      Op have = lhs->kind == ExprKind::Binary && !lhs->parenthesized ? lhs->op : Op::None;
      std::string msg = have == Op::None ? "unexpected " + describe(peek()) + " in expression"
                        : have == more   ? "'" + std::string(op_text(more)) +
                                             "' cannot be chained without parentheses"
                                       : "mixing '" + std::string(op_text(have)) + "' and '" +
                                             std::string(op_text(more)) + "' requires parentheses";
      fail(peek().span, msg);
    }
    return lhs;
  }

  // relational_expression after its first unary expression: shift_expression (op shift)?
  Expr* relational(Expr* lhs) {
    lhs = shift(lhs);
    if (Op op = binary_op(peek()); is_relational(op)) {
      Nest nest(*this, expr_depth_, "expression");
      next();
      lhs = make_binary(op, lhs, shift(unary()));
    }
    return lhs;
  }

  // shift_expression after its first unary expression: unary << unary, unary >> unary, or the
  // additive/multiplicative chain.
  Expr* shift(Expr* lhs) {
    if (Op op = binary_op(peek()); op == Op::Shl || op == Op::Shr) {
      Nest nest(*this, expr_depth_, "expression");
      next();
      return make_binary(op, lhs, unary());
    }
    Chain chain(*this, expr_depth_, "expression");
    lhs = multiplicative(lhs, chain);
    for (;;) {
      bool split = punct("--");  // a--b is a - (-b)
      Op op = split ? Op::Sub : binary_op(peek());
      if (!is_additive(op)) break;
      chain.link();
      split ? take_prefix(1) : next();
      Chain rhs_chain(*this, expr_depth_, "expression");
      lhs = make_binary(op, lhs, multiplicative(unary(), rhs_chain));
    }
    return lhs;
  }

  Expr* multiplicative(Expr* lhs, Chain& chain) {
    while (is_multiplicative(binary_op(peek()))) {
      chain.link();
      Op op = binary_op(next());
      lhs = make_binary(op, lhs, unary());
    }
    return lhs;
  }

  Expr* unary() {
    const Token& t = peek();
    bool split = t.punct("--") || t.punct("&&");  // '--x' is -(-x), '&&x' is &(&x)
    Op op = t.punct("-") || t.punct("--")   ? Op::Neg
            : t.punct("!")                  ? Op::Not
            : t.punct("~")                  ? Op::BitNot
            : t.punct("*")                  ? Op::Deref
            : t.punct("&") || t.punct("&&") ? Op::AddrOf
                                            : Op::None;
    if (op == Op::None) return postfix(primary());
    Nest nest(*this, expr_depth_, "expression");
    Expr* e = make_expr(ExprKind::Unary, (split ? take_prefix(1) : next()).span);
    e->op = op;
    e->args = {unary()};
    return e;
  }

  Expr* primary() {
    const Token& t = peek();
    switch (t.kind) {
      case TK::Int:
      case TK::Float: {
        Expr* e = make_expr(t.kind == TK::Int ? ExprKind::IntLit : ExprKind::FloatLit, t.span);
        e->text = std::string(t.text);
        e->suffix = t.suffix;
        next();
        return e;
      }
      case TK::Keyword:
        if (t.text == "true" || t.text == "false") {
          Expr* e = make_expr(ExprKind::BoolLit, t.span);
          e->bool_value = t.text == "true";
          next();
          return e;
        }
        break;
      case TK::Ident: {
        Expr* id = ident_expression();
        return punct("(") ? call(id) : id;
      }
      case TK::Punct:
        if (t.text == "(") {
          next();
          Expr* e = expression();
          expect(")", "parenthesized expression");
          e->parenthesized = true;
          return e;
        }
        break;
      default:
        break;
    }
    fail(t.span, "expected expression, found " + describe(t));
  }

  // ident, with its template list if one follows.
  Expr* ident_expression() {
    Token name = next();
    Expr* e = make_expr(ExprKind::Ident, name.span);
    e->text = std::string(name.text);
    if (peek().kind == TK::TemplateStart) e->template_args = template_args();
    return e;
  }

  // _template_args_start expression (',' expression)* ','? _template_args_end
  std::vector<Expr*> template_args() {
    Token open = next();
    std::vector<Expr*> args;
    do {
      if (peek().kind == TK::TemplateEnd && !args.empty()) break;  // trailing comma
      args.push_back(expression());
    } while (match(","));
    if (peek().kind != TK::TemplateEnd) fail_expected("'>'", "template argument list");
    next();
    (void)open;
    return args;
  }

  Expr* call(Expr* callee) {
    Expr* e = make_expr(ExprKind::Call, callee->span);
    e->callee = callee;
    expect("(", "function call");
    e->args = expression_list(")", "function call");
    return e;
  }

  // component_or_swizzle_specifier*: [index], .member
  Expr* postfix(Expr* base) {
    Chain chain(*this, expr_depth_, "expression");
    for (;;) {
      if (punct("[") || punct(".")) chain.link();
      if (punct("[")) {
        next();
        Expr* e = make_expr(ExprKind::Index, base->span);
        Expr* index = expression();
        expect("]", "index accessor");
        e->args = {base, index};
        base = e;
      } else if (punct(".")) {
        next();
        Token name = expect_ident("member accessor");
        Expr* e = make_expr(ExprKind::Member, base->span);
        e->text = std::string(name.text);
        e->args = {base};
        base = e;
      } else {
        return base;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Module> parse(std::string_view source, Diags& diags) {
  LexResult lexed = lex(source);
  if (!lexed.ok) {
    diags.error(lexed.error_at, "syntax", lexed.error);
    return nullptr;
  }
  auto module = std::make_unique<Module>();
  module->file = diags.file;
  try {
    Parser(std::move(lexed.tokens), *module).translation_unit();
  } catch (const SyntaxError& e) {
    diags.error(e.at, e.rule, e.message);
    return nullptr;
  }
  return module;
}

}  // namespace wgslvk::wgsl
