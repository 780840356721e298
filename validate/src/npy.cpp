#include "wgslvk/validate/npy.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "wgslvk/output_file.hpp"
#include "wgslvk/validate/untrusted.hpp"

namespace wgslvk::validate {

namespace {
struct DTypeInfo {
  DType t;
  const char* name;
  const char* descr;
  const char* alias;
  size_t size;
  bool is_float;
};
constexpr DTypeInfo kTypes[] = {
    {DType::F32, "f32", "<f4", "float32", 4, true}, {DType::F16, "f16", "<f2", "float16", 2, true},
    {DType::U32, "u32", "<u4", "uint32", 4, false}, {DType::I32, "i32", "<i4", "int32", 4, false},
    {DType::U16, "u16", "<u2", "uint16", 2, false}, {DType::I16, "i16", "<i2", "int16", 2, false},
    {DType::U8, "u8", "|u1", "uint8", 1, false},    {DType::I8, "i8", "|i1", "int8", 1, false},
};
const DTypeInfo& info(DType t) { return kTypes[size_t(t)]; }
}  // namespace

size_t dtype_size(DType t) { return info(t).size; }
std::string_view dtype_name(DType t) { return info(t).name; }
std::string_view dtype_descr(DType t) { return info(t).descr; }
bool dtype_is_float(DType t) { return info(t).is_float; }

DType parse_dtype(std::string_view name) {
  for (const auto& i : kTypes)
    if (name == i.name || name == i.alias) return i.t;
  std::string known;
  for (const auto& i : kTypes) known += std::string(known.empty() ? "" : ", ") + i.name;
  throw std::invalid_argument("unknown dtype '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<uint8_t> npy_encode(const Array& a) {
  std::string shape = "(";
  if (a.shape.empty()) {
    shape += ")";
  } else {
    for (size_t i = 0; i < a.shape.size(); ++i) shape += std::to_string(a.shape[i]) + ", ";
    if (a.shape.size() > 1)
      shape.resize(shape.size() - 2);  // "(3, 4)"; 1-D keeps "(3,)"
    else
      shape.resize(shape.size() - 1);
    shape += ")";
  }
  std::string header = "{'descr': '" + std::string(dtype_descr(a.dtype)) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;  // magic(6) version(2) len(2) header '\n'
  size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(uint8_t(header.size() & 0xff));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), a.bytes.begin(), a.bytes.end());
  return out;
}

namespace {
[[noreturn]] void bad(const std::string& what, const std::string& msg) {
  throw std::runtime_error(what + ": not a supported .npy file: " + msg);
}
// Value of 'key' in the header dict, as raw text up to the next top-level ',' or '}'.
std::string dict_value(const std::string& h, const std::string& key, const std::string& what) {
  auto k = h.find("'" + key + "'");
  if (k == std::string::npos) bad(what, "header has no '" + key + "'");
  auto colon = h.find(':', k);
  if (colon == std::string::npos) bad(what, "malformed header");
  size_t i = colon + 1;
  while (i < h.size() && h[i] == ' ') ++i;
  size_t j = i;
  if (h[i] == '(') {
    j = h.find(')', i);
    if (j == std::string::npos) bad(what, "malformed shape");
    return h.substr(i, j - i + 1);
  }
  while (j < h.size() && h[j] != ',' && h[j] != '}') ++j;
  std::string v = h.substr(i, j - i);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}
}  // namespace

Array npy_decode(std::span<const uint8_t> b, const std::string& what) {
  static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (b.size() < 10 || std::memcmp(b.data(), magic, 6) != 0) bad(what, "missing \\x93NUMPY magic");
  uint8_t major = b[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = b[8] | (size_t(b[9]) << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) bad(what, "truncated header");
    hlen = b[8] | (size_t(b[9]) << 8) | (size_t(b[10]) << 16) | (size_t(b[11]) << 24);
    hstart = 12;
  } else {
    bad(what, "version " + std::to_string(major) + " (1.0, 2.0 and 3.0 are read)");
  }
  // numpy refuses minor versions other than 0 (a "1.9" file was accepted).
  if (b[7] != 0)
    bad(what, "version " + std::to_string(major) + "." + std::to_string(b[7]) +
                  " (1.0, 2.0 and 3.0 are read)");
  if (hstart + hlen > b.size()) bad(what, "truncated header");
  std::string h(reinterpret_cast<const char*>(b.data() + hstart), hlen);
  // The header is a Python dict literal in ASCII (3.0: UTF-8) ending in a newline: a NUL or
  // another control byte inside it is refused, as numpy refuses it.
  for (size_t i = 0; i < h.size(); ++i) {
    const auto c = uint8_t(h[i]);
    if ((c < 0x20 && !(c == '\n' && i + 1 == h.size())) || c == 0x7f || (c >= 0x80 && major < 3))
      bad(
          what, "header byte " + std::to_string(i) + " is 0x" + (c < 16 ? "0" : "") + [&] {
            char x[4];
            std::snprintf(x, sizeof x, "%x", c);
            return std::string(x);
          }() + " (the header is printable text ending in a newline)");
  }
  {
    size_t e = h.size();
    while (e > 0 && (h[e - 1] == ' ' || h[e - 1] == '\n')) --e;
    size_t f = 0;
    while (f < e && h[f] == ' ') ++f;
    if (f >= e || h[f] != '{' || h[e - 1] != '}')
      bad(what, "the header is not a dict literal {...}");
  }
  std::string descr = dict_value(h, "descr", what);
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') ||
      descr.back() != descr.front())
    bad(what, "descr " + bounded(utf8_safe(descr), 60) + " is not a simple type string");
  descr = descr.substr(1, descr.size() - 2);
  if (descr == "<u1") descr = "|u1";
  if (descr == "<i1") descr = "|i1";
  Array a;
  bool found = false;
  for (const auto& t : kTypes)
    if (descr == t.descr) a.dtype = t.t, found = true;
  if (!found)
    bad(what, "dtype '" + bounded(utf8_safe(descr), 60) +
                  "' (supported: <f4 <f2 <u4 <i4 <u2 <i2 |u1 |i1, little-endian)");
  if (const std::string fo = dict_value(h, "fortran_order", what); fo != "False")
    bad(what, fo == "True"
                  ? std::string("fortran_order is True (C order only)")
                  : "fortran_order is " + bounded(utf8_safe(fo), 40) + ", not True or False");
  std::string shape = dict_value(h, "shape", what);
  const std::string shape_text = bounded(utf8_safe(shape), 80);
  uint64_t count = 1;
  {
    // Dimensions as decimal digits, their product and byte size in checked arithmetic: a shape
    // whose product wraps 64 bits is refused (numpy refuses it too), never read with the
    // wrapped count.
    size_t i = 1;
    while (i < shape.size()) {
      while (i < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
      if (i >= shape.size() || shape[i] == ')') break;
      size_t j = i;
      uint64_t d = 0;
      bool overflow = false;
      while (j < shape.size() && isdigit(uint8_t(shape[j]))) {
        auto m = checked_mul(d, 10);
        auto s2 = m ? checked_add(*m, uint64_t(shape[j] - '0')) : std::nullopt;
        if (!s2)
          overflow = true;
        else
          d = *s2;
        ++j;
      }
      if (j == i) bad(what, "malformed shape " + shape_text);
      if (overflow) bad(what, "shape " + shape_text + ": a dimension does not fit in 64 bits");
      if (a.shape.size() >= 32) bad(what, "shape " + shape_text + " has more than 32 dimensions");
      a.shape.push_back(d);
      auto c = checked_mul(count, d);
      if (!c) bad(what, "shape " + shape_text + ": the element count does not fit in 64 bits");
      count = *c;
      i = j;
    }
  }
  size_t data = hstart + hlen;
  auto nbytes = checked_mul(count, dtype_size(a.dtype));
  if (!nbytes) bad(what, "shape " + shape_text + ": the byte size does not fit in 64 bits");
  if (b.size() - data != *nbytes)
    bad(what, "shape " + shape_text + " of " + descr + " needs " + std::to_string(*nbytes) +
                  " data bytes, the file has " + std::to_string(b.size() - data));
  a.bytes.assign(b.begin() + data, b.end());
  return a;
}

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path) {
  // No symlink followed, no FIFO or device read, the size checked before reading.
  return read_regular_file(path, kMaxCaseFileBytes);
}

void write_file_bytes(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  write_output_file(path.string(), bytes);  // never through a symlink planted at the path
}

Array npy_read(const std::filesystem::path& path) {
  auto b = read_file_bytes(path);
  return npy_decode(b, path.string());
}

void npy_write(const std::filesystem::path& path, const Array& a) {
  write_file_bytes(path, npy_encode(a));
}

}  // namespace wgslvk::validate
