// wgslvk-translate: the build-time tool behind wgslvk_add_port. Compiles one GLSL port, checks it
// against its WGSL, and writes a .cpp holding its KernelInfo (plus a depfile and the .spvasm).
//
//   wgslvk-translate --file optimizer --kernel adamw_update --comp X.comp --wgsl X.wgsl
//                    [--abi-of ENTRY] [--include-dir D]... [--define N=V]...
//                    --out kernel.cpp [--depfile kernel.d] [--spvasm kernel.spvasm]
//                    [--header kernel.hpp] [--source-root DIR]
//
// --source-root: the generated .cpp's first line names the .comp and .wgsl relative to DIR (the
// checkout) where they lie under it, so the file's text, and with it ccache's hash of it, is the
// same in every copy of the tree (the scratch-family test builds one: tests/families).
// --header writes the kernel's typed header (kernel_header(): translator/README.md, "Typed kernel
// headers") from the same KernelInfo the .cpp embeds.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "wgslvk/translator.hpp"

namespace fs = std::filesystem;
using namespace wgslvk::translator;

namespace {

std::string c_string(std::string_view s) {
  std::string out = "\"";
  size_t col = 0;
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n\"\n    \"";
        col = 0;
        continue;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);  // octal: cannot swallow a next digit
          out += buf;
        } else {
          out += char(c);
        }
    }
    if (++col > 200) {
      out += "\"\n    \"";
      col = 0;
    }
  }
  return out + "\"";
}

std::string words(std::span<const uint32_t> w) {
  std::string out;
  char buf[16];
  for (size_t i = 0; i < w.size(); ++i) {
    std::snprintf(buf, sizeof buf, "0x%08x,", w[i]);
    out += (i % 8 == 0) ? "\n    " : " ";
    out += buf;
  }
  return out;
}

std::string ident(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

const char* type_enum(wgslvk::BindingType t) {
  switch (t) {
    case wgslvk::BindingType::Uniform:
      return "BindingType::Uniform";
    case wgslvk::BindingType::Storage:
      return "BindingType::Storage";
    case wgslvk::BindingType::ReadOnlyStorage:
      return "BindingType::ReadOnlyStorage";
  }
  return "";
}

void write_if_changed(const fs::path& p, const std::string& text) {
  {
    std::ifstream f(p, std::ios::binary);
    if (f) {
      std::ostringstream s;
      s << f.rdbuf();
      if (s.str() == text) return;
    }
  }
  if (p.has_parent_path()) fs::create_directories(p.parent_path());  // none for a bare "k.cpp"
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw Error("cannot write " + p.string());
}

std::string depfile_path(std::string p) {
  std::string out;
  for (char c : p) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

// `path` relative to `root` where it lies under it (lexically, after making both absolute), else
// as given.
std::string shown_path(const std::string& path, const std::string& root) {
  if (root.empty()) return path;
  const fs::path rel = fs::absolute(path).lexically_normal().lexically_relative(
      fs::absolute(root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return path;
  return rel.generic_string();
}

int usage() {
  std::fprintf(stderr,
               "usage: wgslvk-translate --file F --kernel K --comp X.comp --wgsl X.wgsl "
               "[--abi-of E] [--include-dir D]... [--define N=V]... --out K.cpp "
               "[--depfile K.d] [--spvasm K.spvasm] [--header K.hpp] [--source-root DIR]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  KernelSource src;
  std::string out, depfile, spvasm, header, source_root;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    std::string v = argv[++i];
    if (a == "--file")
      src.file = v;
    else if (a == "--kernel")
      src.name = v;
    else if (a == "--comp")
      src.glsl_path = v;
    else if (a == "--wgsl")
      src.wgsl_path = v;
    else if (a == "--abi-of")
      src.abi_of = v;
    else if (a == "--include-dir")
      src.include_dirs.push_back(v);
    else if (a == "--define")
      src.defines.push_back(v);
    else if (a == "--out")
      out = v;
    else if (a == "--depfile")
      depfile = v;
    else if (a == "--spvasm")
      spvasm = v;
    else if (a == "--header")
      header = v;
    else if (a == "--source-root")
      source_root = v;
    else
      return usage();
  }
  if (src.file.empty() || src.name.empty() || src.glsl_path.empty() || src.wgsl_path.empty() ||
      out.empty())
    return usage();

  try {
    TranslatedKernel t = translate(src);
    const auto& r = t.reflection;
    const std::string sym = "kernel_" + ident(src.file) + "__" + ident(src.name);
    const std::string wgsl_name = fs::path(src.wgsl_path).filename().string();
    std::ifstream wf(src.wgsl_path, std::ios::binary);
    std::ostringstream wgsl_text;
    wgsl_text << wf.rdbuf();

    std::string bindings, fields;
    for (size_t bi = 0; bi < t.abi.bindings.size(); ++bi) {
      const auto& b = t.abi.bindings[bi];
      std::string fields_ref = "{}";
      if (!b.fields.empty()) {
        fields += "constexpr KernelField kFields" + std::to_string(bi) + "[] = {\n";
        for (const auto& f : b.fields)
          fields += "    {.name = " + c_string(f.name) + ", .wgsl_type = " + c_string(f.wgsl_type) +
                    ", .offset = " + std::to_string(f.offset) +
                    ", .size = " + std::to_string(f.size) + "},\n";
        fields += "};\n";
        fields_ref = "kFields" + std::to_string(bi);
      }
      bindings += "    {.group = " + std::to_string(b.group) +
                  ", .binding = " + std::to_string(b.binding) + ", .type = " + type_enum(b.type) +
                  ", .name = " + c_string(b.name) + ", .wgsl_type = " + c_string(b.wgsl_type) +
                  ", .glsl_name = " + c_string(b.glsl_name) +
                  ", .min_binding_size = " + std::to_string(b.min_binding_size) +
                  ", .array_stride = " + std::to_string(b.array_stride) +
                  ", .statically_used = " + (b.statically_used ? "true" : "false") +
                  ", .fields = " + fields_ref + "},\n";
    }

    std::string cpp;
    cpp += "// Generated by wgslvk-translate from " + shown_path(src.glsl_path, source_root) +
           " and " + shown_path(src.wgsl_path, source_root) + ". Do not edit.\n";
    cpp += "#include \"wgslvk/kernel.hpp\"\n\nnamespace wgslvk::generated {\n";
    // The WGSL file text is shared by every kernel of that file: one inline definition.
    cpp += "inline constexpr char wgsl_" + ident(src.file) + "__" + ident(wgsl_name) +
           "[] =\n    " + c_string(wgsl_text.str()) + ";\n\nnamespace {\n";
    cpp += "constexpr uint32_t kSpirv[] = {" + words(t.module.spirv) + "\n};\n";
    cpp += "constexpr uint32_t kSpirvOpt[] = {" + words(t.module.spirv_opt) + "\n};\n";
    cpp += "constexpr char kGlsl[] =\n    " + c_string(t.module.expanded_source) + ";\n";
    cpp += fields;
    if (!t.abi.bindings.empty())
      cpp += "constexpr KernelBinding kBindings[] = {\n" + bindings + "};\n";
    cpp += "}  // namespace\n\n";
    cpp += "extern const KernelInfo " + sym + ";\n";
    cpp += "const KernelInfo " + sym + "{\n";
    cpp += "    .file = " + c_string(src.file) + ",\n";
    cpp += "    .name = " + c_string(src.name) + ",\n";
    cpp += "    .wgsl_file = " + c_string(wgsl_name) + ",\n";
    cpp += "    .workgroup_size = {" + std::to_string(r.workgroup_size[0]) + ", " +
           std::to_string(r.workgroup_size[1]) + ", " + std::to_string(r.workgroup_size[2]) +
           "},\n";
    cpp += "    .workgroup_storage_bytes = " + std::to_string(r.workgroup_storage_bytes) + ",\n";
    cpp += std::string("    .needs_shader_f16 = ") + (t.abi.needs_shader_f16 ? "true" : "false") +
           ",\n";
    cpp += std::string("    .needs_float_atomics = ") + (r.needs_float_atomics ? "true" : "false") +
           ",\n";
    cpp += std::string("    .in_wgsl = ") + (src.abi_of.empty() ? "true" : "false") + ",\n";
    cpp += "    .abi_of = " + c_string(src.abi_of) + ",\n";
    cpp += t.abi.bindings.empty() ? "    .bindings = {},\n" : "    .bindings = kBindings,\n";
    cpp +=
        "    .spirv = kSpirv,\n    .spirv_opt = kSpirvOpt,\n    .glsl_source = {kGlsl, sizeof "
        "kGlsl - 1},\n";
    cpp += "    .wgsl_source = {wgsl_" + ident(src.file) + "__" + ident(wgsl_name) +
           ", sizeof wgsl_" + ident(src.file) + "__" + ident(wgsl_name) +
           " - 1},\n};\n\n}  // namespace wgslvk::generated\n";
    write_if_changed(out, cpp);

    if (!header.empty()) {
      // The same record the .cpp above embeds, as a KernelInfo over this run's strings.
      std::vector<std::vector<wgslvk::KernelField>> kfields;
      std::vector<wgslvk::KernelBinding> kbindings;
      for (const auto& b : t.abi.bindings) {
        auto& fs_ = kfields.emplace_back();
        for (const auto& f : b.fields) fs_.push_back({f.name, f.wgsl_type, f.offset, f.size});
      }
      for (size_t bi = 0; bi < t.abi.bindings.size(); ++bi) {
        const auto& b = t.abi.bindings[bi];
        kbindings.push_back({.group = b.group,
                             .binding = b.binding,
                             .type = b.type,
                             .name = b.name,
                             .wgsl_type = b.wgsl_type,
                             .glsl_name = b.glsl_name,
                             .min_binding_size = b.min_binding_size,
                             .array_stride = b.array_stride,
                             .statically_used = b.statically_used,
                             .fields = kfields[bi]});
      }
      wgslvk::KernelInfo info;
      info.file = src.file;
      info.name = src.name;
      info.wgsl_file = wgsl_name;
      info.workgroup_size = r.workgroup_size;
      info.bindings = kbindings;
      write_if_changed(header, kernel_header(info));
    }
    if (!spvasm.empty()) write_if_changed(spvasm, emit(t.module.spirv, EmitFormat::Spvasm));
    if (!depfile.empty()) {
      std::string d = depfile_path(out) + ":";
      for (auto& dep : t.module.dependencies)
        d += " \\\n  " + depfile_path(fs::absolute(dep).string());
      d += " \\\n  " + depfile_path(fs::absolute(src.wgsl_path).string()) + "\n";
      write_if_changed(depfile, d);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgslvk-translate: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
