// WGSL's builtin functions a compute shader may call: overload resolution (parameter types with
// abstract arguments converted at the lowest conversion rank, as the spec's overload resolution)
// and const-evaluation of the const builtins, with the spec's domain errors.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "sema_internal.hpp"

namespace wgslvk::wgsl {

using K = Type::Kind;

namespace {

// Sets of scalar types a builtin's T may take.
enum : unsigned {
  kAI = 1,
  kAF = 2,
  kI32 = 4,
  kU32 = 8,
  kF32 = 16,
  kF16 = 32,
  kBool = 64,
  kFloat = kAF | kF32 | kF16,
  kConcreteFloat = kF32 | kF16,
  kConcreteInt = kI32 | kU32,
  kNumeric = kAI | kAF | kI32 | kU32 | kF32 | kF16,
  kSigned = kAI | kAF | kI32 | kF32 | kF16,
  kConcreteNumeric = kI32 | kU32 | kF32 | kF16,
  kAny = kNumeric | kBool,
};

unsigned bit_of(const Type* s) {
  switch (s->kind) {
    case K::AbstractInt:
      return kAI;
    case K::AbstractFloat:
      return kAF;
    case K::I32:
      return kI32;
    case K::U32:
      return kU32;
    case K::F32:
      return kF32;
    case K::F16:
      return kF16;
    case K::Bool:
      return kBool;
    default:
      return 0;
  }
}

const std::set<std::string_view>& const_builtins() {
  static const std::set<std::string_view> s = {"abs",
                                               "acos",
                                               "acosh",
                                               "all",
                                               "any",
                                               "asin",
                                               "asinh",
                                               "atan",
                                               "atan2",
                                               "atanh",
                                               "bitcast",
                                               "ceil",
                                               "clamp",
                                               "cos",
                                               "cosh",
                                               "countLeadingZeros",
                                               "countOneBits",
                                               "countTrailingZeros",
                                               "cross",
                                               "degrees",
                                               "determinant",
                                               "distance",
                                               "dot",
                                               "dot4I8Packed",
                                               "dot4U8Packed",
                                               "exp",
                                               "exp2",
                                               "extractBits",
                                               "faceForward",
                                               "firstLeadingBit",
                                               "firstTrailingBit",
                                               "floor",
                                               "fma",
                                               "fract",
                                               "frexp",
                                               "insertBits",
                                               "inverseSqrt",
                                               "ldexp",
                                               "length",
                                               "log",
                                               "log2",
                                               "max",
                                               "min",
                                               "mix",
                                               "modf",
                                               "normalize",
                                               "pack2x16float",
                                               "pack2x16snorm",
                                               "pack2x16unorm",
                                               "pack4x8snorm",
                                               "pack4x8unorm",
                                               "pack4xI8",
                                               "pack4xI8Clamp",
                                               "pack4xU8",
                                               "pack4xU8Clamp",
                                               "pow",
                                               "quantizeToF16",
                                               "radians",
                                               "reflect",
                                               "refract",
                                               "reverseBits",
                                               "round",
                                               "saturate",
                                               "select",
                                               "sign",
                                               "sin",
                                               "sinh",
                                               "smoothstep",
                                               "sqrt",
                                               "step",
                                               "tan",
                                               "tanh",
                                               "transpose",
                                               "trunc",
                                               "unpack2x16float",
                                               "unpack2x16snorm",
                                               "unpack2x16unorm",
                                               "unpack4x8snorm",
                                               "unpack4x8unorm",
                                               "unpack4xI8",
                                               "unpack4xU8"};
  return s;
}

const std::set<std::string_view>& runtime_builtins() {
  static const std::set<std::string_view> s = {"arrayLength",
                                               "atomicLoad",
                                               "atomicStore",
                                               "atomicAdd",
                                               "atomicSub",
                                               "atomicMax",
                                               "atomicMin",
                                               "atomicAnd",
                                               "atomicOr",
                                               "atomicXor",
                                               "atomicExchange",
                                               "atomicCompareExchangeWeak",
                                               "workgroupBarrier",
                                               "storageBarrier",
                                               "textureBarrier",
                                               "workgroupUniformLoad",
                                               "subgroupAdd",
                                               "subgroupExclusiveAdd",
                                               "subgroupInclusiveAdd",
                                               "subgroupMul",
                                               "subgroupExclusiveMul",
                                               "subgroupInclusiveMul",
                                               "subgroupAnd",
                                               "subgroupOr",
                                               "subgroupXor",
                                               "subgroupMin",
                                               "subgroupMax",
                                               "subgroupAll",
                                               "subgroupAny",
                                               "subgroupBallot",
                                               "subgroupElect",
                                               "subgroupBroadcast",
                                               "subgroupBroadcastFirst",
                                               "subgroupShuffle",
                                               "subgroupShuffleXor",
                                               "subgroupShuffleUp",
                                               "subgroupShuffleDown",
                                               "quadBroadcast",
                                               "quadSwapX",
                                               "quadSwapY",
                                               "quadSwapDiagonal"};
  return s;
}

// Valid WGSL builtins this front end does not translate (other stages, textures).
const std::set<std::string_view>& unsupported_builtins() {
  static const std::set<std::string_view> s = {"dpdx",
                                               "dpdxCoarse",
                                               "dpdxFine",
                                               "dpdy",
                                               "dpdyCoarse",
                                               "dpdyFine",
                                               "fwidth",
                                               "fwidthCoarse",
                                               "fwidthFine",
                                               "textureDimensions",
                                               "textureGather",
                                               "textureGatherCompare",
                                               "textureLoad",
                                               "textureNumLayers",
                                               "textureNumLevels",
                                               "textureNumSamples",
                                               "textureSample",
                                               "textureSampleBias",
                                               "textureSampleCompare",
                                               "textureSampleCompareLevel",
                                               "textureSampleGrad",
                                               "textureSampleLevel",
                                               "textureSampleBaseClampToEdge",
                                               "textureStore"};
  return s;
}

// Unifies argument types of the same shape (scalar / vecN) into one T; nullptr if none.
const Type* unify(TypeTable& tt, const std::vector<const Type*>& args) {
  const Type* t = nullptr;
  for (const Type* a : args) {
    if (!a || !(a->is_scalar() || a->kind == K::Vector)) return nullptr;
    t = t ? common_type(tt, t, a) : a;
    if (!t) return nullptr;
  }
  return t;
}

// T (scalar or vector) with its scalar in `set`, converting an abstract scalar at the lowest
// rank into the set; nullptr if impossible.
const Type* fit(TypeTable& tt, const Type* t, unsigned set) {
  if (!t) return nullptr;
  const Type* s = t->scalar();
  if (!s) return nullptr;
  if (bit_of(s) & set) return t;
  static const K order_ai[] = {K::I32, K::U32, K::AbstractFloat, K::F32, K::F16};
  static const K order_af[] = {K::F32, K::F16};
  if (s->kind == K::AbstractInt) {
    for (K k : order_ai)
      if (bit_of(tt.scalar(k)) & set) return tt.with_scalar(t, tt.scalar(k));
  } else if (s->kind == K::AbstractFloat) {
    for (K k : order_af)
      if (bit_of(tt.scalar(k)) & set) return tt.with_scalar(t, tt.scalar(k));
  }
  return nullptr;
}

std::string call_text(std::string_view name, const std::vector<const Type*>& args) {
  std::string s = std::string(name) + "(";
  for (size_t i = 0; i < args.size(); i++) s += (i ? ", " : "") + (args[i] ? args[i]->wgsl() : "?");
  return s + ")";
}

// A struct type for frexp/modf/atomicCompareExchangeWeak results, created once per module.
const Type* result_struct(TypeTable& tt, Module& m, const std::string& name,
                          const std::vector<std::pair<std::string, const Type*>>& members) {
  if (const Type* t = tt.named_struct(name)) return t;
  auto* d = m.make<StructDecl>();
  d->name = name;
  uint64_t offset = 0;
  uint32_t align = 1;
  for (const auto& [n, t] : members) {
    StructMember sm;
    sm.name = n;
    sm.type = t;
    sm.align = t->align ? t->align : 4;
    sm.size = t->size;
    offset = (offset + sm.align - 1) / sm.align * sm.align;
    sm.offset = uint32_t(offset);
    offset += sm.size;
    align = std::max(align, sm.align);
    d->members.push_back(sm);
  }
  const Type* st = tt.struct_(d, align, (offset + align - 1) / align * align);
  d->type = st;
  tt.set_named_struct(name, st);
  return st;
}

std::string suffix_name(const Type* t) {
  // frexp/modf result names: __frexp_result_f32, __frexp_result_vec3_f32, abstract.
  const Type* s = t->scalar();
  std::string e = s->kind == K::AbstractFloat ? "abstract" : s->wgsl();
  if (t->kind == K::Vector) return "vec" + std::to_string(t->n) + "_" + e;
  return e;
}

// The texture builtins other than the implicit-derivative samples, typed for createShaderModule's
// rules (overloads, the uniformity analysis); the emitter does not translate them. Kinds are
// texture_type_names()' indices: 0 1d, 1 2d, 2 2d_array, 3 3d, 4 cube, 5 cube_array,
// 6 multisampled_2d, 7 depth_2d, 8 depth_2d_array, 9 depth_cube, 10 depth_cube_array,
// 11 depth_multisampled_2d, 12 external, 13..16 storage 1d, 2d, 2d_array, 3d.
bool match_texture_builtin(TypeTable& tt, std::string_view name,
                           const std::vector<const Type*>& targs,
                           const std::vector<const Type*>& args, BuiltinMatch& r) {
  if (!targs.empty()) return false;
  for (const Type* a : args)
    if (!a) return false;
  std::vector<const Type*>& p = r.params;
  size_t at = 0;                     // the next argument to type
  auto take_int = [&](uint32_t n) {  // i32 or u32, scalar (n = 1) or vecN
    if (at >= args.size()) return false;
    const Type* t = fit(tt, args[at], kI32 | kU32);
    if (!t || (n == 1 ? !t->is_scalar() : (t->kind != K::Vector || t->n != n))) return false;
    p.push_back(t);
    at++;
    return true;
  };
  auto take = [&](const Type* t) {  // converted to t by sema (its error if it cannot be)
    if (at >= args.size()) return false;
    p.push_back(t);
    at++;
    return true;
  };
  auto f32n = [&](uint32_t n) { return n == 1 ? tt.f32() : tt.vec(tt.f32(), n); };
  auto texture_at = [&](size_t i) -> const Type* {
    return i < args.size() && args[i]->kind == K::Texture ? args[i] : nullptr;
  };
  auto sampler_at = [&](size_t i, bool comparison) {
    return i < args.size() && args[i]->kind == K::Sampler && (args[i]->n == 1) == comparison;
  };
  auto kind_in = [](uint32_t k, std::initializer_list<uint32_t> ks) {
    return std::find(ks.begin(), ks.end(), k) != ks.end();
  };
  auto arrayed = [&](uint32_t k) { return kind_in(k, {2, 5, 8, 10, 15}); };
  auto channel = [&](const Type* t) {  // a storage texture's texel type
    const std::string& f = texel_format_names().at(t->count);
    const Type* c = f.size() > 4 && f.substr(f.size() - 4) == "uint"   ? tt.u32()
                    : f.size() > 4 && f.substr(f.size() - 4) == "sint" ? tt.i32()
                                                                       : tt.f32();
    return tt.vec(c, 4);
  };
  auto offset = [&](uint32_t n) {  // the optional last argument, a const-expression
    if (at + 1 != args.size()) return true;
    r.offset_arg = int(at);
    return take(tt.vec(tt.i32(), n));
  };
  const Type* t = texture_at(0);
  if (name == "textureDimensions" || name == "textureNumLayers" || name == "textureNumLevels" ||
      name == "textureNumSamples") {
    if (!t) return false;
    const uint32_t k = t->n;
    p.push_back(t);
    at = 1;
    const bool mipmapped = k <= 5 || (k >= 7 && k <= 10);
    if (name == "textureDimensions") {
      if (args.size() == 2 && !(mipmapped && take_int(1))) return false;
      r.result = k == 0 || k == 13   ? tt.u32()
                 : k == 3 || k == 16 ? tt.vec(tt.u32(), 3)
                                     : tt.vec(tt.u32(), 2);
    } else {
      if ((name == "textureNumLayers" && !arrayed(k)) ||
          (name == "textureNumLevels" && !mipmapped) ||
          (name == "textureNumSamples" && k != 6 && k != 11))
        return false;
      r.result = tt.u32();
    }
    return args.size() == at;
  }
  if (name == "textureLoad") {
    if (!t) return false;
    const uint32_t k = t->n;
    if (k == 4 || k == 5 || k == 9 || k == 10) return false;  // no loads from cubes
    if (k >= 13 && t->access == Access::Write) return false;
    p.push_back(t);
    at = 1;
    const uint32_t dim = k == 0 || k == 13 ? 1 : k == 3 || k == 16 ? 3 : 2;
    if (!take_int(dim)) return false;
    if (arrayed(k) && !take_int(1)) return false;
    if (k != 12 && k < 13 && !take_int(1)) return false;  // level or sample index
    r.result = k >= 13               ? channel(t)
               : k == 12             ? tt.vec(tt.f32(), 4)
               : (k >= 7 && k <= 11) ? tt.f32()
                                     : tt.vec(t->elem, 4);
    return args.size() == at;
  }
  if (name == "textureStore") {
    if (!t || t->n < 13 || t->access == Access::Read) return false;
    const uint32_t k = t->n;
    p.push_back(t);
    at = 1;
    if (!take_int(k == 13 ? 1 : k == 16 ? 3 : 2)) return false;
    if (arrayed(k) && !take_int(1)) return false;
    if (!take(channel(t))) return false;
    r.result = tt.void_();
    r.must_use = false;
    return args.size() == at;
  }
  if (name == "textureGather") {
    const Type* comp = nullptr;
    if (!t) {  // textureGather(component, t, s, coords, ...) for the sampled kinds
      comp = args.empty() ? nullptr : fit(tt, args[0], kI32 | kU32);
      if (!comp || !comp->is_scalar()) return false;
      t = texture_at(1);
      if (!t || !kind_in(t->n, {1, 2, 4, 5})) return false;
      r.component_arg = 0;
      p.push_back(comp);
    } else if (!kind_in(t->n, {7, 8, 9, 10})) {
      return false;
    }
    at = p.size();
    const uint32_t k = t->n;
    p.push_back(t);
    if (!sampler_at(at + 1, false)) return false;
    p.push_back(args[at + 1]);
    at += 2;
    const bool cube = kind_in(k, {4, 5, 9, 10});
    if (!take(f32n(cube ? 3 : 2))) return false;
    if (arrayed(k) && !take_int(1)) return false;
    if (!cube && !offset(2)) return false;
    r.result = tt.vec(comp ? t->elem : tt.f32(), 4);
    return args.size() == at;
  }
  if (name == "textureGatherCompare" || name == "textureSampleCompareLevel") {
    if (!t || !kind_in(t->n, {7, 8, 9, 10}) || !sampler_at(1, true)) return false;
    const uint32_t k = t->n;
    p = {t, args[1]};
    at = 2;
    const bool cube = k == 9 || k == 10;
    if (!take(f32n(cube ? 3 : 2))) return false;
    if (arrayed(k) && !take_int(1)) return false;
    if (!take(tt.f32())) return false;  // depth_ref
    if (!cube && !offset(2)) return false;
    r.result = name == "textureGatherCompare" ? tt.vec(tt.f32(), 4) : tt.f32();
    return args.size() == at;
  }
  if (name == "textureSampleGrad" || name == "textureSampleLevel") {
    if (!t || !sampler_at(1, false)) return false;
    const uint32_t k = t->n;
    const bool depth = k >= 7 && k <= 10;
    if (!depth && !(k >= 1 && k <= 5 && t->elem == tt.f32())) return false;
    if (depth && name == "textureSampleGrad") return false;
    p = {t, args[1]};
    at = 2;
    const uint32_t coords = kind_in(k, {1, 2, 7, 8}) ? 2 : 3;
    if (!take(f32n(coords))) return false;
    if (arrayed(k) && !take_int(1)) return false;
    if (name == "textureSampleGrad") {
      if (!take(f32n(coords)) || !take(f32n(coords))) return false;
    } else if (depth ? !take_int(1) : !take(tt.f32())) {
      return false;
    }
    if (kind_in(k, {1, 2, 3, 7, 8}) && !offset(k == 3 ? 3 : 2)) return false;
    r.result = depth ? tt.f32() : tt.vec(tt.f32(), 4);
    return args.size() == at;
  }
  if (name == "textureSampleBaseClampToEdge") {
    if (!t || !(t->n == 12 || (t->n == 1 && t->elem == tt.f32())) || !sampler_at(1, false))
      return false;
    p = {t, args[1]};
    at = 2;
    if (!take(tt.vec(tt.f32(), 2))) return false;
    r.result = tt.vec(tt.f32(), 4);
    return args.size() == at;
  }
  return false;
}
}  // namespace

bool is_builtin_function(std::string_view name) {
  return const_builtins().count(name) || runtime_builtins().count(name) ||
         unsupported_builtins().count(name);
}

BuiltinMatch match_builtin(TypeTable& tt, Module& m, std::string_view name,
                           const std::vector<const Type*>& targs,
                           const std::vector<const Type*>& args) {
  BuiltinMatch r;
  r.const_fn = const_builtins().count(name) > 0;
  auto fail = [&](std::string why = "") {
    r.result = nullptr;
    r.error = "no matching call to '" + call_text(name, args) + "'";
    if (!why.empty()) r.error += ": " + why;
    return r;
  };
  // Derivatives and the implicit-derivative texture samples (fragment stage: sema checks the
  // stage) are typed, so that createShaderModule's rules (uniformity included) see them; the
  // emitter does not translate them.
  static const std::set<std::string_view> derivatives = {"dpdx",   "dpdxCoarse",   "dpdxFine",
                                                         "dpdy",   "dpdyCoarse",   "dpdyFine",
                                                         "fwidth", "fwidthCoarse", "fwidthFine"};
  if (derivatives.count(name)) {
    if (!targs.empty() || args.size() != 1) return fail();
    const Type* t = fit(tt, args[0], kF32);
    if (!t || !(t->is_scalar() || t->kind == K::Vector)) return fail();
    r.params = {t};
    r.result = t;
    return r;
  }
  if (name == "textureSample" || name == "textureSampleBias" || name == "textureSampleCompare") {
    if (!targs.empty() || args.size() < 3 || !args[0] || !args[1] || args[0]->kind != K::Texture ||
        args[1]->kind != K::Sampler)
      return fail();
    // texture_type_names(): 0 1d, 1 2d, 2 2d_array, 3 3d, 4 cube, 5 cube_array,
    // 7 depth_2d, 8 depth_2d_array, 9 depth_cube, 10 depth_cube_array.
    const uint32_t tex = args[0]->n;
    const bool depth = tex >= 7 && tex <= 10, compare = name == "textureSampleCompare";
    const uint32_t dim = depth ? tex - 6 : tex;  // as the sampled kinds: 1 2d .. 5 cube_array
    if ((!depth && (tex > 5 || args[0]->elem != tt.f32())) || (args[1]->n == 1) != compare ||
        (compare && !depth) || (name == "textureSampleBias" && (depth || tex == 0)))
      return fail();
    const uint32_t coords = dim == 0 ? 1 : dim <= 2 ? 2 : 3;
    const bool arrayed = dim == 2 || dim == 5;
    std::vector<const Type*> p = {args[0], args[1],
                                  coords == 1 ? tt.f32() : tt.vec(tt.f32(), coords)};
    if (arrayed) {
      if (args.size() <= p.size() || !args[p.size()]) return fail();
      const Type* a = fit(tt, args[p.size()], kI32 | kU32);
      if (!a || !a->is_scalar()) return fail();
      p.push_back(a);
    }
    if (name != "textureSample") p.push_back(tt.f32());                       // bias, depth_ref
    if (args.size() == p.size() + 1 && (dim == 1 || dim == 2 || dim == 3)) {  // offset
      r.offset_arg = int(p.size());
      p.push_back(tt.vec(tt.i32(), dim == 3 ? 3 : 2));
    }
    if (args.size() != p.size()) return fail();
    r.params = p;
    r.result = depth ? tt.f32() : tt.vec(tt.f32(), 4);
    return r;
  }
  if (name.substr(0, 7) == "texture" && name != "textureBarrier" && name != "textureSample" &&
      name != "textureSampleBias" && name != "textureSampleCompare")
    return match_texture_builtin(tt, name, targs, args, r) ? r : fail();
  if (unsupported_builtins().count(name)) {
    r.error = "'" + std::string(name) +
              "' is a fragment-stage or texture builtin; this front end translates compute "
              "shaders only";
    return r;
  }
  if (!targs.empty() && name != "bitcast") return fail("the builtin takes no template arguments");
  auto nargs = [&](size_t n) { return args.size() == n; };
  auto same = [&](size_t n, unsigned set, bool vec_only = false) -> const Type* {
    if (!nargs(n)) return nullptr;
    const Type* t = fit(tt, unify(tt, args), set);
    if (t && vec_only && t->kind != K::Vector) return nullptr;
    if (t) r.params.assign(n, t);
    return t;
  };
  const Type* t = nullptr;

  static const std::set<std::string_view> float_unary = {
      "acos",    "acosh",    "asin", "asinh", "atan",  "atanh",       "ceil", "cos",  "cosh",
      "degrees", "exp",      "exp2", "floor", "fract", "inverseSqrt", "log",  "log2", "radians",
      "round",   "saturate", "sin",  "sinh",  "sqrt",  "tan",         "tanh", "trunc"};
  static const std::set<std::string_view> int_unary = {"countLeadingZeros",  "countOneBits",
                                                       "countTrailingZeros", "firstLeadingBit",
                                                       "firstTrailingBit",   "reverseBits"};

  if (float_unary.count(name)) {
    if (!(t = same(1, kFloat))) return fail();
    r.result = t;
  } else if (name == "abs") {
    if (!(t = same(1, kNumeric))) return fail();
    r.result = t;
  } else if (name == "sign") {
    if (!(t = same(1, kSigned))) return fail();
    r.result = t;
  } else if (int_unary.count(name)) {
    if (!(t = same(1, kConcreteInt))) return fail();
    r.result = t;
  } else if (name == "atan2" || name == "pow" || name == "step") {
    if (!(t = same(2, kFloat))) return fail();
    r.result = t;
  } else if (name == "min" || name == "max") {
    if (!(t = same(2, kNumeric))) return fail();
    r.result = t;
  } else if (name == "clamp") {
    if (!(t = same(3, kNumeric))) return fail();
    r.result = t;
  } else if (name == "fma" || name == "smoothstep") {
    if (!(t = same(3, kFloat))) return fail();
    r.result = t;
  } else if (name == "mix") {
    if (!nargs(3)) return fail();
    if ((t = same(3, kFloat))) {
      r.result = t;
    } else if (args[0] && args[0]->kind == K::Vector && args[2] && args[2]->is_scalar()) {
      const Type* v = fit(tt, unify(tt, {args[0], args[1], tt.vec(args[2], args[0]->n)}), kFloat);
      if (!v || v->kind != K::Vector) return fail();
      r.params = {v, v, v->elem};
      r.result = v;
    } else {
      return fail();
    }
  } else if (name == "ldexp") {
    if (!nargs(2) || !args[0] || !args[1]) return fail();
    const Type* e1 = fit(tt, unify(tt, {args[0]}), kFloat);
    if (!e1) return fail();
    const Type* s2 = args[1]->scalar();
    if (!s2 || component_count(args[1]) != component_count(e1) ||
        (args[1]->kind == K::Vector) != (e1->kind == K::Vector))
      return fail();
    const Type* e2;
    if (s2->kind == K::I32)
      e2 = args[1];
    else if (s2->kind == K::AbstractInt)
      e2 = e1->scalar()->kind == K::AbstractFloat ? args[1] : tt.with_scalar(args[1], tt.i32());
    else
      return fail();
    // ldexp(abstract float, i32) stays abstract (Tint's ldexp<T: fa_f32_f16, U: ia_i32>; the
    // CTS evaluates it so); sema makes it f32 where the call is not a const-expression.
    r.params = {e1, e2};
    r.result = e1;
  } else if (name == "frexp" || name == "modf") {
    if (!(t = same(1, kFloat))) return fail();
    const Type* second = t;
    if (name == "frexp")
      second =
          tt.with_scalar(t, t->scalar()->kind == K::AbstractFloat ? tt.abstract_int() : tt.i32());
    r.result = result_struct(
        tt, m, "__" + std::string(name) + "_result_" + suffix_name(t),
        {{name == "frexp" ? "fract" : "fract", t}, {name == "frexp" ? "exp" : "whole", second}});
  } else if (name == "cross") {
    if (!(t = same(2, kFloat, true)) || t->n != 3) return fail();
    r.result = t;
  } else if (name == "distance") {
    if (!(t = same(2, kFloat))) return fail();
    r.result = t->scalar();
  } else if (name == "length") {
    if (!(t = same(1, kFloat))) return fail();
    r.result = t->scalar();
  } else if (name == "normalize") {
    if (!(t = same(1, kFloat, true))) return fail();
    r.result = t;
  } else if (name == "dot") {
    if (!(t = same(2, kNumeric, true))) return fail();
    r.result = t->elem;
  } else if (name == "faceForward") {
    if (!(t = same(3, kFloat, true))) return fail();
    r.result = t;
  } else if (name == "reflect") {
    if (!(t = same(2, kFloat, true))) return fail();
    r.result = t;
  } else if (name == "refract") {
    if (!nargs(3) || !args[0] || args[0]->kind != K::Vector || !args[2] || !args[2]->is_scalar())
      return fail();
    const Type* v = fit(tt, unify(tt, {args[0], args[1], tt.vec(args[2], args[0]->n)}), kFloat);
    if (!v || v->kind != K::Vector) return fail();
    r.params = {v, v, v->elem};
    r.result = v;
  } else if (name == "determinant" || name == "transpose") {
    if (!nargs(1) || !args[0] || args[0]->kind != K::Matrix) return fail();
    const Type* mt = args[0];
    if (mt->elem->kind == K::AbstractFloat || (bit_of(mt->elem) & kConcreteFloat)) {
    } else {
      return fail();
    }
    if (name == "determinant") {
      if (mt->n != mt->rows) return fail();
      r.result = mt->elem;
    } else {
      r.result = tt.mat(mt->elem, mt->rows, mt->n);
    }
    r.params = {mt};
  } else if (name == "extractBits") {
    if (!nargs(3)) return fail();
    t = fit(tt, unify(tt, {args[0]}), kConcreteInt);
    if (!t || !conversion_rank(args[1], tt.u32()) || !conversion_rank(args[2], tt.u32()))
      return fail();
    r.params = {t, tt.u32(), tt.u32()};
    r.result = t;
  } else if (name == "insertBits") {
    if (!nargs(4)) return fail();
    t = fit(tt, unify(tt, {args[0], args[1]}), kConcreteInt);
    if (!t || !conversion_rank(args[2], tt.u32()) || !conversion_rank(args[3], tt.u32()))
      return fail();
    r.params = {t, t, tt.u32(), tt.u32()};
    r.result = t;
  } else if (name == "all" || name == "any") {
    if (!nargs(1) || !args[0] || args[0]->scalar() != tt.bool_() || args[0]->kind == K::Matrix)
      return fail();
    r.params = {args[0]};
    r.result = tt.bool_();
  } else if (name == "select") {
    if (!nargs(3) || !args[2]) return fail();
    t = unify(tt, {args[0], args[1]});
    if (!t) return fail();
    if (args[2] == tt.bool_()) {
    } else if (args[2]->kind == K::Vector && args[2]->elem == tt.bool_() && t->kind == K::Vector &&
               t->n == args[2]->n) {
    } else {
      return fail();
    }
    r.params = {t, t, args[2]};
    r.result = t;
  } else if (name == "arrayLength") {
    if (!nargs(1) || !args[0] || args[0]->kind != K::Pointer || args[0]->elem->kind != K::Array ||
        args[0]->elem->count != 0 || args[0]->space != AddressSpace::Storage)
      return fail("the argument must be a pointer to a runtime-sized array in storage");
    r.params = {args[0]};
    r.result = tt.u32();
  } else if (name.substr(0, 6) == "atomic") {
    if (args.empty() || !args[0] || args[0]->kind != K::Pointer ||
        args[0]->elem->kind != K::Atomic ||
        (args[0]->space != AddressSpace::Storage && args[0]->space != AddressSpace::Workgroup))
      return fail("the first argument must be a pointer to an atomic in storage or workgroup");
    if (args[0]->access != Access::ReadWrite)
      return fail("atomic operations need a read_write pointer");
    const Type* e = args[0]->elem->elem;
    r.must_use = false;
    auto value_ok = [&](size_t i) { return args[i] && conversion_rank(args[i], e).has_value(); };
    if (name == "atomicLoad") {
      if (!nargs(1)) return fail();
      r.params = {args[0]};
      r.result = e;  // not @must_use (Tint; the CTS's atomics:non_atomic calls it alone)
    } else if (name == "atomicStore") {
      if (!nargs(2) || !value_ok(1)) return fail();
      r.params = {args[0], e};
      r.result = tt.void_();
    } else if (name == "atomicCompareExchangeWeak") {
      if (!nargs(3) || !value_ok(1) || !value_ok(2)) return fail();
      r.params = {args[0], e, e};
      r.result = result_struct(tt, m, "__atomic_compare_exchange_result_" + e->wgsl(),
                               {{"old_value", e}, {"exchanged", tt.bool_()}});
    } else if (runtime_builtins().count(name)) {
      if (!nargs(2) || !value_ok(1)) return fail();
      r.params = {args[0], e};
      r.result = e;
    } else {
      return fail();
    }
  } else if (name == "workgroupBarrier" || name == "storageBarrier" || name == "textureBarrier") {
    if (!nargs(0)) return fail();
    r.result = tt.void_();
    r.must_use = false;
  } else if (name == "workgroupUniformLoad") {
    if (!nargs(1) || !args[0] || args[0]->kind != K::Pointer ||
        args[0]->space != AddressSpace::Workgroup)
      return fail("the argument must be a pointer into workgroup memory");
    const Type* e = args[0]->elem;
    if (e->kind == K::Atomic)
      e = e->elem;
    else if (!is_constructible(e))
      return fail("the pointee must be constructible or an atomic");
    r.params = {args[0]};
    r.result = e;
  } else if (name.substr(0, 8) == "subgroup" || name.substr(0, 4) == "quad") {
    r.needs_subgroups = true;
    if (name == "subgroupElect") {
      if (!nargs(0)) return fail();
      r.result = tt.bool_();
    } else if (name == "subgroupAll" || name == "subgroupAny" || name == "subgroupBallot") {
      if (!nargs(1) || !conversion_rank(args[0], tt.bool_())) return fail();
      r.params = {tt.bool_()};
      r.result = name == "subgroupBallot" ? tt.vec(tt.u32(), 4) : tt.bool_();
    } else if (name == "subgroupAnd" || name == "subgroupOr" || name == "subgroupXor") {
      if (!(t = same(1, kConcreteInt))) return fail();
      r.result = t;
    } else if (name == "subgroupBroadcast" || name == "subgroupShuffle" ||
               name == "quadBroadcast" || name == "subgroupShuffleXor" ||
               name == "subgroupShuffleUp" || name == "subgroupShuffleDown") {
      if (!nargs(2)) return fail();
      t = fit(tt, unify(tt, {args[0]}), kConcreteNumeric);
      if (!t) return fail();
      const Type* id = args[1];
      bool u32_only = name == "subgroupShuffleXor" || name == "subgroupShuffleUp" ||
                      name == "subgroupShuffleDown";
      if (!id || !id->is_scalar()) return fail();
      if (id->kind == K::AbstractInt) id = u32_only ? tt.u32() : tt.i32();
      if (id->kind != K::U32 && (u32_only || id->kind != K::I32)) return fail();
      r.params = {t, id};
      r.result = t;
    } else {
      // Add/Mul (inclusive, exclusive), Min/Max, BroadcastFirst, quadSwap*.
      if (!(t = same(1, kConcreteNumeric))) return fail();
      r.result = t;
    }
  } else if (name == "pack4x8snorm" || name == "pack4x8unorm" || name == "pack2x16snorm" ||
             name == "pack2x16unorm" || name == "pack2x16float") {
    uint32_t n = name[4] == '4' ? 4 : 2;
    const Type* p = tt.vec(tt.f32(), n);
    if (!nargs(1) || !conversion_rank(args[0], p)) return fail();
    r.params = {p};
    r.result = tt.u32();
  } else if (name == "pack4xI8" || name == "pack4xI8Clamp" || name == "pack4xU8" ||
             name == "pack4xU8Clamp") {
    const Type* p = tt.vec(name[6] == 'I' ? tt.i32() : tt.u32(), 4);
    if (!nargs(1) || !conversion_rank(args[0], p)) return fail();
    r.params = {p};
    r.result = tt.u32();
  } else if (name.substr(0, 6) == "unpack") {
    if (!nargs(1) || !conversion_rank(args[0], tt.u32())) return fail();
    r.params = {tt.u32()};
    if (name == "unpack4xI8")
      r.result = tt.vec(tt.i32(), 4);
    else if (name == "unpack4xU8")
      r.result = tt.vec(tt.u32(), 4);
    else
      r.result = tt.vec(tt.f32(), name[6] == '4' ? 4 : 2);
  } else if (name == "dot4I8Packed" || name == "dot4U8Packed") {
    if (!nargs(2) || !conversion_rank(args[0], tt.u32()) || !conversion_rank(args[1], tt.u32()))
      return fail();
    r.params = {tt.u32(), tt.u32()};
    r.result = name == "dot4I8Packed" ? tt.i32() : tt.u32();
  } else if (name == "quantizeToF16") {
    if (!(t = same(1, kF32))) return fail();
    r.result = t;
  } else if (name == "bitcast") {
    if (targs.size() != 1 || !targs[0] || !nargs(1) || !args[0])
      return fail("bitcast takes one template argument and one argument");
    const Type* to = targs[0];
    const Type* from = args[0];
    auto bits = [](const Type* x) -> uint32_t {
      const Type* s = x->scalar();
      if (!s || x->kind == K::Matrix) return 0;
      uint32_t w = s->kind == K::F16                                               ? 16
                   : (s->kind == K::I32 || s->kind == K::U32 || s->kind == K::F32) ? 32
                                                                                   : 0;
      return w * component_count(x);
    };
    if (from->is_abstract()) {
      // An abstract int argument becomes i32, or u32 where it only fits there (0xffffffff).
      const Type* s = from->scalar();
      from = tt.with_scalar(from, s->kind == K::AbstractFloat ? tt.f32() : tt.i32());
      r.params = {from};
      r.result = to;
      if (bits(to) == 0 || bits(to) != bits(from)) return fail();
      return r;
    }
    if (bits(to) == 0 || bits(to) != bits(from)) return fail();
    r.params = {from};
    r.result = to;
  } else {
    r.error = "unresolved call target '" + std::string(name) + "'";
    return r;
  }
  return r;
}

// ---- Const evaluation of builtins --------------------------------------------------------------

namespace {

uint32_t f32_bits(double v) {
  float f = float(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
double from_f32_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return double(f);
}
// f16 bits of a value already representable in f16 (the caller rounded it).
uint16_t f16_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | 0x7c00;
  if (std::isnan(a)) return 0x7e00;
  int ex;
  double m = std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
  int e = ex - 1 + 15;            // biased exponent of 1.f form
  if (e <= 0) return sign | uint16_t(std::nearbyint(a / std::ldexp(1.0, -24)));
  uint16_t mant = uint16_t(std::nearbyint((m * 2 - 1) * 1024));
  return uint16_t(sign | (e << 10) | mant);
}
double from_f16_bits(uint16_t b) {
  int e = (b >> 10) & 0x1f, mant = b & 0x3ff;
  double s = (b & 0x8000) ? -1 : 1;
  if (e == 0) return s * std::ldexp(double(mant), -24);
  if (e == 31) return mant ? NAN : s * INFINITY;
  return s * std::ldexp(1.0 + mant / 1024.0, e - 15);
}

struct Ctx {
  TypeTable& tt;
  std::string& error;
  std::string_view name;
  bool fail(const std::string& why) {
    error = std::string(name) + ": " + why;
    return false;
  }
};

// Applies f to each component of the (scalar/vector) args; f writes its scalar result.
template <class F>
std::optional<ConstValue> componentwise(Ctx& c, const std::vector<ConstValue>& args,
                                        const Type* result, F f) {
  ConstValue out;
  out.type = result;
  size_t n = 1;
  for (const auto& a : args) n = std::max(n, a.scalars.size());
  const Type* rs = result->scalar();
  for (size_t i = 0; i < n; i++) {
    std::vector<Scalar> xs;
    for (const auto& a : args) xs.push_back(a.scalars[a.scalars.size() == 1 ? 0 : i]);
    Scalar s;
    if (!f(xs, s)) return std::nullopt;
    if (rs && rs->is_float_scalar()) {
      auto v = to_float_type(as_double(s), rs, c.error);
      if (!v) {
        c.error = std::string(c.name) + ": " + c.error;
        return std::nullopt;
      }
      s = Scalar{*v};
    }
    out.scalars.push_back(s);
  }
  return out;
}

Scalar int_scalar(const Type* s, int64_t v) {
  if (s->kind == K::U32) return Scalar{uint64_t(uint32_t(v))};
  if (s->kind == K::I32) return Scalar{int64_t(int32_t(uint32_t(v)))};
  return Scalar{v};
}

// Float arithmetic in a concrete (or abstract) float type, one rounded operation at a time, as
// Tint's const-eval does: an intermediate result that overflows the type (or a NaN) is an
// error, not only the final one (the CTS's validation tests of dot, length, normalize, cross,
// faceForward, refract, mix and distance check each step).
struct Steps {
  const Type* t;  // the scalar type
  bool ok = true;
  double q(double v) {
    std::string e;
    auto r = to_float_type(v, t, e);
    if (!r) {
      ok = false;
      return 0;
    }
    return *r;
  }
  double add(double a, double b) { return q(a + b); }
  double sub(double a, double b) { return q(a - b); }
  double mul(double a, double b) { return q(a * b); }
  double div(double a, double b) { return q(a / b); }
  double sqrt(double a) { return q(std::sqrt(a)); }
  // a . b: the products, then their sum left to right.
  double dot(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); i++) {
      double p = mul(as_double(a[i]), as_double(b[i]));
      s = i ? add(s, p) : p;
    }
    return s;
  }
};

double det(const std::vector<double>& m, uint32_t n) {  // column-major
  auto at = [&](uint32_t c, uint32_t r) { return m[c * n + r]; };
  if (n == 2) return at(0, 0) * at(1, 1) - at(1, 0) * at(0, 1);
  if (n == 3)
    return at(0, 0) * (at(1, 1) * at(2, 2) - at(2, 1) * at(1, 2)) -
           at(1, 0) * (at(0, 1) * at(2, 2) - at(2, 1) * at(0, 2)) +
           at(2, 0) * (at(0, 1) * at(1, 2) - at(1, 1) * at(0, 2));
  double s = 0;
  for (uint32_t c = 0; c < 4; c++) {
    std::vector<double> minor;
    for (uint32_t cc = 0; cc < 4; cc++)
      if (cc != c)
        for (uint32_t r = 1; r < 4; r++) minor.push_back(at(cc, r));
    s += (c % 2 ? -1 : 1) * at(c, 0) * det(minor, 3);
  }
  return s;
}

}  // namespace

std::optional<ConstValue> eval_builtin(TypeTable& tt, std::string_view name,
                                       const BuiltinMatch& match,
                                       const std::vector<ConstValue>& args, std::string& error) {
  Ctx c{tt, error, name};
  const Type* result = match.result;
  const Type* rs = result->scalar();
  auto f1 = [&](auto fn) {  // float unary with a domain check: fn(x, ok&) -> double
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      bool ok = true;
      double v = fn(as_double(x[0]), ok);
      if (!ok) {
        // Tint's wording.
        static const std::map<std::string_view, const char*> domain = {
            {"acos", "a value in the range [-1 .. 1] (inclusive)"},
            {"asin", "a value in the range [-1 .. 1] (inclusive)"},
            {"acosh", "a value >= 1.0"},
            {"atanh", "a value in the range (-1 .. 1) (exclusive)"},
            {"sqrt", "a value >= 0"},
            {"log", "a value > 0"},
            {"log2", "a value > 0"},
            {"inverseSqrt", "a value > 0"}};
        auto d = domain.find(name);
        error = std::string(name) + " must be called with " +
                (d != domain.end() ? d->second : "a value in its domain");
        return false;
      }
      out = Scalar{v};
      return true;
    });
  };
  auto no = [](bool) {};
  (void)no;
#define F1(N, EXPR, DOMAIN)            \
  if (name == N)                       \
    return f1([](double x, bool& ok) { \
      ok = (DOMAIN);                   \
      return (EXPR);                   \
    });
  F1("acos", std::acos(x), std::fabs(x) <= 1)
  F1("asin", std::asin(x), std::fabs(x) <= 1)
  F1("acosh", std::acosh(x), x >= 1)
  F1("asinh", std::asinh(x), true)
  F1("atan", std::atan(x), true)
  F1("atanh", std::atanh(x), std::fabs(x) < 1)
  F1("ceil", std::ceil(x), true)
  F1("cos", std::cos(x), true)
  F1("cosh", std::cosh(x), true)
  F1("degrees", x * (180.0 / M_PI), true)
  F1("radians", x * (M_PI / 180.0), true)
  F1("exp", std::exp(x), true)
  F1("exp2", std::exp2(x), true)
  F1("floor", std::floor(x), true)
  F1("fract", x - std::floor(x), true)
  F1("inverseSqrt", 1.0 / std::sqrt(x), x > 0)
  F1("log", std::log(x), x > 0)
  F1("log2", std::log2(x), x > 0)
  F1("round", std::nearbyint(x), true)
  F1("saturate", std::min(1.0, std::max(0.0, x)), true)
  F1("sin", std::sin(x), true)
  F1("sinh", std::sinh(x), true)
  F1("sqrt", std::sqrt(x), x >= 0)
  F1("tan", std::tan(x), true)
  F1("tanh", std::tanh(x), true)
  F1("trunc", std::trunc(x), true)
#undef F1
  if (name == "quantizeToF16")
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      std::string e;
      auto v = convert_to_float_type(as_double(x[0]), tt.f16(), e);
      if (!v) return c.fail(e);
      out = Scalar{*v};
      return true;
    });
  if (name == "abs" || name == "sign")
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      if (rs->is_float_scalar()) {
        double v = as_double(x[0]);
        out = Scalar{name == "abs" ? std::fabs(v) : double((v > 0) - (v < 0))};
      } else if (rs->kind == K::U32) {
        out = name == "abs" ? x[0] : Scalar{uint64_t(as_int(x[0]) != 0)};
      } else {
        int64_t v = as_int(x[0]);
        // abs of the largest negative value is itself, for every signed integer type (WGSL;
        // AbstractInt too: the CTS's abs:abstract_int expects it).
        if (name == "sign")
          out = int_scalar(rs, (v > 0) - (v < 0));
        else
          out = int_scalar(rs, v < 0 && v != INT64_MIN ? -v : v);
      }
      return true;
    });
  if (name == "min" || name == "max" || name == "clamp")
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      auto lt = [&](const Scalar& a, const Scalar& b) {
        return rs->is_float_scalar() ? as_double(a) < as_double(b) : as_int(a) < as_int(b);
      };
      if (name == "min")
        out = lt(x[1], x[0]) ? x[1] : x[0];
      else if (name == "max")
        out = lt(x[0], x[1]) ? x[1] : x[0];
      else {
        if (lt(x[2], x[1])) return c.fail("low is greater than high");
        Scalar m = lt(x[0], x[1]) ? x[1] : x[0];
        out = lt(x[2], m) ? x[2] : m;
      }
      return true;
    });
  auto f2 = [&](auto fn) {
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      bool ok = true;
      std::vector<double> d;
      for (const auto& s : x) d.push_back(as_double(s));
      double v = fn(d, ok);
      if (!ok) return c.fail("arguments outside the domain");
      out = Scalar{v};
      return true;
    });
  };
  if (name == "atan2") return f2([](auto& d, bool&) { return std::atan2(d[0], d[1]); });
  if (name == "pow")
    return f2([](auto& d, bool& ok) {
      ok = !(d[0] < 0 || (d[0] == 0 && d[1] <= 0));
      return std::pow(d[0], d[1]);
    });
  if (name == "step") return f2([](auto& d, bool&) { return d[1] >= d[0] ? 1.0 : 0.0; });
  if (name == "fma") return f2([](auto& d, bool&) { return d[0] * d[1] + d[2]; });
  if (name == "mix")
    return f2([&](auto& d, bool& ok) {
      Steps st{rs};
      double v = st.add(st.mul(d[0], st.sub(1, d[2])), st.mul(d[1], d[2]));
      ok = st.ok;
      return v;
    });
  if (name == "smoothstep")
    return f2([](auto& d, bool& ok) {
      ok = d[0] < d[1];  // low >= high is an error (WGSL; the CTS expects it)
      double t = std::min(1.0, std::max(0.0, (d[2] - d[0]) / (d[1] - d[0])));
      return t * t * (3 - 2 * t);
    });
  if (name == "ldexp")
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      int64_t e = as_int(x[1]);
      int bias = rs->kind == K::F16 ? 15 : rs->kind == K::F32 ? 127 : 1023;
      if (e > bias + 1) return c.fail("the exponent " + std::to_string(e) + " is too large");
      const double v = std::ldexp(as_double(x[0]), int(std::max<int64_t>(e, -2000)));
      if (!std::isfinite(v)) return c.fail("the result of ldexp is not finite");
      out = Scalar{v};
      return true;
    });
  if (name == "frexp" || name == "modf") {
    const Type* t = args[0].type;
    ConstValue a, b;
    a.type = t;
    b.type = result->decl->members[1].type;
    for (const auto& s : args[0].scalars) {
      double v = as_double(s);
      if (name == "frexp") {
        int e = 0;
        double f = std::frexp(v, &e);
        a.scalars.push_back({f});
        b.scalars.push_back(b.type->scalar()->kind == K::I32 ? Scalar{int64_t(e)}
                                                             : Scalar{int64_t(e)});
      } else {
        double w = std::trunc(v);
        a.scalars.push_back({v - w});
        b.scalars.push_back({w});
      }
    }
    ConstValue out;
    out.type = result;
    out.elements = {a, b};
    return out;
  }
  auto vec_out = [&](std::vector<double> v) -> std::optional<ConstValue> {
    ConstValue out;
    out.type = result;
    for (double d : v) {
      auto r = to_float_type(d, rs, error);
      if (!r) return std::nullopt;
      out.scalars.push_back({*r});
    }
    return out;
  };
  Steps st{rs};
  auto steps_out = [&](std::vector<double> v) -> std::optional<ConstValue> {
    if (!st.ok) {
      c.fail("an intermediate value is not representable as '" + rs->wgsl() + "'");
      return std::nullopt;
    }
    return vec_out(std::move(v));
  };
  auto arg = [&](size_t a, size_t i) { return as_double(args[a].scalars[i]); };
  if (name == "dot") {
    if (rs->is_float_scalar()) return steps_out({st.dot(args[0].scalars, args[1].scalars)});
    // Abstract: each product and partial sum must fit in 64 bits (Tint; a sum in 128 bits
    // can wrap: 4 * (-2^63)^2 = 2^128). Concrete: wraps.
    __int128 s = 0;
    for (size_t i = 0; i < args[0].scalars.size(); i++) {
      const __int128 p = __int128(as_int(args[0].scalars[i])) * as_int(args[1].scalars[i]);
      s += p;
      if (rs->kind == K::AbstractInt &&
          (p > INT64_MAX || p < INT64_MIN || s > INT64_MAX || s < INT64_MIN)) {
        c.fail("overflow");
        return std::nullopt;
      }
    }
    if (rs->kind == K::AbstractInt) return scalar_value(result, Scalar{int64_t(s)});
    return scalar_value(result, int_scalar(rs, int64_t(s)));  // concrete: wraps
  }
  // length and distance of a scalar are abs (no square that could overflow: Tint's rule).
  if (name == "length") {
    if (args[0].scalars.size() == 1) return vec_out({std::fabs(arg(0, 0))});
    return steps_out({st.sqrt(st.dot(args[0].scalars, args[0].scalars))});
  }
  if (name == "distance") {
    std::vector<Scalar> d;
    for (size_t i = 0; i < args[0].scalars.size(); i++)
      d.push_back(Scalar{st.sub(arg(0, i), arg(1, i))});
    if (d.size() == 1) return steps_out({std::fabs(as_double(d[0]))});
    return steps_out({st.sqrt(st.dot(d, d))});
  }
  if (name == "normalize") {
    double l = st.sqrt(st.dot(args[0].scalars, args[0].scalars));
    if (st.ok && l == 0) {
      c.fail("the zero vector cannot be normalized");
      return std::nullopt;
    }
    std::vector<double> v;
    for (size_t i = 0; i < args[0].scalars.size(); i++) v.push_back(st.div(arg(0, i), l));
    return steps_out(v);
  }
  if (name == "cross") {
    auto a = [&](int i) { return arg(0, i); };
    auto b = [&](int i) { return arg(1, i); };
    auto m = [&](double x, double y) { return st.mul(x, y); };
    return steps_out({st.sub(m(a(1), b(2)), m(a(2), b(1))), st.sub(m(a(2), b(0)), m(a(0), b(2))),
                      st.sub(m(a(0), b(1)), m(a(1), b(0)))});
  }
  if (name == "faceForward") {
    double d = st.dot(args[1].scalars, args[2].scalars);
    std::vector<double> v;
    for (const auto& s : args[0].scalars) v.push_back(d < 0 ? as_double(s) : -as_double(s));
    return steps_out(v);
  }
  if (name == "reflect") {
    double d2 = st.mul(2, st.dot(args[1].scalars, args[0].scalars));
    std::vector<double> v;
    for (size_t i = 0; i < args[0].scalars.size(); i++)
      v.push_back(st.sub(arg(0, i), st.mul(d2, arg(1, i))));
    return steps_out(v);
  }
  if (name == "refract") {
    // k = 1 - eta^2 * (1 - dot(n, i)^2); k < 0: the zero vector, else
    // eta * i - (eta * dot(n, i) + sqrt(k)) * n.
    double eta = arg(2, 0);
    double d = st.dot(args[1].scalars, args[0].scalars);
    double k = st.sub(1, st.mul(st.mul(eta, eta), st.sub(1, st.mul(d, d))));
    std::vector<double> v;
    if (!st.ok || k < 0) {
      v.assign(args[0].scalars.size(), 0.0);
    } else {
      double f = st.add(st.mul(eta, d), st.sqrt(k));
      for (size_t i = 0; i < args[0].scalars.size(); i++)
        v.push_back(st.sub(st.mul(eta, arg(0, i)), st.mul(f, arg(1, i))));
    }
    return steps_out(v);
  }
  if (name == "determinant") {
    std::vector<double> m;
    for (const auto& s : args[0].scalars) m.push_back(as_double(s));
    return vec_out({det(m, args[0].type->n)});
  }
  if (name == "transpose") {
    const Type* t = args[0].type;
    std::vector<double> v;
    for (uint32_t r = 0; r < t->rows; r++)
      for (uint32_t col = 0; col < t->n; col++)
        v.push_back(as_double(args[0].scalars[col * t->rows + r]));
    return vec_out(v);
  }
  if (name == "countLeadingZeros" || name == "countOneBits" || name == "countTrailingZeros" ||
      name == "firstLeadingBit" || name == "firstTrailingBit" || name == "reverseBits")
    return componentwise(c, args, result, [&](const std::vector<Scalar>& x, Scalar& out) {
      uint32_t v = uint32_t(as_int(x[0]));
      int64_t r = 0;
      if (name == "countLeadingZeros")
        r = std::countl_zero(v);
      else if (name == "countOneBits")
        r = std::popcount(v);
      else if (name == "countTrailingZeros")
        r = std::countr_zero(v);
      else if (name == "firstTrailingBit")
        r = v == 0 ? -1 : std::countr_zero(v);
      else if (name == "firstLeadingBit") {
        uint32_t w = (rs->kind == K::I32 && (v >> 31)) ? ~v : v;
        r = w == 0 ? -1 : 31 - std::countl_zero(w);
      } else {
        uint32_t o = 0;
        for (int i = 0; i < 32; i++) o |= ((v >> i) & 1u) << (31 - i);
        r = o;
      }
      out = int_scalar(rs, r);
      return true;
    });
  if (name == "extractBits" || name == "insertBits") {
    bool ins = name == "insertBits";
    uint64_t off = uint64_t(as_int(args[ins ? 2 : 1].scalars[0]));
    uint64_t cnt = uint64_t(as_int(args[ins ? 3 : 2].scalars[0]));
    if (off + cnt > 32) {
      c.fail("'offset' + 'count' must be less than or equal to the bit width (32), got " +
             std::to_string(off) + " + " + std::to_string(cnt));
      return std::nullopt;
    }
    return componentwise(c, {args[0], ins ? args[1] : args[0]}, result,
                         [&](const std::vector<Scalar>& x, Scalar& out) {
                           uint32_t e = uint32_t(as_int(x[0]));
                           uint32_t mask = cnt == 32 ? ~0u : ((1u << cnt) - 1u);
                           if (ins) {
                             uint32_t n = uint32_t(as_int(x[1]));
                             uint32_t r = (e & ~(mask << off)) | ((n & mask) << off);
                             out = int_scalar(rs, r);
                           } else {
                             uint32_t v = cnt == 0 ? 0 : (e >> off) & mask;
                             if (rs->kind == K::I32 && cnt > 0 && cnt < 32 && (v >> (cnt - 1)) & 1)
                               v |= ~mask;
                             out = int_scalar(rs, v);
                           }
                           return true;
                         });
  }
  if (name == "all" || name == "any") {
    bool all = true, any = false;
    for (const auto& s : args[0].scalars) all &= as_bool(s), any |= as_bool(s);
    return scalar_value(result, Scalar{name == "all" ? all : any});
  }
  if (name == "select") {
    ConstValue out;
    out.type = result;
    const auto& cond = args[2].scalars;
    for (size_t i = 0; i < args[0].scalars.size(); i++)
      out.scalars.push_back(as_bool(cond[cond.size() == 1 ? 0 : i]) ? args[1].scalars[i]
                                                                    : args[0].scalars[i]);
    return out;
  }
  if (name.substr(0, 4) == "pack") {
    const auto& v = args[0].scalars;
    uint32_t r = 0;
    auto clampd = [](double x, double lo, double hi) { return std::min(hi, std::max(lo, x)); };
    if (name == "pack4x8snorm")
      for (int i = 0; i < 4; i++)
        r |= (uint32_t(int32_t(std::floor(0.5 + 127 * clampd(as_double(v[i]), -1, 1)))) & 0xff)
             << (8 * i);
    else if (name == "pack4x8unorm")
      for (int i = 0; i < 4; i++)
        r |= (uint32_t(std::floor(0.5 + 255 * clampd(as_double(v[i]), 0, 1))) & 0xff) << (8 * i);
    else if (name == "pack2x16snorm")
      for (int i = 0; i < 2; i++)
        r |= (uint32_t(int32_t(std::floor(0.5 + 32767 * clampd(as_double(v[i]), -1, 1)))) & 0xffff)
             << (16 * i);
    else if (name == "pack2x16unorm")
      for (int i = 0; i < 2; i++)
        r |= (uint32_t(std::floor(0.5 + 65535 * clampd(as_double(v[i]), 0, 1))) & 0xffff)
             << (16 * i);
    else if (name == "pack2x16float")
      for (int i = 0; i < 2; i++) {
        if (std::fabs(as_double(v[i])) > 65504.0) {  // beyond f16's range, even if it rounds in
          c.fail("pack2x16float: " + std::to_string(as_double(v[i])) + " is outside f16's range");
          return std::nullopt;
        }
        std::string e;
        auto h = to_float_type(as_double(v[i]), tt.f16(), e);
        if (!h) {
          c.fail(e);
          return std::nullopt;
        }
        r |= uint32_t(f16_bits(*h)) << (16 * i);
      }
    else
      for (int i = 0; i < 4; i++) {
        int64_t x = as_int(v[i]);
        if (name == "pack4xI8Clamp") x = std::min<int64_t>(127, std::max<int64_t>(-128, x));
        if (name == "pack4xU8Clamp") x = std::min<int64_t>(255, x);
        r |= (uint32_t(x) & 0xff) << (8 * i);
      }
    return scalar_value(result, Scalar{uint64_t(r)});
  }
  if (name.substr(0, 6) == "unpack") {
    uint32_t u = uint32_t(as_int(args[0].scalars[0]));
    ConstValue out;
    out.type = result;
    for (uint32_t i = 0; i < result->n; i++) {
      if (name == "unpack4x8snorm")
        out.scalars.push_back({std::max(double(int8_t(u >> (8 * i))) / 127.0, -1.0)});
      else if (name == "unpack4x8unorm")
        out.scalars.push_back({double((u >> (8 * i)) & 0xff) / 255.0});
      else if (name == "unpack2x16snorm")
        out.scalars.push_back({std::max(double(int16_t(u >> (16 * i))) / 32767.0, -1.0)});
      else if (name == "unpack2x16unorm")
        out.scalars.push_back({double((u >> (16 * i)) & 0xffff) / 65535.0});
      else if (name == "unpack2x16float") {
        double h = from_f16_bits(uint16_t(u >> (16 * i)));
        if (!std::isfinite(h)) {
          c.fail("the half " + std::to_string(i) + " is not finite");
          return std::nullopt;
        }
        out.scalars.push_back({h});
      } else if (name == "unpack4xI8")
        out.scalars.push_back({int64_t(int8_t(u >> (8 * i)))});
      else
        out.scalars.push_back({uint64_t((u >> (8 * i)) & 0xff)});
      if (out.scalars.back().v.index() == 3)
        out.scalars.back() = Scalar{double(float(std::get<double>(out.scalars.back().v)))};
    }
    return out;
  }
  if (name == "dot4I8Packed" || name == "dot4U8Packed") {
    uint32_t a = uint32_t(as_int(args[0].scalars[0])), b = uint32_t(as_int(args[1].scalars[0]));
    int64_t s = 0;
    for (int i = 0; i < 4; i++) {
      if (name == "dot4I8Packed")
        s += int64_t(int8_t(a >> (8 * i))) * int8_t(b >> (8 * i));
      else
        s += int64_t((a >> (8 * i)) & 0xff) * ((b >> (8 * i)) & 0xff);
    }
    return scalar_value(result, int_scalar(rs, s));
  }
  if (name == "bitcast") {
    // Through a little-endian 16-bit word stream.
    std::vector<uint16_t> words;
    const Type* fs = args[0].type->scalar();
    for (const auto& s : args[0].scalars) {
      uint32_t b;
      if (fs->kind == K::F16) {
        words.push_back(f16_bits(as_double(s)));
        continue;
      }
      b = fs->kind == K::F32 ? f32_bits(as_double(s)) : uint32_t(as_int(s));
      words.push_back(uint16_t(b));
      words.push_back(uint16_t(b >> 16));
    }
    ConstValue out;
    out.type = result;
    size_t w = 0;
    for (uint32_t i = 0; i < component_count(result); i++) {
      if (rs->kind == K::F16) {
        double h = from_f16_bits(words[w++]);
        if (!std::isfinite(h)) {
          c.fail("the result is not finite");
          return std::nullopt;
        }
        out.scalars.push_back({h});
        continue;
      }
      uint32_t b = uint32_t(words[w]) | (uint32_t(words[w + 1]) << 16);
      w += 2;
      if (rs->kind == K::F32) {
        double f = from_f32_bits(b);
        if (!std::isfinite(f)) {
          c.fail("the result is not finite");
          return std::nullopt;
        }
        out.scalars.push_back({f});
      } else {
        out.scalars.push_back(int_scalar(rs, b));
      }
    }
    return out;
  }
  error = std::string(name) + " is not a const function";
  return std::nullopt;
}

}  // namespace wgslvk::wgsl
