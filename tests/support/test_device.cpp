#include "support/test_device.hpp"

#include <dlfcn.h>
#include <link.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define WGSLVK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WGSLVK_TEST_ASAN 1
#endif
#endif

namespace wgslvk::testing {

namespace {
#ifdef WGSLVK_TEST_ASAN
// Under ASan, keep Mesa's Vulkan drivers (libvulkan_*.so) mapped after the loader dlcloses them
// at the last vkDestroyInstance. Mesa allocates util_cpu_caps.L3_affinity_mask (u_cpu_detect.c,
// 128 bytes on this machine) once per process into a global it never frees; once the driver is
// unmapped LeakSanitizer no longer sees that global and reports the block as a direct leak from
// "<unknown module>". A plain C program that creates and destroys one VkInstance + VkDevice on
// lavapipe, with no wgslvk code, reports the same 128 bytes. No LSan suppression can name it
// (the module is gone, only "realloc" would match), so the library stays loaded instead: the
// block is reachable again and every other leak is still reported.
void pin_vulkan_drivers() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        std::string_view path = info->dlpi_name ? info->dlpi_name : "";
        if (path.substr(path.rfind('/') + 1).starts_with("libvulkan_"))
          static_cast<std::vector<std::string>*>(out)->emplace_back(path);
        return 0;
      },
      &paths);
  for (const auto& p : paths) dlopen(p.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}
#else
void pin_vulkan_drivers() {}
#endif
}  // namespace

Instance& instance() {
  static Instance inst = [] {
    Instance i = Instance::create();
    pin_vulkan_drivers();  // the loader has loaded the drivers (ICDs) by now
    return i;
  }();
  return inst;
}

Adapter& adapter() {
  static Adapter a = instance().select_adapter();
  return a;
}

Device make_device(const DeviceDescriptor& desc) { return adapter().request_device(desc); }

Device& device() {
  static Device d = [] {
    DeviceDescriptor desc;
    desc.label = "test device";
    desc.required_features = adapter().features();
    return adapter().request_device(desc);
  }();
  return d;
}

uint64_t test_seed() {
  static uint64_t seed = []() -> uint64_t {
    if (const char* s = std::getenv("WGSLVK_TEST_SEED")) return std::stoull(s);
    return uint64_t(std::random_device{}()) << 32 | uint64_t(std::random_device{}());
  }();
  return seed;
}

std::mt19937_64 rng(uint64_t salt) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  uint64_t h = 1469598103934665603ull;
  if (info)
    for (const char* p : {info->test_suite_name(), info->name()})
      for (; *p; ++p) h = (h ^ uint8_t(*p)) * 1099511628211ull;
  return std::mt19937_64(test_seed() ^ h ^ (salt * 0x9e3779b97f4a7c15ull));
}

float poison_f32() { return std::bit_cast<float>(kPoisonBits); }

namespace {
// Fails the run when the validation layer said anything during a test. (gtest does not let a
// listener add a failure once a test has ended, so the messages are printed with the test's name
// and the binary exits non-zero; CTest runs one test per process, so the test itself fails.)
bool g_layer_spoke = false;
class ValidationListener : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    for (const auto& m : instance().take_validation_messages()) {
      std::fprintf(stderr, "[%s.%s] Vulkan validation layer: %s\n", info.test_suite_name(),
                   info.name(), m.c_str());
      g_layer_spoke = true;
    }
  }
};

class Environment : public ::testing::Environment {
  void SetUp() override {
    std::printf(
        "wgslvk tests: device '%s', validation layer %s, seed %llu "
        "(WGSLVK_TEST_SEED=%llu replays)\n",
        adapter().info().name.c_str(), instance().validation_enabled() ? "on" : "off",
        (unsigned long long)test_seed(), (unsigned long long)test_seed());
  }
};
}  // namespace

}  // namespace wgslvk::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new wgslvk::testing::Environment);
  ::testing::UnitTest::GetInstance()->listeners().Append(new wgslvk::testing::ValidationListener);
  int rc = RUN_ALL_TESTS();
  if (wgslvk::testing::g_layer_spoke) {
    std::fprintf(stderr, "FAILED: the Vulkan validation layer reported messages (above)\n");
    return 1;
  }
  return rc;
}
