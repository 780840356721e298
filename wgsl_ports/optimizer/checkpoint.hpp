// MultiTensorAdamW's safetensors checkpoints (the format: adamw.hpp, above save/load): its
// metadata (options <-> strings, check_adamw_options on load) and tensor list on top of the
// generic, hardened container in safetensors_checkpoint.hpp (which states every check: regular
// file, size before reading, header <= 100 MiB, JSON depth <= 16, no duplicate key, whole-file
// CRC-32, step <= 2^53, exact tensor set and offsets, bounded values in messages).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "adamw.hpp"
#include "safetensors_checkpoint.hpp"

namespace wgslvk::optimizer {

// v2: the CRC covers header and data (v1's covered the data only; v1 files are refused).
inline constexpr const char* kCheckpointFormat = "wgslvk.adamw.v2";

struct CheckpointState {
  uint64_t step = 0;
  AdamWOptions options;  // lr, betas, eps, weight decay, max_grad_norm, precision, norm mode
};

// The file's bytes: tensors[i]'s data is data[i] (tensors[i].bytes long).
std::vector<uint8_t> encode_checkpoint(std::span<const CheckpointTensor> tensors,
                                       std::span<const std::vector<uint8_t>> data,
                                       const CheckpointState& state);

struct DecodedCheckpoint {
  CheckpointState state;
  uint64_t data_offset = 0;  // where the data section starts in the file
  // Byte range of each expected tensor inside the data section, in `expected` order.
  std::vector<std::pair<uint64_t, uint64_t>> spans;
};

// Checks a whole file against the tensors the layout expects and the optimizer's current options
// (the precision must match; the other hyperparameters come from the file). Throws
// CheckpointError with the reason (no file name: load() adds it).
DecodedCheckpoint decode_checkpoint(std::span<const uint8_t> file,
                                    std::span<const CheckpointTensor> expected,
                                    const AdamWOptions& current);

// The tensors a layout saves, in file order (w, then m and v or their 8-bit codes and scales).
std::vector<CheckpointTensor> checkpoint_tensors(const Layout& L, StatePrecision precision);

}  // namespace wgslvk::optimizer
