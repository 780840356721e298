// The CTS's --gpu-provider module for Dawn (npm `webgpu`, dawn.node): the baseline wgslvk is
// compared with. The package's index.js is an ES module and the CTS runner loads providers with
// require(), so this loads dawn.node itself. Flags are Dawn's own (e.g. "backend=vulkan").
'use strict';
const path = require('path');

function dawnNodePath() {
  const root = process.env.WGSLVK_NODE_MODULES || path.resolve(__dirname, '../../node_modules');
  return path.join(root, 'webgpu', 'dist', `${process.platform}-${process.arch}`, 'dawn.node');
}

// WGSLVK_DAWN_FLAGS: more of Dawn's flags, space-separated, for every runner (run.mjs passes
// none): e.g. "enable-dawn-features=vulkan_enable_f16_on_nvidia" for shader-f16 on NVIDIA, which
// Dawn offers there only with that toggle.
module.exports.create = flags => {
  const { create, globals } = require(dawnNodePath());
  // The CTS uses GPUBufferUsage, GPUValidationError, ... as globals, as in a browser.
  Object.assign(globalThis, globals);
  const extra = (process.env.WGSLVK_DAWN_FLAGS || '').split(/\s+/).filter(Boolean);
  return create([...flags, ...extra]);
};
