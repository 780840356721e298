// Layout arithmetic shared by the WGSL reader, reflection and the ABI check.
#pragma once

#include <cstdint>

namespace wgslvk::translator {

// WGSL's roundUp(a, v): v rounded up to a multiple of a; an alignment of 0 leaves v as it is.
inline uint64_t round_up(uint64_t a, uint64_t v) { return a ? (v + a - 1) / a * a : v; }

}  // namespace wgslvk::translator
