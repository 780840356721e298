#include "wgslvk/validate/generators.hpp"

#include <bit>
#include <algorithm>
#include <cmath>
#include <map>

#include "wgslvk/kernel.hpp"

namespace wgslvk::validate {

namespace {
struct FamilyRegistration {
  RegisterGenerators fn;
  std::string source;
};
// Function-local: registrations run during static initialization, in any order across files.
std::vector<FamilyRegistration>& registrations() {
  static std::vector<FamilyRegistration> r;
  return r;
}
}  // namespace

bool add_generator_family(RegisterGenerators fn, const char* source) {
  registrations().push_back({fn, source});
  return true;
}

float Rng::log_uniform(int lo_exp, int hi_exp, bool signed_) {
  // Built from bits (no exp2, whose last bit may differ between libms): a uniform binade in
  // [lo_exp, hi_exp) and 23 uniform mantissa bits.
  uint64_t r = bits();
  uint32_t e = uint32_t(lo_exp + int(r % uint64_t(hi_exp - lo_exp)) + 127);
  uint32_t b = (e << 23) | uint32_t((r >> 32) & 0x7fffffu);
  if (signed_ && ((r >> 63) & 1)) b |= 0x80000000u;
  return std::bit_cast<float>(b);
}

double pow_int(double base, uint32_t n) {
  double p = 1.0;
  for (uint32_t i = 0; i < n; ++i) p *= base;  // IEEE multiplies: the same bits everywhere
  return p;
}

const std::vector<Generator>& generators() {
  static const std::vector<Generator> all = [] {
    std::vector<Generator> g;
    for (const auto& r : registrations()) r.fn(g);
    // Stable order whatever the link order: the kernels' own order (all_kernels(): folder, WGSL
    // file, declaration), then each family's registration order.
    std::map<std::string, size_t> rank;
    for (const KernelInfo* k : all_kernels()) rank.emplace(k->qualified_name(), rank.size());
    std::stable_sort(g.begin(), g.end(), [&](const Generator& a, const Generator& b) {
      auto ra = rank.count(a.kernel) ? rank[a.kernel] : rank.size();
      auto rb = rank.count(b.kernel) ? rank[b.kernel] : rank.size();
      return ra < rb;
    });
    return g;
  }();
  return all;
}

Case generate(const Generator& g, uint64_t seed) {
  Case c = g.make(seed);
  c.kernel = g.kernel;
  c.name = g.name;
  ojson p;
  p["generator"] = g.source + ": " + g.kernel + "/" + g.name;
  p["seed"] = seed;
  p["rng"] =
      "std::mt19937_64 with explicit bits->float (validate/include/wgslvk/validate/generators.hpp)";
  p["expected"] = "CPU reference wgsl_ports/" + g.kernel.substr(0, g.kernel.find('/')) +
                  "/reference.hpp (double precision, rounded to the output type), never a GPU run";
  p["regenerate"] = "wgslvk golden regen";
  c.provenance = p;
  return c;
}

}  // namespace wgslvk::validate
