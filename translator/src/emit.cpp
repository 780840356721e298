// Rendering a module for reading: SPIRV-Tools' disassembler and SPIRV-Cross's back ends.
#include <spirv-tools/libspirv.hpp>
#include <spirv_cross/spirv_glsl.hpp>
#include <spirv_cross/spirv_hlsl.hpp>
#include <spirv_cross/spirv_msl.hpp>
#include <spirv_cross/spirv_reflect.hpp>

#include <algorithm>

#include "coopmat.hpp"
#include "wgslvk/translator.hpp"

namespace wgslvk::translator {

std::optional<EmitFormat> parse_emit_format(std::string_view s) {
  if (s == "spvasm") return EmitFormat::Spvasm;
  if (s == "glsl") return EmitFormat::Glsl;
  if (s == "msl") return EmitFormat::Msl;
  if (s == "hlsl") return EmitFormat::Hlsl;
  if (s == "reflect-json") return EmitFormat::ReflectJson;
  return std::nullopt;
}

namespace {
bool uses_16bit(const spirv_cross::Compiler& c) {
  for (auto cap : c.get_declared_capabilities())
    if (cap == spv::CapabilityFloat16 || cap == spv::CapabilityInt16 ||
        cap == spv::CapabilityStorageBuffer16BitAccess ||
        cap == spv::CapabilityUniformAndStorageBuffer16BitAccess)
      return true;
  return false;
}
}  // namespace

std::string emit(std::span<const uint32_t> spirv, EmitFormat format) {
  std::vector<uint32_t> words(spirv.begin(), spirv.end());
  const bool coopmat = uses_cooperative_matrix_khr(spirv);
  // SPIRV-Cross 2021 cannot parse cooperative matrices: the source languages say so in a comment
  // (the snapshots keep a file per kernel and format); reflect-json reflects the copy without the
  // matrix instructions that reflect() reads (its bindings, layouts and workgroup are the module's).
  if (coopmat && format == EmitFormat::ReflectJson) {
    try {
      spirv_cross::CompilerReflection c(strip_cooperative_matrix_for_reflection(spirv));
      return c.compile();
    } catch (const spirv_cross::CompilerError& e) {
      throw Error(std::string("SPIRV-Cross: ") + e.what());
    }
  }
  if (coopmat && format != EmitFormat::Spvasm)
    return "// wgslvk: not available: the module uses SPV_KHR_cooperative_matrix, which Debian "
           "12's SPIRV-Cross\n// (2021) cannot read; `--emit spvasm` shows it.\n";
  // Debian 12's SPIRV-Tools (2023.1) predates the KHR opcodes: show them as their NV forms.
  if (coopmat) words = cooperative_matrix_khr_to_nv_for_display(spirv);
  try {
    switch (format) {
      case EmitFormat::Spvasm: {
        spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
        std::string text, err;
        tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&,
                                     const char* m) { err += m; });
        if (!tools.Disassemble(words, &text,
                               SPV_BINARY_TO_TEXT_OPTION_INDENT |
                                   SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                                   SPV_BINARY_TO_TEXT_OPTION_COMMENT))
          throw Error("spirv-dis failed: " + err);
        if (coopmat)
          text =
              "; wgslvk: SPV_KHR_cooperative_matrix shown with the NV opcodes (this SPIRV-Tools\n"
              "; cannot disassemble the KHR ones): OpTypeCooperativeMatrixNV is the KHR type\n"
              "; without its Use operand, and the KHR MemoryLayout is shown as ColumnMajor.\n" +
              text;
        return text;
      }
      case EmitFormat::Glsl: {
        spirv_cross::CompilerGLSL c(std::move(words));
        auto o = c.get_common_options();
        o.version = 450;
        o.vulkan_semantics = true;
        c.set_common_options(o);
        return c.compile();
      }
      case EmitFormat::Msl: {
        spirv_cross::CompilerMSL c(std::move(words));
        auto o = c.get_msl_options();
        o.set_msl_version(2, 1);  // 2.1: what SPIRV-Cross needs for 16-bit storage and barriers
        o.argument_buffers = false;
        c.set_msl_options(o);
        return c.compile();
      }
      case EmitFormat::Hlsl: {
        spirv_cross::CompilerHLSL c(std::move(words));
        for (auto cap : c.get_declared_capabilities())
          if (cap == spv::CapabilityAtomicFloat32AddEXT)
            throw Error(
                "hlsl: the module adds floats atomically (OpAtomicFAddEXT), which "
                "SPIRV-Cross cannot express in HLSL (no float InterlockedAdd on a "
                "byte-address buffer); use --emit msl, glsl or spvasm");
        auto o = c.get_hlsl_options();
        // 16-bit types need SM 6.2 (native 16-bit types); everything else stays SM 5.1 so the
        // output compiles with the legacy fxc too.
        o.shader_model = uses_16bit(c) ? 62 : 51;
        if (o.shader_model >= 62) o.enable_16bit_types = true;
        c.set_hlsl_options(o);
        // D3D has no num_workgroups built-in: SPIRV-Cross reads it from a cbuffer the host
        // fills. Put that cbuffer at the first free binding of set 0.
        if (spirv_cross::VariableID id = c.remap_num_workgroups_builtin()) {
          uint32_t next = 0;
          auto res = c.get_shader_resources();
          for (auto* list : {&res.uniform_buffers, &res.storage_buffers})
            for (auto& r : *list)
              if (c.get_decoration(r.id, spv::DecorationDescriptorSet) == 0)
                next = std::max(next, c.get_decoration(r.id, spv::DecorationBinding) + 1);
          c.set_decoration(id, spv::DecorationDescriptorSet, 0);
          c.set_decoration(id, spv::DecorationBinding, next);
        }
        return c.compile();
      }
      case EmitFormat::ReflectJson: {
        spirv_cross::CompilerReflection c(std::move(words));
        return c.compile();
      }
    }
  } catch (const spirv_cross::CompilerError& e) {
    throw Error(std::string("SPIRV-Cross: ") + e.what());
  }
  return {};
}

}  // namespace wgslvk::translator
