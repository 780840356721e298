// Fuzz target: the one checked parser of every command's numeric flags (cli/flag_number.hpp).
// The first input byte picks the parser and its range; the rest is the value. Refusals are
// cli::FlagError naming the flag, the value and the range; a value accepted must be in range and
// round-trip (a decimal integer prints back as itself, apart from leading zeros).
#include <cmath>
#include <string>

#include "flag_number.hpp"
#include "fuzz.hpp"

namespace wgslvk::fuzz {
std::vector<std::string> dictionary() {
  return {"-1",
          "0",
          "0x",
          "0X10",
          "4294967295",
          "4294967296",
          "4294967297",
          "18446744073709551615",
          "18446744073709551616",
          "1e30",
          "1e-30",
          "nan",
          "inf",
          "-inf",
          "1e999",
          "0x1p3",
          " ",
          "+",
          ".",
          "e",
          "\x1b[2J",
          "\xff"};
}
std::vector<std::vector<uint8_t>> extra_seeds() {
  std::vector<std::vector<uint8_t>> s;
  for (const char* v : {"\x00"
                        "42",
                        "\x01"
                        "0x10",
                        "\x02"
                        "3e-4",
                        "\x03"
                        "-1",
                        "\x00"
                        "abc"})
    s.emplace_back(v, v + 1 + std::char_traits<char>::length(v + 1));
  return s;
}
}  // namespace wgslvk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string v(reinterpret_cast<const char*>(data) + 1, size - 1);
  using namespace wgslvk::cli;
  try {
    switch (data[0] % 4) {
      case 0: {
        const uint64_t x = parse_flag_uint("--steps", v, 1, 100'000'000);
        if (x < 1 || x > 100'000'000) wgslvk::fuzz::bug("parse_flag_uint returned out of range");
        if (v.rfind("0x", 0) != 0 && v.rfind("0X", 0) != 0) {
          size_t z = v.find_first_not_of('0');
          if (v.substr(z == std::string::npos ? v.size() - 1 : z) != std::to_string(x))
            wgslvk::fuzz::bug("'" + v + "' parsed as " + std::to_string(x));
        }
        break;
      }
      case 1:
        (void)parse_flag_uint("--seed", v, 0, UINT64_MAX);
        break;
      case 2: {
        const double x = parse_flag_real("--lr", v, 0, 100);
        if (!(x >= 0 && x <= 100)) wgslvk::fuzz::bug("parse_flag_real returned out of range");
        break;
      }
      default: {
        const float x = parse_flag_float("--temperature", v, 0, 3e38f);
        if (!std::isfinite(x)) wgslvk::fuzz::bug("parse_flag_float returned a non-finite value");
        const uint32_t n = parse_flag_uint_as<uint32_t>("--tokens", v, 0, 1'000'000);
        if (n > 1'000'000) wgslvk::fuzz::bug("parse_flag_uint_as returned out of range");
      }
    }
  } catch (const FlagError& e) {
    const std::string m = e.what();
    wgslvk::fuzz::check_message(m);
    if (m.size() > 300) wgslvk::fuzz::bug("an unbounded flag message: " + m.substr(0, 300));
    for (char c : m)
      if (static_cast<unsigned char>(c) < 0x20) wgslvk::fuzz::bug("a control byte in: " + m);
  } catch (const std::exception& e) {
    wgslvk::fuzz::bug(std::string("a flag parser threw a non-FlagError: ") + e.what());
  }
  return 0;
}
