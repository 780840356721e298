// f16_probe: runs SPIR-V variants of the CTS's f16_conversion f16_mat uniform 4x3 module
// (cts/README.md, issue 22) on one Vulkan device and says which read and write the matrix right.
// Plain Vulkan, no wgslvk library: the variants differ only in their SPIR-V (variants.txt).
//
//   f16_probe DIR [CONFIG...]   reads DIR/variants.txt: "name spv_file u|s [v3] [neg]" (binding 1
//   uniform or storage); each CONFIG names the device features to enable, e.g. "robust,int16,u16,mm,scalar"
//   (robustBufferAccess, shaderInt16, uniformAndStorageBuffer16BitAccess, the Vulkan memory model,
//   scalarBlockLayout; "-" for none of them); default: all, then all but robust. A variant whose
//   module needs a feature left out is skipped. F16_PROBE_DUMP=A,B prints elements 0-1 of variants A and B.
//
// Module ABI (as the CTS's): binding 0 = array<Output, 64> in storage, Output { mat4x3<f16> }
// (32 bytes: columns at 0, 8, 16, 24); binding 1 = array<Input, 64>, the same layout (a line's
// "v3": 128 vec3<f16> at a 16-byte stride in, 8 out; "neg": the value negated; "q32": 512 f32
// through quantizeToF16 spellings, checked against round-to-nearest-even). Input
// element i, column c, row r holds distinct non-zero f16 bits; the padding half of each column
// holds 0xC123 (so a read of the padding is seen); the output starts poisoned (0xDEAD per half).
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kBytes = 2048;

// Where the values lie, in halves: `count` elements of `cols` 3-row columns (4 halves apart), at
// `in_stride` halves in the input and `out_stride` in the output; every other half is padding.
struct Layout {
  int count, cols, in_stride, out_stride;
};
constexpr Layout kMat4x3{64, 4, 16, 16};  // array<struct { mat4x3<f16> }, 64>, both sides
constexpr Layout kVec3{128, 1, 8, 4};     // uniform array<@size(16) vec3<f16>> -> storage stride 8
// "q32": 512 f32 in (normal f16 range, low 13 bits non-zero), 512 f32 out: quantizeToF16.
constexpr Layout kQuantize{0, 0, 0, 0};

float quantize_input(int i) {
  uint32_t m = (uint32_t(i) * 2654435761u) & 0x7FFFFFu;
  if ((m & 0x1FFFu) == 0) m |= 1;
  uint32_t e = 127 - 14 + uint32_t(i % 29);  // 2^-14 .. 2^14
  uint32_t b = (i & 1 ? 0x80000000u : 0u) | (e << 23) | m;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

float quantize_want(float x) {  // f32 -> f16 (round to nearest even) -> f32, normal range
  uint32_t b;
  std::memcpy(&b, &x, 4);
  b = (b + 0x0FFFu + ((b >> 13) & 1u)) & 0xFFFFE000u;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
constexpr uint16_t kPad = 0xC123, kPoison = 0xDEAD;

#define VK(x)                                                              \
  do {                                                                     \
    VkResult r_ = (x);                                                     \
    if (r_ != VK_SUCCESS) {                                                \
      std::fprintf(stderr, "%s failed: %d (line %d)\n", #x, r_, __LINE__); \
      std::exit(2);                                                        \
    }                                                                      \
  } while (0)

uint16_t input_half(int i, int c, int r) {
  // Normal f16 in [2, 4), sign alternating: never 0, never the padding or the poison.
  uint16_t mant = uint16_t((i * 37 + c * 11 + r * 5 + 1) & 0x3FF);
  return uint16_t(((i + c + r) & 1 ? 0xC000 : 0x4000) | mant);
}

struct Dev {
  VkInstance inst{};
  VkPhysicalDevice phys{};
  VkDevice dev{};
  VkQueue queue{};
  uint32_t qfam = 0;
  std::string name;
};

// A device configuration: which of the features below are enabled (when supported).
struct Config {
  bool robust = true, int16 = true, u16 = true, mm = true, scalar = true;
  std::string text() const {
    return std::string(robust ? "robust" : "-") + (int16 ? ",int16" : "") + (u16 ? ",u16" : "") +
           (mm ? ",mm" : "") + (scalar ? ",scalar" : "");
  }
};

Config parse_config(const std::string& s) {  // e.g. "robust,int16,u16,mm,scalar" or "-"
  Config c;
  c.robust = s.find("robust") != std::string::npos;
  c.int16 = s.find("int16") != std::string::npos;
  c.u16 = s.find("u16") != std::string::npos;
  c.mm = s.find("mm") != std::string::npos;
  c.scalar = s.find("scalar") != std::string::npos;
  return c;
}

Dev make_device(const Config& cfg) {
  Dev d;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VK(vkCreateInstance(&ici, nullptr, &d.inst));
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(d.inst, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  vkEnumeratePhysicalDevices(d.inst, &n, pds.data());
  if (n == 0) std::exit(3);
  d.phys = pds[0];
  for (auto p : pds) {  // the first discrete GPU, else the first
    VkPhysicalDeviceProperties pp;
    vkGetPhysicalDeviceProperties(p, &pp);
    if (pp.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
      d.phys = p;
      break;
    }
  }
  VkPhysicalDeviceProperties pp;
  vkGetPhysicalDeviceProperties(d.phys, &pp);
  d.name = pp.deviceName;
  char drv[64];
  std::snprintf(drv, sizeof drv, " (driver 0x%x)", pp.driverVersion);
  d.name += drv;
  uint32_t qn = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(d.phys, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> qf(qn);
  vkGetPhysicalDeviceQueueFamilyProperties(d.phys, &qn, qf.data());
  for (uint32_t i = 0; i < qn; ++i)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      d.qfam = i;
      break;
    }
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f11;
  f11.pNext = &f12;
  vkGetPhysicalDeviceFeatures2(d.phys, &f2);
  VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 e2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  e2.pNext = &e11;
  e11.pNext = &e12;
  e2.features.robustBufferAccess = cfg.robust && f2.features.robustBufferAccess;
  e2.features.shaderInt16 = cfg.int16 && f2.features.shaderInt16;
  e11.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
  e11.uniformAndStorageBuffer16BitAccess = cfg.u16 && f11.uniformAndStorageBuffer16BitAccess;
  e12.shaderFloat16 = f12.shaderFloat16;
  e12.scalarBlockLayout = cfg.scalar && f12.scalarBlockLayout;
  e12.vulkanMemoryModel = cfg.mm && f12.vulkanMemoryModel;
  e12.vulkanMemoryModelDeviceScope = cfg.mm && f12.vulkanMemoryModelDeviceScope;
  float prio = 1;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = d.qfam;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &e2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  VK(vkCreateDevice(d.phys, &dci, nullptr, &d.dev));
  vkGetDeviceQueue(d.dev, d.qfam, 0, &d.queue);
  return d;
}

struct Buf {
  VkBuffer b{};
  VkDeviceMemory m{};
  void* p{};
};

Buf make_buffer(const Dev& d, VkBufferUsageFlags usage) {
  Buf b;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = kBytes;
  bci.usage = usage;
  VK(vkCreateBuffer(d.dev, &bci, nullptr, &b.b));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(d.dev, b.b, &mr);
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(d.phys, &mp);
  uint32_t type = UINT32_MAX;
  const VkMemoryPropertyFlags want =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if ((mr.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
      type = i;
      break;
    }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = mr.size;
  mai.memoryTypeIndex = type;
  VK(vkAllocateMemory(d.dev, &mai, nullptr, &b.m));
  VK(vkBindBufferMemory(d.dev, b.b, b.m, 0));
  VK(vkMapMemory(d.dev, b.m, 0, kBytes, 0, &b.p));
  return b;
}

std::vector<uint32_t> read_spv(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (s.empty() || s.size() % 4) {
    std::fprintf(stderr, "bad SPIR-V file %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<uint32_t> w(s.size() / 4);
  std::memcpy(w.data(), s.data(), s.size());
  return w;
}

// Runs one variant; returns the output halves.
std::vector<uint16_t> run(const Dev& d, const std::vector<uint32_t>& spv, bool storage_in,
                          const Layout& l) {
  Buf out = make_buffer(d, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  Buf in = make_buffer(
      d, storage_in ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT : VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  auto* ih = static_cast<uint16_t*>(in.p);
  auto* oh = static_cast<uint16_t*>(out.p);
  for (int k = 0; k < kBytes / 2; ++k) ih[k] = kPad, oh[k] = kPoison;
  if (l.count == 0)
    for (int i = 0; i < kBytes / 4; ++i) static_cast<float*>(in.p)[i] = quantize_input(i);
  for (int i = 0; i < l.count; ++i)
    for (int c = 0; c < l.cols; ++c)
      for (int r = 0; r < 3; ++r) ih[i * l.in_stride + c * 4 + r] = input_half(i, c, r);

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = spv.size() * 4;
  smci.pCode = spv.data();
  VkShaderModule sm;
  VK(vkCreateShaderModule(d.dev, &smci, nullptr, &sm));
  VkDescriptorSetLayoutBinding lb[2]{};
  lb[0].binding = 0;
  lb[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  lb[0].descriptorCount = 1;
  lb[0].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  lb[1] = lb[0];
  lb[1].binding = 1;
  lb[1].descriptorType =
      storage_in ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  VkDescriptorSetLayoutCreateInfo dlci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dlci.bindingCount = 2;
  dlci.pBindings = lb;
  VkDescriptorSetLayout dsl;
  VK(vkCreateDescriptorSetLayout(d.dev, &dlci, nullptr, &dsl));
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &dsl;
  VkPipelineLayout pl;
  VK(vkCreatePipelineLayout(d.dev, &plci, nullptr, &pl));
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = sm;
  cpci.stage.pName = "main";
  cpci.layout = pl;
  VkPipeline pipe;
  VK(vkCreateComputePipelines(d.dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipe));
  VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2},
                                {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1}};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 2;
  dpci.pPoolSizes = ps;
  VkDescriptorPool dp;
  VK(vkCreateDescriptorPool(d.dev, &dpci, nullptr, &dp));
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = dp;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &dsl;
  VkDescriptorSet ds;
  VK(vkAllocateDescriptorSets(d.dev, &dsai, &ds));
  VkDescriptorBufferInfo bi[2] = {{out.b, 0, kBytes}, {in.b, 0, kBytes}};
  VkWriteDescriptorSet w[2]{};
  for (int k = 0; k < 2; ++k) {
    w[k].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w[k].dstSet = ds;
    w[k].dstBinding = uint32_t(k);
    w[k].descriptorCount = 1;
    w[k].descriptorType = lb[k].descriptorType;
    w[k].pBufferInfo = &bi[k];
  }
  vkUpdateDescriptorSets(d.dev, 2, w, 0, nullptr);
  VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpi.queueFamilyIndex = d.qfam;
  VkCommandPool cp;
  VK(vkCreateCommandPool(d.dev, &cpi, nullptr, &cp));
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = cp;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cb;
  VK(vkAllocateCommandBuffers(d.dev, &cbai, &cb));
  VkCommandBufferBeginInfo cbbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK(vkBeginCommandBuffer(cb, &cbbi));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &ds, 0, nullptr);
  vkCmdDispatch(cb, l.count == 0 ? 8 : 1, 1, 1);  // q32: 8 x 64 for the "wide" shape
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &mb, 0, nullptr, 0, nullptr);
  VK(vkEndCommandBuffer(cb));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VK(vkQueueSubmit(d.queue, 1, &si, VK_NULL_HANDLE));
  VK(vkQueueWaitIdle(d.queue));
  std::vector<uint16_t> res(oh, oh + kBytes / 2);
  vkDestroyCommandPool(d.dev, cp, nullptr);
  vkDestroyDescriptorPool(d.dev, dp, nullptr);
  vkDestroyPipeline(d.dev, pipe, nullptr);
  vkDestroyPipelineLayout(d.dev, pl, nullptr);
  vkDestroyDescriptorSetLayout(d.dev, dsl, nullptr);
  vkDestroyShaderModule(d.dev, sm, nullptr);
  for (Buf* b : {&out, &in}) {
    vkUnmapMemory(d.dev, b->m);
    vkDestroyBuffer(d.dev, b->b, nullptr);
    vkFreeMemory(d.dev, b->m, nullptr);
  }
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: f16_probe DIR [CONFIG...] (with DIR/variants.txt)\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream vf(dir + "/variants.txt");
  struct V {
    std::string name, file;
    bool storage, neg;
    Layout layout;
  };
  std::vector<V> vs;
  for (std::string line; std::getline(vf, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    V v;
    std::string kind;
    ls >> v.name >> v.file >> kind;
    v.storage = kind == "s";
    v.layout = kMat4x3;
    v.neg = false;
    for (std::string w; ls >> w;) {
      if (w == "v3") v.layout = kVec3;
      if (w == "neg") v.neg = true;
      if (w == "q32") v.layout = kQuantize;
    }
    vs.push_back(v);
  }
  std::vector<Config> configs;
  for (int a = 2; a < argc; ++a) configs.push_back(parse_config(argv[a]));
  if (configs.empty()) {
    configs.push_back(parse_config("robust,int16,u16,mm,scalar"));
    configs.push_back(parse_config("int16,u16,mm,scalar"));
  }
  const char* dump = std::getenv("F16_PROBE_DUMP");
  int bad_variants = 0;
  for (const Config& cfg : configs) {
    Dev d = make_device(cfg);
    std::printf("# device: %s, features: %s\n", d.name.c_str(), cfg.text().c_str());
    std::printf("%-28s %6s %6s  %s\n", "variant", "wrong", "padOK",
                "wrong values by column/row, first example");
    for (const V& v : vs) {
      const bool needs_u16 =
          v.name == "ours" || (!v.storage && v.name.find("slots") == std::string::npos &&
                               v.name.find("uvec2") == std::string::npos && v.name != "tint");
      if ((needs_u16 && !cfg.u16) || (v.name == "tint" && !cfg.mm) ||
          (v.name.rfind("scalar_layout", 0) == 0 && !cfg.scalar)) {
        std::printf("%-28s %6s\n", v.name.c_str(), "skip");
        continue;
      }
      const Layout& l = v.layout;
      std::vector<uint16_t> o = run(d, read_spv(dir + "/" + v.file), v.storage, l);
      const uint16_t sign = v.neg ? 0x8000 : 0;
      if (l.count == 0) {  // quantizeToF16
        int wrong = 0;
        std::string example;
        for (int i = 0; i < kBytes / 4; ++i) {
          float got, x = quantize_input(i);
          std::memcpy(&got, &o[i * 2], 4);
          if (got != quantize_want(x) && !wrong++) {
            char b[96];
            std::snprintf(b, sizeof b, "[%d] %.9g: %.9g, want %.9g", i, x, got, quantize_want(x));
            example = b;
          }
        }
        std::printf("%-28s %6d %6s  %s\n", v.name.c_str(), wrong, "-", example.c_str());
        bad_variants += wrong != 0 && v.name.rfind("control", 0) != 0;
        continue;
      }
      if (dump && ("," + std::string(dump) + ",").find("," + v.name + ",") != std::string::npos)
        for (int i = 0; i < 2; ++i) {
          std::printf("  [%d] in :", i);
          for (int k = 0; k < l.cols * 4; ++k)
            std::printf(" %04x", k % 4 == 3 ? kPad : input_half(i, k / 4, k % 4));
          std::printf("\n  [%d] out:", i);
          for (int k = 0; k < l.cols * 4; ++k) std::printf(" %04x", o[i * l.out_stride + k]);
          std::printf("\n");
        }
      int wrong = 0, pad_ok = 0, by[4][3] = {};
      std::string example;
      for (int i = 0; i < l.count; ++i)
        for (int c = 0; c < l.cols; ++c) {
          for (int r = 0; r < 3; ++r) {
            uint16_t got = o[i * l.out_stride + c * 4 + r], want = input_half(i, c, r) ^ sign;
            if (got != want) {
              ++wrong;
              ++by[c][r];
              if (example.empty()) {
                char b[96];
                std::snprintf(b, sizeof b, "[%d] col %d row %d: 0x%04x, want 0x%04x", i, c, r, got,
                              want);
                example = b;
              }
            }
          }
          pad_ok += o[i * l.out_stride + c * 4 + 3] == kPoison;
        }
      std::string where;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r)
          if (by[c][r])
            where += "c" + std::to_string(c) + "r" + std::to_string(r) + ":" +
                     std::to_string(by[c][r]) + " ";
      std::printf("%-28s %6d %6d  %s%s\n", v.name.c_str(), wrong, pad_ok, where.c_str(),
                  example.c_str());
      bad_variants += wrong != 0 && v.name.rfind("control", 0) != 0;
    }
    std::fflush(stdout);
  }
  return bad_variants ? 1 : 0;
}
