// The typed kernel headers: uniform_fields() (the uniform layout a KernelInfo carries) and
// kernel_header() (wgslvk/kernels/<file>/<entry>.hpp, written from a KernelInfo alone).
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "wgslvk/translator.hpp"

namespace wgslvk::translator {

namespace {

void leaf_fields(const TypeDesc& t, const std::string& prefix, uint32_t base,
                 std::vector<CheckedField>& out) {
  for (const auto& m : t.members) {
    if (m.type.kind == TypeDesc::Kind::Struct)
      leaf_fields(m.type, prefix + m.name + ".", base + m.offset, out);
    else
      out.push_back({prefix + m.name, m.type.wgsl(), base + m.offset, uint32_t(m.type.size)});
  }
}

const std::set<std::string>& cpp_keywords() {
  static const std::set<std::string> k = {
      "alignas",   "alignof",   "and",       "and_eq",        "asm",
      "auto",      "bitand",    "bitor",     "bool",          "break",
      "case",      "catch",     "char",      "char8_t",       "char16_t",
      "char32_t",  "class",     "compl",     "concept",       "const",
      "consteval", "constexpr", "constinit", "const_cast",    "continue",
      "co_await",  "co_return", "co_yield",  "decltype",      "default",
      "delete",    "do",        "double",    "dynamic_cast",  "else",
      "enum",      "explicit",  "export",    "extern",        "false",
      "float",     "for",       "friend",    "goto",          "if",
      "inline",    "int",       "long",      "mutable",       "namespace",
      "new",       "noexcept",  "not",       "not_eq",        "nullptr",
      "operator",  "or",        "or_eq",     "private",       "protected",
      "public",    "register",  "requires",  "return",        "short",
      "signed",    "sizeof",    "static",    "static_assert", "static_cast",
      "struct",    "switch",    "template",  "this",          "thread_local",
      "throw",     "true",      "try",       "typedef",       "typeid",
      "typename",  "union",     "unsigned",  "using",         "virtual",
      "void",      "volatile",  "wchar_t",   "while",         "xor",
      "xor_eq",    "main"};
  return k;
}

// A C++ identifier for a WGSL name or folder: other characters become '_', a keyword (or a name
// the header itself uses, `taken`) gets a trailing '_'.
std::string cpp_ident(std::string_view s, const std::set<std::string>& taken = {}) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  while (cpp_keywords().count(out) || taken.count(out)) out += '_';
  return out;
}

std::string c_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  }
  return out + "\"";
}

// The host type of a WGSL scalar, or empty.
std::string scalar_cpp(std::string_view w) {
  if (w == "u32" || w == "atomic<u32>") return "uint32_t";
  if (w == "i32" || w == "atomic<i32>") return "int32_t";
  if (w == "f32") return "float";
  if (w == "f16") return "uint16_t";  // the bits (the host has no f16 type)
  return {};
}

// The host type of a scalar or vector, or empty (matrices, arrays, structs: opaque).
std::string value_cpp(std::string_view w) {
  if (auto s = scalar_cpp(w); !s.empty()) return s;
  if (w.size() > 6 && w.substr(0, 3) == "vec" && w[4] == '<' && w.back() == '>') {
    std::string s = scalar_cpp(w.substr(5, w.size() - 6));
    if (!s.empty() && w[3] >= '2' && w[3] <= '4')
      return "std::array<" + s + ", " + std::string(1, w[3]) + ">";
  }
  return {};
}

// The element type a storage binding's slot carries: a runtime or fixed array's element when
// it is a scalar or vector, else void.
std::string storage_element_cpp(std::string_view w) {
  if (w.substr(0, 6) == "array<" && w.back() == '>') {
    std::string_view inner = w.substr(6, w.size() - 7);
    int depth = 0;
    size_t comma = std::string_view::npos;
    for (size_t i = 0; i < inner.size(); ++i) {
      if (inner[i] == '<') ++depth;
      if (inner[i] == '>') --depth;
      if (inner[i] == ',' && depth == 0) comma = i;
    }
    if (comma != std::string_view::npos) inner = inner.substr(0, comma);
    std::string e = value_cpp(inner);
    return e.empty() ? "void" : e;
  }
  std::string e = value_cpp(w);
  return e.empty() ? "void" : e;
}

bool builtin_type_spelling(std::string_view w) {
  for (std::string_view p : {"u32", "i32", "f32", "f16", "bool", "vec", "mat", "array", "atomic"})
    if (w.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace

std::vector<CheckedField> uniform_fields(const TypeDesc& type, const std::string& name) {
  std::vector<CheckedField> out;
  if (type.kind == TypeDesc::Kind::Struct)
    leaf_fields(type, "", 0, out);
  else
    out.push_back({name, type.wgsl(), 0, uint32_t(type.size)});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return out;
}

std::string kernel_header(const KernelInfo& k) {
  const std::string q = std::string(k.file) + "/" + std::string(k.name);
  const std::string ns = "wgslvk::kernels::" + cpp_ident(k.file) + "::" + cpp_ident(k.name);
  const uint64_t threads =
      uint64_t(k.workgroup_size[0]) * k.workgroup_size[1] * k.workgroup_size[2];
  // Names of the header's own declarations, which a WGSL struct name must not take.
  const std::set<std::string> own = {"Kernel", "name", "binding", "workgroup_size", "info"};

  std::string h;
  h += "// Generated by wgslvk-translate from the KernelInfo of " + q +
       " (WGSL: " + std::string(k.wgsl_file) +
       "). Do not edit.\n// What it holds and how to use it: translator/README.md, \"Typed kernel "
       "headers\".\n#pragma once\n\n#include <array>\n#include <cstddef>\n#include <cstdint>\n"
       "#include <string_view>\n\n#include \"wgslvk/kernel_slot.hpp\"\n\n";
  h += "namespace " + ns + " {\n\n";
  h += "// The kernel: its tag type (every BindingSlot below names it) and its constants.\n";
  h += "struct Kernel {\n";
  h += "  static constexpr std::string_view name = " + c_string(q) + ";\n";
  h += "  static constexpr std::array<uint32_t, 3> workgroup_size{" +
       std::to_string(k.workgroup_size[0]) + ", " + std::to_string(k.workgroup_size[1]) + ", " +
       std::to_string(k.workgroup_size[2]) + "};\n";
  h += "  static constexpr uint64_t workgroup_threads = " + std::to_string(threads) + ";\n";
  h += "  // The registered record (wgslvk::kernel(name)).\n";
  h += "  static const KernelInfo& info() { return wgslvk::kernel(name); }\n";
  h += "  // Workgroups covering `invocations` invocations, at least one.\n";
  h += "  static constexpr uint64_t workgroups(uint64_t invocations) {\n"
       "    return flat_workgroups(invocations, workgroup_threads);\n  }\n";
  h += "  // The flat_id 2-D grid (wgsl_ports/RULES.md, R12) for `invocations` invocations:\n"
       "  // wgslvk::grid_for_workgroups(workgroups(invocations), limits), found through `limits`\n"
       "  // (a wgslvk::Limits) so that this header needs no runtime.\n";
  h += "  template <class Limits>\n  static auto grid(uint64_t invocations, const Limits& limits) "
       "{\n    return grid_for_workgroups(workgroups(invocations), limits);\n  }\n";
  h += "};\ninline constexpr std::string_view name = Kernel::name;\n\n";

  // Uniform structs, once per WGSL struct name.
  std::set<std::string> structs_done;
  std::vector<std::string> slot_types(k.bindings.size());
  for (size_t bi = 0; bi < k.bindings.size(); ++bi) {
    const KernelBinding& b = k.bindings[bi];
    if (b.type != BindingType::Uniform) {
      slot_types[bi] = storage_element_cpp(b.wgsl_type);
      continue;
    }
    const bool is_struct = !builtin_type_spelling(b.wgsl_type) || b.fields.size() > 1;
    if (!is_struct) {
      std::string v = b.fields.size() == 1 ? value_cpp(b.fields[0].wgsl_type) : "";
      slot_types[bi] = v.empty() ? "void" : v;
      continue;
    }
    const std::string sname = cpp_ident(b.wgsl_type, own);
    slot_types[bi] = sname;
    if (!structs_done.insert(sname).second) continue;
    h += "// var<uniform> " + std::string(b.name) + ": " + std::string(b.wgsl_type) + ", " +
         std::to_string(b.min_binding_size) +
         " bytes in WGSL's uniform layout (explicit padding; initialize by member name).\n";
    h += "struct " + sname + " {\n";
    uint32_t at = 0, pads = 0;
    std::vector<std::string> asserts;
    std::set<std::string> members;
    auto pad = [&](uint32_t to) {
      if (to <= at) return;
      const uint32_t n = to - at;
      if (n % 4 == 0 && at % 4 == 0)
        h += "  uint32_t pad" + std::to_string(pads++) + "_[" + std::to_string(n / 4) + "]{};\n";
      else
        h += "  uint8_t pad" + std::to_string(pads++) + "_[" + std::to_string(n) + "]{};\n";
      at = to;
    };
    for (const KernelField& f : b.fields) {
      if (f.offset < at) continue;  // overlapping: cannot happen in a WGSL layout
      pad(f.offset);
      std::string member = cpp_ident(f.name, members);
      members.insert(member);
      std::string t = value_cpp(f.wgsl_type);
      if (t.empty())  // matrices, arrays: their bytes, at the right place
        t = f.size % 4 == 0 ? "std::array<uint32_t, " + std::to_string(f.size / 4) + ">"
                            : "std::array<uint8_t, " + std::to_string(f.size) + ">";
      h += "  " + t + " " + member + "{};  // " + std::string(f.wgsl_type) + " @" +
           std::to_string(f.offset) + "\n";
      asserts.push_back("static_assert(offsetof(" + sname + ", " + member +
                        ") == " + std::to_string(f.offset) + ");\n");
      at = f.offset + f.size;
    }
    pad(uint32_t(b.min_binding_size));
    h += "};\n";
    h += "static_assert(sizeof(" + sname + ") == " + std::to_string(b.min_binding_size) + ");\n";
    for (const auto& a : asserts) h += a;
    h += "\n";
  }

  h += "// One slot per binding: wgslvk::bind(slot, buffer[, offset, size]) (wgslvk/bind.hpp).\n";
  h += "namespace binding {\n";
  std::set<std::string> slot_names;
  for (size_t bi = 0; bi < k.bindings.size(); ++bi) {
    const KernelBinding& b = k.bindings[bi];
    std::string id = cpp_ident(b.name, slot_names);
    slot_names.insert(id);
    h += "// @group(" + std::to_string(b.group) + ") @binding(" + std::to_string(b.binding) + ") " +
         std::string(b.name) + ": " + std::string(b.wgsl_type) + " (" +
         std::string(binding_type_name(b.type)) + (b.statically_used ? "" : ", not used") + ")\n";
    h += "inline constexpr BindingSlot<Kernel, " + slot_types[bi] + "> " + id + "{" +
         std::to_string(b.group) + ", " + std::to_string(b.binding) + ", BindingType::" +
         (b.type == BindingType::Uniform   ? "Uniform"
          : b.type == BindingType::Storage ? "Storage"
                                           : "ReadOnlyStorage") +
         ", " + c_string(b.name) + "};\n";
  }
  h += "}  // namespace binding\n\n}  // namespace " + ns + "\n";
  return h;
}

}  // namespace wgslvk::translator
