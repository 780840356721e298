// The fuzz targets' interface. Each target (fuzz_<name>.cpp) defines libFuzzer's entry point, so
// the same file also builds with clang -fsanitize=fuzzer, plus a dictionary and extra seeds for
// our own driver (driver.cpp: a bounded, deterministic mutation loop built with the project's
// compiler; fuzz/README.md says why).
//
// A target returns normally for input the loader refuses with its documented error type; any
// other exception (std::bad_alloc, std::length_error, a JSON type_error, ...) is a bug, reported
// through wgslvk::fuzz::bug(), which saves the input and aborts. Sanitizers catch the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace wgslvk::fuzz {

// Tokens the mutator inserts (keywords, numbers at the edges of their types, punctuation).
std::vector<std::string> dictionary();
// Inputs built in code (a valid checkpoint, say) added to the committed corpus.
std::vector<std::vector<uint8_t>> extra_seeds();

// An unexpected failure: prints `what`, writes the current input to the crash folder, aborts.
[[noreturn]] void bug(const std::string& what);

// A refusal's message must be for people: bounded, and free of implementation words (issue 16:
// "stoull", "_M_default_append", "bad_alloc", a library's exception tag).
inline void check_message(const std::string& m) {
  if (m.empty()) bug("an empty error message");
  if (m.size() > 8000) bug("an unbounded error message (" + std::to_string(m.size()) + " bytes)");
  for (const char* leak :
       {"stoull", "stoll", "_M_", "bad_alloc", "json.exception", "basic_string", "vector::"})
    if (m.find(leak) != std::string::npos)
      bug("implementation word '" + std::string(leak) + "' in: " + m.substr(0, 500));
}

}  // namespace wgslvk::fuzz
