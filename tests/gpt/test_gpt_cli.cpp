// `wgslvk train` / `wgslvk sample` as untrusted input (issues 25 and 26): the checked number
// parser, the checkpoint's .json sidecar, the loss PNG with non-finite losses, output paths
// checked before any work and never written through a symlink, --resume's refusals, the JSON
// log's start and end records, and the loss history carried across a resume.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "config.hpp"
#include "flag_number.hpp"
#include "trainer.hpp"
#include "wgslvk/runtime.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace wgslvk::gpt {
namespace {

fs::path temp_dir(const std::string& tag) {
  fs::path d =
      fs::temp_directory_path() / ("wgslvk_gpt_cli_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary) << s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) { return e.what(); }
  return "no error";
}

// ---- the checked number parser (cli/flag_number.hpp) ----------------------------------------

TEST(FlagNumber, WholeNumbersAreCheckedNotWrapped) {
  using cli::parse_flag_uint;
  EXPECT_EQ(parse_flag_uint("--steps", "42", 1, 100), 42u);
  EXPECT_EQ(parse_flag_uint("--seed", "0x10", 0, UINT64_MAX), 16u);  // once seed 0
  EXPECT_EQ(parse_flag_uint("--seed", "18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
  // -1 once became 4294967295 steps, 4294967296 became 0 and 4294967297 became 1.
  for (const char* bad : {"-1", "4294967296", "4294967297", "18446744073709551616", "0"}) {
    std::string e = error_of([&] { parse_flag_uint("--steps", bad, 1, 4294967295u); });
    EXPECT_NE(e.find("--steps: '"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("[1, 4294967295]"), std::string::npos) << bad << ": " << e;
    EXPECT_EQ(e.find("stoul"), std::string::npos) << e;
  }
  for (const char* bad : {"abc", "", " 5", "5 ", "+5", "5.0", "1e3", "0x", "0xg", "5k"}) {
    std::string e = error_of([&] { parse_flag_uint("--steps", bad, 1, 100); });
    EXPECT_NE(e.find("is not a whole number"), std::string::npos) << "'" << bad << "': " << e;
  }
  // The value is quoted bounded, control bytes escaped (a terminal escape is not replayed).
  std::string e =
      error_of([&] { parse_flag_uint("--steps", "\x1b[2J" + std::string(500, '9'), 1, 100); });
  EXPECT_NE(e.find("\\x1b"), std::string::npos) << e;
  EXPECT_LT(e.size(), 200u) << e;
  EXPECT_EQ(cli::parse_flag_uint_as<uint32_t>("--batch", "4096", 1, 4096), 4096u);
}

TEST(FlagNumber, RealsAreFiniteAndInRange) {
  using cli::parse_flag_real;
  EXPECT_EQ(parse_flag_real("--lr", "3e-4", 0, 100), 3e-4);
  EXPECT_EQ(parse_flag_real("--lr", "-0", -1, 1), 0.0);
  for (const char* bad : {"abc", "", "nan", "inf", "-inf", "1e999", "0x1p3", "1,5", "3e-4 "}) {
    std::string e = error_of([&] { parse_flag_real("--lr", bad, 0, 100); });
    EXPECT_NE(e.find("is not a finite decimal number"), std::string::npos) << bad << ": " << e;
    EXPECT_EQ(e.find("stof"), std::string::npos) << e;
  }
  std::string e = error_of([&] { parse_flag_real("--lr", "1e30", 0, 100); });
  EXPECT_NE(e.find("--lr: '1e30' is outside [0, 100]"), std::string::npos) << e;
  // A float flag: 1e39 is refused, not +inf.
  e = error_of([&] { cli::parse_flag_float("--lr", "1e39", 0, 3e38f); });
  EXPECT_NE(e.find("is outside"), std::string::npos) << e;
}

// ---- the checkpoint's .json sidecar ---------------------------------------------------------

TrainConfig small_config() {
  TrainConfig tc;
  tc.steps = 50;
  tc.context = 16;
  return tc;
}

// The sidecar with one field of "train" replaced by `value` (JSON text).
std::string with_train_field(const std::string& field, const std::string& value) {
  json j = json::parse(config_json(small_config()));
  j["train"][field] = json::parse(value);
  return j.dump();
}

TEST(GptSidecar, RoundTripsAndRefusesWhatSaveNeverWrites) {
  const TrainConfig tc = small_config();
  EXPECT_EQ(config_json(config_from_json(config_json(tc))), config_json(tc));
  struct Bad {
    std::string field, value, message;
  };
  const Bad bad[] = {
      // val_fraction 2.0 once ran past the corpus (vector::_M_range_insert, undefined behaviour)
      {"val_fraction", "2.0", "val_fraction = 2 is outside [0.001, 0.5]"},
      {"val_fraction", "-0.1", "val_fraction = -0.1 is outside"},
      {"precision", "\"fp64\"", "train.precision unknown precision 'fp64'"},
      {"schedule", "\"linear\"", "train.schedule unknown schedule 'linear'"},
      {"attention", "\"flash9\"", "train.attention unknown attention 'flash9'"},
      {"preset", "\"huge\"", "unknown preset 'huge'"},
      {"steps", "256.0", "train.steps = 256.0 is not an integer"},
      {"steps", "-1", "train.steps = -1 is not an integer in [1, 100000000]"},
      {"steps", "4294967296", "train.steps = 4294967296 is not an integer"},
      {"batch", "0", "train.batch = 0 is not an integer in [1, 4096]"},
      {"context", "\"16\"", "train.context = \"16\" is not an integer"},
      {"lr", "1e30", "lr = 1.00000002e+30 is outside [0, 100]"},
      {"lr", "null", "train.lr = null is not a finite number"},
      {"beta1", "1.0", "beta1 = 1"},
      {"seed", "1.5", "train.seed = 1.5 is not an integer"},
  };
  for (const auto& b : bad) {
    std::string e = error_of([&] { config_from_json(with_train_field(b.field, b.value)); });
    EXPECT_NE(e.find(b.message), std::string::npos) << b.field << " = " << b.value << ": " << e;
  }
  // Unknown and missing fields, a model section that disagrees with the train section.
  std::string e = error_of([&] { config_from_json(with_train_field("lr_typo", "1")); });
  EXPECT_NE(e.find("train.lr_typo is not a field of wgslvk-gpt-1"), std::string::npos) << e;
  json j = json::parse(config_json(tc));
  j["train"].erase("seed");
  e = error_of([&] { config_from_json(j.dump()); });
  EXPECT_NE(e.find("train.seed is missing"), std::string::npos) << e;
  j = json::parse(config_json(tc));
  j["model"]["d_model"] = 4096;
  e = error_of([&] { config_from_json(j.dump()); });
  EXPECT_NE(e.find("model = "), std::string::npos) << e;
  EXPECT_NE(e.find("does not match the preset 'small'"), std::string::npos) << e;
  // Duplicate keys and deep nesting (parse_json_strict), not JSON at all.
  e = error_of([&] { config_from_json("{\"format\":\"wgslvk-gpt-1\",\"format\":\"x\"}"); });
  EXPECT_NE(e.find("duplicate key"), std::string::npos) << e;
  e = error_of([&] { config_from_json(std::string(100000, '[')); });
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e.substr(0, 300);
}

TEST(GptSidecar, HistoryIsCheckedAndReadBack) {
  json j = json::parse(config_json(small_config()));
  j["history"] = {{"train", {{1, 5.5, 1e-4}, {2, nullptr, 2e-4}}}, {"val", {{2, 5.0}}}};
  CheckpointSidecar s = sidecar_from_json(j.dump());
  ASSERT_EQ(s.history.train.size(), 2u);
  EXPECT_EQ(s.history.train[0].step, 1u);
  EXPECT_EQ(s.history.train[0].loss, 5.5f);
  EXPECT_TRUE(std::isnan(s.history.train[1].loss));  // a NaN loss is written as null
  ASSERT_EQ(s.history.val.size(), 1u);
  for (const char* bad : {R"({"train":[[2,1,1],[1,1,1]],"val":[]})",  // steps not rising
                          R"({"train":[[51,1,1]],"val":[]})",         // past train.steps
                          R"({"train":[[1.5,1,1]],"val":[]})",        // a float step
                          R"({"train":[[1,"x",1]],"val":[]})",        // a string loss
                          R"({"train":[],"val":[[1]]})",              // a short point
                          R"({"train":[],"val":[],"extra":1})",       // an unknown field
                          R"({"train":{}})"}) {
    j["history"] = json::parse(bad);
    std::string e = error_of([&] { sidecar_from_json(j.dump()); });
    EXPECT_NE(e.find("history"), std::string::npos) << bad << ": " << e;
  }
}

TEST(GptSidecar, ReadingNamesTheFileAndRefusesFoldersAndHugeFiles) {
  fs::path d = temp_dir("sidecar");
  write_text(d / "a.json", with_train_field("val_fraction", "2.0"));
  std::string e = error_of([&] { read_checkpoint_config((d / "a").string()); });
  EXPECT_NE(e.find((d / "a.json").string() + ": train"), std::string::npos) << e;
  fs::create_directories(d / "b.json");
  e = error_of([&] { read_checkpoint_config((d / "b").string()); });
  EXPECT_NE(e.find("b.json"), std::string::npos) << e;
  EXPECT_NE(e.find("folder"), std::string::npos) << e;
  {
    std::ofstream(d / "c.json") << "";
    fs::resize_file(d / "c.json", kMaxSidecarBytes + 1);
  }
  e = error_of([&] { read_checkpoint_config((d / "c").string()); });
  EXPECT_NE(e.find("c.json"), std::string::npos) << e;
  e = error_of([&] { read_checkpoint_config((d / "missing").string()); });
  EXPECT_NE(e.find("missing.json"), std::string::npos) << e;
  fs::remove_all(d);
}

// ---- the loss PNG -----------------------------------------------------------------------------

TEST(GptPng, NonFiniteLossesAreSkippedAndThePngWritten) {
  fs::path d = temp_dir("png");
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  TrainLog log;
  // A diverging run (--lr 1e30): finite, then huge, then inf and NaN; val points likewise.
  const float losses[] = {5.5f, 5.4f, 3e38f, -3e38f, inf, nan, -inf, 5.0f, nan, 4.9f};
  for (uint32_t i = 0; i < 10; ++i) log.train.push_back({i + 1, losses[i], 1e30f});
  log.val = {{5, nan}, {10, 4.8f}};
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(write_loss_png(log, (d / "a.png").string(), "diverged"));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);  // it once never returned
  const std::string png = read_text(d / "a.png");
  ASSERT_GT(png.size(), 100u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  // Every loss non-finite: still a PNG, saying so.
  TrainLog all_nan;
  for (uint32_t i = 0; i < 4; ++i) all_nan.train.push_back({i + 1, nan, 1.0f});
  EXPECT_TRUE(write_loss_png(all_nan, (d / "b.png").string(), "nan"));
  // A planted symlink at the output is not written through.
  write_text(d / "victim", "keep");
  fs::create_symlink(d / "victim", d / "c.png");
  EXPECT_FALSE(write_loss_png(log, (d / "c.png").string(), "x"));
  EXPECT_EQ(read_text(d / "victim"), "keep");
  fs::remove_all(d);
}

// The trace's files were opened through a symlink planted at their names.
TEST(GptOutputs, TraceRefusesPlantedSymlinks) {
  fs::path d = temp_dir("trace");
  write_text(d / "victim", "keep");
  fs::create_directories(d / "t");
  fs::create_symlink(d / "victim", d / "t" / "trace.jsonl");
  Instance inst = Instance::create();
  Adapter ad = inst.select_adapter(std::nullopt);
  DeviceDescriptor desc;
  desc.trace_dir = (d / "t").string();
  std::string e = error_of([&] { (void)ad.request_device(desc); });
  EXPECT_NE(e.find("trace.jsonl: is a symbolic link"), std::string::npos) << e;
  EXPECT_EQ(read_text(d / "victim"), "keep");
  fs::remove_all(d);
}

// ---- the command line (runs the wgslvk binary) ---------------------------------------------------

struct CliRun {
  int code = -1;
  std::string out;
};
CliRun run_cli(const std::string& args) {
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

TEST(GptCli, NumbersAreCheckedWithFlagValueAndRange) {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"train --steps abc", "--steps: 'abc' is not a whole number"},
      {"train --steps -1", "--steps: '-1' is not a whole number"},
      {"train --steps 4294967296", "--steps: '4294967296' is outside [1, 100000000]"},
      {"train --context 4294967297", "--context: '4294967297' is outside [1, 4096]"},
      {"train --lr 1e30", "--lr: '1e30' is outside [0, 100]"},
      {"train --lr nan", "--lr: 'nan' is not a finite decimal number"},
      {"train --seed 0x", "--seed: '0x' is not a whole number"},
      {"train --precision fp64", "unknown precision 'fp64'"},
      {"train --nope", "unknown option '--nope'"},
      {"train --steps", "--steps needs a value"},
      {"sample --checkpoint x --tokens -1", "--tokens: '-1' is not a whole number"},
      {"sample --checkpoint x --tokens 99999999999", "--tokens: '99999999999' is outside"},
      {"sample --checkpoint x --temperature inf", "--temperature: 'inf' is not a finite"},
      {"sample", "--checkpoint is required"},
  };
  for (const auto& c : cases) {
    CliRun r = run_cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << ": " << r.out;
    for (const char* leak : {"stoul", "stof", "stod", "stoull"})
      EXPECT_EQ(r.out.find(leak), std::string::npos) << c.args << ": " << r.out;
  }
}

TEST(GptCli, HelpListsDevice) {
  for (const char* cmd : {"train --help", "sample --help"}) {
    CliRun r = run_cli(cmd);
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("--device <sel>"), std::string::npos) << cmd << ": " << r.out;
  }
}

// Every output is checked before any work: with a corpus folder that does not exist, the error is
// about the output, not the corpus (which is read first of all the work).
TEST(GptCli, OutputsAreCheckedBeforeWorkAndNeverThroughSymlinks) {
  fs::path d = temp_dir("outputs");
  fs::create_directories(d / "folder");
  write_text(d / "victim", "keep");
  fs::create_symlink(d / "victim", d / "link");
  fs::create_symlink(d / "victim", d / "ck.tmp");
  const std::string no_corpus = " --corpus " + (d / "no_corpus").string();
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--json " + (d / "folder").string(), "is a folder"},
      {"--json /proc/wgslvk_x", "/proc/wgslvk_x: cannot create it"},
      {"--json " + (d / "link").string(), "symbolic link"},
      {"--out /proc/wgslvk_x", "/proc/wgslvk_x"},
      {"--out " + (d / "folder").string(), "is a folder"},
      {"--out " + (d / "ck").string(), "ck.tmp: is a symbolic link"},
      {"--out " + (d / "link").string(), "symbolic link"},
      {"--png " + (d / "link").string(), "symbolic link"},
      {"--save-init /proc/wgslvk_x", "/proc/wgslvk_x"},
      {"--dump-batches /proc/wgslvk_x", "/proc/wgslvk_x"},
  };
  for (const auto& c : cases) {
    CliRun r = run_cli("train --steps 2" + no_corpus + " " + c.args);
    EXPECT_EQ(r.code, 1) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << ": " << r.out;
    EXPECT_EQ(r.out.find("corpus"), std::string::npos) << c.args << ": " << r.out;
    EXPECT_EQ(r.out.find("wrote"), std::string::npos) << c.args << ": " << r.out;
  }
  EXPECT_EQ(read_text(d / "victim"), "keep");
  fs::remove_all(d);
}

TEST(GptCli, ResumeRefusesWhatTheCheckpointFixes) {
  fs::path d = temp_dir("resume_flags");
  const std::string ck = (d / "ck").string();
  CliRun r = run_cli("train --resume " + ck + " --out " + ck + " --lr 0.1 --preset xl");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("fixes --lr, --preset"), std::string::npos) << r.out;
  r = run_cli("train --resume " + ck + " --seed 3 --out " + ck);
  EXPECT_NE(r.out.find("fixes --seed"), std::string::npos) << r.out;
  // Without --out the resumed checkpoint was overwritten silently.
  r = run_cli("train --resume " + ck);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--resume needs --out"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// A short real run: stop at step 2 with a checkpoint, resume to 4. The JSON log has a start record
// (config, device, commit) and an end record; the resumed checkpoint's history (and so its PNG)
// holds all 4 steps; the output cadence flags apply on resume.
TEST(GptCli, JsonLogRecordsAndHistoryAcrossResume) {
  fs::path d = temp_dir("resume_run");
  fs::create_directories(d / "corpus");
  std::string text;
  for (int i = 0; i < 600; ++i)
    text += "line " + std::to_string(i * 7919 % 1000) + ": the quick brown fox.\n";
  write_text(d / "corpus" / "text", text);
  const std::string common =
      " --corpus " + (d / "corpus").string() + " --steps 4 --batch 2 --context 16 --eval-every 0";
  const std::string ck = (d / "ck").string();
  CliRun r = run_cli("train" + common + " --log-every 1 --stop-at 2 --out " + ck + " --json " +
                     (d / "a.jsonl").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::vector<json> a;
  {
    std::ifstream f(d / "a.jsonl");
    for (std::string line; std::getline(f, line);) a.push_back(json::parse(line));
  }
  ASSERT_GE(a.size(), 3u);
  EXPECT_EQ(a.front()["event"], "start");
  EXPECT_TRUE(a.front()["device"].is_string());
  EXPECT_FALSE(a.front()["device"].get<std::string>().empty());
  EXPECT_TRUE(a.front()["commit"].is_string());
  EXPECT_EQ(a.front()["config"]["train"]["steps"], 4);
  EXPECT_EQ(a.front()["start_step"], 0);
  EXPECT_EQ(a.back()["event"], "end");
  EXPECT_EQ(a.back()["status"], "stopped");
  EXPECT_EQ(a.back()["step"], 2);
  // Resume to 4 with a new log cadence (applied, not ignored) and a PNG.
  r = run_cli("train --resume " + ck + " --out " + ck + " --log-every 2 --corpus " +
              (d / "corpus").string() + " --json " + (d / "b.jsonl").string() + " --png " +
              (d / "b.png").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::vector<json> b;
  {
    std::ifstream f(d / "b.jsonl");
    for (std::string line; std::getline(f, line);) b.push_back(json::parse(line));
  }
  ASSERT_GE(b.size(), 3u);
  EXPECT_EQ(b.front()["resumed_from"], ck);
  EXPECT_EQ(b.front()["start_step"], 2);
  EXPECT_EQ(b.front()["config"]["train"]["log_every"], 2);
  EXPECT_EQ(b.back()["status"], "done");
  EXPECT_EQ(b.back()["step"], 4);
  EXPECT_EQ(b.back()["steps_trained"], 2);
  CheckpointSidecar s = read_checkpoint_sidecar(ck);
  ASSERT_EQ(s.history.train.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(s.history.train[i].step, i + 1);
  EXPECT_GT(fs::file_size(d / "b.png"), 100u);
  fs::remove_all(d);
}

}  // namespace
}  // namespace wgslvk::gpt
