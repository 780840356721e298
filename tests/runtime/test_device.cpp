// Adapters, device selection, requested limits and features (shader-f16 refused without it).
#include <vulkan/vulkan.h>

#include "test_util.hpp"

namespace wgslvk::testing {
namespace {

TEST(Adapters, ListedWithWebGpuLimits) {
  auto all = instance().adapters();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].info().index, i);
    EXPECT_FALSE(all[i].info().name.empty());
    EXPECT_GE(all[i].info().vulkan_api_version, uint32_t(VK_API_VERSION_1_1));
    const Limits& l = all[i].limits();
    EXPECT_GE(l.max_storage_buffer_binding_size, 1u << 20);
    EXPECT_EQ(l.max_storage_buffer_binding_size % 4, 0u);
    EXPECT_GE(l.max_compute_workgroups_per_dimension, 65535u);
  }
}

TEST(Adapters, SelectByIndexAndName) {
  auto all = instance().adapters();
  Adapter by_index = instance().select_adapter("0");
  EXPECT_EQ(by_index.info().name, all[0].info().name);
  std::string name = all[0].info().name;
  std::string lower;
  for (char c : name.substr(0, 5)) lower += char(std::tolower(uint8_t(c)));
  EXPECT_EQ(instance().select_adapter(lower).info().index,
            instance().select_adapter(lower).info().index);
  EXPECT_NE(instance().select_adapter(lower).info().name.find(name.substr(0, 5)),
            std::string::npos);
  try {
    instance().select_adapter("no such device 12345");
    ADD_FAILURE() << "selector matched nothing but no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no such device 12345"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos);  // lists the adapters
  }
  EXPECT_THROW(instance().select_adapter(std::to_string(all.size())), std::invalid_argument);
}

TEST(Adapters, DefaultPrefersDiscreteThenCpu) {
  if (std::getenv("WGSLVK_DEVICE")) GTEST_SKIP() << "WGSLVK_DEVICE overrides the default";
  auto all = instance().adapters();
  bool has_discrete = false, has_cpu = false;
  for (auto& a : all) {
    has_discrete |= a.info().type == AdapterType::DiscreteGPU;
    has_cpu |= a.info().type == AdapterType::CPU;
  }
  AdapterType t = instance().select_adapter().info().type;
  if (has_discrete) {
    EXPECT_EQ(t, AdapterType::DiscreteGPU);
  } else if (has_cpu) {
    EXPECT_EQ(t, AdapterType::CPU);
  }
}

TEST(DeviceLimits, DefaultsAreWebGpus) {
  Device d = make_device({"defaults", {}, {}});
  const Limits& l = d.limits();
  Limits def;
  EXPECT_EQ(l.min_storage_buffer_offset_alignment, 256u);
  EXPECT_EQ(l.max_storage_buffer_binding_size, def.max_storage_buffer_binding_size);
  EXPECT_EQ(l.max_buffer_size, std::min(def.max_buffer_size, adapter().limits().max_buffer_size));
  EXPECT_EQ(l.max_compute_workgroups_per_dimension, 65535u);
  EXPECT_EQ(l.max_compute_invocations_per_workgroup, 256u);
  EXPECT_EQ(l.max_storage_buffers_per_shader_stage, 8u);
  EXPECT_EQ(l.max_bind_groups, 4u);
  EXPECT_FALSE(d.has_feature(Feature::ShaderF16));
  EXPECT_FALSE(d.has_feature(Feature::TimestampQuery));
  // Effective alignment: the stricter of WebGPU's and the device's.
  EXPECT_EQ(d.storage_offset_alignment(),
            std::max<uint32_t>(256, adapter().limits().min_storage_buffer_offset_alignment));
}

TEST(DeviceLimits, RequestBeyondAdapterFails) {
  const Limits& a = adapter().limits();
  DeviceDescriptor desc{"greedy", {}, {}};
  desc.required_limits.max_storage_buffer_binding_size = a.max_storage_buffer_binding_size + 4;
  expect_validation_error([&] { make_device(desc); }, "limits",
                          {"maxStorageBufferBindingSize (" +
                               std::to_string(a.max_storage_buffer_binding_size + 4) + ")",
                           "supports (" + std::to_string(a.max_storage_buffer_binding_size) + ")"});
  desc = {"greedy", {}, {}};
  desc.required_limits.max_compute_invocations_per_workgroup =
      a.max_compute_invocations_per_workgroup + 1;
  expect_validation_error([&] { make_device(desc); }, "limits",
                          {"maxComputeInvocationsPerWorkgroup"});
  desc = {"greedy", {}, {}};
  desc.required_limits.min_storage_buffer_offset_alignment =
      a.min_storage_buffer_offset_alignment / 2;
  expect_validation_error([&] { make_device(desc); }, "limits",
                          {"minStorageBufferOffsetAlignment", "below"});
}

TEST(DeviceLimits, RequestExactlyTheAdapterPasses) {
  const Limits& a = adapter().limits();
  DeviceDescriptor desc{"best", {}, {}};
  desc.required_limits.max_storage_buffer_binding_size = a.max_storage_buffer_binding_size;
  desc.required_limits.max_compute_invocations_per_workgroup =
      a.max_compute_invocations_per_workgroup;
  desc.required_limits.min_storage_buffer_offset_alignment = a.min_storage_buffer_offset_alignment;
  desc.required_limits.max_compute_workgroup_size_x = a.max_compute_workgroup_size_x;
  Device d = make_device(desc);
  EXPECT_EQ(d.limits().max_storage_buffer_binding_size, a.max_storage_buffer_binding_size);
  EXPECT_EQ(d.limits().max_compute_invocations_per_workgroup,
            a.max_compute_invocations_per_workgroup);
  EXPECT_EQ(d.limits().min_storage_buffer_offset_alignment, a.min_storage_buffer_offset_alignment);
  EXPECT_EQ(d.storage_offset_alignment(), a.min_storage_buffer_offset_alignment);
  // With the raised limit a 257-wide (altered) workgroup passes R13 where the default refuses it.
  if (a.max_compute_invocations_per_workgroup >= 512 && a.max_compute_workgroup_size_x >= 512) {
    KernelInfo k = util("fill_index");
    k.workgroup_size = {512, 1, 1};
    expect_validation_error(
        [&] {
          device().create_compute_pipeline({"w", &k, {}, false});
        },
        "R13", {"512"});
  }
}

TEST(Features, ShaderF16KernelRefusedWithoutFeature) {
  Device d = make_device({"plain", {}, {}});
  ASSERT_TRUE(util("scale_f16").needs_shader_f16);
  expect_validation_error(
      [&] {
        d.create_compute_pipeline({"", &util("scale_f16"), {}, false});
      },
      "R22", {"[ComputePipeline \"wgslvk_util/scale_f16\"]", "shader-f16", "[Device \"plain\"]"});
}

TEST(Features, ShaderF16KernelRunsWithFeature) {
  if (!adapter().has_feature(Feature::ShaderF16)) GTEST_SKIP() << "adapter has no shader-f16";
  Device d = make_device({"f16", {Feature::ShaderF16}, {}});
  auto p = d.create_compute_pipeline({"", &util("scale_f16"), {}, false});
  const uint32_t n = 1000;
  auto r = rng();
  std::vector<uint16_t> in(n);
  for (auto& h : in) h = f32_to_f16_bits(std::uniform_real_distribution<float>(-100, 100)(r));
  Buffer bin = upload(d, in, "in");
  Buffer bout = upload(d, std::vector<uint16_t>(n, 0x7e5a), "out");  // an f16 NaN poison
  run_dispatch(d, p, {make_bind_group(d, p, {{0, bin}, {1, bout}, {2, params(d, n)}})}, {4, 1});
  auto got = read<uint16_t>(d, bout);
  for (uint32_t i = 0; i < n; ++i)  // doubling is exact in f16 within range
    ASSERT_EQ(got[i], f32_to_f16_bits(2.0f * f16_bits_to_f32(in[i]))) << "element " << i;
}

TEST(Features, RequestUnsupportedFeatureFails) {
  for (Feature f : {Feature::ShaderF16, Feature::TimestampQuery, Feature::Float32AtomicAdd}) {
    if (adapter().has_feature(f)) continue;
    expect_validation_error(
        [&] {
          make_device({"x", {f}, {}});
        },
        "feature", {std::string(feature_name(f))});
  }
  Device d = make_device({"no ts", {}, {}});
  expect_validation_error([&] { d.create_query_set({.label = "q", .count = 2}); }, "feature",
                          {"[QuerySet \"q\"]", "timestamp-query"});
}

}  // namespace
}  // namespace wgslvk::testing
