// Golden files: the committed cases pass, regenerating them changes nothing, and the comparison
// really fails when an expected value moves past its bound.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "case_test_util.hpp"
#include "support/test_device.hpp"
#include "wgslvk/numeric.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/compare.hpp"
#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/npy.hpp"
#include "wgslvk/validate/runner.hpp"
#include "wgslvk/validate/validate.hpp"

namespace fs = std::filesystem;
using namespace wgslvk;
using namespace wgslvk::validate;

using wgslvk::testing::kTinyCase;
using wgslvk::testing::temp_dir;

namespace {

std::vector<fs::path> golden_cases() {
  try {
    return find_cases(golden_dir());
  } catch (...) { return {}; }
}

std::string case_test_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string s = fs::relative(info.param, golden_dir()).generic_string();
  for (auto& ch : s)
    if (!isalnum(uint8_t(ch))) ch = '_';
  return s;
}

}  // namespace

// ---- .npy ------------------------------------------------------------------------------------

TEST(Npy, RoundTripEveryType) {
  auto r = wgslvk::testing::rng();
  for (DType t : {DType::F32, DType::F16, DType::U32, DType::I32, DType::U16, DType::I16, DType::U8,
                  DType::I8}) {
    Array a;
    a.dtype = t;
    a.shape = {3, 5};
    a.bytes.resize(15 * dtype_size(t));
    for (auto& b : a.bytes) b = uint8_t(r());
    auto enc = npy_encode(a);
    EXPECT_EQ(enc[6], 1) << "version 1.0";
    size_t hlen = enc[8] | (enc[9] << 8);
    EXPECT_EQ((10 + hlen) % 64, 0u) << "header padded to 64 bytes";
    EXPECT_EQ(enc[10 + hlen - 1], '\n');
    Array b = npy_decode(enc, "mem");
    EXPECT_EQ(b.dtype, t);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.bytes, a.bytes) << dtype_name(t);
  }
  // 1-D and scalar shapes as numpy writes them.
  Array v = Array::of(DType::F32, std::vector<float>{1.5f, -2.0f});
  auto enc = npy_encode(v);
  std::string header(enc.begin() + 10, enc.end() - 8);
  EXPECT_NE(header.find("'shape': (2,)"), std::string::npos) << header;
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  Array s;
  s.dtype = DType::U32;
  s.bytes = {1, 0, 0, 0};
  EXPECT_EQ(npy_decode(npy_encode(s), "mem").count(), 1u);
  // Through a file.
  fs::path d = temp_dir("npy");
  npy_write(d / "v.npy", v);
  EXPECT_EQ(npy_read(d / "v.npy").as<float>(), (std::vector<float>{1.5f, -2.0f}));
  fs::remove_all(d);
}

TEST(Npy, RejectsWhatItCannotRead) {
  Array v = Array::of(DType::F32, std::vector<float>{1, 2, 3});
  auto enc = npy_encode(v);
  auto expect_error = [](std::vector<uint8_t> bytes, const std::string& needle) {
    try {
      npy_decode(bytes, "x/y.npy");
      ADD_FAILURE() << "accepted; expected an error containing " << needle;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("x/y.npy"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto big = enc;
  std::string h(big.begin() + 10, big.end() - 12);
  auto pos = h.find("<f4");
  big[10 + pos] = '>';
  expect_error(big, "'>f4'");
  auto truncated = enc;
  truncated.pop_back();
  expect_error(truncated, "data bytes");
  auto fortran = enc;
  std::string fh(fortran.begin(), fortran.end());
  auto fp = fh.find("False");
  std::memcpy(fortran.data() + fp, "True ", 5);
  expect_error(fortran, "fortran_order");
  expect_error({1, 2, 3}, "magic");
}

// ---- case.json errors ----------------------------------------------------------------------

namespace {

// Writes case.json with `edit` applied and returns the CaseError text ("" if it loaded).
std::string load_error(const std::function<void(ojson&)>& edit) {
  fs::path d = temp_dir("case");
  ojson j = ojson::parse(kTinyCase);
  edit(j);
  std::ofstream(d / "case.json") << j.dump(2);
  std::vector<float> exp(64, 0.5f);
  npy_write(d / "out.expected.npy", Array::of(DType::F32, exp));
  std::string msg;
  try {
    load_case(d);
  } catch (const CaseError& e) { msg = e.what(); }
  fs::remove_all(d);
  return msg;
}
}  // namespace

TEST(CaseJson, GoodCaseLoads) {
  EXPECT_EQ(load_error([](ojson&) {}), "");
}

TEST(CaseJson, MalformedCaseNamesFileAndField) {
  struct Bad {
    std::function<void(ojson&)> edit;
    std::string field, detail;
  };
  std::vector<Bad> bad = {
      {[](ojson& j) { j.erase("kernel"); }, "missing field 'kernel'", ""},
      {[](ojson& j) { j["dispatches"][0]["bindings"][1]["group"] = "a"; },
       "dispatches[0].bindings[1].group", "expected an unsigned integer, got \"a\""},
      {[](ojson& j) { j["buffers"]["out"]["dtype"] = "f64"; }, "buffers.out.dtype",
       "unknown dtype 'f64'"},
      {[](ojson& j) { j["dispatches"][0]["bindings"][2]["buffer"] = "nope"; },
       "dispatches[0].bindings[2].buffer", "no buffer named 'nope'"},
      {[](ojson& j) { j["dispatches"][0]["bindings"][0]["offset"] = 256; },
       "dispatches[0].bindings[0]", "lies outside buffer 'tokens' of 16 bytes"},
      {[](ojson& j) { j["checks"][0]["compare"] = "close"; }, "checks[0].compare",
       "unknown comparison 'close'"},
      {[](ojson& j) { j["checks"][0]["compare"] = "ulp"; }, "checks[0]", "missing field 'ulp'"},
      {[](ojson& j) { j["checks"][0]["tolerance"] = 3; }, "checks[0]", "unknown field 'tolerance'"},
      {[](ojson& j) { j["checks"][0]["reason"] = ""; }, "checks[0].reason", "states why"},
      {[](ojson& j) { j["checks"][0]["expected"] = "missing.npy"; }, "checks[0].expected",
       "cannot open"},
      {[](ojson& j) {
         j["checks"][0]["range"] = {0, 65};
       },
       "checks[0]", "range end 65"},
      {[](ojson& j) {
         j["dispatches"][0]["bindings"][3]["values"] = {{"u32", {1, "x"}}};
       },
       "dispatches[0].bindings[3].values.u32[1]", "expected a number"},
      {[](ojson& j) { j["dispatches"][0]["workgroups_1d"] = 3; }, "dispatches[0]",
       "exactly one of 'workgroups'"},
      {[](ojson& j) { j["format"] = "wgslvk-case/9"; }, "format", "unsupported format"},
      {[](ojson& j) { j["buffers"]["tokens"]["fill"] = -1; }, "buffers.tokens.fill",
       "out of range for u32"},
  };
  for (const auto& b : bad) {
    std::string msg = load_error(b.edit);
    EXPECT_NE(msg.find("case.json: "), std::string::npos) << msg;
    EXPECT_NE(msg.find(b.field), std::string::npos)
        << "expected field '" << b.field << "' in: " << msg;
    EXPECT_NE(msg.find(b.detail), std::string::npos) << "expected '" << b.detail << "' in: " << msg;
  }
  // Not JSON at all.
  fs::path d = temp_dir("badjson");
  std::ofstream(d / "case.json") << "{ \"format\": ";
  try {
    load_case(d);
    ADD_FAILURE() << "invalid JSON accepted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find((d / "case.json").string()), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}

// ---- comparison ------------------------------------------------------------------------------

namespace {
CheckSpec f32_check(const std::vector<float>& expected, CheckSpec::Mode mode, double bound) {
  CheckSpec c;
  c.buffer = "x";
  c.expected_file = "x.expected.npy";
  c.expected = Array::of(DType::F32, expected);
  c.mode = mode;
  c.bound = bound;
  c.reason = "test";
  return c;
}
std::vector<uint8_t> bytes_of(const std::vector<float>& v) {
  return Array::of(DType::F32, v).bytes;
}
float step(float x, int64_t n) {  // n ULPs along the float line
  for (; n > 0; --n) x = std::nextafter(x, INFINITY);
  for (; n < 0; ++n) x = std::nextafter(x, -INFINITY);
  return x;
}
}  // namespace

TEST(Compare, UlpBoundIsTightBothWays) {
  std::vector<float> e = {1.0f, -3.5f, 1e-3f, 0.0f, 123456.0f};
  for (int bound : {0, 1, 4}) {
    for (size_t i = 0; i < e.size(); ++i) {
      auto c = f32_check(e, CheckSpec::Mode::Ulp, bound);
      auto a = e;
      a[i] = step(e[i], bound);
      EXPECT_TRUE(compare(c, bytes_of(a)).pass()) << "at the bound " << bound << ", element " << i;
      a[i] = step(e[i], -(bound + 1));
      auto r = compare(c, bytes_of(a));
      ASSERT_FALSE(r.pass()) << "one ULP past bound " << bound << " at element " << i;
      EXPECT_EQ(r.mismatches, 1u);
      EXPECT_EQ(r.first_index, i);
      EXPECT_EQ(r.worst_ulp, bound + 1);
      std::string msg = r.describe();
      EXPECT_NE(msg.find("x[" + std::to_string(i) + "]"), std::string::npos) << msg;
      EXPECT_NE(msg.find("1 of 5 elements differ"), std::string::npos) << msg;
    }
  }
}

TEST(Compare, ExactReportsIndexAndBothValues) {
  std::vector<float> e = {1.0f, 2.0f, 3.0f, -0.0f};
  auto c = f32_check(e, CheckSpec::Mode::Exact, 0);
  EXPECT_TRUE(compare(c, bytes_of(e)).pass());
  auto a = e;
  a[3] = 0.0f;  // +0 vs -0: equal as floats, not as bits
  auto r = compare(c, bytes_of(a));
  ASSERT_FALSE(r.pass());
  EXPECT_EQ(r.first_index, 3u);
  std::string msg = r.describe();
  EXPECT_NE(msg.find("x[3]: got 0 (0x00000000), expected -0 (0x80000000)"), std::string::npos)
      << msg;
  a = e;
  a[1] = 2.5f;
  a[2] = 7.0f;
  r = compare(c, bytes_of(a));
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_NE(r.describe().find("got 2.5 (0x40200000), expected 2 (0x40000000)"), std::string::npos)
      << r.describe();
}

TEST(Compare, MagnitudeAndNonFinite) {
  // Measured against a magnitude of 1024: an error of 2^-13 is 1 ULP of 1024 (2^-13).
  auto c = f32_check({1e-3f}, CheckSpec::Mode::Ulp, 1);
  c.magnitude = CheckSpec::Magnitude::Scalar;
  c.magnitude_scalar = 1024;
  EXPECT_TRUE(compare(c, bytes_of({1e-3f + 0x1p-13f})).pass());
  EXPECT_FALSE(compare(c, bytes_of({1e-3f + 0x1p-12f})).pass());
  // Expected NaN: any NaN; expected inf: only inf; actual NaN for a finite value: fails.
  auto n = f32_check({NAN, INFINITY, 1.0f}, CheckSpec::Mode::Ulp, 1000);
  EXPECT_TRUE(compare(n, bytes_of({std::bit_cast<float>(0x7fc00001u), INFINITY, 1.0f})).pass());
  EXPECT_FALSE(compare(n, bytes_of({NAN, 3.4e38f, 1.0f})).pass());
  EXPECT_FALSE(compare(n, bytes_of({NAN, INFINITY, NAN})).pass());
  // f16 outputs count f16 ULPs.
  CheckSpec h;
  h.buffer = "h";
  h.expected = Array::of(DType::F16, std::vector<uint16_t>{0x3c00});
  h.mode = CheckSpec::Mode::Ulp;
  h.bound = 1;
  EXPECT_TRUE(compare(h, Array::of(DType::F16, std::vector<uint16_t>{0x3c01}).bytes).pass());
  EXPECT_FALSE(compare(h, Array::of(DType::F16, std::vector<uint16_t>{0x3c02}).bytes).pass());
}

// ---- regen ---------------------------------------------------------------------------------

TEST(Regen, CommittedGoldenIsWhatTheGeneratorsProduce) {
  ASSERT_FALSE(generators().empty());
  auto changes = regen(golden_dir(), /*write=*/false);
  std::string list;
  for (const auto& c : changes)
    list += "  " + std::string(change_name(c.kind)) + " " + c.path + "\n";
  EXPECT_TRUE(changes.empty()) << "regenerating golden/ would change " << changes.size()
                               << " file(s); run `wgslvk golden regen` and review the diff:\n"
                               << list;
}

TEST(Regen, IsDeterministicAndDetectsChanges) {
  fs::path d = temp_dir("regen");
  auto first = regen(d, true);
  EXPECT_FALSE(first.empty());
  for (const auto& c : first) EXPECT_EQ(c.kind, FileChange::Kind::Added) << c.path;
  EXPECT_TRUE(regen(d, false).empty()) << "a second regen differs from the first";
  // Change one expected file, add a stray one: both reported, then repaired.
  const auto& g = generators().front();
  fs::path cdir = d / g.kernel / g.name;
  Case c = load_case(cdir);
  fs::path f = cdir / c.checks[0].expected_file;
  auto bytes = read_file_bytes(f);
  bytes.back() ^= 1;
  write_file_bytes(f, bytes);
  write_file_bytes(cdir / "stray.npy", bytes);
  auto changes = regen(d, false);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].kind, FileChange::Kind::Changed);
  EXPECT_EQ(changes[1].kind, FileChange::Kind::Removed);
  regen(d, true);
  EXPECT_TRUE(regen(d, false).empty());
  fs::remove_all(d);
}

// ---- every committed case on the test device ------------------------------------------------

class GoldenCase : public ::testing::TestWithParam<fs::path> {};

TEST_P(GoldenCase, Passes) {
  Case c = load_case(GetParam());
  Runner runner(wgslvk::testing::device());
  CaseResult r = runner.run(c);
  if (r.status == CaseResult::Status::Skip) GTEST_SKIP() << r.message;
  EXPECT_EQ(r.status, CaseResult::Status::Pass) << r.id << ": " << r.message;
  for (const auto& k : r.checks)
    EXPECT_TRUE(k.pass()) << k.describe() << "\n  reason: " << k.reason;
}

INSTANTIATE_TEST_SUITE_P(Committed, GoldenCase, ::testing::ValuesIn(golden_cases()),
                         case_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenCase);

TEST(GoldenCases, EveryPortedKernelHasCases) {
  auto cases = golden_cases();
  for (const KernelInfo* k : all_kernels()) {
    if (k->file == "wgslvk_util") continue;
    // Subgroup-matrix kernels run on no device CI has (no Debian lavapipe exposes
    // VK_KHR_cooperative_matrix) and have no golden case yet: tests/subgroup_matrix checks them
    // against the reference on a GPU (wgsl_ports/subgroup_matrix/README.md).
    if (kernel_uses_subgroup_matrix(*k)) continue;
    std::string q = k->qualified_name();
    bool any = false;
    for (const auto& p : cases)
      any |= fs::relative(p, golden_dir()).generic_string().rfind(q + "/", 0) == 0;
    EXPECT_TRUE(any) << q << " has no golden case";
  }
}

// The whole path fails too: the runner reports a moved expected value with the case, index and
// both values.
TEST(GoldenCases, RunnerReportsAMovedExpectedValue) {
  bool tried_ulp = false, tried_exact = false;
  for (const auto& dir : golden_cases()) {
    Case c = load_case(dir);
    Runner runner(wgslvk::testing::device());
    CaseResult base = runner.run(c);
    if (base.status != CaseResult::Status::Pass) continue;
    for (size_t k = 0; k < c.checks.size(); ++k) {
      CheckSpec& chk = c.checks[k];
      if (chk.expected.dtype != DType::F32) continue;
      bool ulp = chk.mode == CheckSpec::Mode::Ulp;
      if ((ulp && tried_ulp) || (!ulp && tried_exact)) continue;
      // Pick an element with a finite expected value and a scalar "self" bound (or exact).
      if (ulp && (chk.magnitude != CheckSpec::Magnitude::Self || !chk.bound_file.empty())) continue;
      Case moved = c;
      CheckSpec& m = moved.checks[k];
      auto actual = base.outputs.at(chk.buffer).as<float>();
      uint64_t i = m.begin;
      while (i < m.range_end() && !std::isfinite(actual[i])) ++i;
      if (i == m.range_end()) continue;
      auto exp = m.expected.as<float>();
      exp[i] = step(actual[i], int64_t(m.bound) + 1);  // one ULP past the bound from what ran
      m.expected = Array::of(DType::F32, exp);
      CaseResult r = runner.run(moved);
      EXPECT_EQ(r.status, CaseResult::Status::Fail) << c.id();
      EXPECT_NE(r.message.find(chk.buffer + "[" + std::to_string(i) + "]"), std::string::npos)
          << r.message;
      EXPECT_NE(r.message.find("1 of"), std::string::npos) << r.message;
      (ulp ? tried_ulp : tried_exact) = true;
    }
    if (tried_ulp && tried_exact) break;
  }
  EXPECT_TRUE(tried_exact) << "no passing golden case with an exact f32 check to perturb";
  EXPECT_TRUE(tried_ulp) << "no passing golden case with a scalar ulp check to perturb";
}

TEST(GoldenCases, BadBindingIsAClearError) {
  auto cases = golden_cases();
  ASSERT_FALSE(cases.empty());
  Case c = load_case(cases.front());
  Runner runner(wgslvk::testing::device());
  Case missing = c;
  auto removed = missing.dispatches[0].bindings.back();
  missing.dispatches[0].bindings.pop_back();
  CaseResult r = runner.run(missing);
  EXPECT_EQ(r.status, CaseResult::Status::Error);
  EXPECT_NE(r.message.find(c.id()), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(c.dispatches[0].kernel), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("binding (" + std::to_string(removed.group) + ", " +
                           std::to_string(removed.binding) + ")"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("is not bound"), std::string::npos) << r.message;
  // A misaligned sub-range: the runtime's WebGPU rule, reported with the case and kernel.
  Case misaligned = c;
  for (auto& b : misaligned.dispatches[0].bindings)
    if (!b.is_inline) {
      b.offset = 4;
      b.size = 4;
      break;
    }
  r = runner.run(misaligned);
  EXPECT_EQ(r.status, CaseResult::Status::Error);
  EXPECT_NE(r.message.find(c.id()), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("R2"), std::string::npos) << r.message;
}

// A kernel needing a feature the device lacks is reported as SKIP with the reason, never PASS.
TEST(GoldenCases, MissingFeatureIsASkipWithTheReason) {
  DeviceDescriptor desc;
  desc.label = "no optional features";
  Device bare = wgslvk::testing::make_device(desc);
  Runner runner(bare);
  int skipped = 0;
  for (const auto& dir : golden_cases()) {
    Case c = load_case(dir);
    const KernelInfo* k = find_kernel(c.dispatches[0].kernel);
    ASSERT_NE(k, nullptr) << c.id();
    if (!k->needs_shader_f16 && !k->needs_float_atomics) continue;
    CaseResult r = runner.run(c);
    EXPECT_EQ(r.status, CaseResult::Status::Skip) << c.id() << ": " << r.message;
    EXPECT_NE(r.message.find(k->needs_shader_f16 ? "shader-f16" : "float32-atomic-add"),
              std::string::npos)
        << r.message;
    EXPECT_TRUE(r.checks.empty());
    ++skipped;
  }
  EXPECT_GT(skipped, 0) << "no golden case of a kernel with an optional feature";
}

// Each Validator makes (and must free) its own instance, adapter and device. Nothing keeps an
// instance alive but the handles that use it: with the Instance handle gone its adapter lives on
// in the device, and with the device gone too everything is freed (vkDestroyInstance). An
// instance <-> adapter shared_ptr cycle once kept every instance until exit, which LeakSanitizer
// reported after this file's Validate test as leaks inside the validation layer.
TEST(Validate, InstanceLivesExactlyAsLongAsItsHandles) {
  std::weak_ptr<const void> instance_state;
  std::weak_ptr<const void> adapter_state;
  Device d;
  {
    Instance inst = Instance::create();
    Adapter a = inst.select_adapter();
    instance_state = wgslvk::detail::weak_state(inst);
    adapter_state = wgslvk::detail::weak_state(a);
    d = a.request_device({"outlives its instance handle", {}, {}});
  }
  EXPECT_TRUE(instance_state.expired());
  ASSERT_FALSE(adapter_state.expired());
  {
    Buffer b = wgslvk::testing::upload(d, std::vector<uint32_t>{1, 2, 3, 4}, "b");
    EXPECT_EQ(read<uint32_t>(d, b), (std::vector<uint32_t>{1, 2, 3, 4}));
  }
  d = Device{};
  EXPECT_TRUE(adapter_state.expired());
}

// `wgslvk validate` as a library: a moved expected value in a case brought with --cases makes the
// kernel's row FAIL, the verdict FAIL, and the message names the case, the element and the values.
TEST(Validate, ReportsAFailingCaseFromCasesDir) {
  auto cases = golden_cases();
  fs::path src;
  for (const auto& c : cases)
    if (c.generic_string().find("embedding/embed_lookup/oov_tokens") != std::string::npos) src = c;
  ASSERT_FALSE(src.empty());
  fs::path d = temp_dir("validate");
  fs::path dst = d / "embedding" / "embed_lookup" / "oov_tokens";
  fs::create_directories(dst);
  for (auto& e : fs::directory_iterator(src)) fs::copy_file(e.path(), dst / e.path().filename());
  Array e = npy_read(dst / "out.expected.npy");
  auto v = e.as<float>();
  v[41] = std::nextafter(v[41], INFINITY);
  npy_write(dst / "out.expected.npy", Array::of(DType::F32, v));

  ValidateOptions opt;
  opt.cases = d;
  opt.randomized = false;
  opt.dump = d / "dump";
  Validator val(opt);
  ValidateReport rep = val.run();
  EXPECT_FALSE(rep.ok());
  ASSERT_EQ(rep.rows.size(), 1u);
  EXPECT_EQ(rep.rows[0].kernel, "embedding/embed_lookup");
  EXPECT_EQ(rep.rows[0].status, "FAIL");
  ASSERT_EQ(rep.rows[0].messages.size(), 1u);
  const std::string& m = rep.rows[0].messages[0];
  EXPECT_NE(m.find("embedding/embed_lookup/oov_tokens"), std::string::npos) << m;
  EXPECT_NE(m.find("out[41]"), std::string::npos) << m;
  EXPECT_NE(m.find("1 of "), std::string::npos) << m;
  EXPECT_NE(rep.verdict().find("FAIL"), std::string::npos) << rep.verdict();
  auto j = report_json(rep);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["cases"][0]["checks"][0]["first_index"], 41);
  // --dump: the actual output beside the expected one, the moved element differing.
  fs::path dumped = d / "dump" / "embedding" / "embed_lookup" / "oov_tokens";
  Array actual = npy_read(dumped / "out.actual.npy");
  Array expected = npy_read(dumped / "out.expected.npy");
  ASSERT_EQ(actual.count(), expected.count());
  EXPECT_NE(actual.at<uint32_t>(41), expected.at<uint32_t>(41));
  EXPECT_EQ(actual.at<uint32_t>(40), expected.at<uint32_t>(40));

  // The unmodified golden case of the same kernel, with the randomized check: PASS.
  ValidateOptions good;
  good.kernels = {"embed_lookup"};
  good.seed = 12345;
  Validator val2(good);
  ValidateReport ok = val2.run();
  EXPECT_TRUE(ok.ok()) << ok.verdict();
  ASSERT_EQ(ok.rows.size(), 1u);
  EXPECT_GE(ok.rows[0].cases, 5);  // 4 golden + 1 randomized
  fs::remove_all(d);
}
