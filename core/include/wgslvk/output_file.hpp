// Files the tools write (checkpoints, their .json, logs, PNGs, traces, case folders): never
// through a symbolic link planted at the output path or its temporary, never into a FIFO, a
// device or /proc, and checked before the work that produces them starts (issue 26: a planted
// symlink redirected the checkpoint's .tmp; `train --json /proc/x` ended rc 0 with no log;
// `--out /proc/x` failed only after training). Header only (POSIX), so every library can use it
// without a new link dependency. Errors are std::runtime_error "<path>: <why>".
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace wgslvk {

namespace detail {
[[noreturn]] inline void output_error(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": " + why);
}
inline std::string open_error_text(int err) {
  if (err == ELOOP) return "is a symbolic link; refusing to write through it";
  if (err == ENXIO) return "is a FIFO or socket without a reader; refusing to write to it";
  if (err == EISDIR) return "is a folder, not a file";
  return std::string("cannot create it: ") + std::strerror(err);
}
// Opens `path` for writing: created or truncated, never followed when it is a symlink, and only
// when it ends up a regular file (O_NONBLOCK: opening a FIFO does not wait for a reader).
inline int open_output_fd(const std::string& path) {
  if (path.empty()) output_error("''", "an empty output path");
  if (path.find('\0') != std::string::npos) output_error(path, "the path holds a NUL byte");
  struct stat ls {};
  if (::lstat(path.c_str(), &ls) == 0 && !S_ISREG(ls.st_mode))
    output_error(path, S_ISLNK(ls.st_mode)   ? "is a symbolic link; refusing to write through it"
                       : S_ISDIR(ls.st_mode) ? "is a folder, not a file"
                                             : "exists and is not a regular file");
  int fd =
      ::open(path.c_str(),
             O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) output_error(path, open_error_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    output_error(path, "is not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}
inline void write_all(int fd, const std::string& path, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = w < 0 ? errno : EIO;
      ::close(fd);
      output_error(path, std::string("write failed: ") + std::strerror(err));
    }
    done += size_t(w);
  }
}
}  // namespace detail

// Checks, before any work, that `path` can be written: not a folder, symlink or special file,
// its folder exists, and a file can be created beside it (probed with <path>.tmp, which the
// atomic writer below uses anyway, then removed). Throws std::runtime_error naming the path.
inline void check_output_path(const std::string& path) {
  if (path.empty()) detail::output_error("''", "an empty output path");
  struct stat ls {};
  if (::lstat(path.c_str(), &ls) == 0 && !S_ISREG(ls.st_mode))
    detail::output_error(path, S_ISLNK(ls.st_mode)   ? "is a symbolic link; refusing to write it"
                               : S_ISDIR(ls.st_mode) ? "is a folder, not a file"
                                                     : "exists and is not a regular file");
  const std::string probe = path + ".tmp";
  int fd = detail::open_output_fd(probe);  // refuses a planted <path>.tmp symlink too
  ::close(fd);
  ::unlink(probe.c_str());
}

// Writes `bytes` to `path` in place (created or truncated; never through a symlink).
inline void write_output_file(const std::string& path, std::span<const uint8_t> bytes) {
  int fd = detail::open_output_fd(path);
  detail::write_all(fd, path, bytes);
  if (::close(fd) != 0)
    detail::output_error(path, std::string("close failed: ") + std::strerror(errno));
}

// Writes `bytes` to <path>.tmp and renames it to `path`: a reader never sees half a file, and a
// crash leaves the old one. Neither name is followed when it is a symlink.
inline void write_output_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  struct stat ls {};
  if (::lstat(path.c_str(), &ls) == 0 && !S_ISREG(ls.st_mode))
    detail::output_error(path, S_ISLNK(ls.st_mode)   ? "is a symbolic link; refusing to replace it"
                               : S_ISDIR(ls.st_mode) ? "is a folder, not a file"
                                                     : "exists and is not a regular file");
  const std::string tmp = path + ".tmp";
  write_output_file(tmp, bytes);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    detail::output_error(path, "cannot rename " + tmp + " to it: " + std::strerror(err));
  }
}
inline void write_output_file_atomic(const std::string& path, std::string_view text) {
  write_output_file_atomic(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// A stream for a log written as the run goes (the JSON lines log): opened now, so a bad path
// fails before the work. The caller fcloses it.
inline std::FILE* open_output_stream(const std::string& path) {
  int fd = detail::open_output_fd(path);
  std::FILE* f = ::fdopen(fd, "w");
  if (!f) {
    ::close(fd);
    detail::output_error(path, "cannot open a stream on it");
  }
  return f;
}

}  // namespace wgslvk
