// The WGSL declaration reader: just enough of WGSL to know a module's ABI. It reads module-scope
// declarations (enable, const/override, alias, struct, var with @group/@binding, fn with
// @compute @workgroup_size) and skips function bodies except for a token scan of the names they
// mention. Layouts follow the WGSL spec's "Address Space Layout Constraints" (AlignOf/SizeOf).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "layout.hpp"
#include "wgslvk/translator.hpp"

namespace wgslvk::translator {
namespace {

struct Token {
  enum Kind { Ident, Number, Punct, End } kind = End;
  std::string text;
  uint32_t line = 0;
};

std::vector<Token> tokenize(std::string_view s, const std::string& file) {
  std::vector<Token> out;
  uint32_t line = 1;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {  // block comments nest in WGSL
      int depth = 0;
      uint32_t start = line;
      do {
        if (s.compare(i, 2, "/*") == 0) {
          ++depth;
          i += 2;
        } else if (s.compare(i, 2, "*/") == 0) {
          --depth;
          i += 2;
        } else {
          if (s[i] == '\n') ++line;
          ++i;
        }
      } while (depth > 0 && i < s.size());
      if (depth > 0)
        throw Error(file + ":" + std::to_string(start) +
                    ": unterminated block comment (`/*` without its `*/`)");
      continue;
    }
    Token t;
    t.line = line;
    size_t j = i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      t.kind = Token::Ident;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      bool hex = s.compare(i, 2, "0x") == 0 || s.compare(i, 2, "0X") == 0;
      j = hex ? i + 2 : i;
      while (j < s.size()) {
        char d = s[j];
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '.') {
          ++j;
          continue;
        }
        // exponent sign: 1e-3, 0x1p+4
        if ((d == '+' || d == '-') &&
            (s[j - 1] == 'e' || s[j - 1] == 'E' || (hex && (s[j - 1] == 'p' || s[j - 1] == 'P')))) {
          if (!hex && (s[j - 1] == 'e' || s[j - 1] == 'E')) {
            ++j;
            continue;
          }
          if (hex) {
            ++j;
            continue;
          }
        }
        break;
      }
      t.kind = Token::Number;
    } else {
      // "->" is the only multi-character token the reader needs whole; '>' stays single so
      // "array<vec4<f32>>" closes two templates.
      j = i + ((c == '-' && i + 1 < s.size() && s[i + 1] == '>') ? 2 : 1);
      t.kind = Token::Punct;
    }
    t.text = std::string(s.substr(i, j - i));
    out.push_back(std::move(t));
    i = j;
  }
  out.push_back({Token::End, "", line});
  return out;
}

struct TypeAst {
  std::string name;           // empty for an expression argument
  std::vector<TypeAst> args;  // template arguments
  std::vector<Token> expr;    // an expression argument (array count)
  uint32_t line = 0;
  std::string text() const {
    if (name.empty()) {
      std::string s;
      for (auto& t : expr) s += t.text;
      return s;
    }
    std::string s = name;
    if (!args.empty()) {
      s += "<";
      for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].text();
      s += ">";
    }
    return s;
  }
};

struct Attr {
  std::string name;
  std::vector<std::vector<Token>> args;
  uint32_t line = 0;
};

struct StructAst {
  struct Member {
    std::string name;
    TypeAst type;
    std::vector<Attr> attrs;
  };
  std::string name;
  std::vector<Member> members;
};

struct FnAst {
  std::string name;
  std::vector<Attr> attrs;
  std::vector<Token> body;
  uint32_t line = 0;
};

// Text quoted in a message, at most 80 bytes (a declaration may be megabytes long).
std::string cut(const std::string& s) {
  return s.size() <= 80 ? s : s.substr(0, 80) + "... (" + std::to_string(s.size()) + " bytes)";
}

class Parser {
 public:
  Parser(std::string_view text, std::string file)
      : file_(std::move(file)), t_(tokenize(text, file_)) {}

  WgslModule parse() {
    WgslModule m;
    m.file = file_;
    std::vector<std::pair<std::vector<Attr>, std::pair<std::string, TypeAst>>> vars;
    struct VarDecl {
      std::vector<Attr> attrs;
      std::string space, access, name;
      TypeAst type;
      uint32_t line;
    };
    std::vector<VarDecl> decls;
    while (peek().kind != Token::End) {
      std::vector<Attr> attrs = attributes();
      const Token& k = peek();
      if (k.kind != Token::Ident) fail(k, "expected a declaration, found `" + cut(k.text) + "`");
      if (k.text == "enable") {
        next();
        while (peek().text != ";" && peek().kind != Token::End) {
          const std::string& e = next().text;
          if (e == "f16") m.enables_f16 = true;
          if (e == "chromium_experimental_subgroup_matrix") m.enables_subgroup_matrix = true;
        }
        expect(";");
      } else if (k.text == "requires" || k.text == "diagnostic" || k.text == "const_assert") {
        skip_to(";");
      } else if (k.text == "struct") {
        next();
        StructAst s;
        s.name = ident();
        expect("{");
        while (peek().text != "}") {
          StructAst::Member mem;
          mem.attrs = attributes();
          mem.name = ident();
          expect(":");
          mem.type = type();
          s.members.push_back(std::move(mem));
          if (peek().text == ",") next();
        }
        expect("}");
        if (peek().text == ";") next();
        structs_[s.name] = std::move(s);
      } else if (k.text == "alias") {
        next();
        std::string name = ident();
        expect("=");
        aliases_[name] = type();
        expect(";");
      } else if (k.text == "const" || k.text == "override" || k.text == "let") {
        const Token decl = k;
        next();
        std::string name = ident();
        if (peek().text == ":") {
          next();
          type();
        }
        std::vector<Token> init;
        if (peek().text == "=") {
          next();
          init = until_semicolon();
        } else {
          skip_to(";");
        }
        auto v = eval(init);
        // Division by zero among known operands is a shader-creation error in WGSL, not an
        // unknown value (`const A = 1/0;` was accepted).
        if (!eval_error_.empty())
          fail(decl, decl.text + " " + name + ": " + eval_error_ +
                         " in its initializer (a shader-creation error in WGSL)");
        if (v) consts_[name] = *v;
      } else if (k.text == "var") {
        next();
        VarDecl v;
        v.attrs = std::move(attrs);
        v.line = peek().line;
        if (peek().text == "<") {
          next();
          v.space = ident();
          if (peek().text == ",") {
            next();
            v.access = ident();
          }
          expect(">");
        }
        v.name = ident();
        if (peek().text == ":") {
          next();
          v.type = type();
        }
        skip_to(";");
        decls.push_back(std::move(v));
      } else if (k.text == "fn") {
        next();
        FnAst f;
        f.attrs = std::move(attrs);
        f.line = peek().line;
        f.name = ident();
        balanced("(", ")");
        if (peek().text == "->") {
          next();
          attributes();
          type();
        }
        f.body = balanced("{", "}");
        fns_.push_back(std::move(f));
      } else {
        fail(k, "unexpected `" + cut(k.text) + "` at module scope");
      }
    }

    std::set<std::string> globals;
    for (auto& v : decls) {
      const Attr* g = find_attr(v.attrs, "group");
      const Attr* b = find_attr(v.attrs, "binding");
      if (!g && !b) continue;  // var<private>/var<workgroup>: not part of the binding ABI
      if (!g || !b) fail_line(v.line, "`" + v.name + "` has @group or @binding but not both");
      WgslBinding wb;
      wb.group = attr_u32(*g, 0);
      wb.binding = attr_u32(*b, 0);
      wb.name = v.name;
      wb.type_text = v.type.text();
      wb.line = v.line;
      if (v.space == "uniform") {
        wb.uniform = true;
      } else if (v.space == "storage") {
        if (v.access.empty() || v.access == "read")
          wb.read_write = false;
        else if (v.access == "read_write")
          wb.read_write = true;
        else
          fail_line(v.line, "`" + v.name + "`: unknown access mode `" + v.access + "`");
      } else {
        fail_line(v.line, "`" + v.name +
                              "`: only var<storage> and var<uniform> bindings are "
                              "supported (found var<" +
                              v.space + ">)");
      }
      wb.type = resolve(v.type);
      globals.insert(v.name);
      m.bindings.push_back(std::move(wb));
    }

    std::map<std::string, const FnAst*> by_name;
    for (auto& f : fns_) by_name[f.name] = &f;
    for (auto& f : fns_) {
      if (!find_attr(f.attrs, "compute")) continue;
      WgslEntryPoint ep;
      ep.name = f.name;
      ep.line = f.line;
      const Attr* wg = find_attr(f.attrs, "workgroup_size");
      if (!wg) fail_line(f.line, "@compute fn " + f.name + " has no @workgroup_size");
      if (wg->args.empty() || wg->args.size() > 3)
        fail_line(f.line, "@workgroup_size of " + f.name + " takes 1 to 3 arguments");
      for (size_t i = 0; i < wg->args.size(); ++i) {
        ep.workgroup_size[i] = attr_u32(*wg, i);
        if (ep.workgroup_size[i] == 0)
          fail_line(wg->line, "@workgroup_size of " + f.name + ": dimension " + std::to_string(i) +
                                  " is 0 (each must be at least 1)");
      }
      // The token scan: names in the body and in every function it calls, transitively. A name
      // right after '.' is a member or swizzle, never a global.
      std::set<std::string> seen_fn{f.name}, refs;
      std::vector<const FnAst*> todo{&f};
      while (!todo.empty()) {
        const FnAst* cur = todo.back();
        todo.pop_back();
        for (size_t i = 0; i < cur->body.size(); ++i) {
          const Token& tk = cur->body[i];
          if (tk.kind != Token::Ident || (i > 0 && cur->body[i - 1].text == ".")) continue;
          if (globals.count(tk.text)) refs.insert(tk.text);
          auto callee = by_name.find(tk.text);
          if (callee != by_name.end() && seen_fn.insert(tk.text).second)
            todo.push_back(callee->second);
        }
      }
      ep.referenced.assign(refs.begin(), refs.end());
      // Two variables may share a (group, binding) only if no entry point uses both (WGSL's
      // rule is per shader: different entry points of one file often reuse slots).
      std::map<std::pair<uint32_t, uint32_t>, const WgslBinding*> slots;
      for (const auto& b : m.bindings) {
        if (!refs.count(b.name)) continue;
        if (auto [it, fresh] = slots.emplace(std::pair{b.group, b.binding}, &b); !fresh)
          fail_line(f.line, "entry point " + f.name + " uses both `" + it->second->name +
                                "` (line " + std::to_string(it->second->line) + ") and `" + b.name +
                                "` (line " + std::to_string(b.line) + ") at @group(" +
                                std::to_string(b.group) + ") @binding(" +
                                std::to_string(b.binding) + ")");
      }
      m.entry_points.push_back(std::move(ep));
    }
    return m;
  }

 private:
  [[noreturn]] void fail(const Token& t, const std::string& what) { fail_line(t.line, what); }
  [[noreturn]] void fail_line(uint32_t line, const std::string& what) {
    throw Error(file_ + ":" + std::to_string(line) + ": " + what);
  }
  const Token& peek(size_t ahead = 0) const { return t_[std::min(pos_ + ahead, t_.size() - 1)]; }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < t_.size() - 1) ++pos_;
    return t;
  }
  void expect(const std::string& s) {
    if (peek().text != s) fail(peek(), "expected `" + s + "`, found `" + cut(peek().text) + "`");
    next();
  }
  std::string ident() {
    if (peek().kind != Token::Ident)
      fail(peek(), "expected a name, found `" + cut(peek().text) + "`");
    return next().text;
  }
  void skip_to(const std::string& s) {
    int depth = 0;
    while (peek().kind != Token::End) {
      const std::string& x = next().text;
      if (x == "(" || x == "[" || x == "{")
        ++depth;
      else if (x == ")" || x == "]" || x == "}")
        --depth;
      else if (x == s && depth == 0)
        return;
    }
    fail(peek(), "expected `" + s + "` before the end of the file");
  }
  std::vector<Token> until_semicolon() {
    std::vector<Token> out;
    int depth = 0;
    while (peek().kind != Token::End) {
      if (peek().text == ";" && depth == 0) {
        next();
        return out;
      }
      if (peek().text == "(") ++depth;
      if (peek().text == ")") --depth;
      out.push_back(next());
    }
    fail(peek(), "expected `;` before the end of the file");
  }
  // The tokens between an opening and its matching closing bracket (exclusive).
  std::vector<Token> balanced(const std::string& open, const std::string& close) {
    expect(open);
    std::vector<Token> out;
    int depth = 1;
    while (peek().kind != Token::End) {
      if (peek().text == open) ++depth;
      if (peek().text == close && --depth == 0) {
        next();
        return out;
      }
      out.push_back(next());
    }
    fail(peek(), "unbalanced `" + open + "`");
  }
  std::vector<Attr> attributes() {
    std::vector<Attr> out;
    while (peek().text == "@") {
      next();
      Attr a;
      a.line = peek().line;
      a.name = ident();
      if (peek().text == "(") {
        std::vector<Token> inner = balanced("(", ")");
        std::vector<Token> cur;
        int depth = 0;
        for (auto& tk : inner) {
          if (tk.text == "(") ++depth;
          if (tk.text == ")") --depth;
          if (tk.text == "," && depth == 0) {
            a.args.push_back(std::move(cur));
            cur.clear();
            continue;
          }
          cur.push_back(tk);
        }
        if (!cur.empty()) a.args.push_back(std::move(cur));
      }
      out.push_back(std::move(a));
    }
    return out;
  }
  static const Attr* find_attr(const std::vector<Attr>& attrs, std::string_view name) {
    for (auto& a : attrs)
      if (a.name == name) return &a;
    return nullptr;
  }
  uint32_t attr_u32(const Attr& a, size_t i) {
    if (i >= a.args.size()) fail_line(a.line, "@" + a.name + " needs an argument");
    auto v = eval(a.args[i]);
    if (!v || *v < 0 || *v > 0xffffffffll) {
      std::string e;
      for (auto& t : a.args[i]) e += t.text;
      fail_line(a.line, "cannot evaluate @" + a.name + " argument `" + cut(e) +
                            "` (integer literals, const/override names with a value, + - * / "
                            "and parentheses are understood)");
    }
    return uint32_t(*v);
  }

  // Template nesting, expression nesting and type resolution are bounded: a deeply nested or
  // exponentially expanding declaration is an error, never a stack overflow or a hang.
  static constexpr int kMaxNesting = 64;
  static constexpr uint64_t kMaxResolveSteps = 100000;
  TypeAst type(int depth = 0) {
    TypeAst t;
    t.line = peek().line;
    if (depth > kMaxNesting)
      fail(peek(), "types nest deeper than " + std::to_string(kMaxNesting) + " levels");
    t.name = ident();
    if (peek().text == "<") {
      next();
      while (true) {
        if (peek().kind == Token::Ident && !consts_.count(peek().text) && peek(1).text != "*" &&
            peek(1).text != "+" && peek(1).text != "-" && peek(1).text != "/") {
          t.args.push_back(type(depth + 1));
        } else {
          TypeAst e;
          e.line = peek().line;
          int depth = 0;
          while (peek().kind != Token::End &&
                 !(depth == 0 && (peek().text == "," || peek().text == ">"))) {
            if (peek().text == "(") ++depth;
            if (peek().text == ")") --depth;
            e.expr.push_back(next());
          }
          t.args.push_back(std::move(e));
        }
        if (peek().text == ",") {
          next();
          if (peek().text == ">") break;
          continue;
        }
        break;
      }
      expect(">");
    }
    return t;
  }

  // Integer constant expressions: literals, const/override names, + - * / % and parentheses,
  // u32(...)/i32(...). Anything else is "unknown" (nullopt).
  // Arithmetic is checked: an overflow (i64::MIN / -1 included) or nesting deeper than
  // kMaxNesting is "cannot evaluate", never a wrapped value or a trap.
  std::optional<int64_t> eval(const std::vector<Token>& e) {
    size_t p = 0;
    eval_depth_ = 0;
    eval_error_.clear();
    auto v = eval_add(e, p);
    if (!v || p != e.size()) return std::nullopt;
    return v;
  }
  std::optional<int64_t> eval_add(const std::vector<Token>& e, size_t& p) {
    auto v = eval_mul(e, p);
    while (v && p < e.size() && (e[p].text == "+" || e[p].text == "-")) {
      bool plus = e[p++].text == "+";
      auto r = eval_mul(e, p);
      if (!r) return std::nullopt;
      int64_t out;
      if (plus ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out))
        return std::nullopt;
      v = out;
    }
    return v;
  }
  std::optional<int64_t> eval_mul(const std::vector<Token>& e, size_t& p) {
    auto v = eval_unary(e, p);
    while (v && p < e.size() && (e[p].text == "*" || e[p].text == "/" || e[p].text == "%")) {
      std::string op = e[p++].text;
      auto r = eval_unary(e, p);
      if (r && op != "*" && *r == 0)
        eval_error_ = op == "/" ? "integer division by zero" : "integer remainder by zero";
      if (!r || (op != "*" && *r == 0)) return std::nullopt;
      if (op != "*" && *v == INT64_MIN && *r == -1) return std::nullopt;
      int64_t out;
      if (op == "*") {
        if (__builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
      } else {
        out = op == "/" ? *v / *r : *v % *r;
      }
      v = out;
    }
    return v;
  }
  std::optional<int64_t> eval_unary(const std::vector<Token>& e, size_t& p) {
    if (p >= e.size()) return std::nullopt;
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(++x) {}
      ~Depth() { --d; }
    } guard(eval_depth_);
    if (eval_depth_ > kMaxNesting) return std::nullopt;
    if (e[p].text == "-") {
      ++p;
      auto v = eval_unary(e, p);
      if (v && *v == INT64_MIN) return std::nullopt;
      if (v) return -*v;
      return v;
    }
    if (e[p].text == "(") {
      ++p;
      auto v = eval_add(e, p);
      if (p >= e.size() || e[p].text != ")") return std::nullopt;
      ++p;
      return v;
    }
    if (e[p].kind == Token::Number) {
      std::string s = e[p++].text;
      while (!s.empty() && (s.back() == 'u' || s.back() == 'i')) s.pop_back();
      try {
        size_t used = 0;
        int64_t v = std::stoll(s, &used, 0);
        if (used != s.size()) return std::nullopt;  // a float literal
        return v;
      } catch (...) { return std::nullopt; }
    }
    if (e[p].kind == Token::Ident) {
      std::string name = e[p++].text;
      if ((name == "u32" || name == "i32") && p < e.size() && e[p].text == "(")
        return eval_unary(e, p);
      auto c = consts_.find(name);
      if (c != consts_.end()) return c->second;
    }
    return std::nullopt;
  }

  TypeDesc scalar(TypeDesc::Scalar s, uint32_t line, const std::string& name) {
    TypeDesc d;
    d.kind = TypeDesc::Kind::Scalar;
    d.scalar = s;
    d.size = d.align = s == TypeDesc::Scalar::F16 ? 2 : 4;
    if (s == TypeDesc::Scalar::Bool)
      fail_line(line, "`bool` is not host-shareable and cannot be in a buffer (" + name + ")");
    return d;
  }
  std::optional<TypeDesc::Scalar> scalar_name(std::string_view n) {
    if (n == "f32") return TypeDesc::Scalar::F32;
    if (n == "f16") return TypeDesc::Scalar::F16;
    if (n == "u32") return TypeDesc::Scalar::U32;
    if (n == "i32") return TypeDesc::Scalar::I32;
    if (n == "bool") return TypeDesc::Scalar::Bool;
    return std::nullopt;
  }
  std::optional<TypeDesc::Scalar> suffix_scalar(char c) {
    switch (c) {
      case 'f':
        return TypeDesc::Scalar::F32;
      case 'h':
        return TypeDesc::Scalar::F16;
      case 'u':
        return TypeDesc::Scalar::U32;
      case 'i':
        return TypeDesc::Scalar::I32;
    }
    return std::nullopt;
  }
  TypeDesc vector(TypeDesc elem, uint32_t n) {
    TypeDesc d = elem;
    d.kind = TypeDesc::Kind::Vector;
    d.vec = n;
    d.size = n * elem.size;
    d.align = (n == 3 ? 4 : n) * elem.size;
    return d;
  }
  TypeDesc matrix(TypeDesc elem, uint32_t c, uint32_t r) {
    TypeDesc col = vector(elem, r);
    TypeDesc d = col;
    d.kind = TypeDesc::Kind::Matrix;
    d.cols = c;
    d.align = col.align;
    d.size = c * round_up(col.align, col.size);
    return d;
  }

  TypeDesc resolve(const TypeAst& t, int depth = 0) {
    if (depth > 32)
      fail_line(t.line, "types nest deeper than 32 levels at `" + t.name +
                            "` (a struct or alias that contains itself?)");
    if (++resolve_steps_ > kMaxResolveSteps)
      fail_line(t.line, "the type of this declaration expands to more than " +
                            std::to_string(kMaxResolveSteps) + " members and elements");
    const std::string& n = t.name;
    if (n.empty()) fail_line(t.line, "expected a type, found `" + cut(t.text()) + "`");
    auto arg_type = [&](size_t i) {
      if (i >= t.args.size()) fail_line(t.line, "`" + cut(t.text()) + "` needs a type argument");
      return resolve(t.args[i], depth + 1);
    };
    if (auto s = scalar_name(n)) return scalar(*s, t.line, n);
    if (n == "atomic") {
      TypeDesc d = arg_type(0);
      d.atomic = true;
      return d;
    }
    // vec2..4<T>, vec4f/vec4u/..., mat2x2..4x4<T>, mat4x4f/h
    if (n.size() >= 4 && n.compare(0, 3, "vec") == 0 && n[3] >= '2' && n[3] <= '4') {
      uint32_t count = n[3] - '0';
      if (n.size() == 4) return vector(arg_type(0), count);
      if (n.size() == 5)
        if (auto s = suffix_scalar(n[4])) return vector(scalar(*s, t.line, n), count);
    }
    if (n.size() >= 6 && n.compare(0, 3, "mat") == 0 && n[4] == 'x' && n[3] >= '2' && n[3] <= '4' &&
        n[5] >= '2' && n[5] <= '4') {
      uint32_t c = n[3] - '0', r = n[5] - '0';
      if (n.size() == 6) return matrix(arg_type(0), c, r);
      if (n.size() == 7)
        if (auto s = suffix_scalar(n[6])) return matrix(scalar(*s, t.line, n), c, r);
    }
    if (n == "array") {
      TypeDesc e = arg_type(0);
      TypeDesc d;
      d.kind = TypeDesc::Kind::Array;
      d.stride = uint32_t(round_up(e.align, e.size));
      d.align = e.align;
      if (t.args.size() < 2) {
        d.runtime_array = true;
        d.size = d.stride;  // one element: the minimum binding size counts one (R7)
      } else {
        const TypeAst& c = t.args[1];
        std::optional<int64_t> v =
            c.name.empty()
                ? eval(c.expr)
                : (consts_.count(c.name) ? std::optional<int64_t>(consts_[c.name]) : std::nullopt);
        if (!v || *v <= 0)
          fail_line(t.line, "cannot evaluate the element count of `" + cut(t.text()) + "`");
        if (*v > int64_t(UINT32_MAX))
          fail_line(t.line, "the element count " + std::to_string(*v) + " of `" + t.text() +
                                "` does not fit in 32 bits");
        d.array_len = uint32_t(*v);
        d.size = uint64_t(d.array_len) * d.stride;
        if (d.size > UINT32_MAX)
          fail_line(t.line, "`" + cut(t.text()) + "` is " + std::to_string(d.size) +
                                " bytes, more than 2^32 - 1 (a WGSL type's size is a u32)");
      }
      d.element.push_back(std::move(e));
      return d;
    }
    if (auto a = aliases_.find(n); a != aliases_.end()) return resolve(a->second, depth + 1);
    if (auto s = structs_.find(n); s != structs_.end()) {
      TypeDesc d;
      d.kind = TypeDesc::Kind::Struct;
      d.name = n;
      uint64_t offset = 0;
      uint32_t align = 1;
      for (auto& m : s->second.members) {
        TypeDesc::Member dm;
        dm.name = m.name;
        dm.type = resolve(m.type, depth + 1);
        uint32_t a = dm.type.align;
        uint64_t size = dm.type.size;
        if (const Attr* al = find_attr(m.attrs, "align")) {
          a = attr_u32(*al, 0);
          if (a == 0 || (a & (a - 1)) != 0)
            fail_line(al->line, "@align(" + std::to_string(a) + ") of member `" + m.name +
                                    "` in `" + n + "`: the alignment must be a power of two");
        }
        if (const Attr* sz = find_attr(m.attrs, "size")) {
          uint64_t want = attr_u32(*sz, 0);
          if (want < size)
            fail_line(sz->line, "@size(" + std::to_string(want) + ") of member `" + m.name +
                                    "` in `" + n + "` is smaller than its type's size " +
                                    std::to_string(size));
          size = want;
        }
        offset = round_up(a, offset);
        if (offset + size > UINT32_MAX)
          fail_line(t.line,
                    "struct `" + n + "` is larger than 2^32 - 1 bytes at member `" + m.name + "`");
        dm.offset = uint32_t(offset);
        offset += size;
        align = std::max(align, a);
        d.members.push_back(std::move(dm));
      }
      d.align = align;
      d.size = round_up(align, offset);
      return d;
    }
    fail_line(t.line, "unknown type `" + cut(t.text()) + "`");
  }

  std::string file_;
  std::vector<Token> t_;
  size_t pos_ = 0;
  std::map<std::string, int64_t> consts_;
  std::map<std::string, TypeAst> aliases_;
  std::map<std::string, StructAst> structs_;
  std::vector<FnAst> fns_;
  int eval_depth_ = 0;
  std::string eval_error_;  // set by eval(): an error among known operands (division by zero)
  uint64_t resolve_steps_ = 0;
};

}  // namespace

WgslModule parse_wgsl(std::string_view text, std::string_view file_name) {
  WgslModule m = Parser(text, std::string(file_name)).parse();
  // The subgroup matrix types the text writes (function bodies are only scanned for names, so a
  // scan of the text, comments included: a type named only in a comment over-approximates, and
  // the ABI check asks only that each of the SPIR-V's types be among these). Linear, no regex.
  std::set<std::string> seen;
  const std::string_view prefix = "subgroup_matrix_";
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(prefix); at != std::string_view::npos;
       at = text.find(prefix, at + 1)) {
    if (at > 0 && ident_char(text[at - 1])) continue;
    size_t i = at + prefix.size();
    auto word = [&] {
      size_t b = i;
      while (i < text.size() && ident_char(text[i])) ++i;
      return std::string(text.substr(b, i - b));
    };
    auto spaces = [&] {
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    };
    auto punct = [&](char c) {
      spaces();
      if (i >= text.size() || text[i] != c) return false;
      ++i;
      spaces();
      return true;
    };
    const std::string kind = word();
    if (kind != "left" && kind != "right" && kind != "result") continue;
    if (!punct('<')) continue;
    const std::string t = word();
    if (t.empty() || !punct(',')) continue;
    const std::string c = word();
    if (c.empty() || !punct(',')) continue;
    const std::string r = word();
    if (r.empty() || !punct('>')) continue;
    seen.insert("subgroup_matrix_" + kind + "<" + t + ", " + c + ", " + r + ">");
  }
  m.subgroup_matrices.assign(seen.begin(), seen.end());
  return m;
}

const WgslEntryPoint* WgslModule::find_entry(std::string_view name) const {
  for (auto& e : entry_points)
    if (e.name == name) return &e;
  return nullptr;
}

bool WgslModule::references(const WgslEntryPoint& ep, std::string_view var) const {
  return std::find(ep.referenced.begin(), ep.referenced.end(), var) != ep.referenced.end();
}

std::string TypeDesc::wgsl() const {
  auto scalar_text = [](Scalar s) -> std::string {
    switch (s) {
      case Scalar::F32:
        return "f32";
      case Scalar::F16:
        return "f16";
      case Scalar::U32:
        return "u32";
      case Scalar::I32:
        return "i32";
      case Scalar::Bool:
        return "bool";
      default:
        return "<non-WGSL scalar>";
    }
  };
  std::string s;
  switch (kind) {
    case Kind::Scalar:
      s = scalar_text(scalar);
      break;
    case Kind::Vector:
      s = "vec" + std::to_string(vec) + "<" + scalar_text(scalar) + ">";
      break;
    case Kind::Matrix:
      s = "mat" + std::to_string(cols) + "x" + std::to_string(vec) + "<" + scalar_text(scalar) +
          ">";
      break;
    case Kind::Array:
      s = "array<" + (element.empty() ? std::string("?") : element[0].wgsl()) +
          (runtime_array ? std::string(">") : ", " + std::to_string(array_len) + ">");
      break;
    case Kind::Struct: {
      s = "struct " + (name.empty() ? std::string("<anonymous>") : name) + " {";
      for (size_t i = 0; i < members.size(); ++i)
        s += (i ? ", " : " ") + members[i].name + ": " + members[i].type.wgsl();
      s += " }";
      break;
    }
  }
  return atomic ? "atomic<" + s + ">" : s;
}

}  // namespace wgslvk::translator
