// The WGSL lexer and template list discovery (spec 3.1-3.9, 16.1-16.3).
#include "lexer.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "unicode_xid.hpp"

namespace wgslvk::wgsl {

namespace {

// Decodes the UTF-8 sequence at pos: its length, or 0 at the end. A sequence cut short by the end
// of the source decodes as U+FFFD, one byte long (lex() refuses invalid UTF-8 before tokens are
// formed; the line table is built before that check).
size_t decode(std::string_view s, size_t pos, uint32_t& cp) {
  if (pos >= s.size()) return 0;
  auto b = [&](size_t i) { return static_cast<uint8_t>(s[pos + i]); };
  uint8_t c = b(0);
  if (c < 0x80) return cp = c, 1;
  size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
  if (pos + n > s.size()) return cp = 0xFFFD, 1;
  if ((c & 0xE0) == 0xC0) return cp = ((c & 0x1Fu) << 6) | (b(1) & 0x3Fu), 2;
  if ((c & 0xF0) == 0xE0)
    return cp = ((c & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu), 3;
  return cp = ((c & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu),
         4;
}

// The byte offset of the first invalid UTF-8 sequence (overlong forms, surrogates and code
// points above U+10FFFF are invalid), or npos.
size_t invalid_utf8_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<uint8_t>(s[i + k]) & 0xC0) != 0x80) return i;
    uint32_t cp = 0;
    decode(s, i, cp);
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += n;
  }
  return std::string_view::npos;
}

bool in_ranges(const unicode::CodeRange* r, size_t n, uint32_t cp) {
  auto it = std::upper_bound(r, r + n, cp,
                             [](uint32_t v, const unicode::CodeRange& x) { return v < x.first; });
  return it != r && cp <= (it - 1)->last;
}
bool xid_start(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  return in_ranges(unicode::kXidStart, std::size(unicode::kXidStart), cp);
}
bool xid_continue(uint32_t cp) {
  if (cp < 0x80)
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
  return in_ranges(unicode::kXidContinue, std::size(unicode::kXidContinue), cp);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

struct Scanner {
  std::string_view s;

  char at(size_t p) const { return p < s.size() ? s[p] : '\0'; }

  // Pattern_White_Space (spec 3.2): its length at p, or 0.
  size_t blank_len(size_t p) const {
    switch (at(p)) {
      case ' ':
      case '\t':
      case '\n':
      case '\v':
      case '\f':
      case '\r':
        return 1;
      default:
        break;
    }
    uint32_t cp = 0;
    if (static_cast<uint8_t>(at(p)) < 0x80) return 0;
    size_t n = decode(s, p, cp);
    return cp == 0x85 || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029 ? n : 0;
  }
  // A line break (spec 3.2) at p: its length, or 0.
  size_t line_break_len(size_t p) const {
    char c = at(p);
    if (c == '\n' || c == '\v' || c == '\f') return 1;
    if (c == '\r') return at(p + 1) == '\n' ? 2 : 1;
    if (static_cast<uint8_t>(c) < 0x80) return 0;
    uint32_t cp = 0;
    size_t n = decode(s, p, cp);
    return cp == 0x85 || cp == 0x2028 || cp == 0x2029 ? n : 0;
  }
  // A comment at p (spec 3.3): its length, or 0. An unterminated block comment sets `open`.
  size_t comment_len(size_t p, bool& open) const {
    if (at(p) != '/') return 0;
    if (at(p + 1) == '/') {
      size_t q = p + 2;
      while (q < s.size() && !line_break_len(q)) ++q;
      return q - p;
    }
    if (at(p + 1) != '*') return 0;
    size_t q = p + 2, depth = 1;
    while (q < s.size()) {
      if (s[q] == '/' && at(q + 1) == '*') {
        ++depth, q += 2;
      } else if (s[q] == '*' && at(q + 1) == '/') {
        q += 2;
        if (--depth == 0) return q - p;
      } else {
        ++q;
      }
    }
    open = true;
    return s.size() - p;
  }
  // Skips blankspace and comments from p; an unterminated block comment sets open_at.
  size_t skip_trivia(size_t p, size_t* open_at = nullptr) const {
    for (;;) {
      if (size_t n = blank_len(p)) {
        p += n;
        continue;
      }
      bool open = false;
      if (size_t n = comment_len(p, open)) {
        if (open && open_at) *open_at = p;
        p += n;
        continue;
      }
      return p;
    }
  }

  // ident_pattern_token at p: its length, or 0 ('_' alone is not one).
  size_t ident_len(size_t p) const {
    uint32_t cp = 0;
    size_t n = decode(s, p, cp);
    if (n == 0 || !(xid_start(cp) || cp == '_')) return 0;
    size_t q = p + n;
    for (;;) {
      size_t m = decode(s, q, cp);
      if (m == 0 || !xid_continue(cp)) break;
      q += m;
    }
    if (s[p] == '_' && q == p + 1) return 0;
    return q - p;
  }

  struct Literal {
    size_t len = 0;       // the whole token, suffix included; 0: no literal at p
    size_t text_len = 0;  // without the suffix
    bool is_float = false;
    char suffix = 0;
    bool leading_zero = false;  // 012: a decimal integer with a leading zero (an error)
  };
  size_t digits(size_t p, bool hex) const {
    size_t q = p;
    while (q < s.size() && (hex ? is_hex(s[q]) : is_digit(s[q]))) ++q;
    return q - p;
  }
  // An exponent ([eE] or [pP], optional sign, decimal digits) at p: its length, or 0.
  size_t exponent_len(size_t p, char lower) const {
    if (at(p) != lower && at(p) != lower - 32) return 0;
    size_t q = p + 1;
    if (at(q) == '+' || at(q) == '-') ++q;
    size_t d = digits(q, false);
    return d ? q + d - p : 0;
  }
  // The longest numeric literal at p (spec 3.5.2).
  Literal literal(size_t p) const {
    Literal lit;
    if (at(p) == '0' && (at(p + 1) == 'x' || at(p + 1) == 'X')) {
      size_t q = p + 2, id = digits(q, true), fd = 0;
      bool point = at(q + id) == '.';
      if (point) fd = digits(q + id + 1, true);
      if (id + fd > 0) {
        size_t end = q + id + (point ? 1 + fd : 0);
        size_t e = exponent_len(end, 'p');
        if (point || e) {
          lit.is_float = true;
          end += e;
          lit.text_len = end - p;
          if (e && (at(end) == 'f' || at(end) == 'h')) lit.suffix = at(end++);
        } else {
          lit.text_len = end - p;
          if (at(end) == 'i' || at(end) == 'u') lit.suffix = at(end++);
        }
        lit.len = end - p;
        return lit;
      }
      // "0x" without digits: the literal is the "0" alone.
    }
    size_t id = digits(p, false), fd = 0;
    bool point = at(p + id) == '.';
    if (point) fd = digits(p + id + 1, false);
    if (id + fd == 0) return lit;
    size_t end = p + id + (point ? 1 + fd : 0);
    size_t e = exponent_len(end, 'e');
    end += e;
    lit.text_len = end - p;
    if (point || e) {
      lit.is_float = true;
      if (at(end) == 'f' || at(end) == 'h') lit.suffix = at(end++);
    } else {
      lit.leading_zero = id > 1 && s[p] == '0';
      if (at(end) == 'f' || at(end) == 'h') {
        lit.is_float = true;
        lit.suffix = at(end++);
      } else if (at(end) == 'i' || at(end) == 'u') {
        lit.suffix = at(end++);
      }
    }
    lit.len = end - p;
    return lit;
  }
  bool literal_starts(size_t p) const {
    return is_digit(at(p)) || (at(p) == '.' && is_digit(at(p + 1)));
  }
};

// The 1-based line and byte column of every offset, from the line breaks of spec 3.2.
struct LineTable {
  std::vector<uint32_t> starts{0};
  explicit LineTable(const Scanner& sc) {
    for (size_t i = 0; i < sc.s.size();) {
      size_t n = sc.line_break_len(i);
      if (n) {
        i += n;
        starts.push_back(static_cast<uint32_t>(i));
      } else {
        ++i;
      }
    }
  }
  Span at(size_t offset) const {
    auto it = std::upper_bound(starts.begin(), starts.end(), static_cast<uint32_t>(offset));
    size_t line = static_cast<size_t>(it - starts.begin());
    return {static_cast<uint32_t>(line), static_cast<uint32_t>(offset - *(it - 1) + 1)};
  }
};

}  // namespace

std::string quote_source(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return "'" + std::string(text) + "'";
  size_t cut = kMax;
  while (cut > 0 && (static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(text.substr(0, cut)) + "...'";
}

bool is_keyword(std::string_view w) {
  static const std::unordered_set<std::string_view> k = {
      "alias",   "break",      "case",    "const", "const_assert", "continue", "continuing",
      "default", "diagnostic", "discard", "else",  "enable",       "false",    "fn",
      "for",     "if",         "let",     "loop",  "override",     "requires", "return",
      "struct",  "switch",     "true",    "var",   "while"};
  return k.count(w) != 0;
}

bool is_reserved_word(std::string_view w) {
  static const std::unordered_set<std::string_view> r = {"NULL",
                                                         "Self",
                                                         "abstract",
                                                         "active",
                                                         "alignas",
                                                         "alignof",
                                                         "as",
                                                         "asm",
                                                         "asm_fragment",
                                                         "async",
                                                         "attribute",
                                                         "auto",
                                                         "await",
                                                         "become",
                                                         "cast",
                                                         "catch",
                                                         "class",
                                                         "co_await",
                                                         "co_return",
                                                         "co_yield",
                                                         "coherent",
                                                         "column_major",
                                                         "common",
                                                         "compile",
                                                         "compile_fragment",
                                                         "concept",
                                                         "const_cast",
                                                         "consteval",
                                                         "constexpr",
                                                         "constinit",
                                                         "crate",
                                                         "debugger",
                                                         "decltype",
                                                         "delete",
                                                         "demote",
                                                         "demote_to_helper",
                                                         "do",
                                                         "dynamic_cast",
                                                         "enum",
                                                         "explicit",
                                                         "export",
                                                         "extends",
                                                         "extern",
                                                         "external",
                                                         "fallthrough",
                                                         "filter",
                                                         "final",
                                                         "finally",
                                                         "friend",
                                                         "from",
                                                         "fxgroup",
                                                         "get",
                                                         "goto",
                                                         "groupshared",
                                                         "highp",
                                                         "impl",
                                                         "implements",
                                                         "import",
                                                         "inline",
                                                         "instanceof",
                                                         "interface",
                                                         "layout",
                                                         "lowp",
                                                         "macro",
                                                         "macro_rules",
                                                         "match",
                                                         "mediump",
                                                         "meta",
                                                         "mod",
                                                         "module",
                                                         "move",
                                                         "mut",
                                                         "mutable",
                                                         "namespace",
                                                         "new",
                                                         "nil",
                                                         "noexcept",
                                                         "noinline",
                                                         "nointerpolation",
                                                         "non_coherent",
                                                         "noncoherent",
                                                         "noperspective",
                                                         "null",
                                                         "nullptr",
                                                         "of",
                                                         "operator",
                                                         "package",
                                                         "packoffset",
                                                         "partition",
                                                         "pass",
                                                         "patch",
                                                         "pixelfragment",
                                                         "precise",
                                                         "precision",
                                                         "premerge",
                                                         "priv",
                                                         "protected",
                                                         "pub",
                                                         "public",
                                                         "readonly",
                                                         "ref",
                                                         "regardless",
                                                         "register",
                                                         "reinterpret_cast",
                                                         "require",
                                                         "resource",
                                                         "restrict",
                                                         "self",
                                                         "set",
                                                         "shared",
                                                         "sizeof",
                                                         "smooth",
                                                         "snorm",
                                                         "static",
                                                         "static_assert",
                                                         "static_cast",
                                                         "std",
                                                         "subroutine",
                                                         "super",
                                                         "target",
                                                         "template",
                                                         "this",
                                                         "thread_local",
                                                         "throw",
                                                         "trait",
                                                         "try",
                                                         "type",
                                                         "typedef",
                                                         "typeid",
                                                         "typename",
                                                         "typeof",
                                                         "union",
                                                         "unless",
                                                         "unorm",
                                                         "unsafe",
                                                         "unsized",
                                                         "use",
                                                         "using",
                                                         "varying",
                                                         "virtual",
                                                         "volatile",
                                                         "wgsl",
                                                         "where",
                                                         "with",
                                                         "writeonly",
                                                         "yield"};
  return r.count(w) != 0;
}

TemplateLists discover_template_lists(std::string_view source) {
  // Spec 3.9, "Algorithm: Template list discovery", step by step (positions are bytes here; the
  // algorithm only ever compares ASCII code points, so bytes and code points agree).
  Scanner sc{source};
  TemplateLists out;
  struct Candidate {
    size_t position;
    int depth;
  };
  std::vector<Candidate> pending;
  int depth = 0;
  size_t pos = 0;
  auto pop_deeper = [&] {
    while (!pending.empty() && pending.back().depth >= depth) pending.pop_back();
  };
  const size_t end = source.size();
  while (pos < end) {
    // Advance past blankspace, comments and literals.
    for (;;) {
      size_t p = sc.skip_trivia(pos);
      if (p < end && sc.literal_starts(p)) p += sc.literal(p).len;
      if (p == pos) break;
      pos = p;
    }
    if (pos >= end) break;
    if (size_t n = sc.ident_len(pos)) {
      pos = sc.skip_trivia(pos + n);
      if (sc.at(pos) == '<') {
        pending.push_back({pos, depth});
        ++pos;
        if (sc.at(pos) == '<' || sc.at(pos) == '=') {  // '<<' or '<=': not a template list
          pending.pop_back();
          ++pos;
        }
      }
      continue;
    }
    char c = source[pos];
    if (c == '>') {
      if (!pending.empty() && pending.back().depth == depth) {
        out.starts.push_back(static_cast<uint32_t>(pending.back().position));
        out.ends.push_back(static_cast<uint32_t>(pos));
        pending.pop_back();
        ++pos;
        continue;
      }
      ++pos;
      if (sc.at(pos) == '=') ++pos;  // '>='
      continue;
    }
    if (c == '(' || c == '[') {
      ++depth, ++pos;
      continue;
    }
    if (c == ')' || c == ']') {
      pop_deeper();
      depth = std::max(0, depth - 1);
      ++pos;
      continue;
    }
    if (c == '!') {
      ++pos;
      if (sc.at(pos) == '=') ++pos;  // '!='
      continue;
    }
    if (c == '=') {
      ++pos;
      if (sc.at(pos) == '=') {  // '=='
        ++pos;
        continue;
      }
      depth = 0;  // an assignment: no template list spans it
      pending.clear();
      continue;
    }
    if (c == ';' || c == '{' || c == ':') {
      depth = 0;
      pending.clear();
      ++pos;
      continue;
    }
    if ((c == '&' && sc.at(pos + 1) == '&') || (c == '|' && sc.at(pos + 1) == '|')) {
      pop_deeper();
      pos += 2;
      continue;
    }
    uint32_t cp = 0;
    pos += std::max<size_t>(1, decode(source, pos, cp));
  }
  return out;
}

LexResult lex(std::string_view source) {
  LexResult r;
  Scanner sc{source};
  LineTable lines(sc);
  auto fail = [&](size_t at, std::string msg) {
    r.ok = false;
    r.error_at = lines.at(at);
    r.error = std::move(msg);
    Token end;
    end.span = r.error_at;
    end.offset = static_cast<uint32_t>(at);
    r.tokens.push_back(end);
    return r;
  };
  if (size_t bad = invalid_utf8_at(source); bad != std::string_view::npos)
    return fail(bad, "invalid UTF-8 in the source (byte " + std::to_string(bad) + ")");
  // A null character is invalid anywhere, comments included (Tint; the CTS's
  // blankspace:null_characters).
  if (size_t nul = source.find('\0'); nul != std::string_view::npos)
    return fail(nul, "null character in the source (byte " + std::to_string(nul) + ")");

  // 1: '<' starting a template list, 2: '>' ending one.
  std::vector<uint8_t> mark(source.size() + 1, 0);
  {
    TemplateLists tl = discover_template_lists(source);
    for (uint32_t p : tl.starts) mark[p] = 1;
    for (uint32_t p : tl.ends) mark[p] = 2;
  }
  static constexpr std::string_view kPunct[] = {
      ">>=", "<<=", "->", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "++",
      "--",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "&",  "@",  "/",
      "!",   "[",   "]",  "{",  "}",  ":",  ",",  "=",  "<",  ">",  "%",  "-",
      ".",   "+",   "|",  "^",  "~",  "*",  "(",  ")",  ";",  "_"};

  size_t pos = 0;
  for (;;) {
    size_t open_at = std::string_view::npos;
    pos = sc.skip_trivia(pos, &open_at);
    if (open_at != std::string_view::npos) return fail(open_at, "unterminated block comment");
    Token t;
    t.offset = static_cast<uint32_t>(pos);
    t.span = lines.at(pos);
    if (pos >= source.size()) {
      r.tokens.push_back(t);
      return r;
    }
    if (mark[pos]) {
      t.kind = mark[pos] == 1 ? Token::Kind::TemplateStart : Token::Kind::TemplateEnd;
      t.text = source.substr(pos, 1);
      ++pos;
    } else if (sc.literal_starts(pos)) {
      Scanner::Literal lit = sc.literal(pos);
      if (lit.leading_zero)
        return fail(pos, "integer literals cannot have leading zeros: " +
                             quote_source(source.substr(pos, lit.len)));
      t.kind = lit.is_float ? Token::Kind::Float : Token::Kind::Int;
      t.text = source.substr(pos, lit.text_len);
      t.suffix = lit.suffix;
      pos += lit.len;
    } else if (size_t n = sc.ident_len(pos)) {
      t.text = source.substr(pos, n);
      if (is_keyword(t.text)) {
        t.kind = Token::Kind::Keyword;
      } else if (is_reserved_word(t.text)) {
        return fail(pos, quote_source(t.text) + " is a reserved word");
      } else if (t.text.substr(0, 2) == "__") {
        return fail(pos,
                    "identifiers must not start with two underscores: " + quote_source(t.text));
      } else {
        t.kind = Token::Kind::Ident;
      }
      pos += n;
    } else {
      t.kind = Token::Kind::Punct;
      for (std::string_view p : kPunct) {
        if (source.substr(pos, p.size()) != p) continue;
        // A template list's '>' never merges into '>>', '>=' or '>>='.
        bool split = false;
        for (size_t k = 1; k < p.size(); ++k) split = split || mark[pos + k];
        if (split) continue;
        t.text = source.substr(pos, p.size());
        break;
      }
      if (t.text.empty()) {
        uint32_t cp = 0;
        decode(source, pos, cp);
        char buf[16];
        std::snprintf(buf, sizeof buf, "U+%04X", cp);
        return fail(pos, std::string("invalid character ") + buf + " in the source");
      }
      pos += t.text.size();
    }
    r.tokens.push_back(t);
  }
}

}  // namespace wgslvk::wgsl
