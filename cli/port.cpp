// wgslvk port: the GLSL transliteration wgslvk's WGSL front end writes for an entry point, for
// review (or to start a hand port from), and a case.json skeleton for its bindings.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "ports_option.hpp"
#include "wgslvk/output_file.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::cli {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const std::string kUsage = R"(usage: wgslvk port X.wgsl [--entry E] [-o OUT] [--constant NAME=V]...
                   [--case-skeleton DIR] [--check]

Translates a WGSL compute entry point with wgslvk's WGSL front end (translator/wgsl/README.md) and
prints the GLSL 450 it writes: the transliteration `--wgsl X.wgsl` runs, one WGSL statement to a
line where it can, with comments where WGSL's semantics needed extra code. The GLSL is then
compiled and checked exactly like a hand port (glslang, spirv-val, spirv-opt, reflection, the ABI
check against the WGSL's declarations) unless --no-check.

  --entry E        the entry point (default: the only @compute one; several: name one, or
                   --all with -o DIR)
  --all            every @compute entry point (needs -o DIR: one DIR/<entry>.comp each)
  -o OUT           write the GLSL to OUT (a file; with --all a folder) instead of stdout
  --constant NAME=V  a pipeline-overridable constant (WGSL `override`, by name or @id);
                   repeatable
  --case-skeleton DIR  also write DIR/case.json: a wgslvk-case/1 case for the entry point with
                   every binding it uses, each uniform's fields by name with their offsets, and
                   FILL placeholders (element counts, values, expected arrays) that fail to load
                   until you replace them (golden/README.md documents the format)
  --no-check       print the GLSL without compiling it

Exit status: 0 done; 1 the WGSL is invalid or the front end cannot translate it (diagnostics as
file:line:col: error: message [rule]), or the GLSL fails a check; 2 usage.
)";

int run_port(const std::vector<std::string>& args);
const Command kPort{"port", "translate a WGSL entry point to its GLSL transliteration", kUsage,
                    run_port};

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw std::invalid_argument("'" + path + "' is not a file");
  if (fs::file_size(path, ec) > (16u << 20))
    throw std::invalid_argument("'" + path + "' is larger than 16 MiB");
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const char* dtype_of(const translator::TypeDesc& t) {
  using S = translator::TypeDesc::Scalar;
  switch (t.scalar) {
    case S::F32:
      return "f32";
    case S::F16:
      return "f16";
    case S::I32:
      return "i32";
    default:
      return "u32";
  }
}

// The innermost scalar type's element count per array element (vec4<f32> -> 4, mat2x2 -> 4);
// 0 for a struct (then the buffer is words of u32).
uint64_t scalars_per(const translator::TypeDesc& t) {
  using K = translator::TypeDesc::Kind;
  if (t.kind == K::Scalar) return 1;
  if (t.kind == K::Vector) return t.vec;
  if (t.kind == K::Matrix) return uint64_t(t.cols) * (t.vec == 3 ? 4 : t.vec);
  return 0;
}

// A uniform's leaf fields in offset order (nested structs flattened with dots).
struct Field {
  std::string name;
  uint64_t offset;
  const translator::TypeDesc* type;
};
void leaf_fields(const translator::TypeDesc& t, const std::string& prefix, uint64_t base,
                 std::vector<Field>& out) {
  for (const auto& m : t.members) {
    if (m.type.kind == translator::TypeDesc::Kind::Struct)
      leaf_fields(m.type, prefix + m.name + ".", base + m.offset, out);
    else
      out.push_back({prefix + m.name, base + m.offset, &m.type});
  }
}

// Inline-value segments for a uniform: one segment of the field's own type per field, a FILL
// string per scalar (vectors and matrices element by element, arrays as words), zero words for
// the padding between fields and at the end, so every byte lands at WGSL's offset.
ojson uniform_segments(const std::vector<Field>& fields, uint64_t size) {
  ojson segs = ojson::array();
  uint64_t at = 0;
  auto pad = [&](uint64_t to) {
    if (to > at) segs.push_back({{"u32", std::vector<uint32_t>((to - at) / 4, 0u)}});
    at = std::max(at, to);
  };
  for (const auto& f : fields) {
    pad(f.offset);
    const uint64_t per = scalars_per(*f.type);
    const uint64_t scalar_bytes = f.type->scalar == translator::TypeDesc::Scalar::F16 ? 2 : 4;
    ojson fill = ojson::array();
    if (per) {
      for (uint64_t i = 0; i < per; ++i)
        fill.push_back("FILL " + f.name + (per > 1 ? "[" + std::to_string(i) + "]" : "") + " @" +
                       std::to_string(f.offset + i * scalar_bytes));
      segs.push_back({{dtype_of(*f.type), fill}});
    } else {
      for (uint64_t w = 0; w < f.type->size / 4; ++w)
        fill.push_back("FILL " + f.name + " word " + std::to_string(w) + " @" +
                       std::to_string(f.offset + 4 * w));
      segs.push_back({{"u32", fill}});
    }
    at = f.offset + per * scalar_bytes + (per ? 0 : f.type->size);
  }
  pad(size);
  return segs;
}

ojson skeleton(const std::string& kernel, const translator::TranslatedKernel& t) {
  ojson c;
  c["format"] = "wgslvk-case/1";
  c["kernel"] = kernel;
  c["case"] = "FILL_case_name";
  std::string desc = "Skeleton from `wgslvk port --case-skeleton`: replace every FILL.";
  ojson buffers = ojson::object(), bindings = ojson::array(), checks = ojson::array();
  for (const auto& b : t.abi.bindings) {
    if (!b.statically_used) continue;
    const translator::WgslBinding* w = nullptr;
    for (const auto& x : t.wgsl.bindings)
      if (x.group == b.group && x.binding == b.binding) w = &x;
    if (!w) continue;
    ojson bind = {{"group", b.group}, {"binding", b.binding}};
    if (w->uniform) {
      std::vector<Field> fields;
      if (w->type.kind == translator::TypeDesc::Kind::Struct)
        leaf_fields(w->type, w->name + ".", 0, fields);
      else
        fields.push_back({w->name, 0, &w->type});
      desc += " Uniform @group(" + std::to_string(b.group) + ") @binding(" +
              std::to_string(b.binding) + ") " + w->name + " (" + std::to_string(w->type.size) +
              " bytes, WGSL's uniform layout): ";
      for (size_t i = 0; i < fields.size(); ++i)
        desc += (i ? ", " : "") + fields[i].name + ": " + fields[i].type->wgsl() + " @" +
                std::to_string(fields[i].offset);
      desc += ".";
      bind["values"] = uniform_segments(fields, w->type.size);
    } else {
      const translator::TypeDesc& el =
          w->type.kind == translator::TypeDesc::Kind::Array && !w->type.element.empty()
              ? w->type.element[0]
              : w->type;
      const uint64_t per = scalars_per(el);
      const char* dtype = per ? dtype_of(el) : "u32";
      std::string count =
          "FILL: number of " + std::string(dtype) + " elements (" + w->type.wgsl() +
          (per > 1 ? ", " + std::to_string(per) + " per element" : "") +
          (per == 0 ? ", " + std::to_string(el.size / 4) + " words per element" : "") + ")";
      ojson buf;
      if (w->read_write) {
        buf = {{"dtype", dtype}, {"count", count}, {"fill", "poison"}};
        checks.push_back(
            {{"buffer", w->name},
             {"expected", "FILL " + w->name + ".expected.npy"},
             {"compare",
              std::string(dtype) == "f32" || std::string(dtype) == "f16" ? "ulp" : "exact"},
             {"reason", "FILL: why this comparison and bound"}});
        if (checks.back()["compare"] == "ulp") checks.back()["ulp"] = "FILL bound in ULP";
      } else {
        buf = {{"file", "FILL " + w->name + ".npy"}};
      }
      buffers[w->name] = buf;
      bind["buffer"] = w->name;
    }
    bindings.push_back(bind);
  }
  c["description"] = desc;
  c["buffers"] = buffers;
  ojson dispatch = {{"kernel", kernel}, {"bindings", bindings}};
  dispatch["workgroups"] = {"FILL x", 1, 1};
  c["dispatches"] = ojson::array({dispatch});
  c["checks"] = checks;
  return c;
}

int run_port(const std::vector<std::string>& args) {
  if (wants_help(args, kPort)) return 0;
  std::string in, out, skeleton_dir;
  std::vector<std::string> entries;
  bool all = false, check = true;
  std::map<std::string, double> constants;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--entry")
      entries.push_back(value());
    else if (a == "--all")
      all = true;
    else if (a == "-o")
      out = value();
    else if (a == "--case-skeleton")
      skeleton_dir = value();
    else if (a == "--no-check")
      check = false;
    else if (a == "--constant") {
      auto [name, v] = parse_constant(value());
      constants[name] = v;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "wgslvk port: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    } else if (in.empty())
      in = a;
    else {
      std::fprintf(stderr, "wgslvk port: one WGSL file at a time ('%s', '%s')\n", in.c_str(),
                   a.c_str());
      return 2;
    }
  }
  if (in.empty()) {
    std::fprintf(stderr, "%s", kUsage.c_str());
    return 2;
  }
  if (all && out.empty()) {
    std::fprintf(stderr, "wgslvk port: --all needs -o DIR\n");
    return 2;
  }
  std::string text;
  try {
    text = read_file(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgslvk port: %s\n", e.what());
    return 2;
  }
  try {
    // The front end's warnings and infos (an unknown diagnostic rule, a uniformity violation a
    // `diagnostic(warning | info, ...)` filter lowers: what getCompilationInfo gives in a browser)
    // go to stderr, before any error, whatever the module's verdict.
    std::vector<wgsl::Diagnostic> warnings;
    std::vector<wgsl::EntryPointInfo> eps;
    auto print_warnings = [&] {
      for (const auto& w : warnings) std::fprintf(stderr, "%s\n", w.str().c_str());
    };
    try {
      eps = wgsl::check_module(text, in, &warnings);
    } catch (const wgsl::Error&) {
      print_warnings();
      throw;
    }
    print_warnings();
    if (entries.empty()) {
      std::vector<std::string> computes;
      for (const auto& ep : eps)
        if (ep.stage == "compute") computes.push_back(ep.name);
      if (computes.empty()) {
        std::fprintf(stderr, "%s: error: the module has no @compute entry point\n", in.c_str());
        return 1;
      }
      if (computes.size() > 1 && !all) {
        std::string list;
        for (const auto& c : computes) list += " " + c;
        std::fprintf(stderr,
                     "wgslvk port: %s has %zu compute entry points:%s; pick one with --entry E, "
                     "or all with --all -o DIR\n",
                     in.c_str(), computes.size(), list.c_str());
        return 2;
      }
      entries = computes;
    }
    if (!skeleton_dir.empty() && entries.size() != 1) {
      std::fprintf(stderr, "wgslvk port: --case-skeleton is for one entry point (--entry E)\n");
      return 2;
    }
    const std::string stem = fs::path(in).stem().string();
    for (const auto& e : entries) {
      wgsl::TranslateOptions o;
      o.file_name = in;
      o.entry_point = e;
      o.constants = constants;
      wgsl::TranslatedEntry t = wgsl::translate_to_glsl(text, o);
      translator::TranslatedKernel checked;
      if (check || !skeleton_dir.empty()) {
        translator::KernelSource src;
        src.file = stem;
        src.name = e;
        src.glsl = t.glsl;
        src.glsl_path = in;
        src.wgsl = text;
        src.wgsl_path = in;
        if (!constants.empty()) src.workgroup_size = t.workgroup_size;
        checked = translator::translate(src);
      }
      if (out.empty()) {
        std::fwrite(t.glsl.data(), 1, t.glsl.size(), stdout);
      } else {
        fs::path p = all ? fs::path(out) / (e + ".comp") : fs::path(out);
        if (all) fs::create_directories(out);
        write_output_file_atomic(p.string(), t.glsl);
        std::fprintf(stderr, "wrote %s\n", p.string().c_str());
      }
      if (!skeleton_dir.empty()) {
        fs::create_directories(skeleton_dir);
        write_output_file_atomic((fs::path(skeleton_dir) / "case.json").string(),
                                 skeleton(stem + "/" + e, checked).dump(2) + "\n");
        std::fprintf(stderr, "wrote %s/case.json (replace every FILL)\n", skeleton_dir.c_str());
      }
    }
  } catch (const wgsl::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const translator::Error& e) {
    std::fprintf(stderr, "wgslvk port: the translated GLSL failed a check: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace wgslvk::cli
