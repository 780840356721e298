// The WGSL declaration reader on untrusted text (issue 16; users bring WGSL with --wgsl): integer
// overflow, zero workgroup sizes, bad alignments, duplicate bindings in one entry point, an
// unterminated comment and deep nesting are clear errors naming the file and line, never a wrong
// layout, a trap, a hang or a stack overflow. The fuzz target fuzz/fuzz_wgsl.cpp runs the same
// reader on mutated shipped WGSL.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "wgslvk/translator.hpp"

namespace {
using namespace wgslvk::translator;

// The reader's error for `text` ("" when it parses).
std::string error_of(const std::string& text) {
  try {
    parse_wgsl(text, "user.wgsl");
  } catch (const Error& e) { return e.what(); }
  return {};
}

void expect_error(const std::string& text, std::initializer_list<const char*> parts) {
  std::string e = error_of(text);
  ASSERT_FALSE(e.empty()) << "accepted:\n" << text.substr(0, 300);
  EXPECT_EQ(e.rfind("user.wgsl:", 0), 0u) << e;
  for (const char* p : parts)
    EXPECT_NE(e.find(p), std::string::npos) << "expected '" << p << "' in: " << e;
  EXPECT_LT(e.size(), 1000u) << e.substr(0, 300);
}

const std::string kBind = "@group(0) @binding(0) var<storage, read_write> a: ";
const std::string kEntry = "\n@compute @workgroup_size(64) fn main() { a[0] = 1.0; }\n";

}  // namespace

TEST(WgslUntrusted, IntegerOverflowIsAnError) {
  // 2^32 elements read as 0 once; a product that wraps; i64::MIN / -1 (a trap).
  expect_error(kBind + "array<f32, 4294967296>;" + kEntry,
               {"user.wgsl:1", "does not fit in 32 bits"});
  expect_error(kBind + "array<f32, 65536 * 65536>;" + kEntry, {"does not fit in 32 bits"});
  expect_error("const M = -9223372036854775807 - 1;\n" + kBind + "array<f32, M / -1>;" + kEntry,
               {"user.wgsl:2", "cannot evaluate the element count"});
  expect_error(kBind + "array<f32, 3037000500 * 3037000500>;" + kEntry,
               {"cannot evaluate the element count"});
  expect_error(kBind + "array<f32, 99999999999999999999999>;" + kEntry,
               {"cannot evaluate the element count"});
  expect_error(kBind + "array<vec4<f32>, 300000000>;" + kEntry, {"bytes, more than 2^32 - 1"});
  EXPECT_EQ(error_of(kBind + "array<f32, 1024 * 1024>;" + kEntry), "");
}

TEST(WgslUntrusted, ZeroWorkgroupSizeIsAnError) {
  expect_error(kBind + "array<f32>;\n@compute @workgroup_size(0) fn main() { a[0] = 1.0; }\n",
               {"user.wgsl:2", "@workgroup_size of main", "is 0"});
  expect_error(kBind + "array<f32>;\n@compute @workgroup_size(8, 0, 1) fn main() { a[0] = 1.0; }\n",
               {"dimension 1 is 0"});
}

TEST(WgslUntrusted, AlignAndSizeAttributesAreChecked) {
  auto with = [](const std::string& member) {
    return "struct S { x: u32, " + member +
           " }\n@group(0) @binding(0) var<storage, read_write> a: S;\n"
           "@compute @workgroup_size(1) fn main() { a.x = 1u; }\n";
  };
  expect_error(with("@align(0) y: f32,"), {"user.wgsl:1", "@align(0)", "power of two"});
  expect_error(with("@align(3) y: f32,"), {"@align(3)", "power of two"});
  expect_error(with("@size(2) y: vec2<f32>,"), {"@size(2)", "smaller than its type's size 8"});
  EXPECT_EQ(error_of(with("@align(16) y: f32,")), "");
}

TEST(WgslUntrusted, DuplicateBindingsInOneEntryPointAreAnError) {
  std::string two =
      "@group(0) @binding(1) var<storage, read_write> a: array<f32>;\n"
      "@group(0) @binding(1) var<storage, read_write> b: array<f32>;\n";
  expect_error(two + "@compute @workgroup_size(1) fn both() { a[0] = b[0]; }\n",
               {"user.wgsl:3", "entry point both uses both `a` (line 1) and `b` (line 2)",
                "@group(0) @binding(1)"});
  // Different entry points may share a slot (the shipped WGSL does).
  EXPECT_EQ(error_of(two + "@compute @workgroup_size(1) fn one() { a[0] = 1.0; }\n"
                           "@compute @workgroup_size(1) fn other() { b[0] = 1.0; }\n"),
            "");
}

TEST(WgslUntrusted, UnterminatedCommentIsAnError) {
  expect_error(kBind + "array<f32>;\n/* never closed\n" + kEntry,
               {"user.wgsl:2", "unterminated block comment"});
  expect_error(kBind + "array<f32>;\n/* /* nested */ still open\n" + kEntry,
               {"unterminated block comment"});
}

TEST(WgslUntrusted, DeepNestingIsAnErrorNotACrash) {
  auto t0 = std::chrono::steady_clock::now();
  std::string deep_type;
  for (int i = 0; i < 100000; ++i) deep_type += "array<";
  expect_error(kBind + deep_type + "f32" + std::string(100000, '>') + ";" + kEntry,
               {"nest deeper than"});
  std::string parens = std::string(100000, '(') + "1" + std::string(100000, ')');
  expect_error(kBind + "array<f32, " + parens + ">;" + kEntry,
               {"cannot evaluate the element count"});
  expect_error(kBind + "array<f32, " + std::string(100000, '-') + "1>;" + kEntry,
               {"cannot evaluate"});
  // A struct that contains itself, and 2^30 members by doubling: errors, not a hang.
  expect_error("struct S { s: S }\n@group(0) @binding(0) var<storage, read_write> a: S;" + kEntry,
               {"nest deeper than 32"});
  std::string dbl = "struct S0 { x: f32 }\n";
  for (int i = 1; i <= 30; ++i)
    dbl += "struct S" + std::to_string(i) + " { a: S" + std::to_string(i - 1) + ", b: S" +
           std::to_string(i - 1) + " }\n";
  expect_error(dbl + "@group(0) @binding(0) var<storage, read_write> a: S30;" + kEntry,
               {"expands to more than"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

// Issue 26: `const A = 1/0;` was accepted (the value was only "unknown").
TEST(WgslUntrusted, ConstDivisionByZeroIsAnError) {
  expect_error("const A = 1/0;\n" + kBind + "array<f32>;" + kEntry,
               {"user.wgsl:1", "const A: integer division by zero"});
  expect_error("const B = 4;\nconst A = 7 % (B - 4);\n" + kBind + "array<f32>;" + kEntry,
               {"user.wgsl:2", "const A: integer remainder by zero"});
  // An operand the reader cannot evaluate (an override without a value) stays unknown.
  EXPECT_EQ(error_of("override N: u32;\nconst A = 1 / N;\n" + kBind + "array<f32>;" + kEntry), "");
  EXPECT_EQ(error_of("const A = 7 / 2;\n" + kBind + "array<f32, A>;" + kEntry), "");
}
