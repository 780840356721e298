// Helpers of `wgslvk bench` (cli/bench.cpp): robust statistics, deterministic inputs, the
// 111-tensor model layout of shared/anchors.md, and the minimum byte counts each kernel must move.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace wgslvk::bench {

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0;
  size_t n = 0;
};

inline Stats stats_of(std::vector<double> v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double f) { return v[std::min(v.size() - 1, size_t(f * double(v.size() - 1) + 0.5))]; };
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.p10 = q(0.1);
  s.p90 = q(0.9);
  s.min = v.front();
  return s;
}

// A 32-bit integer hash (lowbias32); the same in the JS peers (Math.imul) so inputs can be
// regenerated there when a dump is not used.
inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
// Uniform in [-1, 1), never exactly 0 (zeros hide unwritten outputs and skip work in some kernels).
inline float rand_sym(uint32_t seed, uint64_t i) {
  uint32_t h = hash32(uint32_t(i) * 0x9e3779b9u + seed * 0x85ebca6bu + uint32_t(i >> 32));
  float f = float(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
  return f == 0.0f ? 0.5f : f;
}
inline float rand_pos(uint32_t seed, uint64_t i) { return 0.5f * (rand_sym(seed, i) + 1.0f) + 1e-3f; }

// ---- the model of shared/anchors.md: 111 tensors, 110.1M parameters -----------------------------
struct TensorDesc {
  std::string name;
  uint64_t numel = 0;
  bool decay = true;  // matrices decay; norms (and biases, none here) do not
};

inline std::vector<TensorDesc> llm_layout(uint64_t vocab = 16384, uint64_t d = 768,
                                          uint64_t ff = 2048, int layers = 12) {
  std::vector<TensorDesc> t;
  t.push_back({"tok_embedding", vocab * d, true});
  for (int l = 0; l < layers; ++l) {
    std::string p = "layer" + std::to_string(l) + ".";
    t.push_back({p + "attn_norm", d, false});
    for (const char* n : {"wq", "wk", "wv", "wo"}) t.push_back({p + n, d * d, true});
    t.push_back({p + "ffn_norm", d, false});
    for (const char* n : {"w_gate", "w_up"}) t.push_back({p + n, d * ff, true});
    t.push_back({p + "w_down", ff * d, true});
  }
  t.push_back({"final_norm", d, false});
  t.push_back({"lm_head", vocab * d, true});
  return t;
}

// ---- minimum bytes through device memory (each input read once, each output written once) -------
// adamw_update: reads w, g, m, v; writes w, m, v and zeroes g: 8 x 4 B.
inline uint64_t bytes_adamw(uint64_t n) { return 32 * n; }
// adamw_update_f16: the same plus the f16 mirror write.
inline uint64_t bytes_adamw_f16(uint64_t n) { return 34 * n; }
// adamw_8bit_update: reads w, g (4 B each) and the int8 m, v codes (1 B each), writes the same
// 10 B back; per 256-element block each of m_scale, v_scale is read and written (4 B each way).
inline uint64_t bytes_adamw_8bit(uint64_t n) { return 20 * n + 16 * ((n + 255) / 256); }
// reduce_norm_sq: reads g once (4 B); the scalar result is noise.
inline uint64_t bytes_reduce(uint64_t n) { return 4 * n; }
// embed_lookup: one 4 B read of a table element and one 4 B write per output element, plus the
// 4 B token per position.
inline uint64_t bytes_lookup(uint64_t seq, uint64_t d) { return 8 * seq * d + 4 * seq; }
// embed_lookup_w16: 2 B f16 read + 4 B write per output element + 4 B per token.
inline uint64_t bytes_lookup_w16(uint64_t seq, uint64_t d) { return 6 * seq * d + 4 * seq; }
// embed_backward: reads grad_out (4 B per element) and tokens (4 B per position); each table row
// that some position hits is read and written once (8 B per element of a distinct row).
inline uint64_t bytes_backward(uint64_t seq, uint64_t d, uint64_t distinct_rows) {
  return 4 * seq * d + 4 * seq + 8 * distinct_rows * d;
}

inline std::string human_count(uint64_t n) {
  char b[32];
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) std::snprintf(b, sizeof b, "%lluM", (unsigned long long)(n >> 20));
  else if (n >= 1024 && n % 1024 == 0) std::snprintf(b, sizeof b, "%lluK", (unsigned long long)(n >> 10));
  else std::snprintf(b, sizeof b, "%llu", (unsigned long long)n);
  return b;
}

}  // namespace wgslvk::bench
