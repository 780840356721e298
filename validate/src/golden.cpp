#include "wgslvk/validate/golden.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/generators.hpp"

// Defined by wgslvk_source_tree (validate/build_tree/), which only programs built in a wgslvk
// build tree link: the checkout they were built from.
extern "C" const char* wgslvk_build_source_dir() __attribute__((weak));

namespace wgslvk::validate {

namespace fs = std::filesystem;

fs::path source_dir() {
  if (const char* s = std::getenv("WGSLVK_SOURCE_DIR"); s && *s) return s;
  if (wgslvk_build_source_dir) return wgslvk_build_source_dir();
  return fs::current_path();
}

fs::path golden_dir() { return source_dir() / "golden"; }

std::string_view change_name(FileChange::Kind k) {
  return k == FileChange::Kind::Added     ? "added"
         : k == FileChange::Kind::Changed ? "changed"
                                          : "removed";
}

std::vector<FileChange> regen(const fs::path& root, bool write) {
  std::map<std::string, std::vector<uint8_t>> want;  // relative path -> bytes
  for (const auto& g : generators()) {
    Case c = generate(g, g.golden_seed);
    for (auto& [name, bytes] : serialize_case(c))
      want[g.kernel + "/" + g.name + "/" + name] = std::move(bytes);
  }
  std::vector<FileChange> changes;
  for (const auto& [rel, bytes] : want) {
    fs::path p = root / rel;
    if (!fs::exists(p)) {
      changes.push_back({FileChange::Kind::Added, rel});
    } else if (read_file_bytes(p) != bytes) {
      changes.push_back({FileChange::Kind::Changed, rel});
    } else {
      continue;
    }
    if (write) write_file_bytes(p, bytes);
  }
  if (fs::exists(root)) {
    // Only files regen writes are candidates for removal: <file>/<kernel>/<case>/ holding
    // case.json and .npy arrays. Anything else (a README, a stray src/main.c, deeper files) is
    // someone else's and stays (issue 26: regen --out DIR deleted them). Symlinks are never
    // followed or removed.
    auto generated_name = [](const fs::path& rel) {
      if (std::distance(rel.begin(), rel.end()) != 4) return false;
      const std::string f = rel.filename().string();
      return f == "case.json" || (f.size() > 4 && f.compare(f.size() - 4, 4, ".npy") == 0);
    };
    std::vector<fs::path> stale;
    for (auto& e : fs::recursive_directory_iterator(root)) {
      if (e.is_symlink() || !e.is_regular_file() || e.path().parent_path() == root) continue;
      const fs::path relp = e.path().lexically_relative(root);
      std::string rel = relp.generic_string();
      if (!want.count(rel) && generated_name(relp)) {
        changes.push_back({FileChange::Kind::Removed, rel});
        stale.push_back(e.path());
      }
    }
    if (write) {
      for (auto& p : stale) fs::remove(p);
      // Empty folders left behind, deepest first.
      std::vector<fs::path> dirs;
      for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_directory() && !e.is_symlink()) dirs.push_back(e.path());
      std::sort(dirs.rbegin(), dirs.rend());
      for (auto& d : dirs)
        if (fs::is_empty(d)) fs::remove(d);
    }
  }
  std::sort(changes.begin(), changes.end(),
            [](const FileChange& a, const FileChange& b) { return a.path < b.path; });
  return changes;
}

}  // namespace wgslvk::validate
