// Native variant of embed_backward, 01_embedding.wgsl (its llm.istanbul study,
// "WGSL-Specific Notes 1. No atomic<f32>": Vulkan has the native add WebGPU lacks). Not in the
// browser engine. Same ABI as embed_backward: binding 2 holds the same f32 bytes, declared float
// so atomicAdd (VK_EXT_shader_atomic_float shaderBufferFloat32AtomicAdd) replaces the CAS loop.
// Everything else is the embed_backward port line for line.
// wgslvk-abi-allow @group(0) @binding(2) element-type: the same f32 bytes embed_backward CAS-adds as atomic<u32> bit patterns; the native atomicAdd needs them typed float
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_float : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer GradOut { float grad_out[]; };
layout(set = 0, binding = 2, std430) buffer GradTable { float grad_table[]; };  // WGSL: atomic<u32>
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint seq_len = dims.x;
    uint d_model = dims.y;
    uint vocab_size = dims.z;
    uint total = seq_len * d_model;
    if (i >= total) { return; }

    uint s = i / d_model;
    uint d = i % d_model;

    uint t = tokens[s];
    if (t >= vocab_size) { return; }

    float val = grad_out[i];
    if (val == 0.0 || !is_finite(val)) { return; }
    uint dst_idx = t * d_model + d;

    atomicAdd(grad_table[dst_idx], val);
}
