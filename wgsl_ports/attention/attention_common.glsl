// Shared by the attention ports: attention.wgsl's constants and its AttnParams uniform (the same
// std140 block at binding 0 in every kernel). Included after wgsl.glsl.
#ifndef WGSLVK_ATTENTION_COMMON_GLSL
#define WGSLVK_ATTENTION_COMMON_GLSL

#define TILE 16u
#define MAX_HD 128u

// WGSL: struct AttnParams { batch, seq, heads, head_dim: u32, scale: f32, _pad0..2: u32 }
layout(set = 0, binding = 0, std140) uniform AttnParams {
    uint batch;
    uint seq;
    uint heads;
    uint head_dim;
    float scale;
    uint _pad0;
    uint _pad1;
    uint _pad2;
} p;

#endif
