#include "data.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace wgslvk::gpt {

std::vector<uint32_t> encode(const std::string& text) {
  std::vector<uint32_t> t(text.size());
  for (size_t i = 0; i < text.size(); ++i) t[i] = uint8_t(text[i]);
  return t;
}

std::string decode(const std::vector<uint32_t>& tokens) {
  std::string s(tokens.size(), '\0');
  for (size_t i = 0; i < tokens.size(); ++i) s[i] = char(uint8_t(tokens[i] & 0xff));
  return s;
}

namespace {
void split_into(Corpus& c, const std::string& bytes, double val_fraction) {
  // Outside [0, 1] the cut ran past the text (val_fraction 2.0 from a checkpoint's .json).
  if (!(val_fraction >= 0 && val_fraction <= 1))
    throw std::invalid_argument("corpus: val_fraction " + std::to_string(val_fraction) +
                                " is outside [0, 1]");
  size_t n_val = size_t(double(bytes.size()) * val_fraction);
  size_t cut = bytes.size() - n_val;
  c.train.insert(c.train.end(), bytes.begin(), bytes.begin() + cut);
  c.val.insert(c.val.end(), bytes.begin() + cut, bytes.end());
}
}  // namespace

Corpus load_corpus(const std::string& dir, double val_fraction) {
  namespace fs = std::filesystem;
  Corpus c;
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto p = e.path();
    const auto ext = p.extension().string();
    if (ext == ".dat" || ext == ".u8" || ext == ".gz") continue;
    if (!fs::is_regular_file(p, ec)) continue;  // follows symlinks
    paths.push_back(p);
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream f(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.empty()) continue;
    split_into(c, bytes, val_fraction);
    c.files.push_back(p.string());
  }
  if (c.train.size() < 1024 || c.val.size() < 1024)
    throw std::runtime_error("corpus: no usable text under " + dir +
                             " (install the Debian package `fortunes`: scripts/install-deps.sh)");
  return c;
}

Corpus make_corpus(const std::string& text, double val_fraction) {
  Corpus c;
  split_into(c, text, val_fraction);
  c.files.push_back("<memory>");
  return c;
}

namespace {
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

Batch make_batch(const std::vector<uint8_t>& data, uint32_t batch, uint32_t context, uint64_t seed,
                 uint64_t step) {
  if (data.size() < uint64_t(context) + 2)
    throw std::invalid_argument("make_batch: the data is shorter than context + 1");
  Batch b;
  b.batch = batch;
  b.context = context;
  b.tokens.resize(uint64_t(batch) * context);
  b.targets.resize(uint64_t(batch) * context);
  const uint64_t span = data.size() - context - 1 + 1;  // offsets [0, size - context - 1]
  for (uint32_t i = 0; i < batch; ++i) {
    uint64_t off = mix(mix(mix(seed) ^ step) ^ i) % span;
    for (uint32_t t = 0; t < context; ++t) {
      b.tokens[uint64_t(i) * context + t] = data[off + t];
      b.targets[uint64_t(i) * context + t] = data[off + t + 1];
    }
  }
  return b;
}

}  // namespace wgslvk::gpt
