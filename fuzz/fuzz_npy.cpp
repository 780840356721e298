// Fuzz target: the .npy decoder. Refusals are std::runtime_error naming the file.
#include <stdexcept>

#include "fuzz.hpp"
#include "wgslvk/validate/npy.hpp"

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"\x93NUMPY",
          "'descr'",
          "'<f4'",
          "'<f2'",
          "'|u1'",
          "'>f4'",
          "'fortran_order'",
          "False",
          "True",
          "'shape'",
          "(",
          ")",
          "()",
          "(0,)",
          "(4294967296, 4294967296)",
          "(18446744073709551615,)",
          ", ",
          "{",
          "}"};
}
std::vector<std::vector<uint8_t>> extra_seeds() {
  using namespace wgslvk::validate;
  Array a;
  a.dtype = DType::U8;
  a.shape = {};
  a.bytes = {7};
  return {npy_encode(a), npy_encode(Array::of(DType::F16, std::vector<uint16_t>{0x3c00, 0x7e00}))};
}
}  // namespace wgslvk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto a = wgslvk::validate::npy_decode(std::span<const uint8_t>(data, size), "fuzz.npy");
    if (a.bytes.size() != a.count() * wgslvk::validate::dtype_size(a.dtype))
      wgslvk::fuzz::bug("decoded byte count is not a whole number of elements");
    uint64_t n = 1;
    for (uint64_t d : a.shape) n *= d;
    if (n != a.count()) wgslvk::fuzz::bug("decoded count differs from the shape's product");
    (void)wgslvk::validate::npy_encode(a);
  } catch (const std::runtime_error& e) {
    wgslvk::fuzz::check_message(e.what());
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("npy_decode threw a non-runtime_error: ") + e.what());
  }
  return 0;
}
