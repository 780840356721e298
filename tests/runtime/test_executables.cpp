// VK_KHR_pipeline_executable_properties (`wgslvk inspect --stats`): the enabling decision, the
// statistic conversion and the CLI's table and JSON, each on values built by hand (lavapipe of
// Mesa 22 has no such extension), then the real path on whatever device runs the suite: the
// stated error where the adapter lacks the extension, the driver's statistics where it has it
// (only on a GPU).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "executables.hpp"  // runtime/src: the pieces that need no driver
#include "inspect_stats.hpp"
#include "test_util.hpp"

namespace wgslvk {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---- enabling logic -----------------------------------------------------------------------------

TEST(ExecutableCapture, OffByDefaultSoPipelinesAreUnchanged) {
  DeviceDescriptor d;
  for (bool offers : {false, true}) {
    ExecutableCapture c = plan_executable_capture(d, "any", offers);
    EXPECT_FALSE(c.any());
    EXPECT_EQ(executable_capture_flags(c), 0u);
  }
}

TEST(ExecutableCapture, StatisticsOnlyWhenAsked) {
  DeviceDescriptor d;
  d.capture_executable_statistics = true;
  ExecutableCapture c = plan_executable_capture(d, "gpu", true);
  EXPECT_TRUE(c.statistics);
  EXPECT_FALSE(c.internal_representations);
  EXPECT_EQ(executable_capture_flags(c),
            VkPipelineCreateFlags(VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR));
}

TEST(ExecutableCapture, InternalRepresentationsImplyStatistics) {
  DeviceDescriptor d;
  d.capture_internal_representations = true;
  ExecutableCapture c = plan_executable_capture(d, "gpu", true);
  EXPECT_TRUE(c.statistics);
  EXPECT_TRUE(c.internal_representations);
  EXPECT_EQ(executable_capture_flags(c),
            VkPipelineCreateFlags(VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                                  VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR));
}

TEST(ExecutableCapture, AdapterWithoutTheExtensionIsAFeatureError) {
  DeviceDescriptor d;
  d.label = "stats";
  d.capture_executable_statistics = true;
  testing::expect_validation_error(
      [&] { plan_executable_capture(d, "Some CPU", false); }, "feature",
      {"[Device \"stats\"]", "VK_KHR_pipeline_executable_properties", "adapter \"Some CPU\""});
}

// ---- statistic conversion -----------------------------------------------------------------------

VkPipelineExecutableStatisticKHR stat(const char* name, VkPipelineExecutableStatisticFormatKHR f) {
  VkPipelineExecutableStatisticKHR s{};
  s.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
  std::strncpy(s.name, name, VK_MAX_DESCRIPTION_SIZE - 1);
  std::strncpy(s.description, "what it is", VK_MAX_DESCRIPTION_SIZE - 1);
  s.format = f;
  return s;
}

TEST(ExecutableStatistic, EveryFormatKeepsItsType) {
  auto b = stat("Spills", VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR);
  b.value.b32 = VK_TRUE;
  auto i = stat("Delta", VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR);
  i.value.i64 = -5;
  auto u = stat("Registers", VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR);
  u.value.u64 = 40;
  auto f = stat("Occupancy", VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR);
  f.value.f64 = 0.75;
  PipelineStatistic sb = to_statistic(b), si = to_statistic(i), su = to_statistic(u),
                    sf = to_statistic(f);
  EXPECT_EQ(sb.name, "Spills");
  EXPECT_EQ(sb.description, "what it is");
  EXPECT_EQ(std::get<bool>(sb.value), true);
  EXPECT_EQ(std::get<int64_t>(si.value), -5);
  EXPECT_EQ(std::get<uint64_t>(su.value), 40u);
  EXPECT_EQ(std::get<double>(sf.value), 0.75);
}

TEST(ExecutableStatistic, UnterminatedNameStaysInBounds) {
  auto s = stat("", VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR);
  std::memset(s.name, 'x', VK_MAX_DESCRIPTION_SIZE);  // no terminator
  EXPECT_EQ(to_statistic(s).name, std::string(VK_MAX_DESCRIPTION_SIZE, 'x'));
}

// ---- the CLI's table and JSON -------------------------------------------------------------------

// Rows as `inspect --stats` makes them: a kernel's qualified name is the row's label there.
std::vector<cli::KernelExecutables> hand_built() {
  PipelineExecutable a{"Compute Shader", "compute", 32, {}, {}};
  a.statistics = {{"Register Count", "registers per thread", uint64_t(40)},
                  {"Spills", "spilled to local memory", false},
                  {"Occupancy", "fraction of warps", 0.5}};
  PipelineExecutable b{"Compute Shader", "compute", 32, {}, {{"SASS", "assembly", "MOV R1"}}};
  b.statistics = {{"Register Count", "registers per thread", uint64_t(255)},
                  {"Local Memory", "bytes per thread", int64_t(-1)}};
  return {{"optimizer/adamw_update", {a}, ""},
          {"matmul/matmul_native", {b}, ""},
          {"optimizer/adamw_update_f16", {}, "R22: needs shader-f16"}};
}

TEST(InspectStats, TableHasOneRowPerExecutableAndAColumnPerStatistic) {
  std::string t = cli::executable_stats_table(hand_built());
  EXPECT_EQ(
      t,
      "kernel                  executable      subgroup  Register Count  Spills  Occupancy  "
      "Local Memory\n"
      "optimizer/adamw_update  Compute Shader  32        40              false   0.5        -\n"
      "matmul/matmul_native    Compute Shader  32        255             -       -          "
      "-1\n"
      "\n"
      "  Register Count: registers per thread\n"
      "  Spills: spilled to local memory\n"
      "  Occupancy: fraction of warps\n"
      "  Local Memory: bytes per thread\n"
      "\n"
      "not compiled:\n"
      "  optimizer/adamw_update_f16: R22: needs shader-f16\n");
}

TEST(InspectStats, JsonKeepsTypesDescriptionsAndSkips) {
  auto j = cli::executable_stats_json(hand_built());
  ASSERT_EQ(j["kernels"].size(), 3u);
  const auto& e = j["kernels"][0]["executables"][0];
  EXPECT_EQ(j["kernels"][0]["kernel"], "optimizer/adamw_update");
  EXPECT_EQ(e["name"], "Compute Shader");
  EXPECT_EQ(e["subgroup_size"], 32);
  EXPECT_EQ(e["statistics"][0]["name"], "Register Count");
  EXPECT_EQ(e["statistics"][0]["format"], "uint64");
  EXPECT_TRUE(e["statistics"][0]["value"].is_number_unsigned());
  EXPECT_EQ(e["statistics"][0]["value"], 40);
  EXPECT_TRUE(e["statistics"][1]["value"].is_boolean());
  EXPECT_EQ(e["statistics"][2]["value"], 0.5);
  EXPECT_FALSE(e.contains("internal_representations"));
  const auto& m = j["kernels"][1]["executables"][0];
  EXPECT_EQ(m["statistics"][1]["value"], -1);
  EXPECT_EQ(m["internal_representations"][0]["text"], "MOV R1");
  EXPECT_EQ(j["kernels"][2]["skipped"], "R22: needs shader-f16");
  EXPECT_FALSE(j["kernels"][2].contains("executables"));
}

TEST(InspectStats, EmptyListSaysSo) {
  EXPECT_EQ(cli::executable_stats_table({}), "(no executables)\n");
}

// ---- the real path on this device ---------------------------------------------------------------

TEST(ExecutableStatistics, WithoutCaptureIsAStateError) {
  ComputePipeline p =
      testing::device().create_compute_pipeline({.kernel = &kernel("wgslvk_util/copy_vec4")});
  testing::expect_validation_error([&] { p.executable_statistics(); }, "state",
                                   {"capture_executable_statistics", "copy_vec4"});
}

TEST(ExecutableStatistics, TheDriversStatisticsOrTheStatedError) {
  Adapter& a = testing::adapter();
  DeviceDescriptor d;
  d.label = "stats";
  d.capture_executable_statistics = true;
  if (!a.supports_executable_statistics()) {
    testing::expect_validation_error(
        [&] { testing::make_device(d); }, "feature",
        {"VK_KHR_pipeline_executable_properties", "adapter \"" + a.info().name + "\""});
    return;
  }
  // A GPU driver with the extension (not lavapipe of Mesa 22): at least one executable with at
  // least one statistic, and internal representations only when asked.
  Device dev = testing::make_device(d);
  ComputePipeline p = dev.create_compute_pipeline({.kernel = &kernel("wgslvk_util/copy_vec4")});
  auto exes = p.executable_statistics();
  ASSERT_FALSE(exes.empty());
  EXPECT_FALSE(exes[0].statistics.empty());
  for (const auto& e : exes) EXPECT_TRUE(e.internal_representations.empty());
  std::printf("%s", cli::executable_stats_table({{"wgslvk_util/copy_vec4", exes, ""}}).c_str());
}

// The CLI on the suite's adapter: exit 3 and the runtime's message without the extension (not a
// crash, not an empty success), a table with the kernel's row with it.
TEST(InspectStats, CliOnThisDevice) {
  Adapter& a = testing::adapter();
  std::string cmd = "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 " +
                    std::string(WGSLVK_CLI) + " inspect --stats wgslvk_util/copy_vec4 --device " +
                    std::to_string(a.info().index) + " 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (!a.supports_executable_statistics()) {
    EXPECT_EQ(code, 3) << out;
    EXPECT_TRUE(contains(out, "wgslvk inspect: error: feature:")) << out;
    EXPECT_TRUE(contains(out, "VK_KHR_pipeline_executable_properties")) << out;
    EXPECT_TRUE(contains(out, "adapter \"" + a.info().name + "\"")) << out;
  } else {
    EXPECT_EQ(code, 0) << out;
    EXPECT_TRUE(contains(out, "\nwgslvk_util/copy_vec4  ")) << out;
  }
}

}  // namespace
}  // namespace wgslvk
