// The ABI check: a GLSL port must present exactly the binding interface its WGSL entry point
// presents to WebGPU, or the runtime's WebGPU validation (R7, R9, R10) would be checking the wrong
// thing. Bindings are matched by (group, binding).
#include <algorithm>
#include <map>
#include <regex>

#include "layout.hpp"
#include "wgslvk/translator.hpp"

namespace wgslvk::translator {
namespace {

std::string at(uint32_t g, uint32_t b) {
  return "@group(" + std::to_string(g) + ") @binding(" + std::to_string(b) + ")";
}

std::string wgsl_decl(const WgslBinding& w) {
  if (w.uniform) return "var<uniform>";
  return w.read_write ? "var<storage, read_write>" : "var<storage, read>";
}

std::string glsl_decl(const ReflectedBinding& s) {
  switch (s.type) {
    case BindingType::Uniform:
      return "a uniform block";
    case BindingType::Storage:
      return "it writable (storage)";
    case BindingType::ReadOnlyStorage:
      return "it readonly (read-only-storage)";
  }
  return "";
}

// The WGSL front end's lowered buffer layouts (translator/wgsl/src/emit_glsl.cpp, "Buffer
// layouts") as the WGSL types they hold: a struct member named `wgsl_pad<k>` is padding; members
// `wgsl_col0_<m>`, `wgsl_col1_<m>`, ... are matrix m's column vectors; a struct whose members
// are exactly `wgsl_col0`, `wgsl_col1`, ... (an array element) is a matrix.
TypeDesc lowered_view(const TypeDesc& s) {
  if (s.kind != TypeDesc::Kind::Struct) return s;
  auto col = [](uint32_t k) { return "wgsl_col" + std::to_string(k); };
  bool columns = !s.members.empty();
  for (size_t i = 0; i < s.members.size(); ++i)
    columns = columns && s.members[i].name == col(uint32_t(i)) &&
              s.members[i].type.kind == TypeDesc::Kind::Vector &&
              s.members[i].type.vec == s.members[0].type.vec &&
              s.members[i].type.scalar == s.members[0].type.scalar;
  if (columns) {
    TypeDesc m = s.members[0].type;
    m.kind = TypeDesc::Kind::Matrix;
    m.cols = uint32_t(s.members.size());
    return m;
  }
  TypeDesc out = s;
  out.members.clear();
  for (size_t i = 0; i < s.members.size(); ++i) {
    const TypeDesc::Member& m = s.members[i];
    if (m.name.rfind("wgsl_pad", 0) == 0) continue;
    if (m.name.rfind(col(0) + "_", 0) == 0 && m.type.kind == TypeDesc::Kind::Vector) {
      std::string base = m.name.substr(col(0).size() + 1);
      TypeDesc::Member mm = m;
      mm.name = base;
      mm.type.kind = TypeDesc::Kind::Matrix;
      uint32_t c = 1;
      while (i + 1 < s.members.size() && s.members[i + 1].name == col(c) + "_" + base &&
             s.members[i + 1].type.vec == m.type.vec &&
             s.members[i + 1].type.scalar == m.type.scalar) {
        ++c;
        ++i;
      }
      mm.type.cols = c;
      out.members.push_back(std::move(mm));
      continue;
    }
    out.members.push_back(m);
  }
  return out;
}

// First difference between the WGSL type and the GLSL one, with where it is; nullopt if they
// have the same layout and types. `reinterpret` lets scalar types of equal size differ.
std::optional<std::string> diff(const TypeDesc& w, const TypeDesc& s_in, bool reinterpret,
                                const std::string& where) {
  const TypeDesc s = lowered_view(s_in);
  auto here = [&](const std::string& what) {
    return (where.empty() ? std::string() : "at " + where + ": ") + what;
  };
  if (w.kind != s.kind) return here("WGSL " + w.wgsl() + " but GLSL " + s.wgsl());
  switch (w.kind) {
    case TypeDesc::Kind::Scalar:
    case TypeDesc::Kind::Vector:
    case TypeDesc::Kind::Matrix: {
      bool same_scalar = w.scalar == s.scalar;
      if (reinterpret && !same_scalar) {
        uint32_t ws = w.scalar == TypeDesc::Scalar::F16 ? 2 : 4;
        uint32_t ss = s.scalar == TypeDesc::Scalar::F16 ? 2 : 4;
        same_scalar = ws == ss && s.scalar != TypeDesc::Scalar::Other;
      }
      if (!same_scalar || w.vec != s.vec || w.cols != s.cols)
        return here("WGSL " + w.wgsl() + " but GLSL " + s.wgsl());
      return std::nullopt;
    }
    case TypeDesc::Kind::Array: {
      if (w.runtime_array != s.runtime_array || w.array_len != s.array_len)
        return here("WGSL " + w.wgsl() + " but GLSL " + s.wgsl());
      if (auto d = diff(w.element[0], s.element[0], reinterpret, where + "[]")) return d;
      if (w.stride != s.stride)
        return here("WGSL " + w.wgsl() + " has array stride " + std::to_string(w.stride) +
                    " but GLSL " + s.wgsl() + " has " + std::to_string(s.stride));
      return std::nullopt;
    }
    case TypeDesc::Kind::Struct: {
      if (w.members.size() != s.members.size())
        return here("WGSL " + w.wgsl() + " has " + std::to_string(w.members.size()) +
                    " members but GLSL " + s.wgsl() + " has " + std::to_string(s.members.size()));
      for (size_t i = 0; i < w.members.size(); ++i) {
        const auto& wm = w.members[i];
        const auto& sm = s.members[i];
        std::string path = where + "." + wm.name;
        if (wm.offset != sm.offset)
          return "at " + path + ": WGSL offset " + std::to_string(wm.offset) +
                 " but GLSL member `" + sm.name + "` is at offset " + std::to_string(sm.offset);
        if (auto d = diff(wm.type, sm.type, reinterpret, path)) return d;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

struct Allow {
  uint32_t group, binding;
  std::string reason;
};

std::vector<Allow> allow_lines(std::string_view glsl) {
  static const std::regex re(
      R"(//\s*wgslvk-abi-allow\s+@group\((\d+)\)\s*@binding\((\d+)\)\s+element-type\s*:\s*(.*))");
  std::vector<Allow> out;
  std::string text(glsl);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back({uint32_t(std::stoul((*it)[1])), uint32_t(std::stoul((*it)[2])), (*it)[3]});
  return out;
}

}  // namespace

namespace {

// One check_abi run: its inputs, the errors so far (each prefixed with the kernel) and the
// port's `wgslvk-abi-allow` lines with whether a binding used each.
struct AbiChecker {
  const AbiCheckInput& in;
  const Reflection& spv;
  const WgslModule& wgsl;
  const WgslEntryPoint& ep;
  std::vector<std::string> errors;
  std::vector<Allow> allows;
  std::vector<bool> allow_used;

  void error(const std::string& m) { errors.push_back(in.kernel + ": " + m); }

  // Workgroup size, `enable f16;` and the subgroup-matrix types: the module-level facts.
  void check_entry_point() {
    const std::array<uint32_t, 3> wgsl_size = in.workgroup_size.value_or(ep.workgroup_size);
    if (wgsl_size != spv.workgroup_size) {
      auto str = [](const std::array<uint32_t, 3>& a) {
        return std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " + std::to_string(a[2]);
      };
      error("workgroup size: WGSL " + ep.name + " declares @workgroup_size(" + str(wgsl_size) +
            ")" + (in.workgroup_size ? " with its pipeline constants" : "") +
            " but the GLSL port declares local_size (" + str(spv.workgroup_size) + ")");
    }
    if (spv.needs_shader_f16 && !wgsl.enables_f16)
      error("f16: the GLSL port uses 16-bit types but " + wgsl.file +
            " has no `enable f16;` (WebGPU would not require \"shader-f16\" for it)");

    // Subgroup matrices (chromium_experimental_subgroup_matrix): the port's cooperative matrices
    // need the WGSL's enable, and each of their types (use, component, columns, rows) must be one
    // the WGSL file writes: a left operand ported as a right one, a transposed shape or an f32
    // operand for an f16 one is an error.
    if (!spv.subgroup_matrices.empty() && !wgsl.enables_subgroup_matrix)
      error("subgroup matrices: the GLSL port uses cooperative matrices but " + wgsl.file +
            " has no `enable chromium_experimental_subgroup_matrix;`");
    for (const std::string& t : spv.subgroup_matrices)
      if (std::find(wgsl.subgroup_matrices.begin(), wgsl.subgroup_matrices.end(), t) ==
          wgsl.subgroup_matrices.end()) {
        std::string have;
        for (const std::string& w : wgsl.subgroup_matrices) have += (have.empty() ? "" : ", ") + w;
        error("subgroup matrices: the GLSL port's SPIR-V has " + t + " but " + wgsl.file +
              " writes " + (have.empty() ? "no subgroup matrix type" : have));
      }
  }

  // The `wgslvk-abi-allow` lines: only a native variant may have them, each with a reason.
  void read_allows() {
    allows = allow_lines(in.glsl_source);
    if (!allows.empty() && !in.native_variant)
      error(at(allows[0].group, allows[0].binding) +
            ": `wgslvk-abi-allow` is only for native-only variants (ABI_OF); a port of a WGSL "
            "entry point must match it exactly");
    for (auto& a : allows)
      if (a.reason.size() < 8)
        error(at(a.group, a.binding) + ": `wgslvk-abi-allow` needs a reason after the colon");
    allow_used.assign(allows.size(), false);
  }

  // Kind and access mode (R9).
  void check_kind(const ReflectedBinding& s, const WgslBinding& w, const std::string& head) {
    BindingType expected = w.uniform      ? BindingType::Uniform
                           : w.read_write ? BindingType::Storage
                                          : BindingType::ReadOnlyStorage;
    if (w.uniform != (s.type == BindingType::Uniform)) {
      error(head + "WGSL declares " + wgsl_decl(w) + " (" +
            std::string(binding_type_name(expected)) + ") but the GLSL port declares " +
            (s.type == BindingType::Uniform
                 ? std::string("a uniform block")
                 : "a storage buffer (" + std::string(binding_type_name(s.type)) + ")") +
            " `" + s.glsl_name + "`");
    } else if (expected != s.type) {
      error(head + "WGSL declares " + wgsl_decl(w) + " (" +
            std::string(binding_type_name(expected)) + ") but the GLSL port declares " +
            glsl_decl(s));
    }
  }

  // Element type and layout, then (where the types agree) the size: WGSL SizeOf vs the GLSL
  // block, which SPIRV-Cross measures without tail padding.
  void check_type_and_size(const ReflectedBinding& s, const WgslBinding& w,
                           const std::string& head) {
    bool reinterpret = false;
    for (size_t i = 0; i < allows.size(); ++i)
      if (allows[i].group == s.group && allows[i].binding == s.binding && in.native_variant) {
        reinterpret = true;
        allow_used[i] = true;
      }
    const TypeDesc block = lowered_view(s.block);
    const TypeDesc* glsl_type = &block;
    std::optional<std::string> d;
    if (w.type.kind == TypeDesc::Kind::Struct) {
      d = diff(w.type, block, reinterpret, "");
    } else if (block.members.size() != 1) {
      d = "WGSL " + w.type.wgsl() + " but GLSL " + block.wgsl() +
          " (a non-struct WGSL type "
          "is a block with exactly one member)";
    } else {
      glsl_type = &block.members[0].type;
      d = diff(w.type, *glsl_type, reinterpret, "");
    }
    if (d) {
      error(head + "type: WGSL declares " + w.type_text + " but the GLSL port's block `" +
            s.block_name + "` holds " + glsl_type->wgsl() +
            (d->rfind("WGSL " + w.type.wgsl() + " but", 0) == 0 ? "" : " (" + *d + ")") +
            (in.native_variant && !reinterpret && !diff(w.type, *glsl_type, true, "")
                 ? "; a native variant may read the same bytes as another type if its .comp "
                   "says why: `// wgslvk-abi-allow " +
                       at(s.group, s.binding) + " element-type: <reason>`"
                 : ""));
      return;
    }
    if (reinterpret && !diff(w.type, *glsl_type, false, ""))
      error(head +
            "`wgslvk-abi-allow ... element-type` is present but the types already match; "
            "remove it");
    // A struct's SizeOf includes its tail padding; a vec3's is 12 bytes, not its alignment.
    uint64_t glsl_size = w.type.kind == TypeDesc::Kind::Struct
                             ? round_up(std::max<uint32_t>(w.type.align, 1), s.min_binding_size)
                             : s.min_binding_size;
    if (glsl_size != w.type.size)
      error(head + (w.uniform ? "uniform size" : "size") + ": WGSL " + w.type_text + " is " +
            std::to_string(w.type.size) + " bytes but the GLSL block `" + s.block_name + "` is " +
            std::to_string(s.min_binding_size) + " bytes");
  }

  // One binding of the port against the WGSL variable at its (group, binding); nullopt where
  // WGSL declares nothing there (an error).
  std::optional<CheckedBinding> check_binding(const ReflectedBinding& s) {
    std::vector<const WgslBinding*> cands, used;
    for (auto& w : wgsl.bindings)
      if (w.group == s.group && w.binding == s.binding) {
        cands.push_back(&w);
        if (wgsl.references(ep, w.name)) used.push_back(&w);
      }
    const std::string glsl_id = "(GLSL `" + s.glsl_name + "`)";
    if (cands.empty()) {
      error(at(s.group, s.binding) + " " + glsl_id + ": the GLSL port declares set " +
            std::to_string(s.group) + " binding " + std::to_string(s.binding) + " but " +
            wgsl.file + " declares no variable at " + at(s.group, s.binding));
      return std::nullopt;
    }
    const WgslBinding* w = used.empty() ? cands[0] : used[0];
    if (used.size() > 1)
      error(at(s.group, s.binding) + ": WGSL " + ep.name + " uses both `" + used[0]->name +
            "` and `" + used[1]->name + "` at the same binding");
    const std::string head = at(s.group, s.binding) + " " + w->name + ": ";

    CheckedBinding cb;
    cb.group = s.group;
    cb.binding = s.binding;
    cb.type = s.type;
    cb.name = w->name;
    cb.wgsl_type = w->type_text;
    cb.glsl_name = s.glsl_name;
    cb.array_stride = s.array_stride;
    cb.statically_used = s.statically_used;
    // WebGPU's minimum binding size is the WGSL SizeOf (tail padding included), not the
    // GLSL block's unpadded extent; the two are checked to agree below.
    cb.min_binding_size = w->type.size;

    if (used.empty() && cands.size() > 1) {
      // Several WGSL variables share this slot and the entry point uses none: nothing to check
      // the GLSL against, and it must not use the slot either.
      if (s.statically_used)
        error(at(s.group, s.binding) + " " + glsl_id + ": the GLSL port uses it but WGSL " +
              ep.name + " uses none of the variables declared there");
      return cb;
    }
    check_kind(s, *w, head);
    check_type_and_size(s, *w, head);

    // Static use decides the auto layout (R10): both sides must agree.
    const bool wgsl_used = wgsl.references(ep, w->name);
    if (wgsl_used && !s.statically_used)
      error(head + "static use: WGSL " + ep.name + " uses it but the GLSL port never accesses `" +
            s.glsl_name + "` (the auto layouts would differ)");
    if (!wgsl_used && s.statically_used)
      error(head + "static use: the GLSL port accesses `" + s.glsl_name + "` but WGSL " + ep.name +
            " does not use it (the auto layouts would differ)");
    return cb;
  }

  // WGSL bindings the entry point uses that the GLSL lacks (`in_glsl`: the port's slots).
  void check_missing(const std::map<std::pair<uint32_t, uint32_t>, bool>& in_glsl) {
    for (auto& w : wgsl.bindings) {
      if (!wgsl.references(ep, w.name) || in_glsl.count({w.group, w.binding})) continue;
      std::string hint;
      for (auto& s : spv.bindings) {
        bool matched = false;
        for (auto& w2 : wgsl.bindings) matched |= w2.group == s.group && w2.binding == s.binding;
        if (!matched)
          hint = " (the GLSL port has `" + s.glsl_name + "` at set " + std::to_string(s.group) +
                 " binding " + std::to_string(s.binding) +
                 ", which WGSL does not declare: wrong "
                 "binding number?)";
      }
      error(at(w.group, w.binding) + " " + w.name + ": WGSL " + ep.name + " uses " + wgsl_decl(w) +
            " " + w.name + ": " + w.type_text + " but the GLSL port declares nothing at set " +
            std::to_string(w.group) + " binding " + std::to_string(w.binding) + hint);
    }
  }
};

}  // namespace

AbiResult check_abi(const AbiCheckInput& in, const Reflection& spv, const WgslModule& wgsl) {
  const std::string& k = in.kernel;
  const WgslEntryPoint* ep = wgsl.find_entry(in.entry_point);
  if (!ep) {
    std::string names;
    for (auto& e : wgsl.entry_points) names += (names.empty() ? "" : ", ") + e.name;
    throw Error(k + ": " + wgsl.file + " has no @compute entry point `" + in.entry_point + "`" +
                (in.native_variant ? " (named by ABI_OF)" : "") +
                "; its entry points: " + (names.empty() ? "none" : names));
  }
  AbiChecker c{in, spv, wgsl, *ep, {}, {}, {}};
  c.check_entry_point();
  c.read_allows();

  AbiResult result;
  // A native variant has no WGSL module of its own to create, so only its SPIR-V counts.
  result.needs_shader_f16 =
      in.native_variant ? spv.needs_shader_f16 : wgsl.enables_f16 || spv.needs_shader_f16;
  std::map<std::pair<uint32_t, uint32_t>, bool> in_glsl;
  for (const ReflectedBinding& s : spv.bindings) {
    in_glsl[{s.group, s.binding}] = true;
    if (std::optional<CheckedBinding> cb = c.check_binding(s))
      result.bindings.push_back(std::move(*cb));
  }
  for (size_t i = 0; i < c.allows.size(); ++i)
    if (in.native_variant && !c.allow_used[i])
      c.error(at(c.allows[i].group, c.allows[i].binding) +
              ": `wgslvk-abi-allow` names a binding the GLSL port does not declare");
  c.check_missing(in_glsl);

  if (!c.errors.empty()) {
    std::string msg;
    for (auto& e : c.errors) msg += (msg.empty() ? "" : "\n") + e;
    throw Error(msg);
  }
  std::sort(result.bindings.begin(), result.bindings.end(), [](auto& a, auto& b) {
    return std::tie(a.group, a.binding) < std::tie(b.group, b.binding);
  });
  return result;
}

}  // namespace wgslvk::translator
