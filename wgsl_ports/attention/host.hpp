// How a host dispatches the attention family's FA2 backward variants (what the GPT trainer
// records per layer, after attn_dsum). Header-only, no Vulkan: kernel names (from the kernels'
// generated headers) and grid sizes.
// Every variant takes the same bind group (attn_dscores_fa2's bindings 0-5: AttnParams, qkv, dout,
// lse, dsum read; dqkv read_write) and writes all of dqkv, so switching is a change of this list.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attention/reference.hpp"
#include "wgslvk/kernels/attention/attn_bwd_fa2_tiled.hpp"
#include "wgslvk/kernels/attention/attn_bwd_fa2_tiled4.hpp"
#include "wgslvk/kernels/attention/attn_dscores_fa2.hpp"
#include "wgslvk/kernels/attention/attn_dscores_fa2_wide.hpp"
#include "wgslvk/kernels/attention/attn_dv_fa2.hpp"
#include "wgslvk/kernels/attention/attn_dv_fa2_wide.hpp"
#include "wgslvk/kernels/attention/attn_fwd_fa2_tiled.hpp"

namespace wgslvk::attention {

enum class Fa2Backward {
  Ported,  // attn_dscores_fa2 + attn_dv_fa2 (attention.wgsl, the log's kernels)
  Wide,    // attn_dscores_fa2_wide + attn_dv_fa2_wide (ours: 8 invocations per row)
  Tiled,   // attn_bwd_fa2_tiled (ours: one dispatch, 32 x 32 tiles, 2 x 2 blocks per invocation)
  Tiled4,  // attn_bwd_fa2_tiled4 (ours: Tiled's tiles, jobs and orders, 4 x 4 blocks; hd <= 64)
};

inline constexpr uint32_t kTiledBlock = 32;  // attn_bwd_fa2_tiled: rows per tile and per block
inline constexpr uint32_t kTiled4MaxHeadDim = 64;  // attn_bwd_fa2_tiled4 writes nothing above

// The tiled backward a host should run for shape `s` (what the GPT trainer picks under
// fa2_tiled): Tiled4 where head_dim <= 32 and B * H * ceil(T / 32) >= 256, else Tiled. Measured on
// an H200 (bench/results/h200-2026-11-27g-attn): Tiled4 1.21x Tiled at B4 T256 H8 hd32 (256 such
// tiles), 0.85-1.07x on smaller grids, 0.91-1.0x at hd 64 (gpt110m's layer, Mega).
inline constexpr uint64_t kTiled4MinTiles = 256;
inline Fa2Backward fa2_backward_tiled_for(const Shape& s) {
  const uint64_t tiles =
      uint64_t(s.batch) * s.heads * ((uint64_t(s.seq) + kTiledBlock - 1) / kTiledBlock);
  return s.head_dim <= 32 && tiles >= kTiled4MinTiles ? Fa2Backward::Tiled4 : Fa2Backward::Tiled;
}

struct KernelDispatch {
  std::string kernel;  // "attention/<entry>", as the kernel registry names it
  uint32_t x = 1, y = 1, z = 1;
};

inline std::string_view fa2_backward_name(Fa2Backward v) {
  switch (v) {
    case Fa2Backward::Ported:
      return "ported";
    case Fa2Backward::Wide:
      return "wide";
    case Fa2Backward::Tiled:
      return "tiled";
    case Fa2Backward::Tiled4:
      return "tiled4";
  }
  return "?";
}
// "ported" | "wide" | "tiled" | "tiled4"; anything else throws, naming the value.
inline Fa2Backward parse_fa2_backward(std::string_view s) {
  if (s == "ported") return Fa2Backward::Ported;
  if (s == "wide") return Fa2Backward::Wide;
  if (s == "tiled") return Fa2Backward::Tiled;
  if (s == "tiled4") return Fa2Backward::Tiled4;
  throw std::invalid_argument("attention: unknown FA2 backward variant '" + std::string(s) +
                              "' (ported, wide, tiled or tiled4)");
}

// The dispatches of variant `v` for shape `s`, in order, after attn_dsum (which every variant
// needs). Throws std::invalid_argument naming the field and value when the kernels cannot run
// the shape: head_dim > kMaxHeadDim (the kernels would write nothing; Tiled4: > kTiled4MaxHeadDim),
// seq or heads 0, or a grid dimension above 65535 (WebGPU's default
// maxComputeWorkgroupsPerDimension).
inline std::vector<KernelDispatch> fa2_backward_dispatches(const Shape& s, Fa2Backward v) {
  auto bad = [](const char* field, uint64_t value, const char* why) {
    return std::invalid_argument("attention FA2 backward: " + std::string(field) + " = " +
                                 std::to_string(value) + " " + why);
  };
  if (s.batch == 0) throw bad("batch", s.batch, "(must be positive)");
  if (s.seq == 0) throw bad("seq", s.seq, "(must be positive)");
  if (s.heads == 0) throw bad("heads", s.heads, "(must be positive)");
  if (s.head_dim == 0 || s.head_dim > kMaxHeadDim)
    throw bad("head_dim", s.head_dim, "(the FA2 kernels take 1 .. 128)");
  const uint64_t lim = 65535;
  if (v == Fa2Backward::Tiled4 && s.head_dim > kTiled4MaxHeadDim)
    throw bad("head_dim", s.head_dim, "(attn_bwd_fa2_tiled4 takes 1 .. 64; tiled takes 1 .. 128)");
  if (v == Fa2Backward::Tiled || v == Fa2Backward::Tiled4) {  // the same grid
    const uint64_t bh = uint64_t(s.batch) * s.heads;
    const uint64_t jobs = 2 * ((uint64_t(s.seq) + kTiledBlock - 1) / kTiledBlock);
    if (bh > lim) throw bad("batch * heads", bh, "(attn_bwd_fa2_tiled's grid x: at most 65535)");
    if (jobs > lim)
      throw bad("seq", s.seq, "(attn_bwd_fa2_tiled's grid y = 2 ceil(seq/32) > 65535)");
    const std::string_view k = v == Fa2Backward::Tiled4
                                   ? kernels::attention::attn_bwd_fa2_tiled4::name
                                   : kernels::attention::attn_bwd_fa2_tiled::name;
    return {{std::string(k), uint32_t(bh), uint32_t(jobs), 1}};
  }
  if (s.q_tiles() > lim) throw bad("seq", s.seq, "(grid x = ceil(seq/16) > 65535)");
  if (s.heads > lim) throw bad("heads", s.heads, "(grid y > 65535)");
  if (s.batch > lim) throw bad("batch", s.batch, "(grid z > 65535)");
  namespace ka = kernels::attention;
  const bool wide = v == Fa2Backward::Wide;
  const std::string_view dq = wide ? ka::attn_dscores_fa2_wide::name : ka::attn_dscores_fa2::name;
  const std::string_view dkdv = wide ? ka::attn_dv_fa2_wide::name : ka::attn_dv_fa2::name;
  return {{std::string(dq), s.q_tiles(), s.heads, s.batch},
          {std::string(dkdv), s.q_tiles(), s.heads, s.batch}};
}

// attn_fwd_fa2_tiled (ours: the FA2 forward on 32 x 32 register tiles; attn_fwd_fa2's bindings
// 0-3 and outputs): one dispatch (B * H, ceil(T / 32), 1). Throws std::invalid_argument naming the
// field and value where the kernel cannot run the shape (as fa2_backward_dispatches).
inline KernelDispatch fa2_forward_tiled_dispatch(const Shape& s) {
  auto bad = [](const char* field, uint64_t value, const char* why) {
    return std::invalid_argument("attention FA2 forward: " + std::string(field) + " = " +
                                 std::to_string(value) + " " + why);
  };
  if (s.batch == 0) throw bad("batch", s.batch, "(must be positive)");
  if (s.seq == 0) throw bad("seq", s.seq, "(must be positive)");
  if (s.heads == 0) throw bad("heads", s.heads, "(must be positive)");
  if (s.head_dim == 0 || s.head_dim > kMaxHeadDim)
    throw bad("head_dim", s.head_dim, "(the FA2 kernels take 1 .. 128)");
  const uint64_t bh = uint64_t(s.batch) * s.heads;
  const uint64_t tiles = (uint64_t(s.seq) + kTiledBlock - 1) / kTiledBlock;
  if (bh > 65535) throw bad("batch * heads", bh, "(attn_fwd_fa2_tiled's grid x: at most 65535)");
  if (tiles > 65535)
    throw bad("seq", s.seq, "(attn_fwd_fa2_tiled's grid y = ceil(seq/32) > 65535)");
  return {std::string(kernels::attention::attn_fwd_fa2_tiled::name), uint32_t(bh), uint32_t(tiles),
          1};
}

}  // namespace wgslvk::attention
