// Editing a safetensors checkpoint file (optimizer/safetensors_checkpoint: an 8-byte header
// length, the JSON header, the data) in the untrusted-checkpoint tests of every optimizer.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "optimizer/safetensors_checkpoint.hpp"

namespace wgslvk::testing {

inline std::string checkpoint_header(const std::vector<uint8_t>& f) {
  uint64_t h = 0;
  for (int i = 0; i < 8; ++i) h |= uint64_t(f[i]) << (8 * i);
  return std::string(f.begin() + 8, f.begin() + 8 + int64_t(h));
}

// The file with another header (length prefix rewritten) and, if asked, a recomputed CRC: the
// corruption then reaches the checks behind the CRC.
inline std::vector<uint8_t> with_checkpoint_header(const std::vector<uint8_t>& f, std::string h,
                                                   bool fix_crc = true) {
  uint64_t old = checkpoint_header(f).size();
  while (h.size() % 8) h += ' ';
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(h.size()) >> (8 * i));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), f.begin() + 8 + int64_t(old), f.end());
  if (fix_crc) {
    std::string s(out.begin(), out.end());
    size_t at = s.find("\"crc32\":\"");
    if (at != std::string::npos) {
      at += 9;
      std::memset(out.data() + at, '0', 8);
      char crc[16];
      std::snprintf(crc, sizeof crc, "%08x", optimizer::checkpoint_crc32(out));
      std::memcpy(out.data() + at, crc, 8);
    }
  }
  return out;
}

// `h` with its first `from` replaced by `to` (a failure when `from` is missing).
inline std::string replaced(std::string h, const std::string& from, const std::string& to) {
  size_t at = h.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) h.replace(at, from.size(), to);
  return h;
}

}  // namespace wgslvk::testing
