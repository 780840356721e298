#include "wgslvk/validate/generators.hpp"

#include <cmath>

namespace wgslvk::validate {

void register_optimizer(std::vector<Generator>& g);  // gen_optimizer.cpp
void register_embedding(std::vector<Generator>& g);  // gen_embedding.cpp

float Rng::log_uniform(int lo_exp, int hi_exp, bool signed_) {
  double e = lo_exp + (hi_exp - lo_exp) * unit();
  double v = std::exp2(e);
  if (signed_ && (bits() & 1)) v = -v;
  return float(v);
}

const std::vector<Generator>& generators() {
  static const std::vector<Generator> all = [] {
    std::vector<Generator> g;
    register_optimizer(g);
    register_embedding(g);
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
  p["rng"] = "std::mt19937_64 with explicit bits->float (validate/include/wgslvk/validate/generators.hpp)";
  p["expected"] = "CPU reference wgsl_ports/" + g.kernel.substr(0, g.kernel.find('/')) +
                  "/reference.hpp (double precision, rounded to the output type), never a GPU run";
  p["regenerate"] = "wgslvk golden regen";
  c.provenance = p;
  return c;
}

}  // namespace wgslvk::validate
