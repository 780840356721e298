// Case folders are untrusted input (issue 16, golden/README.md "Untrusted input"): every class of
// bad input the issue lists is refused with a message naming the file, the field and the value,
// never a crash, a hang, a write or read outside its folder, or a vacuous pass. One regression
// test per class; the fuzz targets (fuzz/, tests/fuzz) cover the same loaders at random.
#include <gtest/gtest.h>

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "case_test_util.hpp"
#include "support/test_device.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/npy.hpp"
#include "wgslvk/validate/runner.hpp"
#include "wgslvk/validate/untrusted.hpp"
#include "wgslvk/validate/validate.hpp"

namespace fs = std::filesystem;
using namespace wgslvk;
using namespace wgslvk::validate;

using wgslvk::testing::kTinyCase;
using wgslvk::testing::temp_dir;

namespace {

void write_text(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary);
  f << s;
}

// A case folder holding `json` (text) and a valid out.expected.npy.
fs::path make_case(const fs::path& d, const std::string& json) {
  fs::create_directories(d);
  write_text(d / "case.json", json);
  npy_write(d / "out.expected.npy", Array::of(DType::F32, std::vector<float>(64, 0.5f)));
  return d;
}

std::string edited(const std::function<void(ojson&)>& edit) {
  ojson j = ojson::parse(kTinyCase);
  edit(j);
  return j.dump(2);
}

// The CaseError text of loading `json` in a fresh folder ("" when it loads).
std::string load_error_text(const std::string& json,
                            const std::function<void(const fs::path&)>& prepare = {}) {
  fs::path d = temp_dir("load") / "case";
  make_case(d, json);
  if (prepare) prepare(d);
  std::string msg;
  try {
    load_case(d);
  } catch (const CaseError& e) { msg = e.what(); }
  fs::remove_all(d.parent_path());
  return msg;
}

void expect_clear(const std::string& msg, std::initializer_list<const char*> parts) {
  EXPECT_FALSE(msg.empty()) << "accepted";
  for (const char* p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << "expected '" << p << "' in: " << msg;
  for (const char* leak :
       {"stoull", "_M_default_append", "bad_alloc", "json.exception", "basic_string"})
    EXPECT_EQ(msg.find(leak), std::string::npos)
        << "implementation word '" << leak << "' in: " << msg;
  EXPECT_LT(msg.size(), 2000u) << "unbounded message";
}

}  // namespace

TEST(UntrustedCase, GoodCaseLoads) { EXPECT_EQ(load_error_text(kTinyCase), ""); }

// ---- writes and reads outside the folder ----------------------------------------------------------

TEST(UntrustedCase, NamesThatBecomePathPartsAreSingleComponents) {
  struct Bad {
    std::function<void(ojson&)> edit;
    const char* field;
  };
  std::vector<Bad> bad = {
      {[](ojson& j) { j["kernel"] = "../../../tmp/x"; }, "kernel"},
      {[](ojson& j) { j["kernel"] = "/etc/passwd"; }, "kernel"},
      {[](ojson& j) { j["kernel"] = "embedding"; }, "family/entry"},
      {[](ojson& j) { j["case"] = "../escape"; }, "case"},
      {[](ojson& j) { j["case"] = "/abs"; }, "case"},
      {[](ojson& j) { j["case"] = ".."; }, "case"},
      {[](ojson& j) { j["dispatches"][0]["kernel"] = "embedding/../x"; }, "dispatches[0].kernel"},
      {[](ojson& j) { j["checks"][0]["expected"] = "../out.expected.npy"; }, "checks[0].expected"},
      {[](ojson& j) { j["checks"][0]["expected"] = "/etc/passwd"; }, "checks[0].expected"},
      {[](ojson& j) { j["checks"][0]["expected"] = std::string("out.expected.npy\0.x", 19); },
       "NUL"},
      {[](ojson& j) {
         j["buffers"]["../../x"] = {{"dtype", "f32"}, {"count", 4}};
       },
       "buffers.../../x"},
  };
  for (const auto& b : bad) expect_clear(load_error_text(edited(b.edit)), {"case.json: ", b.field});
}

TEST(UntrustedCase, SymlinksFifosFoldersAndHugeFilesAreNotRead) {
  std::string msg = load_error_text(kTinyCase, [](const fs::path& d) {
    fs::rename(d / "out.expected.npy", d / "real.npy");
    fs::create_symlink(d / "real.npy", d / "out.expected.npy");
  });
  expect_clear(msg, {"checks[0].expected", "symbolic link"});
  msg = load_error_text(kTinyCase, [](const fs::path& d) {
    fs::remove(d / "out.expected.npy");
    fs::create_symlink("/dev/zero", d / "out.expected.npy");
  });
  expect_clear(msg, {"symbolic link"});
  // A FIFO would block a reader forever: refused without opening it for a blocking read.
  msg = load_error_text(kTinyCase, [](const fs::path& d) {
    fs::remove(d / "out.expected.npy");
    ASSERT_EQ(::mkfifo((d / "out.expected.npy").c_str(), 0600), 0);
  });
  expect_clear(msg, {"FIFO"});
  msg = load_error_text(kTinyCase, [](const fs::path& d) {
    fs::remove(d / "out.expected.npy");
    fs::create_directory(d / "out.expected.npy");
  });
  expect_clear(msg, {"folder"});
  // A sparse 3 GB file: refused from its size, before reading it (the message names the size;
  // no wall-clock assert, which flaked under ASan on a loaded machine).
  msg = load_error_text(kTinyCase, [](const fs::path& d) {
    fs::resize_file(d / "out.expected.npy", uint64_t(3) << 30);
  });
  expect_clear(msg, {"3221225472 bytes", "more than"});
  // case.json itself through a symlink.
  msg = load_error_text(kTinyCase, [](const fs::path& d) {
    fs::rename(d / "case.json", d / "real.json");
    fs::create_symlink(d / "real.json", d / "case.json");
  });
  expect_clear(msg, {"case.json", "symbolic link"});
}

// ---- sizes and vacuous passes -----------------------------------------------------------------------

TEST(UntrustedCase, SizesUseCheckedArithmetic) {
  expect_clear(
      load_error_text(edited([](ojson& j) { j["buffers"]["out"]["count"] = uint64_t(1) << 62; })),
      {"buffers.out.count", "4611686018427387904 f32 elements", "more than"});
  expect_clear(load_error_text(edited([](ojson& j) {
                 j["buffers"]["g"] = {{"generate",
                                       {{"dtype", "f32"},
                                        {"count", UINT64_MAX},
                                        {"kind", "uniform"},
                                        {"seed", 1},
                                        {"lo", 0},
                                        {"hi", 1}}}};
               })),
               {"buffers.g.generate.count", "more than"});
  // offset + size wraps 64 bits: no wrapped range like [4, 2) in the message.
  std::string msg = load_error_text(edited([](ojson& j) {
    j["dispatches"][0]["bindings"][1]["offset"] = 4;
    j["dispatches"][0]["bindings"][1]["size"] = UINT64_MAX - 1;
  }));
  expect_clear(msg, {"dispatches[0].bindings[1]", "lies outside buffer 'table' of 256 bytes",
                     "18446744073709551614"});
  EXPECT_EQ(msg.find("[4, 2)"), std::string::npos) << msg;
  expect_clear(load_error_text(edited([](ojson& j) {
                 j["dispatches"][0].erase("workgroups");
                 j["dispatches"][0]["workgroups_1d"] = 0;
               })),
               {"workgroups_1d", "0 workgroups"});
  expect_clear(load_error_text(edited([](ojson& j) { j["buffers"]["table"]["fill"] = 1e300; })),
               {"buffers.table.fill", "out of range"});
}

TEST(UntrustedCase, EmptyExpectedArrayIsAnError) {
  std::string msg = load_error_text(kTinyCase, [](const fs::path& d) {
    Array a;
    a.dtype = DType::F32;
    a.shape = {0};
    npy_write(d / "out.expected.npy", a);
  });
  expect_clear(msg, {"checks[0].expected", "0 elements"});
}

TEST(UntrustedCase, NpyShapeProductOverflowIsRefused) {
  auto decode_error = [](const std::string& shape) {
    Array a = Array::of(DType::F32, std::vector<float>{1.0f});
    auto bytes = npy_encode(a);
    std::string h(bytes.begin() + 10, bytes.end() - 4);
    auto p = h.find("(1,)");
    std::string nh = h.substr(0, p) + shape + h.substr(p + 4);
    while ((10 + nh.size()) % 64) nh.insert(nh.size() - 1, " ");
    std::vector<uint8_t> out(bytes.begin(), bytes.begin() + 8);
    out.push_back(uint8_t(nh.size() & 0xff));
    out.push_back(uint8_t(nh.size() >> 8));
    out.insert(out.end(), nh.begin(), nh.end());
    out.insert(out.end(), bytes.end() - 4, bytes.end());
    try {
      npy_decode(out, "x.npy");
    } catch (const std::runtime_error& e) { return std::string(e.what()); }
    return std::string();
  };
  // 2^32 * 2^32 = 2^64 wraps to 0; 2^62 * 4 bytes wraps the byte size.
  expect_clear(decode_error("(4294967296, 4294967296)"), {"x.npy", "does not fit in 64 bits"});
  expect_clear(decode_error("(4611686018427387904,)"), {"x.npy", "byte size does not fit"});
  expect_clear(decode_error("(99999999999999999999999,)"), {"x.npy", "does not fit in 64 bits"});
  EXPECT_NE(decode_error("(2, 1)"), "");  // 2 elements, 1 in the file: the count is checked
  EXPECT_EQ(decode_error("(1, 1)"), "");
}

// ---- JSON: duplicates, depth, bounded values, bytes ------------------------------------------------

TEST(UntrustedCase, DuplicateKeysAreRefusedAtEveryLevel) {
  std::string s = kTinyCase;
  // A second "checks" would silently replace the first (a vacuous check).
  std::string dup =
      s.substr(0, s.rfind('}')) +
      R"(, "checks": [{"buffer": "tokens", "expected": "out.expected.npy", "compare": "exact", "reason": "x"}]})";
  expect_clear(load_error_text(dup), {"case.json", "invalid JSON", "duplicate key 'checks'"});
  std::string inner = s;
  inner.replace(inner.find(R"("count": 4, "fill": 1})"), 22,
                R"("count": 4, "fill": 1, "count": 8})");
  expect_clear(load_error_text(inner), {"duplicate key 'count'", "buffers.tokens"});
}

TEST(UntrustedCase, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  std::string s = kTinyCase;
  std::string j = s.substr(0, s.rfind('}')) + ", \"provenance\": " + deep + "}";
  expect_clear(load_error_text(j), {"invalid JSON", "nesting deeper than 64"});
  // A deep value where a string is expected: the message quotes a bounded excerpt.
  ojson v = ojson::array();
  for (int i = 0; i < 50; ++i) v = ojson::array({v, std::string(1000, 'x')});
  expect_clear(load_error_text(edited([&](ojson& c) { c["kernel"] = v; })),
               {"kernel", "expected a string", "bytes)"});
}

TEST(UntrustedCase, NonUtf8BytesNeverLoseTheReport) {
  std::string s = kTinyCase;
  s.replace(s.find("\"tiny\""), 6, "\"ti\xff\xfeny\"");
  std::string msg = load_error_text(s);
  expect_clear(msg, {"invalid JSON"});
  // Whatever bytes the message holds, the report's text is valid UTF-8 for JSON.
  std::string safe = utf8_safe(msg + "\xff\xc0\x80");
  EXPECT_NO_THROW((void)ojson(safe).dump());
  EXPECT_EQ(utf8_safe("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(utf8_safe("a\xff"), "a\xef\xbf\xbd");
  EXPECT_EQ(utf8_safe("\x1b[31m"), "\\x1b[31m");
}

// ---- the grid helper ----------------------------------------------------------------------------------

TEST(UntrustedCase, GridHelperNeverDividesByZero) {
  Limits l{};
  l.max_compute_workgroups_per_dimension = 65535;
  for (uint64_t w : {uint64_t(1), uint64_t(65535), uint64_t(65536), uint64_t(1000003),
                     uint64_t(65535) * 65535}) {
    Grid g = grid_for_workgroups(w, l);
    EXPECT_GE(g.workgroups(), w);
    EXPECT_LE(g.x, 65535u);
    EXPECT_LE(g.y, 65535u);
  }
  for (uint64_t w : {uint64_t(65535) * 65535 + 1, UINT64_MAX, UINT64_MAX - 65533})
    EXPECT_THROW(grid_for_workgroups(w, l), ValidationError) << w;
  l.max_compute_workgroups_per_dimension = 0;
  EXPECT_THROW(grid_for_workgroups(5, l), ValidationError);
  l.max_compute_workgroups_per_dimension = UINT32_MAX;
  Grid g = grid_for_workgroups(UINT64_MAX / 3, l);
  EXPECT_GE(g.workgroups(), UINT64_MAX / 3);
}

// ---- the runner and the report -------------------------------------------------------------------------

namespace {
fs::path golden_case(const std::string& id) {
  for (const auto& c : find_cases(golden_dir()))
    if (c.generic_string().find(id) != std::string::npos) return c;
  return {};
}
void copy_case(const fs::path& src, const fs::path& dst) {
  fs::create_directories(dst);
  for (auto& e : fs::directory_iterator(src)) fs::copy_file(e.path(), dst / e.path().filename());
}
}  // namespace

// One bad case never loses the others: each ends with a status and a message, the report is
// complete and serializes, whatever bytes the folder names hold.
TEST(UntrustedCase, EveryCaseEndsWithAStatus) {
  fs::path src = golden_case("embedding/embed_lookup/oov_tokens");
  ASSERT_FALSE(src.empty());
  fs::path d = temp_dir("report");
  copy_case(src, d / "embedding" / "embed_lookup" / "oov_tokens");
  make_case(d / "bad" / "json" / "broken", "{ \"format\": ");
  make_case(d / "unknown" / "kernel" / "x",
            edited([](ojson& j) { j["kernel"] = "nosuch/kernel"; }));
  make_case(d / "typo" / "kernel" / "x",
            edited([](ojson& j) { j["kernel"] = "embedding/embed_lookpu"; }));
  make_case(d / "embedding" / "embed_lookup" / "huge_1d", edited([](ojson& j) {
              j["dispatches"][0].erase("workgroups");
              j["dispatches"][0]["workgroups_1d"] = UINT64_MAX;
            }));
  make_case(d / "embedding" / "embed_lookup" / "over_budget", edited([](ojson& j) {
              j["case"] = "over_budget";
              j["dispatches"][0]["workgroups"] = {65535, 65535, 65535};
            }));
  make_case(d / "bad" / "name" / "n\xff\xfe", "{ \"x\": \xff }");

  ValidateOptions opt;
  opt.cases = d;
  opt.randomized = false;
  Validator v(opt);
  ValidateReport rep = v.run();
  ASSERT_EQ(rep.results.size(), 7u);
  std::map<std::string, const CaseResult*> by;
  for (const auto& r : rep.results) by[r.source.substr(d.string().size())] = &r;
  auto status = [&](const std::string& rel) {
    auto it = by.find(rel);
    return it == by.end()
               ? std::string("missing")
               : std::string(status_name(it->second->status)) + ": " + it->second->message;
  };
  EXPECT_EQ(status("/embedding/embed_lookup/oov_tokens").substr(0, 4), "PASS");
  EXPECT_NE(status("/bad/json/broken").find("ERROR: "), std::string::npos);
  EXPECT_NE(status("/unknown/kernel/x").find("unknown kernel 'nosuch/kernel'"), std::string::npos)
      << status("/unknown/kernel/x");
  // A near miss names the nearest kernel, not all of them (issue 25: 78 names on one line).
  const std::string typo = status("/typo/kernel/x");
  EXPECT_NE(typo.find("unknown kernel 'embedding/embed_lookpu'; did you mean "
                      "'embedding/embed_lookup'"),
            std::string::npos)
      << typo;
  EXPECT_EQ(typo.find("adamw_update"), std::string::npos) << typo;
  EXPECT_NE(typo.find("wgslvk inspect --list"), std::string::npos) << typo;
  EXPECT_NE(status("/embedding/embed_lookup/huge_1d").find("cannot be expressed as a 2-D grid"),
            std::string::npos)
      << status("/embedding/embed_lookup/huge_1d");
  EXPECT_NE(status("/embedding/embed_lookup/over_budget").find("budget"), std::string::npos)
      << status("/embedding/embed_lookup/over_budget");
  EXPECT_FALSE(rep.ok());
  // The report survives the non-UTF-8 folder name (it used to print nothing).
  std::string text;
  EXPECT_NO_THROW(text = report_json(rep).dump());
  EXPECT_NE(text.find("\xef\xbf\xbd"), std::string::npos);
  fs::remove_all(d);
}

TEST(UntrustedCase, EmptyCasesFolderSaysSo) {
  fs::path d = temp_dir("empty");
  ValidateOptions opt;
  opt.cases = d;
  opt.randomized = false;
  Validator v(opt);
  try {
    v.run();
    ADD_FAILURE() << "an empty folder ran";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("no case.json found under " + d.string()),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(d);
}

// --dump writes only inside its folder: a Case with an empty kernel and name (bench sweeps once
// made "/" the case id, and .npy files landed in the root folder) or a symlinked part is refused
// and nothing is written.
TEST(UntrustedCase, DumpWritesOnlyInsideItsFolder) {
  fs::path d = temp_dir("dump");
  fs::path outside = temp_dir("dump_outside");
  CaseResult r;
  r.outputs["y"] = Array::of(DType::F32, std::vector<float>{1, 2});
  Case c;
  r.id = c.id();  // "/"
  EXPECT_THROW(dump_result(d / "actual", c, r), CaseError);
  c.kernel = "..";
  c.name = "x";
  EXPECT_THROW(dump_result(d / "actual", c, r), CaseError);
  c.kernel = "fam/entry";
  c.name = "case";
  r.outputs["../../y"] = Array::of(DType::F32, std::vector<float>{1});
  EXPECT_THROW(dump_result(d / "actual", c, r), CaseError);
  r.outputs.erase("../../y");
  fs::create_directories(d / "actual");
  fs::create_directory_symlink(outside, d / "actual" / "fam");
  try {
    dump_result(d / "actual", c, r);
    ADD_FAILURE() << "wrote through a symlink";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(outside));
  fs::remove(d / "actual" / "fam");
  dump_result(d / "actual", c, r);
  EXPECT_TRUE(fs::exists(d / "actual" / "fam" / "entry" / "case" / "y.actual.npy"));
  EXPECT_FALSE(fs::exists("/y.actual.npy.wgslvk_test_marker"));
  fs::remove_all(d);
  fs::remove_all(outside);
}

// ---- the CLI: exit codes, the time limit ---------------------------------------------------------------

namespace {
struct CliRun {
  int code = -1;
  std::string out;
};
CliRun run_cli(const std::string& args) {
  // Under ASan the CLI's exit reports 128 bytes LeakSanitizer finds in the (unloaded) Vulkan
  // driver for any run that opens a device; that is not what these tests check.
  std::string cmd = "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 " +
                    std::string(WGSLVK_CLI) + " " + args + " 2>&1";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}
}  // namespace

TEST(UntrustedCase, CliExitCodesAndMessages) {
  fs::path d = temp_dir("cli");
  CliRun r = run_cli("validate --cases " + d.string() + " --json");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no case.json found under " + d.string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"exit_code\": 2"), std::string::npos) << r.out;
  r = run_cli("validate --seed abc");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find("stoull"), std::string::npos) << r.out;
  r = run_cli("validate --timeout -1");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run_cli("validate --no-such-flag");
  EXPECT_EQ(r.code, 2) << r.out;
  fs::remove_all(d);
}

// A dispatch far past the time limit (but under the invocation budget) is reported ERROR after
// --timeout seconds, the next case is reported "not run", the JSON report is complete, and the
// process exits 1 right away instead of running for minutes.
TEST(UntrustedCase, TimeLimitEndsARunawayCase) {
  fs::path d = temp_dir("timeout");
  make_case(d / "a" / "b" / "slow", edited([](ojson& j) {
              j["case"] = "slow";
              j["dispatches"][0]["workgroups"] = {65535, 1024, 1};
            }));
  make_case(d / "a" / "c" / "next", edited([](ojson& j) { j["case"] = "next"; }));
  auto t0 = std::chrono::steady_clock::now();
  CliRun r = run_cli("validate --cases " + d.string() + " --timeout 1 --json");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_LT(s, 30.0);
  EXPECT_NE(r.out.find("ran past the time limit of 1 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not run: the device was abandoned after case embedding/embed_lookup/slow"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"device_abandoned\": true"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// ---- round 2 (issue 26) ---------------------------------------------------------------------------

namespace {
// The .npy of one f32 with its header text edited by `edit` (padding kept to 64 bytes) and the
// version bytes set.
std::string npy_error(const std::function<void(std::string&)>& edit, uint8_t major = 1,
                      uint8_t minor = 0) {
  auto bytes = npy_encode(Array::of(DType::F32, std::vector<float>{1.0f}));
  std::string h(bytes.begin() + 10, bytes.end() - 4);
  edit(h);
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, minor};
  out.push_back(uint8_t(h.size() & 0xff));
  out.push_back(uint8_t(h.size() >> 8));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), bytes.end() - 4, bytes.end());
  try {
    npy_decode(out, "x.npy");
  } catch (const std::runtime_error& e) { return e.what(); }
  return {};
}
void replace_in(std::string& h, const std::string& from, const std::string& to) {
  auto p = h.find(from);
  ASSERT_NE(p, std::string::npos) << from;
  h.replace(p, from.size(), to);
}
}  // namespace

// Headers numpy refuses were accepted: version 1.9, a NUL in the header, mismatched quotes; and
// "fortran_order: Flase" was reported as "is True".
TEST(UntrustedCase, NpyHeaderIsReadAsNumpyReadsIt) {
  EXPECT_EQ(npy_error([](std::string&) {}), "");
  expect_clear(npy_error([](std::string&) {}, 1, 9), {"x.npy", "version 1.9"});
  expect_clear(npy_error([](std::string& h) { h[h.size() - 3] = '\0'; }),
               {"x.npy", "header byte", "0x00"});
  expect_clear(npy_error([](std::string& h) { replace_in(h, "'<f4'", "'<f4\""); }),
               {"x.npy", "not a simple type string"});
  expect_clear(npy_error([](std::string& h) { replace_in(h, "False", "Flase"); }),
               {"x.npy", "fortran_order is Flase, not True or False"});
  expect_clear(npy_error([](std::string& h) { replace_in(h, "False", "True "); }),
               {"x.npy", "fortran_order is True"});
  expect_clear(npy_error([](std::string& h) { h[0] = '['; }), {"x.npy", "not a dict literal"});
}

// f16 values out of range became +inf silently, where f32 ones were refused.
TEST(UntrustedCase, F16OutOfRangeIsRefusedAsF32Is) {
  auto with_f16 = [](const ojson& fill) {
    return edited([&](ojson& j) {
      j["buffers"]["extra"] = {{"dtype", "f16"}, {"count", 4}, {"fill", fill}};
    });
  };
  EXPECT_EQ(load_error_text(with_f16(65504.0)), "");
  EXPECT_EQ(load_error_text(with_f16("inf")), "");
  expect_clear(load_error_text(with_f16(70000.0)),
               {"buffers.extra.fill", "out of range for f16", "65504"});
  expect_clear(load_error_text(with_f16(-1e30)), {"out of range for f16"});
  std::string e = load_error_text(edited([](ojson& j) {
    j["buffers"]["extra"] = {{"generate",
                              {{"dtype", "f16"},
                               {"count", 4},
                               {"kind", "uniform"},
                               {"seed", 1},
                               {"lo", -1e30},
                               {"hi", 1e30}}}};
  }));
  expect_clear(e, {"uniform range", "within f16"});
}

// A newline in a case's folder name was printed raw and could forge a verdict line in the text
// report; --device with no match exited 2 where --help says 3.
TEST(UntrustedCase, ControlBytesInNamesAreEscapedAndNoDeviceIsExit3) {
  fs::path d = temp_dir("forge");
  const std::string forged = "x\nPASS: 1 of 1 kernels pass\n";
  // An ERROR (0 workgroups), so the report prints the case's id, the folder's name.
  make_case(d / "embedding" / "embed_lookup" / forged, edited([](ojson& j) {
              j.erase("case");
              j["dispatches"][0]["workgroups"] = {0};
            }));
  CliRun r = run_cli("validate --cases '" + d.string() + "'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.out.find("\nPASS: 1 of 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x\\nPASS"), std::string::npos) << r.out;
  fs::remove_all(d);
  r = run_cli("validate --device no-such-adapter-wgslvk --no-random");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("no adapter matches 'no-such-adapter-wgslvk'"), std::string::npos) << r.out;
}

// Finished cases keep only what the report needs (40 cases of a 256 MiB output once held 7.5 GB).
TEST(UntrustedCase, FinishedCasesKeepNoOutputs) {
  fs::path src = golden_case("embedding/embed_lookup/oov_tokens");
  ASSERT_FALSE(src.empty());
  fs::path d = temp_dir("memory");
  for (int i = 0; i < 3; ++i)
    copy_case(src, d / "embedding" / "embed_lookup" / ("copy" + std::to_string(i)));
  ValidateOptions opt;
  opt.cases = d;
  opt.randomized = false;
  Validator v(opt);
  size_t seen_outputs = 0;
  ValidateReport rep = v.run([&](const CaseResult& r) { seen_outputs += r.outputs.size(); });
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_GT(seen_outputs, 0u);  // the progress callback still sees them
  for (const auto& r : rep.results) {
    EXPECT_EQ(status_name(r.status), "PASS") << r.message;
    EXPECT_TRUE(r.outputs.empty()) << r.id;
  }
  fs::remove_all(d);
}

// `golden regen --out DIR` and `inspect --snapshots DIR` deleted files under DIR they did not
// write; `golden fresh --out` wrote through a planted symlink; its --seed 0x10 was seed 0.
TEST(UntrustedCase, GeneratorsTouchOnlyWhatTheyWrite) {
  fs::path d = temp_dir("strays");
  auto plant = [&](const fs::path& root) {
    fs::create_directories(root / "src");
    write_text(root / "src" / "main.c", "int main() {}");
    fs::create_directories(root / "embedding" / "embed_lookup" / "mine" / "deeper");
    write_text(root / "embedding" / "embed_lookup" / "mine" / "deeper" / "notes.txt", "keep");
    write_text(root / "embedding" / "embed_lookup" / "mine" / "notes.txt", "keep");
  };
  auto planted = [&](const fs::path& root) {
    return fs::exists(root / "src" / "main.c") &&
           fs::exists(root / "embedding" / "embed_lookup" / "mine" / "deeper" / "notes.txt") &&
           fs::exists(root / "embedding" / "embed_lookup" / "mine" / "notes.txt");
  };
  plant(d / "snap");
  CliRun r = run_cli("inspect --snapshots " + (d / "snap").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(planted(d / "snap")) << r.out;
  plant(d / "gold");
  // A stale generated file is still removed (what regen writes, it also cleans).
  fs::create_directories(d / "gold" / "embedding" / "embed_lookup" / "gone");
  write_text(d / "gold" / "embedding" / "embed_lookup" / "gone" / "case.json", "{}");
  r = run_cli("golden regen --out " + (d / "gold").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(planted(d / "gold")) << r.out;
  EXPECT_FALSE(fs::exists(d / "gold" / "embedding" / "embed_lookup" / "gone" / "case.json"));
  // golden fresh: hex seeds are read as hex, and a planted symlink is refused.
  r = run_cli("golden fresh --seed 0x10 --kernel embedding/embed_lookup --out " +
              (d / "hex").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("seed 16"), std::string::npos) << r.out;
  r = run_cli("golden fresh --seed abc --out " + (d / "x").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--seed: 'abc' is not a whole number"), std::string::npos) << r.out;
  fs::path first;
  for (auto& e : fs::recursive_directory_iterator(d / "hex"))
    if (e.path().filename() == "case.json") first = e.path().lexically_relative(d / "hex");
  ASSERT_FALSE(first.empty());
  write_text(d / "victim", "keep");
  fs::create_directories((d / "link" / first).parent_path());
  fs::create_symlink(d / "victim", d / "link" / first);
  r = run_cli("golden fresh --seed 16 --kernel embedding/embed_lookup --out " +
              (d / "link").string());
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("symbolic link"), std::string::npos) << r.out;
  std::ifstream in(d / "victim");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "keep");
  fs::remove_all(d);
}

// 400 buffers of 256 MiB (100 GB) were allocated until memory ran out: the declared total is
// checked against the stated budget before anything is allocated.
TEST(UntrustedCase, BufferBudgetIsCheckedBeforeAllocating) {
  fs::path d = temp_dir("budget");
  make_case(d / "embedding" / "embed_lookup" / "huge", edited([](ojson& j) {
              for (int i = 0; i < 400; ++i)
                j["buffers"]["b" + std::to_string(i)] = {
                    {"dtype", "f32"}, {"count", uint64_t(64) << 20}, {"fill", 0}};
            }));
  ValidateOptions opt;
  opt.cases = d;
  opt.randomized = false;
  Validator v(opt);
  // No wall-clock assert (a loaded CI machine under ASan is slow): the message says nothing was
  // allocated, and 400 x 256 MiB really allocated would fail the run, not slow it.
  ValidateReport rep = v.run();
  ASSERT_EQ(rep.results.size(), 1u);
  EXPECT_EQ(status_name(rep.results[0].status), "ERROR");
  EXPECT_NE(rep.results[0].message.find("-byte budget of a case; nothing was allocated"),
            std::string::npos)
      << rep.results[0].message;
  fs::remove_all(d);
}

// A case of more dispatches than one timestamp query set holds (4096 queries) runs and is timed.
TEST(UntrustedCase, ManyDispatchesRunAndAreTimed) {
  fs::path d = temp_dir("dispatches");
  make_case(d / "embedding" / "embed_lookup" / "many", edited([](ojson& j) {
              const ojson one = j["dispatches"][0];
              j["dispatches"] = ojson::array();
              for (int i = 0; i < 2100; ++i) j["dispatches"].push_back(one);
            }));
  ValidateOptions opt;
  opt.cases = d;
  opt.randomized = false;
  Validator v(opt);
  ValidateReport rep = v.run();
  ASSERT_EQ(rep.results.size(), 1u);
  EXPECT_EQ(status_name(rep.results[0].status), "PASS") << rep.results[0].message;
  if (wgslvk::testing::device().has_feature(Feature::TimestampQuery)) {
    EXPECT_TRUE(rep.results[0].device_ms.has_value());
  }
  fs::remove_all(d);
}

// `bench --cases` had none of validate's limits: a case of 4294836225 workgroups never returned,
// a runaway case hung it, and one bad case aborted the whole run.
TEST(UntrustedCase, BenchCasesHaveValidatesLimits) {
  fs::path d = temp_dir("bench_cases");
  make_case(d / "embedding" / "embed_lookup" / "good",
            edited([](ojson& j) { j["case"] = "good"; }));
  make_case(d / "embedding" / "embed_lookup" / "huge", edited([](ojson& j) {
              j["case"] = "huge";
              j["dispatches"][0].erase("workgroups");
              j["dispatches"][0]["workgroups_1d"] = 4294836225ull;
            }));
  make_case(d / "bad" / "json" / "broken", "{ \"format\": ");
  auto t0 = std::chrono::steady_clock::now();
  CliRun r = run_cli("bench --quick --cases " + d.string());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.out.find("has no timestamp-query") != std::string::npos)
    GTEST_SKIP() << "the device cannot time: " << r.out;
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_LT(s, 60.0) << r.out;
  EXPECT_NE(r.out.find("budget"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ERROR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok (worst"), std::string::npos) << r.out;  // the good case still ran
  // A runaway case: past --timeout, the device is abandoned, the next case is "not run", and the
  // process leaves at once.
  fs::remove_all(d);
  make_case(d / "a" / "b" / "slow", edited([](ojson& j) {
              j["case"] = "slow";
              j["dispatches"][0]["workgroups"] = {65535, 1024, 1};
            }));
  make_case(d / "a" / "c" / "next", edited([](ojson& j) { j["case"] = "next"; }));
  t0 = std::chrono::steady_clock::now();
  r = run_cli("bench --quick --timeout 1 --cases " + d.string());
  s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_LT(s, 30.0) << r.out;
  EXPECT_NE(r.out.find("ran past the time limit of 1 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not run: the device was abandoned"), std::string::npos) << r.out;
  fs::remove_all(d);
}
