// A bounded, deterministic mutation fuzzer (fuzz/README.md): reads the corpus folders, then runs
// mutated inputs through LLVMFuzzerTestOneInput until --iterations or --seconds run out. The
// sequence of inputs depends on --seed alone, so a failure replays with the same command (or,
// from the saved input, with --replay FILE).
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "fuzz.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> g_current;  // the input being run, saved when it fails
std::string g_crash_path = "fuzz-crash.bin";

void save_current() {
  // Async-signal-safe enough: open/write/close only.
  FILE* f = std::fopen(g_crash_path.c_str(), "wb");
  if (!f) return;
  std::fwrite(g_current.data(), 1, g_current.size(), f);
  std::fclose(f);
}

extern "C" void on_signal(int sig) {
  save_current();
  const char msg[] = "fuzz: crashed; the input was saved (see --crash-file)\n";
  (void)!::write(2, msg, sizeof msg - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

const char* kNumbers[] = {"0",
                          "1",
                          "-1",
                          "255",
                          "256",
                          "65535",
                          "65536",
                          "4294967295",
                          "4294967296",
                          "2147483648",
                          "-2147483649",
                          "9223372036854775807",
                          "-9223372036854775808",
                          "18446744073709551615",
                          "18446744073709551616",
                          "1e308",
                          "-1e308",
                          "1e-320",
                          "0.5",
                          "-0",
                          "99999999999999999999999999"};

struct Mutator {
  std::mt19937_64 rng;
  std::vector<std::string> dict;
  size_t max_size;

  uint64_t below(uint64_t n) { return n ? rng() % n : 0; }

  void mutate_once(std::vector<uint8_t>& d, const std::vector<std::vector<uint8_t>>& corpus) {
    switch (below(9)) {
      case 0:  // flip a bit
        if (!d.empty()) d[below(d.size())] ^= uint8_t(1u << below(8));
        break;
      case 1: {  // an interesting byte
        static const uint8_t v[] = {0,   0xff, 0x7f, 0x80, '"', '{', '}', '[', ']',
                                    ',', ':',  '\\', '/',  '.', '<', '>', '(', ')'};
        if (!d.empty()) d[below(d.size())] = v[below(sizeof v)];
        break;
      }
      case 2: {  // insert random bytes
        size_t at = below(d.size() + 1), n = 1 + below(8);
        for (size_t i = 0; i < n; ++i) d.insert(d.begin() + at, uint8_t(rng()));
        break;
      }
      case 3: {  // delete a range
        if (d.empty()) break;
        size_t at = below(d.size()), n = 1 + below(std::min<size_t>(d.size() - at, 64));
        d.erase(d.begin() + at, d.begin() + at + n);
        break;
      }
      case 4: {  // duplicate a range
        if (d.empty()) break;
        size_t at = below(d.size()), n = 1 + below(std::min<size_t>(d.size() - at, 256));
        std::vector<uint8_t> piece(d.begin() + at, d.begin() + at + n);
        size_t to = below(d.size() + 1);
        d.insert(d.begin() + to, piece.begin(), piece.end());
        break;
      }
      case 5:
      case 6: {  // a dictionary token
        if (dict.empty()) break;
        const std::string& t = dict[below(dict.size())];
        size_t at = below(d.size() + 1);
        d.insert(d.begin() + at, t.begin(), t.end());
        break;
      }
      case 7: {  // replace a run of digits with a number at an edge
        if (d.empty()) break;
        size_t at = below(d.size());
        while (at < d.size() && !std::isdigit(d[at])) ++at;
        size_t end = at;
        while (end < d.size() && std::isdigit(d[end])) ++end;
        std::string n = kNumbers[below(sizeof kNumbers / sizeof *kNumbers)];
        d.erase(d.begin() + at, d.begin() + end);
        d.insert(d.begin() + at, n.begin(), n.end());
        break;
      }
      default: {  // splice with another input
        const auto& o = corpus[below(corpus.size())];
        if (o.empty()) break;
        size_t from = below(o.size()), n = 1 + below(std::min<size_t>(o.size() - from, 512));
        size_t at = below(d.size() + 1);
        d.insert(d.begin() + at, o.begin() + from, o.begin() + from + n);
        break;
      }
    }
    if (d.size() > max_size) d.resize(max_size);
  }
};

int usage() {
  std::fprintf(stderr,
               "usage: fuzz_<target> [--iterations N] [--seconds S] [--seed N] [--max-size BYTES]\n"
               "                     [--crash-file FILE] CORPUS_DIR...\n"
               "       fuzz_<target> --replay FILE...\n"
               "       fuzz_<target> --emit-seeds DIR\n"
               "Runs every corpus file once, then mutated inputs until N iterations or S seconds.\n"
               "Exit 0 when nothing failed; a failing input aborts (saved to --crash-file).\n");
  return 2;
}

}  // namespace

namespace wgslvk::fuzz {
void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz: BUG: %s\n", what.c_str());
  save_current();
  std::fprintf(stderr, "fuzz: the input (%zu bytes) was saved to %s\n", g_current.size(),
               g_crash_path.c_str());
  std::abort();
}
}  // namespace wgslvk::fuzz

int main(int argc, char** argv) {
  uint64_t iterations = 100000, seed = 1;
  double seconds = 30;
  size_t max_size = 1 << 16;
  std::vector<fs::path> dirs, replay;
  bool replay_mode = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--iterations")
      iterations = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--seconds")
      seconds = std::atof(next().c_str());
    else if (a == "--seed")
      seed = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--max-size")
      max_size = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--crash-file")
      g_crash_path = next();
    else if (a == "--replay")
      replay_mode = true;
    else if (a == "--emit-seeds") {  // writes the built-in seeds (to commit them to the corpus)
      fs::path d = next();
      int k = 0;
      for (const auto& s : wgslvk::fuzz::extra_seeds()) {
        std::ofstream f(d / ("seed-" + std::to_string(k++) + ".bin"), std::ios::binary);
        f.write(reinterpret_cast<const char*>(s.data()), std::streamsize(s.size()));
      }
      return 0;
    } else if (!a.empty() && a[0] == '-')
      return usage();
    else
      (replay_mode ? replay : dirs).push_back(a);
  }
  std::signal(SIGSEGV, on_signal);
  std::signal(SIGBUS, on_signal);
  std::signal(SIGFPE, on_signal);
  std::signal(SIGILL, on_signal);
  if (replay_mode) {
    for (const auto& f : replay) {
      g_current = read_all(f);
      LLVMFuzzerTestOneInput(g_current.data(), g_current.size());
      std::printf("fuzz: %s ran clean\n", f.c_str());
    }
    return 0;
  }
  if (dirs.empty()) return usage();
  std::vector<std::vector<uint8_t>> corpus;
  std::vector<fs::path> files;
  for (const auto& d : dirs) {
    if (fs::is_regular_file(d)) {  // a file named on the command line is one seed (shipped WGSL)
      files.push_back(d);
      continue;
    }
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // the same order everywhere: deterministic
  for (const auto& f : files) corpus.push_back(read_all(f));
  for (auto& s : wgslvk::fuzz::extra_seeds()) corpus.push_back(std::move(s));
  if (corpus.empty()) corpus.push_back({});

  auto t0 = std::chrono::steady_clock::now();
  // Every seed as it is first: the committed corpus holds the regression inputs.
  for (const auto& c : corpus) {
    g_current = c;
    LLVMFuzzerTestOneInput(g_current.data(), g_current.size());
  }
  Mutator m{std::mt19937_64(seed), wgslvk::fuzz::dictionary(), max_size};
  uint64_t n = 0;
  for (; n < iterations; ++n) {
    if ((n & 63) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds)
      break;
    g_current = corpus[m.below(corpus.size())];
    for (uint64_t k = 1 + m.below(8); k > 0; --k) m.mutate_once(g_current, corpus);
    LLVMFuzzerTestOneInput(g_current.data(), g_current.size());
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fuzz: %zu seeds and %llu mutated inputs ran clean in %.1f s (seed %llu)\n",
              corpus.size(), (unsigned long long)n, s, (unsigned long long)seed);
  return 0;
}
