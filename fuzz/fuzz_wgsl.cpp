// Fuzz target: the WGSL declaration reader (translator/src/wgsl.cpp). Refusals are
// wgslvk::translator::Error naming the file and line.
#include "fuzz.hpp"
#include "wgslvk/translator.hpp"

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"@group(0)",
          "@binding(0)",
          "@binding(1)",
          "var<storage, read_write>",
          "var<uniform>",
          "array<",
          "array<f32, ",
          "vec4<f32>",
          "mat4x4f",
          "atomic<u32>",
          ">",
          ">>",
          "struct S { ",
          "}",
          "@align(",
          "@align(0)",
          "@align(3)",
          "@size(",
          "@size(0)",
          "@workgroup_size(",
          "@workgroup_size(0)",
          "@compute",
          "fn ",
          "const N = ",
          "override ",
          "alias A = ",
          "enable f16;",
          "/*",
          "*/",
          "//",
          "(((((((((",
          ")))))))))",
          "-",
          "*",
          "/",
          "%",
          "-9223372036854775808",
          "4294967296",
          "9223372036854775807",
          "0x",
          "1e9",
          "u32(",
          "i32(",
          "S",
          "A",
          "N",
          ";",
          ",",
          ":",
          "{",
          "}"};
}
std::vector<std::vector<uint8_t>> extra_seeds() { return {}; }
}  // namespace wgslvk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto m = wgslvk::translator::parse_wgsl(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.wgsl");
    for (const auto& b : m.bindings) (void)b.type.wgsl();
  } catch (const wgslvk::translator::Error& e) {
    wgslvk::fuzz::check_message(e.what());
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("parse_wgsl threw a non-Error: ") + e.what());
  }
  return 0;
}
