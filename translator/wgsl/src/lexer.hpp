// The WGSL lexer (spec 3.1-3.9): blankspace and line breaks, nested block comments, literals,
// identifiers (Unicode XID), keywords and reserved words, syntactic tokens, and the template list
// discovery pass that decides which '<' and '>' delimit template lists before tokens are formed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ast.hpp"

namespace wgslvk::wgsl {

struct Token {
  enum class Kind : uint8_t {
    End,
    Ident,
    Keyword,
    Int,            // text without the suffix; suffix 'i', 'u' or 0
    Float,          // text without the suffix; suffix 'f', 'h' or 0
    Punct,          // syntactic tokens, and '_'
    TemplateStart,  // the '<' of a template list (template list discovery)
    TemplateEnd,    // its '>'
  };
  Kind kind = Kind::End;
  std::string_view text;
  char suffix = 0;
  Span span;
  uint32_t offset = 0;  // byte offset in the source

  bool is(Kind k, std::string_view t) const { return kind == k && text == t; }
  bool punct(std::string_view t) const { return is(Kind::Punct, t); }
  bool keyword(std::string_view t) const { return is(Kind::Keyword, t); }
};

struct LexResult {
  std::vector<Token> tokens;  // ends with one End token
  // Set on failure (tokens then ends at the error): where and what.
  bool ok = true;
  Span error_at;
  std::string error;
};

// Tokenizes the whole source. The first lexical error stops it (ok = false).
LexResult lex(std::string_view source);

// Template list discovery exactly as spec 3.9 gives it: the byte offsets of the '<' that start and
// the '>' that end a template list. Exposed for tests.
struct TemplateLists {
  std::vector<uint32_t> starts, ends;
};
TemplateLists discover_template_lists(std::string_view source);

// Source text for a message: quoted, cut after 40 bytes (at a UTF-8 boundary) with "...".
std::string quote_source(std::string_view text);

bool is_keyword(std::string_view word);
bool is_reserved_word(std::string_view word);

}  // namespace wgslvk::wgsl
