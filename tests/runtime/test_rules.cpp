// WebGPU rules R1-R13 (wgsl_ports/RULES.md): for each, a call that breaks it and is refused
// with the rule id and a message naming the object, the binding and the values, and a call that
// sits exactly on the boundary and works.
#include <numeric>

#include "test_util.hpp"

namespace wgslvk::testing {
namespace {

ComputePipeline pipeline(const char* name) {
  return device().create_compute_pipeline({std::string("test ") + name, &util(name), {}, false});
}

// ---- R1: entry count and binding numbers match the layout ---------------------------------------

TEST(R1, EntryCountMustMatchLayout) {
  Device& d = device();
  auto p = pipeline("copy_vec4");
  Buffer a = poisoned(d, 64, "src"), b = poisoned(d, 64, "dst");
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, a}, {1, b}}, "two of three");
      },
      "R1", {"[BindGroup \"two of three\"]", "2 entries", "has 3", "missing binding 2"});
}

TEST(R1, BindingNumberMustBeInLayout) {
  Device& d = device();
  auto p = pipeline("copy_vec4");
  Buffer a = poisoned(d, 64, "src"), b = poisoned(d, 64, "dst");
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, a}, {1, b}, {5, params(d, 16)}}, "g");
      },
      "R1", {"[BindGroup \"g\"]", "binding 5", "is not in"});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, a}, {1, b}, {1, b}}, "dup");
      },
      "R1", {"binding 1", "more than once"});
}

TEST(R1, ExactEntriesPass) {
  Device& d = device();
  auto p = pipeline("copy_vec4");
  auto rng_ = rng();
  std::vector<float> src(64 * 4);
  for (auto& v : src) v = std::uniform_real_distribution<float>(-1, 1)(rng_);
  Buffer a = upload(d, src, "src"), b = poisoned(d, 64 * 4, "dst");
  run_dispatch(d, p, {make_bind_group(d, p, {{0, a}, {1, b}, {2, params(d, 64)}})}, {1, 1});
  EXPECT_EQ(read<float>(d, b), src);
}

// ---- R2: offset alignment -------------------------------------------------------------------------

TEST(R2, StorageOffsetMustBeAligned) {
  Device& d = device();
  auto p = pipeline("fill_index");
  Buffer out = poisoned(d, 1024, "out");
  std::string align = "(" + std::to_string(d.storage_offset_alignment()) + ")";
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, out, 100, 256}, {1, params(d, 64)}}, "g");
      },
      "R2",
      {"[BindGroup \"g\"] binding 0", "offset (100)", "[Buffer \"out\"]",
       "minStorageBufferOffsetAlignment " + align});
}

TEST(R2, UniformOffsetMustBeAligned) {
  Device& d = device();
  auto p = pipeline("fill_index");
  Buffer out = poisoned(d, 1024, "out");
  Buffer u = d.create_buffer({"uni", 512, BufferUsage::Uniform | BufferUsage::CopyDst});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, out}, {1, u, 16, 16}}, "g");
      },
      "R2",
      {"binding 1", "offset (16)", "[Buffer \"uni\"]",
       "minUniformBufferOffsetAlignment (" + std::to_string(d.uniform_offset_alignment()) + ")"});
}

TEST(R2, AlignedOffsetsPass) {
  Device& d = device();
  auto p = pipeline("fill_index");
  uint64_t sa = d.storage_offset_alignment(), ua = d.uniform_offset_alignment();
  ASSERT_EQ(sa, 256u);  // WebGPU default, stricter than lavapipe's 16 and the H200's 16
  Buffer out = poisoned(d, 3 * sa / 4, "out");
  Buffer u = d.create_buffer({"uni", ua + 16, BufferUsage::Uniform | BufferUsage::CopyDst});
  uint32_t n[4] = {uint32_t(sa / 4), 0, 0, 0};
  d.queue().write_buffer(u, ua, n, 16);
  run_dispatch(d, p, {make_bind_group(d, p, {{0, out, sa, sa}, {1, u, ua, 16}})}, {1, 1});
  auto got = read<uint32_t>(d, out);
  for (uint64_t i = 0; i < got.size(); ++i) {
    bool inside = i >= sa / 4 && i < sa / 2;
    ASSERT_EQ(got[i], inside ? uint32_t(i - sa / 4) : kPoisonBits) << "word " << i;
  }
}

// ---- R3: effective size -------------------------------------------------------------------------

TEST(R3, ZeroSizeIsRejected) {
  Device& d = device();
  auto p = pipeline("array_length");
  Buffer b = poisoned(d, 256, "buf");  // 1024 bytes
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 256, 0}}, "g");
      },
      "R3", {"[BindGroup \"g\"] binding 0", "size is zero", "offset 256"});
  // Default size at offset == buffer size is zero too.
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 1024}}, "g");
      },
      "R3", {"size is zero"});
}

TEST(R3, RangeMustFitBuffer) {
  Device& d = device();
  auto p = pipeline("array_length");
  Buffer b = poisoned(d, 256, "buf");
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 256, 772}}, "g");
      },
      "R3", {"binding 0", "[256, 1028)", "[Buffer \"buf\"]", "size 1024"});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 1280}}, "g");
      },
      "R3", {"offset (1280)", "size 1024"});
}

TEST(R3, RangeEndingAtBufferEndPasses) {
  Device& d = device();
  auto p = pipeline("array_length");
  Buffer b = poisoned(d, 256, "buf");
  // Explicit size up to the last byte, and the default (buffer.size - offset): both 768 bytes.
  for (std::optional<uint64_t> size : {std::optional<uint64_t>(768), std::optional<uint64_t>()}) {
    d.queue().write_buffer(b, 0, std::vector<uint32_t>(256, kPoisonBits).data(), 1024);
    run_dispatch(d, p, {make_bind_group(d, p, {{0, b, 256, size}})}, {1, 1});
    auto got = read<uint32_t>(d, b);
    EXPECT_EQ(got[64], 768u / 4);  // arrayLength of the view
    EXPECT_EQ(got[0], kPoisonBits);
  }
}

// ---- R4: storage sizes are multiples of 4 ---------------------------------------------------------

TEST(R4, StorageSizeMustBeMultipleOf4) {
  Device& d = device();
  auto p = pipeline("array_length");
  Buffer b = poisoned(d, 256, "buf");
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 0, 1022}}, "g");
      },
      "R4",
      {"[BindGroup \"g\"] binding 0", "storage binding size (1022)", "[Buffer \"buf\"]",
       "multiple of 4"});
}

TEST(R4, MultipleOf4Passes) {
  Device& d = device();
  auto p = pipeline("array_length");
  Buffer b = poisoned(d, 256, "buf");
  run_dispatch(d, p, {make_bind_group(d, p, {{0, b, 0, 1020}})}, {1, 1});
  EXPECT_EQ(read<uint32_t>(d, b)[0], 255u);
}

// ---- R5: binding size limits ------------------------------------------------------------------------

TEST(R5, UniformBindingAboveLimit) {
  Device& d = device();
  auto p = pipeline("fill_index");
  uint64_t max = d.limits().max_uniform_buffer_binding_size;
  ASSERT_EQ(max, 65536u);
  Buffer out = poisoned(d, 64, "out");
  Buffer u =
      d.create_buffer({"big uniform", max + 256, BufferUsage::Uniform | BufferUsage::CopyDst});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, out}, {1, u, 0, max + 16}}, "g");
      },
      "R5",
      {"[BindGroup \"g\"] binding 1", "(65552)", "[Buffer \"big uniform\"]",
       "maxUniformBufferBindingSize (65536)"});
  // Exactly the limit binds.
  EXPECT_NO_THROW(make_bind_group(d, p, {{0, out}, {1, u, 0, max}}, "g"));
}

TEST(R5, StorageBindingAboveLimit) {
  Device& d = device();
  auto p = pipeline("array_length");
  uint64_t max = d.limits().max_storage_buffer_binding_size;
  ASSERT_EQ(max, 128u << 20);
  Buffer b = d.create_buffer({"big", max + 256, BufferUsage::Storage | BufferUsage::CopySrc});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 0, max + 4}}, "g");
      },
      "R5",
      {"binding 0", "(" + std::to_string(max + 4) + ")", "[Buffer \"big\"]",
       "maxStorageBufferBindingSize (134217728)"});
  // Default size (whole buffer) is above the limit too: never silently truncated.
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b}}, "g");
      },
      "R5", {"maxStorageBufferBindingSize"});
  // Exactly the limit binds, and the shader sees all of it.
  run_dispatch(d, p, {make_bind_group(d, p, {{0, b, 256, max}})}, {1, 1});
  EXPECT_EQ(read<uint32_t>(d, b, 256, 1)[0], uint32_t(max / 4));
}

// ---- R6: buffer usage ---------------------------------------------------------------------------

TEST(R6, StorageBindingNeedsStorageUsage) {
  Device& d = device();
  auto p = pipeline("fill_index");
  Buffer out = d.create_buffer({"no storage", 1024, BufferUsage::Uniform | BufferUsage::CopyDst});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, out}, {1, params(d, 16)}}, "g");
      },
      "R6", {"[BindGroup \"g\"] binding 0 (storage)", "[Buffer \"no storage\"]", "lacks Storage"});
}

TEST(R6, UniformBindingNeedsUniformUsage) {
  Device& d = device();
  auto p = pipeline("fill_index");
  Buffer out = poisoned(d, 64, "out");
  Buffer u = d.create_buffer({"no uniform", 16, BufferUsage::Storage | BufferUsage::CopyDst});
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, out}, {1, u}}, "g");
      },
      "R6", {"binding 1 (uniform)", "[Buffer \"no uniform\"]", "lacks Uniform"});
}

TEST(R6, MatchingUsagePasses) {
  Device& d = device();
  auto p = pipeline("fill_index");
  // Exactly the usages needed, nothing more (plus CopySrc to read it back).
  Buffer out = d.create_buffer(
      {"out", 64 * 4, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst});
  d.queue().write_buffer(out, 0, std::vector<uint32_t>(64, kPoisonBits).data(), 256);
  run_dispatch(d, p, {make_bind_group(d, p, {{0, out}, {1, params(d, 64)}})}, {1, 1});
  auto got = read<uint32_t>(d, out);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(got[i], i);
}

// ---- R7: minimum binding size ---------------------------------------------------------------------

// sized_header: struct { vec4<u32>, vec4<u32>, array<u32> }: WGSL's SizeOf counts the runtime
// array as one element and rounds the struct up to its alignment: roundUp(16, 32 + 4) = 48.
TEST(R7, ShaderMinimumFromReflection) {
  const KernelBinding* b = util("sized_header").find_binding(0, 0);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->min_binding_size, 48u);
  EXPECT_EQ(b->array_stride, 4u);
}

TEST(R7, LayoutMinimumAtBindGroupCreation) {
  Device& d = device();
  auto p = pipeline("sized_header");  // auto layout: minBindingSize 48 from the shader (R10)
  Buffer b = poisoned(d, 64, "hdr");
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, b, 0, 44}}, "g");
      },
      "R7", {"[BindGroup \"g\"] binding 0", "(44)", "[Buffer \"hdr\"]", "minBindingSize (48)"});
}

TEST(R7, ShaderMinimumAtDispatchWhenLayoutSaysZero) {
  Device& d = device();
  auto layout = d.create_bind_group_layout({"hdr layout", {{0, BindingType::Storage, 0}}});
  auto p = d.create_compute_pipeline({"explicit", &util("sized_header"), {layout}, false});
  Buffer b = poisoned(d, 64, "hdr");
  BindGroup g = d.create_bind_group({"small", layout, {{0, b, 0, 44}}});  // fine at creation
  CommandEncoder enc = d.create_command_encoder();
  ComputePass pass = enc.begin_compute_pass({"p"});
  pass.set_pipeline(p);
  pass.set_bind_group(0, g);
  expect_validation_error([&] { pass.dispatch_workgroups(1); }, "R7",
                          {"[ComputePass \"p\"]", "[BindGroup \"small\"] binding 0", "'sized'",
                           "44 bytes of [Buffer \"hdr\"]", "minimum binding size (48)"});
  pass.end();
}

TEST(R7, LayoutMinimumBelowShaderFailsPipeline) {
  Device& d = device();
  auto layout = d.create_bind_group_layout({"too small", {{0, BindingType::Storage, 16}}});
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"explicit", &util("sized_header"), {layout}, false});
      },
      "R7",
      {"[ComputePipeline \"explicit\"]", "@binding(0)", "needs at least 48 bytes",
       "minBindingSize is 16"});
}

TEST(R7, ExactMinimumPasses) {
  Device& d = device();
  auto layout = d.create_bind_group_layout({"hdr layout", {{0, BindingType::Storage, 0}}});
  auto p = d.create_compute_pipeline({"explicit", &util("sized_header"), {layout}, false});
  Buffer b = poisoned(d, 64, "hdr");
  run_dispatch(d, p, {d.create_bind_group({"exact", layout, {{0, b, 0, 48}}})}, {1, 1});
  auto got = read<uint32_t>(d, b);
  EXPECT_EQ((std::vector<uint32_t>(got.begin(), got.begin() + 4)),
            (std::vector<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(got[4], kPoisonBits);  // b is not written
  EXPECT_EQ(got[8], 4u);           // arrayLength(data) of a 48-byte binding: (48 - 32) / 4
  for (size_t i = 9; i < got.size(); ++i) ASSERT_EQ(got[i], kPoisonBits) << "word " << i;
}

// ---- R8: the descriptor range is the effective size --------------------------------------------------

TEST(R8, ArrayLengthSeesTheBoundRangeNotTheBuffer) {
  Device& d = device();
  auto p = pipeline("array_length");
  Buffer b = poisoned(d, 1024, "buf");  // 4096 bytes
  // A 260-byte view at offset 512: arrayLength is 65, not (4096 - 512) / 4 = 896.
  run_dispatch(d, p, {make_bind_group(d, p, {{0, b, 512, 260}})}, {1, 1});
  auto got = read<uint32_t>(d, b);
  EXPECT_EQ(got[128], 65u);
  for (size_t i = 0; i < got.size(); ++i)
    if (i != 128) { ASSERT_EQ(got[i], kPoisonBits) << "word " << i; }
}

// ---- R9: explicit layout types must match the shader's access ---------------------------------------

std::vector<BindGroupLayout> copy_layout(BindingType b0, BindingType b1, BindingType b2) {
  return {device().create_bind_group_layout({"copy layout", {{0, b0}, {1, b1}, {2, b2}}})};
}

TEST(R9, ReadOnlyShaderBindingWithStorageLayout) {
  auto layout = copy_layout(BindingType::Storage, BindingType::Storage, BindingType::Uniform);
  expect_validation_error(
      [&] {
        device().create_compute_pipeline({"c", &util("copy_vec4"), layout, false});
      },
      "R9",
      {"[ComputePipeline \"c\"]", "@group(0) @binding(0)", "(read-only-storage)",
       "[BindGroupLayout \"copy layout\"]", "entry type (storage)"});
}

TEST(R9, WritableShaderBindingWithReadOnlyLayout) {
  auto layout =
      copy_layout(BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage, BindingType::Uniform);
  expect_validation_error(
      [&] {
        device().create_compute_pipeline({"c", &util("copy_vec4"), layout, false});
      },
      "R9", {"@binding(1)", "(storage)", "entry type (read-only-storage)"});
}

TEST(R9, UniformShaderBindingWithStorageLayout) {
  auto layout =
      copy_layout(BindingType::ReadOnlyStorage, BindingType::Storage, BindingType::ReadOnlyStorage);
  expect_validation_error(
      [&] {
        device().create_compute_pipeline({"c", &util("copy_vec4"), layout, false});
      },
      "R9", {"@binding(2)", "(uniform)", "entry type (read-only-storage)"});
}

TEST(R9, BindingMissingFromLayout) {
  auto layout = device().create_bind_group_layout(
      {"partial", {{0, BindingType::ReadOnlyStorage}, {1, BindingType::Storage}}});
  expect_validation_error(
      [&] {
        device().create_compute_pipeline({"c", &util("copy_vec4"), {layout}, false});
      },
      "R9", {"@binding(2)", "is not in the explicit layout", "[BindGroupLayout \"partial\"]"});
}

TEST(R9, MatchingExplicitLayoutPasses) {
  Device& d = device();
  auto layout =
      copy_layout(BindingType::ReadOnlyStorage, BindingType::Storage, BindingType::Uniform);
  auto p = d.create_compute_pipeline({"c", &util("copy_vec4"), layout, false});
  std::vector<float> src(256);
  std::iota(src.begin(), src.end(), 0.5f);
  Buffer a = upload(d, src, "src"), b = poisoned(d, 256, "dst");
  run_dispatch(d, p, {d.create_bind_group({"g", layout[0], {{0, a}, {1, b}, {2, params(d, 64)}}})},
               {1, 1});
  EXPECT_EQ(read<float>(d, b), src);
}

// ---- R10: auto layout from reflection ---------------------------------------------------------------

TEST(R10, AutoLayoutHasShaderBindingsAndMinimums) {
  auto p = pipeline("copy_vec4");
  auto l = p.get_bind_group_layout(0);
  ASSERT_EQ(l.entries().size(), 3u);
  EXPECT_EQ(l.entries()[0].type, BindingType::ReadOnlyStorage);
  EXPECT_EQ(l.entries()[0].min_binding_size, 16u);  // one vec4<f32>
  EXPECT_EQ(l.entries()[1].type, BindingType::Storage);
  EXPECT_EQ(l.entries()[2].type, BindingType::Uniform);
  EXPECT_EQ(l.entries()[2].min_binding_size, 16u);
  expect_validation_error([&] { p.get_bind_group_layout(1); }, "state", {"no bind group 1"});
}

TEST(R10, DeclaredButUnusedBindingIsLeftOut) {
  Device& d = device();
  const KernelInfo& k = util("fill_index_sparse");
  const KernelBinding* unused = k.find_binding(0, 3);
  ASSERT_NE(unused, nullptr);
  EXPECT_FALSE(unused->statically_used);
  auto p = d.create_compute_pipeline({"sparse", &k, {}, false});
  auto l = p.get_bind_group_layout(0);
  ASSERT_EQ(l.entries().size(), 2u);
  EXPECT_EQ(l.entries()[0].binding, 0u);
  EXPECT_EQ(l.entries()[1].binding, 1u);
  Buffer out = poisoned(d, 256, "out"), extra = poisoned(d, 64, "extra");
  // Binding 3 against the auto layout: not in it (R1, as WebGPU reports it).
  expect_validation_error(
      [&] {
        make_bind_group(d, p, {{0, out}, {1, params(d, 256)}, {3, extra}}, "g");
      },
      "R1", {"binding 3", "is not in", "[BindGroupLayout \"sparse group 0 (auto)\"]"});
  // The boundary: exactly the used bindings run; an explicit layout may also hold binding 3.
  run_dispatch(d, p, {make_bind_group(d, p, {{0, out}, {1, params(d, 256)}})}, {1, 1});
  auto got = read<uint32_t>(d, out);
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(got[i], i);
  auto explicit_layout = d.create_bind_group_layout(
      {"with 3",
       {{0, BindingType::Storage}, {1, BindingType::Uniform}, {3, BindingType::ReadOnlyStorage}}});
  EXPECT_NO_THROW(d.create_compute_pipeline({"sparse explicit", &k, {explicit_layout}, false}));
}

TEST(R10, AutoLayoutKeepsOnlyStaticallyUsedBindings) {
  // Every kernel's auto layout equals its statically used bindings, no more, no fewer.
  for (const KernelInfo* k : all_kernels()) {
    if (k->needs_shader_f16 && !device().has_feature(Feature::ShaderF16)) continue;
    if (k->needs_float_atomics && !device().has_feature(Feature::Float32AtomicAdd)) continue;
    if (kernel_uses_subgroup_matrix(*k) && !device().has_feature(Feature::SubgroupMatrix)) continue;
    auto p = device().create_compute_pipeline({"", k, {}, false});
    size_t used = 0;
    for (const auto& b : k->bindings) {
      if (!b.statically_used) continue;
      ++used;
      auto l = p.get_bind_group_layout(b.group);
      bool found = false;
      for (const auto& e : l.entries())
        if (e.binding == b.binding) {
          found = true;
          EXPECT_EQ(e.type, b.type) << k->qualified_name();
          EXPECT_EQ(e.min_binding_size, b.min_binding_size) << k->qualified_name();
        }
      EXPECT_TRUE(found) << k->qualified_name() << " binding " << b.binding;
    }
    size_t in_layout = 0;
    for (uint32_t g = 0; g < 4; ++g) {
      try {
        in_layout += p.get_bind_group_layout(g).entries().size();
      } catch (const ValidationError&) { break; }
    }
    EXPECT_EQ(in_layout, used) << k->qualified_name();
  }
}

// ---- R11: writable aliasing within one dispatch -------------------------------------------------------

void dispatch_expect(const ComputePipeline& p, const BindGroup& g, const std::string& rule,
                     std::initializer_list<std::string> fragments) {
  CommandEncoder enc = device().create_command_encoder();
  ComputePass pass = enc.begin_compute_pass({"alias pass"});
  pass.set_pipeline(p);
  pass.set_bind_group(0, g);
  expect_validation_error([&] { pass.dispatch_workgroups(1); }, rule, fragments);
  pass.end();
}

TEST(R11, OverlappingWritableRanges) {
  Device& d = device();
  auto p = pipeline("fill_pair");
  Buffer b = poisoned(d, 1024, "mega");
  // [0, 1024) and [768, 1792): 256 bytes shared.
  auto g = make_bind_group(d, p, {{0, b, 0, 1024}, {1, b, 768, 1024}, {2, params(d, 16)}});
  dispatch_expect(
      p, g, "R11",
      {"[ComputePass \"alias pass\"]", "[Buffer \"mega\"]", "binding 0 (storage, [0, 1024))",
       "binding 1 (storage, [768, 1792))", "overlapping writable"});
}

TEST(R11, WritableAndReadOnlyOfOneBufferEvenDisjoint) {
  Device& d = device();
  auto p = pipeline("copy_vec4");
  Buffer b = poisoned(d, 1024, "mega");
  auto g = make_bind_group(d, p, {{0, b, 0, 1024}, {1, b, 2048, 1024}, {2, params(d, 16)}});
  dispatch_expect(p, g, "R11",
                  {"[Buffer \"mega\"]", "binding 0 (read-only-storage, [0, 1024))",
                   "binding 1 (storage, [2048, 3072))", "read-only/uniform"});
}

TEST(R11, WritableAndUniformOfOneBuffer) {
  Device& d = device();
  auto p = pipeline("fill_index");
  Buffer b = d.create_buffer(
      {"both", 1024, BufferUsage::Storage | BufferUsage::Uniform | BufferUsage::CopyDst});
  auto g = make_bind_group(d, p, {{0, b, 256, 256}, {1, b, 0, 16}});
  dispatch_expect(p, g, "R11", {"[Buffer \"both\"]", "binding 0 (storage", "binding 1 (uniform"});
}

TEST(R11, AdjacentWritableRangesPass) {
  Device& d = device();
  auto p = pipeline("fill_pair");
  const uint32_t n = 256;
  Buffer b = poisoned(d, 3 * n, "mega");
  // [0, 1024) and [1024, 2048): touching, not overlapping. The last 1024 bytes stay poisoned.
  run_dispatch(d, p,
               {make_bind_group(d, p, {{0, b, 0, n * 4}, {1, b, n * 4, n * 4}, {2, params(d, n)}})},
               {1, 1});
  auto got = read<uint32_t>(d, b);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], i);
    ASSERT_EQ(got[n + i], n - i);
    ASSERT_EQ(got[2 * n + i], kPoisonBits);
  }
}

// ---- R12: workgroup counts per dimension ------------------------------------------------------------

TEST(R12, CountAboveLimitIsRefused) {
  Device& d = device();
  auto p = pipeline("count_writes");
  Buffer c = poisoned(d, 64, "counts");
  auto g = make_bind_group(d, p, {{0, c}, {1, params(d, 0)}});
  for (int axis = 0; axis < 3; ++axis) {
    CommandEncoder enc = d.create_command_encoder();
    ComputePass pass = enc.begin_compute_pass({"big"});
    pass.set_pipeline(p);
    pass.set_bind_group(0, g);
    uint32_t v[3] = {1, 1, 1};
    v[axis] = 65536;
    const char* names[3] = {"x", "y", "z"};
    expect_validation_error(
        [&] { pass.dispatch_workgroups(v[0], v[1], v[2]); }, "R12",
        {"[ComputePass \"big\"]", std::string("count ") + names[axis] + " (65536)",
         "maxComputeWorkgroupsPerDimension (65535)"});
    pass.end();
  }
}

TEST(R12, CountAtLimitRuns) {
  Device& d = device();
  auto p = pipeline("count_writes");
  const uint32_t n = 65535u * 256u;  // exactly one element per invocation of 65535 workgroups
  Buffer c = d.create_buffer({"counts", uint64_t(n) * 4,
                              BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst});
  // Poison as 0x7fa5a5a5 so a count of one reads 0x7fa5a5a6.
  d.queue().write_buffer(c, 0, std::vector<uint32_t>(n, kPoisonBits).data(), uint64_t(n) * 4);
  run_dispatch(d, p, {make_bind_group(d, p, {{0, c}, {1, params(d, n)}})}, {65535, 1});
  auto got = read<uint32_t>(d, c);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], kPoisonBits + 1) << "element " << i;
}

TEST(R12, GridHelper) {
  Limits l;
  EXPECT_EQ(grid_for_workgroups(1, l).x, 1u);
  EXPECT_EQ(grid_for_workgroups(65535, l).x, 65535u);
  EXPECT_EQ(grid_for_workgroups(65535, l).y, 1u);
  Grid g = grid_for_workgroups(65536, l);
  EXPECT_EQ(g.workgroups(), 65536u);
  EXPECT_LE(g.x, 65535u);
  // A prime above the limit: the helper finds the fewest surplus workgroups (x <= 65535).
  const uint64_t p = 131101;  // prime
  g = grid_for_workgroups(p, l);
  EXPECT_GE(g.workgroups(), p);
  EXPECT_LE(g.x, 65535u);
  EXPECT_LE(g.y, 65535u);
  for (uint64_t y = 1; y <= 65535; ++y) {
    uint64_t x = div_ceil(p, y);
    if (x <= 65535) { EXPECT_GE(x * y - p, g.workgroups() - p) << "y " << y; }
  }
  // The largest expressible count, and one more.
  g = grid_for_workgroups(65535ull * 65535ull, l);
  EXPECT_EQ(g.x, 65535u);
  EXPECT_EQ(g.y, 65535u);
  expect_validation_error([&] { grid_for_workgroups(65535ull * 65535ull + 1, l); }, "R12",
                          {"4294836226", "maxComputeWorkgroupsPerDimension (65535)"});
}

// ---- R13: workgroup size and workgroup memory --------------------------------------------------------

KernelInfo with_workgroup(const char* name, std::array<uint32_t, 3> size, uint32_t storage) {
  KernelInfo k = util(name);
  k.workgroup_size = size;
  k.workgroup_storage_bytes = storage;
  return k;
}

TEST(R13, WorkgroupSizeAboveLimits) {
  Device& d = device();
  // The check runs on the KernelInfo before Vulkan sees the module, so an altered record is
  // enough to break each limit once.
  KernelInfo k = with_workgroup("fill_index", {257, 1, 1}, 0);
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"wide", &k, {}, false});
      },
      "R13",
      {"[ComputePipeline \"wide\"]", "(257, 1, 1)", "x (257)", "maxComputeWorkgroupSizeX (256)"});
  k = with_workgroup("fill_index", {1, 1, 65}, 0);
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"deep", &k, {}, false});
      },
      "R13", {"z (65)", "maxComputeWorkgroupSizeZ (64)"});
  k = with_workgroup("fill_index", {128, 2, 2}, 0);
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"many", &k, {}, false});
      },
      "R13", {"x*y*z (512)", "maxComputeInvocationsPerWorkgroup (256)"});
  k = with_workgroup("shared_max", {256, 1, 1}, 16400);
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"shared", &k, {}, false});
      },
      "R13", {"16400 bytes", "maxComputeWorkgroupStorageSize (16384)"});
}

TEST(R13, KernelsAtTheLimitsRun) {
  Device& d = device();
  EXPECT_EQ(util("fill_index").workgroup_size, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(util("wg_z64").workgroup_size, (std::array<uint32_t, 3>{1, 1, 64}));
  EXPECT_EQ(util("shared_max").workgroup_storage_bytes, 16384u);

  auto z = pipeline("wg_z64");
  Buffer zo = poisoned(d, 65, "z out");
  run_dispatch(d, z, {make_bind_group(d, z, {{0, zo}})}, {1, 1});
  auto got = read<uint32_t>(d, zo);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(got[i], i + 1);
  EXPECT_EQ(got[64], kPoisonBits);

  auto s = pipeline("shared_max");
  Buffer so = poisoned(d, 256, "shared out");
  run_dispatch(d, s, {make_bind_group(d, s, {{0, so}})}, {1, 1});
  got = read<uint32_t>(d, so);
  for (uint32_t lid = 0; lid < 256; ++lid) {
    uint32_t want = 0;
    for (uint32_t k = 0; k < 16; ++k) want += 4095 - (lid * 16 + k);
    ASSERT_EQ(got[lid], want) << "lid " << lid;
  }
}

}  // namespace
}  // namespace wgslvk::testing
