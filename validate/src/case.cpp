#include "wgslvk/validate/case.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "wgslvk/numeric.hpp"
#include "wgslvk/validate/untrusted.hpp"

namespace wgslvk::validate {

namespace fs = std::filesystem;

uint64_t splitmix64_at(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

ojson json_f32(float f) {
  char buf[64];
  for (int p = 6; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, double(f));
    if (float(std::strtod(buf, nullptr)) == f) return ojson(std::strtod(buf, nullptr));
  }
  return ojson(double(f));
}

namespace {

// A json value with the path that leads to it, for error messages.
struct Node {
  const ojson& j;
  std::string path;
  const std::string& file;

  [[noreturn]] void fail(const std::string& msg) const {
    throw CaseError(file + ": " + (path.empty() ? "" : path + ": ") + msg);
  }
  bool has(const char* k) const { return j.is_object() && j.contains(k); }
  Node at(const char* k) const {
    if (!j.is_object()) fail("expected an object, got " + show(j));
    if (!j.contains(k)) fail(std::string("missing field '") + k + "'");
    return Node{j.at(k), path.empty() ? k : path + "." + k, file};
  }
  Node at(size_t i) const { return Node{j.at(i), path + "[" + std::to_string(i) + "]", file}; }
  std::string str() const {
    if (!j.is_string()) fail("expected a string, got " + show(j));
    return j.get<std::string>();
  }
  // A string that becomes one path component (a case, buffer or file name).
  std::string component() const {
    std::string s = str();
    if (std::string p = component_problem(s); !p.empty())
      fail("'" + bounded(utf8_safe(s), 60) + "' " + p +
           " (it names a file or folder: one name, no path)");
    return s;
  }
  // "family/entry": a kernel name, each part one path component (it names the dump folder).
  std::string kernel_name() const {
    std::string s = str();
    auto slash = s.find('/');
    std::string p = slash == std::string::npos ? "is not of the form 'family/entry'"
                                               : component_problem(s.substr(0, slash));
    if (p.empty()) p = component_problem(s.substr(slash + 1));
    if (!p.empty())
      fail("kernel '" + bounded(utf8_safe(s), 60) + "' " + p +
           " (expected 'family/entry', e.g. 'optimizer/adamw_update')");
    return s;
  }
  uint64_t u64() const {
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
      fail("expected an unsigned integer, got " + show(j));
    return j.get<uint64_t>();
  }
  uint32_t u32() const {
    uint64_t v = u64();
    if (v > UINT32_MAX) fail("value " + std::to_string(v) + " does not fit in 32 bits");
    return uint32_t(v);
  }
  double num() const {
    if (!j.is_number()) fail("expected a number, got " + show(j));
    return j.get<double>();
  }
  const ojson& arr() const {
    if (!j.is_array()) fail("expected an array, got " + show(j));
    return j;
  }
  void only(std::initializer_list<const char*> keys) const {
    if (!j.is_object()) fail("expected an object, got " + show(j));
    for (auto it = j.begin(); it != j.end(); ++it)
      if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return it.key() == k; })) {
        std::string known;
        for (auto k : keys) known += std::string(known.empty() ? "" : ", ") + k;
        fail("unknown field '" + bounded(utf8_safe(it.key()), 60) + "' (allowed: " + known + ")");
      }
  }
};

DType node_dtype(const Node& n) {
  try {
    return parse_dtype(n.str());
  } catch (const std::invalid_argument& e) { n.fail(e.what()); }
}

// An array file of the case: one file name (no path, no symlink, a regular file of at most
// kMaxCaseFileBytes), holding at least one element.
Array load_npy(const fs::path& dir, const Node& n) {
  std::string name = n.str();
  if (std::string p = component_problem(name); !p.empty())
    n.fail("'" + bounded(utf8_safe(name), 60) +
           "' must be a file name inside the case folder: it " + p);
  Array a;
  try {
    a = npy_decode(read_case_file(dir, name, kMaxCaseFileBytes), (dir / name).string());
  } catch (const std::exception& e) { n.fail(e.what()); }
  if (a.count() == 0) n.fail(name + " holds 0 elements (an empty array checks nothing)");
  return a;
}

// count elements of t as bytes, refused above kMaxCaseFileBytes (checked arithmetic).
uint64_t count_bytes(const Node& n, uint64_t count, DType t) {
  auto b = checked_mul(count, dtype_size(t));
  if (!b || *b > kMaxCaseFileBytes)
    n.fail(std::to_string(count) + " " + std::string(dtype_name(t)) +
           " elements are more than the " + std::to_string(kMaxCaseFileBytes) +
           " bytes a case buffer may hold");
  return *b;
}

}  // namespace

void encode_value(DType t, const ojson& v, std::vector<uint8_t>& out, const std::string& where) {
  auto fail = [&](const std::string& m) { throw CaseError(where + ": " + m); };
  size_t sz = dtype_size(t);
  uint64_t bits = 0;
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) {
      char* end = nullptr;
      errno = 0;
      bits = std::strtoull(s.c_str() + 2, &end, 16);
      if (s.size() == 2 || *end || !std::isxdigit(static_cast<unsigned char>(s[2])) ||
          errno == ERANGE)
        fail("bad bit pattern " + show(v));
      if (sz < 8 && bits >> (8 * sz))
        fail("bit pattern " + show(v) + " is wider than " + std::string(dtype_name(t)));
    } else if (dtype_is_float(t) && (s == "nan" || s == "inf" || s == "-inf")) {
      float f =
          s == "nan" ? std::bit_cast<float>(0x7fc00000u) : (s == "inf" ? INFINITY : -INFINITY);
      bits = t == DType::F32 ? std::bit_cast<uint32_t>(f) : f32_to_f16_bits(f);
    } else {
      fail("expected a number, \"nan\", \"inf\", \"-inf\" or a \"0x...\" bit pattern, got " +
           show(v));
    }
  } else if (v.is_number()) {
    if (dtype_is_float(t)) {
      double d = v.get<double>();
      if (std::fabs(d) > double(std::numeric_limits<float>::max()))
        fail("value " + show(v) + " is out of range for " + std::string(dtype_name(t)) +
             " (write \"inf\" or \"-inf\" for infinities)");
      float f = float(d);
      bits = t == DType::F32 ? std::bit_cast<uint32_t>(f) : f32_to_f16_bits(f);
      // f16 as f32 above: a finite value that rounds to infinity is refused (70000 once became
      // +inf silently).
      if (t != DType::F32 && (bits & 0x7fff) == 0x7c00)
        fail("value " + show(v) + " is out of range for " + std::string(dtype_name(t)) +
             " (largest finite 65504; write \"inf\" or \"-inf\" for infinities)");
    } else {
      if (!v.is_number_integer())
        fail("expected an integer for " + std::string(dtype_name(t)) + ", got " + v.dump());
      bool is_signed = t == DType::I32 || t == DType::I16 || t == DType::I8;
      int64_t i = v.is_number_unsigned() ? int64_t(v.get<uint64_t>()) : v.get<int64_t>();
      int64_t lo = is_signed ? -(int64_t(1) << (8 * sz - 1)) : 0;
      int64_t hi =
          is_signed ? (int64_t(1) << (8 * sz - 1)) - 1 : int64_t((uint64_t(1) << (8 * sz)) - 1);
      if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi)) i = hi + 1;
      if (i < lo || i > hi)
        fail("value " + v.dump() + " is out of range for " + std::string(dtype_name(t)));
      bits = uint64_t(i);
    }
  } else {
    fail("expected a value, got " + v.dump());
  }
  for (size_t b = 0; b < sz; ++b) out.push_back(uint8_t(bits >> (8 * b)));
}

std::vector<uint8_t> encode_inline(const ojson& segments, const std::string& where) {
  std::vector<uint8_t> out;
  auto segment = [&](const ojson& seg, const std::string& w) {
    if (!seg.is_object() || seg.size() != 1)
      throw CaseError(w + ": expected one {\"<dtype>\": [values]} object, got " + show(seg));
    auto it = seg.begin();
    DType t;
    try {
      t = parse_dtype(it.key());
    } catch (const std::invalid_argument& e) { throw CaseError(w + ": " + e.what()); }
    if (!it.value().is_array())
      throw CaseError(w + "." + it.key() + ": expected an array of values");
    if (it.value().size() > (uint64_t(1) << 20))
      throw CaseError(w + "." + it.key() + ": " + std::to_string(it.value().size()) +
                      " inline values (at most 2^20; use a buffer with a .npy file)");
    for (size_t i = 0; i < it.value().size(); ++i)
      encode_value(t, it.value()[i], out, w + "." + it.key() + "[" + std::to_string(i) + "]");
  };
  if (segments.is_array()) {
    for (size_t i = 0; i < segments.size(); ++i)
      segment(segments[i], where + "[" + std::to_string(i) + "]");
  } else {
    segment(segments, where);
  }
  if (out.empty()) throw CaseError(where + ": no values");
  out.resize((out.size() + 15) / 16 * 16, 0);
  return out;
}

uint64_t BufferSpec::byte_size() const {
  uint64_t b = kind == Kind::File ? data.bytes.size() : count * dtype_size(dtype);
  return (b + 3) / 4 * 4;
}

std::vector<uint8_t> BufferSpec::initial_bytes() const {
  std::vector<uint8_t> out;
  out.reserve(byte_size());
  if (kind == Kind::File) {
    out = data.bytes;
  } else if (kind == Kind::Fill) {
    size_t sz = dtype_size(dtype);
    std::vector<uint8_t> one;
    if (poison) {
      uint32_t p = sz == 4 ? kPoison32 : sz == 2 ? kPoison16 : kPoison8;
      for (size_t b = 0; b < sz; ++b) one.push_back(uint8_t(p >> (8 * b)));
    } else {
      encode_value(dtype, fill_value, one, "buffers." + name + ".fill");
    }
    out.resize(count * sz);
    for (uint64_t i = 0; i < count; ++i) std::memcpy(out.data() + i * sz, one.data(), sz);
  } else {
    size_t sz = dtype_size(dtype);
    out.resize(count * sz);
    std::vector<std::vector<uint8_t>> choices;
    if (gen.kind == "choice")
      for (size_t k = 0; k < gen.values.size(); ++k) {
        choices.emplace_back();
        encode_value(dtype, gen.values[k], choices.back(),
                     "buffers." + name + ".generate.values[" + std::to_string(k) + "]");
      }
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t r = splitmix64_at(gen.seed, i);
      if (gen.kind == "choice") {
        std::memcpy(out.data() + i * sz, choices[r % choices.size()].data(), sz);
      } else {  // uniform: lo + (hi - lo) * u, u = top 24 bits / 2^24, in double, rounded once
        double u = double(r >> 40) * 0x1p-24;
        double v = gen.lo + (gen.hi - gen.lo) * u;
        std::vector<uint8_t> one;
        if (dtype_is_float(dtype))
          encode_value(dtype, ojson(v), one, name);
        else
          encode_value(dtype, ojson(int64_t(std::floor(v))), one, name);
        std::memcpy(out.data() + i * sz, one.data(), sz);
      }
    }
  }
  out.resize(byte_size(), 0);
  return out;
}

const BufferSpec* Case::find_buffer(const std::string& n) const {
  for (const auto& b : buffers)
    if (b.name == n) return &b;
  return nullptr;
}

namespace {

// One entry of "buffers", `name` its key.
BufferSpec parse_buffer(const Node& b, const std::string& name, const fs::path& dir,
                        bool load_files) {
  const std::string& file = b.file;
  if (std::string p = component_problem(name); !p.empty())
    b.fail("the buffer name " + p + " (it names the dump file <buffer>.actual.npy)");
  BufferSpec s;
  s.name = name;
  if (b.has("file")) {
    b.only({"file"});
    s.kind = BufferSpec::Kind::File;
    s.file = b.at("file").component();
    if (load_files) s.data = load_npy(dir, b.at("file"));
  } else if (b.has("generate")) {
    b.only({"generate"});
    Node g = b.at("generate");
    g.only({"dtype", "count", "kind", "seed", "lo", "hi", "values"});
    s.kind = BufferSpec::Kind::Generate;
    s.dtype = node_dtype(g.at("dtype"));
    s.count = g.at("count").u64();
    if (s.count == 0) g.at("count").fail("a buffer needs at least one element");
    count_bytes(g.at("count"), s.count, s.dtype);
    s.gen.kind = g.at("kind").str();
    s.gen.seed = g.at("seed").u64();
    if (s.gen.kind == "uniform") {
      s.gen.lo = g.at("lo").num();
      s.gen.hi = g.at("hi").num();
      // Every generated value must be representable: lo <= hi, both finite, within the type.
      double lim = s.dtype == DType::F32     ? double(std::numeric_limits<float>::max())
                   : dtype_is_float(s.dtype) ? 65504.0  // f16's largest finite value
                                             : 0;
      double tlo = -lim, thi = lim;
      if (!dtype_is_float(s.dtype)) {
        size_t bits = 8 * dtype_size(s.dtype);
        bool sg = s.dtype == DType::I32 || s.dtype == DType::I16 || s.dtype == DType::I8;
        tlo = sg ? -std::ldexp(1.0, int(bits) - 1) : 0.0;
        thi = sg ? std::ldexp(1.0, int(bits) - 1) : std::ldexp(1.0, int(bits));
      }
      if (!(std::isfinite(s.gen.lo) && std::isfinite(s.gen.hi) && s.gen.lo <= s.gen.hi &&
            s.gen.lo >= tlo && s.gen.hi <= thi))
        g.fail("uniform range [" + show(g.j.at("lo")) + ", " + show(g.j.at("hi")) +
               ") must be finite, ordered and within " + std::string(dtype_name(s.dtype)));
    } else if (s.gen.kind == "choice") {
      s.gen.values = g.at("values").arr();
      if (s.gen.values.empty()) g.at("values").fail("needs at least one value");
      std::vector<uint8_t> tmp;
      for (size_t k = 0; k < s.gen.values.size(); ++k)
        encode_value(s.dtype, s.gen.values[k], tmp,
                     file + ": " + g.path + ".values[" + std::to_string(k) + "]");
    } else {
      g.at("kind").fail("unknown generate kind '" + s.gen.kind + "' (known: uniform, choice)");
    }
  } else {
    b.only({"dtype", "count", "fill"});
    s.kind = BufferSpec::Kind::Fill;
    s.dtype = node_dtype(b.at("dtype"));
    s.count = b.at("count").u64();
    if (s.count == 0) b.at("count").fail("a buffer needs at least one element");
    count_bytes(b.at("count"), s.count, s.dtype);
    if (b.has("fill") && !(b.j.at("fill").is_string() && b.j.at("fill") == "poison")) {
      s.poison = false;
      s.fill_value = b.j.at("fill");
      std::vector<uint8_t> tmp;
      encode_value(s.dtype, s.fill_value, tmp, file + ": " + b.path + ".fill");
    }
  }
  return s;
}

// One entry of "dispatches"; its buffers must be among c's.
DispatchSpec parse_dispatch(const Node& d, const Case& c, bool load_files) {
  const std::string& file = d.file;
  d.only({"kernel", "label", "bindings", "workgroups", "workgroups_1d"});
  DispatchSpec s;
  s.kernel = d.at("kernel").kernel_name();
  if (d.has("label")) s.label = bounded(d.at("label").str(), 200);
  if (d.has("workgroups") == d.has("workgroups_1d"))
    d.fail("give exactly one of 'workgroups' ([x, y, z]) and 'workgroups_1d' (a count)");
  if (d.has("workgroups")) {
    Node w = d.at("workgroups");
    if (w.arr().size() < 1 || w.j.size() > 3) w.fail("expected [x], [x, y] or [x, y, z]");
    std::array<uint32_t, 3> wg{1, 1, 1};
    for (size_t k = 0; k < w.j.size(); ++k) {
      wg[k] = w.at(size_t(k)).u32();
      if (wg[k] == 0)
        w.at(size_t(k)).fail("0 workgroups run nothing (the case would check untouched outputs)");
    }
    s.workgroups = wg;
  } else {
    s.workgroups_1d = d.at("workgroups_1d").u64();
    if (s.workgroups_1d == 0)
      d.at("workgroups_1d")
          .fail("0 workgroups run nothing (the case would check untouched outputs)");
  }
  Node bs = d.at("bindings");
  for (size_t k = 0; k < bs.arr().size(); ++k) {
    Node b = bs.at(k);
    b.only({"group", "binding", "buffer", "offset", "size", "values"});
    BindingSpec bs2;
    bs2.group = b.at("group").u32();
    bs2.binding = b.at("binding").u32();
    if (b.has("values") == b.has("buffer"))
      b.fail("give exactly one of 'buffer' (a named buffer) and 'values' (inline values)");
    if (b.has("values")) {
      if (b.has("offset") || b.has("size"))
        b.fail("'offset'/'size' apply to 'buffer' bindings only");
      bs2.is_inline = true;
      bs2.inline_values = b.j.at("values");
      bs2.inline_bytes = encode_inline(bs2.inline_values, file + ": " + b.path + ".values");
    } else {
      bs2.buffer = b.at("buffer").str();
      const BufferSpec* buf = c.find_buffer(bs2.buffer);
      if (!buf)
        b.at("buffer").fail("no buffer named '" + bounded(utf8_safe(bs2.buffer), 60) +
                            "' in 'buffers'");
      if (b.has("offset")) bs2.offset = b.at("offset").u64();
      if (b.has("size")) bs2.size = b.at("size").u64();
      if (bs2.size && *bs2.size == 0)
        b.at("size").fail("a binding of 0 bytes (omit 'size' for the rest of the buffer)");
      if (load_files || buf->kind != BufferSpec::Kind::File) {
        // Checked: offset + size may not wrap (a wrapped range would print as [256, 0)).
        uint64_t total = buf->byte_size();
        std::string where =
            "lies outside buffer '" + bs2.buffer + "' of " + std::to_string(total) + " bytes";
        if (bs2.offset >= total) b.fail("offset " + std::to_string(bs2.offset) + " " + where);
        if (bs2.size && *bs2.size > total - bs2.offset)
          b.fail("range [" + std::to_string(bs2.offset) + ", " + std::to_string(bs2.offset) +
                 " + " + std::to_string(*bs2.size) + ") " + where);
      }
    }
    s.bindings.push_back(std::move(bs2));
  }
  return s;
}

// One entry of "checks"; its buffer must be among c's.
CheckSpec parse_check(const Node& k, const Case& c, const fs::path& dir, bool load_files) {
  k.only({"buffer", "expected", "range", "compare", "ulp", "magnitude", "reason"});
  CheckSpec s;
  s.buffer = k.at("buffer").str();
  const BufferSpec* buf = c.find_buffer(s.buffer);
  if (!buf)
    k.at("buffer").fail("no buffer named '" + bounded(utf8_safe(s.buffer), 60) + "' in 'buffers'");
  s.expected_file = k.at("expected").component();
  if (load_files) s.expected = load_npy(dir, k.at("expected"));
  s.reason = k.at("reason").str();
  if (s.reason.empty()) k.at("reason").fail("every check states why its comparison is what it is");
  std::string mode = k.at("compare").str();
  if (mode == "exact") {
    s.mode = CheckSpec::Mode::Exact;
    if (k.has("ulp") || k.has("magnitude"))
      k.fail("'ulp'/'magnitude' apply to \"compare\": \"ulp\" only");
  } else if (mode == "ulp") {
    s.mode = CheckSpec::Mode::Ulp;
    Node u = k.at("ulp");
    if (u.j.is_object()) {
      u.only({"file"});
      s.bound_file = u.at("file").component();
      if (load_files) s.bound_data = load_npy(dir, u.at("file"));
    } else {
      s.bound = u.num();
      if (!(s.bound >= 0 && std::isfinite(s.bound))) u.fail("the bound must be finite and >= 0");
    }
    if (k.has("magnitude")) {
      Node m = k.at("magnitude");
      if (m.j.is_string() && m.j == "self") {
      } else if (m.j.is_number()) {
        s.magnitude = CheckSpec::Magnitude::Scalar;
        s.magnitude_scalar = std::fabs(m.num());
        if (!std::isfinite(s.magnitude_scalar)) m.fail("the magnitude must be finite");
      } else if (m.j.is_object()) {
        m.only({"file"});
        s.magnitude = CheckSpec::Magnitude::File;
        s.magnitude_file = m.at("file").component();
        if (load_files) s.magnitude_data = load_npy(dir, m.at("file"));
      } else {
        m.fail("expected \"self\", a number, or {\"file\": \"<name>.npy\"}");
      }
    }
  } else {
    k.at("compare").fail("unknown comparison '" + mode + "' (known: exact, ulp)");
  }
  if (k.has("range")) {
    Node r = k.at("range");
    if (r.arr().size() != 2) r.fail("expected [begin, end) element indices");
    s.begin = r.at(size_t(0)).u64();
    s.end = r.at(1).u64();
    if (s.end <= s.begin) r.fail("empty range");
  }
  if (load_files) {
    if (s.mode == CheckSpec::Mode::Ulp && !dtype_is_float(s.expected.dtype))
      k.at("compare").fail("ulp comparison of integer data (" +
                           std::string(dtype_name(s.expected.dtype)) + "); use exact");
    if (dtype_size(s.expected.dtype) != dtype_size(buf->element_type()) &&
        buf->kind != BufferSpec::Kind::File)
      k.at("expected")
          .fail(s.expected_file + " holds " + std::string(dtype_name(s.expected.dtype)) +
                " elements but buffer '" + s.buffer + "' is declared as " +
                std::string(dtype_name(buf->element_type())) + " (element sizes differ)");
    uint64_t n = s.expected.count();
    if (n == 0)
      k.at("expected")
          .fail(s.expected_file + " holds 0 elements (an empty check passes vacuously)");
    if (s.range_end() > n)
      k.fail("range end " + std::to_string(s.range_end()) + " is past the " + std::to_string(n) +
             " elements of " + s.expected_file);
    if (s.expected.bytes.size() > buf->byte_size())
      k.fail(s.expected_file + " holds " + std::to_string(n) + " " +
             std::string(dtype_name(s.expected.dtype)) + " elements, more than buffer '" +
             s.buffer + "' (" + std::to_string(buf->byte_size()) + " bytes)");
    if (!s.bound_file.empty() && (s.bound_data.count() != n || !dtype_is_float(s.bound_data.dtype)))
      k.at("ulp").fail(s.bound_file + " must hold " + std::to_string(n) +
                       " float elements (one bound per element), like " + s.expected_file);
    if (s.magnitude == CheckSpec::Magnitude::File &&
        (s.magnitude_data.count() != n || !dtype_is_float(s.magnitude_data.dtype)))
      k.at("magnitude")
          .fail(s.magnitude_file + " must hold " + std::to_string(n) + " float elements, like " +
                s.expected_file);
  }
  return s;
}

}  // namespace

Case parse_case(const ojson& j, const fs::path& dir, bool load_files) {
  std::string file = (dir / "case.json").string();
  Node root{j, "", file};
  root.only(
      {"format", "kernel", "case", "description", "provenance", "buffers", "dispatches", "checks"});
  Case c;
  c.dir = dir;
  std::string fmt = root.at("format").str();
  if (fmt != kCaseFormat)
    root.at("format").fail("unsupported format '" + fmt + "' (this build reads '" + kCaseFormat +
                           "')");
  // Names that become path parts (--dump DIR/<kernel>/<case>/<buffer>.actual.npy) are single
  // path components from a safe alphabet (golden/README.md, "Untrusted input").
  c.kernel = root.at("kernel").kernel_name();
  c.name = root.has("case") ? root.at("case").component() : dir.filename().string();
  if (root.has("description")) c.description = root.at("description").str();
  if (root.has("provenance")) c.provenance = j.at("provenance");

  Node bufs = root.at("buffers");
  if (!bufs.j.is_object() || bufs.j.empty())
    bufs.fail("expected a non-empty object of named buffers");
  for (auto it = bufs.j.begin(); it != bufs.j.end(); ++it) {
    Node b{it.value(), "buffers." + bounded(utf8_safe(it.key()), 60), file};
    c.buffers.push_back(parse_buffer(b, it.key(), dir, load_files));
  }

  Node ds = root.at("dispatches");
  if (ds.arr().empty()) ds.fail("needs at least one dispatch");
  for (size_t i = 0; i < ds.j.size(); ++i) {
    c.dispatches.push_back(parse_dispatch(ds.at(i), c, load_files));
  }

  Node cs = root.at("checks");
  if (cs.arr().empty())
    cs.fail("needs at least one check (an output compared to its expected values)");
  for (size_t i = 0; i < cs.j.size(); ++i) {
    c.checks.push_back(parse_check(cs.at(i), c, dir, load_files));
  }
  return c;
}

Case load_case(const fs::path& dir) {
  fs::path f = dir / "case.json";
  std::vector<uint8_t> bytes;
  try {
    // Inside the case folder, not through a symlink, a regular file, at most 16 MiB.
    bytes = read_case_file(dir, "case.json", kMaxCaseJsonBytes);
  } catch (const std::exception& e) { throw CaseError(e.what()); }
  ojson j;
  try {
    // Nesting limited, duplicate keys refused: a second "checks" must not replace the first.
    j = parse_json_strict(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const std::exception& e) { throw CaseError(f.string() + ": invalid JSON: " + e.what()); }
  try {
    return parse_case(j, dir, true);
  } catch (const CaseError&) {
    throw;
  } catch (const std::exception& e) {  // never an implementation word without the file
    throw CaseError(f.string() + ": " + e.what());
  }
}

std::vector<fs::path> find_cases(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw CaseError(root.string() +
                    ": not a directory (golden/ is found through WGSLVK_SOURCE_DIR or "
                    "the build's source tree; --cases DIR names another)");
  // Symlinked folders are not followed (a link to / must not walk the whole disk); a case.json
  // that is a symlink or not a regular file is still listed, and load_case says what is wrong.
  if (fs::exists(fs::symlink_status(root / "case.json", ec))) out.push_back(root);
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw CaseError(root.string() + ": cannot list: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw CaseError(root.string() + ": cannot list: " + ec.message());
    if (it.depth() > 16) {
      it.disable_recursion_pending();
      continue;
    }
    const auto& e = *it;
    if (e.path().filename() == "case.json" && e.path().parent_path() != root &&
        !fs::is_directory(e.symlink_status(ec)))
      out.push_back(e.path().parent_path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

ojson case_to_json(const Case& c) {
  ojson j;
  j["format"] = kCaseFormat;
  j["kernel"] = c.kernel;
  j["case"] = c.name;
  j["description"] = c.description;
  j["provenance"] = c.provenance;
  ojson bufs = ojson::object();
  for (const auto& b : c.buffers) {
    ojson o;
    if (b.kind == BufferSpec::Kind::File) {
      o["file"] = b.file;
    } else if (b.kind == BufferSpec::Kind::Fill) {
      o["dtype"] = dtype_name(b.dtype);
      o["count"] = b.count;
      o["fill"] = b.poison ? ojson("poison") : b.fill_value;
    } else {
      ojson g;
      g["dtype"] = dtype_name(b.dtype);
      g["count"] = b.count;
      g["kind"] = b.gen.kind;
      g["seed"] = b.gen.seed;
      if (b.gen.kind == "uniform") {
        g["lo"] = b.gen.lo;
        g["hi"] = b.gen.hi;
      } else {
        g["values"] = b.gen.values;
      }
      o["generate"] = g;
    }
    bufs[b.name] = o;
  }
  j["buffers"] = bufs;
  ojson ds = ojson::array();
  for (const auto& d : c.dispatches) {
    ojson o;
    o["kernel"] = d.kernel;
    if (!d.label.empty()) o["label"] = d.label;
    ojson bs = ojson::array();
    for (const auto& b : d.bindings) {
      ojson e;
      e["group"] = b.group;
      e["binding"] = b.binding;
      if (b.is_inline) {
        e["values"] = b.inline_values;
      } else {
        e["buffer"] = b.buffer;
        if (b.offset) e["offset"] = b.offset;
        if (b.size) e["size"] = *b.size;
      }
      bs.push_back(e);
    }
    o["bindings"] = bs;
    if (d.workgroups)
      o["workgroups"] = *d.workgroups;
    else
      o["workgroups_1d"] = d.workgroups_1d;
    ds.push_back(o);
  }
  j["dispatches"] = ds;
  ojson cs = ojson::array();
  for (const auto& k : c.checks) {
    ojson o;
    o["buffer"] = k.buffer;
    o["expected"] = k.expected_file;
    if (k.begin || k.end) o["range"] = {k.begin, k.range_end()};
    if (k.mode == CheckSpec::Mode::Exact) {
      o["compare"] = "exact";
    } else {
      o["compare"] = "ulp";
      if (k.bound_file.empty())
        o["ulp"] = k.bound;
      else
        o["ulp"] = {{"file", k.bound_file}};
      if (k.magnitude == CheckSpec::Magnitude::Scalar)
        o["magnitude"] = k.magnitude_scalar;
      else if (k.magnitude == CheckSpec::Magnitude::File)
        o["magnitude"] = {{"file", k.magnitude_file}};
      else
        o["magnitude"] = "self";
    }
    o["reason"] = k.reason;
    cs.push_back(o);
  }
  j["checks"] = cs;
  return j;
}

namespace {
// JSON text for people: objects indented, but arrays of scalars and small objects on one line.
std::string compact(const ojson& j) {
  if (j.is_object()) {
    std::string s = "{";
    for (auto it = j.begin(); it != j.end(); ++it)
      s += (s.size() > 1 ? ", " : "") + ojson(it.key()).dump() + ": " + compact(it.value());
    return s + "}";
  }
  if (j.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + compact(j[i]);
    return s + "]";
  }
  return j.dump();
}
void pretty(const ojson& j, int indent, std::string& out) {
  std::string one = compact(j);
  if ((!j.is_object() && !j.is_array()) || indent + one.size() <= 100 ||
      (j.is_array() &&
       std::all_of(j.begin(), j.end(), [](const ojson& x) { return x.is_primitive(); }))) {
    out += one;
    return;
  }
  std::string pad(indent + 2, ' ');
  bool obj = j.is_object();
  out += obj ? "{\n" : "[\n";
  size_t k = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++k) {
    out += pad;
    if (obj) out += ojson(it.key()).dump() + ": ";
    pretty(it.value(), indent + 2, out);
    out += k + 1 < j.size() ? ",\n" : "\n";
  }
  out += std::string(indent, ' ') + (obj ? "}" : "]");
}
}  // namespace

std::map<std::string, std::vector<uint8_t>> serialize_case(const Case& c) {
  std::map<std::string, std::vector<uint8_t>> files;
  std::string text;
  pretty(case_to_json(c), 0, text);
  text += "\n";
  files["case.json"] = std::vector<uint8_t>(text.begin(), text.end());
  for (const auto& b : c.buffers)
    if (b.kind == BufferSpec::Kind::File) files[b.file] = npy_encode(b.data);
  for (const auto& k : c.checks) {
    files[k.expected_file] = npy_encode(k.expected);
    if (k.magnitude == CheckSpec::Magnitude::File)
      files[k.magnitude_file] = npy_encode(k.magnitude_data);
    if (!k.bound_file.empty()) files[k.bound_file] = npy_encode(k.bound_data);
  }
  return files;
}

}  // namespace wgslvk::validate
