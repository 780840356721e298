// Reading untrusted input (case folders captured elsewhere, .npy files, JSON): the checks every
// loader shares, so each class of bad input is refused at one place (issue 16, golden/README.md
// "Untrusted input"):
//   - sizes computed from input use checked arithmetic (checked_mul / checked_add);
//   - a name that becomes a path part is one path component (check_component), and a case file
//     is opened inside its folder without following symlinks, only when it is a regular file no
//     larger than a stated limit (read_case_file);
//   - JSON has a nesting limit and no duplicate keys (parse_json_strict);
//   - values quoted in messages are bounded (show, bounded) and reports survive non-UTF-8 bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wgslvk::validate {

// The largest file a case may hold (case.json or one .npy): 1 GiB. Larger files are refused from
// their size before any byte is read. Runtime buffers are limited further by the device.
inline constexpr uint64_t kMaxCaseFileBytes = uint64_t(1) << 30;
// case.json itself is small: at most 16 MiB.
inline constexpr uint64_t kMaxCaseJsonBytes = uint64_t(16) << 20;
// The deepest nesting a case.json (or a checkpoint header) may have; the format needs 6.
inline constexpr int kMaxJsonDepth = 64;

// a * b and a + b, or nullopt when the result does not fit in 64 bits.
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b);
std::optional<uint64_t> checked_add(uint64_t a, uint64_t b);

// `s` cut to at most `max` bytes ("... (N bytes)" appended when cut).
std::string bounded(std::string_view s, size_t max = 120);
// A JSON value for a message: compact, at most `max` bytes, invalid UTF-8 replaced by U+FFFD.
std::string show(const nlohmann::ordered_json& j, size_t max = 120);
// `s` with every byte sequence that is not valid UTF-8 replaced by U+FFFD (reports, JSON output).
std::string utf8_safe(std::string_view s);
// `s` with every ASCII control byte (0x00-0x1f, 0x7f) written as \n, \r, \t or \xNN: a name or
// message from input prints on one line and cannot move the cursor or forge report lines.
std::string escape_controls(std::string_view s);

// Why `name` cannot be one path component of a file written or read by the tools, or empty: it
// must be non-empty, at most 128 bytes, not "." or "..", and hold only [A-Za-z0-9_.-] (no '/',
// no NUL, no spaces, no non-ASCII bytes: the same on every file system).
std::string component_problem(std::string_view name);

// Reads the regular file `name` (one path component, component_problem() empty) inside `dir`,
// without following a symlink, refusing FIFOs, devices and folders, and refusing files larger
// than `max_bytes` from their size before reading. Throws std::runtime_error "<dir>/<name>: ...".
std::vector<uint8_t> read_case_file(const std::filesystem::path& dir, std::string_view name,
                                    uint64_t max_bytes);
// The same for a whole path (the last component is not followed if it is a symlink).
std::vector<uint8_t> read_regular_file(const std::filesystem::path& path, uint64_t max_bytes);

// Parses JSON text, refusing nesting deeper than kMaxJsonDepth and duplicate keys in an object
// (a second "checks" must not silently replace the first). Throws std::runtime_error with the
// position of the problem ("duplicate key 'checks' at checks", "nesting deeper than 64 levels").
nlohmann::ordered_json parse_json_strict(std::string_view text);

}  // namespace wgslvk::validate
