// What every test binary shares. The device is created once per binary from the default adapter
// (WGSLVK_DEVICE to choose) with every optional feature the adapter has, WebGPU default limits,
// and the Khronos validation layer when WGSLVK_VALIDATION=1 (scripts/run.sh test sets it). After
// each test, any validation-layer message fails that test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "wgslvk/numeric.hpp"
#include "wgslvk/runtime.hpp"

namespace wgslvk::testing {

Instance& instance();
Adapter& adapter();
// The shared device: WebGPU default limits, every feature the adapter offers.
Device& device();
// A fresh device with the given limits/features (for limit and feature tests).
Device make_device(const DeviceDescriptor& desc);

// A fresh seed per run (printed, and fixed by WGSLVK_TEST_SEED) so inputs are new each time but
// a failure can be replayed.
uint64_t test_seed();
std::mt19937_64 rng(uint64_t salt = 0);

// Poison written into outputs before every run: a signalling-NaN bit pattern no kernel produces.
inline constexpr uint32_t kPoisonBits = 0x7fa5a5a5u;
float poison_f32();

// Buffer helpers: a buffer with usage Storage|CopySrc|CopyDst filled with `data`.
template <class T>
Buffer upload(Device& d, const std::vector<T>& data, const std::string& label,
              BufferUsage extra_usage = BufferUsage::None) {
  BufferDescriptor desc{
      label, align_up(data.size() * sizeof(T), 4),
      BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst | extra_usage};
  Buffer b = d.create_buffer(desc);
  d.queue().write_buffer(b, 0, data.data(), data.size() * sizeof(T));
  return b;
}

}  // namespace wgslvk::testing
