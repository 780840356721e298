// What the golden and untrusted-case suites share: a fresh temporary folder and a small valid case.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace wgslvk::testing {

// An empty folder under the system's temp directory, unique to this process.
inline std::filesystem::path temp_dir(const std::string& name) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("wgslvk_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// A small valid case (embedding/embed_lookup: 4 tokens, a 16x4 table), as text; its
// out.expected.npy is 64 floats of 0.5. Kernels by name and bindings by number on purpose: that
// is the case format (wgslvk-case/1, golden/README.md) these tests are about.
inline constexpr const char* kTinyCase = R"({
  "format": "wgslvk-case/1",
  "kernel": "embedding/embed_lookup",
  "case": "tiny",
  "buffers": {
    "tokens": {"dtype": "u32", "count": 4, "fill": 1},
    "table": {"dtype": "f32", "count": 64, "fill": 0.5},
    "out": {"dtype": "f32", "count": 64}
  },
  "dispatches": [{"kernel": "embedding/embed_lookup", "workgroups": [1],
    "bindings": [{"group": 0, "binding": 0, "buffer": "tokens"},
                 {"group": 0, "binding": 1, "buffer": "table"},
                 {"group": 0, "binding": 2, "buffer": "out"},
                 {"group": 0, "binding": 3, "values": {"u32": [4, 16, 4, 0]}}]}],
  "checks": [{"buffer": "out", "expected": "out.expected.npy", "compare": "exact", "reason": "copy"}]
})";

}  // namespace wgslvk::testing
