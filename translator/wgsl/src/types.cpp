// Types: interning, WGSL's layout (AlignOf/SizeOf, the same arithmetic as translator/src/
// layout.hpp and the WGSL reader), predicates, conversion ranks and spelling.
#include <algorithm>

#include "../../src/layout.hpp"
#include "sema_internal.hpp"

namespace wgslvk::wgsl {

using K = Type::Kind;
using translator::round_up;

bool Type::is_abstract() const {
  switch (kind) {
    case K::AbstractInt:
    case K::AbstractFloat:
      return true;
    case K::Vector:
    case K::Matrix:
    case K::Array:
      return elem && elem->is_abstract();
    default:
      return false;
  }
}

const Type* Type::scalar() const {
  if (is_scalar()) return this;
  if ((kind == K::Vector || kind == K::Matrix) && elem) return elem;
  return nullptr;
}

const char* space_name(AddressSpace s) {
  switch (s) {
    case AddressSpace::Function:
      return "function";
    case AddressSpace::Private:
      return "private";
    case AddressSpace::Workgroup:
      return "workgroup";
    case AddressSpace::Uniform:
      return "uniform";
    case AddressSpace::Storage:
      return "storage";
    case AddressSpace::Handle:
      return "handle";
    default:
      return "";
  }
}

const char* access_name(Access a) {
  switch (a) {
    case Access::Read:
      return "read";
    case Access::Write:
      return "write";
    case Access::ReadWrite:
      return "read_write";
    default:
      return "";
  }
}

std::string Type::wgsl() const {
  switch (kind) {
    case K::Void:
      return "void";
    case K::Bool:
      return "bool";
    case K::AbstractInt:
      return "abstract-int";
    case K::AbstractFloat:
      return "abstract-float";
    case K::I32:
      return "i32";
    case K::U32:
      return "u32";
    case K::F32:
      return "f32";
    case K::F16:
      return "f16";
    case K::Vector:
      return "vec" + std::to_string(n) + "<" + elem->wgsl() + ">";
    case K::Matrix:
      return "mat" + std::to_string(n) + "x" + std::to_string(rows) + "<" + elem->wgsl() + ">";
    case K::Array:
      if (count_override)
        return "array<" + elem->wgsl() + ", [override " + std::to_string(count) + "]>";
      if (count == 0) return "array<" + elem->wgsl() + ">";
      return "array<" + elem->wgsl() + ", " + std::to_string(count) + ">";
    case K::Struct:
      return decl ? decl->name : "struct";
    case K::Atomic:
      return "atomic<" + elem->wgsl() + ">";
    case K::Texture: {
      std::string s = texture_type_names()[n];
      if (elem) return s + "<" + elem->wgsl() + ">";
      if (access != Access::None)
        return s + "<" + texel_format_names()[count] + ", " + access_name(access) + ">";
      return s;
    }
    case K::Sampler:
      return n ? "sampler_comparison" : "sampler";
    case K::Pointer:
    case K::Reference: {
      std::string s = kind == K::Pointer ? "ptr<" : "ref<";
      s += space_name(space);
      s += ", " + elem->wgsl();
      if (access != Access::None) s += std::string(", ") + access_name(access);
      return s + ">";
    }
  }
  return "?";
}

const std::vector<std::string>& texture_type_names() {
  static const std::vector<std::string> names = {
      "texture_1d",
      "texture_2d",
      "texture_2d_array",
      "texture_3d",
      "texture_cube",
      "texture_cube_array",
      "texture_multisampled_2d",  // sampled types above, with <T>
      "texture_depth_2d",
      "texture_depth_2d_array",
      "texture_depth_cube",
      "texture_depth_cube_array",
      "texture_depth_multisampled_2d",
      "texture_external",  // no template arguments from depth_2d to here
      "texture_storage_1d",
      "texture_storage_2d",
      "texture_storage_2d_array",
      "texture_storage_3d",  // <format, access>
  };
  return names;
}

const std::vector<std::string>& texel_format_names() {
  // WGSL's storage texel formats; bgra8unorm is accepted in the shader (the API checks whether
  // the device can use it for storage).
  static const std::vector<std::string> names = {
      "rgba8unorm",  "rgba8snorm", "rgba8uint",  "rgba8sint",   "rgba16uint", "rgba16sint",
      "rgba16float", "r32uint",    "r32sint",    "r32float",    "rg32uint",   "rg32sint",
      "rg32float",   "rgba32uint", "rgba32sint", "rgba32float", "bgra8unorm",
  };
  return names;
}

const Type* TypeTable::texture(uint32_t name, const Type* sampled, uint32_t format, Access access) {
  Type t;
  t.kind = K::Texture;
  t.n = name;
  t.elem = sampled;
  t.count = format;
  t.access = access;
  return intern(t);
}

const Type* TypeTable::sampler(bool comparison) {
  Type t;
  t.kind = K::Sampler;
  t.n = comparison ? 1 : 0;
  return intern(t);
}

const Type* TypeTable::intern(const Type& t) {
  Key k{int(t.kind),      t.elem,       t.n,           t.rows, t.count,
        t.count_override, int(t.space), int(t.access), t.decl};
  auto it = map_.find(k);
  if (it != map_.end()) return it->second;
  module_.types.push_back(t);
  const Type* p = &module_.types.back();
  map_.emplace(k, p);
  return p;
}

const Type* TypeTable::scalar(Type::Kind k) {
  Type t;
  t.kind = k;
  switch (k) {
    case K::Void:
      break;
    case K::F16:
      t.align = 2, t.size = 2;
      break;
    case K::AbstractInt:
    case K::AbstractFloat:
      t.align = 8, t.size = 8;
      break;
    default:
      t.align = 4, t.size = 4;
      break;
  }
  return intern(t);
}

const Type* TypeTable::vec(const Type* elem, uint32_t n) {
  Type t;
  t.kind = K::Vector;
  t.elem = elem;
  t.n = n;
  t.size = n * elem->size;
  t.align = uint32_t((n == 3 ? 4 : n) * elem->size);
  return intern(t);
}

const Type* TypeTable::mat(const Type* elem, uint32_t cols, uint32_t rows) {
  const Type* col = vec(elem, rows);
  Type t;
  t.kind = K::Matrix;
  t.elem = elem;
  t.n = cols;
  t.rows = rows;
  t.align = col->align;
  t.stride = uint32_t(round_up(col->align, col->size));
  t.size = cols * uint64_t(t.stride);
  return intern(t);
}

const Type* TypeTable::array(const Type* elem, uint64_t count, const Expr* count_override) {
  Type t;
  t.kind = K::Array;
  t.elem = elem;
  t.count = count;
  t.count_override = count_override;
  t.align = elem->align;
  t.stride = uint32_t(round_up(elem->align, elem->size));
  t.size = std::max<uint64_t>(count, 1) * t.stride;
  return intern(t);
}

const Type* TypeTable::atomic(const Type* elem) {
  Type t;
  t.kind = K::Atomic;
  t.elem = elem;
  t.align = 4;
  t.size = 4;
  return intern(t);
}

const Type* TypeTable::ptr(AddressSpace s, const Type* elem, Access a) {
  Type t;
  t.kind = K::Pointer;
  t.elem = elem;
  t.space = s;
  t.access = a;
  return intern(t);
}

const Type* TypeTable::ref(AddressSpace s, const Type* elem, Access a) {
  Type t;
  t.kind = K::Reference;
  t.elem = elem;
  t.space = s;
  t.access = a;
  return intern(t);
}

const Type* TypeTable::struct_(const StructDecl* d, uint32_t align, uint64_t size) {
  Type t;
  t.kind = K::Struct;
  t.decl = d;
  t.align = align;
  t.size = size;
  return intern(t);
}

const Type* TypeTable::with_scalar(const Type* t, const Type* s) {
  switch (t->kind) {
    case K::Vector:
      return vec(s, t->n);
    case K::Matrix:
      return mat(s, t->n, t->rows);
    case K::Array:
      return array(with_scalar(t->elem, s), t->count, t->count_override);
    default:
      return s;
  }
}

const Type* TypeTable::concretize(const Type* t) {
  if (!t || !t->is_abstract()) return t;
  switch (t->kind) {
    case K::AbstractInt:
      return i32();
    case K::AbstractFloat:
      return f32();
    case K::Vector:
      return vec(concretize(t->elem), t->n);
    case K::Matrix:
      return mat(concretize(t->elem), t->n, t->rows);
    case K::Array:
      return array(concretize(t->elem), t->count, t->count_override);
    default:
      return t;
  }
}

bool is_numeric_scalar(const Type* t) {
  return t && (t->is_integer_scalar() || t->is_float_scalar());
}

bool is_concrete_scalar(const Type* t) {
  return t && t->is_scalar() && t->kind != K::AbstractInt && t->kind != K::AbstractFloat;
}

bool is_constructible(const Type* t) {
  if (!t) return false;
  switch (t->kind) {
    case K::Bool:
    case K::I32:
    case K::U32:
    case K::F32:
    case K::F16:
    case K::AbstractInt:
    case K::AbstractFloat:
    case K::Vector:
    case K::Matrix:
      return true;
    case K::Array:
      return t->count != 0 && !t->count_override && is_constructible(t->elem);
    case K::Struct:
      for (const auto& m : t->decl->members)
        if (!is_constructible(m.type)) return false;
      return true;
    default:
      return false;
  }
}

bool is_host_shareable(const Type* t) {
  if (!t) return false;
  switch (t->kind) {
    case K::I32:
    case K::U32:
    case K::F32:
    case K::F16:
      return true;
    case K::Vector:
    case K::Matrix:
      return is_host_shareable(t->elem);
    case K::Atomic:
      return true;
    case K::Array:
      return !t->count_override && is_host_shareable(t->elem);
    case K::Struct:
      for (const auto& m : t->decl->members)
        if (!is_host_shareable(m.type)) return false;
      return true;
    default:
      return false;
  }
}

bool is_plain(const Type* t) {
  if (!t) return false;
  switch (t->kind) {
    case K::Void:
    case K::Pointer:
    case K::Reference:
    case K::Texture:
    case K::Sampler:
      return false;
    default:
      return true;
  }
}

bool contains_atomic(const Type* t) {
  if (!t) return false;
  if (t->kind == K::Atomic) return true;
  if (t->kind == K::Array) return contains_atomic(t->elem);
  if (t->kind == K::Struct)
    for (const auto& m : t->decl->members)
      if (contains_atomic(m.type)) return true;
  return false;
}

bool contains_runtime_array(const Type* t) {
  if (!t) return false;
  if (t->kind == K::Array) return t->count == 0 && !t->count_override;
  if (t->kind == K::Struct && !t->decl->members.empty())
    return contains_runtime_array(t->decl->members.back().type);
  return false;
}

bool uses_f16(const Type* t) {
  if (!t) return false;
  if (t->kind == K::F16) return true;
  if (t->kind == K::Struct) {
    for (const auto& m : t->decl->members)
      if (uses_f16(m.type)) return true;
    return false;
  }
  return uses_f16(t->elem);
}

uint32_t component_count(const Type* t) {
  if (t->kind == K::Vector) return t->n;
  if (t->kind == K::Matrix) return t->n * t->rows;
  return 1;
}

namespace {
std::optional<int> scalar_rank(const Type* from, const Type* to) {
  if (from == to) return 0;
  if (from->kind == K::AbstractFloat) {
    if (to->kind == K::F32) return 1;
    if (to->kind == K::F16) return 2;
  }
  if (from->kind == K::AbstractInt) {
    switch (to->kind) {
      case K::I32:
        return 3;
      case K::U32:
        return 4;
      case K::AbstractFloat:
        return 5;
      case K::F32:
        return 6;
      case K::F16:
        return 7;
      default:
        break;
    }
  }
  return std::nullopt;
}
}  // namespace

std::optional<int> conversion_rank(const Type* from, const Type* to) {
  if (!from || !to) return std::nullopt;
  if (from == to) return 0;
  if (from->is_scalar() && to->is_scalar()) return scalar_rank(from, to);
  if (from->kind != to->kind) return std::nullopt;
  switch (from->kind) {
    case K::Vector:
      if (from->n != to->n) return std::nullopt;
      return scalar_rank(from->elem, to->elem);
    case K::Matrix:
      if (from->n != to->n || from->rows != to->rows) return std::nullopt;
      return scalar_rank(from->elem, to->elem);
    case K::Array:
      if (from->count != to->count || from->count_override != to->count_override)
        return std::nullopt;
      return conversion_rank(from->elem, to->elem);
    default:
      return std::nullopt;
  }
}

const Type* common_type(TypeTable& tt, const Type* a, const Type* b) {
  if (!a || !b) return nullptr;
  if (a == b) return a;
  if (conversion_rank(a, b)) return b;
  if (conversion_rank(b, a)) return a;
  // Both abstract in different ways: abstract int and abstract float meet at abstract float.
  if (a->kind == b->kind && (a->kind == K::Vector || a->kind == K::Matrix || a->kind == K::Array)) {
    if (a->kind == K::Vector && a->n != b->n) return nullptr;
    if (a->kind == K::Matrix && (a->n != b->n || a->rows != b->rows)) return nullptr;
    if (a->kind == K::Array && (a->count != b->count || a->count_override != b->count_override))
      return nullptr;
    const Type* e = common_type(tt, a->elem, b->elem);
    if (!e) return nullptr;
    if (a->kind == K::Vector) return tt.vec(e, a->n);
    if (a->kind == K::Matrix) return tt.mat(e, a->n, a->rows);
    return tt.array(e, a->count, a->count_override);
  }
  return nullptr;
}

}  // namespace wgslvk::wgsl
