// The golden/ folder: where it is, and regenerating it from the generators.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace wgslvk::validate {

// The source tree: $WGSLVK_SOURCE_DIR if set, else the checkout a program built in a wgslvk build
// tree (the CLI, the tests) was built from, else (a program linking the installed package) the
// current directory.
std::filesystem::path source_dir();
// <source_dir>/golden
std::filesystem::path golden_dir();

struct FileChange {
  enum class Kind { Added, Changed, Removed };
  Kind kind;
  std::string path;  // relative to the golden root
};
std::string_view change_name(FileChange::Kind k);  // "added", "changed", "removed"

// Generates every case with its golden seed and compares the files with those under `root`
// (byte for byte). With `write`, makes `root` match (writes added/changed files, deletes removed
// ones and empty folders). Files directly in `root` (README.md) are left alone. Sorted by path.
std::vector<FileChange> regen(const std::filesystem::path& root, bool write);

}  // namespace wgslvk::validate
