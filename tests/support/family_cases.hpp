// A family's registered golden generators in the tests: look one up, or run every one on a fresh
// seed and expect a pass. Header-only: it needs wgslvk_validate and wgslvk_families, which only
// the family suites link.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/test_device.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/runner.hpp"

namespace wgslvk::testing {

// The generators whose kernel is "<family>/...".
inline std::vector<const validate::Generator*> family_generators(const std::string& family) {
  std::vector<const validate::Generator*> out;
  for (const auto& g : validate::generators())
    if (g.kernel.rfind(family + "/", 0) == 0) out.push_back(&g);
  return out;
}

inline const validate::Generator& generator(const std::string& kernel, const std::string& name) {
  for (const auto& g : validate::generators())
    if (g.kernel == kernel && g.name == name) return g;
  throw std::runtime_error("no generator " + kernel + "/" + name);
}

// Every generator of the family (at least `at_least` of them) on a fresh seed passes on the test
// device; a failure names the case and the seed that replays it.
inline void expect_every_generator_passes(const std::string& family, size_t at_least) {
  auto gens = family_generators(family);
  ASSERT_GE(gens.size(), at_least);
  validate::Runner runner(device());
  for (const auto* g : gens) {
    const uint64_t seed = test_seed() ^ std::hash<std::string>{}(g->kernel + g->name);
    validate::Case c = validate::generate(*g, seed);
    validate::CaseResult r = runner.run(c);
    EXPECT_EQ(r.status, validate::CaseResult::Status::Pass)
        << g->kernel << "/" << g->name << " seed " << seed << ": " << r.message;
  }
}

}  // namespace wgslvk::testing
