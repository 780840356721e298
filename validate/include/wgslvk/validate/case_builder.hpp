// The builder every family's case generators use to assemble a Case (wgsl_ports/<family>/cases.cpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "wgslvk/kernel_slot.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/validate/case.hpp"
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
  // The typed forms, from a kernel's generated header (wgslvk/kernels/<file>/<entry>.hpp):
  //   auto& d = b.dispatch(ln::Kernel{});
  //   CaseBuilder::bind(d, ln::binding::lf_x, "x");
  //   CaseBuilder::bind_uniform(d, ln::binding::lf, ln::LnParams{.rows = 4, ...});
  // A slot the dispatch's kernel lacks throws std::logic_error (check_slot_kernel).
  template <class K>
  requires requires { K::name; }
  DispatchSpec& dispatch(K, const std::string& label = {}) {
    return dispatch(std::string(K::name), label);
  }
  template <class K, class T>
  static void bind(DispatchSpec& d, const BindingSlot<K, T>& slot, const std::string& buffer,
                   uint64_t offset = 0, std::optional<uint64_t> size = std::nullopt) {
    check_slot_kernel(d, slot);
    bind(d, slot.binding, buffer, offset, size);
    d.bindings.back().group = slot.group;
  }
  // A uniform given as its generated struct, written as the inline segments of its WGSL fields
  // (uniform_segments) at the binding.
  template <class K, class T>
  static void bind_uniform(DispatchSpec& d, const BindingSlot<K, T>& slot,
                           const std::type_identity_t<T>& value) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_void_v<T>);
    check_slot_kernel(d, slot);
    const KernelBinding* kb = K::info().find_binding(slot.group, slot.binding);
    if (!kb)
      throw std::logic_error(std::string(K::name) + " has no binding " + std::string(slot.name));
    bind_values(d, slot.binding, uniform_segments(*kb, &value, sizeof(T)));
    d.bindings.back().group = slot.group;
  }
  // Inline segments for a uniform's bytes, field by field as the kernel record lists them
  // (KernelBinding::fields): consecutive fields of one scalar type (vectors by component) share
  // a segment, padding between fields is u32 zero words joined to a u32 run: [{"u32": [4, 96]},
  // {"f32": [1e-05]}, {"u32": [1]}]; a single segment is written alone, {"u32": [384, 0, 0, 0]}.
  static ojson uniform_segments(const KernelBinding& kb, const void* data, uint64_t size) {
    ojson segs = ojson::array();
    std::string run_type;
    ojson run = ojson::array();
    auto flush = [&] {
      if (!run.empty()) segs.push_back({{run_type, run}});
      run = ojson::array();
    };
    auto push = [&](const std::string& t, ojson v) {
      if (t != run_type) flush();
      run_type = t;
      run.push_back(std::move(v));
    };
    const auto* bytes = static_cast<const uint8_t*>(data);
    auto word = [&](uint64_t at) {
      uint32_t w = 0;
      if (at + 4 <= size) std::memcpy(&w, bytes + at, 4);
      return w;
    };
    uint64_t at = 0;
    for (const KernelField& f : kb.fields) {
      for (; at + 4 <= f.offset; at += 4) push("u32", word(at));
      std::string_view t = f.wgsl_type;
      uint32_t n = 1;
      if (t.size() == 9 && t.substr(0, 3) == "vec" && t[4] == '<') {  // vecN<T>
        n = uint32_t(t[3] - '0');
        t = t.substr(5, 3);
      }
      if (t == "f32") {
        for (uint32_t i = 0; i < n; ++i)
          push("f32", json_f32(std::bit_cast<float>(word(at + 4 * i))));
      } else if (t == "i32") {
        for (uint32_t i = 0; i < n; ++i) push("i32", int32_t(word(at + 4 * i)));
      } else {  // u32, and anything else as its words
        for (uint32_t i = 0; i < f.size / 4; ++i) push("u32", word(at + 4 * i));
      }
      at = f.offset + f.size;
    }
    for (; at + 4 <= size; at += 4) push("u32", word(at));
    flush();
    if (segs.size() == 1) return segs[0];  // one segment: the object alone, {"u32": [...]}
    return segs;
  }
  // The dispatch's kernel is the slot's, or one with the same binding there (a variant sharing
  // its ABI, e.g. norm's lean backward: same kind and WGSL type); else std::logic_error (a
  // generator's bug).
  template <class K, class T>
  static void check_slot_kernel(const DispatchSpec& d, const BindingSlot<K, T>& slot) {
    if (d.kernel == K::name) return;
    const KernelInfo* k = find_kernel(d.kernel);
    const KernelBinding* b = k ? k->find_binding(slot.group, slot.binding) : nullptr;
    const KernelBinding* mine = K::info().find_binding(slot.group, slot.binding);
    if (!b || !mine || b->type != mine->type || b->wgsl_type != mine->wgsl_type)
      throw std::logic_error("binding " + std::string(slot.name) + " of " + std::string(K::name) +
                             " bound in a dispatch of " + d.kernel + ", which has no such binding");
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
