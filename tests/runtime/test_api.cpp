// The public API pass of issue 9: BufferUsage as an enum class with WebGPU's bit values, the
// queue object, the descriptors of create_query_set / create_command_encoder, private handle
// state, snake_case limits.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.hpp"

namespace wgslvk::testing {
namespace {

namespace fs = std::filesystem;

// The numbers are WebGPU's GPUBufferUsage bits: the trace (wgslvk-trace-1) writes them and Dawn
// replays them, so they may never move.
TEST(BufferUsage, WebGPUBitValuesAndOperators) {
  EXPECT_EQ(uint32_t(BufferUsage::MapRead), 0x0001u);
  EXPECT_EQ(uint32_t(BufferUsage::MapWrite), 0x0002u);
  EXPECT_EQ(uint32_t(BufferUsage::CopySrc), 0x0004u);
  EXPECT_EQ(uint32_t(BufferUsage::CopyDst), 0x0008u);
  EXPECT_EQ(uint32_t(BufferUsage::Uniform), 0x0040u);
  EXPECT_EQ(uint32_t(BufferUsage::Storage), 0x0080u);
  EXPECT_EQ(uint32_t(BufferUsage::QueryResolve), 0x0200u);
  BufferUsage u = BufferUsage::Storage | BufferUsage::CopySrc;
  EXPECT_EQ(uint32_t(u), 0x84u);
  EXPECT_TRUE(has(u, BufferUsage::Storage));
  EXPECT_TRUE(has(u, BufferUsage::Storage | BufferUsage::CopySrc));
  EXPECT_FALSE(has(u, BufferUsage::Storage | BufferUsage::CopyDst));  // every bit, not any
  EXPECT_FALSE(has(u, BufferUsage::None));
  EXPECT_EQ(u & BufferUsage::CopySrc, BufferUsage::CopySrc);
  EXPECT_EQ(u & BufferUsage::Uniform, BufferUsage::None);
  u |= BufferUsage::CopyDst;
  EXPECT_EQ(uint32_t(u), 0x8cu);
  u &= ~BufferUsage::CopySrc;
  EXPECT_EQ(u, BufferUsage::Storage | BufferUsage::CopyDst);
}

TEST(BufferUsage, BufferKeepsItsUsageAndTheTraceWritesTheNumber) {
  fs::path dir = fs::temp_directory_path() / ("wgslvk_api_trace_" + std::to_string(test_seed()));
  fs::remove_all(dir);
  {
    Device d = make_device({"traced", {}, {}, dir.string()});
    Buffer b = d.create_buffer({"usage probe", 16, BufferUsage::Storage | BufferUsage::CopyDst});
    EXPECT_EQ(b.usage(), BufferUsage::Storage | BufferUsage::CopyDst);
  }
  std::ifstream in(dir / "trace.jsonl");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string t = ss.str();
  const size_t at = t.find("\"label\":\"usage probe\"");
  ASSERT_NE(at, std::string::npos) << t;
  const size_t end = t.find('\n', at);
  EXPECT_NE(t.substr(at, end - at).find("\"usage\":136"), std::string::npos)  // 0x80 | 0x08
      << t.substr(at, end - at);
  fs::remove_all(dir);
}

TEST(Queue, WriteSubmitAndWorkDone) {
  Device& d = device();
  Queue q = d.queue();
  EXPECT_TRUE(bool(q));
  EXPECT_TRUE(q == d.queue());  // one queue per device
  auto r = rng(1);
  std::vector<uint32_t> data(64);
  for (auto& x : data) x = uint32_t(r()) | 1u;  // never all zero
  Buffer b = poisoned(d, 64, "queue target");
  q.write_buffer(b, 16, std::span<const uint32_t>(data).subspan(0, 8));  // typed form
  q.write_buffer(b, 64, data.data() + 8, 48 * 4);
  auto got = read<uint32_t>(d, b);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(got[i], kPoisonBits) << i;
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(got[4 + i], data[i]) << i;
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(got[12 + i], kPoisonBits) << i;
  for (uint32_t i = 0; i < 48; ++i) EXPECT_EQ(got[16 + i], data[8 + i]) << i;
  CommandEncoder enc = d.create_command_encoder({"clear via queue"});
  enc.clear_buffer(b, 0, 16);
  q.submit(enc.finish());
  q.on_submitted_work_done();
  EXPECT_EQ(read<uint32_t>(d, b, 0, 4), (std::vector<uint32_t>{0, 0, 0, 0}));
  // The queue keeps the device's state: it still works with the Device handle gone.
  Queue kept;
  Buffer kb;
  {
    Device tmp = make_device({"short-lived", {}, {}});
    kept = tmp.queue();
    kb = tmp.create_buffer({"kb", 16, BufferUsage::Storage | BufferUsage::CopyDst});
  }
  kept.write_buffer(kb, 0, data.data(), 16);
  kept.on_submitted_work_done();
  expect_validation_error([&] { Queue{}.write_buffer(b, 0, data.data(), 16); }, "state",
                          {"Queue::write_buffer", "null handle"});
  expect_validation_error([&] { Queue{}.submit(CommandBuffer{}); }, "state", {"Queue::submit"});
}

TEST(Descriptors, QuerySetAndCommandEncoder) {
  Device& d = device();
  if (!d.has_feature(Feature::TimestampQuery)) GTEST_SKIP() << "adapter has no timestamp-query";
  QuerySet qs =
      d.create_query_set({.label = "described", .type = QueryType::Timestamp, .count = 3});
  EXPECT_EQ(qs.count(), 3u);
  EXPECT_EQ(qs.type(), QueryType::Timestamp);
  EXPECT_EQ(qs.label(), "described");
  QuerySet dflt = d.create_query_set({.count = 1});  // type defaults to Timestamp
  EXPECT_EQ(dflt.type(), QueryType::Timestamp);
  EXPECT_EQ(dflt.label(), "");
  expect_validation_error([&] { d.create_query_set({.label = "empty", .count = 0}); }, "limits",
                          {"[QuerySet \"empty\"]", "count (0)"});
  expect_validation_error(
      [&] {
        d.create_query_set({"odd", QueryType(7), 2});
      },
      "state", {"[QuerySet \"odd\"]", "type (7)"});
  // The encoder's label from its descriptor names it in errors.
  CommandEncoder enc = d.create_command_encoder({"named encoder"});
  enc.finish();
  expect_validation_error([&] { enc.finish(); }, "state", {"[CommandEncoder \"named encoder\"]"});
}

TEST(Handles, IdentityTruthAndLifetime) {
  Device& d = device();
  Buffer a = d.create_buffer({"a", 16, BufferUsage::Storage});
  Buffer copy = a;
  Buffer other = d.create_buffer({"other", 16, BufferUsage::Storage});
  EXPECT_TRUE(a == copy);
  EXPECT_FALSE(a == other);
  EXPECT_FALSE(bool(QuerySet{}));
  EXPECT_FALSE(bool(CommandBuffer{}));
  std::weak_ptr<const void> state = detail::weak_state(a);
  EXPECT_FALSE(state.expired());
  a = Buffer{};
  EXPECT_FALSE(state.expired());  // `copy` still holds it
  copy = Buffer{};
  // A new buffer is also held by the device until its zero fill has run (the next submission,
  // here the upload's) and that submission is reclaimed.
  poisoned(d, 4, "flush");
  d.queue().on_submitted_work_done();
  EXPECT_TRUE(state.expired());
}

TEST(Limits, SnakeCaseNamesKeepWebGPUDefaults) {
  Limits l;
  EXPECT_EQ(l.max_buffer_size, 268435456u);
  EXPECT_EQ(l.max_storage_buffer_binding_size, 134217728u);
  EXPECT_EQ(l.max_uniform_buffer_binding_size, 65536u);
  EXPECT_EQ(l.min_storage_buffer_offset_alignment, 256u);
  EXPECT_EQ(l.max_compute_workgroups_per_dimension, 65535u);
  EXPECT_EQ(l.max_compute_invocations_per_workgroup, 256u);
  EXPECT_EQ(l.max_compute_workgroup_storage_size, 16384u);
  EXPECT_EQ(l.max_bind_groups, 4u);
}

}  // namespace
}  // namespace wgslvk::testing
