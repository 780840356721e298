// Case generators: one function per golden case, seeded, building the inputs with a portable RNG
// (std::mt19937_64 and our own bits -> float), calling the kernel's CPU reference for the expected
// outputs, and returning the Case. `wgslvk golden regen` writes them with their golden seed;
// `wgslvk validate` runs each kernel's randomized generator with a fresh seed.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "wgslvk/validate/case.hpp"

namespace wgslvk::validate {

struct Generator {
  std::string kernel;  // "embedding/embed_lookup"
  std::string name;    // case folder name
  uint64_t golden_seed = 0;
  bool randomized = false;  // the kernel's randomized check in `validate`
  Case (*make)(uint64_t seed) = nullptr;
  std::string source;  // "wgsl_ports/embedding/cases.cpp"
};

// Every generator of every family, in a stable order (kernel order of all_kernels(), then the
// order the family registered them).
const std::vector<Generator>& generators();

// Families register their generators from their own folder (wgsl_ports/<family>/cases.cpp):
//   void register_matmul(std::vector<Generator>& g) { g.push_back({...}); ... }
//   WGSLVK_REGISTER_GENERATORS(register_matmul);
// The registration runs at static-initialization time; wgslvk_add_family links the object with
// --whole-archive semantics so the linker keeps it.
using RegisterGenerators = void (*)(std::vector<Generator>&);
bool add_generator_family(RegisterGenerators fn, const char* source);
#define WGSLVK_REGISTER_GENERATORS(fn)                               \
  [[maybe_unused]] static const bool wgslvk_generators_registered_ = \
      ::wgslvk::validate::add_generator_family(fn, __FILE__)
// Runs g.make(seed) and fills in kernel, name and provenance.
Case generate(const Generator& g, uint64_t seed);

// The portable RNG of the generators: mt19937_64 (its output sequence is fixed by the C++
// standard) with explicit bits -> value conversions (never std::*_distribution, whose results
// differ between standard libraries).
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t bits() { return g_(); }
  double unit() { return double(g_() >> 11) * 0x1p-53; }  // [0, 1)
  float uniform(double lo, double hi) { return float(lo + (hi - lo) * unit()); }
  uint32_t below(uint64_t n) { return uint32_t(g_() % n); }  // bias < n / 2^64: irrelevant here
  // Uniform magnitude over [2^lo_exp, 2^hi_exp) in log space, random sign: spans binades.
  float log_uniform(int lo_exp, int hi_exp, bool signed_ = true);
  // hi_exp > lo_exp; the exponent range must stay within normal f32 (-126..127).

 private:
  std::mt19937_64 g_;
};

// base^n by n multiplications (std::pow's last bit is not the same in every libm).
double pow_int(double base, uint32_t n);

}  // namespace wgslvk::validate
