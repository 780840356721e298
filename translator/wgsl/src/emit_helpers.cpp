// The WGSL-semantics helpers of the GLSL emitter: where a WGSL operation or builtin means
// something GLSL leaves undefined or spells differently, the translation calls one of these small
// functions, each written into the output only when used, with a comment citing the WGSL rule.
// Where Tint writes a polyfill for the same reason, the helper matches it (named below).
#include "emit_internal.hpp"
#include "emit_names.hpp"

namespace wgslvk::wgsl::emit {

std::string glsl_type_of(const Type* t) {
  t = value_type(t);
  if (t && t->kind == Type::Kind::Vector) return vector_prefix(t->elem) + std::to_string(t->n);
  return scalar_name(scalar_of(t));
}

namespace {

uint32_t width(const Type* t) {
  t = value_type(t);
  return t && t->kind == Type::Kind::Vector ? t->n : 1;
}

// "x.x, ..." per component: f(a.x, b.x), f(a.y, b.y), ...
std::string per_component(const Type* t, const std::string& f, const std::vector<std::string>& a) {
  uint32_t n = width(t);
  std::string s = glsl_type_of(t) + "(";
  for (uint32_t i = 0; i < n; ++i) {
    s += (i ? ", " : "") + f + "(";
    for (size_t k = 0; k < a.size(); ++k) s += (k ? ", " : "") + a[k] + "." + "xyzw"[i];
    s += ")";
  }
  return s + ")";
}

const Type* scalar_twin(const Type* t) { return scalar_of(t); }

}  // namespace

bool Helpers::add(const std::string& name, const std::string& def) {
  if (defs_.count(name)) return false;
  defs_[name] = def;
  order_.push_back(name);
  return true;
}

std::string Helpers::code() const {
  std::string s;
  for (const auto& n : order_) s += defs_.at(n) + "\n";
  return s;
}

std::string Helpers::int_div(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_div_" + T;
  if (has(name)) return name;
  if (width(t) > 1) {
    std::string s = int_div(scalar_twin(t));
    add(name, T + " " + name + "(" + T + " x, " + T + " y) {\n    return " +
                  per_component(t, s, {"x", "y"}) + ";\n}\n");
  } else if (is_signed(t)) {
    add(name,
        "// WGSL: x / 0 is x and INT_MIN / -1 is INT_MIN (GLSL: undefined); as Tint's "
        "tint_div_i32.\n"
        "int " +
            name +
            "(int x, int y) {\n"
            "    return x / (((y == 0) || ((x == (-2147483647 - 1)) && (y == -1))) ? 1 : y);\n}\n");
  } else {
    add(name, "// WGSL: x / 0u is x (GLSL: undefined).\nuint " + name +
                  "(uint x, uint y) {\n    return x / ((y == 0u) ? 1u : y);\n}\n");
  }
  return name;
}

std::string Helpers::int_mod(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_mod_" + T;
  if (has(name)) return name;
  if (width(t) > 1) {
    std::string s = int_mod(scalar_twin(t));
    add(name, T + " " + name + "(" + T + " x, " + T + " y) {\n    return " +
                  per_component(t, s, {"x", "y"}) + ";\n}\n");
  } else if (is_signed(t)) {
    add(name,
        "// WGSL: x % 0 is 0, INT_MIN % -1 is 0, and the result has the sign of x (truncated\n"
        "// division); GLSL's % is undefined for those and for negative operands. As Tint.\n"
        "int " +
            name +
            "(int x, int y) {\n"
            "    int d = ((y == 0) || ((x == (-2147483647 - 1)) && (y == -1))) ? 1 : y;\n"
            "    return x - (x / d) * d;\n}\n");
  } else {
    add(name, "// WGSL: x % 0u is 0 (GLSL: undefined).\nuint " + name +
                  "(uint x, uint y) {\n    return x % ((y == 0u) ? 1u : y);\n}\n");
  }
  return name;
}

std::string Helpers::float_mod(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_fmod_" + T;
  add(name, "// WGSL's % on floats truncates: x - y * trunc(x / y) (GLSL's mod() floors).\n" + T +
                " " + name + "(" + T + " x, " + T + " y) {\n    return x - y * trunc(x / y);\n}\n");
  return name;
}

std::string Helpers::float_to_int(const Type* from, const Type* to) {
  std::string F = glsl_type_of(from), I = glsl_type_of(to);
  std::string name = "wgsl_convert_" + F + "_" + I;
  if (has(name)) return name;
  if (width(from) > 1) {
    std::string s = float_to_int(scalar_of(from), scalar_of(to));
    add(name,
        I + " " + name + "(" + F + " v) {\n    return " + per_component(to, s, {"v"}) + ";\n}\n");
    return name;
  }
  bool f16 = scalar_of(from)->kind == Type::Kind::F16;
  bool sgn = is_signed(to);
  // Tint's tint_f32_to_i32 & co.: the largest f32 below 2^31 is 2147483520, below 2^32
  // 4294967040; f16's range is within both. NaN fails the first test: the maximum, as Tint.
  std::string hi = f16 ? "float16_t(65504.0)" : sgn ? "2147483520.0" : "4294967040.0";
  std::string lo =
      sgn ? (f16 ? "float16_t(-65504.0)" : "-2147483648.0") : (f16 ? "float16_t(0.0)" : "0.0");
  std::string lo_v = sgn ? "(-2147483647 - 1)" : "0u";
  std::string hi_v = sgn ? "2147483647" : "4294967295u";
  add(name, "// WGSL's float -> integer conversion saturates (GLSL: undefined out of range).\n" +
                I + " " + name + "(" + F + " v) {\n    return (v <= " + hi + ") ? ((v >= " + lo +
                ") ? " + I + "(v) : " + lo_v + ") : " + hi_v + ";\n}\n");
  return name;
}

std::string Helpers::extract_bits(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_extract_bits_" + T;
  add(name,
      "// WGSL extractBits: offset and count clamped, o = min(offset, 32), c = min(count, 32 - o)\n"
      "// (GLSL's bitfieldExtract is undefined past bit 32).\n" +
          T + " " + name + "(" + T +
          " e, uint offset, uint count) {\n"
          "    uint o = min(offset, 32u);\n    uint c = min(count, 32u - o);\n"
          "    return bitfieldExtract(e, int(o), int(c));\n}\n");
  return name;
}

std::string Helpers::insert_bits(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_insert_bits_" + T;
  add(name, "// WGSL insertBits: offset and count clamped as in extractBits.\n" + T + " " + name +
                "(" + T + " e, " + T +
                " newbits, uint offset, uint count) {\n"
                "    uint o = min(offset, 32u);\n    uint c = min(count, 32u - o);\n"
                "    return bitfieldInsert(e, newbits, int(o), int(c));\n}\n");
  return name;
}

std::string Helpers::count_leading_zeros(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string U = width(t) > 1 ? "uvec" + std::to_string(width(t)) : "uint";
  std::string name = "wgsl_count_leading_zeros_" + T;
  add(name, "// WGSL countLeadingZeros (32 for 0) from findMSB of the bits as unsigned.\n" + T +
                " " + name + "(" + T + " x) {\n    return " + T + "(31 - findMSB(" + U +
                "(x)));\n}\n");
  return name;
}

std::string Helpers::count_trailing_zeros(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string U = width(t) > 1 ? "uvec" + std::to_string(width(t)) : "uint";
  std::string name = "wgsl_count_trailing_zeros_" + T;
  add(name, "// WGSL countTrailingZeros (32 for 0): findLSB gives -1 for 0.\n" + T + " " + name +
                "(" + T + " x) {\n    return " + T + "(min(" + U + "(findLSB(x)), 32u));\n}\n");
  return name;
}

std::string Helpers::int_dot(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string S = scalar_name(scalar_of(t));
  std::string name = "wgsl_dot_" + T;
  std::string sum;
  for (uint32_t i = 0; i < width(t); ++i) sum += std::string(i ? " + " : "") + "p." + "xyzw"[i];
  add(name, "// WGSL dot on integer vectors (GLSL's dot is float only); wraps on overflow.\n" + S +
                " " + name + "(" + T + " a, " + T + " b) {\n    " + T + " p = a * b;\n    return " +
                sum + ";\n}\n");
  return name;
}

std::string Helpers::unpack(const std::string& w) {
  std::string name = "wgsl_" + w;
  if (w == "unpack4xI8")
    add(name, "// WGSL unpack4xI8: each byte sign-extended.\nivec4 " + name +
                  "(uint v) {\n    return ivec4(int(v) << 24, int(v) << 16, int(v) << 8, int(v)) "
                  ">> 24;\n}\n");
  else
    add(name, "// WGSL unpack4xU8: each byte zero-extended.\nuvec4 " + name +
                  "(uint v) {\n    return (uvec4(v) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;\n}\n");
  return name;
}

std::string Helpers::pack(const std::string& w) {
  std::string name = "wgsl_" + w;
  if (has(name)) return name;
  if (w == "pack4xI8") {
    add(name, "// WGSL pack4xI8: the low byte of each component, x in bits 0..7.\nuint " + name +
                  "(ivec4 v) {\n    uvec4 b = uvec4(v) & 0xffu;\n"
                  "    return b.x | (b.y << 8) | (b.z << 16) | (b.w << 24);\n}\n");
  } else if (w == "pack4xU8") {
    add(name, "// WGSL pack4xU8: the low byte of each component, x in bits 0..7.\nuint " + name +
                  "(uvec4 v) {\n    uvec4 b = v & 0xffu;\n"
                  "    return b.x | (b.y << 8) | (b.z << 16) | (b.w << 24);\n}\n");
  } else if (w == "pack4xI8Clamp") {
    std::string p = pack("pack4xI8");
    add(name, "// WGSL pack4xI8Clamp: clamped to [-128, 127], then packed.\nuint " + name +
                  "(ivec4 v) {\n    return " + p + "(min(max(v, ivec4(-128)), ivec4(127)));\n}\n");
  } else if (w == "pack4xU8Clamp") {
    std::string p = pack("pack4xU8");
    add(name, "// WGSL pack4xU8Clamp: clamped to [0, 255], then packed.\nuint " + name +
                  "(uvec4 v) {\n    return " + p + "(min(v, uvec4(255u)));\n}\n");
  } else if (w == "pack4x8snorm") {
    std::string p = pack("pack4xI8");
    add(name,
        "// WGSL pack4x8snorm: floor(0.5 + 127 * min(1, max(-1, e))) per component, as the spec\n"
        "// writes it (GLSL's packSnorm4x8 rounds with round(), whose ties are unspecified).\n"
        "uint " +
            name + "(vec4 v) {\n    return " + p +
            "(ivec4(floor(0.5 + 127.0 * min(vec4(1.0), max(vec4(-1.0), v)))));\n}\n");
  } else if (w == "pack4x8unorm") {
    std::string p = pack("pack4xU8");
    add(name,
        "// WGSL pack4x8unorm: floor(0.5 + 255 * min(1, max(0, e))) per component (spec).\n"
        "uint " +
            name + "(vec4 v) {\n    return " + p +
            "(uvec4(floor(0.5 + 255.0 * min(vec4(1.0), max(vec4(0.0), v)))));\n}\n");
  } else if (w == "pack2x16snorm") {
    add(name,
        "// WGSL pack2x16snorm: floor(0.5 + 32767 * min(1, max(-1, e))) per component (spec).\n"
        "uint " +
            name +
            "(vec2 v) {\n    ivec2 q = ivec2(floor(0.5 + 32767.0 * min(vec2(1.0), max(vec2(-1.0), "
            "v))));\n    return (uint(q.x) & 0xffffu) | (uint(q.y) << 16);\n}\n");
  } else if (w == "pack2x16unorm") {
    add(name,
        "// WGSL pack2x16unorm: floor(0.5 + 65535 * min(1, max(0, e))) per component (spec).\n"
        "uint " +
            name +
            "(vec2 v) {\n    uvec2 q = uvec2(floor(0.5 + 65535.0 * min(vec2(1.0), max(vec2(0.0), "
            "v))));\n    return q.x | (q.y << 16);\n}\n");
  }
  return name;
}

std::string Helpers::dot4_packed(bool is_signed) {
  if (is_signed) {
    std::string u = unpack("unpack4xI8");
    std::string name = "wgsl_dot4I8Packed";
    add(name, "// WGSL dot4I8Packed: the dot product of the four signed bytes of each.\nint " +
                  name + "(uint a, uint b) {\n    ivec4 p = " + u + "(a) * " + u +
                  "(b);\n    return p.x + p.y + p.z + p.w;\n}\n");
    return name;
  }
  std::string u = unpack("unpack4xU8");
  std::string name = "wgsl_dot4U8Packed";
  add(name, "// WGSL dot4U8Packed: the dot product of the four unsigned bytes of each.\nuint " +
                name + "(uint a, uint b) {\n    uvec4 p = " + u + "(a) * " + u +
                "(b);\n    return p.x + p.y + p.z + p.w;\n}\n");
  return name;
}

std::string Helpers::quantize_f16(const Type* t) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_quantize_f16_" + T;
  if (has(name)) return name;
  if (width(t) > 1) {
    std::string s = quantize_f16(scalar_of(t));
    add(name,
        T + " " + name + "(" + T + " v) {\n    return " + per_component(t, s, {"v"}) + ";\n}\n");
    return name;
  }
  // SPIR-V's OpQuantizeToF16 (116), as Tint's SPIR-V writer: NVIDIA (H200, 580.159) folds
  // unpackHalf2x16(packHalf2x16(v)) and float(float16_t(v)) to v (cts/f16_probe); the header
  // enables GL_EXT_spirv_intrinsics when this is used.
  add(name, "spirv_instruction(id = 116) float " + name + "(float v);  // OpQuantizeToF16\n");
  return name;
}

std::string Helpers::bitcast(const Type* from, const Type* to) {
  std::string F = glsl_type_of(from), T = glsl_type_of(to);
  std::string name = "wgsl_bitcast_" + F + "_" + T;
  if (has(name)) return name;
  // Through 32-bit words: uint for 32 bits, uvec2 for 64.
  auto f16 = [](const Type* t) { return scalar_of(t)->kind == Type::Kind::F16; };
  uint32_t wf = width(from), wt = width(to);
  uint32_t words = f16(from) ? wf / 2 : wf;
  std::string W = words > 1 ? "uvec" + std::to_string(words) : "uint";
  std::string to_words;
  if (f16(from))
    to_words = wf == 2 ? "packFloat2x16(v)" : "uvec2(packFloat2x16(v.xy), packFloat2x16(v.zw))";
  else if (is_float(from))
    to_words = "floatBitsToUint(v)";
  else
    to_words = W + "(v)";
  std::string from_words;
  if (f16(to))
    from_words =
        wt == 2 ? "unpackFloat2x16(w)" : "f16vec4(unpackFloat2x16(w.x), unpackFloat2x16(w.y))";
  else if (is_float(to))
    from_words = "uintBitsToFloat(w)";
  else
    from_words = T + "(w)";
  add(name, "// WGSL bitcast<" + T + ">(" + F + "): the same bits, through 32-bit words.\n" + T +
                " " + name + "(" + F + " v) {\n    " + W + " w = " + to_words + ";\n    return " +
                from_words + ";\n}\n");
  return name;
}

std::string Helpers::frexp(const Type* t, const std::string& result) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_frexp_" + T;
  add(name, "// WGSL frexp returns a struct; GLSL's frexp an out parameter.\n" + result + " " +
                name + "(" + T + " v) {\n    " + result + " r;\n    r." + mangle("fract") +
                " = frexp(v, r." + mangle("exp") + ");\n    return r;\n}\n");
  return name;
}

std::string Helpers::modf(const Type* t, const std::string& result) {
  std::string T = glsl_type_of(t);
  std::string name = "wgsl_modf_" + T;
  add(name, "// WGSL modf returns a struct; GLSL's modf an out parameter.\n" + result + " " + name +
                "(" + T + " v) {\n    " + result + " r;\n    r." + mangle("fract") +
                " = modf(v, r." + mangle("whole") + ");\n    return r;\n}\n");
  return name;
}

}  // namespace wgslvk::wgsl::emit
