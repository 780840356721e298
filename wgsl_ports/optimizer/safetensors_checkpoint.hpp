// The optimizers' checkpoint container: a safetensors file (8-byte little-endian header length,
// JSON header, data) hardened for untrusted input (golden/README.md, "Untrusted input"). Generic
// and device-free: MultiTensorAdamW (checkpoint.hpp) and MultiTensorAdafactor
// (adafactor/adafactor.cpp) add only their metadata and tensor lists. What decoding checks, in
// order, before the caller changes anything:
//   - reading: a regular file (symlinks to one allowed; a folder, a FIFO, a device is refused)
//     whose size is exactly 8 + header + the expected data bytes, checked from its size and its
//     8-byte header length before the rest is read (a huge file is never read);
//   - the header is at most 100 MiB of JSON, nested at most 16 deep, with no duplicate key in one
//     object (a second "lr" must not win);
//   - __metadata__.format is the caller's format (an older format gets a hint);
//   - the CRC-32 (zlib's crc32) covers the whole file, header included: __metadata__.crc32 holds
//     it, computed with its own 8 hex digits read as '0', so a flipped bit anywhere (a
//     hyperparameter, the step, a tensor offset, the data) is caught;
//   - the caller's metadata check (its options through its constructor's validation, the step at
//     most 2^53: CheckpointMetadata's helpers);
//   - the tensors are exactly the expected set: names, dtypes, shapes, offsets without holes or
//     overlaps.
// Values in messages are bounded (80 bytes, invalid UTF-8 replaced). Errors are CheckpointError
// without the file name (the caller's load() adds it and "nothing was changed").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "adamw.hpp"  // CheckpointError

namespace wgslvk::optimizer {

inline constexpr uint64_t kMaxCheckpointHeaderBytes = uint64_t(100) << 20;
inline constexpr uint64_t kMaxCheckpointStep = uint64_t(1) << 53;
inline constexpr int kMaxCheckpointJsonDepth = 16;

// CRC-32 of zip and PNG (zlib's crc32).
uint32_t checkpoint_crc32(std::span<const uint8_t> bytes);

// One tensor as the caller expects it, in file order.
struct CheckpointTensor {
  std::string key, dtype;  // "w.exp_avg", "F32"
  std::vector<uint64_t> shape;
  uint64_t bytes = 0;
};

// The format string a file must carry, and the superseded one (v1: CRC over the data only).
struct CheckpointFormat {
  std::string name;        // "wgslvk.adamw.v2"
  std::string superseded;  // "wgslvk.adamw.v1": refused with "save again"
};

// __metadata__'s string entries (non-string values are left out: asking for one fails with
// "has no string"). The readers throw CheckpointError naming the key and the (bounded) value.
class CheckpointMetadata {
 public:
  std::map<std::string, std::string> entries;
  const std::string& str(const char* key) const;  // "__metadata__ has no string 'key'"
  float finite_float(const char* key) const;      // from_chars, the whole string, finite
  double finite_double(const char* key) const;
  bool boolean(const char* key) const;            // "true" / "false"
  uint64_t step(const char* key = "step") const;  // an integer <= kMaxCheckpointStep
};

// The file's bytes: tensors[i]'s data is data[i]. __metadata__ is {"format": format, metadata in
// order..., "crc32": the whole-file CRC}. Keys "format" and "crc32" in `metadata` are refused
// (std::invalid_argument).
std::vector<uint8_t> encode_safetensors_checkpoint(
    std::span<const CheckpointTensor> tensors, std::span<const std::vector<uint8_t>> data,
    const std::string& format, std::span<const std::pair<std::string, std::string>> metadata);

struct DecodedSafetensors {
  CheckpointMetadata metadata;
  uint64_t data_offset = 0;  // where the data section starts in the file
  // Byte range of each expected tensor inside the data section, in `expected` order.
  std::vector<std::pair<uint64_t, uint64_t>> spans;
};

// Checks a whole file (see the top of this file). `check_metadata` runs after the CRC matched and
// before the tensors are checked; it throws (CheckpointError) to refuse.
DecodedSafetensors decode_safetensors_checkpoint(
    std::span<const uint8_t> file, const CheckpointFormat& format,
    std::span<const CheckpointTensor> expected,
    const std::function<void(const CheckpointMetadata&)>& check_metadata = {});

// Reads `path` (a regular file, symlinks to one allowed) whose data section must be `data_bytes`
// long: the size is checked from the file's size and its 8-byte header length before the rest is
// read. Throws CheckpointError with the reason.
std::vector<uint8_t> read_checkpoint_file(const std::string& path, uint64_t data_bytes);

// Writes `bytes` to path + ".tmp", then renames it over `path` (an interrupted save never leaves a
// half-written file under `path`). Errors are CheckpointError prefixed with `who` ("X::save").
void write_checkpoint_file(const std::string& path, std::span<const uint8_t> bytes,
                           const std::string& who);

// A string for a message: JSON-quoted, invalid UTF-8 replaced, at most 80 bytes.
std::string checkpoint_value(const std::string& s);

// "[2, 3]"
std::string checkpoint_shape_str(const std::vector<uint64_t>& shape);

}  // namespace wgslvk::optimizer
