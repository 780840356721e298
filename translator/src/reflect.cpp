// Reflection with SPIRV-Cross: entry point, workgroup size and memory, features, and every
// buffer binding with its explicit layout as a TypeDesc (so it compares against the WGSL side).
#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>

#include "coopmat.hpp"
#include "layout.hpp"
#include "wgslvk/translator.hpp"

namespace wgslvk::translator {
namespace {

// Derived only to reach `ir` for the Workgroup variables, which get_shader_resources omits.
class Reflector : public spirv_cross::Compiler {
 public:
  using spirv_cross::Compiler::Compiler;

  uint32_t workgroup_storage_bytes() {
    uint64_t total = 0;
    ir.for_each_typed_id<spirv_cross::SPIRVariable>([&](uint32_t, spirv_cross::SPIRVariable& v) {
      if (v.storage != spv::StorageClassWorkgroup) return;
      total += round_up(16, natural(get<spirv_cross::SPIRType>(v.basetype)).first);
    });
    return uint32_t(total);
  }

  // Layout of shared variables, which have no Offset/ArrayStride: WGSL's rules (vec3 aligns
  // like vec4, arrays stride roundUp(align, size), structs round up to their alignment).
  std::pair<uint64_t, uint64_t> natural(const spirv_cross::SPIRType& t) {
    using BT = spirv_cross::SPIRType::BaseType;
    uint64_t size = 0, align = 1;
    if (t.basetype == BT::Struct) {
      for (uint32_t m : t.member_types) {
        auto [s, a] = natural(get<spirv_cross::SPIRType>(m));
        size = round_up(a, size) + s;
        align = std::max(align, a);
      }
      size = round_up(align, size);
    } else {
      uint64_t w = std::max<uint32_t>(t.width, 8) / 8;
      uint64_t vec_align = (t.vecsize == 3 ? 4 : t.vecsize) * w;
      if (t.columns > 1) {
        align = vec_align;
        size = t.columns * round_up(vec_align, t.vecsize * w);
      } else {
        align = vec_align;
        size = t.vecsize * w;
      }
    }
    for (size_t i = 0; i < t.array.size(); ++i) {
      uint64_t n = t.array_size_literal[i] ? t.array[i] : evaluate_constant_u32(t.array[i]);
      size = round_up(align, size) * n;
    }
    return {size, align};
  }

  TypeDesc desc(uint32_t type_id, uint32_t array_stride) {
    const auto& t = get_type(type_id);
    using BT = spirv_cross::SPIRType::BaseType;
    TypeDesc d;
    if (!t.array.empty()) {
      d.kind = TypeDesc::Kind::Array;
      bool literal = t.array_size_literal.back();
      uint32_t n = literal ? t.array.back() : evaluate_constant_u32(t.array.back());
      d.runtime_array = literal && n == 0;
      d.array_len = n;
      d.stride = array_stride;
      uint32_t inner_stride = has_decoration(t.parent_type, spv::DecorationArrayStride)
                                  ? get_decoration(t.parent_type, spv::DecorationArrayStride)
                                  : 0;
      d.element.push_back(desc(t.parent_type, inner_stride));
      d.size = uint64_t(d.runtime_array ? 1 : n) * array_stride;
      return d;
    }
    if (t.basetype == BT::Struct) {
      d.kind = TypeDesc::Kind::Struct;
      d.name = get_name(type_id);
      if (d.name.empty()) d.name = get_name(t.self);
      for (uint32_t i = 0; i < t.member_types.size(); ++i) {
        TypeDesc::Member m;
        m.name = get_member_name(t.self, i);
        m.offset = type_struct_member_offset(t, i);
        const auto& mt = get_type(t.member_types[i]);
        uint32_t stride = mt.array.empty() ? 0 : type_struct_member_array_stride(t, i);
        m.type = desc(t.member_types[i], stride);
        d.members.push_back(std::move(m));
      }
      d.size = get_declared_struct_size_runtime_array(t, 1);
      return d;
    }
    switch (t.basetype) {
      case BT::Float:
        d.scalar = TypeDesc::Scalar::F32;
        break;
      case BT::Half:
        d.scalar = TypeDesc::Scalar::F16;
        break;
      case BT::UInt:
        d.scalar = TypeDesc::Scalar::U32;
        break;
      case BT::Int:
        d.scalar = TypeDesc::Scalar::I32;
        break;
      case BT::Boolean:
        d.scalar = TypeDesc::Scalar::Bool;
        break;
      default:
        d.scalar = TypeDesc::Scalar::Other;
        break;
    }
    uint32_t w = t.width / 8;
    d.vec = t.vecsize;
    d.cols = t.columns;
    d.kind = t.columns > 1   ? TypeDesc::Kind::Matrix
             : t.vecsize > 1 ? TypeDesc::Kind::Vector
                             : TypeDesc::Kind::Scalar;
    d.size = uint64_t(t.vecsize) * w * t.columns;
    if (d.kind == TypeDesc::Kind::Matrix)
      d.size = uint64_t(t.columns) * round_up((t.vecsize == 3 ? 4 : t.vecsize) * w, t.vecsize * w);
    if (d.scalar == TypeDesc::Scalar::Other) d.name = "<non-WGSL type>";
    return d;
  }
};

}  // namespace

Reflection reflect(std::span<const uint32_t> spirv_in) {
  // SPIRV-Cross 2021 cannot parse cooperative matrix types: reflect a copy without them (the
  // bindings, their layouts, static use and the workgroup keep every fact compared here).
  std::vector<uint32_t> stripped;
  std::span<const uint32_t> spirv = spirv_in;
  Reflection r;
  if (uses_cooperative_matrix_nv(spirv_in) || uses_cooperative_matrix_khr(spirv_in)) {
    stripped = strip_cooperative_matrix_for_reflection(spirv_in);
    spirv = stripped;
    r.subgroup_matrices = cooperative_matrix_types_wgsl(spirv_in);
  }
  Reflector c(spirv.data(), spirv.size());
  auto entries = c.get_entry_points_and_stages();
  if (entries.size() != 1 || entries[0].execution_model != spv::ExecutionModelGLCompute)
    throw Error("expected exactly one GLCompute entry point in the module");
  r.entry_point = entries[0].name;
  c.set_entry_point(r.entry_point, spv::ExecutionModelGLCompute);
  for (uint32_t i = 0; i < 3; ++i)
    r.workgroup_size[i] = c.get_execution_mode_argument(spv::ExecutionModeLocalSize, i);
  r.workgroup_storage_bytes = c.workgroup_storage_bytes();

  for (auto cap : c.get_declared_capabilities()) {
    switch (cap) {
      case spv::CapabilityFloat16:
      case spv::CapabilityStorageBuffer16BitAccess:
      case spv::CapabilityUniformAndStorageBuffer16BitAccess:
      case spv::CapabilityStorageInputOutput16:
        r.needs_shader_f16 = true;
        break;
      case spv::CapabilityAtomicFloat32AddEXT:
        r.needs_float_atomics = true;
        break;
      default:
        break;
    }
  }

  auto active = c.get_active_interface_variables();
  auto res = c.get_shader_resources();
  auto unsupported = [&](const auto& list, const char* what) {
    if (!list.empty())
      throw Error("the module declares " + std::string(what) + " (`" + list[0].name +
                  "`), which the WebGPU buffer ABI of a WGSL compute kernel cannot have");
  };
  unsupported(res.push_constant_buffers, "a push-constant block");
  unsupported(res.storage_images, "a storage image");
  unsupported(res.sampled_images, "a sampled image");
  unsupported(res.separate_images, "a texture");
  unsupported(res.separate_samplers, "a sampler");

  auto add = [&](const spirv_cross::Resource& rs, bool uniform) {
    ReflectedBinding b;
    b.group = c.get_decoration(rs.id, spv::DecorationDescriptorSet);
    b.binding = c.get_decoration(rs.id, spv::DecorationBinding);
    b.glsl_name = c.get_name(rs.id);
    b.block_name = c.get_name(rs.base_type_id);
    if (b.glsl_name.empty()) b.glsl_name = b.block_name;
    if (uniform) {
      b.type = BindingType::Uniform;
    } else {
      b.type = c.get_buffer_block_flags(rs.id).get(spv::DecorationNonWritable)
                   ? BindingType::ReadOnlyStorage
                   : BindingType::Storage;
    }
    b.block = c.desc(rs.base_type_id, 0);
    const auto& bt = c.get_type(rs.base_type_id);
    if (!c.get_type(rs.type_id).array.empty())
      throw Error("binding `" + b.glsl_name + "` is an array of blocks; WGSL has none");
    b.min_binding_size = c.get_declared_struct_size_runtime_array(bt, 1);
    if (!b.block.members.empty() && b.block.members.back().type.runtime_array)
      b.array_stride = b.block.members.back().type.stride;
    b.statically_used = active.count(rs.id) != 0;
    r.bindings.push_back(std::move(b));
  };
  for (auto& u : res.uniform_buffers) add(u, true);
  for (auto& s : res.storage_buffers) add(s, false);
  std::sort(r.bindings.begin(), r.bindings.end(), [](auto& a, auto& b) {
    return std::tie(a.group, a.binding) < std::tie(b.group, b.binding);
  });
  for (size_t i = 1; i < r.bindings.size(); ++i)
    if (r.bindings[i].group == r.bindings[i - 1].group &&
        r.bindings[i].binding == r.bindings[i - 1].binding)
      throw Error("set " + std::to_string(r.bindings[i].group) + " binding " +
                  std::to_string(r.bindings[i].binding) + " is declared twice (`" +
                  r.bindings[i - 1].glsl_name + "` and `" + r.bindings[i].glsl_name + "`)");
  return r;
}

}  // namespace wgslvk::translator
