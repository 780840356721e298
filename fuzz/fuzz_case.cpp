// Fuzz target: the case loader (case.json and the .npy files it names), then what runs on a loaded
// case before any device: serialization and the buffers' initial contents. Refusals are CaseError.
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "fuzz.hpp"
#include "wgslvk/validate/case.hpp"

namespace fs = std::filesystem;
using namespace wgslvk::validate;

namespace {
// A private folder with the arrays the corpus' cases name.
const fs::path& folder() {
  static const fs::path d = [] {
    char tmpl[] = "/tmp/wgslvk_fuzz_case_XXXXXX";
    fs::path p = ::mkdtemp(tmpl);
    std::vector<float> f(64);
    for (size_t i = 0; i < f.size(); ++i) f[i] = float(i) * 0.25f;
    npy_write(p / "out.expected.npy", Array::of(DType::F32, f));
    npy_write(p / "x.npy", Array::of(DType::F32, f));
    npy_write(p / "bound.npy", Array::of(DType::F32, std::vector<float>(64, 2.0f)));
    npy_write(p / "tokens.npy", Array::of(DType::U32, std::vector<uint32_t>{1, 2, 3, 4}));
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(folder(), ec);
    });
    return p;
  }();
  return d;
}
}  // namespace

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"\"format\"",
          "\"wgslvk-case/1\"",
          "\"kernel\"",
          "\"case\"",
          "\"buffers\"",
          "\"dispatches\"",
          "\"checks\"",
          "\"file\"",
          "\"dtype\"",
          "\"count\"",
          "\"fill\"",
          "\"generate\"",
          "\"kind\"",
          "\"uniform\"",
          "\"choice\"",
          "\"values\"",
          "\"seed\"",
          "\"lo\"",
          "\"hi\"",
          "\"bindings\"",
          "\"group\"",
          "\"binding\"",
          "\"buffer\"",
          "\"offset\"",
          "\"size\"",
          "\"workgroups\"",
          "\"workgroups_1d\"",
          "\"expected\"",
          "\"range\"",
          "\"compare\"",
          "\"ulp\"",
          "\"exact\"",
          "\"magnitude\"",
          "\"self\"",
          "\"reason\"",
          "\"f32\"",
          "\"f16\"",
          "\"u32\"",
          "\"i8\"",
          "\"nan\"",
          "\"-inf\"",
          "\"0x7fc00000\"",
          "\"0x\"",
          "\"../x.npy\"",
          "\"/etc/passwd\"",
          "\"x.npy\"",
          "\"out.expected.npy\"",
          "\"bound.npy\"",
          "[[[[[[[[",
          "]]]]]]]]",
          "{\"a\":{\"a\":",
          "\"\\u0000\"",
          "\"\\ud800\"",
          "\xff",
          "null",
          "true",
          "[]",
          "{}",
          "18446744073709551615"};
}
std::vector<std::vector<uint8_t>> extra_seeds() { return {}; }
}  // namespace wgslvk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path& d = folder();
  {
    std::ofstream f(d / "case.json", std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  try {
    Case c = load_case(d);
    (void)serialize_case(c);
    for (const auto& b : c.buffers)
      if (b.byte_size() <= (uint64_t(1) << 20)) (void)b.initial_bytes();
  } catch (const CaseError& e) {
    // refused with a message: fine
    wgslvk::fuzz::check_message(e.what());
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("load_case threw a non-CaseError: ") + e.what());
  }
  return 0;
}
