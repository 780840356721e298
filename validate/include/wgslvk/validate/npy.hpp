// NumPy .npy files (format 1.0, little-endian, C order), the array format of golden cases, so
// `numpy.load` opens every input and expected output. Reading also accepts versions 2.0/3.0.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgslvk::validate {

// Element types of case arrays. The names are what case.json uses ("f32", ...); the descr is
// numpy's ('<f4', ...).
enum class DType : uint8_t { F32, F16, U32, I32, U16, I16, U8, I8 };

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);   // "f32"
std::string_view dtype_descr(DType t);  // "<f4"
bool dtype_is_float(DType t);
// "f32" / "float32" -> F32; throws std::invalid_argument listing the known names.
DType parse_dtype(std::string_view name);

// A flat typed array (shape kept for the file; the data is C order).
struct Array {
  DType dtype = DType::F32;
  std::vector<uint64_t> shape;  // empty: a scalar (one element)
  std::vector<uint8_t> bytes;

  uint64_t count() const { return bytes.size() / dtype_size(dtype); }
  template <class T>
  T at(uint64_t i) const {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  template <class T>
  static Array of(DType t, const std::vector<T>& v) {
    Array a;
    a.dtype = t;
    a.shape = {uint64_t(v.size())};
    a.bytes.resize(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    return a;
  }
  template <class T>
  std::vector<T> as() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
};

// Serialize as .npy v1.0 (header padded to a multiple of 64 bytes, as numpy >= 1.x writes).
std::vector<uint8_t> npy_encode(const Array& a);
// Parse .npy bytes; `what` names the file in errors (std::runtime_error).
Array npy_decode(std::span<const uint8_t> bytes, const std::string& what);

Array npy_read(const std::filesystem::path& path);
void npy_write(const std::filesystem::path& path, const Array& a);

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path);
void write_file_bytes(const std::filesystem::path& path, std::span<const uint8_t> bytes);

}  // namespace wgslvk::validate
