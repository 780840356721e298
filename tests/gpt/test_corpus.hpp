// The GPT tests' synthetic corpus: English-like text that does not depend on an installed
// package, drawn from the test seed (tests/support/test_device.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "data.hpp"
#include "support/test_device.hpp"

namespace wgslvk::gpt {

inline Corpus test_corpus() {
  std::string s;
  const char* lines[] = {"The quick brown fox jumps over the lazy dog.\n",
                         "A journey of a thousand miles begins with a single step.\n",
                         "To be, or not to be, that is the question.\n",
                         "All that glitters is not gold; fortune favours the bold.\n",
                         "It was the best of times, it was the worst of times.\n"};
  uint64_t x = testing::test_seed();
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s += lines[(x >> 33) % 5];
  }
  return make_corpus(s, 0.1);
}

}  // namespace wgslvk::gpt
