#include "safetensors_checkpoint.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "wgslvk/numeric.hpp"
#include "wgslvk/output_file.hpp"

namespace wgslvk::optimizer {
namespace {

using json = nlohmann::ordered_json;

// A value for a message: compact, invalid UTF-8 replaced, at most 80 bytes.
std::string show(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 80) + "... (" + std::to_string(s.size()) + " bytes)";
  return s;
}
std::string show(const std::string& s) { return show(json(s)); }

[[noreturn]] void bad(const std::string& why) { throw CheckpointError(why); }

// The header's JSON: nesting limited, duplicate keys refused (a second "lr" must not win).
json parse_header(const uint8_t* p, uint64_t n) {
  struct Fail {
    std::string why;
  };
  std::vector<std::set<std::string>> keys;
  json::parser_callback_t cb = [&](int, json::parse_event_t ev, json& parsed) -> bool {
    switch (ev) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (int(keys.size()) >= kMaxCheckpointJsonDepth)
          throw Fail{"header nests deeper than " + std::to_string(kMaxCheckpointJsonDepth) +
                     " levels"};
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.back().insert(parsed.get<std::string>()).second)
          throw Fail{"header has the key " + show(parsed) + " twice in one object"};
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(p, p + n, cb);
  } catch (const Fail& f) { bad(f.why); } catch (const nlohmann::json::exception& e) {
    std::string m = e.what();
    if (auto k = m.find("] "); !m.empty() && m[0] == '[' && k != std::string::npos)
      m = m.substr(k + 2);
    if (m.size() > 200) m = m.substr(0, 200) + "...";
    bad("header is not valid JSON (" +
        json(m).dump(-1, ' ', false, json::error_handler_t::replace) + ")");
  }
}

bool is_hex8(const std::string& s) {
  return s.size() == 8 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

std::string checkpoint_value(const std::string& s) { return show(s); }

std::string checkpoint_shape_str(const std::vector<uint64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

uint32_t checkpoint_crc32(std::span<const uint8_t> bytes) {
  uLong c = crc32(0L, Z_NULL, 0);
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  while (n) {  // zlib's length is a uInt: feed it in pieces below 2^30
    uInt k = uInt(std::min<size_t>(n, size_t(1) << 30));
    c = crc32(c, p, k);
    p += k;
    n -= k;
  }
  return uint32_t(c);
}

// ---- metadata readers ---------------------------------------------------------------------------

const std::string& CheckpointMetadata::str(const char* key) const {
  auto it = entries.find(key);
  if (it == entries.end()) bad(std::string("__metadata__ has no string '") + key + "'");
  return it->second;
}

float CheckpointMetadata::finite_float(const char* key) const {
  const std::string& s = str(key);
  float v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v))
    bad(std::string("__metadata__ '") + key + "' = " + show(s) + " is not a finite number");
  return v;
}

double CheckpointMetadata::finite_double(const char* key) const {
  const std::string& s = str(key);
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v))
    bad(std::string("__metadata__ '") + key + "' = " + show(s) + " is not a finite number");
  return v;
}

bool CheckpointMetadata::boolean(const char* key) const {
  const std::string& s = str(key);
  if (s != "true" && s != "false")
    bad(std::string("__metadata__ '") + key + "' = " + show(s) + " is not true/false");
  return s == "true";
}

uint64_t CheckpointMetadata::step(const char* key) const {
  const std::string& s = str(key);
  uint64_t step = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), step);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
    bad("step " + show(s) + " is not an integer below 2^64");
  if (step > kMaxCheckpointStep)
    bad("step " + s + " is above 2^53 (the next step must not wrap, beta^t must stay exact)");
  return step;
}

// ---- encode -------------------------------------------------------------------------------------

std::vector<uint8_t> encode_safetensors_checkpoint(
    std::span<const CheckpointTensor> tensors, std::span<const std::vector<uint8_t>> data,
    const std::string& format, std::span<const std::pair<std::string, std::string>> metadata) {
  if (tensors.size() != data.size())
    throw std::invalid_argument("encode_safetensors_checkpoint: " + std::to_string(tensors.size()) +
                                " tensors but " + std::to_string(data.size()) + " data blocks");
  json header = json::object();
  uint64_t pos = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    header[t.key] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {pos, pos + data[i].size()}}};
    pos += data[i].size();
  }
  json md = json::object();
  md["format"] = format;
  for (const auto& [k, v] : metadata) {
    if (k == "format" || k == "crc32" || md.contains(k))
      throw std::invalid_argument("encode_safetensors_checkpoint: metadata key '" + k +
                                  "' is reserved or given twice");
    md[k] = v;
  }
  md["crc32"] = "00000000";  // filled in below, over the whole file with these digits as '0'
  header["__metadata__"] = std::move(md);
  std::string hs = header.dump();
  hs.append(align_up(hs.size(), 8) - hs.size(), ' ');  // data starts 8-byte aligned
  std::vector<uint8_t> file(8);
  file.reserve(8 + hs.size() + pos);
  for (int i = 0; i < 8; ++i) file[i] = uint8_t(uint64_t(hs.size()) >> (8 * i));
  file.insert(file.end(), hs.begin(), hs.end());
  for (const auto& d : data) file.insert(file.end(), d.begin(), d.end());
  const std::string mark = "\"crc32\":\"00000000\"";
  size_t at = 8 + hs.rfind(mark) + mark.size() - 9;  // the 8 digits (crc32 is the last key)
  char crc[16];
  std::snprintf(crc, sizeof crc, "%08x", checkpoint_crc32(file));
  std::memcpy(file.data() + at, crc, 8);
  return file;
}

// ---- decode -------------------------------------------------------------------------------------

DecodedSafetensors decode_safetensors_checkpoint(
    std::span<const uint8_t> file, const CheckpointFormat& format,
    std::span<const CheckpointTensor> expected,
    const std::function<void(const CheckpointMetadata&)>& check_metadata) {
  const uint64_t size = file.size();
  if (size < 8)
    bad("file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  uint64_t hlen = 0;
  for (int i = 0; i < 8; ++i) hlen |= uint64_t(file[i]) << (8 * i);
  if (hlen > size - 8)
    bad("header length " + std::to_string(hlen) + " runs past the end of the file (" +
        std::to_string(size) + " bytes): truncated?");
  if (hlen > kMaxCheckpointHeaderBytes)
    bad("header length " + std::to_string(hlen) + " is above the " +
        std::to_string(kMaxCheckpointHeaderBytes) + "-byte limit");
  json header = parse_header(file.data() + 8, hlen);
  if (!header.is_object()) bad("header is not a JSON object");
  const uint64_t data_len = size - 8 - hlen;

  DecodedSafetensors out;
  out.data_offset = 8 + hlen;
  if (!header.contains("__metadata__") || !header["__metadata__"].is_object())
    bad("no __metadata__ object");
  for (const auto& [k, v] : header["__metadata__"].items())
    if (v.is_string()) out.metadata.entries[k] = v.get<std::string>();
  const CheckpointMetadata& md = out.metadata;
  if (md.str("format") != format.name)
    bad("format " + show(md.str("format")) + ", expected '" + format.name + "'" +
        (!format.superseded.empty() && md.str("format") == format.superseded
             ? " (v1 files' CRC did not cover the header: save again)"
             : ""));

  // The CRC first: nothing in the header is trusted before it matches.
  {
    const std::string& want = md.str("crc32");
    if (!is_hex8(want))
      bad("__metadata__ 'crc32' = " + show(want) + " is not 8 lower-case hex digits");
    const std::string mark = "\"crc32\":\"" + want + "\"";
    std::string_view hv(reinterpret_cast<const char*>(file.data()) + 8, hlen);
    size_t at = hv.find(mark);
    if (at == std::string_view::npos || hv.find(mark, at + 1) != std::string_view::npos)
      bad("the header's crc32 field is not written exactly once as " + mark);
    // CRC of the file with the 8 digits read as '0', without copying the file
    const size_t digits = 8 + at + mark.size() - 9;
    static const uint8_t zeros[8] = {'0', '0', '0', '0', '0', '0', '0', '0'};
    uLong c = crc32(0L, Z_NULL, 0);
    auto feed = [&](const uint8_t* p, size_t n) {
      while (n) {
        uInt k = uInt(std::min<size_t>(n, size_t(1) << 30));
        c = crc32(c, p, k);
        p += k;
        n -= k;
      }
    };
    feed(file.data(), digits);
    feed(zeros, 8);
    feed(file.data() + digits + 8, size - digits - 8);
    char got[16];
    std::snprintf(got, sizeof got, "%08x", uint32_t(c));
    if (want != got)
      bad("CRC-32 of the file is " + std::string(got) + ", the header says " + want +
          ": the file is corrupt (header or data)");
  }

  if (check_metadata) check_metadata(md);

  // tensors: exactly the expected set, each with its dtype, shape and a valid, exact range
  if (header.size() != expected.size() + 1)
    bad("holds " + std::to_string(header.size() - 1) + " tensors, expected " +
        std::to_string(expected.size()));
  for (const auto& t : expected) {
    if (!header.contains(t.key)) bad("tensor '" + t.key + "' is missing");
    const json& e = header[t.key];
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") ||
        !e.contains("data_offsets"))
      bad("tensor '" + t.key + "' lacks dtype/shape/data_offsets");
    if (e["dtype"] != t.dtype)
      bad("tensor '" + t.key + "' has dtype " + show(e["dtype"]) + ", expected " + t.dtype);
    std::vector<uint64_t> shape;
    std::array<uint64_t, 2> off{};
    // JSON integers only: get<uint64_t>() would silently truncate 256.0 (or 256.5) to 256.
    auto all_unsigned = [](const json& a) {
      return a.is_array() &&
             std::all_of(a.begin(), a.end(), [](const json& x) { return x.is_number_unsigned(); });
    };
    try {
      if (!all_unsigned(e["shape"]) || !all_unsigned(e["data_offsets"]))
        throw std::invalid_argument("not arrays of non-negative integers");
      shape = e["shape"].get<std::vector<uint64_t>>();
      off = e["data_offsets"].get<std::array<uint64_t, 2>>();
    } catch (const std::exception&) {
      bad("tensor '" + t.key + "' has a malformed shape or data_offsets (" + show(e["shape"]) +
          ", " + show(e["data_offsets"]) + ")");
    }
    if (shape != t.shape)
      bad("tensor '" + t.key + "' has shape " + show(e["shape"]) + ", expected " +
          checkpoint_shape_str(t.shape));
    if (off[0] > off[1] || off[1] > data_len || off[1] - off[0] != t.bytes)
      bad("tensor '" + t.key + "' has data_offsets [" + std::to_string(off[0]) + ", " +
          std::to_string(off[1]) + "], expected " + std::to_string(t.bytes) + " bytes inside the " +
          std::to_string(data_len) + "-byte data section");
    out.spans.push_back({off[0], off[1]});
  }
  auto sorted = out.spans;
  std::sort(sorted.begin(), sorted.end());
  uint64_t pos = 0;
  for (auto [b, e] : sorted) {
    if (b != pos) bad("tensor data overlaps or leaves a hole at byte " + std::to_string(pos));
    pos = e;
  }
  if (pos != data_len)
    bad("data section is " + std::to_string(data_len) + " bytes, the tensors cover " +
        std::to_string(pos));
  return out;
}

// ---- files --------------------------------------------------------------------------------------

std::vector<uint8_t> read_checkpoint_file(const std::string& path, uint64_t data_bytes) {
  if (path.find('\0') != std::string::npos) bad("the path holds a NUL byte");
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) bad(std::string("cannot open the file: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) bad(std::string("cannot stat the file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) bad("is a folder, not a checkpoint file");
  if (!S_ISREG(st.st_mode)) bad("is not a regular file (a FIFO or a device?)");
  const uint64_t size = uint64_t(st.st_size);
  auto read_at = [&](uint8_t* dst, uint64_t n, uint64_t off) {
    uint64_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd, dst + got, size_t(std::min<uint64_t>(n - got, uint64_t(1) << 26)),
                          off_t(off + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) bad(std::string("read error: ") + std::strerror(errno));
      if (r == 0) bad("the file shrank while it was read");
      got += uint64_t(r);
    }
  };
  if (size < 8)
    bad("file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  uint8_t len[8];
  read_at(len, 8, 0);
  uint64_t hlen = 0;
  for (int i = 0; i < 8; ++i) hlen |= uint64_t(len[i]) << (8 * i);
  if (hlen > kMaxCheckpointHeaderBytes)
    bad("header length " + std::to_string(hlen) + " is above the " +
        std::to_string(kMaxCheckpointHeaderBytes) + "-byte limit");
  // Sizes from the caller's tensors, checked before reading: 8 + header + exactly their bytes.
  if (hlen > size - 8 || size - 8 - hlen != data_bytes)
    bad("file is " + std::to_string(size) + " bytes; with its " + std::to_string(hlen) +
        "-byte header it should be " + std::to_string(8 + hlen + data_bytes) + " (the " +
        std::to_string(data_bytes) + " data bytes this optimizer's tensors take)");
  std::vector<uint8_t> file(size);
  read_at(file.data(), size, 0);
  return file;
}

void write_checkpoint_file(const std::string& path, std::span<const uint8_t> bytes,
                           const std::string& who) {
  // Through <path>.tmp and a rename; neither is followed when it is a planted symlink.
  try {
    write_output_file_atomic(path, bytes);
  } catch (const std::runtime_error& e) { throw CheckpointError(who + ": " + e.what()); }
}

}  // namespace wgslvk::optimizer
