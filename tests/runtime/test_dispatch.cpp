// Running work: sub-range views, 2-D grids past 65535 workgroups, WebGPU's implicit ordering
// between commands, copies, clears, zero-initialised buffers and timestamps.
#include <numeric>

#include "test_util.hpp"

namespace wgslvk::testing {
namespace {

ComputePipeline pipeline(const char* name) {
  return device().create_compute_pipeline({std::string("test ") + name, &util(name), {}, false});
}

TEST(SubRange, KernelWritesOnlyThroughItsView) {
  Device& d = device();
  auto p = pipeline("fill_index");
  const uint64_t words = 4096, view_offset = 5 * 256, view_words = 1000;  // 256-byte aligned
  Buffer b = poisoned(d, words, "big");
  // The kernel writes n = view_words elements: all of the view, and nothing else.
  run_dispatch(
      d, p,
      {make_bind_group(d, p, {{0, b, view_offset, view_words * 4}, {1, params(d, view_words)}})},
      grid_for_workgroups(div_ceil(view_words, 256), d.limits()));
  auto got = read<uint32_t>(d, b);
  const uint64_t first = view_offset / 4;
  for (uint64_t i = 0; i < words; ++i) {
    if (i >= first && i < first + view_words)
      ASSERT_EQ(got[i], uint32_t(i - first)) << "inside, word " << i;
    else
      ASSERT_EQ(got[i], kPoisonBits) << "outside, word " << i;
  }
}

TEST(SubRange, ViewAtTheEndAndReadBack) {
  Device& d = device();
  auto p = pipeline("fill_index");
  Buffer b = poisoned(d, 1024, "big");
  run_dispatch(d, p, {make_bind_group(d, p, {{0, b, 3072}, {1, params(d, 256)}})}, {1, 1});
  auto tail = read<uint32_t>(d, b, 3072);
  ASSERT_EQ(tail.size(), 256u);
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(tail[i], i);
  auto head = read<uint32_t>(d, b, 0, 768);
  for (auto v : head) ASSERT_EQ(v, kPoisonBits);
}

TEST(Grid2D, MoreThan65535WorkgroupsWriteEachElementOnce) {
  Device& d = device();
  auto p = pipeline("count_writes");
  const uint64_t workgroups = 65535 + 4;  // 65539 is prime: the grid must carry surplus
  const uint32_t n = uint32_t(workgroups * 256 - 100);
  Grid grid = grid_for_workgroups(div_ceil(n, 256), d.limits());
  ASSERT_GT(grid.y, 1u);
  ASSERT_LE(grid.x, d.limits().max_compute_workgroups_per_dimension);
  ASSERT_GE(grid.workgroups() * 256, n);
  // Counts start at the poison value plus a guard of 64 words past n that must stay poisoned.
  Buffer c = poisoned(d, n + 64, "counts");
  run_dispatch(d, p, {make_bind_group(d, p, {{0, c, 0, uint64_t(n) * 4}, {1, params(d, n)}})},
               grid);
  auto got = read<uint32_t>(d, c);
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], kPoisonBits + 1) << "element " << i;
  for (uint64_t i = n; i < n + 64; ++i) ASSERT_EQ(got[i], kPoisonBits) << "guard " << i;
}

TEST(Ordering, EachDispatchSeesThePreviousOnesWrites) {
  // fill_index -> copy_vec4 A->B -> copy_vec4 B->C -> count_writes on C, all in one pass, then
  // copies: each step reads what the previous wrote (WebGPU's implicit barrier).
  Device& d = device();
  auto fill = pipeline("fill_index");
  auto copy = pipeline("copy_vec4");
  auto count = pipeline("count_writes");
  const uint32_t n = 256 * 300;
  Buffer a = poisoned(d, n, "a"), b = poisoned(d, n, "b"), c = poisoned(d, n, "c"),
         e = poisoned(d, n, "e");
  Buffer pn = params(d, n), pv = params(d, n / 4);
  CommandEncoder enc = d.create_command_encoder({"chain"});
  ComputePass pass = enc.begin_compute_pass({"chain"});
  pass.set_pipeline(fill);
  pass.set_bind_group(0, make_bind_group(d, fill, {{0, a}, {1, pn}}));
  pass.dispatch_workgroups(300);
  pass.set_pipeline(copy);
  pass.set_bind_group(0, make_bind_group(d, copy, {{0, a}, {1, b}, {2, pv}}));
  pass.dispatch_workgroups(75);
  pass.set_bind_group(0, make_bind_group(d, copy, {{0, b}, {1, c}, {2, pv}}));
  pass.dispatch_workgroups(75);
  pass.set_pipeline(count);
  pass.set_bind_group(0, make_bind_group(d, count, {{0, c}, {1, pn}}));
  pass.dispatch_workgroups(300);
  pass.end();
  enc.copy_buffer_to_buffer(c, 0, e, 0, uint64_t(n) * 4);
  enc.clear_buffer(c, 0, 1024);
  d.queue().submit(enc.finish());
  auto got_e = read<uint32_t>(d, e);
  auto got_c = read<uint32_t>(d, c);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_e[i], i + 1) << "element " << i;
    ASSERT_EQ(got_c[i], i < 256 ? 0u : i + 1) << "element " << i;
  }
}

TEST(Buffers, NewBuffersReadAsZero) {
  Device& d = device();
  Buffer b = d.create_buffer({"fresh", 4096, BufferUsage::Storage | BufferUsage::CopySrc});
  for (auto v : read<uint32_t>(d, b)) ASSERT_EQ(v, 0u);
}

TEST(Buffers, WriteReadSubRangesAndCopies) {
  Device& d = device();
  auto r = rng();
  std::vector<uint32_t> data(1000);
  for (auto& v : data) v = uint32_t(r());
  Buffer a = upload(d, data, "a");
  Buffer b = poisoned(d, 1000, "b");
  d.queue().write_buffer(a, 400, data.data(), 40);  // a[100..110) = data[0..10)
  CommandEncoder enc = d.create_command_encoder();
  enc.copy_buffer_to_buffer(a, 400, b, 800, 400);  // b[200..300) = a[100..200)
  d.queue().submit(enc.finish());
  auto got = read<uint32_t>(d, b);
  for (uint32_t i = 0; i < 1000; ++i) {
    uint32_t want = kPoisonBits;
    if (i >= 200 && i < 210)
      want = data[i - 200];
    else if (i >= 210 && i < 300)
      want = data[i - 100];
    ASSERT_EQ(got[i], want) << "word " << i;
  }
  EXPECT_EQ(read<uint32_t>(d, a, 400, 10), std::vector<uint32_t>(data.begin(), data.begin() + 10));
}

TEST(Buffers, UsageAndRangeErrors) {
  Device& d = device();
  Buffer storage_only = d.create_buffer({"storage only", 256, BufferUsage::Storage});
  Buffer full = poisoned(d, 64, "full");
  uint32_t w[4] = {};
  expect_validation_error([&] { d.queue().write_buffer(storage_only, 0, w, 16); }, "usage",
                          {"[Buffer \"storage only\"]", "CopyDst"});
  expect_validation_error([&] { d.read_buffer(storage_only); }, "usage",
                          {"[Buffer \"storage only\"]", "CopySrc"});
  expect_validation_error([&] { d.queue().write_buffer(full, 248, w, 16); }, "range",
                          {"[248, 264)", "size (256)"});
  expect_validation_error([&] { d.queue().write_buffer(full, 2, w, 4); }, "alignment",
                          {"offset (2)"});
  CommandEncoder enc = d.create_command_encoder();
  expect_validation_error([&] { enc.copy_buffer_to_buffer(storage_only, 0, full, 0, 16); }, "usage",
                          {"[Buffer \"storage only\"]", "CopySrc"});
  expect_validation_error([&] { enc.copy_buffer_to_buffer(full, 0, storage_only, 0, 16); }, "usage",
                          {"CopyDst"});
  expect_validation_error([&] { enc.copy_buffer_to_buffer(full, 0, full, 128, 16); }, "state",
                          {"same buffer"});
  expect_validation_error([&] { enc.clear_buffer(storage_only); }, "usage", {"CopyDst"});
  expect_validation_error([&] { enc.clear_buffer(full, 0, 260); }, "range", {"[0, 260)"});
  expect_validation_error(
      [&] {
        d.create_buffer({"huge", d.limits().max_buffer_size + 4, BufferUsage::Storage});
      },
      "limits",
      {"[Buffer \"huge\"]", "maxBufferSize (" + std::to_string(d.limits().max_buffer_size) + ")"});
  expect_validation_error(
      [&] {
        d.create_buffer({"none", 16, BufferUsage::None});
      },
      "usage", {"[Buffer \"none\"]"});
}

TEST(Encoder, StateErrors) {
  Device& d = device();
  auto p = pipeline("fill_index");
  CommandEncoder enc = d.create_command_encoder({"enc"});
  ComputePass pass = enc.begin_compute_pass({"p"});
  expect_validation_error([&] { pass.dispatch_workgroups(1); }, "state",
                          {"[ComputePass \"p\"]", "no pipeline"});
  pass.set_pipeline(p);
  expect_validation_error([&] { pass.dispatch_workgroups(1); }, "state",
                          {"no bind group set at index 0"});
  expect_validation_error([&] { pass.set_bind_group(4, BindGroup{}); }, "limits",
                          {"maxBindGroups (4)"});
  // A group made for another layout.
  auto other = pipeline("copy_vec4");
  Buffer b = poisoned(d, 64, "b"), c = poisoned(d, 64, "c");
  pass.set_bind_group(
      0, make_bind_group(d, other, {{0, b}, {1, c}, {2, params(d, 1)}}, "other group"));
  expect_validation_error([&] { pass.dispatch_workgroups(1); }, "state",
                          {"[BindGroup \"other group\"]", "not compatible"});
  expect_validation_error([&] { enc.finish(); }, "state", {"open compute pass"});
  pass.end();
  CommandBuffer cb = enc.finish();
  d.queue().submit(cb);
  expect_validation_error([&] { d.queue().submit(cb); }, "state", {"already submitted"});
}

TEST(Encoder, ObjectsOfAnotherDeviceAreRefused) {
  Device& d = device();
  Device other = make_device({"other", {}, {}});
  Buffer foreign = other.create_buffer(
      {"foreign", 256, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst});
  auto p = pipeline("fill_index");
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, foreign}, {1, params(d, 1)}}, "g");
      },
      "state", {"[BindGroup \"g\"] binding 0", "[Buffer \"foreign\"]", "different device"});
  expect_validation_error(
      [&] { d.queue().write_buffer(foreign, 0, std::vector<uint32_t>(4).data(), 16); }, "state",
      {"[Buffer \"foreign\"]", "different device"});
  CommandEncoder enc = other.create_command_encoder({"theirs"});
  enc.clear_buffer(foreign);
  CommandBuffer cb = enc.finish();
  expect_validation_error([&] { d.queue().submit(cb); }, "state",
                          {"[CommandBuffer \"theirs\"]", "different device"});
  other.queue().submit(cb);
  for (auto v : read<uint32_t>(other, foreign)) ASSERT_EQ(v, 0u);
}

TEST(Handles, NullHandlesAreErrorsNotCrashes) {
  Device none;
  expect_validation_error(
      [&] {
        none.create_buffer({"b", 16, BufferUsage::Storage});
      },
      "state", {"Device::create_buffer", "null handle"});
  expect_validation_error([&] { (void)Buffer{}.size(); }, "state", {"Buffer::size", "null handle"});
  expect_validation_error([&] { CommandEncoder{}.finish(); }, "state", {"CommandEncoder::finish"});
  expect_validation_error([&] { ComputePipeline{}.get_bind_group_layout(0); }, "state",
                          {"ComputePipeline::get_bind_group_layout"});
  expect_validation_error([&] { ComputePass{}.dispatch_workgroups(1); }, "state",
                          {"dispatch_workgroups"});
}

TEST(Limits, StorageBuffersPerStageAndBindGroups) {
  Device& d = device();
  ASSERT_EQ(d.limits().max_storage_buffers_per_shader_stage, 8u);
  BindGroupLayoutDescriptor desc{"nine", {}};
  for (uint32_t i = 0; i < 9; ++i) desc.entries.push_back({i, BindingType::Storage});
  expect_validation_error(
      [&] { d.create_bind_group_layout(desc); }, "limits",
      {"[BindGroupLayout \"nine\"]", "9 storage", "maxStorageBuffersPerShaderStage (8)"});
  desc.entries.pop_back();
  desc.label = "eight";
  EXPECT_NO_THROW(d.create_bind_group_layout(desc));
  // Across groups of one pipeline layout: 8 + 1 is too many.
  auto eight = d.create_bind_group_layout(desc);
  auto fill_l =
      d.create_bind_group_layout({"fill", {{0, BindingType::Storage}, {1, BindingType::Uniform}}});
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"too many", &util("fill_index"), {fill_l, eight}, false});
      },
      "limits", {"9 storage", "maxStorageBuffersPerShaderStage (8)"});
  std::vector<BindGroupLayout> five(5, fill_l);
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"five", &util("fill_index"), five, false});
      },
      "limits", {"5 bind group layouts", "maxBindGroups (4)"});
}

TEST(Timestamps, PassAndBetweenDispatchesAreOrdered) {
  Device& d = device();
  if (!d.has_feature(Feature::TimestampQuery)) GTEST_SKIP() << "adapter has no timestamp-query";
  auto p = pipeline("fill_index");
  const uint32_t n = 256 * 512;
  Buffer b = poisoned(d, n, "b");
  auto g = make_bind_group(d, p, {{0, b}, {1, params(d, n)}});
  QuerySet qs = d.create_query_set({.label = "times", .count = 4});
  CommandEncoder enc = d.create_command_encoder();
  ComputePass pass = enc.begin_compute_pass({"timed", PassTimestampWrites{qs, 0, 3}});
  pass.set_pipeline(p);
  pass.set_bind_group(0, g);
  pass.dispatch_workgroups(512);
  pass.write_timestamp(qs, 1);
  pass.dispatch_workgroups(512);
  pass.write_timestamp(qs, 2);
  pass.end();
  d.queue().submit(enc.finish());
  auto t = d.read_timestamps(qs);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_GT(t[0], 0u);
  EXPECT_LT(t[0], t[1]);  // a 131072-invocation dispatch takes more than a nanosecond
  EXPECT_LT(t[1], t[2]);
  EXPECT_LE(t[2], t[3]);
  auto got = read<uint32_t>(d, b);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i);
  // An unwritten query reads 0.
  QuerySet fresh = d.create_query_set({.label = "unused", .count = 2});
  EXPECT_EQ(d.read_timestamps(fresh), (std::vector<uint64_t>{0, 0}));
  CommandEncoder e2 = d.create_command_encoder();
  expect_validation_error(
      [&] {
        e2.begin_compute_pass({"bad", PassTimestampWrites{qs, 4, std::nullopt}});
      },
      "range", {"query index (4)", "[QuerySet \"times\"] count (4)"});
}

}  // namespace
}  // namespace wgslvk::testing
