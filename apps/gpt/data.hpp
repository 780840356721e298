// Tokenizer, corpus and batches. Nothing is downloaded: the corpus is Debian's `fortunes`
// (scripts/install-deps.sh installs it): every plain-text file of /usr/share/games/fortunes
// (the `.dat` indexes and `.u8` copies left out; symlinks followed once), sorted by name.
//
// Tokenizer: byte-level, vocabulary 256 (token = byte value). Decision: bytes, not characters:
// no unknown tokens, every file round-trips exactly, the vocabulary is fixed without a fitting
// step.
//
// Split: the last val_fraction of every file (cut at a byte) is held out for validation; the
// rest, concatenated in file order, is the training stream (so both sides see every style of
// fortune, and no validation byte is ever in a training batch).
//
// Batches: batch b of step t takes a window of context+1 bytes at an offset drawn from
// splitmix64(seed, t, b): tokens = window[0..T), targets = window[1..T]. A pure function of
// (seed, step), so a resumed run sees the same batches, and the CPU reference, the GPU trainer and
// the PyTorch peer (which reads the batches from a file) train on the same data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wgslvk::gpt {

inline constexpr const char* kDefaultCorpusDir = "/usr/share/games/fortunes";

std::vector<uint32_t> encode(const std::string& text);
std::string decode(const std::vector<uint32_t>& tokens);

struct Corpus {
  std::vector<uint8_t> train, val;
  std::vector<std::string> files;  // what was read
};
// Throws std::runtime_error when the directory holds no usable file.
Corpus load_corpus(const std::string& dir = kDefaultCorpusDir, double val_fraction = 0.1);
// A synthetic corpus for tests that must not depend on the installed package.
Corpus make_corpus(const std::string& text, double val_fraction = 0.1);

struct Batch {
  uint32_t batch = 0, context = 0;
  std::vector<uint32_t> tokens, targets;  // [batch * context]
};
// Step t's batch from `data` (train or val).
Batch make_batch(const std::vector<uint8_t>& data, uint32_t batch, uint32_t context, uint64_t seed,
                 uint64_t step);

}  // namespace wgslvk::gpt
