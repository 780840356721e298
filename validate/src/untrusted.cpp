#include "wgslvk/validate/untrusted.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace wgslvk::validate {

namespace fs = std::filesystem;

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::string utf8_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; ok && k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    // No overlong forms, no surrogates, nothing above U+10FFFF; control bytes other than tab and
    // newline are escaped too (a terminal must not interpret them).
    if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
               (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
      ok = false;
    if (ok && len == 1 && (c < 0x20 || c == 0x7f) && c != '\t' && c != '\n') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      i += 1;
    } else if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";  // U+FFFD
      i += 1;
    }
  }
  return out;
}

std::string bounded(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t cut = max;
  // Do not cut a UTF-8 sequence in half.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes)";
}

std::string show(const nlohmann::ordered_json& j, size_t max) {
  // The depth of every parsed value is bounded by parse_json_strict, so dump() cannot recurse
  // deeply; strings with invalid UTF-8 are replaced rather than thrown on.
  return bounded(
      utf8_safe(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)), max);
}

std::string escape_controls(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string component_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > 128) return "is " + std::to_string(name.size()) + " bytes long (at most 128)";
  if (name == "." || name == "..") return "is '" + std::string(name) + "'";
  for (char ch : name) {
    auto u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) && u < 0x80) && ch != '_' && ch != '.' && ch != '-') {
      char buf[64];
      if (ch == '/') return "holds a '/' (it must be one file or folder name, not a path)";
      if (ch == '\0') return "holds a NUL byte";
      std::snprintf(buf, sizeof buf, "holds the byte 0x%02x (allowed: A-Z a-z 0-9 _ . -)", u);
      return buf;
    }
  }
  return {};
}

namespace {

std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::vector<uint8_t> read_fd(int fd, const std::string& what, uint64_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw std::runtime_error(what + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error(what + ": is " + kind_of(st.st_mode) + ", not a regular file");
  uint64_t size = uint64_t(st.st_size);
  if (size > max_bytes)
    throw std::runtime_error(what + ": is " + std::to_string(size) + " bytes, more than the " +
                             std::to_string(max_bytes) + " bytes such a file may hold");
  std::vector<uint8_t> out(size);
  uint64_t got = 0;
  while (got < size) {
    ssize_t r = ::read(fd, out.data() + got, size_t(std::min<uint64_t>(size - got, 1u << 26)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error(what + ": read error: " + std::strerror(errno));
    if (r == 0)
      throw std::runtime_error(what + ": shorter than its size (" + std::to_string(size) +
                               " bytes) while reading");
    got += uint64_t(r);
  }
  return out;
}

std::string open_problem(int err) {
  if (err == ELOOP)
    return "is a symbolic link (not followed: case files must be regular files in the case folder)";
  if (err == ENOENT) return "cannot open: no such file";
  return std::string("cannot open: ") + std::strerror(err);
}

}  // namespace

std::vector<uint8_t> read_case_file(const fs::path& dir, std::string_view name,
                                    uint64_t max_bytes) {
  std::string what = (dir / fs::path(std::string(name))).string();
  if (std::string p = component_problem(name); !p.empty())
    throw std::runtime_error(bounded(utf8_safe(what)) + ": the file name " + p);
  Fd d;
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd < 0)
    throw std::runtime_error(dir.string() + ": cannot open the folder: " + std::strerror(errno));
  Fd f;
  f.fd = ::openat(d.fd, std::string(name).c_str(),
                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd < 0) throw std::runtime_error(what + ": " + open_problem(errno));
  return read_fd(f.fd, what, max_bytes);
}

std::vector<uint8_t> read_regular_file(const fs::path& path, uint64_t max_bytes) {
  const std::string& s = path.native();
  if (s.find('\0') != std::string::npos)
    throw std::runtime_error(bounded(utf8_safe(s)) + ": the path holds a NUL byte");
  Fd f;
  f.fd = ::open(s.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd < 0) throw std::runtime_error(s + ": " + open_problem(errno));
  return read_fd(f.fd, s, max_bytes);
}

namespace {
struct StrictError {
  std::string msg;
};
}  // namespace

nlohmann::ordered_json parse_json_strict(std::string_view text) {
  using ojson = nlohmann::ordered_json;
  struct Frame {
    bool object;
    std::string key;   // object: the current key
    size_t index = 0;  // array: the current element
    std::set<std::string> keys;
  };
  std::vector<Frame> stack;
  auto path = [&] {
    std::string p;
    for (size_t i = 0; i < stack.size(); ++i) {
      const Frame& f = stack[i];
      bool last = i + 1 == stack.size();
      if (f.object) {
        if (!last) p += (p.empty() ? "" : ".") + bounded(f.key, 60);
      } else if (!last) {
        p += "[" + std::to_string(f.index) + "]";
      }
    }
    return p.empty() ? std::string("the top level") : p;
  };
  auto element_done = [&] {
    if (!stack.empty() && !stack.back().object) ++stack.back().index;
  };
  ojson::parser_callback_t cb = [&](int, ojson::parse_event_t ev, ojson& parsed) -> bool {
    switch (ev) {
      case ojson::parse_event_t::object_start:
      case ojson::parse_event_t::array_start:
        if (int(stack.size()) >= kMaxJsonDepth)
          throw StrictError{"nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels at " +
                            path()};
        stack.push_back({ev == ojson::parse_event_t::object_start, {}, 0, {}});
        break;
      case ojson::parse_event_t::object_end:
      case ojson::parse_event_t::array_end:
        if (!stack.empty()) stack.pop_back();
        element_done();
        break;
      case ojson::parse_event_t::key: {
        std::string k = parsed.is_string() ? parsed.get<std::string>() : std::string();
        Frame& f = stack.back();
        if (!f.keys.insert(k).second) {
          f.key = k;
          std::string where = path();
          std::string p = where == "the top level" ? "" : " in " + where;
          throw StrictError{"duplicate key '" + bounded(k, 60) + "'" + p +
                            " (a second value would silently replace the first)"};
        }
        f.key = std::move(k);
        break;
      }
      case ojson::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  };
  try {
    return ojson::parse(text.begin(), text.end(), cb);
  } catch (const StrictError& e) {
    throw std::runtime_error(utf8_safe(e.msg));
  } catch (const nlohmann::json::exception& e) {
    std::string m = e.what();
    if (!m.empty() && m[0] == '[')
      m = m.substr(m.find("] ") == std::string::npos ? 0 : m.find("] ") + 2);
    throw std::runtime_error(bounded(utf8_safe(m), 300));
  }
}

}  // namespace wgslvk::validate
