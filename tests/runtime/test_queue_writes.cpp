// Queue::write_buffer without a wait (issue 23): a write is copied into an upload arena when it is
// called and reaches the GPU at the start of the next submission. WebGPU's order must hold: after
// every earlier submit, before every later one, overlapping writes in call order, the staged
// (over 4 MiB) path after the pending small writes, and an arena reused only once nothing reads
// it. And reusable command buffers (wgslvk/reusable.hpp): recorded once, resubmitted, each
// submission seeing the writes made before it. Fresh random contents every run (test_seed); the
// layer's synchronization validation (WGSLVK_SYNC_VALIDATION=1) checks the barriers (a mutant
// without the barrier between overlapping writes is reported there).
#include <cstring>
#include <filesystem>
#include <vector>

#include "test_util.hpp"
#include "wgslvk/reusable.hpp"

namespace wgslvk::testing {
namespace {

std::vector<uint32_t> random_words(size_t n, uint64_t salt) {
  auto r = rng(salt);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = uint32_t(r());
  return v;
}

Buffer plain(Device& d, uint64_t bytes, const std::string& label) {
  return d.create_buffer(
      {label, bytes, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst});
}

TEST(QueueWrites, OverlappingWritesLandInCallOrder) {
  Device& d = device();
  Buffer b = plain(d, 256, "target");
  auto first = random_words(64, 1), second = random_words(16, 2), third = random_words(8, 3);
  d.queue().write_buffer(b, 0, first.data(), 256);
  d.queue().write_buffer(b, 32, second.data(), 64);  // words 8..23 over the first
  d.queue().write_buffer(b, 48, third.data(), 32);   // words 12..19 over both
  std::vector<uint32_t> want = first;
  std::memcpy(want.data() + 8, second.data(), 64);
  std::memcpy(want.data() + 12, third.data(), 32);
  EXPECT_EQ(read<uint32_t>(d, b), want);
}

TEST(QueueWrites, SubmitSeesEarlierWritesOnly) {
  Device& d = device();
  Buffer src = plain(d, 1024, "src"), before = plain(d, 1024, "before"),
         after = plain(d, 1024, "after");
  auto a = random_words(256, 4), b = random_words(256, 5);
  d.queue().write_buffer(src, 0, a.data(), 1024);
  CommandEncoder e1 = d.create_command_encoder({"copy a"});
  e1.copy_buffer_to_buffer(src, 0, before, 0, 1024);
  d.queue().submit(e1.finish());
  // Encoded before the write, submitted after it: the submission reads the new contents.
  CommandEncoder e2 = d.create_command_encoder({"copy b"});
  e2.copy_buffer_to_buffer(src, 0, after, 0, 1024);
  d.queue().write_buffer(src, 0, b.data(), 1024);
  d.queue().submit(e2.finish());
  EXPECT_EQ(read<uint32_t>(d, before), a);
  EXPECT_EQ(read<uint32_t>(d, after), b);
  EXPECT_EQ(read<uint32_t>(d, src), b);
}

TEST(QueueWrites, StagedLargeWriteIsOrderedWithPendingSmallOnes) {
  Device& d = device();
  const uint64_t words = (5ull << 20) / 4;  // 5 MiB: past the arena's per-write bound
  Buffer b = plain(d, words * 4, "large");
  auto small1 = random_words(32, 6), large = random_words(words, 7), small2 = random_words(32, 8);
  d.queue().write_buffer(b, 0, small1.data(), 128);       // overwritten by the large one
  d.queue().write_buffer(b, 0, large.data(), words * 4);  // staged, waited for
  d.queue().write_buffer(b, 4096, small2.data(), small2.size() * 4);  // over the large one
  std::vector<uint32_t> want = large;
  std::memcpy(want.data() + 1024, small2.data(), small2.size() * 4);
  EXPECT_EQ(read<uint32_t>(d, b), want);
}

TEST(QueueWrites, ArenasAreReusedOnlyOnceRead) {
  Device& d = device();
  {
    // 24 writes of 1 MiB with no submission between them: one and a half arenas of pending
    // bytes, all still to be copied when the first arena fills.
    const uint64_t words = (1u << 20) / 4, n = 24;
    Buffer dst = plain(d, words * 4 * n, "pending dst");
    std::vector<uint32_t> want;
    for (uint64_t i = 0; i < n; ++i) {
      auto v = random_words(words, 50 + i);
      d.queue().write_buffer(dst, i * words * 4, v.data(), words * 4);
      want.insert(want.end(), v.begin(), v.end());
    }
    EXPECT_TRUE(read<uint32_t>(d, dst) == want);
  }
  // 48 writes of 1 MiB into one source, each copied out by its own submission: three times the
  // 16 MiB arena, so arenas are recycled while earlier copies may still be in flight (timing
  // dependent: the pending case above is the deterministic one).
  const uint64_t words = (1u << 20) / 4, rounds = 48;
  Buffer src = plain(d, words * 4, "src"), dst = plain(d, words * 4 * rounds, "dst");
  std::vector<uint32_t> want;
  for (uint64_t i = 0; i < rounds; ++i) {
    auto v = random_words(words, 100 + i);
    d.queue().write_buffer(src, 0, v.data(), words * 4);
    CommandEncoder e = d.create_command_encoder({"copy out"});
    e.copy_buffer_to_buffer(src, 0, dst, i * words * 4, words * 4);
    d.queue().submit(e.finish());
    want.insert(want.end(), v.begin(), v.end());
  }
  EXPECT_TRUE(read<uint32_t>(d, dst) == want);
}

TEST(ReusableCommandBuffers, EachSubmissionSeesTheWritesBeforeIt) {
  Device& d = device();
  const uint64_t words = 4096, rounds = 20;
  Buffer src = plain(d, words * 4, "src"), mid = plain(d, words * 4, "mid"),
         out = plain(d, words * 4 * rounds, "out");
  CommandEncoder re = create_reusable_command_encoder(d, "reused copy");
  re.copy_buffer_to_buffer(src, 0, mid, 0, words * 4);
  CommandBuffer reused = re.finish();
  std::vector<uint32_t> want;
  for (uint64_t i = 0; i < rounds; ++i) {
    auto v = random_words(words, 200 + i);
    d.queue().write_buffer(src, 0, v.data(), words * 4);
    d.queue().submit(reused);
    CommandEncoder e = d.create_command_encoder({"copy out"});
    e.copy_buffer_to_buffer(mid, 0, out, i * words * 4, words * 4);
    d.queue().submit(e.finish());
    want.insert(want.end(), v.begin(), v.end());
  }
  EXPECT_TRUE(read<uint32_t>(d, out) == want);
}

TEST(ReusableCommandBuffers, SubmittedAloneAndNotTraced) {
  Device& d = device();
  EXPECT_FALSE(is_traced(d));
  Buffer a = plain(d, 64, "a"), b = plain(d, 64, "b");
  CommandEncoder re = create_reusable_command_encoder(d, "reused");
  re.copy_buffer_to_buffer(a, 0, b, 0, 64);
  CommandBuffer reused = re.finish();
  CommandEncoder e = d.create_command_encoder({"other"});
  e.copy_buffer_to_buffer(b, 0, a, 0, 64);
  CommandBuffer other = e.finish();
  const CommandBuffer both[2] = {reused, other};
  expect_validation_error([&] { d.queue().submit(both); }, "state",
                          {"[CommandBuffer \"reused\"]", "submitted alone"});
  d.queue().submit(reused);
  d.queue().submit(reused);  // again: no "already submitted"
  d.queue().submit(other);
  expect_validation_error([&] { d.queue().submit(other); }, "state", {"already submitted"});

  const auto dir = std::filesystem::temp_directory_path() /
                   ("wgslvk_reusable_trace_" + std::to_string(test_seed()));
  DeviceDescriptor desc;
  desc.label = "traced";
  desc.trace_dir = dir.string();
  {
    Device traced = make_device(desc);
    EXPECT_TRUE(is_traced(traced));
    expect_validation_error([&] { create_reusable_command_encoder(traced, "step"); }, "state",
                            {"[CommandEncoder \"step\"]", "not traced"});
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wgslvk::testing
