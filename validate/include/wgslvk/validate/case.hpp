// A golden case: buffers, an ordered list of dispatches, and the checks on the outputs. The
// format (case.json + .npy files) is documented in golden/README.md; this is its in-memory model,
// shared by the loader, the writer (golden regen) and the runner.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "wgslvk/validate/npy.hpp"

namespace wgslvk::validate {

using ojson = nlohmann::ordered_json;

inline constexpr const char* kCaseFormat = "wgslvk-case/1";

// Bad case data: the message names the file and the field ("golden/x/case.json: dispatches[0].
// bindings[1].group: expected an unsigned integer, got \"a\"").
class CaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Poison written into every buffer declared without contents: a signalling-NaN pattern no
// kernel produces. Per element size: 4 bytes 0x7fa5a5a5, 2 bytes 0x7d5a (an f16 sNaN), 1 byte 0xa5.
inline constexpr uint32_t kPoison32 = 0x7fa5a5a5u;
inline constexpr uint16_t kPoison16 = 0x7d5au;
inline constexpr uint8_t kPoison8 = 0xa5u;

// Procedural contents, for arrays too large to store (documented in golden/README.md).
struct Generate {
  std::string kind;  // "uniform" | "choice"
  uint64_t seed = 0;
  double lo = 0, hi = 1;  // uniform
  ojson values;           // choice: numbers or "nan" / "inf" / "-inf" / "0x..." bit patterns
};

struct BufferSpec {
  enum class Kind { File, Fill, Generate };
  std::string name;
  Kind kind = Kind::Fill;
  std::string file;          // File: name of the .npy in the case folder
  Array data;                // File: the contents (loaded, or built by a generator)
  DType dtype = DType::F32;  // Fill / Generate
  uint64_t count = 0;        // Fill / Generate: elements
  bool poison = true;        // Fill: poison, else fill_value
  ojson fill_value;          // Fill: one value (same syntax as a choice value)
  Generate gen;
  // Bytes of the buffer: contents rounded up to a multiple of 4 (WebGPU buffer sizes).
  uint64_t byte_size() const;
  // Initial contents (file data, fill, or generated), byte_size() bytes.
  std::vector<uint8_t> initial_bytes() const;
  DType element_type() const { return kind == Kind::File ? data.dtype : dtype; }
};

struct BindingSpec {
  uint32_t group = 0, binding = 0;
  // Either a named buffer range ...
  std::string buffer;
  uint64_t offset = 0;
  std::optional<uint64_t> size;  // default: the rest of the buffer
  // ... or inline values (a uniform or small storage buffer made for this binding).
  bool is_inline = false;
  ojson inline_values;                // [{"u32": [..]}, {"f32": [..]}]: segments, concatenated
  std::vector<uint8_t> inline_bytes;  // encoded, padded to 16 bytes
};

struct DispatchSpec {
  std::string kernel;  // "optimizer/adamw_update"
  std::string label;
  std::vector<BindingSpec> bindings;
  std::optional<std::array<uint32_t, 3>> workgroups;  // explicit counts, or
  uint64_t workgroups_1d = 0;  // a 1-D count laid out by grid_for_workgroups (2-D when > 65535)
};

struct CheckSpec {
  enum class Mode { Exact, Ulp };
  enum class Magnitude { Self, File, Scalar };
  std::string buffer;
  std::string expected_file;
  Array expected;               // covers elements [0, expected.count()) of the buffer
  uint64_t begin = 0, end = 0;  // element range compared (end 0 = expected.count())
  Mode mode = Mode::Exact;
  double bound = 0;        // Ulp: largest error allowed, in ULP, or per element:
  std::string bound_file;  //   a float array of bounds (same count as expected)
  Array bound_data;
  Magnitude magnitude = Magnitude::Self;
  std::string magnitude_file;
  Array magnitude_data;  // same element count as expected (f32 or the output type)
  double magnitude_scalar = 0;
  std::string reason;
  uint64_t range_end() const { return end ? end : expected.count(); }
};

struct Case {
  std::filesystem::path dir;  // where it was loaded from (empty for in-memory cases)
  std::string kernel;         // the kernel it is filed under ("optimizer/adamw_update")
  std::string name;           // the case folder's name
  std::string description;
  ojson provenance = ojson::object();
  std::vector<BufferSpec> buffers;
  std::vector<DispatchSpec> dispatches;
  std::vector<CheckSpec> checks;

  const BufferSpec* find_buffer(const std::string& n) const;
  std::string id() const { return kernel + "/" + name; }
};

// Parse <dir>/case.json and the arrays it names. Throws CaseError naming file and field.
Case load_case(const std::filesystem::path& dir);
Case parse_case(const ojson& j, const std::filesystem::path& dir, bool load_files = true);
// Every case folder (a folder holding case.json) under root, sorted by path.
std::vector<std::filesystem::path> find_cases(const std::filesystem::path& root);

// The files of a case folder, by name: "case.json" and every .npy, byte for byte as regen
// writes them (deterministic on every machine).
std::map<std::string, std::vector<uint8_t>> serialize_case(const Case& c);
ojson case_to_json(const Case& c);

// Encodes one value of `t` from its case.json spelling (number, "nan", "inf", "-inf", "0x..."
// bits); `where` names the field in errors.
void encode_value(DType t, const ojson& v, std::vector<uint8_t>& out, const std::string& where);
// Inline binding values: [{"u32": [...]}, {"f32": [...]}] -> bytes (padded to 16).
std::vector<uint8_t> encode_inline(const ojson& segments, const std::string& where);

// Float to JSON: the shortest decimal that reads back as the same float (finite values only).
ojson json_f32(float f);

// The counter-based generator of "generate" buffers: splitmix64 of seed + (i+1)*0x9e3779b97f4a7c15.
uint64_t splitmix64_at(uint64_t seed, uint64_t i);

}  // namespace wgslvk::validate
