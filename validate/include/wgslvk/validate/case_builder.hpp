// The builder every family's case generators use to assemble a Case (wgsl_ports/<family>/cases.cpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "wgslvk/validate/case.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/validate/generators.hpp"

namespace wgslvk::validate {

struct CaseBuilder {
  Case c;

  template <class T>
  void input(const std::string& name, DType t, const std::vector<T>& v) {
    BufferSpec b;
    b.name = name;
    b.kind = BufferSpec::Kind::File;
    b.file = name + ".npy";
    b.data = Array::of(t, v);
    c.buffers.push_back(std::move(b));
  }
  // An output-only buffer, poisoned before the run.
  void output(const std::string& name, DType t, uint64_t count) {
    BufferSpec b;
    b.name = name;
    b.kind = BufferSpec::Kind::Fill;
    b.dtype = t;
    b.count = count;
    c.buffers.push_back(std::move(b));
  }
  void generated(const std::string& name, DType t, uint64_t count, Generate g) {
    BufferSpec b;
    b.name = name;
    b.kind = BufferSpec::Kind::Generate;
    b.dtype = t;
    b.count = count;
    b.gen = std::move(g);
    c.buffers.push_back(std::move(b));
  }
  // A generated buffer (BufferSpec::Kind::Generate: procedural contents, compact in a case folder)
  // and, for a reference that only computes what is checked, its first `prefix` elements on the
  // host as T (the generator is counter-based, so they equal the device's).
  template <class T>
  std::vector<T> generated_prefix(const std::string& name, DType t, uint64_t count, Generate g,
                                  uint64_t prefix) {
    generated(name, t, count, std::move(g));
    BufferSpec head = c.buffers.back();
    head.count = std::min(prefix, count);
    std::vector<uint8_t> bytes = head.initial_bytes();
    std::vector<T> v(head.count * dtype_size(t) / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  // "choice" contents: each element one of `values` (numbers, "nan", "inf", "-inf", "0x..." bits).
  static Generate choice(uint64_t seed, ojson values) {
    Generate g;
    g.kind = "choice";
    g.seed = seed;
    g.values = std::move(values);
    return g;
  }
  DispatchSpec& dispatch(const std::string& kernel, const std::string& label = {}) {
    DispatchSpec d;
    d.kernel = kernel;
    d.label = label;
    c.dispatches.push_back(std::move(d));
    return c.dispatches.back();
  }
  static void bind(DispatchSpec& d, uint32_t binding, const std::string& buffer,
                   uint64_t offset = 0, std::optional<uint64_t> size = std::nullopt) {
    BindingSpec b;
    b.binding = binding;
    b.buffer = buffer;
    b.offset = offset;
    b.size = size;
    d.bindings.push_back(std::move(b));
  }
  static void bind_values(DispatchSpec& d, uint32_t binding, ojson segments) {
    BindingSpec b;
    b.binding = binding;
    b.is_inline = true;
    b.inline_values = std::move(segments);
    b.inline_bytes = encode_inline(b.inline_values, "generator");
    d.bindings.push_back(std::move(b));
  }
  static ojson u32s(std::initializer_list<uint32_t> v) {
    ojson a = ojson::array();
    for (auto x : v) a.push_back(x);
    return {{"u32", a}};
  }
  static ojson f32s(std::initializer_list<float> v) {
    ojson a = ojson::array();
    for (auto x : v) a.push_back(json_f32(x));
    return {{"f32", a}};
  }
  CheckSpec& check_exact(const std::string& buffer, const Array& expected,
                         const std::string& reason, uint64_t begin = 0, uint64_t end = 0) {
    CheckSpec k;
    k.buffer = buffer;
    k.expected_file = buffer + ".expected.npy";
    k.expected = expected;
    k.mode = CheckSpec::Mode::Exact;
    k.reason = reason;
    k.begin = begin;
    k.end = end;
    c.checks.push_back(std::move(k));
    return c.checks.back();
  }
  CheckSpec& check_ulp(const std::string& buffer, const Array& expected, double bound,
                       const std::string& reason, uint64_t begin = 0, uint64_t end = 0) {
    CheckSpec& k = check_exact(buffer, expected, reason, begin, end);
    k.mode = CheckSpec::Mode::Ulp;
    k.bound = bound;
    return k;
  }
  static void magnitude(CheckSpec& k, const std::vector<float>& m) {
    k.magnitude = CheckSpec::Magnitude::File;
    k.magnitude_file = k.buffer + ".magnitude.npy";
    k.magnitude_data = Array::of(DType::F32, m);
  }
  // A reference's expected output with per-element bounds in ULPs of per-element magnitudes
  // (wgslvk::UlpExpected), plus `tail` poisoned elements after it that must stay unchanged. One
  // bound for every element is written as a scalar instead of a bound file.
  void check_expected(const std::string& buf, const UlpExpected& e, uint64_t tail,
                      const std::string& reason, const std::string& tail_reason) {
    std::vector<float> v = e.value, bound(e.bound.begin(), e.bound.end()),
                       mag(e.magnitude.begin(), e.magnitude.end());
    v.resize(e.value.size() + tail, std::bit_cast<float>(kPoison32));
    bound.resize(v.size(), 0.0f);
    mag.resize(v.size(), 0.0f);
    auto arr = Array::of(DType::F32, v);
    auto& k = check_ulp(buf, arr, 0, reason, 0, e.value.size());
    if (!e.bound.empty() &&
        std::all_of(e.bound.begin(), e.bound.end(), [&](double x) { return x == e.bound[0]; }))
      k.bound = e.bound[0];
    else
      per_element_bound(k, bound);
    magnitude(k, mag);
    if (tail) check_exact(buf, arr, tail_reason, e.value.size(), v.size());
  }
  static void per_element_bound(CheckSpec& k, const std::vector<float>& b) {
    k.bound = 0;
    k.bound_file = k.buffer + ".bound.npy";
    k.bound_data = Array::of(DType::F32, b);
  }
};

inline float f32_bits(uint32_t b) { return std::bit_cast<float>(b); }

}  // namespace wgslvk::validate
