// Measurement only (wgsl_ports/subgroup_matrix/README.md, "Robustness"): an LD_PRELOAD shim that
// changes how a wgslvk process asks the Vulkan driver for buffer robustness, so the same kernels
// can be timed with and without the driver's bounds checks. wgslvk itself always enables
// robustBufferAccess (runtime/src/instance.cpp); nothing shipped uses this file.
//   cc -O2 -shared -fPIC -o sgmm_robustness.so bench/sgmm_robustness.c -ldl
//   SGMM_ROBUSTNESS=MODE LD_PRELOAD=./sgmm_robustness.so test_subgroup_matrix ...
// MODE: "default" (or unset): nothing changed (robustBufferAccess, as wgslvk asks);
//   "off": robustBufferAccess cleared at vkCreateDevice (no robustness anywhere);
//   "rba2": VK_EXT_robustness2's robustBufferAccess2 enabled as well (Vulkan requires
//     robustBufferAccess with it): the tighter bounds Dawn asks for where the driver has it;
//   "pipeline_off": the device keeps robustBufferAccess, VK_EXT_pipeline_robustness is enabled and
//     every compute pipeline is created with storage and uniform buffer robustness DISABLED (the
//     per-pipeline form a runtime would use for kernels proven in bounds).
// Each applied change and each missing extension is printed to stderr; a device that lacks the
// extension a mode needs is created unchanged (the line says so).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

static const char* mode(void) {
  const char* m = getenv("SGMM_ROBUSTNESS");
  return m && *m ? m : "default";
}

static int has_extension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
  VkExtensionProperties* p = calloc(n ? n : 1, sizeof *p);
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, p);
  int found = 0;
  for (uint32_t i = 0; i < n; ++i) found |= strcmp(p[i].extensionName, name) == 0;
  free(p);
  return found;
}

static void clear_rba(VkDeviceCreateInfo* ci) {
  if (ci->pEnabledFeatures)
    ((VkPhysicalDeviceFeatures*)ci->pEnabledFeatures)->robustBufferAccess = 0;
  for (VkBaseOutStructure* s = (VkBaseOutStructure*)ci->pNext; s; s = s->pNext)
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
      ((VkPhysicalDeviceFeatures2*)s)->features.robustBufferAccess = 0;
}

static int pipeline_off_enabled = 0;

VKAPI_ATTR VkResult VKAPI_CALL vkCreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* in,
                                              const VkAllocationCallbacks* alloc, VkDevice* out) {
  PFN_vkCreateDevice next = (PFN_vkCreateDevice)dlsym(RTLD_NEXT, "vkCreateDevice");
  const char* m = mode();
  VkDeviceCreateInfo ci = *in;
  const char* exts[256];
  uint32_t n = in->enabledExtensionCount < 250 ? in->enabledExtensionCount : 250;
  for (uint32_t i = 0; i < n; ++i) exts[i] = in->ppEnabledExtensionNames[i];
  VkPhysicalDeviceRobustness2FeaturesEXT r2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
  VkPhysicalDevicePipelineRobustnessFeaturesEXT pr = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT};
  if (strcmp(m, "off") == 0) {
    clear_rba(&ci);
    fprintf(stderr, "sgmm_robustness: robustBufferAccess off\n");
  } else if (strcmp(m, "rba2") == 0) {
    if (!has_extension(pd, VK_EXT_ROBUSTNESS_2_EXTENSION_NAME)) {
      fprintf(stderr, "sgmm_robustness: no VK_EXT_robustness2: device unchanged\n");
    } else {
      r2.robustBufferAccess2 = VK_TRUE;
      r2.pNext = (void*)ci.pNext;
      ci.pNext = &r2;
      exts[n++] = VK_EXT_ROBUSTNESS_2_EXTENSION_NAME;
      fprintf(stderr, "sgmm_robustness: robustBufferAccess and robustBufferAccess2 on\n");
    }
  } else if (strcmp(m, "pipeline_off") == 0) {
    if (!has_extension(pd, VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME)) {
      fprintf(stderr, "sgmm_robustness: no VK_EXT_pipeline_robustness: device unchanged\n");
    } else {
      pr.pipelineRobustness = VK_TRUE;
      pr.pNext = (void*)ci.pNext;
      ci.pNext = &pr;
      exts[n++] = VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME;
      pipeline_off_enabled = 1;
      fprintf(stderr,
              "sgmm_robustness: robustBufferAccess kept, VK_EXT_pipeline_robustness on: "
              "buffers DISABLED per pipeline\n");
    }
  } else if (strcmp(m, "default") != 0) {
    fprintf(stderr,
            "sgmm_robustness: unknown SGMM_ROBUSTNESS=%s (default, off, rba2, "
            "pipeline_off)\n",
            m);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  ci.enabledExtensionCount = n;
  ci.ppEnabledExtensionNames = exts;
  VkResult r = next(pd, &ci, alloc, out);
  if (r != VK_SUCCESS) fprintf(stderr, "sgmm_robustness: vkCreateDevice returned %d\n", (int)r);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL vkCreateComputePipelines(VkDevice dev, VkPipelineCache cache,
                                                        uint32_t count,
                                                        const VkComputePipelineCreateInfo* in,
                                                        const VkAllocationCallbacks* alloc,
                                                        VkPipeline* out) {
  PFN_vkCreateComputePipelines next =
      (PFN_vkCreateComputePipelines)dlsym(RTLD_NEXT, "vkCreateComputePipelines");
  if (!pipeline_off_enabled || count > 16) return next(dev, cache, count, in, alloc, out);
  VkComputePipelineCreateInfo ci[16];
  VkPipelineRobustnessCreateInfoEXT pr[16];
  for (uint32_t i = 0; i < count; ++i) {
    ci[i] = in[i];
    pr[i] = (VkPipelineRobustnessCreateInfoEXT){
        VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT,
        (void*)in[i].pNext,
        VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT,
        VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT,
        VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DEVICE_DEFAULT_EXT,
        VK_PIPELINE_ROBUSTNESS_IMAGE_BEHAVIOR_DEVICE_DEFAULT_EXT};
    ci[i].pNext = &pr[i];
  }
  return next(dev, cache, count, ci, alloc, out);
}
